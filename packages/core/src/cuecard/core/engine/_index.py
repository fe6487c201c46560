"""The compiled trigger index in ``.cuecard/local/index/``, read on the hot path.

Standard library only. The compiler (``_compiler``) writes one generation folder and then points
``CURRENT`` at it, so a reader never sees a half-written index. Clauses are bucketed by key in
``buckets.dat`` and memories kept in ``memories.dat`` (hash tables, see ``_table``); an event reads
only the buckets its own keys name:

- ``p:<dir>``  a glob's literal folder prefix (``src/billing/**`` → ``p:src/billing``);
- ``x:<ext>``  a floating glob's extension (``**/*.sql`` → ``x:sql``);
- ``n:<name>`` a floating glob's literal name (``Makefile``, ``docs/``);
- ``c:<word>`` a command pattern's program; ``s:<name>`` a symbol; ``w:<word>`` a keyword;
- ``*``        globs with no literal part (rare; read for every event with paths).

The index is derived and local, but it can be stale or written by something else, so nothing
in it runs as a regular expression: globs go through the linear matcher (``_wildmatch``),
keywords are compared as normalised words (``_words``), commands word by word.
"""

from __future__ import annotations

import json
import os

from cuecard.core.base._confined import Tree
from cuecard.core.engine._table import Table

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence
    from typing import Any

    from cuecard.core.engine._budget import Budget
    from cuecard.core.engine._event import Event

__all__ = [
    "INDEX_DIR",
    "INDEX_VERSION",
    "Index",
    "Match",
    "command_matches",
    "command_problem",
    "command_word_matches",
    "command_words",
    "event_keys",
    "fingerprint",
    "quick_glob_match",
    "source_changed",
]

INDEX_VERSION = 4  # 4: a check with no file event in its triggers judges shell changes too
INDEX_DIR = ".cuecard/local/index"
"""Where the compiled index lives, relative to the project root."""
_MAX_JSON = 64 * 1024 * 1024  # an index file larger than this is not read


def _small_file(tree: Tree, rel: str, limit: int) -> str:
    """The text of a regular index file of at most ``limit`` bytes, reached through plain
    folders; ``OSError`` otherwise (a link, FIFO or device is never opened for reading)."""
    return tree.read_bytes(rel, limit).decode("utf-8")


def fingerprint(root: str) -> list[int]:
    """What a stale index is detected by: the config file and the memories folder."""
    store = os.path.join(root, ".cuecard")
    out: list[int] = [INDEX_VERSION]
    for name in ("config.json", "memories"):
        try:
            st = os.stat(os.path.join(store, name))
            out += [st.st_mtime_ns, st.st_size if name == "config.json" else 0]
        except OSError:
            out += [0, 0]
    return out


def source_changed(root: str, record: dict[str, Any]) -> bool:
    """Whether the memory file a delivery record was compiled from changed since (size or
    modification time): an edit in place leaves the memories folder's own stamp alone."""
    src = record.get("src")
    if not isinstance(src, list) or len(src) != 3:
        return False  # an index compiled before records named their file
    try:
        st = os.stat(os.path.join(root, ".cuecard", "memories", str(src[0])))
    except OSError:
        return True
    return [st.st_mtime_ns, st.st_size] != src[1:]


def _path_keys(path: str, keys: list[str]) -> None:
    parts = path.split("/")
    for i in range(1, len(parts) + 1):
        keys.append("p:" + "/".join(parts[:i]))
    for part in parts:
        keys.append("n:" + part)
        dot = part.rfind(".")
        if 0 <= dot < len(part) - 1:
            keys.append("x:" + part[dot + 1 :])


def event_keys(event: Event) -> list[str]:
    """Every bucket key the event could match, most specific first, without duplicates."""
    keys: list[str] = []
    for path in event.paths:
        _path_keys(path, keys)
    if event.paths:
        keys.append("*")
    for words in event.parts:
        if words:
            keys.append("c:" + os.path.basename(words[0]))
    for symbol in event.symbols:
        keys.append("s:" + symbol)
    if event.prompt:
        keys.extend("w:" + w for w in _prompt_words(event.prompt))
    return list(dict.fromkeys(k.lower() for k in keys))


class Match:
    """A memory whose clause fired, and the dimensions that fired it."""

    __slots__ = ("clause", "dimension", "memory")

    def __init__(self, memory: str, clause: int, dimension: str) -> None:
        self.memory = memory
        self.clause = clause
        self.dimension = dimension

    def __repr__(self) -> str:
        return f"Match({self.memory!r}, {self.clause}, {self.dimension!r})"


_LAST_PROMPT: list[tuple[str, list[str]]] = []


def _prompt_words(prompt: str) -> list[str]:
    """The prompt's normalised words (kept for the last prompt: every clause asks again)."""
    if not _LAST_PROMPT or _LAST_PROMPT[0][0] != prompt:
        from cuecard.core.engine._words import words  # loaded only for a prompt

        _LAST_PROMPT[:] = [(prompt, words(prompt))]
    return _LAST_PROMPT[0][1]


