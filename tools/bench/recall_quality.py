"""Hybrid recall benchmark: ranking quality on paraphrased queries, and what hybrid search costs.

The labelled set is tools/bench/recall_quality_set.tsv: 101 facts in the style of a coding
agent's vault (88 English, 13 Chinese), each with two queries that ask for it in other words
(202 queries).
They are mixed, at random, with N distractor facts (sentences of the Python standard library's
docstrings, as tools/bench/recall.py builds them) into notes of 30 facts each of a real vault.

Quality, in one process over the synchronised index: MRR@10 and recall@10 of
- ``bm25``: the BM25 index alone (``vault search --mode bm25``, the default);
- ``graph``: the concept-graph stream alone;
- ``hybrid_no_vectors``: BM25 + graph fused (what ``--mode hybrid`` is without the extra);
- ``vectors``: the local-vector stream alone (the extra);
- ``hybrid``: BM25 + graph + vectors fused, with the default weights and per-note cap.

The conversational set is tools/bench/recall_conversation_set.json (written, deterministically,
by tools/bench/recall_conversations.py and frozen): two splits (``dev``, to tune on, and
``heldout``, to report; ``--split``) of ten two-person conversations of eight dated sessions, one
vault each, one fact per turn, questions as a person asks them, each labelled with its evidence
turns and a kind (``single``, ``multi``, ``time``, ``open``). A question is found at rank r when
an evidence turn is the r-th result; recall@1/5/10 and MRR@10 are given per mode and per kind.

Cost: cold ``cuecard vault search`` processes (``python -c pass``, default BM25, hybrid without
vectors, hybrid with vectors, alternating), warm per-query times, and the first embedding of the
vault. ``--fresh-venv`` also installs ``packages/core[vectors]`` into a new virtual environment
(from the package index; nothing else is fetched) and runs a hybrid search there, to show the
model loads from the installed package alone.

Usage: python tools/bench/recall_quality.py [--set paraphrases|conversations|both] [--distractors N]
       [--split dev|heldout|all] [--cold Q] [--fresh-venv] [--json] [--fit]
       [--baseline-src DIR]

The quality figures are exact (the same set ranks the same every run); the timings are medians,
and ``figures`` gives each one's median, spread and runs (``warm_ms``, ``cold_ms``, the
conversations' ``warm_ms``), with ``load_start``, ``load_end`` (``load_average`` is the end's),
``machine`` and ``condition`` (wheels or editable, revision).

``--fit`` grid-searches the fusion's weights and RRF constant on ``--split`` (fit on dev).
``--baseline-src DIR`` (another revision's ``packages/core/src``) times warm queries (CPU, default
search, hybrid without vectors and, with the extra, hybrid with vectors; every question of
``--split``, or with ``--set paraphrases`` the paraphrase set among ``--distractors`` facts) of
both revisions, alternating, and gives each mode's MRR@10 in both.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _figures import condition, figure, load, machine

if TYPE_CHECKING:
    from cuecard.core.recall._index import Ranking, RecallIndex
    from cuecard.core.vault._settings import Settings

REPO = Path(__file__).resolve().parents[2]
SET = Path(__file__).with_name("recall_quality_set.tsv")
CONVERSATIONS = Path(__file__).with_name("recall_conversation_set.json")
PER_NOTE = 30


def log(message: str) -> None:
    print(f"[hybrid-bench] {message}", file=sys.stderr, flush=True)


def load_set() -> list[tuple[str, list[str]]]:
    rows = []
    for line in SET.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        fact, *queries = line.split("\t")
        rows.append((fact.strip(), [q.strip() for q in queries if q.strip()]))
    return rows


def distractors(count: int) -> list[str]:
    sys.path.insert(0, str(Path(__file__).parent))
    from recall import stdlib_lines

    return list(stdlib_lines(count)) if count else []


def build_vault(root: Path, lines: list[str], env: dict[str, str]) -> None:
    cuecard = str(Path(sys.executable).with_name("cuecard"))
    subprocess.run(
        [cuecard, "vault", "init", "--vault", str(root)], env=env, check=True, capture_output=True
    )
    notes = root / "notes"
    for start in range(0, len(lines), PER_NOTE):
        chunk = lines[start : start + PER_NOTE]
        name = f"bench-{start // PER_NOTE:03d}"
        body = f"# {name}\n\n" + "".join(f"- {x}\n" for x in chunk)
        (notes / f"{name}.md").write_text(body, encoding="utf-8")


def rank_of(texts: list[str], *facts: str) -> int | None:
    """The rank (1-10) of the first result that is one of ``facts``."""
    wanted = {f"- {fact}" for fact in facts}
    for i, text in enumerate(texts[:10], start=1):
        if text in wanted:
            return i
    return None


def figures(ranks: list[int | None]) -> dict[str, float]:
    if not ranks:
        return {}
    return {
        "recall1": round(sum(1 for r in ranks if r == 1) / len(ranks), 4),
        "recall5": round(sum(1 for r in ranks if r and r <= 5) / len(ranks), 4),
        "recall10": round(sum(1 for r in ranks if r) / len(ranks), 4),
        "mrr10": round(sum(1.0 / r for r in ranks if r) / len(ranks), 4),
    }


def search_texts(index: RecallIndex, query: str, settings: Settings | None) -> list[str]:
    """The top-10 result lines of one mode (``settings`` None: the default search)."""
    from cuecard.core.vault.folder._hybrid import hybrid_results

    if settings is None:
        return [h.text for h in index.search(query, 10)]
    found, _ = hybrid_results(index, query, 10, settings, vectors=True)
    return [r.text for r in found]


def open_indexes(root: Path, rankings: dict[str, Ranking]) -> dict[str, RecallIndex]:
    """One synchronised index of the vault at ``root`` per ranking (in one folder, so the
    vector store beside them is shared)."""
    from cuecard.core.recall._index import RecallIndex
    from cuecard.core.vault._layout import detect_layout
    from cuecard.core.vault.folder._recall import RULES, extract, note_paths

    layout = detect_layout(str(root))
    assert layout is not None
    folder = root.parent / f"{root.name}-indexes"
    out: dict[str, RecallIndex] = {}
    for name, ranking in rankings.items():
        index = RecallIndex(
            folder / f"{name}.sqlite3",
            str(root),
            lambda: note_paths(str(root), layout),
            extract,
            rules=RULES,
            ranking=ranking,
        )
        index.sync()
        out[name] = index
    return out


Variants = dict[str, tuple[str, "Settings | None"]]


def conversation_quality(
    work: Path,
    env: dict[str, str],
    variants: Variants,
    rankings: dict[str, Ranking],
    has_vectors: bool,
    split: str,
) -> dict[str, object]:
    """Every mode over every conversation of one split of the frozen set (``all``: both):
    figures overall and per kind."""
    from cuecard.core.recall._vectors import refresh

    data = json.loads(CONVERSATIONS.read_text(encoding="utf-8"))
    data["conversations"] = [
        c for c in data["conversations"] if split in ("all", c.get("split", "dev"))
    ]
    ranks: dict[str, list[tuple[str, int | None]]] = {name: [] for name in variants}
    times: dict[str, list[float]] = {name: [] for name in variants}
    facts = questions = 0
    embed_s = 0.0
    for conv in data["conversations"]:
        root = work / str(conv["id"])
        cuecard = str(Path(sys.executable).with_name("cuecard"))
        subprocess.run(
            [cuecard, "vault", "init", "--vault", str(root)],
            env=env,
            check=True,
            capture_output=True,
        )
        for name, body in conv["notes"].items():
            (root / "notes" / name).write_text(body, encoding="utf-8")
            facts += sum(1 for line in body.splitlines() if line.startswith("- "))
        indexes = open_indexes(root, rankings)
        if has_vectors:
            t0 = time.perf_counter()
            refresh(indexes["default"])
            embed_s += time.perf_counter() - t0
        for item in conv["questions"]:
            questions += 1
            for name, (ranking, settings) in variants.items():
                t0 = time.perf_counter()
                texts = search_texts(indexes[ranking], item["q"], settings)
                times[name].append((time.perf_counter() - t0) * 1000)
                ranks[name].append((item["kind"], rank_of(texts, *item["evidence"])))
        for index in indexes.values():
            index.close()
    kinds = sorted({kind for kind, _ in next(iter(ranks.values()))})
    quality = {name: figures([r for _, r in found]) for name, found in ranks.items()}
    out: dict[str, object] = {
        "split": split,
        "conversations": len(data["conversations"]),
        "facts": facts,
        "questions": questions,
        "questions_by_kind": {
            k: sum(1 for kind, _ in next(iter(ranks.values())) if kind == k) for k in kinds
        },
        "quality": quality,
        "quality_by_kind": {
            k: {
                name: figures([r for kind, r in found if kind == k])
                for name, found in ranks.items()
            }
            for k in kinds
        },
        "warm_ms": {name: round(statistics.median(v), 2) for name, v in times.items()},
        "figures": {f"warm_ms {name}": figure(v, 2) for name, v in times.items()},
        "first_embedding_ms_per_fact": round(embed_s * 1000 / facts, 1) if has_vectors else None,
    }
    for name, value in quality.items():
        log(f"conversations {name}: {value}")
    return out


def collect_streams(
    work: Path, env: dict[str, str], has_vectors: bool, split: str
) -> list[tuple[str, list[str], dict[str, list[tuple[str, str]]], dict[tuple[str, str], str]]]:
    """Every question of one split with each stream's ranked list (the pool hybrid search
    fuses): (kind, evidence, streams, texts)."""
    from cuecard.core.recall._graph import graph_search
    from cuecard.core.recall._index import Ranking
    from cuecard.core.recall._vectors import refresh, vector_search

    data = json.loads(CONVERSATIONS.read_text(encoding="utf-8"))
    out = []
    for conv in data["conversations"]:
        if split not in ("all", conv.get("split", "dev")):
            continue
        root = work / f"fit-{conv['id']}"
        cuecard = str(Path(sys.executable).with_name("cuecard"))
        subprocess.run(
            [cuecard, "vault", "init", "--vault", str(root)],
            env=env,
            check=True,
            capture_output=True,
        )
        for name, body in conv["notes"].items():
            (root / "notes" / name).write_text(body, encoding="utf-8")
        index = open_indexes(root, {"default": Ranking()})["default"]
        if has_vectors:
            refresh(index)
        for item in conv["questions"]:
            texts: dict[tuple[str, str], str] = {}
            streams: dict[str, list[tuple[str, str]]] = {}
            hits = index.search(item["q"], 10)
            streams["default"] = [(h.path, h.key) for h in hits]
            texts.update({(h.path, h.key): h.text for h in hits})
            hits = index.search(item["q"], 40)
            streams["bm25"] = [(h.path, h.key) for h in hits]
            texts.update({(h.path, h.key): h.text for h in hits})
            graph, _ = graph_search(index._connect(), item["q"], 40)
            streams["graph"] = [(h.path, h.key) for h in graph]
            texts.update({(h.path, h.key): h.text for h in graph})
            if has_vectors:
                found = vector_search(index, item["q"], 40)
                streams["vectors"] = [(h.path, h.key) for h in found]
                texts.update({(h.path, h.key): h.text for h in found})
            out.append((str(item["kind"]), list(item["evidence"]), streams, texts))
        index.close()
    return out


def fit(work: Path, env: dict[str, str], has_vectors: bool, split: str) -> dict[str, object]:
    """Grid search of the fusion's weights and RRF constant on one split (the dev split: fit
    there, report the held-out one): each candidate's MRR@10 and R@10 per kind, with its
    vectors and without, beside the default search's; the best by the worst kind's difference
    (MRR@10 or R@10, with or without vectors, 0 at best), then overall MRR@10."""
    from cuecard.core.recall._fusion import fuse

    asked = collect_streams(work, env, has_vectors, split)
    kinds = sorted({kind for kind, *_ in asked})

    def score(weights: dict[str, float] | None, k: int) -> dict[str, dict[str, float]]:
        ranks: list[tuple[str, int | None]] = []
        for kind, evidence, streams, texts in asked:
            if weights is None:
                items = streams["default"]
            else:
                fused = fuse(
                    {n: v for n, v in streams.items() if n != "default"},
                    weights,
                    limit=10,
                    per_note=10,
                    k=k,
                )
                items = [f.item for f in fused]
            ranks.append((kind, rank_of([texts[i] for i in items], *evidence)))
        out = {"all": figures([r for _, r in ranks])}
        out |= {kind: figures([r for q, r in ranks if q == kind]) for kind in kinds}
        return out

    base = score(None, 60)
    rows: list[tuple[tuple[float, float], dict[str, object]]] = []

    def gains(got: dict[str, dict[str, float]]) -> tuple[float, float]:
        """The worst kind's MRR@10 and R@10 difference from the default search."""
        return (
            min(got[q]["mrr10"] - base[q]["mrr10"] for q in kinds),
            min(got[q]["recall10"] - base[q]["recall10"] for q in kinds),
        )

    for graph in (0.0, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0):
        for k in (1, 3, 5, 10, 20, 60):
            # Without vectors too: hybrid must stay at or above the default either way.
            alone = score({"bm25": 1.0, "graph": graph, "vectors": 0.0}, k)
            worst_alone, worst_r_alone = gains(alone)
            for vectors in (0.0, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0) if has_vectors else (0.0,):
                got = score({"bm25": 1.0, "graph": graph, "vectors": vectors}, k)
                worst, worst_r = gains(got)
                floor = min(worst, worst_r, worst_alone, worst_r_alone, 0.0)
                order = (floor, got["all"]["mrr10"])
                rows.append(
                    (
                        order,
                        {
                            "graph": graph,
                            "vectors": vectors,
                            "k": k,
                            "worst_kind_mrr_gain": round(worst, 4),
                            "worst_kind_recall_gain": round(worst_r, 4),
                            "without_vectors_worst_kind_gains": [
                                round(worst_alone, 4),
                                round(worst_r_alone, 4),
                            ],
                            "figures": got,
                            "figures_without_vectors": alone,
                        },
                    )
                )
    rows.sort(key=lambda row: row[0], reverse=True)
    best = [row for _, row in rows[:15]]
    return {"split": split, "default": base, "best": best, "questions": len(asked)}


