"""Benchmark: what the WordPress bridge's queue costs a memory write on a real database.

The bridge keeps its queue in WordPress options. This runs the real bridge in the tests' WordPress
stand-in (tests/wp_projection/php/harness.php) with its options in a real MariaDB (or MySQL)
table `wp_options` of WordPress's schema, written with the statements WordPress's option API uses,
one autocommitted statement each, on a throwaway server with default durability
(`innodb_flush_log_at_trx_commit=1`: each commit reaches the disk). Each request writes one memory
file and regenerates SITE.md (two events), as a Data Machine write does; the receiver is not
listening, and the request never contacts it anyway. Reported: the time of a request without the
bridge, with the bridge writing each option in its own autocommit (as it did before), and with the
bridge queueing each envelope in one transaction (`$wpdb`), the cases taking turns request by
request on one server; the option writes each made; the same with the file-backed stand-in.

Needs php-cli with mysqli (Debian: php-mysql) and MariaDB's server binaries (Debian:
mariadb-server); not part of the tests.

With ``--runs N`` the whole run (a fresh server each) is made N times: each figure is then the
median of the runs' p50s, and ``figures`` gives its median, spread and runs (each case's own
request times are in ``cases``, ``ms``), with ``load_start``, ``load_end``, ``run_loads``,
``machine`` and ``condition`` (wheels or editable, revision).

Usage: python tools/bench/bridge_db.py [--writes 200] [--runs 1] [--json]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from cuecard.wp_projection import render_settings, write_bridge

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _figures import condition, figure, load, machine

HARNESS = Path(__file__).resolve().parents[2] / "tests" / "wp_projection" / "php" / "harness.php"
SECRET = "bench-secret-0123456789abcdef"
HOME = "https://bench.example"


@contextlib.contextmanager
def mariadb(root: Path) -> Iterator[tuple[str, str]]:
    """A throwaway MariaDB server on a Unix socket (no network); yields (socket, version)."""
    data, sock = root / "data", root / "mysql.sock"
    subprocess.run(
        [
            "mariadb-install-db",
            "--no-defaults",
            f"--datadir={data}",
            "--user=root",
            "--auth-root-authentication-method=normal",
            "--skip-test-db",
        ],
        check=True,
        capture_output=True,
    )
    server = subprocess.Popen(
        [
            shutil.which("mariadbd") or "/usr/sbin/mariadbd",
            "--no-defaults",
            f"--datadir={data}",
            f"--socket={sock}",
            f"--pid-file={root / 'mysql.pid'}",
            "--skip-networking",
            "--user=root",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while subprocess.run(
            ["mariadb", f"--socket={sock}", "-uroot", "-e", "CREATE DATABASE IF NOT EXISTS wp"],
            capture_output=True,
            check=False,
        ).returncode:
            if time.monotonic() > deadline or server.poll() is not None:
                raise RuntimeError("mariadbd did not start")
            time.sleep(0.2)
        version = subprocess.run(
            ["mariadb", f"--socket={sock}", "-uroot", "-N", "-e", "SELECT VERSION()"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        yield str(sock), version
    finally:
        server.terminate()
        server.wait(timeout=60)


def _events(i: int) -> list[Any]:
    scope = {
        "layer": "agent",
        "workspace_type": "site",
        "workspace_id": HOME,
        "user_id": 1,
        "agent_id": 0,
        "filename": f"contexts/n-{i:04d}.md",
    }
    return [
        {
            "action": "datamachine_agent_memory_updated",
            "args": [{"__scope": scope}, f"# note {i}\n" + "x" * 400 + "\n", {}],
        },
        {"action": "datamachine_composable_regenerated", "args": ["SITE.md", "", {"n": i}]},
    ]


class _Case:
    """One configuration: its own database (or options file) and mu-plugins, its times."""

    def __init__(self, root: Path, *, bridge: bool, db: dict[str, str] | None, wpdb: bool):
        self.tmp = Path(tempfile.mkdtemp(dir=root))
        self.plugins = self.tmp / "mu-plugins"
        self.plugins.mkdir()
        self.db, self.wpdb = db, wpdb
        self.times: list[float] = []
        self.writes_made = 0
        self.done = 0
        if bridge:
            with socket.socket() as probe:  # a port nothing listens on
                probe.bind(("127.0.0.1", 0))
                port = probe.getsockname()[1]
            endpoint = f"http://127.0.0.1:{port}/events"
            write_bridge(
                self.plugins, render_settings(endpoint=endpoint, secret=SECRET, timeout_s=2.0)
            )

    def request(self, php: str) -> None:
        spec: dict[str, Any] = {
            "home_url": HOME + "/",
            "options_file": str(self.tmp / "options.json"),
            "log_file": str(self.tmp / "php.log"),
            "events": _events(self.done),
            "run_queue": False,
            "wpdb": self.wpdb,
        }
        if self.db is not None:
            spec["mysql"] = self.db
        path = self.tmp / "script.json"
        path.write_text(json.dumps(spec))
        done = subprocess.run(
            [php, str(HARNESS), str(self.plugins), str(path)],
            capture_output=True,
            text=True,
            timeout=300,
            check=True,
        )
        out = json.loads(done.stdout)
        self.times.append(float(out["request_ms"]))
        self.writes_made = int(out["request_option_writes"])
        self.done += 1

    def report(self) -> dict[str, Any]:
        times = sorted(self.times)
        return {
            "ms_p50": round(statistics.median(times), 3),
            "ms_p95": round(times[int(len(times) * 0.95)], 3),
            "ms": figure(times),
            "option_writes_per_request": self.writes_made,
        }


def run(writes: int) -> dict[str, Any]:
    php = shutil.which("php")
    if php is None:
        raise SystemExit("php-cli is required")
    with tempfile.TemporaryDirectory(prefix="cuecard-bench-db-") as tmp:
        root = Path(tmp)
        with mariadb(root) as (sock, version):
            names = ("none", "autocommit", "transaction")
            for name in names:
                subprocess.run(
                    ["mariadb", f"--socket={sock}", "-uroot", "-e", f"CREATE DATABASE wp_{name}"],
                    check=True,
                )
            cases = {
                name: _Case(
                    root,
                    bridge=name != "none",
                    db={"socket": sock, "user": "root", "database": f"wp_{name}"},
                    wpdb=name == "transaction",
                )
                for name in names
            }
            cases["stand_in_none"] = _Case(root, bridge=False, db=None, wpdb=False)
            cases["stand_in"] = _Case(root, bridge=True, db=None, wpdb=False)
            # The cases take turns, one request each, so the machine's load falls on all alike.
            for _ in range(writes):
                for case in cases.values():
                    case.request(php)
            reports = {name: case.report() for name, case in cases.items()}
    base = reports["none"]["ms_p50"]
    return {
        "writes": writes,
        "database": f"MariaDB {version}, InnoDB, innodb_flush_log_at_trx_commit=1",
        "cases": reports,
        "bridge_adds_ms_p50_mariadb_autocommit": round(reports["autocommit"]["ms_p50"] - base, 3),
        "bridge_adds_ms_p50_mariadb_transaction": round(reports["transaction"]["ms_p50"] - base, 3),
        "bridge_adds_ms_p50_stand_in": round(
            reports["stand_in"]["ms_p50"] - reports["stand_in_none"]["ms_p50"], 3
        ),
        "load_avg_1m": round(os.getloadavg()[0], 2),
        "cpus": os.cpu_count(),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--writes", type=int, default=200, help="requests per case")
    parser.add_argument("--runs", type=int, default=1, help="whole runs, a fresh server each")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    started_load = load()
    runs = [run(args.writes) for _ in range(args.runs)]
    result = dict(runs[-1])
    p50s = {name: [one["cases"][name]["ms_p50"] for one in runs] for name in result["cases"]}
    adds = [key for key in result if key.startswith("bridge_adds_")]
    for key in adds:
        result[key] = round(statistics.median(one[key] for one in runs), 3)
    result["runs"] = args.runs
    result["run_loads"] = [one["load_avg_1m"] for one in runs]
    result["figures"] = {
        **{f"{name} ms_p50": figure(values) for name, values in p50s.items()},
        **{key: figure([one[key] for one in runs]) for key in adds},
    }
    result["load_start"] = started_load
    result["load_end"] = load()
    result["machine"] = machine()
    result["condition"] = condition()
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
