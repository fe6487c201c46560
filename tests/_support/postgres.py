"""A throwaway PostgreSQL server for the PostgreSQL vault tests.

``running_server`` (behind the session fixture ``pg_server`` of tests/conftest.py) runs
``initdb`` and ``pg_ctl`` from /usr/lib/postgresql/*/bin (or ``$PG_BIN``) in a fresh folder
under the system temp folder, on a free loopback port, and stops it and removes the folder at
the end. initdb refuses to run as root, so as root the server runs as the ``postgres`` user (or
``nobody``) through ``runuser``. A watchdog process outlives the test process to stop the
server and remove its folder when that process dies without its teardown (killed, crashed).
Password authentication over TCP (scram-sha-256): the tests
hand the password through ``PGPASSWORD``, as a person would. The fixture ``pg_url`` (function
scope) creates an empty database per test and gives its ``postgresql://`` URL (no password in
it). Tests skip only when no PostgreSQL binaries exist.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

__all__ = ["PASSWORD", "PgServer", "pg_bin", "postings_out_of_line", "running_server"]

PASSWORD = "cuecard-test-password"
SUPERUSER = "cuecard"


def pg_bin() -> str | None:
    """The folder holding initdb and pg_ctl, newest version first; None when none is installed."""
    explicit = os.environ.get("PG_BIN")
    if explicit and os.path.isfile(os.path.join(explicit, "initdb")):
        return explicit
    found = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"),
        key=lambda p: int(p.split("/")[4]) if p.split("/")[4].isdigit() else 0,
    )
    if found:
        return os.path.dirname(found[-1])
    initdb = shutil.which("initdb")
    return os.path.dirname(initdb) if initdb else None


@dataclass(frozen=True)
class PgServer:
    host: str
    port: int
    user: str
    password: str
    folder: str = ""
    """The server's folder (data, socket, log), removed when it stops."""

    def url(self, database: str) -> str:
        return f"postgresql://{self.user}@{self.host}:{self.port}/{database}"


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _runner() -> tuple[list[str], int | None, int | None]:
    """The command prefix, uid and gid the server runs as."""
    if os.geteuid() != 0:
        return [], None, None
    for name in ("postgres", "nobody"):
        try:
            entry = pwd.getpwnam(name)
        except KeyError:
            continue
        return ["runuser", "-u", name, "--"], entry.pw_uid, entry.pw_gid
    pytest.skip("running as root and neither a postgres nor a nobody user exists to run PostgreSQL")


# The watchdog reads its standard input, the read end of a pipe whose write end only the test
# process holds (not inherited by the processes it starts), until end of file: the test process
# closed it at teardown, or died. Then it stops the server and removes the folder. It runs in a
# session of its own, so a signal to the test's process group does not reach it, and keeps the
# standard output and error of the process that started it.
_WATCHDOG = """
import shutil, subprocess, sys
sys.stdin.buffer.read()
subprocess.run(sys.argv[2:], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
               stderr=subprocess.DEVNULL, check=False)
shutil.rmtree(sys.argv[1], ignore_errors=True)
"""


def _watchdog(
    base: str, stop: list[str], env: dict[str, str]
) -> tuple[subprocess.Popen[bytes], int]:
    """Start the watchdog of the server in ``base``; returns it and the pipe end to close."""
    read_end, write_end = os.pipe()  # not inheritable: no child of the test process holds it
    try:
        watchdog = subprocess.Popen(
            [sys.executable, "-I", "-c", _WATCHDOG, base, *stop],
            stdin=read_end,
            env=env,
            start_new_session=True,
        )
    except BaseException:
        os.close(write_end)
        raise
    finally:
        os.close(read_end)
    return watchdog, write_end


def _release(watchdog: subprocess.Popen[bytes], write_end: int) -> None:
    """Let the watchdog go (it finds the server stopped and the folder gone) and reap it."""
    os.close(write_end)
    try:
        watchdog.wait(timeout=60)
    except subprocess.TimeoutExpired:  # a forked child still holds the pipe: end it now
        watchdog.kill()
        watchdog.wait()


