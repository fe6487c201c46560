"""The vault as the memory tools reach it: through ``cuecard vault …`` and ``cuecard recall``, the
vault's public command-line interface, run in this process by core's CLI entry point.

Every call returns what the command printed; a non-zero exit raises ``VaultCallError`` with the
command's own message, so the model sees why (a missing vault, a refused fact, an unknown note).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from cuecard.core.service._tool_errors import VaultCallError, VaultNotConfigured

# Not `from typing import ...` at run time: the per-call paths stay lean.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "CliRunner",
    "VaultClient",
    "find_project",
    "run_core_cli",
    "session_project",
    "vault_location",
]

CliRunner = Callable[[Sequence[str]], tuple[int, str, str]]
PROJECT_NOTE = "project memory"
"""The ``note`` of a project memory among search results."""


def run_core_cli(argv: Sequence[str]) -> tuple[int, str, str]:
    """Run ``cuecard <argv>`` in this process; return (exit status, stdout, stderr)."""
    from cuecard.core.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as exc:  # argparse refusals
            code = exc.code if isinstance(exc.code, int) else 2
    return code, out.getvalue(), err.getvalue()


def vault_location(vault: str | None, env: Mapping[str, str] | None = None) -> str:
    """Where the vault is, found as ``cuecard vault`` finds it: ``--vault``, ``CUECARD_VAULT``,
    then ``vault`` in the user config file. Raises ``VaultNotConfigured`` when none is set."""
    env = os.environ if env is None else env
    if vault:
        return vault
    if env.get("CUECARD_VAULT"):
        return env["CUECARD_VAULT"]
    import tomllib  # only on this path: it costs the per-call path milliseconds

    base = env.get("XDG_CONFIG_HOME") or str(Path(env.get("HOME") or Path.home()) / ".config")
    config = Path(base) / "cuecard" / "config.toml"
    with contextlib.suppress(OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        value = tomllib.loads(config.read_text(encoding="utf-8")).get("vault")
        if isinstance(value, str) and value.strip():
            return value
    raise VaultNotConfigured(
        'no vault is configured: set CUECARD_VAULT, or `vault = "/path/to/vault"` in '
        f"{config}, or the host's own option (the DSH plugin option `vault`, `cuecard mcp "
        "--vault`); create a vault with `cuecard vault init --vault PATH`"
    )


def find_project(start: Path) -> Path | None:
    """The nearest folder at or above ``start`` holding ``.cuecard/config.json``."""
    for folder in (start, *start.parents):
        if (folder / ".cuecard" / "config.json").is_file():
            return folder
    return None


def session_project(env: Mapping[str, str] | None = None) -> Path | None:
    """The project of the agent's session: the DSH plugins run cuecard from a folder no
    repository controls and name the session folder in ``CUECARD_PROJECT_DIR`` (as data, never
    as a place to import from); without it (an MCP server the harness started in the project),
    the working folder."""
    env = os.environ if env is None else env
    start = env.get("CUECARD_PROJECT_DIR") or ""
    return find_project(Path(start) if os.path.isabs(start) else Path.cwd())


def _message(stderr: str, stdout: str) -> str:
    lines = [line.removeprefix("cuecard: ") for line in stderr.strip().splitlines() if line.strip()]
    return "\n".join(lines[-5:]) or stdout.strip()[-500:] or "the vault command failed"


def _with_json(argv: Sequence[str]) -> list[str]:
    """``argv`` with ``--json`` placed before a ``--`` separator, if there is one."""
    items = list(argv)
    at = items.index("--") if "--" in items else len(items)
    return [*items[:at], "--json", *items[at:]]


class VaultClient:
    """The four operations the tools need, over ``cuecard vault …``."""

    def __init__(self, vault: str | None = None, *, runner: CliRunner = run_core_cli) -> None:
        self._where = ("--vault", vault) if vault else ()
        self._run = runner

    def _call(self, *argv: str) -> str:
        code, out, err = self._run(argv)
        if code != 0:
            raise VaultCallError(_message(err, out))
        return out

    def _json(self, *argv: str) -> dict[str, Any]:
        out = self._call(*_with_json(argv))
        try:
            value = json.loads(out)
        except json.JSONDecodeError:
            raise VaultCallError(f"`cuecard {argv[0]} {argv[1]}` did not print JSON") from None
        if not isinstance(value, dict):
            raise VaultCallError(
                f"`cuecard {argv[0]} {argv[1]}` printed JSON that is not an object"
            )
        return value

    def search(self, query: str, limit: int, *, project: Path | None = None) -> str:
        """Ranked results, redacted and wrapped by the vault (and the project, inside one)."""
        if project is not None:
            return self._call("recall", "--limit", str(limit), *self._where, "--", query)
        return self._call("vault", "search", "--limit", str(limit), *self._where, "--", query)

    def search_json(self, query: str, limit: int, *, project: Path | None = None) -> dict[str, Any]:
        """``{"results": [{note, id, text, score}, …]}``: the vault's, and inside a project its
        live memories first (from ``cuecard recall --json``)."""
        if project is None:
            return self._json("vault", "search", "--limit", str(limit), *self._where, "--", query)
        found = self._json("recall", "--limit", str(limit), *self._where, "--", query)
        results = [
            {
                "note": PROJECT_NOTE,
                "id": r.get("id", ""),
                "text": r.get("text", ""),
                "score": r.get("score", 0),
            }
            for r in found.get("project") or []
            if isinstance(r, dict)
        ]
        results += [r for r in found.get("vault") or [] if isinstance(r, dict)]
        return {"query": query, "count": len(results), "results": results}

    def show(self, doc: str) -> str:
        return self._call("vault", "show", *self._where, "--", doc)

    def submit(self, facts: Sequence[str], agent: str) -> dict[str, Any]:
        return self._json("vault", "submit", "--agent", agent, *self._where, "--", *facts)

    def status(self) -> dict[str, Any]:
        return self._json("vault", "status", *self._where)
