"""The per-file compile cache (``local/index/cache.dat``): what each memory file compiled to,
keyed by its name and stamp, so an unchanged file costs no validation at the next compile.

Whatever is not a cache this version wrote, whole, reads as empty: a hostile or torn cache
costs a full compile, never a crash.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from cuecard.core.__about__ import __version__
from cuecard.core.base._confined import Tree
from cuecard.core.engine._index import INDEX_VERSION
from cuecard.core.engine._table import json_string

__all__ = ["MAX_CACHE_BYTES", "compact_json", "read_cache", "write_cache"]

_CACHE_VERSION = f"{INDEX_VERSION}-{__version__}-c4"  # c4: one line per file
_CACHE_MAGIC = b"CUECARD-COMPILE-CACHE-1\n"
MAX_CACHE_BYTES = 256 * 1024 * 1024
"""A compile cache larger than this is not read (10,000 memories make about 10 MB)."""


def compact_json(value: Any) -> str:
    """``value`` as JSON text without spaces, as the cache and the index tables keep it."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def read_cache(tree: Tree, path: str) -> tuple[dict[str, list[Any]], int]:
    """The per-file compile cache at ``path`` of ``tree``: file name → ``[mtime_ns, size,
    sha256, out]``, and the modification time from which an entry's stamp alone does not vouch
    for its content.

    The file is the magic line, the sha256 of the body, then the body: the cache's version, that
    time (nanoseconds), then one line per file, tab-separated (name, stamp, sha256, what the
    file compiled to; JSON text holds no tab or line feed). Whatever is not a cache this version
    wrote, whole (the checksum catches a torn or edited file), reads as empty, and a line of the
    wrong shape is dropped: a hostile cache costs a full compile, never a crash.
    """
    try:
        raw = tree.read_bytes(path, MAX_CACHE_BYTES)
    except OSError:
        return {}, 0
    if not raw.startswith(_CACHE_MAGIC):
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
        fields = [*head, "m", out["id"], out["record"], compact_json(extra) if extra else "-"]
        for text, keys in out["clauses"]:
            joined = "\x1f".join(keys)
            if not keys or joined.count("\x1f") != len(keys) - 1:
                return None
            fields += (text, joined)
    line = "\t".join(fields)
    return line if line.count("\t") == len(fields) - 1 and "\n" not in line else None


def write_cache(tree: Tree, path: str, files: dict[str, list[Any]], *, racy_from: int) -> None:
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
    # one, which the checksum catches. Never through a link planted there: the layer removes a
    # link as a link and creates the file with O_EXCL; another writer that came first wins.
    tree.remove(path)
    tree.create(path, head + body)