_WARM = """
import json, os, statistics, sys, time
import cuecard.core
from cuecard.core.vault.folder import Vault
from cuecard.core.vault._settings import Settings
from cuecard.core.vault.folder._hybrid import hybrid_results
job = json.load(sys.stdin)
plain = Settings()
plain.weights["vectors"] = 0.0
modes = {
    "default": lambda index, q: index.search(q, 10),
    "hybrid_no_vectors": lambda index, q: hybrid_results(index, q, 10, plain, vectors=False)[0],
}
if job["vectors"]:
    with_vectors = Settings()
    modes["hybrid"] = lambda index, q: hybrid_results(index, q, 10, with_vectors, vectors=True)[0]
cpu = {mode: [] for mode in modes}
ranks = {mode: [] for mode in modes}
for root, questions in job["vaults"]:
    vault = Vault.open(root)
    vault.index.sync()
    for q, _ in questions[:3]:
        for run in modes.values():
            run(vault.index, q)
    for q, evidence in questions:
        for mode, run in modes.items():
            c = time.process_time()
            found = run(vault.index, q)
            cpu[mode].append((time.process_time() - c) * 1000)
            texts = [h.text for h in found]
            ranks[mode].append(next((i for i, t in enumerate(texts, 1) if t in evidence), None))
print(json.dumps({k: statistics.median(v) for k, v in cpu.items()}
                 | {"mrr10": {m: sum(1 / r for r in v if r) / len(v) for m, v in ranks.items()}}
                 | {"core": os.path.dirname(cuecard.core.__file__)}))
"""


