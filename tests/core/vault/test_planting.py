"""The link-planting suite for the vault commands: every path a recorded session touches in a
folder vault (and below its cache folder), at every depth, replaced by a link (and, separately,
a FIFO) to an outside canary tree.

One session is recorded: ``vault init``, ``submit``, ``review``, ``pending drop``, ``apply``, a
conflict queued, listed and adjudicated, ``forget --apply`` of a stale fact, ``archive``,
``search``, ``show``, ``status``, ``reindex`` and ``init --force`` (a backup beside the vault),
each through the ``cuecard`` entry point in this process, run twice (the second finds the vault
made, and a stale fact to forget). The paths come from that run (every entry under the vault
and under its cache folder afterwards), not from a list written here, so a new file is covered
when it appears.
For each path, the vault and its cache are put back as the run left them, the path is replaced,
and the session runs again: the canary stays byte-identical with the same listing, nothing
appears next to the vault, every command exits 0 or 1 (a refusal names the path; never a
traceback, never a usage error), and nothing hangs (a ``SIGALRM`` liveness bound, not a timing
assertion). The per-vault cache folder itself is cuecard's own, under the user's cache home,
and is the base the layer trusts: paths below it are planted, not it.

``vault export`` (``import`` runs the same transfer, named from the other side) is planted
against a real PostgreSQL server: a folder vault planted at each recorded path copied to an
empty database, and a database vault copied into an empty folder holding one planted path of
those a clean copy makes. ``digest`` (it needs a model server) and ``mirror`` are not run here.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import signal
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from cuecard.core.cli import main as cli
from cuecard.core.vault.folder._recall import cache_dir
from cuecard.core.vault.folder._vault import Vault
from tests._support.planting import entries, snapshot
from tests._support.postgres import PgServer

LIVENESS = 60  # seconds for one whole session: only a hang reaches it
LAYOUTS = ("default", "unified-agent-memory")


class Hang(Exception):
    """The session ran past the liveness bound."""


def _cli(argv: list[str], stdin: str = "") -> tuple[int, str]:
    """``cuecard ARGV`` in this process: its exit status and what it printed on stdout."""
    saved = sys.stdin, sys.stdout
    sys.stdin = io.StringIO(stdin)
    sys.stdout = io.StringIO()
    try:
        code = cli(argv)
        return code, sys.stdout.getvalue()
    finally:
        sys.stdin, sys.stdout = saved


def run_session(vault: Path, layout: str, run: int) -> list[tuple[str, int]]:
    """The whole session on the vault at ``vault``; each command's exit status. ``run`` makes
    this run's facts its own, so each run submits, promotes and conflicts anew."""
    at = ["--vault", str(vault)]
    port = 7000 + run
    codes: list[tuple[str, int]] = []

    def cc(*argv: str, stdin: str = "") -> str:
        code, out = _cli(["vault", *argv[0].split(), *at, *argv[1:]], stdin)
        codes.append((argv[0], code))
        return out if code == 0 else ""

    cc("init", "--layout", layout)
    cc("submit", "--agent", "planter", f"staging server listens on port {port}0",
       f"ripgrep is available in run {run}", "prefers dark theme in the UI")  # fmt: skip
    cc("review")
    cc("pending drop", "3")
    cc("apply")
    cc("submit", "--agent", "planter", f"staging server listens on port {port}1")
    cc("review", "--json")
    listed = cc("conflicts", "--json")
    conflicts = json.loads(listed)["conflicts"] if listed else []
    ident = str(conflicts[0]["id"]) if conflicts else "ffffffff"
    cc("adjudicate", ident, "--decision", "keep-both")
    cc("apply", "--auto")
    cc("forget", "--apply")
    cc("archive", "--agent", "planter", "--title", "a session",
       stdin=f"decided the port of run {run}\nmore text\n")  # fmt: skip
    cc("search", "staging port")
    cc("show", "env")
    cc("status", "--json")
    cc("reindex")
    cc("conflicts")
    cc("init", "--force", "--layout", layout)
    return codes


