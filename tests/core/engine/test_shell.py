"""The shell-command classifier: read, search or run, with the paths, parts and patterns it names.

The table is the specification: add a row with ``case(id, command, kind, paths, parts=…,
patterns=…)``; ``parts`` and ``patterns`` are checked only when given.
"""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cuecard.core.engine.shell._classifier import Classified, Token, classify, tokenize


def case(
    id: str,
    command: str,
    kind: str,
    paths: list[str] | tuple[str, ...] = (),
    *,
    parts: list[tuple[str, ...]] | None = None,
    patterns: list[str] | None = None,
) -> Any:
    return pytest.param(command, kind, tuple(paths), parts, patterns, id=id)


READS = [
    case("cat", "cat README.md", "read", ["README.md"], parts=[("cat", "README.md")]),
    case("cat-many", "cat a.txt b.txt", "read", ["a.txt", "b.txt"]),
    case("head-n", "head -n 5 src/app.py", "read", ["src/app.py"]),
    case("head-number", "head -20 log.txt", "read", ["log.txt"]),
    case("tail-follow", "tail -f -n 100 logs/app.log", "read", ["logs/app.log"]),
    case("less-plus", "less +G notes.md", "read", ["notes.md"]),
    case("wc-glob", "wc -l src/*.py", "read", ["src/*.py"]),
    case("ls-dir", "ls -la src/", "read", ["src"]),
    case("ls-bare", "ls", "read", []),
    case("tree", "tree -L 2 packages", "read", ["packages"]),
    case("stat-format", "stat -c %s a.bin", "read", ["a.bin"]),
    case("du", "du -sh node_modules", "read", ["node_modules"]),
    case("file", "file image.png", "read", ["image.png"]),
    case("bat-range", "bat --line-range 1:20 src/main.rs", "read", ["src/main.rs"]),
    case("nl", "nl -ba script.sh", "read", ["script.sh"]),
    case("diff", "diff -u old.txt new.txt", "read", ["old.txt", "new.txt"]),
    case("cmp", "cmp a.bin b.bin", "read", ["a.bin", "b.bin"]),
    case("readlink", "readlink -f ./link", "read", ["link"]),
    case("realpath", "realpath --relative-to=src src/a/b.py", "read", ["src/a/b.py"]),
    case("jq", "jq -r '.name' package.json", "read", ["package.json"]),
    case("jq-arg", "jq --arg v 1 '.a' in.json", "read", ["in.json"]),
    case("sort-uniq", "sort -k2 data.txt | uniq -c", "read", ["data.txt"]),
    case("echo", "echo hello", "read", [], parts=[("echo", "hello")]),
    case("neutral-list", "pwd; true; printf '%s\\n' x", "read", []),
    case("input-redirect", "wc -l < data.csv", "read", ["data.csv"]),
]

SED_AWK = [
    case("sed-n", "sed -n '1,5p' f.txt", "read", ["f.txt"], parts=[("sed", "-n", "1,5p", "f.txt")]),
    case("sed-subst-stdout", "sed 's/a/b/g' in.txt", "read", ["in.txt"]),
    case("sed-range-regex", "sed -n '/start/,/end/p' log", "read", ["log"]),
    case("sed-shell-vars", 'sed -n "${start},${end}p" big.log', "read", ["big.log"]),
    case("sed-i", "sed -i 's/a/b/' f.txt", "run", ["f.txt"]),
    case("sed-i-suffix", "sed -i.bak -e 's/a/b/' f.txt", "run", ["f.txt"]),
    case("sed-ni-cluster", "sed -ni p f", "run", ["f"]),
    case("sed-in-place-long", "sed --in-place=.orig 's/x/y/' f", "run", ["f"]),
    case("sed-s-w-flag", "sed -n 's/x/y/w out.txt' f", "run", ["f"]),
    case("sed-w-command", "sed -n '/err/w errors.txt' log", "run", ["log"]),
    case("sed-e-command", "sed '1e date' f", "run", ["f"]),
    case("sed-script-file", "sed -f script.sed in.txt", "run", ["in.txt"]),
    case("awk-print", "awk -F, '{print $2}' data.csv", "read", ["data.csv"]),
    case("awk-pipe-in-string", "awk '{print $1 \"|\" $2}' t.tsv", "read", ["t.tsv"]),
    case("awk-comparison", "awk '$3 > 5 {print}' t.tsv", "read", ["t.tsv"]),
    case("awk-redirect", "awk '{print > \"out.txt\"}' in", "run", ["in"]),
    case("awk-system", "awk '{system(\"rm \" $1)}' list", "run", ["list"]),
    case("awk-getline-cmd", "awk 'BEGIN {\"date\" | getline d}'", "run", []),
    case("awk-assign-operand", "awk -v n=1 '{print n}' x=2 file.txt", "read", ["file.txt"]),
    case("awk-program-file", "awk -f prog.awk data", "run", ["data"]),
]

