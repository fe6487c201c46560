"""Every file operation under a folder cuecard does not own goes through the confined layer.

Issue 28: the project's ``.cuecard/``, a folder vault and the harness configuration files are
reached only through ``cuecard.core.fs.Tree`` (``cuecard.core.base._confined``), which walks by
directory descriptor and follows no link at any depth. This test reads every module of core, of
the hooks distribution and of the projection (whose runtime root is reached only through
``SafeRoot``, built on the layer) and fails on a direct file operation (``open``, ``os.replace``,
``os.unlink``, ``shutil.rmtree``, ``Path.write_text``…, or the path-taking helpers of
``_fsio``) outside the allowlist below, and on an allowlist entry no longer needed.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = {
    "core": ROOT / "packages" / "core" / "src" / "cuecard" / "core",
    "hooks": ROOT / "packages" / "hooks" / "src" / "cuecard" / "hooks",
    "wp_projection": ROOT / "packages" / "wp-projection" / "src" / "cuecard" / "wp_projection",
}
LAYER = {"core/base/_confined.py", "core/base/_database.py", "core/base/_fsio.py"}
"""The layer itself (SQLite databases opened through it included), and the crash-consistent
primitives it builds on."""

OS_CALLS = frozenset(
    {"open", "replace", "rename", "unlink", "remove", "rmdir", "removedirs", "makedirs",
     "mkdir", "link", "symlink", "scandir", "listdir", "walk", "mkfifo", "truncate", "utime"}
)  # fmt: skip
PATH_METHODS = frozenset(
    {"write_text", "write_bytes", "read_text", "read_bytes", "unlink", "rmdir", "mkdir",
     "touch", "iterdir", "glob", "rglob", "symlink_to", "hardlink_to", "rename"}
)  # fmt: skip
HELPERS = frozenset({"atomic_write", "exclusive_create", "locked", "append_record", "rmtree"})

OWN_FILES = "a file the person names, or the repository's own source tree (not a store)"
HOME = (
    "the person's own home configuration, read as the person keeps it (a dotfile "
    "manager's links included): no one else commits into it"
)

# What still opens files by path, module by module, with the calls and why. The store's
# memories, config, journal and lock, the compiled index and its pruning, sessions, claims,
# footprints, held reports, the ledger, the hook's records, the inbox listing and proposal
# reads, the maintenance stamp and session roll-up, export's rule files and migrate's .dd
# folder are on the layer; so are the folder vault (notes, inbox and processed moves,
# the lock, init, archive, forget, transfer), the recall indexes' databases and the files they
# index, and the database vault's mirror in this machine's cache. SQLite databases (telemetry,
# the recall indexes and vectors, the projection's queue, the DSH adapter's topic lookup) are
# opened through the layer's connect_database, never by a path string.
ALLOWED: dict[str, tuple[str, frozenset[str]]] = {
    # the engine: descriptors the layer or _evidence opened, and the plain-path primitives
    "core/engine/_append.py": ("append_record, fs's plain-path append (O_NOFOLLOW|O_NONBLOCK)",
                               frozenset({"os.open"})),
    "core/engine/_evidence.py": ("open_regular: the repository's files, walked by descriptor",
                                 frozenset({"os.open"})),
    "core/engine/_engine.py": (OWN_FILES, frozenset({"open"})),
    "core/engine/_paths.py": ("opted_in lists memories/ (nothing opened); the store's shape "
                              "is checked by store_problem next", frozenset({"os.scandir"})),
    "core/store/_compiler.py": ("os.scandir of the memories folder's descriptor (tree.folder)",
                          frozenset({"os.scandir"})),
    # the person's own files and the repository's source tree
    "core/lifecycle/_repofiles.py": (OWN_FILES, frozenset({"os.walk"})),
    "core/doctor/_doctor.py": (OWN_FILES + ": the search for nested stores",
                               frozenset({"os.walk"})),
    "core/lifecycle/_dryrun.py": (OWN_FILES, frozenset({"open", "os.scandir"})),
    "core/lifecycle/_import.py": (OWN_FILES + ": walked without following a link, each rule "
                                  "read by read_regular (O_NOFOLLOW|O_NONBLOCK)", frozenset(
                                      {"os.walk"})),
    "core/lifecycle/_proposal_evidence.py": (OWN_FILES, frozenset({"os.walk"})),
    "core/cli/_output.py": ("stdout's own descriptor", frozenset({"os.open"})),
    "core/cli/_export.py": (OWN_FILES + ": the export's target", frozenset({"mkdir"})),
    "core/vault/_location.py": (OWN_FILES + ": the vault locations file; cache_tree makes "
                                "cuecard's own cache folder under the user's cache home",
                                frozenset({"open", "os.makedirs"})),
    "core/vault/_settings.py": (OWN_FILES + ": the recall settings file", frozenset({"open"})),
    "core/vault/_digest.py": (OWN_FILES, frozenset({"open"})),
    "core/vault/transfer/_mirror.py": (OWN_FILES + ": the user's cuecard config.toml",
                                       frozenset({"open"})),
    "hooks/_demo.py": ("the demo's own temporary project", frozenset(
        {"mkdir", "read_text", "shutil.rmtree", "write_text"})),
    # the project store: what commands (not the hook) still write by path
    "core/vault/_user_config.py": (OWN_FILES + ": the user's cuecard config.toml",
                                   frozenset({"atomic_write", "open", "os.makedirs"})),
    "core/service/_vault_client.py": (OWN_FILES + ": the user's cuecard config.toml",
                              frozenset({"read_text"})),
    "core/recall/_index.py": ("the index's folder when it is cuecard's own cache folder (a "
                              "project's passes its Tree: made through the layer)",
                              frozenset({"os.makedirs"})),
    # the folder vault: its root is the folder the person names (made if missing); its vault
    # cache folder is cuecard's own, under the user's cache home (``cache_tree`` makes it)
    "core/vault/folder/_init.py": (OWN_FILES + ": the vault folder the person names, and the "
                                   "backup folder made beside it (exclusively: the copy goes "
                                   "through the layer)", frozenset({"mkdir", "os.mkdir"})),
    # harness configuration files: a project's go through the layer (the installers' writes,
    # backups under .git/ and removals; doctor's and status's reads); what remains by path is
    # the person's own home configuration, as the person keeps it
    "core/doctor/_doctor_dsh.py": (HOME + ": the DSH home's profiles",
                                   frozenset({"glob", "read_text"})),
    "core/doctor/_groktrust.py": (HOME + ": Grok Build's trusted_folders.toml; and the project "
                           "files Grok Build itself reads, listed as Grok reads them (links "
                           "followed, regular files only, bounded, never written)",
                           frozenset({"open", "os.scandir", "read_text"})),
    "hooks/_mcp_config.py": (HOME + ": the home's MCP configuration (a project's through the "
                             "layer)", frozenset({"read_text"})),
    "core/doctor/_hookcheck.py": (HOME + ": Codex's config.toml and the home's hook files (a "
                           "project's are read through the layer)", frozenset({"read_text"})),
    "core/doctor/_installed_hooks.py": (HOME + ": the home's hook files (a project's: "
                                 "hook_text reads them through the layer)",
                                 frozenset({"read_text"})),
    "hooks/_groktrustwrite.py": (HOME + ": Grok Build's trusted_folders.toml",
                                 frozenset({"atomic_write", "mkdir", "read_text"})),
    "hooks/_install.py": (HOME + ", and a --plugin folder the person names; also the package's "
                          "own data and a work tree's .git pointer (a project's files go "
                          "through the layer: InstallReport.root)",
                          frozenset({"atomic_write", "mkdir", "read_bytes", "read_text", "rmdir",
                                     "unlink"})),
    "hooks/_trust.py": (HOME + ": Codex's config.toml", frozenset({"atomic_write", "mkdir",
                                                                    "read_text"})),
    # the Data Machine projection: the runtime root goes through SafeRoot, on the layer
    "wp_projection/_bridge.py": (OWN_FILES + ": the WordPress plugin folder the person names",
                                 frozenset({"mkdir", "os.open", "read_bytes", "unlink",
                                            "write_bytes"})),
    "wp_projection/_projector.py": ("_Plan.unlink, the batch's own method (SafeRoot deletes)",
                                    frozenset({"unlink"})),
    "wp_projection/_reconcile.py": (OWN_FILES + ": the auth file", frozenset({"read_text"})),
    "wp_projection/cli/_common.py": (OWN_FILES + ": the secret and config files",
                                     frozenset({"read_text"})),
}  # fmt: skip


def _direct_calls(source: str) -> set[str]:
    """The file operations ``source`` calls by path. A call with ``dir_fd=``, or on a
    receiver whose text names a tree (``self.tree``, ``Tree(root)``), goes through the layer."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        if any(k.arg == "dir_fd" for k in node.keywords):
            continue
        func = node.func
        if isinstance(func, ast.Name) and (func.id == "open" or func.id in HELPERS):
            found.add(func.id)
        elif isinstance(func, ast.Attribute):
            receiver = ast.unparse(func.value)
            if "tree" in receiver.lower():
                continue
            if receiver in ("os", "shutil") and (func.attr in OS_CALLS or func.attr in HELPERS):
                found.add(f"{receiver}.{func.attr}")
            elif receiver not in ("os", "shutil") and func.attr in PATH_METHODS | HELPERS:
                found.add(func.attr)
    return found


