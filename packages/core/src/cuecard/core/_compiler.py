"""``cuecard compile``: build the hot-path index from the live memories.

Globs are brace-expanded here and matched on the hot path by ``_wildmatch`` (gitignore
semantics, linear time); ``glob_regex`` keeps pathspec's translation as the reference those
semantics are tested against. Keywords are stored as normalised words (``_words``), command
patterns as words. Checks are verified against their examples on RE2; a check that fails
them, or that RE2 refuses, is left out and reported.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import shutil
import time
import warnings
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cuecard.core.__about__ import __version__
from cuecard.core._errors import ValidationError
from cuecard.core._fsio import atomic_write, locked
from cuecard.core._globs import expand_braces
from cuecard.core._memory import Kind, Memory, Trigger
from cuecard.core._store import Store
from cuecard.core._validate import validate_memory_text, verify_check
from cuecard.core.engine._evidence import read_regular
from cuecard.core.engine._index import INDEX_VERSION, command_words, fingerprint
from cuecard.core.engine._table import json_string, write_encoded_table
from cuecard.core.engine._words import words

__all__ = ["CompileReport", "compile_index", "compile_project", "glob_key", "glob_regex"]

PARALLEL_FROM = 2_000
"""Compile in worker processes from this many changed files on (below it, one process is faster)."""
MAX_MEMORY_FILE_BYTES = 256 * 1024
"""A memory file larger than this is not read (a valid one holds at most 32,000 characters)."""
_CACHE_VERSION = f"{INDEX_VERSION}-{__version__}-c4"  # c4: one line per file
_CACHE_MAGIC = b"CUECARD-COMPILE-CACHE-1\n"
RACY_NS = 2_000_000_000
"""A file modified this close to (or after) the start of the compile that cached it is checked
by its sha256 next time, not by its stamp alone (file systems keep times as coarse as 2 s)."""
MAX_CACHE_BYTES = 256 * 1024 * 1024
"""A compile cache larger than this is not read (10,000 memories make about 10 MB)."""
_WILD = re.compile(r"[*?\[]")
_KIND_ORDER = {
    Kind.TRAP: 0,
    Kind.FAILED_APPROACH: 1,
    Kind.DECISION: 2,
    Kind.PROCEDURE: 3,
    Kind.FACT: 4,
}


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


@functools.cache
def glob_regex(glob: str) -> str:
    """The regular expression (Python ``re``) for one brace-free glob, gitignore semantics."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern

        regex, _include = GitIgnoreSpecPattern.pattern_to_regex(glob)
    if regex is None:
        raise ValueError(f"{glob!r} matches nothing")
    return str(regex).replace("(?P<ps_d>", "(?:")


def glob_key(glob: str) -> tuple[str, str]:
    """The bucket key of one brace-free glob, and its literal folder prefix."""
    body = glob.rstrip("/")
    segments = body.split("/")
    floating = len(segments) == 1
    if not floating:
        literal: list[str] = []
        for segment in segments:
            if _WILD.search(segment):
                break
            literal.append(segment)
        if literal:
            prefix = "/".join(literal)
            return "p:" + prefix, prefix
    last = segments[-1]
    if not _WILD.search(last):
        return "n:" + last, ""
    dot = last.rfind(".")
    if dot >= 0 and not _WILD.search(last[dot + 1 :]) and last[dot + 1 :]:
        return "x:" + last[dot + 1 :], ""
    return "*", ""


@functools.lru_cache(maxsize=16_384)
def _glob_parts(glob: str) -> tuple[tuple[str, str, str], ...]:
    """Each brace-free glob of ``glob`` with its literal folder prefix and bucket key."""
    parts = []
    for one in expand_braces(glob):
        key, prefix = glob_key(one)
        parts.append((one, prefix, key))
    return tuple(parts)


