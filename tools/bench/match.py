"""Benchmark: per-event match cost with 10,000 memories, beside the cost of loading the index.

Each iteration opens the index afresh (as a cold hook process does) and matches one event from a
realistic mix (edits, commands, prompts, searches); the figures are medians in microseconds
(``figures``: with their spread and count; ``load``, ``load_start``, ``load_end``: the load
averages; ``machine``; ``condition``: wheels or editable, and the revision).
Usage: python tools/bench/match.py [--memories N] [--events N] [--json]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _corpus import AREAS, EXTS, PROGRAMS, SUBS, WORDS, build_project
from _figures import condition, figure, load, machine

if TYPE_CHECKING:
    from cuecard.core.engine._event import Event


def events(count: int, seed: int = 11) -> list[Event]:
    from cuecard.core.engine._event import Event

    rng = random.Random(seed)
    out: list[Event] = []
    for i in range(count):
        area, sub, ext = rng.choice(AREAS), rng.choice(SUBS), rng.choice(EXTS)
        pick = i % 4
        if pick == 0:
            out.append(Event("edit", paths=(f"src/{area}/{sub}/file{i}.{ext}",)))
        elif pick == 1:
            words = tuple(f"{rng.choice(PROGRAMS)} {area}{i % 50}".split())
            out.append(Event("run", command=" ".join(words), parts=(words,)))
        elif pick == 2:
            prompt = f"please fix the {rng.choice(WORDS)} {area}{i % 30} bug in {area} {sub}"
            out.append(Event("prompt", prompt=prompt))
        else:
            out.append(Event("read", paths=(f"{area}/{sub}/x.{ext}", "README.md")))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--events", type=int, default=400)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    started_load = load()
    from cuecard.core import Store
    from cuecard.core.engine._index import Index
    from cuecard.core.store._compiler import compile_index

    with tempfile.TemporaryDirectory() as tmp:
        root = build_project(Path(tmp) / "repo", args.memories)
        compile_index(Store.open(root))
        load_us, match_us, hits = [], [], []
        for event in events(args.events):
            started = time.perf_counter()
            index = Index.read(str(root))
            assert index is not None and index.fresh(str(root))
            loaded = time.perf_counter()
            matches = index.match(event)
            for found in matches:
                index.memory(found.memory)
            done = time.perf_counter()
            load_us.append((loaded - started) * 1e6)
            match_us.append((done - loaded) * 1e6)
            hits.append(len(matches))
    figures = {
        "memories": args.memories,
        "events": args.events,
        "load_index_us": round(statistics.median(load_us), 1),
        "match_us": round(statistics.median(match_us), 1),
        "match_p95_us": round(sorted(match_us)[int(len(match_us) * 0.95)], 1),
        "ratio_match_to_load": round(statistics.median(match_us) / statistics.median(load_us), 2),
        "mean_matches": round(statistics.mean(hits), 2),
        "figures": {"load_index_us": figure(load_us, 1), "match_us": figure(match_us, 1)},
        "load": load(),
        "load_start": started_load,
        "load_end": load(),
        "machine": machine(),
        "condition": condition(),
    }
    if args.json:
        print(json.dumps(figures))
    else:
        for key, value in figures.items():
            print(f"{key:>20}: {value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