def _modules() -> dict[str, set[str]]:
    out = {}
    for package, base in PACKAGES.items():
        for path in sorted(base.rglob("*.py")):
            name = f"{package}/{path.relative_to(base).as_posix()}"
            if name not in LAYER:
                out[name] = _direct_calls(path.read_text(encoding="utf-8"))
    return out


def test_file_operations_go_through_the_confined_layer() -> None:
    calls = _modules()
    unlisted = {
        name: sorted(found - ALLOWED.get(name, ("", frozenset()))[1])
        for name, found in calls.items()
        if found - ALLOWED.get(name, ("", frozenset()))[1]
    }
    assert unlisted == {}, (
        "these modules open, replace or delete files by path: go through cuecard.core.fs.Tree "
        f"(or, for a file that is not under a store, a vault or a harness folder, say why in "
        f"ALLOWED): {unlisted}"
    )


def test_the_allowlist_holds_nothing_no_longer_needed() -> None:
    calls = _modules()
    stale = {
        name: sorted(allowed - calls.get(name, set()))
        for name, (_, allowed) in ALLOWED.items()
        if allowed - calls.get(name, set())
    }
    assert stale == {}, f"drop these from ALLOWED: the module no longer calls them: {stale}"


def test_the_checker_sees_a_direct_call() -> None:
    source = (
        "import os, shutil\n"
        "def f(path, tree, fd):\n"
        "    open(path)\n    os.replace(path, path)\n    shutil.rmtree(path)\n"
        "    path.write_text('x')\n    tree.write('a', 'b')\n    os.unlink('x', dir_fd=fd)\n"
    )
    assert _direct_calls(source) == {"open", "os.replace", "shutil.rmtree", "write_text"}
