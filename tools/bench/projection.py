"""Benchmark: signed events posted over loopback HTTP through `cuecard wp serve`, applied to disk.

Starts the real receiver (`cuecard wp serve`, a separate process), posts N signed
`memory.updated` events concurrently, then polls the signed `GET /status` until the worker has
applied all of them. Every projected file is fsync'd (and its directory) before the worker marks
its event applied, so the figure counts only durable files. Budget (docs/architecture.md):
>= 500 events/s for 1,000 events. The receiver's CPU time (user + system, from /proc) is reported
too: on a loaded machine the wall-clock rate says more about the neighbours than the receiver.

Each figure is the median of ``--runs`` runs (a fresh receiver each; the bridge's cases, PHP
requests with a median of their own, run once after them); ``figures`` gives each one's median,
spread and runs, with ``load_start``, ``load_end``, ``machine`` and ``condition`` (wheels or
editable, revision).

Usage: python tools/bench/projection.py [--events 1000] [--concurrency 32] [--runs 3] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import httpx

from cuecard.wp_projection import render_settings, signed_headers, write_bridge

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _figures import condition, figure, load, machine

SECRET = "bench-secret-0123456789abcdef"
HOME = "https://bench.example"
BUDGET = 500.0


def _envelope(i: int) -> bytes:
    day = i % 28 + 1
    month = i // 28 % 12 + 1
    year = 2000 + i // 336
    filename = f"daily/{year}/{month:02d}/{day:02d}.md"
    content = f"# {filename}\n\n- event {i}: " + "x" * 400 + "\n"
    raw = content.encode()
    env = {
        "schema": "dm-memory-projection/v1",
        "event_id": str(uuid.uuid4()),
        "seq": i + 1,
        "emitted_at": "2026-11-30T08:00:00Z",
        "site": {"home_url": HOME, "blog_id": 1},
        "type": "memory.updated",
        "scope": {
            "layer": "agent",
            "workspace_type": "site",
            "workspace_id": HOME,
            "user_id": 1,
            "agent_id": 1,
            "agent_slug": "bench",
            "filename": filename,
            "key": f"agent:site:{HOME}:1:1:{filename}",
        },
        "content": content,
        "content_encoding": "utf-8",
        "hash": hashlib.sha1(raw).hexdigest(),
        "bytes": len(raw),
        "metadata": {},
    }
    return json.dumps(env).encode()


def _headers(body: bytes) -> dict[str, str]:
    headers = signed_headers(SECRET.encode(), int(time.time()), body)
    headers["Content-Type"] = "application/json"
    return headers


async def _post_all(url: str, bodies: list[bytes], concurrency: int) -> list[float]:
    """Post over ``concurrency`` keep-alive connections with a lean HTTP/1.1 client (asyncio
    streams), so the figure measures the receiver rather than the client library."""
    host, port = url.removeprefix("http://").rsplit(":", 1)
    latencies: list[float] = []
    pending = iter(bodies)

    async def worker() -> None:
        reader, writer = await asyncio.open_connection(host, int(port))
        try:
            for body in pending:
                head = "".join(f"{k}: {v}\r\n" for k, v in _headers(body).items())
                request = (
                    f"POST /events HTTP/1.1\r\nHost: {host}:{port}\r\n{head}"
                    f"Content-Length: {len(body)}\r\n\r\n"
                ).encode() + body
                start = time.perf_counter()
                writer.write(request)
                status = (await reader.readline()).split(b" ", 2)[1]
                length = 0
                while (line := await reader.readline()) not in (b"\r\n", b""):
                    name, _, value = line.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value)
                answer = await reader.readexactly(length)
                if status != b"202":
                    raise RuntimeError(f"event refused: {status.decode()} {answer.decode()}")
                latencies.append(time.perf_counter() - start)
        finally:
            writer.close()

    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return latencies


def _cpu_s(pid: int) -> float:
    """User + system CPU seconds a process used so far (Linux /proc), 0.0 elsewhere."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


HARNESS = Path(__file__).resolve().parents[2] / "tests" / "wp_projection" / "php" / "harness.php"