REDIRECTIONS = [
    case("echo-to-file", "echo hi > notes.txt", "run", ["notes.txt"]),
    case("append", "echo hi >> notes.txt", "run", ["notes.txt"]),
    case("stderr-devnull", "cat missing.txt 2>/dev/null", "read", ["missing.txt"]),
    case("stderr-to-stdout", "cat a.txt 2>&1 | head", "read", ["a.txt"]),
    case("both-devnull", "ls src &>/dev/null", "read", ["src"]),
    case("to-stderr", "echo oops >&2", "read", []),
    case("stderr-to-file", "cat a 2>err.log", "run", ["a", "err.log"]),
    case("clobber", "cat a >| b", "run", ["a", "b"]),
    case("read-write", "cat <> f", "run", ["f"]),
    case("redirect-only", "> empty.txt", "run", ["empty.txt"], parts=[]),
    case("exec-fd", "exec 3>log.txt", "run", ["log.txt"]),
    case("sort-output", "sort -o sorted.txt data.txt", "run", ["data.txt", "sorted.txt"]),
    case("uniq-output", "uniq in.txt out.txt", "run", ["in.txt", "out.txt"]),
    case("tree-output", "tree -o out.txt .", "run", [".", "out.txt"]),
    case("tee", "echo hi | tee out.log", "run", ["out.log"]),
    case("subshell-redirect", "(cat a; cat b) > c", "run", ["a", "b", "c"]),
    case("loop-redirect", "for f in a b; do cat $f; done > all.txt", "run", ["$f", "all.txt"]),
]

GIT = [
    case("status", "git status --short", "read", [], parts=[("git", "status", "--short")]),
    case("log-path", "git log --oneline -- src/app.py", "read", ["src/app.py"]),
    case("log-n", "git log -n 5 --stat", "read", []),
    case("show-rev-path", "git show HEAD~2:src/x.py", "read", ["src/x.py"]),
    case("show-index-path", "git show :README.md", "read", ["README.md"]),
    case("show-sha", "git show 3f2a9c1", "read", []),
    case("diff-dashdash", "git diff a b -- p", "read", ["p"]),
    case("diff-range-path", "git diff main..feature src/mod.py", "read", ["src/mod.py"]),
    case("diff-cached", "git diff --cached", "read", []),
    case("diff-remote-range", "git diff --name-only origin/main...HEAD", "read", []),
    case("diff-output-file", "git diff --output=patch.diff", "run", []),
    case("blame", "git blame -L 10,20 HEAD~1 src/a.py", "read", ["src/a.py"]),
    case("ls-files", "git ls-files '*.py' docs", "read", ["*.py", "docs"]),
    case("commit", 'git commit -m "fix x.py"', "run", []),
    case("add", "git add src/a.py docs/", "run", ["src/a.py", "docs"]),
    case("push", "git push origin main", "run", []),
    case("dash-C", "git -C packages/core log -- src", "read", ["packages/core/src"]),
    case("dash-c-pager", "git -c core.pager='rm -rf /' log", "run", []),
    case("dash-c-color", "git -c color.ui=always status", "read", []),
    case("stash-list", "git stash list", "read", []),
    case("stash-push", "git stash", "run", []),
    case("show-root-relative", "cd sub && git show HEAD:x.py", "read", ["x.py"]),
    case("bare-git", "git", "run", []),
    case("grep", "git grep -n TODO -- src", "search", ["src"], patterns=["TODO"]),
    case("grep-e-rev", "git grep -e foo -e bar HEAD", "search", [], patterns=["foo", "bar"]),
    case("grep-pager", "git grep -O foo", "run", [], patterns=["foo"]),
]

