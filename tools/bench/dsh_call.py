"""DSH adapter benchmark: what one memory tool call and one turn's recall cost.

Builds a vault of N fact lines (default 10,000) from the standard library's docstrings, builds
its index with one search, then measures cold processes, median over R runs each, interleaved:

- `python -c pass` (the floor every spawned Python pays);
- `cuecard vault search` (what memory_search wraps);
- `python -m cuecard.dsh_adapter call search` (the process the memory plugin spawns);
- `python -m cuecard.dsh_adapter recall` with the topic gate shut (the discipline plugin's cost on
  an unrelated turn in auto mode) and open (a recall);
- memory_search end to end through the plugin's runner in Node: `plugin_search_cold_ms` with a
  worker started for each call (what every call cost before the plugins kept a worker), and
  `plugin_search_ms` through the one warm worker the plugins keep (the issue's target: 50 ms);
- a turn's recall through the warm worker with the gate shut (`plugin_recall_shut_ms`: what an
  unrelated turn costs in auto mode; it starts no process) and open (`plugin_recall_open_ms`).

Each figure is a median wall time (`*_ms`) and CPU time, user + system (`*_cpu_ms`): on a shared
machine under load the CPU times are the steadier ones. `figures` gives each one's median, spread
and runs, with the load at start and end, the machine and the condition (wheels or editable).
Bytecode is cached, as in an installed wheel (the checkout's PYTHONDONTWRITEBYTECODE is dropped).

With `--host`, also inside the real DSH host (packages/dsh-adapter/js/.dsh-host, installed by
scripts/deps/dsh-node.sh): both plugins installed in a headless profile, a scripted DeepSeek
chat-completions server on loopback plays R `memory_search` calls and R calls of the host's own
`glob` tool in one turn, and the session log gives each call's time from `tool/call` to
`tool/result` (`host_memory_search_ms`, `host_glob_ms`, medians; the issue's target: within 50 ms
of `glob`).

Usage: python tools/bench/dsh_call.py [--lines N] [--runs R] [--host] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _figures import condition, figure, load, machine

REPO = Path(__file__).resolve().parents[1].parent
JS = REPO / "packages" / "dsh-adapter" / "js"

NODE_LOOP = """
import { acquireWorker, callTool, recallText } from './cuecard-dsh-memory/lib/runner.js'
const runs = Number(process.argv[1])
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b), m = Math.floor(s.length / 2)
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}
async function time(fn) {
  const t = performance.now()
  const r = await fn()
  if (r.error || r.ok === false) { console.error(r.error); process.exit(1) }
  return performance.now() - t
}
const request = { query: 'thread lock timeout', limit: 8 }
const search = (worker) => callTool({ tool: 'search', request, worker })
const recall = (worker, text) =>
  recallText({ worker, text, mode: 'auto', limit: 5, maxChars: 1600 })
const cold = []
for (let i = 0; i < runs; i++) cold.push(await time(() => search(undefined)))  // a worker per call
const held = acquireWorker({ python: 'default', env: process.env })
const worker = held.worker
await time(() => search(worker))  // start it
const warm = [], shut = [], open = []
for (let i = 0; i < runs; i++) {
  warm.push(await time(() => search(worker)))
  shut.push(await time(() => recall(worker, 'Write a haiku about autumn leaves')))
  open.push(await time(() => recall(worker, 'Which thread lock timeout does the server use?')))
}
held.release()
const out = { cold: median(cold), warm: median(warm), shut: median(shut), open: median(open),
  runs: { cold, warm, shut, open } }
