"""Reading tool calls: every harness's names and arguments, patches, the file after an edit."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cuecard.hooks._tools import after_edit, command_text, patch_files, tool_call


@pytest.mark.parametrize(
    ("name", "args", "tool", "kind", "paths"),
    [
        ("Read", {"file_path": "/r/a.py"}, "read", "read", ["/r/a.py"]),
        ("read", {"filePath": "a.py"}, "read", "read", ["a.py"]),
        ("LS", {"path": "src"}, "list", "read", ["src"]),
        ("Edit", {"file_path": "a.py", "old_string": "x"}, "edit", "edit", ["a.py"]),
        ("MultiEdit", {"file_path": "a.py", "edits": []}, "multiedit", "edit", ["a.py"]),
        ("NotebookEdit", {"notebook_path": "n.ipynb"}, "notebook", "edit", ["n.ipynb"]),
        ("Write", {"file_path": "a.py", "content": "x"}, "write", "write", ["a.py"]),
        ("Grep", {"pattern": "x", "path": "src"}, "grep", "search", ["src"]),
        ("Grep", {"pattern": "x", "glob": "src/app/**/*.py"}, "grep", "search", ["src/app"]),
        ("Glob", {"pattern": "src/**/*.ts"}, "glob", "search", ["src"]),
        ("Glob", {"pattern": "*.py", "path": "lib"}, "glob", "search", ["lib"]),
        ("Glob", {"pattern": "**/*.py"}, "glob", "search", []),
    ],
)  # fmt: skip
def test_tool_calls(
    name: str, args: dict[str, Any], tool: str, kind: str, paths: list[str]
) -> None:
    call = tool_call(name, args)
    assert call is not None
    assert (call.tool, call.kind, call.raw_paths) == (tool, kind, paths)


@pytest.mark.parametrize(
    ("name", "args"),
    [("Task", {"prompt": "x"}), ("WebFetch", {"url": "x"}), ("mcp__a__b", {}), ("Edit", {}),
     ("Bash", {"command": "   "}), ("Read", "a.py"), (None, {}), ("apply_patch", {"command": "x"})],
)  # fmt: skip
def test_calls_that_make_no_event(name: Any, args: Any) -> None:
    assert tool_call(name, args) is None


def test_shell_commands() -> None:
    assert command_text({"command": "ls -la"}) == "ls -la"
    assert command_text({"command": ["bash", "-lc", "make test"]}) == "make test"
    assert command_text({"command": ["git", "status"]}) == "git status"
    assert command_text({"cmd": "pwd"}) == "pwd"
    assert command_text({"command": 3}) == ""


def test_patch_headers() -> None:
    patch = (
        "*** Begin Patch\n*** Add File: src/new.py\n+a = 1\n+b = 2\n"
        "*** Update File: /abs/src/old.py\n@@\n-x\n+y\n*** Move to: src/moved.py\n"
        "*** Delete File: src/gone.py\n*** End Patch\n"
    )
    assert patch_files(patch) == [
        ("src/new.py", "add", "a = 1\nb = 2\n"),
        ("/abs/src/old.py", "update", None),
        ("src/moved.py", "move", None),
        ("src/gone.py", "delete", None),
    ]
    call = tool_call("apply_patch", {"command": patch})
    assert call is not None
    assert call.kind == "edit"
    assert call.added == {"src/new.py": "a = 1\nb = 2\n"}
    only_add = tool_call("apply_patch", patch.split("*** Update")[0] + "*** End Patch\n")
    assert only_add is not None
    assert only_add.kind == "write"


def test_the_file_after_an_edit() -> None:
    edit = tool_call("Edit", {"file_path": "a", "old_string": "b", "new_string": "B"})
    every = tool_call(
        "Edit", {"file_path": "a", "old_string": "b", "new_string": "B", "replace_all": True}
    )
    multi = tool_call(
        "MultiEdit",
        {
            "file_path": "a",
            "edits": [
                {"old_string": "a", "new_string": "x"},
                {"old_string": "x", "new_string": "yy"},
            ],
        },
    )
    missing = tool_call("Edit", {"file_path": "a", "old_string": "zzz", "new_string": "q"})
    write = tool_call("Write", {"file_path": "a", "content": "new"})
    assert edit
    assert every
    assert multi
    assert missing
    assert write
    assert after_edit(edit, "abab", "a") == "aBab"
    assert after_edit(every, "abab", "a") == "aBaB"
    assert after_edit(multi, "abab", "a") == "yybab"
    assert after_edit(missing, "abab", "a") == "abab"  # the tool refuses it: nothing changes
    assert after_edit(write, None, "a") == "new"
    assert after_edit(edit, None, "a") is None  # cannot tell without the file
    assert edit.symbols == ()
    grep = tool_call("Grep", {"pattern": "def charge_customer"})
    assert grep is not None
    assert grep.symbols == ("def", "charge_customer")


@given(
    st.one_of(st.none(), st.text(), st.integers()),
    st.recursive(
        st.none() | st.booleans() | st.text() | st.integers(),
        lambda c: (
            st.lists(c, max_size=3)
            | st.dictionaries(
                st.sampled_from(
                    [
                        "file_path",
                        "filePath",
                        "edits",
                        "command",
                        "pattern",
                        "glob",
                        "path",
                        "content",
                        "old_string",
                        "new_string",
                        "replace_all",
                        "patch",
                    ]
                ),
                c,
                max_size=4,
            )
        ),
        max_leaves=10,
    ),
)
def test_tool_call_never_raises(name: Any, args: Any) -> None:  # fmt: skip
    for tool in (name, "Edit", "MultiEdit", "apply_patch", "Bash", "Grep", "Glob", "Write"):
        call = tool_call(tool, args)
        if call is not None and call.tool in ("edit", "multiedit", "write", "patch"):
            after_edit(call, "text", call.raw_paths[0] if call.raw_paths else "")


# The words an edit or a search names, as a regular expression finds them (the hook finds them
# without compiling one): an ASCII letter, `_` or `$`, then 2 to 63 more of those or digits.
IDENT = r"[A-Za-z_$][A-Za-z0-9_$]{2,63}"
WORDISH = st.text(
    st.sampled_from("abcXYZ_$0189 .-(\u00e9\u4e2d\ud800\n") | st.characters(), max_size=300
)


def symbols_by_pattern(*texts: str) -> tuple[str, ...]:
    seen = dict.fromkeys(w for t in texts for w in re.findall(IDENT, t[:20_000]))
    return tuple(seen)[:48]


@given(WORDISH, WORDISH)
def test_an_edit_names_the_words_a_pattern_finds(old: str, new: str) -> None:
    call = tool_call("Edit", {"file_path": "a.py", "old_string": old, "new_string": new})
    assert call is not None
    assert call.symbols == symbols_by_pattern(old, new)


@pytest.mark.parametrize(
    "text",
    [
        "def charge_customer(amount)",
        "9lives x1 ab abc $el _p 12345abc",
        "a" * 64 + "1bc" + "b" * 70,  # a run longer than a word: cut every 64 characters
        "a" * 130,
        "caf\u00e9_total \u4e2d\u6587abc \ud800xyz",  # not ASCII: a separator
        " ".join(f"w{i:03d}" for i in range(60)),  # at most 48 words
        "x" * 19_998 + " tail_word",  # only the first 20,000 characters are read
    ],
    ids=["code", "digits", "long-run", "two-cuts", "unicode", "many", "past-the-limit"],
)
def test_a_search_names_the_words_a_pattern_finds(text: str) -> None:
    call = tool_call("Grep", {"pattern": text})
    assert call is not None
    assert call.symbols == symbols_by_pattern(text)


@given(st.text())
def test_patch_files_never_raises(text: str) -> None:
    for path, action, _ in patch_files("*** Begin Patch\n" + text):
        assert path
        assert action in {"add", "update", "delete", "move"}
