"""Shell programs: which programs read, search or run, and the wrappers that run others.

:func:`_command` finds a program's handler in the :data:`_HANDLERS` table (any other program is a
``run``); :func:`_unwrap` drops leading assignments and wrappers (``sudo``, ``env``, ``time``, …).
Programs with rules of their own live here too: xargs, sed, awk, jq (a ``run`` when their script
may write a file or run a command) and git (which verbs only read, how operands name revisions
and paths). Standard library only.
"""

from __future__ import annotations

import re

from cuecard.core.engine.shell._operands import (
    _ACK_LONG,
    _AG_LONG,
    _GREP_LONG,
    _NONE,
    _RG_LONG,
    _WINDOWS,
    _candidate,
    _fd,
    _find,
    _limited,
    _mutator,
    _neutral,
    _operands,
    _pathlike,
    _reader,
    _Result,
    _run,
    _searcher,
)
from cuecard.core.engine.shell._tokens import Token

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cuecard.core.engine.shell._operands import _Handler

_ASSIGN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\+?=")
_REV = re.compile(
    r"^(?:HEAD|FETCH_HEAD|ORIG_HEAD|MERGE_HEAD|@)(?:[~^].*)?$|^[^./][^/]*\.\.|[~^]|@\{"
    r"|^[0-9a-f]{7,40}$|^(?:refs|origin|upstream)/"
)
_AWK_UNSAFE = re.compile(r"\bsystem\s*\(|\|\s*&|\|\s*getline|\bprintf?\b[^;{}\n]*[>|]")
_AWK_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')
_SHELL_VAR = re.compile(r"\$\{[^}]*\}|\$[A-Za-z_][A-Za-z0-9_]*|\$[0-9]")

# --- wrappers --------------------------------------------------------------------------------

_WRAPPERS: dict[str, tuple[str, frozenset[str], int, frozenset[str]]] = {
    # name: (short options taking a value, long ones, leading operands, options making a run)
    "sudo": (
        "ugpCDrtTU",
        frozenset({"--user", "--group", "--prompt", "--chdir", "--role"}),
        0,
        frozenset({"-D", "--chdir"}),
    ),
    "doas": ("uC", _NONE, 0, _NONE),
    "env": (
        "uCS",
        frozenset({"--unset", "--chdir", "--split-string"}),
        0,
        frozenset({"-S", "--split-string", "-C", "--chdir"}),
    ),
    "time": ("fo", frozenset({"--format", "--output"}), 0, frozenset({"-o", "--output"})),
    "nohup": ("", _NONE, 0, _NONE),
    "builtin": ("", _NONE, 0, _NONE),
    "command": ("", _NONE, 0, _NONE),
    "exec": ("a", _NONE, 0, _NONE),
    "nice": ("n", frozenset({"--adjustment"}), 0, _NONE),
    "timeout": ("sk", frozenset({"--signal", "--kill-after"}), 1, _NONE),
    "stdbuf": ("ioe", frozenset({"--input", "--output", "--error"}), 0, _NONE),
    "ionice": ("cnp", frozenset({"--class", "--classdata", "--pid"}), 0, _NONE),
}


def _unwrap(words: list[Token]) -> tuple[list[Token], bool]:
    """Drop leading assignments and wrappers; say whether a wrapper option makes it a run."""
    k, forced = 0, False
    while True:
        while k < len(words) and _ASSIGN.match(words[k].text):
            k += 1
        if k >= len(words) or words[k].text not in _WRAPPERS:
            return words[k:], forced
        name = words[k].text
        short, long, operands, runs = _WRAPPERS[name]
        if name == "command" and k + 1 < len(words) and words[k + 1].text in ("-v", "-V"):
            return words[k:], forced
        k += 1
        while k < len(words) and words[k].text.startswith("-") and words[k].text != "-":
            opt = words[k].text
            k += 1
            if opt == "--":
                break
            forced |= opt.split("=")[0] in runs or opt[:2] in runs
            if opt in long or (len(opt) == 2 and opt[1] in short):
                k += 1
        k += operands
        if k >= len(words) and name in ("sudo", "doas"):
            forced = True


# --- programs with rules of their own ------------------------------------------------------