def _clause_entry(memory: Memory, index: int, clause: Trigger) -> tuple[dict[str, Any], list[str]]:
    globs: list[list[str]] = []
    keys: list[str] = []
    for glob in clause.paths:
        for one, prefix, key in _glob_parts(glob):
            globs.append([one, prefix])
            keys.append(key)
    commands = [w for w in (command_words(c) for c in clause.commands) if w]
    entry: dict[str, Any] = {"m": memory.id, "c": index, "on": list(clause.on)}
    if globs:
        entry["g"] = globs
    if commands:
        entry["cmd"] = commands
    if clause.symbols:
        entry["sym"] = list(clause.symbols)
    if clause.keywords:
        entry["kw"] = [w for w in (words(k) for k in clause.keywords) if w]
    if not keys:  # bucket by the first narrowing dimension the clause has
        if commands:
            keys = ["c:" + c[0] for c in commands]
        elif clause.symbols:
            keys = ["s:" + s for s in clause.symbols]
        else:
            keys = ["w:" + w[0] for w in entry.get("kw", [])]
    return entry, list(dict.fromkeys(k.lower() for k in keys))


def _record(memory: Memory) -> dict[str, Any]:
    return {
        "title": memory.title,
        "kind": memory.kind.value,
        "topic": memory.topic,
        "status": memory.status.value,
        "body": memory.body,
        "evidence": [[e.ref, e.sha256] for e in memory.evidence if e.kind == "file" and e.sha256],
        "rank": _KIND_ORDER[memory.kind],
    }


def _check_entry(memory: Memory) -> dict[str, Any]:
    check = memory.check
    assert check is not None
    globs = list(check.paths) or [g for clause in memory.triggers for g in clause.paths]
    expanded = [one for glob in globs for one in expand_braces(glob)]
    kinds = _check_kinds(memory)
    is_command = bool(check.if_command or check.unless_command)
    when = "command" if is_command else (check.when or "turn")
    return {
        "title": memory.title,
        "when": when,
        "if": check.if_command if is_command else check.if_content,
        "unless": check.unless_command if is_command else check.unless_content,
        "paths": expanded,
        "on": kinds,
        "message": check.message or memory.title,
    }


def _check_kinds(memory: Memory) -> list[str]:
    """The event kinds whose files a check judges: those its memory's triggers name among
    ``edit``, ``write`` and ``run`` (files changed through the shell), else edits and writes."""
    named = {k for clause in memory.triggers for k in clause.on}
    return sorted(named & {"edit", "run", "write"}) or ["edit", "write"]


def _compile_memory(memory: Memory) -> dict[str, Any]:
    """What one live memory contributes to the index (cached per file between compiles)."""
    out: dict[str, Any] = {
        "id": memory.id,
        "record": _record(memory),
        "clauses": [_clause_entry(memory, i, c) for i, c in enumerate(memory.triggers)],
    }
    if memory.check is not None:
        problem = verify_check(memory.check)
        if problem is None:
            out["check"] = _check_entry(memory)
        else:
            out["left_out"] = problem
    return out


def _compile_file(path: str, root: str) -> dict[str, Any]:
    data = read_regular(path, MAX_MEMORY_FILE_BYTES)  # a link, FIFO or device is never read
    if data is None:
        limit = MAX_MEMORY_FILE_BYTES
        name = os.path.relpath(path, root)
        return {"problem": f"{name}: is not a regular file of at most {limit} bytes"}
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
    return _encoded(_compile_memory(memory))


def _encoded(out: dict[str, Any]) -> dict[str, Any]:
    """``out`` with its record and clause entries as JSON text, as the cache and tables keep
    them, so an unchanged file costs no encoding at the next compile."""
    return {
        **out,
        "record": _dumps(out["record"]),
        "clauses": [[_dumps(entry), keys] for entry, keys in out["clauses"]],
    }


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _compile_chunk(paths: list[str], root: str) -> list[dict[str, Any]]:
    return [_compile_file(path, root) for path in paths]


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


def _same_content(path: str, sha: object) -> bool:
    """Whether the file at ``path`` still holds the bytes whose sha256 is ``sha``."""
    if not isinstance(sha, str):
        return False
    data = read_regular(path, MAX_MEMORY_FILE_BYTES)
    return data is not None and hashlib.sha256(data).hexdigest() == sha