def warm_against(
    work: Path,
    env: dict[str, str],
    baseline_src: str,
    split: str,
    has_vectors: bool,
    args: argparse.Namespace,
) -> dict[str, object]:
    """Warm query CPU (median over every question; default search, hybrid without vectors and,
    with the extra, hybrid with vectors) and MRR@10 of each mode, of this checkout and of
    another revision's ``packages/core/src``, in processes of their own (their own cache
    folders: each embeds its vaults once, in the first round), alternating over three rounds.
    The questions: every conversation of ``split`` (``--set conversations``), or the paraphrase
    set among ``--distractors`` facts in one vault (``--set paraphrases``)."""
    data = json.loads(CONVERSATIONS.read_text(encoding="utf-8"))
    vaults = []
    cuecard = str(Path(sys.executable).with_name("cuecard"))
    if args.set == "paraphrases":
        labelled = load_set()
        lines = [f for f, _ in labelled]
        lines += [x for x in distractors(args.distractors) if x not in set(lines)]
        random.Random(args.seed).shuffle(lines)
        build_vault(work / "warm-paraphrases", lines, env)
        asked = [(q, [f"- {fact}"]) for fact, qs in labelled for q in qs]
        vaults.append((str(work / "warm-paraphrases"), asked))
    for conv in data["conversations"]:
        if args.set == "paraphrases" or split not in ("all", conv.get("split", "dev")):
            continue
        root = work / f"warm-{conv['id']}"
        subprocess.run(
            [cuecard, "vault", "init", "--vault", str(root)],
            env=env,
            check=True,
            capture_output=True,
        )
        for name, body in conv["notes"].items():
            (root / "notes" / name).write_text(body, encoding="utf-8")
        questions = [(str(q["q"]), [f"- {e}" for e in q["evidence"]]) for q in conv["questions"]]
        vaults.append((str(root), questions))
    job = {"vaults": vaults, "vectors": has_vectors}
    envs = {
        "ours": env | {"XDG_CACHE_HOME": str(work / "warm-cache-ours")},
        "baseline": env
        | {
            "XDG_CACHE_HOME": str(work / "warm-cache-baseline"),
            "PYTHONPATH": str(Path(baseline_src).resolve()),
        },
    }
    modes = ["default", "hybrid_no_vectors", *(["hybrid"] if has_vectors else [])]
    runs: dict[str, list[dict[str, object]]] = {"ours": [], "baseline": []}
    loads = [round(os.getloadavg()[0], 2)]
    for round_ in range(3):
        order = ["ours", "baseline"] if round_ % 2 == 0 else ["baseline", "ours"]
        for name in order:
            done = subprocess.run(
                [sys.executable, "-c", _WARM],
                input=json.dumps(job),
                env=envs[name],
                capture_output=True,
                text=True,
            )
            if done.returncode != 0:
                raise SystemExit(f"warm run failed: {done.stderr[-500:]}")
            runs[name].append(json.loads(done.stdout))
            loads.append(round(os.getloadavg()[0], 2))
    out: dict[str, object] = {
        "questions": args.set if args.set == "paraphrases" else split,
        "facts": None if args.set != "paraphrases" else len(lines),
        "rounds": 3,
        "load": loads,
    }
    for name, got in runs.items():
        out[name] = {
            mode: round(statistics.median(float(str(r[mode])) for r in got), 3) for mode in modes
        } | {
            "per_round": [{mode: round(float(str(r[mode])), 3) for mode in modes} for r in got],
            "mrr10": got[-1]["mrr10"],
            "core": got[0]["core"],
        }
    # each round's median of the questions, per revision and mode
    out["figures"] = {
        f"{name} {mode}": figure([float(str(r[mode])) for r in got])
        for name, got in runs.items()
        for mode in modes
    }
    log(f"warm CPU (ms): {out}")
    return out


