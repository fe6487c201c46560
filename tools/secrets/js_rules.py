"""Write the DSH plugins' credential rules (``packages/dsh-adapter/js/shared/secrets.js``) from
core's one detector, ``cuecard.core.engine._secrets``.

    python tools/secrets/js_rules.py            # rewrite the module and each plugin's copy
    python tools/secrets/js_rules.py --check    # exit 1 if it is out of date

The plugins redact what they show a second time (a worker's standard error, a line that is not
JSON, a setting's value, what the worker answered) in JavaScript, where core's Python cannot run.
They use the same rules, not a list of their own: every rule of core (the private key block,
the services' token formats, detect-secrets' regexes, the value assigned to a credential's name,
the long hexadecimal string), translated from Python's regular expressions to JavaScript's:
``(?P<name>`` becomes ``(?<name>``, a pattern wrapped whole in ``(?i:…)`` takes the ``i`` flag,
and a part wrapped in ``(?i:…)`` (JavaScript before Node 23 has no scoped flag) spells each
letter in both cases. What the JavaScript side does not repeat is the filtering of placeholders
(core keeps ``AKIA…EXAMPLE``; a second pass may redact it) other than core's reference shapes for
an assigned value. A test runs ``--check``, and the wheel's build of cuecard-dsh-adapter runs it
from a checkout, so the module cannot drift from core's rules unnoticed.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TARGET = ROOT / "packages/dsh-adapter/js/shared/secrets.js"
COPIES = "tools/dsh/plugin_copies.py"

__all__ = ["TARGET", "render", "to_js"]


def _close(pattern: str, start: int) -> int:
    """The index of the parenthesis closing the group that opens at ``start``."""
    depth, i, in_class = 0, start, False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
            if pattern[i + 1 : i + 2] == "]":  # a "]" first in a class is a member
                i += 1
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    raise ValueError(f"unbalanced group at {start} in {pattern!r}")


def _both_cases(part: str) -> str:
    """``part`` matching each letter in either case, without a flag."""
    out, i, in_class = [], 0, False
    while i < len(part):
        c = part[i]
        if c == "\\":
            out.append(part[i : i + 2])
            i += 2
            continue
        if in_class:
            if c == "]":
                in_class = False
                out.append(c)
            elif part[i + 1 : i + 2] == "-" and part[i + 2 : i + 3] not in ("", "]"):
                low, high = c, part[i + 2]
                out.append(f"{low}-{high}")
                if low.isalpha() and high.isalpha():
                    out.append(f"{low.swapcase()}-{high.swapcase()}")
                i += 3
                continue
            else:
                out.append(c + (c.swapcase() if c.isalpha() and c.swapcase() != c else ""))
        elif c == "[":
            in_class = True
            out.append(c)
            if part[i + 1 : i + 2] == "^":
                out.append("^")
                i += 1
        elif c.isalpha() and c.swapcase() != c:
            out.append(f"[{c}{c.swapcase()}]")
        else:
            out.append(c)
        i += 1
    return "".join(out)


def to_js(pattern: str) -> tuple[str, str]:
    """(source, flags) of ``pattern`` for JavaScript's ``RegExp`` (``g`` and ``d`` always)."""
    flags = "dg"
    if pattern.startswith("(?i:") and _close(pattern, 0) == len(pattern) - 1:
        pattern, flags = pattern[4:-1], "dgi"
    pattern = pattern.replace("(?P<", "(?<")
    while (at := pattern.find("(?i:")) >= 0:
        end = _close(pattern, at)
        pattern = pattern[:at] + "(?:" + _both_cases(pattern[at + 4 : end]) + pattern[end:]
    for python_only in ("(?P=", "(?>", "\\A", "\\Z", "(?#", "(?x", "(?s", "(?m", "(?a", "(?u"):
        if python_only in pattern:
            raise ValueError(f"{python_only} has no translation: {pattern!r}")
    return pattern, flags


def render() -> str:
    """The module's text."""
    from cuecard.core.engine import _placeholders, _secrets

    rules = [
        {"name": name, "source": src, "flags": flags, "longest": longest}
        for name, pattern, longest in _secrets._rule_patterns()
        for src, flags in [to_js(pattern)]
    ]
    rules.append({"name": "long hexadecimal secret", **dict(zip(("source", "flags"), to_js(
        _secrets._HEX), strict=True)), "longest": False})  # fmt: skip
    assigned, assigned_flags = to_js(_secrets._ASSIGNED)
    reference, reference_flags = to_js(_placeholders._REFERENCE.pattern)
    data = {
        "rules": rules,
        "assigned": {"source": assigned, "flags": assigned_flags},
        "reference": {"source": reference, "flags": reference_flags.replace("dg", "") + "i"},
        "prose": sorted(_secrets._PROSE),
        "context": _secrets._CONTEXT,
    }
    body = json.dumps(data, indent=1, ensure_ascii=True)
    return (
        "// Generated by tools/secrets/js_rules.py from cuecard-core's credential rules\n"
        "// (cuecard.core.engine._secrets): do not edit; run the script after a change there.\n"
        "// Among them, detect-secrets' regular expressions (https://github.com/Yelp/\n"
        "// detect-secrets, Copyright Yelp, Inc., Apache License 2.0).\n"
        f"export const RULES = {body}\n"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    args = parser.parse_args()
    text = render()
    if args.check:
        if TARGET.read_text(encoding="utf-8") != text:
            print(f"{TARGET.relative_to(ROOT)} is out of date: run {sys.argv[0]}")
            return 1
        return 0
    TARGET.write_text(text, encoding="utf-8")
    # each plugin's copy of it (lib/secrets.js), by the one command that refreshes the copies
    spec = importlib.util.spec_from_file_location("plugin_copies", ROOT / COPIES)
    if spec is None or spec.loader is None:
        raise SystemExit(f"{COPIES} cannot be loaded")
    copies = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(copies)
    return int(copies.main([TARGET.name]))


if __name__ == "__main__":
    sys.exit(main())