def _xargs(argv: list[Token]) -> _Result:
    """xargs runs its command with more operands: always a run, naming what that command names."""
    k = 1
    while k < len(argv) and argv[k].text.startswith("-"):
        opt = argv[k].text
        k += 1
        if opt == "--":
            break
        if (len(opt) == 2 and opt[1] in "IaEdLnPs") or opt in _XARGS_LONG:
            k += 1
    found = _command(argv[k].text.rsplit("/", 1)[-1], argv[k:]) if k < len(argv) else _Result()
    found.kind, found.implicit_dir = "run", False
    return found


_XARGS_LONG = frozenset({"--arg-file", "--delimiter", "--max-args", "--max-procs", "--max-lines"})


def _sed(argv: list[Token]) -> _Result:
    opts, ops, _ = _operands(argv[1:], "efl", frozenset({"--expression", "--file"}))
    names = {n for n, _ in opts}
    scripts = [v or "" for n, v in opts if n in ("-e", "--expression")]
    if not scripts and not names & {"-f", "--file"} and ops:
        script = ops.pop(0)
        scripts.append(_SHELL_VAR.sub("0", script.text) if script.expands else script.text)
    found = _Result("read", [_candidate(w) for w in ops])
    if names & {"-i", "--in-place", "-f", "--file"} or any(map(_sed_writes, scripts)):
        found.kind = "run"
    return found


def _sed_writes(script: str) -> bool:
    """Whether a sed script may write a file or run a command (``w``, ``W``, ``e``, ``s///w``)."""
    i, n = 0, len(script)
    while i < n:
        c = script[i]
        if c in " \t\n;{}!,0123456789$~+":
            i += 1
        elif c in "/\\":
            delim = script[i + 1 : i + 2] if c == "\\" else "/"
            i = _sed_skip(script, i + 1 + (c == "\\"), delim)
            while i < n and script[i] in "IM":
                i += 1
        elif c in "sy":
            delim = script[i + 1 : i + 2]
            if not delim or delim in "\\\n":
                return True
            i = _sed_skip(script, _sed_skip(script, i + 2, delim), delim)
            flags_end = i
            while flags_end < n and script[flags_end] not in ";\n}":
                flags_end += 1
            if c == "s" and ("w" in script[i:flags_end] or "e" in script[i:flags_end]):
                return True
            i = flags_end
        elif c in "aicrRbtT:#":
            end = script.find("\n", i)
            if c in "rRbtT" and 0 <= script.find(";", i) < (end if end >= 0 else n):
                end = script.find(";", i)
            i = n if end < 0 else end
        elif c in "dDgGhHnNpPqQlLxz=Fv":
            i += 1
        else:
            return True  # w, W, e and anything unknown
    return False


def _sed_skip(script: str, i: int, delim: str) -> int:
    """The index after the next unescaped ``delim`` from ``i``."""
    while i < len(script):
        if script[i] == "\\":
            i += 2
        elif script[i] == delim:
            return i + 1
        else:
            i += 1
    return i


def _awk(argv: list[Token]) -> _Result:
    opts, ops, _ = _operands(argv[1:], "fvFieEl", frozenset({"--file", "--assign", "--source"}))
    names = {n for n, _ in opts}
    programs = [v or "" for n, v in opts if n in ("-e", "--source")]
    if not programs and not names & {"-f", "--file", "-E"} and ops:
        programs.append(ops.pop(0).text)
    files = [_candidate(w) for w in ops if not _ASSIGN.match(w.text)]
    found = _Result("read", files)
    unknown = names & {"-f", "--file", "-i", "--include", "-E", "-l"}
    if unknown or any(_AWK_UNSAFE.search(_AWK_STRING.sub('""', p)) for p in programs):
        found.kind = "run"
    return found


def _jq(argv: list[Token]) -> _Result:
    found, k, has_filter = _Result("read"), 1, False
    while k < len(argv):
        word = argv[k].text
        k += 1
        if word in ("--arg", "--argjson", "--slurpfile", "--rawfile"):
            k += 2
        elif word in ("--indent", "-L"):
            k += 1
        elif word in ("-f", "--from-file"):
            has_filter = True
            k += 1
        elif word in ("--args", "--jsonargs"):
            break
        elif not word.startswith("-") or word == "-":
            if has_filter:
                found.paths.append(_candidate(argv[k - 1]))
            has_filter = True
    return found