console.log(JSON.stringify(out))
"""


def _chat_events(text: str, calls: list[tuple[str, dict[str, object]]]) -> bytes:
    """One scripted chat-completions reply as SSE: ``text``, or ``calls`` (name, arguments)."""

    def chunk(delta: dict[str, object], finish: str | None = None) -> bytes:
        body = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m",
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}  # fmt: skip
        if finish:
            body["usage"] = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
        return f"data: {json.dumps(body)}\n\n".encode()

    out = [chunk({"role": "assistant", "content": text or ("" if calls else "Done.")})]
    for index, (name, arguments) in enumerate(calls):
        call = {"index": index, "id": f"call_{index}_{time.monotonic_ns()}", "type": "function",
                "function": {"name": name, "arguments": json.dumps(arguments)}}  # fmt: skip
        out.append(chunk({"tool_calls": [call]}))
    out.append(chunk({}, "tool_calls" if calls else "stop"))
    return b"".join(out) + b"data: [DONE]\n\n"


def host_bench(work: Path, env: dict[str, str], runs: int) -> dict[str, float | int | None]:
    """memory_search and the host's glob, timed in the real host's session log."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    host = JS / ".dsh-host"
    dsh, node = host / "host" / "node_modules" / ".bin" / "dsh", host / "node22" / "bin"
    if not dsh.is_file():
        log("no DSH host in packages/dsh-adapter/js/.dsh-host: run scripts/deps/dsh-node.sh")
        return {"host_memory_search_ms": None, "host_glob_ms": None}
    env = {**env, "DSH_HOME": str(work / "dsh"), "DSH_TELEMETRY_DISABLED": "1",
           "PATH": os.pathsep.join([str(node), str(host / "pnpm" / "node_modules" / ".bin"),
                                    env.get("PATH", "")])}  # fmt: skip
    env.pop("DEEPSEEK_API_KEY", None)
    py = sys.executable
    subprocess.run(
        [py, "-m", "cuecard.dsh_adapter", "install", "--profile", "headless", "--dsh", str(dsh),
         "--out", str(work / "tarballs")],
        env=env, check=True, capture_output=True,
    )  # fmt: skip
    steps: list[tuple[str, dict[str, object]]] = [
        ("memory_search", {"query": "thread lock timeout"}),
        ("glob", {"pattern": "*.md"}),
    ]
    script = [[step] for _ in range(runs) for step in steps]

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            return

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
            calls = script.pop(0) if body.get("tools") and script else []
            data = _chat_events("OK." if not body.get("tools") else "", calls)
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    workspace = work / "ws"
    workspace.mkdir()
    (workspace / "README.md").write_text("bench\n")
    (work / "hmr-on.yml").write_text("- id: hmr\n  disabled: false\n")
    try:
        subprocess.run(
            [str(dsh), "--profile", "headless", "--patch", str(work / "hmr-on.yml"), "go"],
            cwd=workspace, env={**env, "DEEPSEEK_API_KEY": "sk-bench",
                                "DEEPSEEK_BASE_URL": f"http://127.0.0.1:{server.server_port}"},
            check=True, capture_output=True, timeout=600, stdin=subprocess.DEVNULL,
        )  # fmt: skip
    finally:
        server.shutdown()
    [session] = (work / "dsh" / "sessions").glob("*/session-*/session.jsonl.zstd")
    decode = (
        "const z=require('zlib'),fs=require('fs');const b=fs.readFileSync(process.argv[1]);"
        "const m=Buffer.from([0x28,0xb5,0x2f,0xfd]);const at=[];let i=0;"
        "while((i=b.indexOf(m,i))!==-1){at.push(i);i+=4}let out='';for(let k=0;k<at.length;k++)"
        "{try{out+=z.zstdDecompressSync(b.subarray(at[k],at[k+1]??b.length)).toString()}"
        "catch(e){}}process.stdout.write(out)"
    )
    done = subprocess.run([str(node / "node"), "-e", decode, str(session)],
                          capture_output=True, text=True, check=True)  # fmt: skip
    started: dict[str, tuple[str, int]] = {}
    spans: dict[str, list[int]] = {"memory_search": [], "glob": []}
    for line in done.stdout.splitlines():
        event = json.loads(line)
        data = event.get("data") or {}
        if event["type"] == "tool/call":
            started[data["callId"]] = (data["name"], event["time"])
        elif event["type"] == "tool/result":
            call = data["message"]["source"]["callId"]
            name, at = started.pop(call, ("", 0))
            if name in spans:
                spans[name].append(event["time"] - at)
    FIGURES["host_memory_search_ms"] = figure(spans["memory_search"], 1)
    FIGURES["host_glob_ms"] = figure(spans["glob"], 1)
    return {
        "host_memory_search_ms": statistics.median(spans["memory_search"]),
        "host_glob_ms": statistics.median(spans["glob"]),
        "host_calls": len(spans["memory_search"]),
    }


# Each figure's median, spread and runs, as the benchmark's parts time them.
FIGURES: dict[str, object] = {}


def log(message: str) -> None:
    print(f"[dsh-bench] {message}", file=sys.stderr, flush=True)


