"""Recall benchmark: cold `cuecard vault search` against the public system it replaces.

Builds a vault of N fact lines (default 100,000), generated (``generated_lines``: deterministic
for a seed, nothing read from the installed packages), once in cuecard's default layout and once
in the unified-agent-memory layout, then measures in the same run, alternating them:

- the first index build of each (a first search; wall and CPU time, ``--builds`` rounds);
- a cold `cuecard vault search` process and a cold `python -m unified_memory.memory search`
  process (the Python core shipped in the npm package `dsh-unified-agent-memory`, fetched with
  `npm pack` into .bench/peer), each after its first search built its index;
- warm queries (sync + search in one long-lived process; wall and CPU time; with a baseline,
  the two revisions' processes alternate over three rounds and each figure is the median);
- ranking quality on known-item queries: MRR@10 of our index and of rank_bm25.BM25Okapi.

cuecard runs as a user installs it: from the built wheels, in a virtual environment made by
``scripts/wheel-venv`` (nothing editable; ``--venv DIR`` reuses one made before). Its
interpreter runs every timed process, the peer's and ``python -c pass`` included.

``--baseline-src DIR`` (a ``packages/core/src`` of another revision, e.g. from ``git archive``)
also times that revision in the same run (its own cache folder), alternating: the same
environment with DIR first on ``PYTHONPATH``, so that ``cuecard.core`` is that revision's.
``--baseline-venv DIR`` times another revision as installed instead (a virtual environment
made by ``scripts/wheel-venv`` from it: its own ``cuecard`` command and interpreter).

``--cold-only`` times the cold searches alone (after the builds they need): no warm queries and
no ranking quality, whose figures are then ``null``. Each cold search is timed in wall and CPU
time (user + system of the process; ``*_cold_cpu_ms``, ``cold_cpu_ratio``).

``figures`` gives each figure's median over all its rounds, its spread and the number of
rounds: the index build's wall and CPU ratios to the peer round by round (``build_cpu_ratio``:
our build's CPU over the peer's of the same round; with a baseline, ``baseline_build_cpu_ratio``
too), the builds' seconds and the cold searches'; ``build_loads`` the load average at each
build round, ``load_start`` and ``load_end`` the load averages, ``machine`` the cores and Python,
``condition`` how the cuecard timed is installed (wheels, and the revision scripts/wheel-venv
recorded) and ``baseline_condition`` the baseline's.

Usage: python tools/bench/recall.py [--lines N] [--queries Q] [--builds B] [--venv DIR]
       [--baseline-src DIR | --baseline-venv DIR] [--cold-only] [--json]
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import random
import re
import resource
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import time
from pathlib import Path

from _figures import condition, figure, load, machine

REPO = Path(__file__).resolve().parents[2]
PEER_PACKAGE = "dsh-unified-agent-memory@0.5.2"
PER_NOTE = 1000
WORD = re.compile(r"\w+")


def log(message: str) -> None:
    print(f"[recall-bench] {message}", file=sys.stderr, flush=True)


_ONSETS = "b c d f g h k l m n p r s t v w z br ch dr fl gr kr pl sh st tr".split()
_NUCLEI = "a e i o u ai ea ou".split()
_FUNCTION = (
    "the a of to in and is for on with that by as from when which what how should can "
    "not it this be are was after before during into our we you they".split()
)


def generated_lines(count: int, seed: int = 20261201) -> list[str]:
    """``count`` distinct fact lines, deterministic for ``seed``: 6-18 tokens each, content words
    drawn with a Zipf law from 20,000 made-up words (a third inflected with -s, -ing or -ed),
    English function words between them, and now and then an identifier (``word_word``,
    ``word.word``) or a number."""
    rng = random.Random(seed)
    vocab: list[str] = []
    seen: set[str] = set()
    while len(vocab) < 20_000:
        word = "".join(
            rng.choice(_ONSETS) + rng.choice(_NUCLEI) for _ in range(rng.choice((1, 2, 2, 3)))
        )
        if rng.random() < 0.5:
            word += rng.choice("nrstlkm")
        if len(word) >= 3 and word not in seen:
            seen.add(word)
            vocab.append(word)
    weights = [1.0 / (rank + 2) ** 1.05 for rank in range(len(vocab))]
    total = 0.0
    cumulative = []
    for w in weights:
        total += w
        cumulative.append(total)
    lines: list[str] = []
    taken: set[str] = set()
    while len(lines) < count:
        size = rng.randint(6, 18)
        picks = rng.choices(vocab, cum_weights=cumulative, k=size)
        out = []
        for i, word in enumerate(picks):
            roll = rng.random()
            if roll < 0.3:
                out.append(rng.choice(_FUNCTION))
            if roll > 0.97:
                out.append(f"{word}{rng.choice('_.')}{rng.choice(vocab[:2000])}")
                continue
            if roll > 0.95:
                out.append(str(rng.randint(2, 9999)))
            ending = rng.random()
            if ending < 0.15:
                word += "s"
            elif ending < 0.25:
                word += "ing"
            elif ending < 0.33:
                word += "ed"
            out.append(word.capitalize() if i == 0 else word)
        line = " ".join(out) + "."
        if line not in taken:
            taken.add(line)
            lines.append(line)
    return lines


def _sentences(doc: str) -> list[str]:
    text = " ".join(doc.split())
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+", text) if s.strip()]


def stdlib_lines(count: int) -> list[str]:
    """Distinct sentences of the standard library's docstrings and comments (then of the
    installed packages'), 20-200 characters, at least four words, secret-free and safe (the
    distractors of tools/bench/recall_quality.py)."""
    from cuecard.core.engine._text import find_secret, unsafe_reason

    roots = [Path(sysconfig.get_paths()["stdlib"]), Path(sysconfig.get_paths()["purelib"])]
    seen: set[str] = set()
    lines: list[str] = []
    for root in roots:
        for path in sorted(root.rglob("*.py")):
            if root == roots[0] and "site-packages" in path.parts:
                continue
            try:
                source = path.read_text(encoding="utf-8")
                tree = ast.parse(source)
            except (SyntaxError, UnicodeDecodeError, OSError, ValueError, RecursionError):
                continue
            texts = [
                doc
                for node in ast.walk(tree)
                if isinstance(
                    node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef
                )
                and (doc := ast.get_docstring(node))
            ]
            # Then the comments: real prose too, when the docstrings run out.
            texts.append(
                " ".join(x.strip()[1:] for x in source.splitlines() if x.strip().startswith("# "))
            )
            for text in texts:
                for line in _sentences(text):
                    if not 16 <= len(line) <= 240 or line in seen or ">>>" in line:
                        continue
                    if len(WORD.findall(line)) < 3 or find_secret(line) or unsafe_reason(line):
                        continue
                    seen.add(line)
                    lines.append(line)
                    if len(lines) >= count:
                        return lines
    raise SystemExit(f"only {len(lines)} docstring lines found, {count} wanted")


def write_notes(folder: Path, lines: list[str]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for start in range(0, len(lines), PER_NOTE):
        chunk = lines[start : start + PER_NOTE]
        body = f"# stdlib {start // PER_NOTE:03d}\n\n" + "".join(f"- {x}\n" for x in chunk)
        (folder / f"stdlib-{start // PER_NOTE:03d}.md").write_text(body, encoding="utf-8")


def fetch_peer() -> Path:
    """The peer's Python core, from its npm package (cached in .bench/peer)."""
    target = REPO / ".bench" / "peer"
    core = target / "package" / "core"
    if (core / "unified_memory" / "memory.py").is_file():
        return core
    target.mkdir(parents=True, exist_ok=True)
    for attempt in range(3):
        done = subprocess.run(
            ["npm", "pack", PEER_PACKAGE, "--pack-destination", str(target)],
            capture_output=True,
            text=True,
        )
        if done.returncode == 0:
            break
        log(f"npm pack failed (attempt {attempt + 1}): {done.stderr.strip()[-200:]}")
        time.sleep(5)
    else:
        raise SystemExit("could not fetch the peer package with npm pack")
    archive = next(target.glob("*.tgz"))
    with tarfile.open(archive) as tar:
        tar.extractall(target, filter="data")
    return core