SEARCHES = [
    case("grep-r", 'grep -rn "foo bar" src/', "search", ["src"], patterns=["foo bar"]),
    case("grep-then-head", "grep x f | head", "search", ["f"], patterns=["x"]),
    case("grep-e", "grep -e foo -e bar f1 f2", "search", ["f1", "f2"], patterns=["foo", "bar"]),
    case("grep-f", "grep -f pats.txt log.txt", "search", ["log.txt"], patterns=[]),
    case("grep-context", "grep -A 3 -B2 error app.log", "search", ["app.log"], patterns=["error"]),
    case("egrep", "egrep 'a|b' *.log", "search", ["*.log"], patterns=["a|b"]),
    case(
        "grep-include", "grep -r --include=*.py -l import .", "search", ["."], patterns=["import"]
    ),
    case("rg", 'rg -t py "def main" src tests', "search", ["src", "tests"], patterns=["def main"]),
    case("rg-files", "rg --files src", "search", ["src"], patterns=[]),
    case("rg-pre", "rg --pre ./decompress foo", "run", [], patterns=["foo"]),
    case("ag", "ag -G '\\.js$' require lib", "search", ["lib"], patterns=["require"]),
    case("ack-match", "ack --match foo bar.txt", "search", ["bar.txt"], patterns=["foo"]),
    case("find", "find src -name '*.py' -type f", "search", ["src"], patterns=["*.py"]),
    case(
        "find-two-roots",
        "find src tests -iname 'test_*' -o -path '*/fixtures/*'",
        "search",
        ["src", "tests"],
        patterns=["test_*", "*/fixtures/*"],
    ),
    case("find-options", "find -L . -maxdepth 2 -newer ref.txt", "search", ["."], patterns=[]),
    case("find-exec", "find . -name '*.tmp' -exec rm {} \\;", "run", ["."], patterns=["*.tmp"]),
    case("find-delete", "find . -name '*.pyc' -delete", "run", ["."]),
    case("find-fprint", "find . -fprint out.txt", "run", ["."]),
    case("find-bare", "find", "search", []),
    case("fd", "fd -e py test src", "search", ["src"], patterns=["test"]),
    case("fd-exec", "fd -x rm", "run", []),
    case("search-then-read", "grep -q x f && cat f", "search", ["f"], patterns=["x"]),
    case("grep-xargs-sed", "grep -rl foo . | xargs sed -i s/foo/bar/", "run", ["."]),
    case(
        "find-xargs-grep",
        "find . -name '*.md' | xargs grep -l TODO",
        "run",
        ["."],
        patterns=["*.md", "TODO"],
    ),
    case("here-string", 'grep foo <<< "$text"', "search", [], patterns=["foo"]),
]

CD = [
    case("cd-and", "cd docs && cat api.md", "read", ["docs/api.md"]),
    case("cd-chain", "cd a && cd b && cat c", "read", ["a/b/c"]),
    case("cd-semicolon", "cd a; cat b", "read", ["a/b"]),
    case("cd-subshell", "(cd a && cat b); cat c", "read", ["a/b", "c"]),
    case("cd-brace-group", "{ cd a; cat b; }; cat c", "read", ["a/b", "a/c"]),
    case("cd-dash", "cd - && cat x", "read", ["x"]),
    case("cd-home", "cd && cat ./x", "read", ["./x"]),
    case("cd-var", "cd $X && cat y/../z", "read", ["y/../z"]),
    case("cd-tilde", "cd ~/proj && cat a.md", "read", ["a.md"]),
    case(
        "cd-absolute", "cd /srv/app && cat config/../settings.py", "read", ["/srv/app/settings.py"]
    ),
    case("cd-unknown-then-absolute", "cd ~ && cd /etc && cat hosts", "read", ["/etc/hosts"]),
    case("cd-dotdot", "cd src/pkg && cat ../README.md", "read", ["src/README.md"]),
    case("cd-up-and-back", "cd a && cd .. && cat x", "read", ["x"]),
    case("cd-in-pipeline", "cd a | cat b", "read", ["b"]),
    case("cd-in-substitution", "echo $(cd a); cat b", "read", ["b"]),
    case("cd-ls", "cd src && ls", "read", ["src"]),
    case("cd-rg", "cd src && rg foo", "search", ["src"], patterns=["foo"]),
    case("cd-git-grep", "cd pkg && git grep foo", "search", ["pkg"], patterns=["foo"]),
    case("pushd", "pushd lib >/dev/null && cat x.py", "read", ["lib/x.py"]),
    case("cd-options", "cd -P build && cat log", "read", ["build/log"]),
    case("cd-quoted", "cd \"my dir\" && cat 'a b.txt'", "read", ["my dir/a b.txt"]),
    case(
        "cd-then-run",
        "cd api && alembic upgrade head",
        "run",
        [],
        parts=[("cd", "api"), ("alembic", "upgrade", "head")],
    ),
    case("cd-then-write", "cd out && echo x > f.txt", "run", ["out/f.txt"]),
]