def command_words(command: str) -> list[str]:
    """A command pattern as the matcher compares it: its words, the program by its base name,
    trailing ``/`` dropped from each argument (``build/`` is ``build``)."""
    return _normal_words(command.split())


def _normal_words(words: Sequence[str]) -> list[str]:
    if not words:
        return []
    return [os.path.basename(words[0]) or words[0]] + [w.rstrip("/") or w for w in words[1:]]


def command_problem(pattern: str) -> str | None:
    """Why a command pattern can never fire, or ``None``. An event holds each simple command
    of a line as the shell classifier reads it (split at ``&&``, ``|`` and ``;``, quotes and
    redirections removed, ``sudo``, ``env`` and ``VAR=`` prefixes dropped), so a pattern the
    classifier reads differently never equals one."""
    from cuecard.core.engine.shell._classifier import classify

    want = command_words(pattern)
    if not want:
        return "is empty"
    parts = classify(pattern).parts
    if len(parts) != 1:
        return "holds several commands; each simple command of a line is matched on its own"
    seen = _normal_words(parts[0])
    if seen != want:
        shown = " ".join(seen)
        return f'reads as "{shown}" to the hook, so a command never matches it as written'
    return None


def command_word_matches(pattern: str, word: str) -> bool:
    """Whether one argument of a command matches a pattern word: equal once trailing ``/`` are
    dropped, or, for a pattern word ending in ``*``, starting with the rest of it."""
    word = word.rstrip("/") or word
    if pattern.endswith("*"):
        return word.startswith(pattern[:-1])
    return word == pattern


def command_matches(pattern: list[str], words: Sequence[str]) -> bool:
    """Whether a compiled command pattern (``_compiler.command_words``) matches the words of
    one simple command: the program by base name, then each pattern word in turn."""
    if len(words) < len(pattern) or not words or not pattern:
        return False
    if os.path.basename(words[0]) != pattern[0]:
        return False
    return all(command_word_matches(p, w) for p, w in zip(pattern[1:], words[1:], strict=False))


def _has_run(needle: list[str], haystack: list[str]) -> bool:
    """Whether ``needle`` occurs in ``haystack`` as consecutive words."""
    size = len(needle)
    return size > 0 and any(
        haystack[i : i + size] == needle for i in range(len(haystack) - size + 1)
    )


def _under(prefix: str, folder: str) -> bool:
    """Whether a glob's literal folder ``prefix`` lies in (or is) the searched ``folder``."""
    return bool(prefix) and (prefix + "/").startswith(folder.rstrip("/") + "/")


_WILD = frozenset("*?[\\\n")


def _plain(text: str) -> bool:
    """A literal run of path segments: no wildcard, escape or newline, no empty segment."""
    return bool(text) and _WILD.isdisjoint(text) and "//" not in text and text[-1] != "/"


def quick_glob_match(glob: str, path: str) -> bool | None:
    """``_wildmatch.glob_matches(glob, path)`` for the usual shapes of a trigger glob, by string
    tests, or ``None`` for any other glob (or a path with a newline or a leading or trailing
    ``/``). The shapes: a literal (``a/b.py``; ``b.py`` at any depth), a folder's contents
    (``a/**``, ``**/a/**``), a name (``**/b.py``) and an extension (``**/*.py``) at any depth.
    The hook then need not import and compile the glob matcher; a property test holds the
    answers to the matcher's (``tests/core/engine/test_wildmatch.py``)."""
    if "\n" in path or path[:1] == "/" or path[-1:] == "/" or glob[:1] in ("", "#", "!", "/"):
        return None
    if glob != glob.rstrip():
        return None
    floating = glob.startswith("**/")
    body = glob[3:] if floating else glob
    under = body.endswith("/**")
    body = body[:-3] if under else body
    if floating and not under and body[:1] == "*" and "/" not in body and _plain(body[1:]):
        return any(segment.endswith(body[1:]) for segment in path.split("/"))  # **/*.py
    if not _plain(body):
        return None
    floating = floating or ("/" not in body and not under)  # gitignore: a name at any depth
    if path.startswith(body) and (
        path[len(body) : len(body) + 1] == "/" if under else path[len(body) :][:1] in ("", "/")
    ):
        return True
    if not floating:
        return False
    needle = "/" + body
    at = path.find(needle, 1)
    while at != -1:
        end = at + len(needle)
        if path[end : end + 1] == "/" or (not under and end == len(path)):
            return True
        at = path.find(needle, at + 1)
    return False


def _glob_hits(entry: list[Any], event: Event, budget: Budget | None) -> bool:
    if budget is None:
        from cuecard.core.engine._budget import Budget

        budget = Budget()
    for item in entry:
        glob, prefix = str(item[0]), str(item[-1])
        for path in event.paths:
            hit = quick_glob_match(glob, path)
            if hit is None:
                hit = budget.match(glob, path)
            if hit:
                return True
            if event.kind == "search" and path:  # a search names a folder as often as a file
                if _under(prefix, path):
                    return True
                folders_only = glob.rstrip(" ").endswith("/")
                if folders_only and budget.match(glob, path, folder=True):
                    return True
    return False