class Recorded:
    """The session's vault and cache as the run left them, and the paths it touched."""

    def __init__(self, base: Path, layout: str) -> None:
        self.base = base
        self.layout = layout
        self.home = base / "home"
        self.vault = self.home / "vault"
        self.canary = base / "canary"
        self.pristine = base / "pristine"
        self.runs = 0
        self.paths: list[Path] = []
        self.cache = Path()

    def session(self) -> list[tuple[str, int]]:
        """The session once more, with this record's cache and config folders (the core
        tests' own fixture gives each test function folders of its own)."""
        self.runs += 1
        os.environ["XDG_CACHE_HOME"] = str(self.base / "cache")
        os.environ["XDG_CONFIG_HOME"] = str(self.base / "config")
        return run_session(self.vault, self.layout, self.runs)

    def stale_fact(self) -> None:
        """A fact promoted long ago and never used, for ``forget --apply`` to move."""
        vault = Vault.open(self.vault)
        stamp = vault.layout.stamp.format(date="2020-01-02", source="old-20200102-000000-01.md")
        note = vault.note_file("tools")
        text = note.read_text(encoding="utf-8")
        note.write_text(f"{text}- the old linter was flaky on tuesdays{stamp}\n", "utf-8")

    def backups(self) -> list[Path]:
        return [p for p in self.home.iterdir() if p.name.startswith("vault-backup-")]

    def restore(self) -> None:
        for backup in self.backups():
            shutil.rmtree(backup)
        for live, kept in ((self.vault, "vault"), (self.cache, "cache")):
            shutil.rmtree(live)
            shutil.copytree(self.pristine / kept, live, symlinks=True)


@pytest.fixture(scope="module")
def recorded(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Recorded]:
    base = tmp_path_factory.mktemp("vault-planting")
    record = Recorded(base, request.param)
    record.home.mkdir()
    saved = {name: os.environ.get(name) for name in
             ("XDG_CACHE_HOME", "XDG_CONFIG_HOME", "CUECARD_VAULT", "CUECARD_VAULT_MIRROR",
              "CUECARD_VAULT_LOCK_TIMEOUT")}  # fmt: skip
    os.environ["CUECARD_VAULT_LOCK_TIMEOUT"] = "5"
    os.environ.pop("CUECARD_VAULT", None)
    os.environ.pop("CUECARD_VAULT_MIRROR", None)
    try:
        codes = record.session()
        assert all(code == 0 for _, code in codes), codes  # the recorded run works
        record.stale_fact()
        codes = record.session()
        assert codes[0] == ("init", 1), codes  # the vault is there: init refuses
        assert all(code == 0 for _, code in codes[1:]), codes
        record.stale_fact()
        for backup in record.backups():
            shutil.rmtree(backup)
        record.cache = Path(cache_dir(str(record.vault)))
        record.paths = [record.vault / rel for rel in entries(record.vault)]
        record.paths += [record.cache / rel for rel in entries(record.cache)]
        shutil.copytree(record.vault, record.pristine / "vault", symlinks=True)
        shutil.copytree(record.cache, record.pristine / "cache", symlinks=True)
        yield record
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@pytest.fixture
def alarm() -> Iterator[None]:
    def ring(signum: int, frame: object) -> None:
        raise Hang(f"the session did not finish within {LIVENESS} s")

    old = signal.signal(signal.SIGALRM, ring)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def _canary(folder: Path) -> None:
    if folder.exists():
        shutil.rmtree(folder)
    (folder / "inner").mkdir(parents=True)
    (folder / "own.txt").write_text("the user's own file\n", encoding="utf-8")
    (folder / "inner" / "notes.md").write_text("# kept\n", encoding="utf-8")


def _plant(record: Recorded, path: Path, how: str) -> None:
    folder = path.is_dir() and not path.is_symlink()
    if folder:
        shutil.rmtree(path)
    else:
        path.unlink()
    if how == "link":
        path.symlink_to(record.canary if folder else record.canary / "own.txt")
    else:
        os.mkfifo(path)