def _php_request(php: str, tmp: Path, plugins: Path, events: list[Any], **script: Any) -> Any:
    spec = {
        "home_url": HOME + "/",
        "options_file": str(tmp / "options.json"),
        "log_file": str(tmp / "php.log"),
        "transport": "wp",
        "events": events,
        **script,
    }
    path = tmp / "script.json"
    path.write_text(json.dumps(spec))
    done = subprocess.run(
        [php, str(HARNESS), str(plugins), str(path)],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return json.loads(done.stdout)


def _write_events(i: int) -> list[Any]:
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


def _bridge_case(
    php: str, root: Path, endpoint: str | None, writes: int, *, cpu_only: bool = False
) -> dict[str, Any]:
    """``writes`` requests of one memory write each; the time the actions took in each.

    Each option write is a file write in the stand-in (WordPress: one database row written);
    ``cpu_only`` defers them to the request's end, leaving the bridge's own work."""
    tmp = Path(tempfile.mkdtemp(dir=root))
    plugins = tmp / "mu-plugins"
    plugins.mkdir()
    if endpoint is not None:
        write_bridge(
            plugins, render_settings(endpoint=endpoint + "/events", secret=SECRET, timeout_s=2.0)
        )
    times = []
    for i in range(writes):
        out = _php_request(
            php, tmp, plugins, _write_events(i), run_queue=False, persist_at_end=cpu_only
        )
        times.append(float(out["request_ms"]))
    times.sort()
    result: dict[str, Any] = {
        "ms_p50": round(statistics.median(times), 3),
        "ms_p95": round(times[int(len(times) * 0.95)], 3),
        "ms": figure(times),
    }
    result["option_writes_per_request"] = out["request_option_writes"]
    if endpoint is not None:
        result["queued"] = len(out["queue"])
        result["_state"] = (tmp, plugins)
    return result


def run_bridge(url: str, writes: int) -> dict[str, Any] | None:
    """The bridge's cost to a memory write, with a live and with a hung receiver."""
    php = shutil.which("php")
    if php is None or not HARNESS.is_file():
        return None
    hung = socket.socket()
    hung.bind(("127.0.0.1", 0))
    hung.listen(1024)  # accepts (the kernel completes the handshakes) and never answers
    hung_url = f"http://127.0.0.1:{hung.getsockname()[1]}"
    try:
        with tempfile.TemporaryDirectory(prefix="cuecard-bench-bridge-") as tmp:
            root = Path(tmp)
            without = _bridge_case(php, root, None, writes)
            live = _bridge_case(php, root, url, writes)
            stuck = _bridge_case(php, root, hung_url, writes)
            cpu = _bridge_case(php, root, hung_url, writes, cpu_only=True)
            state, plugins = live.pop("_state")
            stuck.pop("_state")
            cpu.pop("_state")
            start = time.perf_counter()
            out = _php_request(php, state, plugins, [], run_queue=True)
            wall = time.perf_counter() - start
            delivered = [d for d in out["delivered"] if d["result"]["ok"]]
    finally:
        hung.close()
    return {
        "writes": writes,
        "events_per_write": 2,
        "without_bridge": without,
        "receiver_up": live,
        "receiver_hung": stuck,
        "receiver_hung_cpu_only": cpu,
        "bridge_adds_ms_p50": round(live["ms_p50"] - without["ms_p50"], 3),
        "bridge_adds_ms_p50_hung": round(stuck["ms_p50"] - without["ms_p50"], 3),
        "bridge_adds_ms_p50_hung_cpu_only": round(cpu["ms_p50"] - without["ms_p50"], 3),
        "delivery": {
            "queued_envelopes": live["queued"],
            "delivered": len(delivered),
            "envelopes_without_coalescing": 2 * writes,
            "scheduler_run_ms": round(float(out["queue_ms"]), 1),
            "ms_per_envelope": round(float(out["queue_ms"]) / max(len(delivered), 1), 2),
            "php_process_wall_s": round(wall, 3),
        },
    }


def run(events: int, concurrency: int, bridge_writes: int = 0) -> dict[str, object]:
    cuecard = Path(sys.executable).parent / "cuecard"
    with tempfile.TemporaryDirectory(prefix="cuecard-bench-") as tmp:
        root = Path(tmp) / "runtime"
        root.mkdir()
        env = {**os.environ, "CUECARD_WP_SECRET": SECRET}
        proc = subprocess.Popen(
            [str(cuecard), "wp", "serve", "--root", str(root), "--port", "0"],
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        try:
            assert proc.stderr is not None
            line = proc.stderr.readline()
            match = re.search(r"listening on (http://\S+)", line)
            if not match:
                raise RuntimeError(f"receiver did not start: {line}{proc.stderr.read()}")
            url = match.group(1)
            bodies = [_envelope(i) for i in range(events)]
            with httpx.Client(timeout=30) as client:
                while client.get(url + "/status", headers=_headers(b"")).status_code != 200:
                    time.sleep(0.05)
                cpu_before = _cpu_s(proc.pid)
                start = time.perf_counter()
                latencies = asyncio.run(_post_all(url, bodies, concurrency))
                acked = time.perf_counter() - start
                while True:
                    report = client.get(url + "/status?brief=1", headers=_headers(b"")).json()
                    if report["queue"]["applied"] >= events and report["queue"]["waiting"] == 0:
                        break
                    time.sleep(0.02)
                elapsed = time.perf_counter() - start
                cpu = _cpu_s(proc.pid) - cpu_before
            written = sum(1 for p in (root / ".dm-memory").rglob("*.md") if p.is_file())
            bridge = run_bridge(url, bridge_writes) if bridge_writes else None
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    rate = events / elapsed
    return {
        "events": events,
        "concurrency": concurrency,
        "files_written": written,
        "seconds": round(elapsed, 3),
        "events_per_s": round(rate, 1),
        "acked_per_s": round(events / acked, 1),
        "ack_latency_ms_p50": round(statistics.median(latencies) * 1000, 2),
        "ack_latency_ms_p95": round(sorted(latencies)[int(len(latencies) * 0.95)] * 1000, 2),
        "receiver_cpu_s": round(cpu, 3),
        "receiver_cpu_ms_per_event": round(cpu * 1000 / events, 3),
        "budget_events_per_s": BUDGET,
        "load_avg_1m": round(os.getloadavg()[0], 2),
        "cpus": os.cpu_count(),
        "within_budget": rate >= BUDGET,
        "bridge": bridge,
    }


# The figures of a run that --runs takes the median of.
MEDIANS = (
    "seconds",
    "events_per_s",
    "acked_per_s",
    "ack_latency_ms_p50",
    "ack_latency_ms_p95",
    "receiver_cpu_s",
    "receiver_cpu_ms_per_event",
)


def _number(report: dict[str, object], key: str) -> float:
    value = report[key]
    assert isinstance(value, int | float)
    return float(value)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument(
        "--bridge-writes",
        type=int,
        default=40,
        help="requests per bridge case (0: skip the bridge; it also needs php-cli)",
    )
    parser.add_argument("--runs", type=int, default=3, help="runs, each with a fresh receiver")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    started_load = load()
    runs = [run(args.events, args.concurrency, 0) for _ in range(args.runs - 1)]
    runs.append(run(args.events, args.concurrency, args.bridge_writes))
    result = dict(runs[-1])
    for key in MEDIANS:
        result[key] = round(statistics.median(_number(one, key) for one in runs), 3)
    result["within_budget"] = _number(result, "events_per_s") >= BUDGET
    result["runs"] = args.runs
    result["run_loads"] = [one["load_avg_1m"] for one in runs]
    result["figures"] = {key: figure([_number(one, key) for one in runs]) for key in MEDIANS}
    result["load_start"] = started_load
    result["load_end"] = load()
    result["machine"] = machine()
    result["condition"] = condition()
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key}: {value}")
    return 0 if result["within_budget"] else 1


if __name__ == "__main__":
    sys.exit(main())