def clause_fires(clause: dict[str, Any], event: Event, budget: Budget | None = None) -> str | None:
    """The dimensions (``paths+commands``…) that fire ``clause`` for ``event``, or ``None``.
    Globs the string tests cannot answer spend ``budget`` (a new one when ``None``)."""
    if event.kind not in clause["on"]:
        return None
    fired = []
    if clause.get("g"):
        if not _glob_hits(clause["g"], event, budget):
            return None
        fired.append("paths")
    if clause.get("cmd"):
        if not any(command_matches(p, w) for p in clause["cmd"] for w in event.parts):
            return None
        fired.append("commands")
    if clause.get("sym"):
        if not set(clause["sym"]) & set(event.symbols):
            return None
        fired.append("symbols")
    if clause.get("kw"):
        said = _prompt_words(event.prompt)
        if not any(_has_run(list(k), said) for k in clause["kw"]):
            return None
        fired.append("keywords")
    return "+".join(fired) or None


class Index:
    """One generation of the compiled index."""

    def __init__(self, tree: Tree, rel: str, meta: dict[str, Any]) -> None:
        self.tree = tree
        self.rel = rel
        self.folder = tree.path(rel)
        self.meta = meta
        self._tables: dict[str, Table | None] = {}

    @classmethod
    def read(cls, root: str) -> Index | None:
        """The current generation, or ``None`` when there is none or it cannot be read."""
        tree = Tree(root)
        try:
            generation = _small_file(tree, f"{INDEX_DIR}/CURRENT", 256).strip()
            if not generation or "/" in generation or generation.startswith("."):
                return None
            rel = f"{INDEX_DIR}/{generation}"
            meta = json.loads(_small_file(tree, f"{rel}/meta.json", _MAX_JSON))
        except (OSError, ValueError):
            return None
        if not isinstance(meta, dict) or meta.get("version") != INDEX_VERSION:
            return None
        return cls(tree, rel, meta)

    def fresh(self, root: str) -> bool:
        return bool(self.meta.get("fingerprint") == fingerprint(root))

    @property
    def delivery_limit(self) -> int:
        return int(self.meta.get("delivery_limit", 10_000))

    def _table(self, name: str) -> Table | None:
        if name not in self._tables:
            try:
                rel = f"{self.rel}/{name}"
                self._tables[name] = Table(self.tree.path(rel), self.tree.open_read(rel))
            except (OSError, ValueError):
                self._tables[name] = None
        return self._tables[name]

    def _bucket(self, key: str) -> list[dict[str, Any]]:
        table = self._table("buckets.dat")
        if table is None:
            return []
        try:
            entries = table.get(key)
        except (OSError, ValueError):
            return []
        return entries if isinstance(entries, list) else []

    def _prefix_keys(self, folder: str) -> Iterator[str]:
        """For a search of a folder: every path bucket that lies under it."""
        try:
            pkeys = json.loads(_small_file(self.tree, f"{self.rel}/pkeys.json", _MAX_JSON))
        except (OSError, ValueError):
            return
        if not isinstance(pkeys, list):
            return
        start = "p:" + folder.rstrip("/").lower() + "/"
        yield from (k for k in pkeys if k.startswith(start))

    def match(self, event: Event, budget: Budget | None = None) -> list[Match]:
        """The clauses that fire for ``event``, one ``Match`` per memory, in bucket order.

        What matching may cost is capped (``_budget.Budget``): a path longer than
        ``PATH_MAX`` is left out, and the globs the string tests cannot answer share a fixed
        number of steps; ``budget.reason()`` then says what was not matched."""
        from cuecard.core.engine._budget import Budget

        budget = Budget() if budget is None else budget
        paths = budget.paths(event.paths)
        if paths != event.paths:
            event = event.replace(paths=paths)
        keys = event_keys(event)
        if event.kind == "search":
            for path in event.paths:
                keys.extend(self._prefix_keys(path))
        found: dict[str, Match] = {}
        seen: set[tuple[str, int]] = set()
        for key in dict.fromkeys(keys):
            for clause in self._bucket(key):
                ident = (clause["m"], clause["c"])
                if ident in seen or clause["m"] in found:
                    continue
                seen.add(ident)
                dimension = clause_fires(clause, event, budget)
                if dimension is not None:
                    found[clause["m"]] = Match(clause["m"], clause["c"], dimension)
        return list(found.values())

    def memory(self, memory_id: str) -> dict[str, Any] | None:
        """The delivery record of one memory (title, body, marks, evidence)."""
        table = self._table("memories.dat")
        try:
            record = table.get(memory_id) if table is not None else None
        except (OSError, ValueError):
            return None
        return record if isinstance(record, dict) else None

    def checks(self) -> dict[str, dict[str, Any]]:
        """The verified checks, by memory id (read only when a check may run)."""
        if not self.meta.get("checks"):
            return {}
        try:
            checks = json.loads(_small_file(self.tree, f"{self.rel}/checks.json", _MAX_JSON))
        except (OSError, ValueError):
            return {}
        return checks if isinstance(checks, dict) else {}
