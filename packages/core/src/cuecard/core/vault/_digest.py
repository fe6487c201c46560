"""Session digest: durable facts drawn from session archives by a model the person configured.

Off by default. A person turns it on in the ``[digest]`` table of the user config:

- ``enabled``: ``true`` to allow ``vault digest`` to send anything (default ``false``).
- ``base_url``: an OpenAI-compatible API root, e.g. ``http://127.0.0.1:11434/v1`` for a model
  on this machine (required when enabled; there is no default endpoint).
- ``model``: the model name the endpoint expects (required when enabled).
- ``api_key_env``: the environment variable holding the key, sent as a bearer token when set
  (default ``CUECARD_DIGEST_API_KEY``; a local endpoint needs none).
- ``max_chars``: at most this many characters of each archive's new text are sent, the last
  ones (100-200000, 6000).
- ``timeout``: seconds per request (1-600, 60); ``retries``: extra tries after a server error
  or a failed connection (0-5, 2).

Each archive is read from where the last successful digest of that file stopped (a per-file
cursor of size and SHA-256 of what was read): a second archive of the same day, or lines
appended to today's, are never lost, and a rewritten file is read again whole. Where archives
and cursor live is the ``Archives`` interface: a folder vault's ``sessions/*.md`` with the
cursor beside the recall index (``folder._digest.FolderArchives``), or a PostgreSQL vault's
tables with one cursor for the whole fleet (``postgres._digest.PgArchives``); each backend hands
``digest`` its own. Each archive is claimed while its
request runs, so two digests at once never send the same text. The text is redacted before it
leaves the process; the answer's credential-shaped or unsafe lines are dropped, and the rest is
written to the inbox as one normal submission (agent ``digest``) for review. The cursor of a
file advances only when its request succeeded.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any, Protocol

from cuecard.core.base._errors import ConfigError, CuecardError

__all__ = [
    "SYSTEM_PROMPT",
    "Archives",
    "Claim",
    "DigestConfig",
    "DigestFailed",
    "build_request",
    "cursor_start",
    "digest",
    "load_digest_config",
    "parse_facts",
]

SYSTEM_PROMPT = (
    "You read a coding session's notes and list the durable facts worth remembering across "
    "sessions: decisions, preferences, paths, ports, versions, commands, pitfalls. One fact per "
    "line, each starting with '- ', short and self-contained. Never include credentials, keys, "
    "tokens or passwords. If there is nothing durable, answer '- (none)'."
)
MAX_FACTS = 30
NONE_LINES = frozenset({"(none)", "none", "(无)", "无", "（无）", "n/a"})


class Claim:
    """One archive as read now: its name in reports, its bytes, and where the last successful
    digest stopped (0 when never digested, or when the file was rewritten)."""

    __slots__ = ("data", "label", "name", "start")

    def __init__(self, name: str, label: str, data: bytes, start: int) -> None:
        self.name = name
        self.label = label
        self.data = data
        self.start = start

    @property
    def new_text(self) -> str:
        return self.data[self.start :].decode("utf-8", "replace")


def cursor_start(data: bytes, size: int | None, sha256: str | None) -> int:
    """Where to read ``data`` from: the cursor's size when its SHA-256 is that of the first
    ``size`` bytes (text was only appended), else 0 (a new or rewritten archive: read whole)."""
    if size is None or sha256 is None or not 0 <= size <= len(data):
        return 0
    return size if hashlib.sha256(data[:size]).hexdigest() == sha256 else 0


class Archives(Protocol):
    """Session archives, their digest cursor and the inbox, on one kind of vault (a folder's
    ``sessions/`` and cache file, or PostgreSQL's tables: ``postgres._digest``)."""

    def pending(self) -> list[str]:
        """Names of the archives holding text past their cursor, in order (a hint: read
        without locks; ``claim`` decides)."""
        ...

    def claim(self, name: str, *, lock: bool) -> AbstractContextManager[Claim | None]:
        """The archive as it is now, or ``None`` when nothing is left past its cursor. With
        ``lock`` no other digest (any process, any machine) claims it until the block ends,
        and ``commit`` may be called inside; an exception inside discards ``commit``'s work
        where the backend can (PostgreSQL: one transaction)."""
        ...

    def commit(self, claim: Claim, facts: list[str]) -> tuple[str, int] | None:
        """Submit ``facts`` (if any) as agent ``digest`` and move the cursor to the end of what
        was read; the submission's name in reports and its fact count."""
        ...


class DigestFailed(CuecardError):
    """The endpoint did not answer usefully (after retries)."""


class DigestConfig:
    """The ``[digest]`` settings (see the module docstring)."""

    __slots__ = ("api_key_env", "base_url", "enabled", "max_chars", "model", "retries", "timeout")

    def __init__(
        self,
        enabled: bool = False,
        base_url: str = "",
        model: str = "",
        api_key_env: str = "CUECARD_DIGEST_API_KEY",
        max_chars: int = 6000,
        timeout: float = 60.0,
        retries: int = 2,
    ) -> None:
        self.enabled = enabled
        self.base_url = base_url
        self.model = model
        self.api_key_env = api_key_env
        self.max_chars = max_chars
        self.timeout = timeout
        self.retries = retries


def _whole(path: str, key: str, value: object, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ConfigError(f"{path}: key `digest.{key}` must be a whole number from {low} to {high}")
    return value


def parse_digest_config(path: str, table: object) -> DigestConfig:
    if table is None:
        return DigestConfig()
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: key `digest` must be a table")
    known = set(DigestConfig.__slots__)
    for key in sorted(table):
        if key not in known:
            raise ConfigError(
                f"{path}: key `digest.{key}` is not a setting ({', '.join(sorted(known))})"
            )
    enabled = table.get("enabled", False)
    if not isinstance(enabled, bool):
        raise ConfigError(f"{path}: key `digest.enabled` must be true or false")
    texts = {}
    for key, default in (
        ("base_url", ""),
        ("model", ""),
        ("api_key_env", "CUECARD_DIGEST_API_KEY"),
    ):
        value = table.get(key, default)
        if not isinstance(value, str):
            raise ConfigError(f"{path}: key `digest.{key}` must be a string")
        texts[key] = value.strip()
    if enabled and not texts["base_url"].startswith(("http://", "https://")):
        raise ConfigError(
            f"{path}: key `digest.base_url` must be an http(s) URL when digest is enabled"
        )
    if enabled and not texts["model"]:
        raise ConfigError(f"{path}: key `digest.model` must name a model when digest is enabled")
    timeout = table.get("timeout", 60)
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not 1 <= timeout <= 600:
        raise ConfigError(f"{path}: key `digest.timeout` must be a number from 1 to 600")
    return DigestConfig(
        enabled,
        texts["base_url"],
        texts["model"],
        texts["api_key_env"],
        _whole(path, "max_chars", table.get("max_chars", 6000), 100, 200_000),
        float(timeout),
        _whole(path, "retries", table.get("retries", 2), 0, 5),
    )


def load_digest_config() -> tuple[str, DigestConfig]:
    """The user config's path and its ``[digest]`` settings."""
    import tomllib

    from cuecard.core.vault._location import user_config_path

    path = user_config_path()
    if not os.path.isfile(path):
        return path, DigestConfig()
    try:
        with open(path, "rb") as handle:
            data = tomllib.load(handle)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc})") from None
    return path, parse_digest_config(path, data.get("digest"))