@pytest.mark.parametrize("recorded", LAYOUTS, indirect=True)
def test_the_recorded_session_covers_the_vault(recorded: Recorded) -> None:
    """The run touched what the commands keep: notes, inbox, processed, the pending list, the
    queues and logs, session archives, the recall index and the use records."""
    layout = {
        "default": ("notes/environment.md", "inbox/processed", "review/pending.md", "sessions",
                    "forgotten/tools.md"),
        "unified-agent-memory": ("50-Agent-Context/Agent提交区/已处理",
                                 "50-Agent-Context/记忆遗忘区"),
    }[recorded.layout]  # fmt: skip
    paths = {p.relative_to(recorded.base).as_posix() for p in recorded.paths}
    for rel in layout:
        assert f"home/vault/{rel}" in paths, sorted(paths)
    names = {p.name for p in recorded.paths}
    assert {"recall.sqlite3", "usage.log"} <= names, sorted(names)
    assert len([p for p in recorded.paths if p.parent.name in ("processed", "已处理")]) >= 2


# The layouts differ in names only: one FIFO pass keeps the suite cheap.
@pytest.mark.parametrize(
    ("recorded", "how"),
    [("default", "link"), ("default", "fifo"), ("unified-agent-memory", "link")],
    indirect=["recorded"],
)
def test_every_recorded_path_planted(recorded: Recorded, how: str, alarm: None) -> None:
    failures = []
    for path in recorded.paths:
        shown = path.relative_to(recorded.base).as_posix()
        _canary(recorded.canary)
        before = snapshot(recorded.canary)
        recorded.restore()
        _plant(recorded, path, how)
        signal.alarm(LIVENESS)
        try:
            codes = recorded.session()
        except Hang as exc:
            failures.append(f"{shown} ({how}): {exc}")
            continue
        except Exception as exc:  # a traceback is not how a command exits
            failures.append(f"{shown} ({how}): {type(exc).__name__}: {exc}")
            continue
        finally:
            signal.alarm(0)
        bad = [(name, code) for name, code in codes if code not in (0, 1)]
        if bad:
            failures.append(f"{shown} ({how}): exit statuses {bad}")
        if snapshot(recorded.canary) != before:
            failures.append(f"{shown} ({how}): the canary changed")
        if set(os.listdir(recorded.home)) - {"vault", *(p.name for p in recorded.backups())}:
            failures.append(f"{shown} ({how}): something appeared next to the vault")
    recorded.restore()
    assert failures == [], "\n".join(failures)


@pytest.mark.parametrize("how", ["link", "fifo"])
def test_a_planted_lock_is_refused_at_once(
    tmp_path: Path, how: str, alarm: None, capsys: pytest.CaptureFixture[str]
) -> None:
    """The lock file exists only while a command runs, so the recorded run cannot list it: a
    link or FIFO in its place refuses every write, naming it, without waiting the lock's
    timeout out (the liveness bound is far below the 30 s a held lock is waited for)."""
    vault, outside = tmp_path / "vault", tmp_path / "outside.txt"
    outside.write_text("kept\n", encoding="utf-8")
    assert _cli(["vault", "init", "--vault", str(vault)])[0] == 0
    if how == "link":
        (vault / ".lock").symlink_to(outside)
    else:
        os.mkfifo(vault / ".lock")
    signal.alarm(20)
    try:
        code, _ = _cli(["vault", "archive", "--vault", str(vault), "--agent", "a"], "a line\n")
    finally:
        signal.alarm(0)
    assert code == 1
    assert f"{vault / '.lock'} is a {'symbolic link' if how == 'link' else 'FIFO'}" in (
        capsys.readouterr().err
    )
    assert outside.read_text(encoding="utf-8") == "kept\n"
    assert sorted(p.name for p in (vault / "sessions").iterdir()) == ["README.md"]


# -- export and import, between the folder vault and a real PostgreSQL server ------------------


class Databases:
    """A migrated empty database to copy for each run, and one holding the recorded vault."""

    def __init__(self, server: PgServer) -> None:
        self.server = server
        self.template = self._create("")
        assert _cli(["vault", "migrate-db", "--vault", server.url(self.template)])[0] == 0

    def _create(self, template: str) -> str:
        import psycopg

        name = "t_" + os.urandom(6).hex()
        like = f' TEMPLATE "{template}"' if template else ""
        with psycopg.connect(
            self.server.url("postgres"), password=self.server.password, autocommit=True
        ) as conn:
            conn.execute(f'CREATE DATABASE "{name}"{like}')
        return name

    def fresh(self) -> str:
        """The URL of a new migrated, empty database."""
        return self.server.url(self._create(self.template))