def cold(argv: list[str], env: dict[str, str], cpu: list[float] | None = None) -> float:
    """Wall milliseconds of one process; its CPU milliseconds appended to ``cpu`` if given."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    before = usage.ru_utime + usage.ru_stime
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, capture_output=True, text=True)
    elapsed = (time.perf_counter() - start) * 1000
    if done.returncode != 0:
        raise SystemExit(f"{argv[:4]} failed: {done.stderr[-500:]}")
    if cpu is not None:
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append((usage.ru_utime + usage.ru_stime - before) * 1000)
    return elapsed


def known_item_queries(lines: list[str], count: int, rng: random.Random) -> list[tuple[int, str]]:
    """Three distinct content words (four letters or more, no stopword nor function word) of
    random lines."""
    from cuecard.core.recall._tokens import STOPWORDS

    skip = STOPWORDS | frozenset(_FUNCTION)
    out: list[tuple[int, str]] = []
    while len(out) < count:
        i = rng.randrange(len(lines))
        words = [w for w in WORD.findall(lines[i]) if len(w) >= 4 and w.lower() not in skip]
        words = list(dict.fromkeys(words))
        if len(words) < 3:
            continue
        out.append((i, " ".join(rng.sample(words, 3))))
    return out


_WARM = """
import json, os, statistics, sys, time
import cuecard.core
from cuecard.core.vault._facts import fact_id
from cuecard.core.vault.folder import Vault
job = json.load(sys.stdin)
vault = Vault.open(job["root"])
vault.index.sync()
wall, cpu, ranks = [], [], []
for line, query in job["queries"]:
    start, c = time.perf_counter(), time.process_time()
    vault.index.sync()
    hits = vault.index.search(query, 10)
    wall.append((time.perf_counter() - start) * 1000)
    cpu.append((time.process_time() - c) * 1000)
    keys = [h.key for h in hits]
    want = fact_id(line)
    ranks.append(keys.index(want) + 1 if want in keys else None)