def cold(argv: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, capture_output=True, text=True)
    elapsed = (time.perf_counter() - start) * 1000
    if done.returncode != 0:
        raise SystemExit(f"{argv[:5]} failed: {done.stderr[-500:]}")
    return elapsed


def fresh_venv(work: Path) -> dict[str, object]:
    """Install packages/core[vectors] into a new venv and run one hybrid search there."""
    venv = work / "fresh-venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = [
        str(venv / "bin" / "python"),
        "-m",
        "pip",
        "install",
        "--quiet",
        "--disable-pip-version-check",
    ]
    start = time.perf_counter()
    done = subprocess.run(
        [*pip, f"{REPO / 'packages' / 'core'}[vectors]"], capture_output=True, text=True
    )
    install_s = time.perf_counter() - start
    if done.returncode != 0:
        return {"ok": False, "error": done.stderr[-500:]}
    listed = subprocess.run([*pip[:3], "list", "--format=json"], capture_output=True, text=True)
    names = sorted(p["name"].lower() for p in json.loads(listed.stdout))
    env = {k: v for k, v in os.environ.items() if not k.startswith("CUECARD")}
    env |= {
        "XDG_CACHE_HOME": str(work / "fresh-cache"),
        "XDG_CONFIG_HOME": str(work / "fc"),
        "HF_HUB_OFFLINE": "1",
    }
    cuecard = str(venv / "bin" / "cuecard")
    vault = work / "fresh-vault"
    subprocess.run(
        [cuecard, "vault", "init", "--vault", str(vault)], env=env, check=True, capture_output=True
    )
    (vault / "notes" / "ops.md").write_text(
        "# ops\n\n- Backups of the production database run nightly at two.\n"
        "- ripgrep is preferred over grep.\n",
        encoding="utf-8",
    )
    done = subprocess.run(
        [
            cuecard,
            "vault",
            "search",
            "--vault",
            str(vault),
            "--mode",
            "hybrid",
            "--explain",
            "--json",
            "when are prod DB snapshots taken",
        ],
        env=env,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        return {"ok": False, "error": done.stderr[-500:]}
    value = json.loads(done.stdout)
    streams = value["explain"]["streams"]
    return {
        "ok": streams.get("vectors", 0) > 0 and "Backups" in value["results"][0]["text"],
        "install_s": round(install_s, 1),
        "torch_installed": "torch" in names,
        "packages": names,
        "streams": streams,
        "top": value["results"][0]["text"],
    }


def paraphrases(
    work: Path,
    env: dict[str, str],
    variants: Variants,
    rankings: dict[str, Ranking],
    has_vectors: bool,
    args: argparse.Namespace,
) -> dict[str, object]:
    """The paraphrase set among distractors: quality per mode and language, cold processes."""
    from cuecard.core.recall._vectors import refresh

    rng = random.Random(args.seed)
    labelled = load_set()
    facts = {f for f, _ in labelled}
    extra = [x for x in distractors(args.distractors) if x not in facts]
    lines = [f for f, _ in labelled] + extra
    rng.shuffle(lines)
    queries = [(fact, q) for fact, qs in labelled for q in qs]
    root = work / "vault"
    log(f"vault of {len(lines)} facts ({len(labelled)} labelled), {len(queries)} queries")
    build_vault(root, lines, env)
    t0 = time.perf_counter()
    indexes = open_indexes(root, {"default": rankings["default"]})
    sync_s = time.perf_counter() - t0
    indexes |= open_indexes(root, rankings)
    embed_s = None
    if has_vectors:
        log("embedding the vault (first hybrid search)")
        t0 = time.perf_counter()
        refresh(indexes["default"])
        embed_s = time.perf_counter() - t0
    quality: dict[str, dict[str, float]] = {}
    warm: dict[str, float] = {}
    timings: dict[str, object] = {}
    by_language: dict[str, dict[str, dict[str, float]]] = {"en": {}, "zh": {}}
    for name, (ranking, settings) in variants.items():
        ranks: list[int | None] = []
        times: list[float] = []
        for fact, query in queries:
            t0 = time.perf_counter()
            texts = search_texts(indexes[ranking], query, settings)
            times.append((time.perf_counter() - t0) * 1000)
            ranks.append(rank_of(texts, fact))
        quality[name] = figures(ranks)
        warm[name] = round(statistics.median(times), 2)
        timings[f"warm_ms {name}"] = figure(times, 2)
        for lang in ("en", "zh"):
            picked = [
                r
                for (fact, _), r in zip(queries, ranks, strict=True)
                if (max(fact) >= "\u3000") == (lang == "zh")
            ]
            by_language[lang][name] = figures(picked)
        log(f"{name}: {quality[name]} warm {warm[name]} ms")
    for index in indexes.values():
        index.close()
    result: dict[str, object] = {
        "facts": len(lines),
        "labelled_facts": len(labelled),
        "queries": len(queries),
        "quality": quality,
        "quality_by_language": by_language,
        "warm_ms": warm,
        "index_sync_s": round(sync_s, 2),
        "first_embedding_s": None if embed_s is None else round(embed_s, 1),
        "figures": timings,
    }
    if args.no_cold:
        return result
    cuecard = str(Path(sys.executable).with_name("cuecard"))
    base = [cuecard, "vault", "search", "--vault", str(root), "--limit", "8"]
    novec = work / "cfg-novec"
    (novec / "cuecard").mkdir(parents=True)
    (novec / "cuecard" / "config.toml").write_text(
        "[recall]\nweights = { vectors = 0 }\n", encoding="utf-8"
    )
    commands = {
        "python": ([sys.executable, "-c", "pass"], env),
        "bm25": (base, env),
        "hybrid_no_vectors": (
            [*base, "--mode", "hybrid"],
            env | {"XDG_CONFIG_HOME": str(novec)},
        ),
    }
    if has_vectors:
        commands["hybrid"] = ([*base, "--mode", "hybrid"], env)
    for argv, e in commands.values():
        cold([*argv, "warmup"] if argv[0] == cuecard else argv, e)
    samples: dict[str, list[float]] = {name: [] for name in commands}
    picks = rng.sample(queries, min(args.cold, len(queries)))
    for _, query in picks:
        for name, (argv, e) in commands.items():
            samples[name].append(cold(argv if name == "python" else [*argv, query], e))
    cold_ms = {name: round(statistics.median(v), 1) for name, v in samples.items()}
    log(f"cold medians (ms): {cold_ms}")
    result["cold_ms"] = cold_ms
    timings.update({f"cold_ms {name}": figure(v, 1) for name, v in samples.items()})
    result["cold_ratio_hybrid_no_vectors_vs_bm25"] = round(
        cold_ms["hybrid_no_vectors"] / cold_ms["bm25"], 3
    )
    if has_vectors:
        result["cold_ratio_hybrid_vs_bm25"] = round(cold_ms["hybrid"] / cold_ms["bm25"], 3)
    return result


def _ranking(values: dict[str, float]) -> Ranking:
    """A ranking of the six ablation switches in ``values``."""
    from cuecard.core.recall._index import Ranking

    return Ranking(
        content=bool(values["content"]),
        stem=bool(values["stem"]),
        context=bool(values["context"]),
        neighbours=float(values["neighbours"]),
        dates=bool(values["dates"]),
        prior=float(values["prior"]),
    )


def plan(has_vectors: bool, ablation: bool) -> tuple[dict[str, Ranking], Variants]:
    """The rankings to index with and the variants to measure: (ranking name, hybrid settings
    or None for the default search)."""
    from cuecard.core.recall._values import NEIGHBOUR_SHARE, PRIOR, Ranking
    from cuecard.core.vault._settings import DEFAULT_WEIGHTS, Settings

    rankings: dict[str, Ranking] = {"default": Ranking()}
    no_vectors = DEFAULT_WEIGHTS | {"vectors": 0.0}
    variants: Variants = {
        "bm25": ("default", None),
        "graph": ("default", Settings(weights={"bm25": 0, "graph": 1, "vectors": 0})),
        "hybrid_no_vectors": ("default", Settings(weights=no_vectors)),
    }
    if has_vectors:
        variants["vectors"] = (
            "default",
            Settings(weights={"bm25": 0, "graph": 0, "vectors": 1}),
        )
        variants["hybrid"] = ("default", Settings())
    if not ablation:
        return rankings, variants
    off: dict[str, float] = {
        "content": False,
        "stem": False,
        "context": False,
        "neighbours": 0.0,
        "dates": False,
        "prior": 0.0,
    }
    on: dict[str, float] = {
        "content": True,
        "stem": True,
        "context": True,
        "neighbours": NEIGHBOUR_SHARE,
        "dates": True,
        "prior": PRIOR,
    }
    rankings["before"] = _ranking(off)
    variants["bm25 before (textbook BM25)"] = ("before", None)
    variants["hybrid_no_vectors before"] = ("before", Settings(weights=no_vectors))
    for change in ("content", "stem", "neighbours", "context", "dates", "prior"):
        rankings[f"+{change}"] = _ranking(off | {change: on[change]})
        rankings[f"-{change}"] = _ranking(on | {change: off[change]})
        variants[f"bm25 before + {change}"] = (f"+{change}", None)
        variants[f"bm25 default - {change}"] = (f"-{change}", None)
    for cap in (3, 5, 10, 100):
        variants[f"hybrid_no_vectors per_note {cap}"] = (
            "default",
            Settings(weights=no_vectors, per_note=cap),
        )
        if has_vectors:
            variants[f"hybrid per_note {cap}"] = ("default", Settings(per_note=cap))
    return rankings, variants


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", choices=("paraphrases", "conversations", "both"), default="both")
    parser.add_argument("--distractors", type=int, default=1000)
    parser.add_argument("--cold", type=int, default=11, help="cold queries per variant")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--split",
        choices=("dev", "heldout", "all"),
        default="heldout",
        help="which conversations (tune on dev, report heldout)",
    )
    parser.add_argument("--fresh-venv", action="store_true", help="prove the extra installs")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--no-cold", action="store_true", help="quality only, no cold processes")
    parser.add_argument(
        "--fit", action="store_true", help="grid-search the fusion's weights on --split"
    )
    parser.add_argument(
        "--baseline-src",
        help="a packages/core/src of another revision: warm query CPU of both, alternating",
    )
    parser.add_argument("--no-vectors", action="store_true", help="leave the vector stream out")
    parser.add_argument(
        "--ablation", action="store_true", help="also each ranking change on its own"
    )
    args = parser.parse_args()
    started_load = load()

    work = Path(tempfile.mkdtemp(prefix="cuecard-hybrid-"))
    try:
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith("CUECARD") and k != "PYTHONDONTWRITEBYTECODE"
        }
        env |= {"XDG_CACHE_HOME": str(work / "cache"), "XDG_CONFIG_HOME": str(work / "cfg")}
        os.environ.update(
            {"XDG_CACHE_HOME": env["XDG_CACHE_HOME"], "XDG_CONFIG_HOME": env["XDG_CONFIG_HOME"]}
        )
        from cuecard.core.recall._vectors import unavailable

        has_vectors = unavailable() is None and not args.no_vectors
        rankings, variants = plan(has_vectors, args.ablation)
        result: dict[str, object] = {"vectors_installed": unavailable() is None}
        result |= {
            "load_start": started_load,
            "machine": machine(),
            "condition": condition(env=env),
        }
        if args.baseline_src:
            result["warm_cpu"] = warm_against(
                work, env, args.baseline_src, args.split, has_vectors, args
            )
            result["load_end"] = load()
            print(json.dumps(result, indent=1))
            return 0
        if args.fit:
            result["fit"] = fit(work, env, has_vectors, args.split)
            result["load_end"] = load()
            print(json.dumps(result, indent=1))
            return 0
        if args.set in ("paraphrases", "both"):
            result |= paraphrases(work, env, variants, rankings, has_vectors, args)
        if args.set in ("conversations", "both"):
            log("conversational set")
            result["conversations"] = conversation_quality(
                work, env, variants, rankings, has_vectors, args.split
            )
        result["load_average"] = [round(x, 2) for x in os.getloadavg()]
        result["load_end"] = result["load_average"]
        if args.fresh_venv:
            log("installing packages/core[vectors] into a fresh virtual environment")
            result["fresh_venv"] = fresh_venv(work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if args.json:
        print(json.dumps(result))
    else:
        print(json.dumps(result, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