@pytest.fixture(scope="module")
def databases(pg_server: PgServer) -> Iterator[Databases]:
    saved = os.environ.get("PGPASSWORD")
    os.environ["PGPASSWORD"] = pg_server.password
    try:
        yield Databases(pg_server)
    finally:
        if saved is None:
            os.environ.pop("PGPASSWORD", None)
        else:
            os.environ["PGPASSWORD"] = saved


# The export reads the vault as the session's commands do (their FIFO pass covers those reads):
# a link pass keeps the suite cheap.
@pytest.mark.parametrize("recorded", ["default"], indirect=True)
@pytest.mark.parametrize("how", ["link"])
def test_export_to_postgresql_from_a_planted_vault(
    recorded: Recorded, databases: Databases, how: str, alarm: None
) -> None:
    """``vault export URL`` reads every file of the vault: at each recorded path of the vault
    planted, it copies what it can reach or refuses, naming the path (exit 0 or 1)."""
    failures = []
    url = databases.fresh()
    for path in [p for p in recorded.paths if recorded.vault in p.parents]:
        shown = path.relative_to(recorded.base).as_posix()
        _canary(recorded.canary)
        before = snapshot(recorded.canary)
        recorded.restore()
        _plant(recorded, path, how)
        signal.alarm(LIVENESS)
        try:
            code, _ = _cli(["vault", "export", url, "--vault", str(recorded.vault)])
        except Hang as exc:
            failures.append(f"{shown} ({how}): {exc}")
            continue
        except Exception as exc:  # a traceback is not how a command exits
            failures.append(f"{shown} ({how}): {type(exc).__name__}: {exc}")
            continue
        finally:
            signal.alarm(0)
        if code == 0:  # a refused export wrote nothing: its database is reused
            url = databases.fresh()
        if code not in (0, 1):
            failures.append(f"{shown} ({how}): exit status {code}")
        if snapshot(recorded.canary) != before:
            failures.append(f"{shown} ({how}): the canary changed")
    recorded.restore()
    assert failures == [], "\n".join(failures)


@pytest.mark.parametrize("recorded", ["default"], indirect=True)
@pytest.mark.parametrize("how", ["link", "fifo"])
def test_export_from_postgresql_into_a_planted_folder(
    recorded: Recorded, databases: Databases, how: str, alarm: None, tmp_path: Path
) -> None:
    """``vault export FOLDER`` of a database vault makes a new folder vault: recorded once,
    then each path it made (folders on the way made plain) planted alone in an empty target
    folder; the export refuses (exit 1) or goes round it (exit 0), writing nothing through it."""
    source = databases.fresh()
    recorded.restore()
    assert _cli(["vault", "export", source, "--vault", str(recorded.vault)])[0] == 0
    made = tmp_path / "made"
    assert _cli(["vault", "export", str(made), "--vault", source])[0] == 0
    paths = entries(made)
    assert {"notes/environment.md", "inbox/processed"} <= set(paths), paths
    failures = []
    target = tmp_path / "target"
    for rel in paths:
        _canary(recorded.canary)
        before = snapshot(recorded.canary)
        if target.exists():
            shutil.rmtree(target)
        planted = target / rel
        planted.parent.mkdir(parents=True, exist_ok=True)
        if (made / rel).is_dir():
            planted.mkdir()
        else:
            planted.touch()
        _plant(recorded, planted, how)
        signal.alarm(LIVENESS)
        try:
            code, _ = _cli(["vault", "export", str(target), "--vault", source])
        except Hang as exc:
            failures.append(f"{rel} ({how}): {exc}")
            continue
        except Exception as exc:  # a traceback is not how a command exits
            failures.append(f"{rel} ({how}): {type(exc).__name__}: {exc}")
            continue
        finally:
            signal.alarm(0)
        if code not in (0, 1):
            failures.append(f"{rel} ({how}): exit status {code}")
        if snapshot(recorded.canary) != before:
            failures.append(f"{rel} ({how}): the canary changed")
    assert failures == [], "\n".join(failures)