# --- git -------------------------------------------------------------------------------------

_GIT_GLOBAL = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env"})
_GIT_LOG = frozenset({"--max-count", "--skip", "--author", "--grep", "--since", "--until"})
_GIT_READS: dict[str, tuple[str, str]] = {
    # verb: (short options taking a value, how operands are read)
    "status": ("", "paths"), "ls-files": ("xX", "paths"), "check-ignore": ("", "paths"),
    "log": ("nSGL", "revs"), "show": ("nSG", "revs"), "diff": ("SGO", "revs"),
    "shortlog": ("n", "revs"), "whatchanged": ("n", "revs"), "cat-file": ("", "revs"),
    "rev-list": ("n", "revs"), "blame": ("LS", "blame"), "annotate": ("LS", "blame"),
    "ls-tree": ("", "tree"), "rev-parse": ("", "none"), "describe": ("", "none"),
    "show-ref": ("", "none"), "for-each-ref": ("", "none"), "merge-base": ("", "none"),
    "name-rev": ("", "none"), "count-objects": ("", "none"), "grep": ("efABCm", "search"),
    "stash": ("", "stash"), "reflog": ("", "stash"), "worktree": ("", "stash"),
}  # fmt: skip
_GIT_READ_SUBVERBS = frozenset({"list", "show"})


def _git(argv: list[Token]) -> _Result:
    k, base, forced = 1, "", False
    while k < len(argv) and argv[k].text.startswith("-"):
        opt = argv[k].text
        k += 1
        if opt in _GIT_GLOBAL and k < len(argv):
            value = argv[k]
            k += 1
            if opt == "-C":
                base = "$" if value.expands or base == "$" else f"{base}{value.text}/"
            forced |= opt == "--config-env" or (opt == "-c" and not value.text.startswith("color."))
    verb = argv[k].text if k < len(argv) else ""
    spec = _GIT_READS.get(verb)
    if spec is None:
        found = _run(argv[k:] if k < len(argv) else argv)
    else:
        found = _git_read(verb, spec, argv[k + 1 :])
    if forced:
        found.kind = "run"
    if base == "$":  # git -C $DIR: later relative paths are unknown, kept as written
        found.paths = [(t, "asis" if m == "rel" else m) for t, m in found.paths]
    elif base:
        found.paths = [(base + t if m == "rel" else t, m) for t, m in found.paths]
        if found.implicit_dir and not found.paths:
            found.paths.append((base, "rel"))
    return found


def _git_read(verb: str, spec: tuple[str, str], args: list[Token]) -> _Result:
    short, style = spec
    long = _GIT_LOG | {"--contents", "--max-depth", "--threads", "--context", "--regexp"}
    opts, ops, before = _operands(args, short, long)
    names = {n for n, _ in opts}
    found = _Result("read")
    if names & {"--output", "-O", "--open-files-in-pager"}:
        found.kind = "run"
    if style == "stash":
        if (ops and ops[0].text not in _GIT_READ_SUBVERBS) or (not ops and verb == "stash"):
            found.kind = "run"
        return found
    if style == "search":
        found.kind = "search" if found.kind == "read" else found.kind
        found.implicit_dir = True
        found.patterns = [v for n, v in opts if n in ("-e", "--regexp") and v]
        if not found.patterns and "-f" not in names and ops:
            found.patterns.append(ops.pop(0).text)
            before = max(before - 1, 0)
    for index, word in enumerate(ops):
        text = word.text
        if style == "none":
            break
        if (
            style == "paths"
            or index >= before
            or word.expands
            or (style == "blame" and index == before - 1)
            or (style == "tree" and index > 0)
        ):
            found.paths.append(_candidate(word))
        elif style in ("revs", "search") and ":" in text and not _WINDOWS.match(text):
            path = text.partition(":")[2]
            if path and not path.startswith("/"):
                found.paths.append((path, "rel" if path.startswith(("./", "../")) else "root"))
        elif style in ("revs", "search") and _REV.search(text):
            continue
        elif style == "search" or _pathlike(text):
            found.paths.append(_candidate(word))
    return found


# --- the table -------------------------------------------------------------------------------

