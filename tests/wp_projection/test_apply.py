"""Applying records to disk: symlinks at every level, ownership, local edits, ordering."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cuecard.wp_projection import Change, PathRefused, Projector, SafeRoot

SITE = "s"


def update(path: str, content: bytes, seq: int | None = 1, **kw: Any) -> Change:
    return Change(
        kind="update",
        site=SITE,
        home_url="https://a.example",
        path=path,
        layer=kw.pop("layer", "agent"),
        filename=path.rsplit("/", 1)[-1],
        content=content,
        seq=seq,
        **kw,
    )


def delete(path: str, seq: int | None = 2) -> Change:
    return Change(
        kind="delete",
        site=SITE,
        home_url="https://a.example",
        path=path,
        layer="agent",
        filename=path.rsplit("/", 1)[-1],
        seq=seq,
    )


@pytest.fixture
def root(tmp_path: Path) -> Path:
    runtime = tmp_path / "runtime"
    runtime.mkdir()
    return runtime


@pytest.fixture
def projector(root: Path) -> Projector:
    return Projector(SafeRoot(root))


def manifest(root: Path) -> dict[str, Any]:
    data = json.loads((root / ".dm-memory" / ".manifest.json").read_text())
    assert isinstance(data, dict)
    return data


def test_a_record_is_written_with_a_manifest_entry(root, projector) -> None:
    result = projector.apply([update("s/agents/admin/MEMORY.md", b"hello\n")])
    assert [o.action for o in result.outcomes] == ["written"]
    target = root / ".dm-memory/s/agents/admin/MEMORY.md"
    assert target.read_bytes() == b"hello\n"
    assert oct(target.stat().st_mode & 0o777) == "0o644"
    entry = manifest(root)["records"]["s/agents/admin/MEMORY.md"]
    assert entry["hash"] == "f572d396fae9206628714fb2ce00f72e94f2258f"
    assert entry["seq"] == 1
    assert entry["deleted"] is False


def test_private_layers_are_written_0600(root, projector) -> None:
    projector.apply([update("s/users/3/USER.md", b"me\n", layer="user")])
    assert oct((root / ".dm-memory/s/users/3/USER.md").stat().st_mode & 0o777) == "0o600"


def test_same_hash_is_not_rewritten_and_keeps_its_mtime(root, projector) -> None:
    projector.apply([update("s/shared/SITE.md", b"site\n", seq=1)])
    target = root / ".dm-memory/s/shared/SITE.md"
    os.utime(target, ns=(1_000_000_000, 1_000_000_000))
    inode = target.stat().st_ino
    result = projector.apply([update("s/shared/SITE.md", b"site\n", seq=2)])
    assert [o.action for o in result.outcomes] == ["unchanged"]
    assert target.stat().st_mtime_ns == 1_000_000_000
    assert target.stat().st_ino == inode
    assert manifest(root)["records"]["s/shared/SITE.md"]["seq"] == 2


def test_older_sequence_numbers_are_dropped(root, projector) -> None:
    projector.apply([update("s/shared/SITE.md", b"v5\n", seq=5)])
    result = projector.apply([update("s/shared/SITE.md", b"v4\n", seq=4)])
    assert [o.action for o in result.outcomes] == ["stale"]
    assert (root / ".dm-memory/s/shared/SITE.md").read_bytes() == b"v5\n"


def test_a_delete_is_a_tombstone_and_a_later_update_recreates(root, projector) -> None:
    path = "s/agents/admin/scratch.md"
    projector.apply([update(path, b"x\n", seq=1)])
    result = projector.apply([delete(path, seq=2), update(path, b"old\n", seq=2)])
    assert [o.action for o in result.outcomes] == ["deleted", "stale"]
    assert not (root / ".dm-memory" / path).exists()
    assert manifest(root)["records"][path]["deleted"] is True
    projector.apply([update(path, b"again\n", seq=3)])
    assert (root / ".dm-memory" / path).read_bytes() == b"again\n"


def test_a_local_edit_is_preserved_and_the_incoming_version_goes_beside(root, projector) -> None:
    path = "s/agents/admin/MEMORY.md"
    projector.apply([update(path, b"v1\n", seq=1)])
    target = root / ".dm-memory" / path
    target.write_bytes(b"my local notes\n")
    result = projector.apply([update(path, b"v2\n", seq=2)])
    assert [o.action for o in result.outcomes] == ["preserved"]
    assert target.read_bytes() == b"my local notes\n"
    assert (root / ".dm-memory" / (path + ".incoming")).read_bytes() == b"v2\n"
    assert manifest(root)["preserved"][path]["reason"] == "local edit"
    # A delete upstream does not remove the edited file either.
    result = projector.apply([delete(path, seq=3)])
    assert [o.action for o in result.outcomes] == ["preserved"]
    assert target.read_bytes() == b"my local notes\n"


def test_a_local_copy_of_the_incoming_version_is_adopted(root, projector) -> None:
    path = "s/agents/admin/MEMORY.md"
    projector.apply([update(path, b"v1\n", seq=1)])
    (root / ".dm-memory" / path).write_bytes(b"v2\n")
    result = projector.apply([update(path, b"v2\n", seq=2)])
    assert [o.action for o in result.outcomes] == ["adopted"]
    assert path not in manifest(root)["preserved"]


def test_a_file_the_projection_does_not_own_is_never_replaced(root, projector) -> None:
    target = root / ".dm-memory/s/shared/RULES.md"
    target.parent.mkdir(parents=True)
    target.write_bytes(b"hand written\n")
    result = projector.apply([update("s/shared/RULES.md", b"from wordpress\n")])
    assert [o.action for o in result.outcomes] == ["preserved"]
    assert target.read_bytes() == b"hand written\n"
    assert manifest(root)["preserved"]["s/shared/RULES.md"]["reason"] == (
        "file not owned by the projection"
    )
    # Deleting a record we never owned leaves the file alone.
    projector.apply([delete("s/shared/RULES.md", seq=5)])
    assert target.read_bytes() == b"hand written\n"


def test_case_collisions_are_refused(root, projector) -> None:
    projector.apply([update("s/shared/A.md", b"upper\n")])
    result = projector.apply([update("s/shared/a.md", b"lower\n", seq=2)])
    assert result.outcomes[0].action == "refused"
    assert "collides with s/shared/A.md ignoring case (rule 11)" in result.outcomes[0].detail
    assert not (root / ".dm-memory/s/shared/a.md").exists()


def test_content_holding_a_credential_is_refused(root, projector) -> None:
    key = "AKIA" + "ABCDEFGHIJKLMNOP"
    result = projector.apply([update("s/shared/SITE.md", f"aws {key}\n".encode())])
    assert result.outcomes[0].action == "refused"
    assert key not in result.outcomes[0].detail
    assert not (root / ".dm-memory/s/shared/SITE.md").exists()
    assert key not in (root / ".dm-memory/.manifest.json").read_text()


def test_several_versions_in_one_batch_end_with_the_last(root, projector) -> None:
    path = "s/agents/admin/MEMORY.md"
    result = projector.apply([update(path, f"v{i}\n".encode(), seq=i) for i in range(1, 6)])
    assert [o.action for o in result.outcomes] == ["written"] * 5
    assert (root / ".dm-memory" / path).read_bytes() == b"v5\n"


# -- planted symlinks at every level ----------------------------------------------------------

LEVELS = [".dm-memory", ".dm-memory/s", ".dm-memory/s/agents", ".dm-memory/s/agents/admin"]


@pytest.mark.parametrize("level", LEVELS)
def test_a_symlinked_parent_at_any_level_is_refused(root, tmp_path, level) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "MEMORY.md").write_bytes(b"outside, untouched\n")
    parent = root / level
    parent.parent.mkdir(parents=True, exist_ok=True)
    parent.symlink_to(outside, target_is_directory=True)
    if level == ".dm-memory":
        with pytest.raises(PathRefused, match="symbolic link, not a folder"):
            Projector(SafeRoot(root)).apply([update("s/agents/admin/MEMORY.md", b"evil\n")])
    else:
        result = Projector(SafeRoot(root)).apply([update("s/agents/admin/MEMORY.md", b"evil\n")])
        assert result.outcomes[0].action == "refused"
        assert "symbolic link, not a folder" in result.outcomes[0].detail
    assert sorted(p.name for p in outside.iterdir()) == ["MEMORY.md"]
    assert (outside / "MEMORY.md").read_bytes() == b"outside, untouched\n"


def test_a_symlinked_target_is_refused_and_its_target_untouched(root, tmp_path, projector) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_bytes(b"keep me\n")
    folder = root / ".dm-memory/s/agents/admin"
    folder.mkdir(parents=True)
    (folder / "MEMORY.md").symlink_to(victim)
    result = projector.apply([update("s/agents/admin/MEMORY.md", b"evil\n")])
    assert result.outcomes[0].action == "refused"
    assert "is a symbolic link" in result.outcomes[0].detail
    assert victim.read_bytes() == b"keep me\n"
    assert (folder / "MEMORY.md").is_symlink()


def test_a_symlink_planted_after_projection_is_not_deleted_through(
    root, tmp_path, projector
) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_bytes(b"keep me\n")
    path = "s/agents/admin/MEMORY.md"
    projector.apply([update(path, b"v1\n")])
    target = root / ".dm-memory" / path
    target.unlink()
    target.symlink_to(victim)
    result = projector.apply([delete(path, seq=2)])
    assert result.outcomes[0].action == "refused"
    assert victim.read_bytes() == b"keep me\n"


def test_a_symlinked_lock_or_manifest_is_refused(root, tmp_path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_bytes(b"keep me\n")
    (root / ".dm-memory").mkdir()
    (root / ".dm-memory/.lock").symlink_to(victim)
    with pytest.raises(PathRefused, match="symbolic link"):
        Projector(SafeRoot(root)).apply([update("s/shared/SITE.md", b"x\n")])
    assert victim.read_bytes() == b"keep me\n"


@pytest.mark.parametrize("bad", ["relative/root", "/"])
def test_the_runtime_root_must_be_absolute_and_not_slash(bad) -> None:
    with pytest.raises(PathRefused, match="rule 13"):
        SafeRoot(Path(bad))


# -- nothing ever lands outside the managed folder --------------------------------------------

TOKENS = [*"aZ09._-/\\:~ \x00\x01%", "..", "CON", "é", "users", "index.php"]
SEGMENT = st.lists(st.sampled_from(TOKENS), max_size=8).map("".join)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    layer=st.sampled_from(["shared", "agent", "user", "principal", "network", "other"]),
    slug=st.one_of(st.none(), st.text(alphabet="ab-./_", max_size=6)),
    filename=st.lists(SEGMENT, min_size=1, max_size=4).map("/".join),
    user=st.integers(min_value=-1, max_value=3),
)
def test_no_input_ever_writes_outside_the_managed_folder(
    tmp_path_factory, layer, slug, filename, user
):
    from cuecard.wp_projection import record_path

    base = tmp_path_factory.mktemp("prop")
    root = base / "runtime"
    root.mkdir()
    (base / "sibling").mkdir()
    try:
        path = record_path("s", layer, user, 1, slug or None, filename)
    except PathRefused:
        return
    Projector(SafeRoot(root)).apply(
        [update(path, b"data\n", layer=layer if layer != "other" else "agent")]
    )
    everything = list(base.rglob("*"))
    managed = root / ".dm-memory"
    for item in everything:
        assert item in (managed, root, base / "sibling") or managed in item.parents, item
    assert os.path.realpath(managed / path).startswith(str(managed) + "/")


def test_concurrent_writers_on_one_root_lose_nothing(root) -> None:
    import threading

    def writer(name: str) -> None:
        projector = Projector(SafeRoot(root))  # its own lock descriptor, as another process has
        for i in range(15):
            projector.apply([update(f"s/agents/{name}/f{i}.md", f"{name}{i}\n".encode(), seq=i)])

    threads = [threading.Thread(target=writer, args=(n,)) for n in ("a", "b", "c")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    records = manifest(root)["records"]
    assert len(records) == 45
    for name in ("a", "b", "c"):
        for i in range(15):
            path = f"s/agents/{name}/f{i}.md"
            assert records[path]["seq"] == i
            assert (root / ".dm-memory" / path).read_text() == f"{name}{i}\n"


@pytest.mark.parametrize("side", ["", "-wal", "-shm", "-journal"])
@pytest.mark.parametrize("kind", ["link", "fifo"])
def test_the_queue_database_and_its_side_files_are_never_opened_through_a_link_or_fifo(
    root, tmp_path, side, kind
) -> None:
    from cuecard.wp_projection._queue import QUEUE_NAME, queue_counts

    victim = tmp_path / "victim.sqlite"
    victim.write_bytes(b"keep me\n")
    managed = root / ".dm-memory"
    managed.mkdir()
    if side:
        (managed / QUEUE_NAME).write_bytes(b"")
    planted = managed / (QUEUE_NAME + side)
    if kind == "link":
        planted.symlink_to(victim)
    else:
        os.mkfifo(planted)
    safe = SafeRoot(root)
    with pytest.raises(PathRefused, match=r"\.queue\.sqlite"):
        safe.database(QUEUE_NAME)
    with pytest.raises(PathRefused):
        queue_counts(safe.existing_database(QUEUE_NAME))
    assert victim.read_bytes() == b"keep me\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["runtime", "victim.sqlite"]


@pytest.mark.parametrize("planted", ["database", "folder"])
def test_a_queue_swapped_for_a_link_after_its_check_is_never_opened(
    root, tmp_path, planted
) -> None:
    """``SafeRoot.database`` checks the queue; SQLite opens it later (the receiver's committer
    thread, `cuecard wp status`): a link swapped in between, as the database or as the managed
    folder, is refused when SQLite opens it, not followed."""
    import sqlite3

    from cuecard.wp_projection._queue import QUEUE_NAME, DurableQueue, queue_counts

    outside = tmp_path / "outside"
    outside.mkdir()
    with sqlite3.connect(outside / QUEUE_NAME) as conn:
        conn.execute("CREATE TABLE events (applied_at)")
        conn.execute("INSERT INTO events VALUES (NULL)")
    conn.close()
    victim = (outside / QUEUE_NAME).read_bytes()
    safe = SafeRoot(root)
    checked = safe.database(QUEUE_NAME)
    DurableQueue(checked).close()
    assert queue_counts(checked) == {"waiting": 0, "applied": 0}
    managed = root / ".dm-memory"
    if planted == "database":
        (managed / QUEUE_NAME).rename(managed / "kept.sqlite")
        (managed / QUEUE_NAME).symlink_to(outside / QUEUE_NAME)
    else:
        managed.rename(root / "kept")
        managed.symlink_to(outside)
    with pytest.raises(PathRefused, match="symbolic link"):
        queue_counts(checked)
    with pytest.raises(PathRefused, match="symbolic link"):
        DurableQueue(checked)
    assert (outside / QUEUE_NAME).read_bytes() == victim
    assert sorted(p.name for p in outside.iterdir()) == [QUEUE_NAME]
