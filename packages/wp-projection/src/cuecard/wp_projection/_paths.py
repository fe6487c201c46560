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
    "check_identity",
    "collision_key",
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
MAX_SEGMENT_BYTES = 255


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
        raise _refuse(raw, f"segment is longer than {MAX_SEGMENT_BYTES} bytes (rule 10)")
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
        if not _SLUG.fullmatch(alias):
            raise PathRefused(f"site alias {alias!r} must match [a-z0-9][a-z0-9-]* (rule 12)")
        return alias
    return "site-" + hashlib.sha256(url.encode("utf-8")).hexdigest()[:12]


def check_identity(layer: object, user_id: object, agent_id: object, agent_slug: object) -> None:
    """Rule 12: known layer, non-negative integer ids, a slug of the DM alphabet."""
    if layer not in LAYERS:
        raise PathRefused(f"scope.layer {layer!r} must be one of {', '.join(LAYERS)} (rule 12)")
    for key, value in (("scope.user_id", user_id), ("scope.agent_id", agent_id)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise PathRefused(f"{key} {value!r} must be a non-negative integer (rule 12)")
    if agent_slug is not None and (
        not isinstance(agent_slug, str) or not _SLUG.fullmatch(agent_slug)
    ):
        raise PathRefused(
            f"scope.agent_slug {agent_slug!r} must match [a-z0-9][a-z0-9-]* (rule 12)"
        )


def record_path(
    site: str, layer: str, user_id: int, agent_id: int, agent_slug: str | None, filename: str
) -> str:
    """Where a record lands, relative to the managed folder.

    The path is the record's identity: agent id 0 and the real id name the same file once the
    bridge resolved the agent slug, as they do in Data Machine's own disk store.
    """
    check_identity(layer, user_id, agent_id, agent_slug)
    try:
        name = normalise_relative(filename)
    except PathRefused as exc:
        raise PathRefused(f"scope.filename: {exc}") from None
    slug = agent_slug if agent_slug is not None else (f"agent-{agent_id}" if agent_id else None)
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
    if name.split("/", 1)[0] == "users":
        raise PathRefused(
            f"scope.filename {filename!r}: an agent-layer file may not start with 'users/' "
            "(it would alias principal files)"
        )
    return f"{site}/agents/{slug}/{name}"
