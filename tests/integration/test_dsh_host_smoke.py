"""Smoke test on the real DSH host (``@deepseek-ai/dsh`` 0.1.0-rc.8, headless, offline, Node 22).

``scripts/deps/dsh-node.sh`` installs the host with pnpm into packages/dsh-adapter/js/.dsh-host.
``cuecard install dsh`` (which runs ``cuecard dsh install --hooks``) adds both plugins and the
Claude Code hook bridge to a temp DSH_HOME; one headless turn then runs until the host stops for
want of a model. The durable session log (zstd JSONL, read with Node 22's zlib) shows what the
model would have received.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cuecard.core.engine import ADVISORY
from cuecard.dsh_adapter._recall import INSTRUCTIONS
from tests._support.cli import run_cli
from tests._support.dsh_host import DSH, HOST, NODE22, require_host, session_events, text_of


@pytest.mark.slow
def test_the_real_host_loads_both_plugins_and_the_hook_bridge(tmp_path: Path) -> None:
    require_host()
    env = {
        **os.environ,
        "PATH": os.pathsep.join(
            [str(NODE22), str(HOST / "pnpm" / "node_modules" / ".bin"), os.environ.get("PATH", "")]
        ),
        "DSH_HOME": str(tmp_path / "dsh-home"),
        "DSH_TELEMETRY_DISABLED": "1",
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "CUECARD_VAULT": str(tmp_path / "vault"),
    }
    env.pop("DEEPSEEK_API_KEY", None)
    for var in ("CUECARD_PROJECT_DIR",):
        env.pop(var, None)

    def cuecard(*args: str, cwd: Path = tmp_path, stdin: str | None = None) -> str:
        done = run_cli(*args, cwd=cwd, stdin=stdin, env=env)
        assert done.returncode == 0, done.stderr
        return done.stdout

    cuecard("vault", "init")
    cuecard("vault", "submit", "--agent", "seed", stdin="The staging server listens on port 8443\n")
    cuecard("vault", "apply", "--auto")
    work = tmp_path / "work"
    work.mkdir()
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    cuecard("init", cwd=work)
    cuecard(
        "add", "--topic", "ops/staging", "--kind", "fact", "--title", "Staging port",
        "--body", "Staging answers on port 8443 behind the VPN.",
        "--not-derivable", "set in the ops repository", "--on", "prompt", "--keywords", "staging",
        cwd=work,
    )  # fmt: skip

    # `cuecard install dsh` (the hooks distribution's installer) runs `cuecard dsh install
    # --hooks`: both plugins and the Claude Code hook bridge go into the profile.
    install = subprocess.run(
        [str(Path(sys.executable).parent / "cuecard"), "install", "dsh", "--profile",
         "headless", "--dsh", str(DSH), "--json"],
        cwd=tmp_path, capture_output=True, text=True, env=env, timeout=300, check=False,
    )  # fmt: skip
    assert install.returncode == 0, install.stderr
    report = json.loads(install.stdout)
    assert report["added"] is True, report
    assert report["patch"], report

    hmr = tmp_path / "hmr-on.yml"  # rc.8 watches the user patch layer: it needs the hmr row on
    hmr.write_text("- id: hmr\n  disabled: false\n")
    turn = subprocess.run(
        [str(DSH), "--profile", "headless", "--patch", str(hmr),
         "Which port does the staging server use?"],
        cwd=work, capture_output=True, text=True, env=env, timeout=240, check=False,
    )  # fmt: skip
    assert turn.returncode == 1, turn.stderr[-3000:]
    assert "MISSING_CREDENTIAL" in turn.stderr, turn.stderr[-3000:]  # stopped for want of a model

    events = session_events(tmp_path / "dsh-home")
    [header] = [e for e in events if e["type"] == "request/header"]
    tools = {t["name"] for t in header["data"]["header"]["tools"]}
    assert {"memory_search", "memory_show", "memory_submit", "memory_status"} <= tools
    step1 = next(i for i, e in enumerate(events) if e["type"] == "step/start")
    assert events[step1]["data"]["step"] == 1
    messages = [e for e in events[step1:] if e["type"] == "user/message"]
    ours = [text_of(m) for m in messages
            if m["data"]["source"].get("plugin") == "cuecard-dsh-discipline"]  # fmt: skip
    [recall] = [t for t in ours if t.startswith('<memory-data source="cuecard recall"')]
    assert recall.endswith(f"</memory-data>\n{INSTRUCTIONS}\n{ADVISORY}")  # a delivery
    assert "listens on port 8443" in recall

    # The project memory arrives once: the discipline plugin asks cuecard's prompt hook first
    # (in place of the bridge), then recalls, and the two share the delivery ledger.
    body = "Staging answers on port 8443 behind the VPN."
    [hooked] = [t for t in ours if t.startswith('<memory-data source="cuecard"')]
    assert body in hooked
    assert body not in recall
    assert not [m for m in messages if m["data"]["source"].get("plugin") == "hooks-claude-code"]
    invoked = [e for e in events if e["type"] == "hook/invoked"]
    assert invoked == []  # the bridge ran no shell for the prompt


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.slow
def test_the_real_web_host_serves_the_status_route_and_the_panel(tmp_path: Path) -> None:
    import threading
    import urllib.request

    require_host()
    env = {
        **os.environ,
        "PATH": os.pathsep.join([str(NODE22), str(HOST / "pnpm" / "node_modules" / ".bin"),
                                 os.environ.get("PATH", "")]),
        "DSH_HOME": str(tmp_path / "dsh-home"),
        "DSH_TELEMETRY_DISABLED": "1",
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "CUECARD_VAULT": str(tmp_path / "vault"),
    }  # fmt: skip
    assert run_cli("vault", "init", cwd=tmp_path, env=env).returncode == 0
    install = subprocess.run(
        [sys.executable, "-m", "cuecard.dsh_adapter", "install", "--plugin", "memory",
         "--profile", "web", "--dsh", str(DSH)],
        capture_output=True, text=True, env=env, timeout=300, check=False,
    )  # fmt: skip
    assert install.returncode == 0, install.stderr
    hmr = tmp_path / "hmr-on.yml"
    hmr.write_text("- id: hmr\n  disabled: false\n")
    port = _free_port()
    web = subprocess.Popen(
        [str(DSH), "web", "--patch", str(hmr), "--no-open", "--port", str(port)],
        cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    assert web.stdout is not None
    drain = threading.Thread(target=web.stdout.read, daemon=True)
    try:
        for line in web.stdout:  # the host prints its address once it serves
            if f"http://127.0.0.1:{port}" in line:
                break
        else:
            pytest.fail(f"dsh web exited ({web.wait()}) without serving")
        drain.start()  # keep the pipe drained while the host runs
        base = f"http://127.0.0.1:{port}"
        with urllib.request.urlopen(f"{base}/api/cuecard-dsh-memory/status", timeout=60) as res:
            assert res.status == 200
            assert res.headers["cache-control"] == "no-store"
            status = json.loads(res.read())
        assert status["ok"] is True
        assert status["vault"]["layout"] == "default"
        with urllib.request.urlopen(f"{base}/", timeout=60) as res:
            page = res.read().decode()
        assert "/plugins/cuecard-dsh-memory/client.js" in page  # the panel is in the boot graph
        with urllib.request.urlopen(f"{base}/plugins/cuecard-dsh-memory/client.js") as res:
            assert "window.__ModuleLoader__.load" in res.read().decode()
    finally:
        web.terminate()
        web.wait(timeout=30)
        if drain.is_alive():
            drain.join(timeout=30)
        web.stdout.close()
