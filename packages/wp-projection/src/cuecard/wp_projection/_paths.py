"""Pure path rules (the package README's "On disk" list) and the record-to-file mapping.

Nothing here touches the filesystem; ``_safefs`` applies the filesystem rules.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata

from cuecard.wp_projection._errors import PathRefused

__all__ = [
    "LAYERS",
    "PRIVATE_LAYERS",
    "check_filename",
    "check_identity",
    "collision_key",
    "is_config_name",
    "is_git_metadata",
    "normalise_relative",
    "record_path",
    "site_key",
]

LAYERS = ("shared", "agent", "user", "principal", "network")
PRIVATE_LAYERS = frozenset({"user", "principal"})

_PHP_TRIM = " \t\n\r\x0b\x00"
_SEGMENT = re.compile(r"[A-Za-z0-9._-]+")
_DRIVE = re.compile(r"[A-Za-z]:")
_DEVICE = re.compile(r"(con|prn|aux|nul|com[1-9]|lpt[1-9])(\..*)?", re.IGNORECASE)
_SLUG = re.compile(r"[a-z0-9][a-z0-9-]*")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_SENSITIVE = frozenset({".env", "credentials.json", "id_rsa", "id_ed25519", "secrets", "index.php"})
_SENSITIVE_SUFFIXES = (".pem", ".key")
MAX_PATH_BYTES = 1024
INCOMING_SUFFIX = ".incoming"
MAX_SEGMENT_BYTES = 255 - len(INCOMING_SUFFIX)
"""A segment leaves room for every name the projection derives from it (``<name>.incoming``)."""

FILENAME_PATTERN = (
    r"(contexts/)?[A-Za-z0-9][A-Za-z0-9._-]*\.md|daily/[0-9]{4}/[0-9]{2}/[0-9]{2}\.md"
)
"""The allowlist of record names (the bridge carries the same pattern, byte for byte): a
Markdown file at the top of its layer's folder, in the legacy ``contexts/`` folder, or a daily
file ``daily/YYYY/MM/DD.md``. Nothing else Data Machine's layouts define is projected."""
_FILENAME = re.compile(FILENAME_PATTERN)

CONFIG_NAMES = frozenset(
    {
        "head",
        "config",
        "objects",
        "refs",
        "packed-refs",
        "index",
        "hooks",
        "info",
        "logs",
        "worktrees",
        "modules",
        "commondir",
        "gitdir",
        "fetch_head",
        "orig_head",
        "description",
        "branches",
        "shallow",
    }
)
"""Names git reads inside a repository folder (compared without regard to case)."""


def _refuse(raw: str, rule: str) -> PathRefused:
    return PathRefused(f"path {raw!r} {rule}")


def normalise_relative(raw: str) -> str:
    """Normalise a relative path from outside, or raise ``PathRefused`` naming the broken rule.

    Ports Data Machine Code's ``normalize_relative_path`` step by step, then tightens it.
    """
    if "\x00" in raw:
        raise _refuse(raw, "contains a NUL byte (rule 1)")
    path = raw.strip(_PHP_TRIM).replace("\\", "/")
    if not path:
        raise _refuse(raw, "is empty (rule 4)")
    if path.startswith("/"):
        raise _refuse(raw, "is absolute (rule 4)")
    path = re.sub("/+", "/", path)
    while path.startswith("./"):
        path = path[2:]
    if not path:
        raise _refuse(raw, "is empty after removing './' (rule 6)")
    path = unicodedata.normalize("NFC", path)
    if _DRIVE.match(path):
        raise _refuse(raw, "starts with a drive letter (rule 8)")
    if _CONTROL.search(path):
        raise _refuse(raw, "contains a control character (rule 9)")
    if len(path.encode("utf-8")) > MAX_PATH_BYTES:
        raise _refuse(raw, f"is longer than {MAX_PATH_BYTES} bytes (rule 10)")
    for segment in path.split("/"):
        _check_segment(raw, segment)
    return path


def is_git_metadata(segment: str) -> bool:
    """Whether git would take this one path segment for its repository folder.

    Git compares ``.git`` without regard to case (case-insensitive filesystems), ignores the dots
    and spaces Windows strips from the end of a name, and also knows the folder by its 8.3 short
    name ``GIT~1``. A projected tree that held such a segment would be a repository planted in
    the runtime root, whose config (``core.fsmonitor``, hooks) a later ``git`` command runs.
    """
    name = segment.rstrip(". ").casefold()
    return name in (".git", "git~1")


def is_config_name(segment: str) -> bool:
    """Whether git, a shell or an editor may read a file or folder of this name as
    configuration: a dotfile (``.git``, ``.gitconfig``, ``.envrc``, ``.editorconfig``, ``.exrc``),
    git's own names inside a repository folder (``HEAD``, ``config``, ``objects``, ``refs``,
    ``index``, ``hooks``, …) or git's 8.3 short name ``GIT~1``."""
    name = segment.rstrip(". ").casefold()
    return segment.startswith(".") or name in CONFIG_NAMES or is_git_metadata(segment)


def check_filename(raw: str) -> str:
    """A record's filename from outside, normalised and checked against the allowlist
    (``FILENAME_PATTERN``); raises ``PathRefused`` naming the rule it broke."""
    name = normalise_relative(raw)
    if not _FILENAME.fullmatch(name):
        raise _refuse(
            raw,
            "is not a name Data Machine's layouts define (allowlist: NAME.md, contexts/NAME.md, "
            "daily/YYYY/MM/DD.md; NAME starts with a letter or digit)",
        )
    for segment in name.split("/"):
        if is_config_name(segment):
            raise _refuse(raw, f"segment {segment!r} is a name git or a shell reads as config")
    return name