# -- pure parts --------------------------------------------------------------------------------


def build_request(config: DigestConfig, name: str, transcript: str) -> dict[str, Any]:
    """The chat-completions request body for one archive's (already redacted) new text."""
    return {
        "model": config.model,
        "temperature": 0.2,
        "messages": [
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": f"Session notes ({name}):\n\n{transcript}"},
        ],
    }


def parse_facts(content: str) -> tuple[list[str], int]:
    """The fact lines of an answer, and how many lines were dropped as credential-shaped or
    unsafe. Placeholder answers ("(none)") give no facts."""
    from cuecard.core.engine._secrets import find_secret
    from cuecard.core.engine._text import unsafe_reason

    facts: list[str] = []
    dropped = 0
    for raw in content.splitlines():
        line = raw.strip()
        if not line.startswith(("- ", "* ", "• ")):
            continue
        fact = " ".join(line[2:].split())
        if len(fact) < 2 or fact.lower() in NONE_LINES:
            continue
        if find_secret(fact) is not None or unsafe_reason(fact) is not None:
            dropped += 1
            continue
        if fact not in facts:
            facts.append(fact)
    return facts[:MAX_FACTS], dropped


# -- the run -----------------------------------------------------------------------------------

Post = Callable[[str, dict[str, str], dict[str, Any], float], tuple[int, str]]


