"""``cuecard compile``: build the hot-path index from the live memories.

What one memory compiles to is ``_compiled_memory``'s (globs, keywords, commands, its check);
the per-file cache between compiles is ``_compile_cache``'s. Checks are verified against their
examples on RE2; a check that fails them, or that RE2 refuses, is left out and reported.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cuecard.core.base._confined import MARKER, Tree
from cuecard.core.base._errors import ValidationError
from cuecard.core.engine._index import INDEX_DIR, INDEX_VERSION, fingerprint
from cuecard.core.engine._table import json_string, write_encoded_table
from cuecard.core.store._compile_cache import compact_json, read_cache, write_cache
from cuecard.core.store._compiled_memory import compile_memory, glob_key, glob_regex
from cuecard.core.store._store import Store
from cuecard.core.store._validate import validate_memory_text

__all__ = ["CompileReport", "compile_index", "compile_project", "glob_key", "glob_regex"]

PARALLEL_FROM = 2_000
"""Compile in worker processes from this many changed files on (below it, one process is faster)."""
MAX_MEMORY_FILE_BYTES = 256 * 1024
"""A memory file larger than this is not read (a valid one holds at most 32,000 characters)."""
RACY_NS = 2_000_000_000
"""A file modified this close to (or after) the start of the compile that cached it is checked
by its sha256 next time, not by its stamp alone (file systems keep times as coarse as 2 s)."""


@dataclass
class CompileReport:
    """What a compile did."""

    memories: int = 0
    clauses: int = 0
    validated: int = 0
    """Memory files read and validated afresh; the others came from the per-file cache."""
    buckets: int = 0
    checks: int = 0
    left_out: list[dict[str, str]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    seconds: float = 0.0
    generation: str = ""


_MEMORIES = ".cuecard/memories"


def _memory_bytes(tree: Tree, folder: int, name: str) -> bytes | None:
    """A memory file's bytes, ``folder`` being the descriptor of the memories folder (reached
    through plain folders); ``None`` for a link, FIFO, device, socket, folder or a file over
    ``MAX_MEMORY_FILE_BYTES`` (never read)."""
    try:
        return tree.read_in(folder, _MEMORIES, name, MAX_MEMORY_FILE_BYTES)
    except OSError:
        return None


def _compile_file(name: str, root: str, tree: Tree, folder: int) -> dict[str, Any]:
    path = os.path.join(root, ".cuecard", "memories", name)
    data = _memory_bytes(tree, folder, name)
    if data is None:
        limit = MAX_MEMORY_FILE_BYTES
        shown = os.path.relpath(path, root)
        return {"problem": f"{shown}: is not a regular file of at most {limit} bytes"}
    out = _compile_data(path, root, data)
    out["sha"] = hashlib.sha256(data).hexdigest()
    return out


def _compile_data(path: str, root: str, data: bytes) -> dict[str, Any]:
    try:
        memory = validate_memory_text(data.decode("utf-8"))
    except ValueError as exc:
        reason = "; ".join(exc.refusals) if isinstance(exc, ValidationError) else str(exc)
        return {"problem": f"{os.path.relpath(path, root)}: {reason}"}
    if os.path.basename(path)[: -len(".json")] != memory.id:
        return {"problem": f"{os.path.relpath(path, root)}: holds memory {memory.id}"}
    if not memory.live:
        return {"id": memory.id, "dormant": True}
    return _encoded(compile_memory(memory))


def _encoded(out: dict[str, Any]) -> dict[str, Any]:
    """``out`` with its record and clause entries as JSON text, as the cache and tables keep
    them, so an unchanged file costs no encoding at the next compile."""
    return {
        **out,
        "record": compact_json(out["record"]),
        "clauses": [[compact_json(entry), keys] for entry, keys in out["clauses"]],
    }


def _compile_chunk(paths: list[str], root: str) -> list[dict[str, Any]]:
    tree = Tree(root)
    try:
        with tree.folder(_MEMORIES) as folder:
            return [_compile_file(path, root, tree, folder) for path in paths]
    except OSError:  # the folder went away or became a link: each file is a problem
        return [_compile_file(path, root, tree, -1) for path in paths]


def _compile_many(paths: list[str], root: str) -> list[dict[str, Any]]:
    """Compile files, in worker processes when there are many and more than one core."""
    workers = min(4, os.cpu_count() or 1)
    if len(paths) < PARALLEL_FROM or workers < 2 or "fork" not in _start_methods():
        return _compile_chunk(paths, root)
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    size = -(-len(paths) // (workers * 4))
    chunks = [paths[i : i + size] for i in range(0, len(paths), size)]
    context = multiprocessing.get_context("fork")  # workers inherit the imported modules
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        results = pool.map(_compile_chunk, chunks, [root] * len(chunks))
        return [out for chunk in results for out in chunk]


def _start_methods() -> list[str]:
    import multiprocessing

    return multiprocessing.get_all_start_methods()


def _same_content(tree: Tree, folder: int, name: str, sha: object) -> bool:
    """Whether memory file ``name`` still holds the bytes whose sha256 is ``sha``."""
    if not isinstance(sha, str):
        return False
    data = _memory_bytes(tree, folder, name)
    return data is not None and hashlib.sha256(data).hexdigest() == sha


def _compiled_files(
    store: Store, tree: Tree, cache_rel: str, progress: Callable[[int], None] | None
) -> tuple[dict[str, list[Any]], int]:
    """Every memory file compiled, reusing the cache for files unchanged since the last compile,
    and how many files were read and validated afresh.

    A file whose size and modification time are those the cache recorded is taken from it,
    unless it was modified within ``RACY_NS`` of the compile that recorded it (a rewrite of the
    same size in the same clock tick keeps its stamp): then its bytes must still hash to the
    recorded sha256. A file whose stamp changed but whose bytes hash the same (a checkout, a
    ``touch``) is taken from the cache too, without being validated again.
    """
    started = time.time_ns()
    old, racy_from = read_cache(tree, cache_rel)
    files: dict[str, list[Any]] = {}
    todo: list[tuple[str, list[int]]] = []
    changed = False
    try:
        folder = tree.folder(_MEMORIES)
    except FileNotFoundError:
        folder = None
    with folder or contextlib.nullcontext(-1) as fd:
        entries = sorted(
            (e for e in os.scandir(fd) if e.name.endswith(".json")) if folder else (),
            key=lambda e: e.name,
        )
        stamps = [(e.name, e.stat(follow_symlinks=False)) for e in entries]
        for count, (name, st) in enumerate(stamps, 1):
            if progress is not None and count % 500 == 0:
                progress(count)
            stamp = [st.st_mtime_ns, st.st_size]
            cached = old.pop(name, None)
            if (
                cached is not None
                and cached[:2] == stamp  # [mtime_ns, size, sha, out, line]
                and (stamp[0] < racy_from or _same_content(tree, fd, name, cached[2]))
            ):
                files[name] = cached
                continue
            changed = True
            if cached is not None and _same_content(tree, fd, name, cached[2]):
                files[name] = [*stamp, cached[2], cached[3]]  # a new line for the new stamp
            else:
                files[name] = []
                todo.append((name, stamp))
    fresh = _compile_many([name for name, _ in todo], str(store.root))
    for (name, stamp), out in zip(todo, fresh, strict=True):
        files[name] = [*stamp, out.pop("sha", None), out]
    if changed or old:  # a file changed, was added or went away
        write_cache(tree, cache_rel, files, racy_from=started - RACY_NS)
    return files, len(todo)


def compile_index(
    store: Store,
    *,
    clock: Callable[[], float] = time.time,
    progress: Callable[[int], None] | None = None,
    cached: bool = True,
) -> CompileReport:
    """Build a new index generation from ``store``'s live memories and make it current.

    Files unchanged since the last compile (same size and modification time, or the same
    sha256 of their bytes) are taken from ``local/index/cache.dat`` (see ``read_cache``);
    ``cached=False`` compiles every file afresh.
    """
    started = time.perf_counter()
    report = CompileReport()
    tree = Tree(store.root)  # every folder below the root opened without following a link
    tree.mkdirs(INDEX_DIR)
    with tree.locked(f"{INDEX_DIR}/.lock"):
        stamp = fingerprint(str(store.root))
        config = store.config()
        tree.remove(f"{INDEX_DIR}/cache.json")  # the JSON cache of earlier versions
        cache_rel = f"{INDEX_DIR}/cache.dat"
        if not cached:
            tree.remove(cache_rel)
        buckets: dict[str, list[str]] = defaultdict(list)
        records: dict[str, str] = {}
        checks: dict[str, dict[str, Any]] = {}
        files, report.validated = _compiled_files(store, tree, cache_rel, progress)
        for name, (mtime, size, _sha, out, *_line) in files.items():
            if "problem" in out:
                report.problems.append(out["problem"])
                continue
            if out.get("dormant"):
                continue
            report.memories += 1
            # The record names its file and stamp, so a delivery can tell an edit the folder's
            # fingerprint missed (a file rewritten in place) and rebuild before it delivers.
            src = f"[{json_string(name)},{mtime},{size}]"
            records[out["id"]] = f'{out["record"][:-1]},"src":{src}}}'
            for entry, keys in out["clauses"]:
                report.clauses += 1
                for key in keys:
                    buckets[key].append(entry)
            if "check" in out:
                checks[out["id"]] = out["check"]
            elif "left_out" in out:
                report.left_out.append({"id": out["id"], "reason": out["left_out"]})
        generation = f"g{int(clock() * 1000):x}-{os.getpid():x}"
        folder = f"{INDEX_DIR}/{generation}"
        _write_generation(tree, folder, buckets, records, checks)
        meta = {
            "version": INDEX_VERSION,
            "fingerprint": stamp,
            "delivery_limit": config.delivery_limit,
            "memories": report.memories,
            "clauses": report.clauses,
            "checks": {
                kind: sorted(i for i, c in checks.items() if c["when"] == kind)
                for kind in ("command", "edit", "turn")
            }
            if checks
            else {},
            "left_out": report.left_out,
            "compiled_at": clock(),
        }
        tree.write(f"{folder}/meta.json", json.dumps(meta), durable=False)
        tree.write(f"{INDEX_DIR}/CURRENT", generation + "\n", durable=False)
        _prune(tree, keep={generation, _previous(tree, generation)})
    report.buckets = len(buckets)
    report.checks = len(checks)
    report.generation = generation
    report.seconds = time.perf_counter() - started
    return report


def compile_project(root: str) -> CompileReport:
    """``compile_index`` of the project store at ``root``.

    The hot path's one way out of the engine: ``cuecard.core.engine.load_index`` calls it (a
    lazy import) when the index is stale or missing."""
    return compile_index(Store(Path(root)))


def _write_generation(
    tree: Tree,
    folder: str,
    buckets: dict[str, list[str]],
    records: dict[str, str],
    checks: dict[str, dict[str, Any]],
) -> None:
    """Write one generation into the new folder ``folder``, marked as cuecard's first (so that
    pruning may delete it later, and nothing else)."""
    if not tree.create(f"{folder}/{MARKER}", "cuecard index generation\n"):
        raise FileExistsError(tree.path(folder))
    encoded = {key: "[" + ",".join(entries) + "]" for key, entries in buckets.items()}
    write_encoded_table(f"{folder}/buckets.dat", encoded, tree=tree)
    write_encoded_table(f"{folder}/memories.dat", records, tree=tree)
    pkeys = sorted(k for k in buckets if k.startswith("p:"))
    tree.write(f"{folder}/pkeys.json", json.dumps(pkeys), durable=False)
    if checks:
        tree.write(f"{folder}/checks.json", json.dumps(checks), durable=False)


def _generations(tree: Tree) -> list[tuple[str, int]]:
    """``(name, mtime_ns)`` of each generation folder in the index (plain folders only)."""
    out = []
    for name, kind in tree.entries(INDEX_DIR):
        if kind == "dir" and name.startswith("g"):
            st = tree.lstat(f"{INDEX_DIR}/{name}")
            if st is not None:
                out.append((name, st.st_mtime_ns))
    return out


def _previous(tree: Tree, current: str) -> str:
    older = sorted((g for g in _generations(tree) if g[0] != current), key=lambda g: g[1])
    return older[-1][0] if older else ""


GENERATION_FILES = frozenset({"buckets.dat", "memories.dat", "pkeys.json", "checks.json"})
"""What a generation holds besides the marker (and all a generation compiled before the
marker existed held)."""


def _prune(tree: Tree, keep: set[str]) -> None:
    """Delete the generations not kept: only folders that hold cuecard's marker, by
    descriptor; a link, or a folder cuecard did not make, is left alone. A generation compiled
    before the marker existed is marked first, when it holds nothing but cuecard's generation
    files, each a regular file of this user (the walk proved the folders plain and this
    user's)."""
    for name, _ in _generations(tree):
        if name not in keep:
            folder = f"{INDEX_DIR}/{name}"
            try:
                if not tree.remove_marked(folder) and _unmarked_generation(tree, folder):
                    tree.create(f"{folder}/{MARKER}", "cuecard index generation\n")
                    tree.remove_marked(folder)
            except OSError:
                continue


def _unmarked_generation(tree: Tree, folder: str) -> bool:
    entries = tree.entries(folder)
    if not entries or any(k != "file" or n not in GENERATION_FILES for n, k in entries):
        return False
    for name, _ in entries:
        st = tree.lstat(f"{folder}/{name}")
        if st is None or not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid():
            return False
    return True