def _check_segment(raw: str, segment: str) -> None:
    if segment in ("", ".", ".."):
        raise _refuse(raw, f"has an empty, '.' or '..' segment {segment!r} (rule 7)")
    if is_git_metadata(segment):
        raise _refuse(raw, f"segment {segment!r} is git repository metadata (git rule)")
    if ":" in segment:
        raise _refuse(raw, f"has ':' in segment {segment!r} (rule 8)")
    if not _SEGMENT.fullmatch(segment):
        raise _refuse(raw, f"segment {segment!r} has characters outside [A-Za-z0-9._-] (rule 10)")
    if len(segment.encode("utf-8")) > MAX_SEGMENT_BYTES:
        raise _refuse(
            raw,
            f"segment is longer than {MAX_SEGMENT_BYTES} bytes, the room left for the names "
            f"derived from it ('{INCOMING_SUFFIX}') (rule 10)",
        )
    if segment.endswith((".", " ")):
        raise _refuse(raw, f"segment {segment!r} ends in '.' or a space (rule 10)")
    if _DEVICE.fullmatch(segment):
        raise _refuse(raw, f"segment {segment!r} is a Windows device name (rule 10)")
    lowered = segment.lower()
    if lowered in _SENSITIVE or lowered.endswith(_SENSITIVE_SUFFIXES):
        raise _refuse(raw, f"segment {segment!r} is a sensitive or guard file name (rule 19)")


def collision_key(path: str) -> str:
    """The key two paths share when they would collide on a case-insensitive filesystem."""
    return unicodedata.normalize("NFC", path).casefold()


def site_key(home_url: str, aliases: dict[str, str] | None = None) -> str:
    """The folder naming a site: its configured alias, else ``site-`` and a short hash of its URL.

    The workspace id (the home URL) is never used raw in a path (rule 12).
    """
    url = home_url.strip().rstrip("/")
    if aliases and url in aliases:
        alias = aliases[url]
        if not _SLUG.fullmatch(alias) or is_config_name(alias) or len(alias) > MAX_SEGMENT_BYTES:
            raise PathRefused(
                f"site alias {alias!r} must match [a-z0-9][a-z0-9-]*, be at most "
                f"{MAX_SEGMENT_BYTES} bytes and not be a name git reads as configuration (rule 12)"
            )
        return alias
    return "site-" + hashlib.sha256(url.encode("utf-8")).hexdigest()[:12]


def check_identity(
    layer: object,
    user_id: object,
    agent_id: object,
    agent_slug: object,
    agent_dir: object = None,
) -> None:
    """Rule 12: known layer, non-negative integer ids, a slug (and an agent folder name) of the
    DM alphabet that git would not read as configuration."""
    if layer not in LAYERS:
        raise PathRefused(f"scope.layer {layer!r} must be one of {', '.join(LAYERS)} (rule 12)")
    for key, value in (("scope.user_id", user_id), ("scope.agent_id", agent_id)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise PathRefused(f"{key} {value!r} must be a non-negative integer (rule 12)")
    for key, slug in (("scope.agent_slug", agent_slug), ("scope.agent_dir", agent_dir)):
        if slug is None:
            continue
        if (
            not isinstance(slug, str)
            or not _SLUG.fullmatch(slug)
            or is_config_name(slug)
            or len(slug) > MAX_SEGMENT_BYTES
        ):
            raise PathRefused(
                f"{key} {str(slug)[:80]!r} must match [a-z0-9][a-z0-9-]*, be at most "
                f"{MAX_SEGMENT_BYTES} bytes and not be a name git reads as configuration "
                "(rule 12)"
            )


def record_path(
    site: str,
    layer: str,
    user_id: int,
    agent_id: int,
    agent_slug: str | None,
    filename: str,
    agent_dir: str | None = None,
) -> str:
    """Where a record lands, relative to the managed folder.

    The path is the record's identity. An agent's folder is the one Data Machine's own disk store
    uses (``agent_dir``, the last segment of ``DirectoryManager::resolve_agent_directory()``,
    suffix included), so two agents that share a slug never share a folder; without it (an older
    bridge, or a pull) the slug names it. Agent id 0 and the real id name the same file once the
    bridge resolved the agent, as they do in Data Machine's store.
    """
    check_identity(layer, user_id, agent_id, agent_slug, agent_dir)
    try:
        name = check_filename(filename)
    except PathRefused as exc:
        raise PathRefused(f"scope.filename: {exc}") from None
    slug = agent_dir or agent_slug or (f"agent-{agent_id}" if agent_id else None)
    if layer == "shared":
        return f"{site}/shared/{name}"
    if layer == "network":
        return f"{site}/network/{name}"
    if layer == "user":
        return f"{site}/users/{user_id}/{name}"
    if slug is None:
        raise PathRefused(
            f"scope.agent_slug is missing and scope.agent_id is 0: the {layer} layer needs the "
            "agent's slug (set it in the bridge settings or pass --default-agent)"
        )
    if layer == "principal":
        if user_id == 0:
            raise PathRefused("scope.user_id must be positive for the principal layer (rule 12)")
        return f"{site}/agents/{slug}/users/{user_id}/{name}"
    return f"{site}/agents/{slug}/{name}"