print(json.dumps({"wall": statistics.median(wall), "cpu": statistics.median(cpu),
                  "p95": sorted(wall)[int(len(wall) * 0.95) - 1],
                  "mrr": sum(1 / r for r in ranks if r) / len(ranks),
                  "core": os.path.dirname(cuecard.core.__file__)}))
"""


def warm_elsewhere(
    python: str, env: dict[str, str], root: Path, queries: list[tuple[str, str]]
) -> dict[str, float | str]:
    """Warm medians (wall, CPU), the 95th percentile of wall time and MRR@10 of the known-item
    queries, in a process of its own (``python`` with ``env``), and where its cuecard.core is."""
    done = subprocess.run(
        [python, "-c", _WARM],
        input=json.dumps({"root": str(root), "queries": queries}),
        env=env,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise SystemExit(f"warm run failed: {done.stderr[-500:]}")
    result: dict[str, float | str] = json.loads(done.stdout)
    return result


def _medians(rounds: list[dict[str, float | str]]) -> dict[str, float | str]:
    """Each figure's median over the rounds of one revision's warm runs (text fields as the
    first round gave them)."""
    return {
        key: statistics.median(float(r[key]) for r in rounds)
        if isinstance(value, float | int)
        else value
        for key, value in rounds[0].items()
    }


def wheel_venv(target: Path) -> Path:
    """The bin folder of a fresh virtual environment with cuecard installed from this
    checkout's wheels (scripts/wheel-venv)."""
    log("building the wheels and a virtual environment from them (scripts/wheel-venv)")
    done = subprocess.run(
        [str(REPO / "scripts" / "wheel-venv"), str(target)], capture_output=True, text=True
    )
    if done.returncode != 0:
        raise SystemExit(f"scripts/wheel-venv failed: {done.stderr[-1000:]}")
    return Path(done.stdout.strip().splitlines()[-1])


def timed_build(argv: list[str], env: dict[str, str], cache: Path | None) -> tuple[float, float]:
    """Wall and CPU seconds of a first search (the index build), ``cache`` emptied first."""
    if cache is not None:
        shutil.rmtree(cache, ignore_errors=True)
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = usage.ru_utime + usage.ru_stime
    start = time.perf_counter()
    cold(argv, env)
    wall = time.perf_counter() - start
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, usage.ru_utime + usage.ru_stime - cpu


def mrr(ranks: list[int | None]) -> float:
    return sum(1.0 / r for r in ranks if r is not None and r <= 10) / len(ranks)


