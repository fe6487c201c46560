"""Hostile names for the projection, shared by the receiver, bridge and git suite tests."""

from __future__ import annotations

GIT_PATHS = [
    ".git/HEAD",
    ".git/config",
    ".GIT/hooks/pre-commit",
    "sub/.git/HEAD",
    ".git/objects/info.md",
    ".git/refs/heads/info.md",
    ".git",
    ".Git",
    ".git./config",
    ".git . /config",
    "GIT~1/config",
    "a/git~1",
]
"""Every spelling git takes for its repository folder."""

BARE_REPOSITORY = ["HEAD", "config", "objects/info.md", "refs/heads/info.md"]
"""Four events that, accepted, made a folder git takes for a bare repository."""

CONFIG_NAMES = [
    "packed-refs",
    "index",
    "hooks/pre-commit",
    "hooks/post-checkout",
    "hooks/x.md",
    "info/exclude",
    "logs/HEAD",
    "FETCH_HEAD",
    ".gitconfig",
    ".gitmodules",
    ".envrc",
    ".editorconfig",
    ".exrc",
    ".vimrc",
    ".hidden.md",
]
"""Other names git, a shell or an editor reads as configuration."""

LEVELS = ["", "contexts/", "daily/2026/11/"]
"""The folders a record may name inside its layer's folder: the top, and the nested ones."""

# (filename, accepted) — run through the receiver's rules and the bridge's, which must agree.
ALLOWLIST_TABLE = [
    ("MEMORY.md", True),
    ("SOUL.md", True),
    ("USER_MEMORY.md", True),
    ("AGENTS.md", True),
    ("x-y_z.1.md", True),
    ("info.md", True),
    ("objects.md", True),
    ("contexts/code.md", True),
    ("daily/2026/04/17.md", True),
    ("a" * 243 + ".md", True),  # 246 bytes: '<name>.incoming' still fits in 255
    ("a" * 244 + ".md", False),  # 247 bytes: '<name>.incoming' would not
    ("a" * 252 + ".md", False),
    *((level + name, False) for level in LEVELS for name in BARE_REPOSITORY),
    *((name, False) for name in CONFIG_NAMES),
    *((name, False) for name in GIT_PATHS if "\\" not in name),
    ("contexts/.hidden.md", False),
    ("contexts/objects/info.md", False),
    ("notes/x.md", False),
    ("daily/2026/4/17.md", False),
    ("daily/x.md", False),
    ("MEMORY.txt", False),
    ("MEMORY.MD", False),
    ("-x.md", False),
    ("_x.md", False),
    ("../x.md", False),
    ("CON.md", False),
    ("lpt1.md", False),
]

PATH_RULES = [
    ("MEMORY.md\x00", "NUL byte (rule 1)"),
    ("\x00", "NUL byte (rule 1)"),
    ("", "is empty (rule 4)"),
    ("   ", "is empty (rule 4)"),
    ("/etc/passwd", "is absolute (rule 4)"),
    ("\\tmp\\x", "is absolute (rule 4)"),
    ("\\\\server\\share", "is absolute (rule 4)"),
    ("./", "empty after removing './' (rule 6)"),
    (".", "'..' segment '.' (rule 7)"),
    ("../MEMORY.md", "segment '..' (rule 7)"),
    ("contexts/../MEMORY.md", "segment '..' (rule 7)"),
    ("a\\..\\b", "segment '..' (rule 7)"),
    ("x/..", "segment '..' (rule 7)"),
    ("a/./b", "segment '.' (rule 7)"),
    ("a/", "segment '' (rule 7)"),
    ("C:\\x", "drive letter (rule 8)"),
    ("C:/x", "drive letter (rule 8)"),
    ("C:x", "drive letter (rule 8)"),
    ("a:b", "':' in segment 'a:b' (rule 8)"),
    ("MEMORY.md:stream", "':' in segment (rule 8)"),
    ("a\x01b", "control character (rule 9)"),
    ("a\x7fb", "control character (rule 9)"),
    ("a\nb", "control character (rule 9)"),
    ("~/x", "outside [A-Za-z0-9._-] (rule 10)"),
    ("%2e%2e/x", "outside [A-Za-z0-9._-] (rule 10)"),
    ("a b.md", "outside [A-Za-z0-9._-] (rule 10)"),
    ("mémoire.md", "outside [A-Za-z0-9._-] (rule 10)"),
    ("...", "ends in '.' or a space (rule 10)"),
    ("a/.../b", "ends in '.' or a space (rule 10)"),
    ("notes.", "ends in '.' or a space (rule 10)"),
    ("CON.md", "Windows device name (rule 10)"),
    ("con", "Windows device name (rule 10)"),
    ("lpt9.txt", "Windows device name (rule 10)"),
    ("dir/Com1", "Windows device name (rule 10)"),
    ("Aux.tar.gz", "Windows device name (rule 10)"),
    ("a" * 247, "longer than 246 bytes (rule 10)"),
    ("/".join(["abcdefgh"] * 120), "longer than 1024 bytes (rule 10)"),
    (".env", "sensitive or guard file name (rule 19)"),
    ("deploy/id_rsa", "sensitive or guard file name (rule 19)"),
    ("server.PEM", "sensitive or guard file name (rule 19)"),
    ("index.php", "sensitive or guard file name (rule 19)"),
    ("credentials.json", "sensitive or guard file name (rule 19)"),
]
"""(raw path, the rule that refuses it): a row per path-safety rule of the README."""