def _httpx_post(
    url: str, headers: dict[str, str], body: dict[str, Any], timeout: float
) -> tuple[int, str]:
    try:
        import httpx
    except ImportError:
        from cuecard.core.base._pip import pip_command

        raise ConfigError(
            "vault digest needs httpx: install the extra with "
            f"{pip_command('cuecard-core[digest]')}"
        ) from None
    try:
        response = httpx.post(url, headers=headers, json=body, timeout=timeout)
    except httpx.HTTPError as exc:
        return 0, f"{type(exc).__name__}: {exc}"
    return response.status_code, response.text


def _ask(config: DigestConfig, body: dict[str, Any], post: Post) -> str:
    url = config.base_url.rstrip("/") + "/chat/completions"
    headers = {"Content-Type": "application/json"}
    key = os.environ.get(config.api_key_env, "") if config.api_key_env else ""
    if key:
        headers["Authorization"] = f"Bearer {key}"
    problem = ""
    for attempt in range(config.retries + 1):
        if attempt:
            time.sleep(min(0.2 * attempt, 2.0))
        status, text = post(url, headers, body, config.timeout)
        if status == 200:
            try:
                answer = json.loads(text)
                content = answer["choices"][0]["message"]["content"]
            except (ValueError, KeyError, IndexError, TypeError):
                raise DigestFailed(f"{url}: the answer is not a chat completion") from None
            if not isinstance(content, str):
                raise DigestFailed(f"{url}: the answer's message content is not text")
            return content
        problem = f"HTTP {status}" if status else text
        if status and status < 500 and status != 429:
            break
    raise DigestFailed(f"{url}: {problem} after {attempt + 1} attempt(s); nothing written")


def digest(
    archives: Archives,
    config: DigestConfig,
    *,
    dry_run: bool = False,
    limit: int | None = None,
    post: Post | None = None,
) -> dict[str, Any]:
    """Digest the pending ``archives`` of a folder or PostgreSQL vault (see the module docstring);
    a report of what was done. Each archive is claimed (locked against every other digest)
    while its request runs, so two digests at once never send the same text."""
    from cuecard.core.engine._secrets import redact

    report: dict[str, Any] = {
        "enabled": config.enabled,
        "dry_run": dry_run,
        "pending": 0,
        "sent": 0,
        "written": [],
        "facts": 0,
        "dropped": 0,
        "requests": [],
    }
    if not config.enabled:
        return report
    names = archives.pending()
    report["pending"] = len(names)
    for name in names[: limit or None]:
        with archives.claim(name, lock=not dry_run) as claim:
            if claim is None:  # another digest took it meanwhile
                continue
            transcript = redact(claim.new_text)[-config.max_chars :]
            body = build_request(config, name, transcript)
            if dry_run:
                report["requests"].append({"file": claim.label, "body": body})
                continue
            content = _ask(config, body, post or _httpx_post)
            report["sent"] += 1
            facts, dropped = parse_facts(content)
            report["dropped"] += dropped
            written = archives.commit(claim, facts)
            if written is not None:
                report["written"].append(written[0])
                report["facts"] += written[1]
    return report