PATHS = [
    case("normalise", "cat a/./b a/../c ./d", "read", ["a/b", "c", "d"]),
    case("absolute", "cat /etc/hosts //srv//x", "read", ["/etc/hosts", "/srv/x"]),
    case(
        "kept-as-written",
        'cat ~/x $HOME/y "${DIR}/z" src/*.py',
        "read",
        ["~/x", "$HOME/y", "${DIR}/z", "src/*.py"],
    ),
    case(
        "windows",
        "cat \"C:\\Users\\me\\x.txt\" 'D:/repo/./a.md'",
        "read",
        ["C:/Users/me/x.txt", "D:/repo/a.md"],
    ),
    case("windows-escaped", "cat C:\\\\x\\\\y.txt", "read", ["C:/x/y.txt"]),
    case("dedupe", "cat a a ./a", "read", ["a"]),
    case("options-not-paths", "cat -n -- -weird.txt", "read", ["-weird.txt"]),
    case("stdin-dash", "cat - a", "read", ["a"]),
]

QUOTING = [
    case("single-quoted", "cat 'my file.txt'", "read", ["my file.txt"]),
    case("double-quoted", 'cat "dir name/f.md"', "read", ["dir name/f.md"]),
    case("escaped-space", "cat my\\ file.txt", "read", ["my file.txt"]),
    case("ansi-c", "cat $'tab\\there'", "read", ["tab\there"]),
    case("ansi-c-hex", "cat $'\\x41.md'", "read", ["A.md"]),
    case(
        "quoted-operators",
        "grep 'a && b; c | d > e' f",
        "search",
        ["f"],
        patterns=["a && b; c | d > e"],
    ),
    case("quoted-redirect", "echo '> not a file'", "read", []),
    case("escaped-redirect", "echo \\> f", "read", [], parts=[("echo", ">", "f")]),
    case("quoted-command", "'cat' f", "read", ["f"]),
    case("alias-bypass", "\\cat f", "read", ["f"]),
    case("full-path-program", "/bin/cat f", "read", ["f"], parts=[("/bin/cat", "f")]),
    case("line-continuation", "cat \\\n  a.txt", "read", ["a.txt"]),
    case("comment", "cat a # ; rm -rf /", "read", ["a"]),
    case("hash-in-word", "echo a#b", "read", [], parts=[("echo", "a#b")]),
    case("dq-escapes", 'echo "a \\"b\\" \\$c"', "read", [], parts=[("echo", 'a "b" $c')]),
    case("empty-arg", "cat '' a", "read", ["a"]),
]

COMPOUND = [
    case("pipe-to-python", "cat f | python", "run", ["f"]),
    case("or", "test -f x || echo missing", "read", []),
    case("if", "if grep -q x f; then cat f; fi", "search", ["f"], patterns=["x"]),
    case("for", 'for f in *.py; do wc -l "$f"; done', "read", ["$f"]),
    case("while-read", 'while read -r l; do echo "$l"; done < list.txt', "read", ["list.txt"]),
    case("background", "cat a & cat b", "read", ["a", "b"]),
    case("double-bracket", '[[ -f x && -n "$y" ]] && cat x', "read", ["x"]),
    case("arithmetic", "(( n > 2 )) && cat x", "read", ["x"]),
    case("function", "f() { rm -rf build; }; f", "run", ["build"]),
    case("case", "case $x in a) cat a;; esac", "run", ["a"]),
    case("newlines", "cat a\ncat b\n", "read", ["a", "b"]),
    case("read-then-rm", "cat a; rm -rf /", "run", ["a", "/"]),
    case("read-and-rm", "cat a && rm b", "run", ["a", "b"]),
    case("negation", "! grep -q x f", "search", ["f"], patterns=["x"]),
    case("timed-subshell", "time (cat a | wc)", "read", ["a"]),
    case("words-before-subshell", "x (cat a)", "run", []),
]