_HANDLERS: dict[str, _Handler] = {
    "git": _git,
    "find": _find,
    "fd": _fd,
    "fdfind": _fd,
    "sed": _sed,
    "gsed": _sed,
    "awk": _awk,
    "gawk": _awk,
    "mawk": _awk,
    "nawk": _awk,
    "jq": _jq,
    "xargs": _xargs,
    "grep": _searcher("efmABCdD", _GREP_LONG, frozenset({"-e", "--regexp"}), frozenset({"-f"})),
    "rg": _searcher(
        "efgtTmABCMjdEr",
        _RG_LONG,
        frozenset({"-e", "--regexp"}),
        frozenset({"-f", "--file", "--files", "--type-list"}),
    ),
    "ag": _searcher("ABCGgmpW", _AG_LONG, frozenset({"-g"}), _NONE),
    "ack": _searcher("ABCm", _ACK_LONG, frozenset({"--match"}), frozenset({"-f"})),
    "cat": _reader(),
    "tac": _reader(),
    "nl": _reader("bdfhilnpsvw"),
    "head": _reader("nc", frozenset({"--lines", "--bytes"})),
    "tail": _reader("ncs", frozenset({"--lines", "--bytes", "--pid", "--sleep-interval"})),
    "less": _reader("bhjkpPtTxyz"),
    "more": _reader("n"),
    "wc": _reader(),
    "file": _reader("fFmP"),
    "stat": _reader("c", frozenset({"--format", "--printf"})),
    "du": _reader("dBt", frozenset({"--max-depth", "--exclude", "--block-size"}), listing=True),
    "bat": _reader("lmrH", frozenset({"--language", "--line-range", "--style", "--theme"})),
    "batcat": _reader("lmrH", frozenset({"--language", "--line-range", "--style", "--theme"})),
    "diff": _reader("CFILSUWxX", frozenset({"--label", "--exclude", "--unified", "--context"})),
    "cmp": _reader("in", frozenset({"--ignore-initial", "--bytes"})),
    "readlink": _reader(),
    "realpath": _reader("", frozenset({"--relative-to", "--relative-base"})),
    "ls": _reader("ITw", frozenset({"--ignore", "--hide", "--width", "--format"}), listing=True),
    "tree": _limited("LIPoHT", frozenset({"--filelimit", "--charset"}), frozenset({"-o"})),
    "sort": _limited("oktST", frozenset({"--output", "--key"}), frozenset({"-o", "--output"})),
    "uniq": _limited("fsw", frozenset(), frozenset(), outputs=1),
    "xxd": _limited("cglnosC", frozenset(), frozenset(), outputs=1),
    "cut": _reader("bcdf", frozenset({"--bytes", "--characters", "--delimiter", "--fields"})),
    "strings": _reader("nt"),
    "od": _reader("AjNtw"),
    "hexdump": _reader("enosC"),
    "column": _reader("stcNoW"),
    "rev": _reader(),
    "fold": _reader("w"),
    "md5sum": _reader(),
    "sha1sum": _reader(),
    "sha256sum": _reader(),
    "sha512sum": _reader(),
    "cksum": _reader(),
    "tr": _neutral,
    "rm": _mutator(""),
    "rmdir": _mutator(""),
    "mv": _mutator("tS"),
    "cp": _mutator("tS"),
    "ln": _mutator("tS"),
    "touch": _mutator("dtr"),
    "mkdir": _mutator("m"),
    "tee": _mutator(""),
    "truncate": _mutator("sr"),
    "install": _mutator("mgoStT"),
    "unlink": _mutator(""),
    "shred": _mutator("nsu"),
    "chmod": _mutator("", skip=1),
    "chown": _mutator("", skip=1),
    "chgrp": _mutator("", skip=1),
}
_HANDLERS.update({name: _HANDLERS["grep"] for name in ("egrep", "fgrep", "zgrep")})
_NEUTRAL = "echo printf true false : pwd cd pushd popd test [ [[ (( which type basename dirname"
_NEUTRAL += " date whoami uname printenv id hostname sleep seq expr read exit return set export"
_NEUTRAL += " unset shopt local declare typeset readonly shift nproc tty wait alias command"
_HANDLERS.update({name: _neutral for name in _NEUTRAL.split()})


def _command(name: str, argv: list[Token]) -> _Result:
    if name.startswith("(("):
        return _Result("read")
    return _HANDLERS.get(name, _run)(argv)