def _child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(argv: list[str], env: dict[str, str], stdin: str = "") -> tuple[float, float]:
    """Wall and CPU (user + system) milliseconds of one cold process."""
    cpu = _child_cpu()
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, input=stdin, capture_output=True, text=True)
    elapsed = (time.perf_counter() - start) * 1000
    if done.returncode != 0:
        raise SystemExit(f"{argv[:5]} failed: {done.stderr[-500:]}")
    return elapsed, (_child_cpu() - cpu) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--host", action="store_true", help="also time calls in the real DSH host")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    started_load = load()

    from recall import stdlib_lines, write_notes

    work = Path(tempfile.mkdtemp(prefix="cuecard-dsh-bench-"))
    try:
        vault = work / "vault"
        log(f"building a vault of {args.lines} lines")
        write_notes(vault / "notes", stdlib_lines(args.lines))
        (vault / "inbox").mkdir()
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith("CUECARD") and k != "PYTHONDONTWRITEBYTECODE"
        }
        env |= {
            "CUECARD_VAULT": str(vault),
            "XDG_CACHE_HOME": str(work / "cache"),
            "XDG_CONFIG_HOME": str(work / "config"),
        }
        py = sys.executable
        cuecard = str(Path(py).with_name("cuecard"))
        subprocess.run(
            [py, "-m", "cuecard.dsh_adapter", "install", "--no-add", "--out", str(work / "t")],
            env=env,
            check=True,
            capture_output=True,
        )
        timed([cuecard, "vault", "search", "warmup"], env)  # builds the index
        cases = {
            "python_ms": ([py, "-c", "pass"], ""),
            "vault_search_ms": ([cuecard, "vault", "search", "thread lock timeout"], ""),
            "call_search_ms": (
                [py, "-m", "cuecard.dsh_adapter", "call", "search"],
                '{"query": "thread lock timeout", "limit": 8}',
            ),
            "recall_shut_ms": (
                [py, "-m", "cuecard.dsh_adapter", "recall"],
                "Write a haiku about autumn leaves",
            ),
            "recall_open_ms": (
                [py, "-m", "cuecard.dsh_adapter", "recall"],
                "Which thread lock timeout does the server use?",
            ),
        }
        samples: dict[str, list[tuple[float, float]]] = {name: [] for name in cases}
        for _ in range(args.runs):
            for name, (argv, stdin) in cases.items():
                samples[name].append(timed(argv, env, stdin))
        result: dict[str, float | int | None] = {}
        for name, values in samples.items():
            result[name] = round(statistics.median(v[0] for v in values), 1)
            result[name.replace("_ms", "_cpu_ms")] = round(
                statistics.median(v[1] for v in values), 1
            )
            FIGURES[name] = figure([v[0] for v in values], 1)
            FIGURES[name.replace("_ms", "_cpu_ms")] = figure([v[1] for v in values], 1)
        node = shutil.which("node")
        plugin = ("plugin_search_cold_ms", "plugin_search_ms", "plugin_recall_shut_ms",
                  "plugin_recall_open_ms")  # fmt: skip
        if node and (JS / "node_modules").is_dir():
            done = subprocess.run(
                [node, "--input-type=module", "-e", NODE_LOOP, str(args.runs)],
                cwd=JS,
                env=env,
                capture_output=True,
                text=True,
                check=True,
            )
            medians = json.loads(done.stdout)
            for key, name in zip(("cold", "warm", "shut", "open"), plugin, strict=True):
                result[name] = round(float(medians[key]), 1)
                FIGURES[name] = figure(medians["runs"][key], 1)
        else:
            result.update(dict.fromkeys(plugin))
        base = float(result["python_ms"] or 1.0)
        result["call_ratio"] = round(float(result["call_search_ms"] or 0) / base, 2)
        vault_cpu = float(result["vault_search_cpu_ms"] or 1.0)
        result["call_overhead_cpu_ms"] = round(
            float(result["call_search_cpu_ms"] or 0) - vault_cpu, 1
        )
        if args.host:
            log("timing tool calls inside the real DSH host")
            result.update(host_bench(work, env, args.runs))
        result["lines"] = args.lines
        result["runs"] = args.runs
        report: dict[str, object] = {
            **result,
            "figures": FIGURES,
            "load_start": started_load,
            "load_end": load(),
            "machine": machine(),
            "condition": condition(env=env),
        }
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if args.json:
        print(json.dumps(report))
    else:
        for key, value in report.items():
            print(f"{key:18} {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