def warm_and_quality(
    count: int,
    lines: list[str],
    rng: random.Random,
    ours_run: tuple[str, dict[str, str], Path],
    baseline_run: tuple[str, dict[str, str] | None],
    root: Path,
) -> tuple[
    list[tuple[int, str]], dict[str, float | str], dict[str, float | str] | None, list[int | None]
]:
    """The known-item queries, our warm figures (and the baseline's), and rank_bm25's ranks."""
    python, our_env, bin_dir = ours_run
    base_python, base_cmd_env = baseline_run
    log("warm queries and ranking quality")
    quality = known_item_queries(lines, count, rng)
    pairs = [(lines[i], query) for i, query in quality]
    # With a baseline, the two revisions' warm processes alternate over three rounds (the load
    # moves; one after the other, the second would meet another machine): medians of rounds.
    runs: dict[str, list[dict[str, float | str]]] = {"ours": [], "baseline": []}
    for round_ in range(3 if base_cmd_env is not None else 1):
        order = [("ours", python, our_env), ("baseline", base_python, base_cmd_env)]
        for name, interpreter, env in order if round_ % 2 == 0 else order[::-1]:
            if env is not None:
                runs[name].append(warm_elsewhere(interpreter, env, root, pairs))
    warm = _medians(runs["ours"])
    if not str(warm["core"]).startswith(str(bin_dir.parent)):
        raise SystemExit(f"cuecard.core came from {warm['core']}, not the wheel venv")
    baseline_warm = _medians(runs["baseline"]) if runs["baseline"] else None

    from rank_bm25 import BM25Okapi

    corpus = [[w.lower() for w in WORD.findall(x)] for x in lines]
    bm25 = BM25Okapi(corpus)
    ref_ranks: list[int | None] = []
    for i, query in quality:
        scores = bm25.get_scores([w.lower() for w in WORD.findall(query)])
        top = sorted(range(len(scores)), key=lambda j: -scores[j])[:10]
        ref_ranks.append(top.index(i) + 1 if i in top else None)
    return quality, warm, baseline_warm, ref_ranks