def running_server() -> Iterator[PgServer]:
    """Start the server, yield it, stop it and remove its folder (the ``pg_server`` fixture);
    if this process dies first, its watchdog does that."""
    bindir = pg_bin()
    if bindir is None:
        pytest.skip("no PostgreSQL binaries (initdb, pg_ctl); scripts/deps/postgresql.sh installs")
    prefix, uid, gid = _runner()
    base = tempfile.mkdtemp(prefix="cuecard-pg-")
    os.chmod(base, 0o700)
    data = os.path.join(base, "data")
    env = {**os.environ, "LC_ALL": "C.UTF-8", "LANG": "C.UTF-8"}
    stop = [*prefix, os.path.join(bindir, "pg_ctl"), "-D", data, "-m", "immediate", "-w", "stop"]
    watchdog, write_end = _watchdog(base, stop, env)
    try:
        yield from _serve(bindir, base, data, prefix, uid, gid, env)
    finally:
        subprocess.run(stop, capture_output=True, env=env)
        shutil.rmtree(base, ignore_errors=True)
        _release(watchdog, write_end)


def _serve(
    bindir: str,
    base: str,
    data: str,
    prefix: list[str],
    uid: int | None,
    gid: int | None,
    env: dict[str, str],
) -> Iterator[PgServer]:
    """initdb, start the server, yield it (the caller stops it)."""
    pwfile = os.path.join(base, "pwfile")
    with open(pwfile, "w", encoding="utf-8") as handle:
        handle.write(PASSWORD + "\n")
    if uid is not None and gid is not None:
        os.chown(base, uid, gid)
        os.chown(pwfile, uid, gid)
    port = _free_port()
    subprocess.run(
        [
            *prefix,
            os.path.join(bindir, "initdb"),
            "-D",
            data,
            "-U",
            SUPERUSER,
            f"--pwfile={pwfile}",
            "--auth-host=scram-sha-256",
            "--auth-local=trust",
            "-E",
            "UTF8",
            "--no-sync",
        ],
        check=True,
        capture_output=True,
        env=env,
    )
    options = f"-c listen_addresses=127.0.0.1 -p {port} -k {base} -c fsync=off"
    log = os.path.join(base, "server.log")
    pg_ctl = os.path.join(bindir, "pg_ctl")
    started = subprocess.run(
        [*prefix, pg_ctl, "-D", data, "-o", options, "-l", log, "-w", "start"],
        capture_output=True,
        text=True,
        env=env,
    )
    if started.returncode != 0:
        detail = ""
        if os.path.exists(log):
            with open(log, encoding="utf-8", errors="replace") as handle:
                detail = handle.read()
        raise RuntimeError(f"pg_ctl start failed: {started.stderr}\n{detail}")
    yield PgServer("127.0.0.1", port, SUPERUSER, PASSWORD, base)


def postings_out_of_line(url: str) -> dict[str, object]:
    """What the search postings, term counts and statistics of a PostgreSQL vault hold that a
    rebuild from its active facts would not (and the reverse); empty when they are in line."""
    import psycopg

    expected = (
        "SELECT t, f.fid, length(f.tsv) FROM cuecard_facts f, "
        "unnest(cuecard_terms_of(f.tsv, f.text || E'\\n' || f.context)) AS t "
        "WHERE f.status = 'active'"
    )
    with psycopg.connect(url) as conn:
        held = set(conn.execute("SELECT term, fid, len FROM cuecard_postings").fetchall())
        rebuilt = set(conn.execute(expected).fetchall())
        counts = set(conn.execute("SELECT term, df FROM cuecard_terms WHERE df <> 0").fetchall())
        recounted = set(conn.execute(f"SELECT t, count(*) FROM ({expected}) p(t) GROUP BY t"))
        stats = conn.execute("SELECT docs, length FROM cuecard_search_stats").fetchall()
        restated = conn.execute(
            "SELECT count(*), coalesce(sum(length(tsv)), 0) FROM cuecard_facts "
            "WHERE status = 'active'"
        ).fetchall()
    out: dict[str, object] = {}
    if held != rebuilt:
        out["postings"] = {"extra": held - rebuilt, "missing": rebuilt - held}
    if counts != recounted:
        out["terms"] = {"extra": counts - recounted, "missing": recounted - counts}
    if stats != restated:
        out["stats"] = {"held": stats, "rebuilt": restated}
    return out
