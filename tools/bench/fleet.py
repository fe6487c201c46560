"""Fleet vault benchmark: the PostgreSQL vault next to the folder vault, in one run.

Builds a folder vault of N facts (the labelled facts of recall_quality_set.tsv mixed with
distinct sentences of the standard library's docstrings, spread over the eight canonical notes),
imports it into the PostgreSQL database given by ``--url`` (``vault import``'s code path),
vacuums and analyses it (as autovacuum would soon after), then measures on both:

- submissions per second: ``--submitters`` threads each making ``--per-submitter`` submissions
  (the folder vault: exclusive file creates; PostgreSQL: one connection per thread, inserts);
- search latency: warm per-query times (median, p95) of the labelled set's paraphrased queries,
  the three searches alternating query by query: the folder vault's BM25 (its index
  synchronised first, its first sync timed separately), PostgreSQL search (ranked on this
  machine's mirror while the database answers the generation read sent as it starts; the use
  record is sent without waiting, its answer read by the next statement, here the database's
  ranking that follows) and the database's own ranking with its use
  record (the search before the mirror, kept for a machine without a writable cache folder);
  the first PostgreSQL search on a fresh machine (the mirror fetched and indexed) and searches
  after another connection changed one note are timed apart;
- ranking: MRR@10 and recall@10 of both on those queries, and how often their top result agrees;
- with ``--hybrid``, hybrid search on PostgreSQL too (the database's ranking fused with the
  concept graph and, with the vectors extra, local vectors over this machine's mirror of the
  active facts): the mirror's first build (and the vectors' first embedding), warm search
  latency and MRR@10 / recall@10. Embedding is slow on a small machine: use it with a smaller
  ``--facts``.

<<<<<<< HEAD
``figures`` gives the median, spread and runs of each search's per-query times, of the ratio to
the folder vault query by query and of the searches after a change, with ``load_start``,
``load_end``, ``machine`` and ``condition`` (wheels or editable, revision). The import, the first
sync, the first search and the submission rates are one measurement each in a run.
=======
With ``--conversations SPLIT``, instead: the two rankings of a PostgreSQL vault on the same
facts, for tools/bench/recall_conversation_set.json's questions (one vault per conversation,
its session notes as the vault's notes, loaded into the database in turn): search on this
machine's mirror and the database's own ranking (a machine whose cache folder cannot be
written), R@10 / MRR@10 of each per question kind, and how often they put the same fact first.
>>>>>>> recallpg

The database must be empty or migrated-and-empty; the password comes from PGPASSWORD or a pgpass
file. Usage: python tools/bench/fleet.py --url postgresql://user@host:port/db [--facts N]
[--submitters 16] [--per-submitter 20] [--hybrid] [--conversations dev|heldout|all] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.resolve()))

from _figures import condition, figure, load, machine  # noqa: E402

NOTES = ("index", "prefs", "env", "rules", "tools", "ui", "coord", "other")


def log(message: str) -> None:
    print(f"[fleet-bench] {message}", file=sys.stderr, flush=True)


def labelled() -> list[tuple[str, list[str]]]:
    rows = []
    for line in (HERE / "recall_quality_set.tsv").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            fact, *queries = line.split("\t")
            rows.append((fact.strip(), [q.strip() for q in queries if q.strip()]))
    return rows


def corpus(count: int, facts: list[str]) -> list[str]:
    sys.path.insert(0, str(HERE))
    from recall import stdlib_lines

    lines = list(facts)
    for text in stdlib_lines(max(0, count - len(facts))):
        if len(lines) >= count:
            break
        if text not in facts:
            lines.append(text)
    return lines


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def rank_of(texts: list[str], fact: str) -> int | None:
    for i, text in enumerate(texts[:10], start=1):
        if text.startswith(f"- {fact}"):
            return i
    return None


def quality(ranks: list[int | None]) -> dict[str, float]:
    return {
        "mrr10": round(sum(1.0 / r for r in ranks if r) / len(ranks), 4),
        "recall10": round(sum(1 for r in ranks if r) / len(ranks), 4),
    }


# one submitter: submit(agent, facts)
Submit = Callable[[str, list[str]], object]


def submit_rate(make: Callable[[], Submit], threads: int, each: int) -> float:
    def work(n: int) -> None:
        submit = make()
        for i in range(each):
            submit(f"bench{n}", [f"fleet submission {n} {i} about the build cache"])

    start = time.perf_counter()
    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(work, range(threads)))
    return round(threads * each / (time.perf_counter() - start), 1)


def hybrid(url: str, rows: list[tuple[str, list[str]]], cache: Path) -> dict[str, object]:
    """Hybrid search on the PostgreSQL vault (its per-machine mirror under ``cache``)."""

    os.environ["XDG_CACHE_HOME"] = str(cache)
    from cuecard.core.recall._vectors import refresh, unavailable
    from cuecard.core.vault._settings import Settings
    from cuecard.core.vault.postgres._hybrid import pg_hybrid_results
    from cuecard.core.vault.postgres._vault import PgVault

    found: dict[str, object] = {"vectors": unavailable() or "available"}
    settings = Settings(mode="hybrid")
    with PgVault(url) as pg:
        start = time.perf_counter()
        mirror = pg.mirror()
        assert mirror is not None, "the cache folder cannot be written"
        mirror.refresh(pg)
        index = mirror.index
        found["mirror_build_s"] = round(time.perf_counter() - start, 2)
        if unavailable() is None:
            start = time.perf_counter()
            refresh(index)
            found["vectors_build_s"] = round(time.perf_counter() - start, 2)
        times: list[float] = []
        ranks: list[int | None] = []
        for fact, queries in rows:
            for query in queries:
                start = time.perf_counter()
                results, _ = pg_hybrid_results(pg, query, 10, settings, vectors=True)
                times.append((time.perf_counter() - start) * 1000)
                ranks.append(rank_of([r.text for r in results], fact))
    found["search_ms"] = {
        "median": round(statistics.median(times), 2),
        "p95": round(percentile(times, 0.95), 2),
    }
    found["ranking"] = quality(ranks)
    found["figures"] = {"search_ms": figure(times, 2)}
    return found


def conversations(url: str, split: str, cache: Path) -> dict[str, object]:
    """The mirror's ranking and the database's on the conversational set (see the module
    docstring)."""
    os.environ["XDG_CACHE_HOME"] = str(cache)
    from cuecard.core.vault.postgres._search import rank
    from cuecard.core.vault.postgres._vault import PgVault

    data = json.loads((HERE / "recall_conversation_set.json").read_text(encoding="utf-8"))
    ranks: dict[str, list[tuple[str, int | None]]] = {"mirror": [], "database": []}
    first = 0
    with PgVault(url) as pg:
        pg.migrate()
        pg.conn.autocommit = False
        for conv in data["conversations"]:
            if split not in ("all", conv["split"]):
                continue
            with pg.conn.transaction():
                pg.conn.execute("DELETE FROM cuecard_facts")
                pg.conn.execute("DELETE FROM cuecard_notes")
            for note, (_, text) in zip(NOTES, sorted(conv["notes"].items()), strict=False):
                pg.add_note_text(note, text)
            for item in conv["questions"]:
                evidence = {f"- {e}" for e in item["evidence"]}
                found = {
                    "mirror": pg.search(item["q"], 10),
                    "database": rank(pg, item["q"], 10),
                }
                for name, hits in found.items():
                    at = next((i for i, h in enumerate(hits, 1) if h.text in evidence), None)
                    ranks[name].append((str(item["kind"]), at))
                mirror, database = found["mirror"], found["database"]
                first += bool(mirror and database and mirror[0].key == database[0].key)
        assert pg.mirror() is not None, "the cache folder cannot be written"
    out: dict[str, object] = {"split": split, "questions": len(ranks["mirror"])}
    for name, got in ranks.items():
        out[name] = {
            kind: quality([r for k, r in got if kind in ("all", k)])
            for kind in ("all", "single", "multi", "time", "open")
        }
    out["top1_agreement"] = round(first / max(len(ranks["mirror"]), 1), 4)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", required=True, help="postgresql:// URL of an empty database")
    parser.add_argument("--facts", type=int, default=100_000)
    parser.add_argument("--submitters", type=int, default=16)
    parser.add_argument("--per-submitter", type=int, default=20)
    parser.add_argument("--hybrid", action="store_true", help="measure hybrid search too")
    parser.add_argument(
        "--conversations",
        choices=("dev", "heldout", "all"),
        help="only the mirror's ranking against the database's on the conversational set",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.conversations:
        with tempfile.TemporaryDirectory() as tmp:
            compared = conversations(args.url, args.conversations, Path(tmp) / "cache")
        print(json.dumps(compared, indent=None if args.json else 2))
        return 0

    from cuecard.core.recall._index import Hit
    from cuecard.core.vault import DEFAULT
    from cuecard.core.vault.folder import Vault, init_vault
    from cuecard.core.vault.folder._recall import notes_index
    from cuecard.core.vault.folder._submit import submit
    from cuecard.core.vault.postgres._search import rank
    from cuecard.core.vault.postgres._vault import PgVault
    from cuecard.core.vault.transfer._transfer import folder_to_pg

    rows = labelled()
    lines = corpus(args.facts, [f for f, _ in rows])
    log(f"{len(lines)} facts")
    out: dict[str, object] = {"facts": len(lines), "queries": sum(len(q) for _, q in rows)}
    out["load_start"] = load()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "vault"
        vault, _ = init_vault(root, DEFAULT)
        for n, note in enumerate(NOTES):
            chunk = lines[n :: len(NOTES)]
            body = f"# {note}\n\n" + "".join(f"- {x}\n" for x in chunk)
            vault.note_file(note).write_text(body, encoding="utf-8")
        vault = Vault.open(root)
        pg = PgVault(args.url)
        pg.migrate()
        pg.conn.autocommit = False
        start = time.perf_counter()
        folder_to_pg(vault, pg)
        out["pg_import_s"] = round(time.perf_counter() - start, 2)
        # As autovacuum leaves a database some time after a bulk load: statistics, and pages
        # marked all-visible (index-only scans then skip the table).
        start = time.perf_counter()
        pg.conn.autocommit = True
        pg.conn.execute("VACUUM ANALYZE")
        pg.conn.autocommit = False
        out["pg_vacuum_s"] = round(time.perf_counter() - start, 2)
        log("imported")
        index = notes_index(str(root), vault.layout)
        start = time.perf_counter()
        index.sync()
        out["folder_first_sync_s"] = round(time.perf_counter() - start, 2)
        # A fresh machine's first search: no mirror yet, every active fact fetched and indexed.
        os.environ["XDG_CACHE_HOME"] = str(Path(tmp) / "cache")
        start, cpu = time.perf_counter(), time.process_time()
        pg.search("warm up", 10)
        out["pg_first_search_s"] = {
            "wall": round(time.perf_counter() - start, 2),
            "cpu": round(time.process_time() - cpu, 2),
        }
        times: dict[str, list[float]] = {"folder_bm25": [], "postgresql": [], "pg_database": []}
        ranks: dict[str, list[int | None]] = {name: [] for name in times}
        agree = 0

        def database(query: str) -> list[Hit]:
            """The search before the mirror (and where no cache folder can be written)."""
            hits = rank(pg, query, 10)
            pg.record_use([h.key for h in hits])
            return hits

        searches: dict[str, Callable[[str], list[Hit]]] = {
            "folder_bm25": lambda q: index.search(q, 10),
            "postgresql": lambda q: pg.search(q, 10),
            "pg_database": database,
        }
        for fact, queries in rows:
            for query in queries:
                found: dict[str, list[Hit]] = {}
                for name, run in searches.items():  # alternating, query by query
                    start = time.perf_counter()
                    found[name] = run(query)
                    times[name].append((time.perf_counter() - start) * 1000)
                    ranks[name].append(rank_of([h.text for h in found[name]], fact))
                hits, pg_hits = found["folder_bm25"], found["postgresql"]
                agree += bool(hits and pg_hits and hits[0].key == pg_hits[0].key)
        out["search_ms"] = {
            name: {
                "median": round(statistics.median(values), 2),
                "p95": round(percentile(values, 0.95), 2),
            }
            for name, values in times.items()
        }
        out["ratio_to_folder"] = {
            name: round(statistics.median(times[name]) / statistics.median(times["folder_bm25"]), 2)
            for name in ("postgresql", "pg_database")
        }
        # Another machine adds a fact to one note: the next search fetches that note again.
        after: list[float] = []
        with PgVault(args.url) as writer:
            for n in range(3):
                writer.add_note_text(NOTES[n], f"- fleet change {n} about the build cache\n")
                start = time.perf_counter()
                pg.search("where does the build cache live", 10)
                after.append(round((time.perf_counter() - start) * 1000, 1))
        out["pg_search_after_one_change_ms"] = after
        out["figures"] = {
            **{f"search_ms {name}": figure(values, 2) for name, values in times.items()},
            **{
                f"ratio_to_folder {name}": figure(
                    [a / b for a, b in zip(times[name], times["folder_bm25"], strict=True)]
                )
                for name in ("postgresql", "pg_database")
            },
            "pg_search_after_one_change_ms": figure(after, 1),
        }
        ranking: dict[str, object] = {name: quality(r) for name, r in ranks.items()}
        ranking["top1_agreement"] = round(agree / len(times["folder_bm25"]), 4)
        out["ranking"] = ranking
        pg.close()
        log("searched")
        if args.hybrid:
            out["postgresql_hybrid"] = hybrid(args.url, rows, Path(tmp) / "cache-hybrid")
            log("hybrid searched")

        def folder_submitter() -> Submit:
            return lambda agent, facts: submit(vault, agent, facts)

        def pg_submitter() -> Submit:
            conn = PgVault(args.url)
            return conn.submit

        out["submissions_per_s"] = {
            "folder": submit_rate(folder_submitter, args.submitters, args.per_submitter),
            "postgresql": submit_rate(pg_submitter, args.submitters, args.per_submitter),
            "threads": args.submitters,
        }
    out["load_end"] = load()
    out["machine"] = machine()
    out["condition"] = condition()
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        for key, value in out.items():
            print(f"{key}: {value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