def round_figures(
    builds: dict[str, list[tuple[float, float]]],
    cpu: dict[str, list[float]],
    ours_ms: list[float],
    peer_ms: list[float],
    baseline_ms: list[float],
) -> dict[str, object]:
    """Each figure's median over all its rounds, with its spread: a build's ratios to the
    peer's build of the same round, the builds' seconds, the cold searches'."""
    out: dict[str, object] = {}
    peer = builds["peer"]
    for name in ("ours", "baseline"):
        runs = builds[name]
        if not runs:
            continue
        prefix = "" if name == "ours" else "baseline_"
        out[f"{prefix}build_ratio"] = figure(
            [w / p[0] for (w, _), p in zip(runs, peer, strict=True)]
        )
        out[f"{prefix}build_cpu_ratio"] = figure(
            [c / p[1] for (_, c), p in zip(runs, peer, strict=True)]
        )
        out[f"{prefix}build_s"] = figure([w for w, _ in runs], 2)
        out[f"{prefix}build_cpu_s"] = figure([c for _, c in runs], 2)
    out["peer_build_cpu_s"] = figure([c for _, c in peer], 2)
    out["cold_ms"] = figure(ours_ms, 1)
    out["peer_cold_ms"] = figure(peer_ms, 1)
    out["cold_cpu_ms"] = figure(cpu["ours"], 2)
    out["cold_cpu_ratio"] = figure([a / b for a, b in zip(cpu["ours"], cpu["peer"], strict=True)])
    if baseline_ms:
        out["baseline_cold_ms"] = figure(baseline_ms, 1)
        out["baseline_cold_cpu_ms"] = figure(cpu["baseline"], 2)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=21, help="cold queries per system")
    parser.add_argument("--quality", type=int, default=200, help="known-item queries for MRR")
    parser.add_argument(
        "--builds", type=int, default=1, help="index builds per system (alternating; medians)"
    )
    parser.add_argument(
        "--venv",
        help="a virtual environment made by scripts/wheel-venv (default: one made now)",
    )
    baseline = parser.add_mutually_exclusive_group()
    baseline.add_argument(
        "--baseline-src", help="a packages/core/src of another revision, timed in the same run"
    )
    baseline.add_argument(
        "--baseline-venv",
        help="a scripts/wheel-venv environment of another revision, timed in the same run",
    )
    parser.add_argument(
        "--cold-only", action="store_true", help="no warm queries and no ranking quality"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()

    rng = random.Random(20261130)
    work = Path(tempfile.mkdtemp(prefix="cuecard-recall-bench-"))
    started_load = load()
    try:
        bin_dir = Path(args.venv).resolve() / "bin" if args.venv else wheel_venv(work / "venv")
        python = str(bin_dir / "python")
        log(f"generating {args.lines} fact lines")
        lines = generated_lines(args.lines)
        ours = work / "ours"
        theirs = work / "theirs"
        write_notes(ours / "notes", lines)
        (ours / "inbox").mkdir()
        ctx = theirs / "50-Agent-Context"
        write_notes(ctx, lines)
        for sub in ("Agent提交区/已处理", "情境信息", "记忆遗忘区", "会话归档"):
            (ctx / sub).mkdir(parents=True)
        peer_core = fetch_peer()

        home = work / "home"
        home.mkdir()
        # Byte-code caching on for both (an installed package has its .pyc files).
        base_env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("CUECARD", "UNIF", "PYTHONPATH", "VIRTUAL_ENV"))
            and k != "PYTHONDONTWRITEBYTECODE"
        }
        our_env = base_env | {"XDG_CACHE_HOME": str(work / "cache"), "HOME": str(home)}
        peer_env = base_env | {
            "HOME": str(home),
            "UNIFIED_MEMORY_VAULT": str(theirs),
            "PYTHONPATH": str(peer_core),
        }
        our_cmd = [str(bin_dir / "cuecard"), "vault", "search", "--vault", str(ours)]
        our_cmd += ["--limit", "8"]
        peer_cmd = [python, "-m", "unified_memory.memory", "search", "--limit", "8"]

        base_cmd_env = None
        base_cmd, base_python = our_cmd, python
        if args.baseline_src:
            base_cmd_env = our_env | {
                "XDG_CACHE_HOME": str(work / "cache-baseline"),
                "PYTHONPATH": str(Path(args.baseline_src).resolve()),
            }
        elif args.baseline_venv:
            base_bin = Path(args.baseline_venv).resolve() / "bin"
            base_cmd_env = our_env | {"XDG_CACHE_HOME": str(work / "cache-baseline")}
            base_cmd = [str(base_bin / "cuecard"), *our_cmd[1:]]
            base_python = str(base_bin / "python")
        # The bytecode of what a build imports, written before anything is timed (a search of a
        # vault of ten lines).
        tiny = work / "tiny"
        write_notes(tiny / "notes", lines[:10])
        (tiny / "inbox").mkdir()
        for command, env in ((our_cmd, our_env), (base_cmd, base_cmd_env)):
            if env is None:
                continue
            tiny_env = env | {"XDG_CACHE_HOME": str(work / "cache-tiny")}
            cold([command[0], "vault", "search", "--vault", str(tiny), "warmup"], tiny_env)
            shutil.rmtree(work / "cache-tiny")
        builds: dict[str, list[tuple[float, float]]] = {"ours": [], "baseline": [], "peer": []}
        build_loads: list[float] = []
        for round_ in range(args.builds):
            log(f"building the indexes (first search), round {round_ + 1} of {args.builds}")
            build_loads.append(load()[0])
            builds["ours"].append(timed_build([*our_cmd, "warmup"], our_env, work / "cache"))
            if base_cmd_env is not None:
                builds["baseline"].append(
                    timed_build([*base_cmd, "warmup"], base_cmd_env, work / "cache-baseline")
                )
            builds["peer"].append(
                timed_build([*peer_cmd, "warmup"], peer_env, home / ".unified-memory")
            )
        build = {
            name: (statistics.median(w for w, _ in runs), statistics.median(c for _, c in runs))
            for name, runs in builds.items()
            if runs
        }

        queries = known_item_queries(lines, args.queries, rng)
        bare = []
        ours_ms = []
        peer_ms = []
        log(f"timing {len(queries)} cold searches each, alternating")
        baseline_ms = []
        cpu: dict[str, list[float]] = {"ours": [], "peer": [], "baseline": []}
        for _, query in queries:
            bare.append(cold([python, "-c", "pass"], base_env))
            ours_ms.append(cold([*our_cmd, query], our_env, cpu["ours"]))
            peer_ms.append(cold([*peer_cmd, query], peer_env, cpu["peer"]))
            if base_cmd_env is not None:
                baseline_ms.append(cold([*base_cmd, query], base_cmd_env, cpu["baseline"]))
        ratios = [a / b for a, b in zip(ours_ms, peer_ms, strict=True)]

        quality: list[tuple[int, str]] = []
        warm: dict[str, float | str] | None = None
        baseline_warm = None
        ref_ranks: list[int | None] = []
        if not args.cold_only:
            quality, warm, baseline_warm, ref_ranks = warm_and_quality(
                args.quality,
                lines,
                rng,
                (python, our_env, bin_dir),
                (base_python, base_cmd_env),
                ours,
            )

        result = {
            "lines": len(lines),
            "notes": (len(lines) + PER_NOTE - 1) // PER_NOTE,
            "installed_from": "wheels" if not args.venv else f"wheels ({args.venv})",
            "cold_ms": round(statistics.median(ours_ms), 1),
            "peer_cold_ms": round(statistics.median(peer_ms), 1),
            "cold_ratio": round(statistics.median(ours_ms) / statistics.median(peer_ms), 3),
            "cold_ratio_median_of_pairs": round(statistics.median(ratios), 3),
            "cold_cpu_ms": round(statistics.median(cpu["ours"]), 2),
            "peer_cold_cpu_ms": round(statistics.median(cpu["peer"]), 2),
            "cold_cpu_ratio": round(
                statistics.median(cpu["ours"]) / statistics.median(cpu["peer"]), 3
            ),
            "python_start_ms": round(statistics.median(bare), 1),
            "warm_ms": round(float(warm["wall"]), 3) if warm else None,
            "warm_p95_ms": round(float(warm["p95"]), 3) if warm else None,
            "warm_cpu_ms": round(float(warm["cpu"]), 3) if warm else None,
            "load_average_start": started_load,
            "load_average": [round(x, 2) for x in os.getloadavg()],
            "mrr": round(float(warm["mrr"]), 4) if warm else None,
            "mrr_rank_bm25": round(mrr(ref_ranks), 4) if ref_ranks else None,
            "build_s": round(build["ours"][0], 2),
            "build_cpu_s": round(build["ours"][1], 2),
            "build_ratio": round(build["ours"][0] / build["peer"][0], 3),
            "build_cpu_ratio": round(build["ours"][1] / build["peer"][1], 3),
            "builds": {
                name: [[round(w, 2), round(c, 2)] for w, c in runs] for name, runs in builds.items()
            },
            "baseline_cold_ms": round(statistics.median(baseline_ms), 1) if baseline_ms else None,
            "baseline_cold_ratio": round(
                statistics.median(baseline_ms) / statistics.median(peer_ms), 3
            )
            if baseline_ms
            else None,
            "baseline_cold_cpu_ms": (
                round(statistics.median(cpu["baseline"]), 2) if cpu["baseline"] else None
            ),
            "baseline_cold_cpu_ratio": (
                round(statistics.median(cpu["baseline"]) / statistics.median(cpu["peer"]), 3)
                if cpu["baseline"]
                else None
            ),
            "baseline_build_s": round(build["baseline"][0], 2) if "baseline" in build else None,
            "baseline_build_cpu_s": (
                round(build["baseline"][1], 2) if "baseline" in build else None
            ),
            "baseline_warm": baseline_warm,
            "peer_build_s": round(build["peer"][0], 2),
            "peer_build_cpu_s": round(build["peer"][1], 2),
            "peer": PEER_PACKAGE,
            "queries": len(queries),
            "quality_queries": len(quality),
            "figures": round_figures(builds, cpu, ours_ms, peer_ms, baseline_ms),
            "build_loads": build_loads,
            "load_start": started_load,
            "load_end": load(),
            "machine": machine(),
            "condition": condition(python, base_env),
            "baseline_condition": (
                condition(base_python, base_cmd_env) if base_cmd_env is not None else None
            ),
        }
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key:28s} {value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