def _compiled_files(
    store: Store, cache_path: Path, progress: Callable[[int], None] | None
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
    old, racy_from = read_cache(cache_path)
    files: dict[str, list[Any]] = {}
    todo: list[tuple[str, str, list[int]]] = []
    changed = False
    if store.memories_dir.is_dir():
        entries = sorted(
            (e for e in os.scandir(store.memories_dir) if e.name.endswith(".json")),
            key=lambda e: e.name,
        )
        for count, entry in enumerate(entries, 1):
            if progress is not None and count % 500 == 0:
                progress(count)
            st = entry.stat()
            stamp = [st.st_mtime_ns, st.st_size]
            cached = old.pop(entry.name, None)
            if (
                cached is not None
                and cached[:2] == stamp  # [mtime_ns, size, sha, out, line]
                and (stamp[0] < racy_from or _same_content(entry.path, cached[2]))
            ):
                files[entry.name] = cached
                continue
            changed = True
            if cached is not None and _same_content(entry.path, cached[2]):
                files[entry.name] = [*stamp, cached[2], cached[3]]  # a new line for the new stamp
            else:
                files[entry.name] = []
                todo.append((entry.name, entry.path, stamp))
    fresh = _compile_many([path for _, path, _ in todo], str(store.root))
    for (name, _, stamp), out in zip(todo, fresh, strict=True):
        files[name] = [*stamp, out.pop("sha", None), out]
    if changed or old:  # a file changed, was added or went away
        write_cache(cache_path, files, racy_from=started - RACY_NS)
    return files, len(todo)


def read_cache(path: Path) -> tuple[dict[str, list[Any]], int]:
    """The per-file compile cache at ``path``: file name → ``[mtime_ns, size, sha256, out]``, and
    the modification time from which an entry's stamp alone does not vouch for its content.

    The file is the magic line, the sha256 of the body, then the body: the cache's version, that
    time (nanoseconds), then one line per file, tab-separated (name, stamp, sha256, what the
    file compiled to; JSON text holds no tab or line feed). Whatever is not a cache this version
    wrote, whole (the checksum catches a torn or edited file), reads as empty, and a line of the
    wrong shape is dropped: a hostile cache costs a full compile, never a crash.
    """
    try:
        raw = read_regular(str(path), MAX_CACHE_BYTES)
    except OSError:
        return {}, 0
    if raw is None or not raw.startswith(_CACHE_MAGIC):
        return {}, 0
    head, _, body = raw[len(_CACHE_MAGIC) :].partition(b"\n")
    if head != hashlib.sha256(body).hexdigest().encode():
        return {}, 0
    try:
        lines = body.decode("utf-8").split("\n")
    except UnicodeDecodeError:
        return {}, 0
    if lines[0] != _CACHE_VERSION or len(lines) < 2:
        return {}, 0
    try:
        racy_from = int(lines[1])
    except ValueError:
        return {}, 0
    files: dict[str, list[Any]] = {}
    for line in lines[2:]:
        try:
            name, entry = _parsed_line(line.split("\t"))
        except (ValueError, IndexError, TypeError):
            continue
        files[name] = [*entry, line]  # the line is written back as it is while the file stands
    return files, racy_from


def _parsed_line(fields: list[str]) -> tuple[str, list[Any]]:
    name, mtime, size, sha, kind = fields[:5]
    stamp = [int(mtime), int(size)]
    digest = None if sha == "-" else sha
    if kind == "p" and len(fields) == 6:
        problem = json.loads(fields[5])
        if not isinstance(problem, str):
            raise TypeError("a problem is text")
        return name, [*stamp, digest, {"problem": problem}]
    if digest is None:
        raise ValueError("a memory's entry names its sha256")
    if kind == "d" and len(fields) == 6:
        return name, [*stamp, digest, {"id": fields[5], "dormant": True}]
    if kind != "m" or len(fields) < 8 or len(fields) % 2:
        raise ValueError("not an entry")
    ident, record, extra = fields[5:8]
    if len(record) < 3 or record[0] != "{" or record[-1] != "}":
        raise ValueError("a record is a JSON object")
    out: dict[str, Any] = {"id": ident, "record": record}
    if extra != "-":
        more = json.loads(extra)
        if not isinstance(more, dict) or set(more) - {"check", "left_out"}:
            raise TypeError("extra holds a check or why it was left out")
        if not isinstance(more.get("check", {}), dict):
            raise TypeError("a check is an object")
        if not isinstance(more.get("left_out", ""), str):
            raise TypeError("left_out is text")
        out.update(more)
    out["clauses"] = [[fields[i], fields[i + 1].split("\x1f")] for i in range(8, len(fields), 2)]
    return name, [*stamp, digest, out]


def _cache_line(name: str, entry: list[Any]) -> str | None:
    """One file's line of the cache, or ``None`` when a name, id or key holds a separator (such
    a file is compiled again each time)."""
    mtime, size, sha, out = entry
    head = [name, str(mtime), str(size), sha or "-"]
    if "problem" in out:
        fields = [*head, "p", json_string(out["problem"])]
    elif out.get("dormant"):
        fields = [*head, "d", out["id"]]
    else:
        extra = {k: out[k] for k in ("check", "left_out") if k in out}
        fields = [*head, "m", out["id"], out["record"], _dumps(extra) if extra else "-"]
        for text, keys in out["clauses"]:
            joined = "\x1f".join(keys)
            if not keys or joined.count("\x1f") != len(keys) - 1:
                return None
            fields += (text, joined)
    line = "\t".join(fields)
    return line if line.count("\t") == len(fields) - 1 and "\n" not in line else None


def write_cache(path: Path, files: dict[str, list[Any]], *, racy_from: int) -> None:
    """Write the per-file compile cache (see ``read_cache``)."""
    lines = [_CACHE_VERSION, str(racy_from)]
    for name, entry in files.items():
        line = entry[4] if len(entry) > 4 else _cache_line(name, entry)
        if line is not None:
            lines.append(line)
    body = "\n".join(lines).encode()
    head = _CACHE_MAGIC + hashlib.sha256(body).hexdigest().encode() + b"\n"
    # Not a rename over the old cache: on ext4 that flushes the new file's ~10 MB to disk first
    # (auto_da_alloc), which took longer than the rest of an incremental compile. The old one
    # goes, then the new one is written in its place: a crash midway leaves no cache or a torn
    # one, which the checksum catches. Never through a link planted there (O_NOFOLLOW, O_EXCL).
    path.unlink(missing_ok=True)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags, 0o644)
    except FileExistsError:  # another writer came first; the next compile writes it again
        return
    with os.fdopen(fd, "wb") as handle:
        handle.write(head)
        handle.write(body)


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
    base = store.local_dir / "index"
    base.mkdir(parents=True, exist_ok=True)
    with locked(base / ".lock"):
        stamp = fingerprint(str(store.root))
        config = store.config()
        (base / "cache.json").unlink(missing_ok=True)  # the JSON cache of earlier versions
        cache_path = base / "cache.dat"
        if not cached:
            cache_path.unlink(missing_ok=True)
        buckets: dict[str, list[str]] = defaultdict(list)
        records: dict[str, str] = {}
        checks: dict[str, dict[str, Any]] = {}
        files, report.validated = _compiled_files(store, cache_path, progress)
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
        folder = base / generation
        _write_generation(folder, buckets, records, checks)
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
        (folder / "meta.json").write_text(json.dumps(meta), encoding="utf-8")
        atomic_write(base / "CURRENT", generation + "\n", durable=False)
        _prune(base, keep={generation, _previous(base, generation)})
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
    folder: Path,
    buckets: dict[str, list[str]],
    records: dict[str, str],
    checks: dict[str, dict[str, Any]],
) -> None:
    folder.mkdir(parents=True)
    encoded = {key: "[" + ",".join(entries) + "]" for key, entries in buckets.items()}
    write_encoded_table(str(folder / "buckets.dat"), encoded)
    write_encoded_table(str(folder / "memories.dat"), records)
    pkeys = sorted(k for k in buckets if k.startswith("p:"))
    (folder / "pkeys.json").write_text(json.dumps(pkeys), encoding="utf-8")
    if checks:
        (folder / "checks.json").write_text(json.dumps(checks), encoding="utf-8")


def _previous(base: Path, current: str) -> str:
    older = sorted(
        (p for p in base.iterdir() if p.is_dir() and p.name != current),
        key=lambda p: p.stat().st_mtime_ns,
    )
    return older[-1].name if older else ""


def _prune(base: Path, keep: set[str]) -> None:
    for path in base.iterdir():
        if path.is_dir() and path.name.startswith("g") and path.name not in keep:
            shutil.rmtree(path, ignore_errors=True)