SUBSTITUTIONS = [
    case(
        "read-substitution",
        "echo $(git rev-parse HEAD)",
        "read",
        [],
        parts=[("echo", "$(git rev-parse HEAD)"), ("git", "rev-parse", "HEAD")],
    ),
    case("run-substitution", "echo $(rm -rf x)", "run", ["x"]),
    case(
        "backticks",
        "cat `git ls-files`",
        "read",
        [],
        parts=[("cat", "`git ls-files`"), ("git", "ls-files")],
    ),
    case("nested", "echo $(cat $(ls -d src))", "read", ["src"]),
    case("nested-backticks", "echo `echo \\`rm x\\``", "run", ["x"]),
    case(
        "assignment-substitution",
        "x=$(cat f); echo $x",
        "read",
        ["f"],
        parts=[("cat", "f"), ("echo", "$x")],
    ),
    case("process-substitution", "diff <(sort a) <(sort b)", "read", ["a", "b"]),
    case("dq-substitution-run", 'echo "$(rm x)"', "run", ["x"]),
    case("sq-no-substitution", "echo '$(rm x)'", "read", []),
    case("brace-substitution", 'echo "${x:-$(rm y)}"', "run", ["y"]),
    case("arith-expansion", "cat part$((1+2)).txt", "read", ["part$((1+2)).txt"]),
]

HEREDOCS = [
    case("cat-heredoc-to-file", "cat <<'EOF' > f\nhello\nEOF", "run", ["f"]),
    case("python-heredoc", "python - <<EOF\nprint(1)\nEOF", "run", []),
    case("quoted-body-is-data", "cat <<'EOF'\nrm -rf /\n$(rm x)\nEOF", "read", []),
    case("unquoted-body-substitution", "cat <<EOF\n$(rm -rf x)\nEOF", "run", ["x"]),
    case("after-heredoc", "cat <<EOF\nbody > f\nEOF\ncat after.txt", "read", ["after.txt"]),
    case("dash-heredoc", "cat <<-EOF\n\tbody\n\tEOF\ncat z", "read", ["z"]),
    case("two-heredocs", "cat <<A <<B\na\nA\nb\nB\nrm q", "run", ["q"]),
    case("unterminated-heredoc", "cat <<EOF\nno end", "read", []),
    case("heredoc-in-substitution", "x=$(cat <<EOF\nhi\nEOF\n); echo $x", "read", []),
]

WRAPPERS = [
    case("env-assignments", "FOO=1 BAR=2 cat x", "read", ["x"], parts=[("cat", "x")]),
    case(
        "sudo-env-time",
        "sudo -u root env A=1 time cat /etc/hosts",
        "read",
        ["/etc/hosts"],
        parts=[("cat", "/etc/hosts")],
    ),
    case("nohup-nice-timeout", "nohup nice -n 5 timeout 10 tail -f log.txt", "read", ["log.txt"]),
    case("command-v", "command -v rg", "read", [], parts=[("command", "-v", "rg")]),
    case("command-wrapper", "command rm x", "run", ["x"], parts=[("rm", "x")]),
    case("assignment-only", "X=1", "read", [], parts=[]),
    case("sudo-shell", "sudo -s", "run", []),
    case("env-split-string", "env -S 'cat x'", "run", []),
    case("time-output", "time -o t.txt cat f", "run", ["f"]),
    case(
        "prefix-after-assignment",
        "cd api && DB=x alembic upgrade head",
        "run",
        [],
        parts=[("cd", "api"), ("alembic", "upgrade", "head")],
    ),
    case(
        "bash-c",
        'bash -c "cat x && alembic upgrade head"',
        "run",
        ["x"],
        parts=[
            ("bash", "-c", "cat x && alembic upgrade head"),
            ("cat", "x"),
            ("alembic", "upgrade", "head"),
        ],
    ),
]

RUNS = [
    case("rm", "rm -rf build dist/", "run", ["build", "dist"]),
    case("mv", "mv a.txt b/", "run", ["a.txt", "b"]),
    case("cp-target", "cp -t dest/ a b", "run", ["a", "b", "dest"]),
    case("chmod", "chmod +x scripts/run.sh", "run", ["scripts/run.sh"]),
    case("pytest-node", "pytest tests/test_a.py::test_x -q", "run", ["tests/test_a.py"]),
    case("make", "make build", "run", [], parts=[("make", "build")]),
    case("npm", "npm run lint -- --fix", "run", []),
    case("xargs", "git ls-files | xargs wc -l", "run", []),
    case("source", "source .venv/bin/activate && cat x", "run", [".venv/bin/activate", "x"]),
    case("python-script", "python scripts/migrate.py --dry-run", "run", ["scripts/migrate.py"]),
]

HOSTILE = [
    case("empty", "", "run", [], parts=[]),
    case("whitespace", "  \t \n ", "run", []),
    case("comment-only", "# nothing here", "run", []),
    case("unclosed-single", "cat 'oops", "run", ["oops"]),
    case("unclosed-double", 'cat "oops', "run", ["oops"]),
    case("unclosed-substitution", "echo $(cat a", "run", ["a"]),
    case("unclosed-backtick", "cat `ls", "run", []),
    case("unclosed-ansi", "cat $'x", "run", ["x"]),
    case("unclosed-brace", "cat ${x", "run", ["${x"]),
    case("unbalanced-open", "(cat a", "run", ["a"]),
    case("unbalanced-close", "cat a)", "run", ["a"]),
    case("empty-subshell", "()", "run", []),
    case("leading-and", "&& cat a", "run", ["a"]),
    case("double-and", "cat a && && cat b", "run", ["a", "b"]),
    case("trailing-pipe", "cat a |", "run", ["a"]),
    case("nul-byte", "cat a\x00b c", "run", ["c"]),
    case("redirect-without-target", "cat a >", "run", ["a"]),
    case("heredoc-without-delimiter", "cat <<", "run", []),
    case("deep-nesting", "echo " + "$(" * 100 + "cat a" + ")" * 100, "run"),
    case("unclosed-for", "for x in a b", "run", []),
    case("unclosed-double-bracket", "[[ -f x", "run", []),
]

CASES = (
    READS + SED_AWK + REDIRECTIONS + GIT + SEARCHES + CD + PATHS + QUOTING + COMPOUND
    + SUBSTITUTIONS + HEREDOCS + WRAPPERS + RUNS + HOSTILE
)  # fmt: skip


@pytest.mark.parametrize(("command", "kind", "paths", "parts", "patterns"), CASES)
def test_classify(
    command: str,
    kind: str,
    paths: tuple[str, ...],
    parts: list[tuple[str, ...]] | None,
    patterns: list[str] | None,
) -> None:
    got = classify(command)
    assert isinstance(got, Classified)
    assert (got.kind, got.paths) == (kind, paths)
    if parts is not None:
        assert got.parts == tuple(parts)
    if patterns is not None:
        assert got.patterns == tuple(patterns)


def test_the_table_is_large_and_ids_are_unique() -> None:
    ids = [p.id for p in CASES]
    assert len(ids) >= 80
    assert len(set(ids)) == len(ids)


def test_tokenize_words_operators_and_redirections() -> None:
    tokens = tokenize("FOO='a b' cmd \"x $y\" 2>&1 | tail -n1 && echo `date` >> log # c")
    assert [(t.kind, t.text) for t in tokens] == [
        ("word", "FOO=a b"),
        ("word", "cmd"),
        ("word", "x $y"),
        ("redir", "2>&"),
        ("word", "1"),
        ("op", "|"),
        ("word", "tail"),
        ("word", "-n1"),
        ("op", "&&"),
        ("word", "echo"),
        ("word", "`date`"),
        ("redir", ">>"),
        ("word", "log"),
    ]
    assert tokens[2].expands
    assert not tokens[1].expands
    assert [t.text for t in tokens[10].subs[0]] == ["date"]


def test_tokenize_heredoc_body_is_one_data_token() -> None:
    tokens = tokenize("cat <<'EOF' | wc -l\nline 1\n$(rm x)\nEOF\necho done")
    kinds = [(t.kind, t.text) for t in tokens]
    assert ("heredoc", "line 1\n$(rm x)\n") in kinds
    assert kinds[-2:] == [("word", "echo"), ("word", "done")]
    heredoc = next(t for t in tokens if t.kind == "heredoc")
    assert heredoc.subs == ()


def test_tokenize_nests_substitutions() -> None:
    (word,) = tokenize('"$(echo "$(ls \'x y\')")"')
    assert word.text == "$(echo \"$(ls 'x y')\")"
    inner = word.subs[0]
    assert [t.text for t in inner] == ["echo", "$(ls 'x y')"]
    assert [t.text for t in inner[1].subs[0]] == ["ls", "x y"]


@pytest.mark.parametrize(
    "command",
    [
        pytest.param("cat 'x", id="single-quote"),
        pytest.param('cat "x', id="double-quote"),
        pytest.param("echo $(ls", id="substitution"),
        pytest.param("echo `ls", id="backtick"),
        pytest.param("cat a\x00", id="nul"),
    ],
)
def test_tokenize_reports_malformed_input_as_an_error_token(command: str) -> None:
    tokens = tokenize(command)
    assert tokens[-1].kind == "error"
    assert isinstance(tokens[-1], Token)


MEGABYTE = 1_000_000
HUGE = [
    pytest.param("cat " + "a " * (MEGABYTE // 2), "run", id="many-words"),
    pytest.param(
        "cat <<'EOF' > out.txt\n" + "x = $(y)\n" * (MEGABYTE // 9) + "EOF\n",
        "run",
        id="big-heredoc",
    ),
    pytest.param(
        "cat <<'EOF'\n" + "line with $(rm x) | y > z\n" * (MEGABYTE // 26) + "EOF\n",
        "read",
        id="big-quoted-heredoc-read",
    ),
    pytest.param("grep '" + "ab|" * (MEGABYTE // 3) + "' f", "search", id="long-pattern"),
    pytest.param('echo "' + "x" * MEGABYTE + '" > f', "run", id="long-string-write"),
    pytest.param("$(" * (MEGABYTE // 2), "run", id="open-substitutions"),
    pytest.param("`" * MEGABYTE, "run", id="backticks"),
    pytest.param('"' * MEGABYTE, "run", id="double-quotes"),
    pytest.param("(" * MEGABYTE, "run", id="open-parens"),
    pytest.param(")" * MEGABYTE, "run", id="close-parens"),
    pytest.param(";" * MEGABYTE, "run", id="semicolons"),
    pytest.param("\x00" * MEGABYTE, "run", id="nul-bytes"),
    pytest.param("${" * (MEGABYTE // 2), "run", id="open-braces"),
    pytest.param("cd a && " * (MEGABYTE // 8) + "cat b", "run", id="cd-chain"),
    pytest.param("cat a | " * (MEGABYTE // 8) + "cat b", "run", id="long-pipeline"),
    pytest.param("cat " + "<<E " * (MEGABYTE // 4) + "\n", "run", id="many-heredocs"),
]


@pytest.mark.parametrize(("command", "kind"), HUGE)
def test_a_megabyte_of_hostile_text_never_raises(command: str, kind: str) -> None:
    assert classify(command).kind == kind


def test_a_long_cd_chain_makes_the_directory_unknown() -> None:
    got = classify("cd a && " * 2000 + "cat b")
    assert got.paths == ("b",)


SHELL_PIECES = [*"ab /.-~*$`'\"\\|&;()<>{}[]#=!\n\t\x00", "$(", "<<", "EOF", "cd ", "cat "]
SHELLISH = st.lists(st.sampled_from(SHELL_PIECES), max_size=60).map("".join)


@settings(max_examples=400, deadline=None)
@given(st.one_of(st.text(max_size=200), SHELLISH))
def test_random_text_never_raises(command: str) -> None:
    got = classify(command)
    assert got.kind in ("read", "search", "run")
    assert all(isinstance(p, str) and p for p in got.paths)
    assert all(isinstance(t, Token) for t in tokenize(command))


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.sampled_from(["cat a", "rm b", "grep x c", "ls", "echo $(rm d)"]), min_size=1, max_size=6
    ),
    st.sampled_from([" && ", "; ", " | ", "\n"]),
)
def test_a_run_anywhere_makes_the_whole_command_a_run(parts: list[str], sep: str) -> None:
    got = classify(sep.join(parts))
    runs = any("rm" in p for p in parts)
    searches = any(p.startswith("grep") for p in parts)
    assert got.kind == ("run" if runs else "search" if searches else "read")


def test_the_module_imports_only_the_standard_library() -> None:
    code = (
        "import sys; import cuecard.core.engine.shell._classifier as s;"
        "s.classify('cat a | grep b');"
        "heavy = {'pydantic', 'numpy', 'httpx', 're2', 'yaml'} & set(sys.modules);"
        "print(sorted(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
