"""The path-safety rules (the package README, "On disk"), a row per rule, and the record mapping."""

from __future__ import annotations

import pytest

from cuecard.wp_projection import PathRefused, normalise_relative, record_path, site_key
from tests._support.wp_corpus import PATH_RULES as REFUSED

ACCEPTED = [
    # the rows of Data Machine Code's own path smoke test
    ("MEMORY.md", "MEMORY.md"),
    ("contexts//code.md", "contexts/code.md"),
    ("./AGENTS.md", "AGENTS.md"),
    # derived rows
    (".//a", "a"),
    ("././a", "a"),
    (" \tMEMORY.md\n\r\x0b", "MEMORY.md"),
    ("daily/2026/04/17.md", "daily/2026/04/17.md"),
    ("a\\b.md", "a/b.md"),
    ("USER_MEMORY.md", "USER_MEMORY.md"),
    ("x-y_z.1.md", "x-y_z.1.md"),
]


@pytest.mark.parametrize(("raw", "expected"), ACCEPTED, ids=[repr(r) for r, _ in ACCEPTED])
def test_accepted_paths_normalise(raw: str, expected: str) -> None:
    assert normalise_relative(raw) == expected


@pytest.mark.parametrize(("raw", "rule"), REFUSED, ids=[repr(r)[:40] for r, _ in REFUSED])
def test_refused_paths_name_the_rule(raw: str, rule: str) -> None:
    with pytest.raises(PathRefused) as caught:
        normalise_relative(raw)
    message = str(caught.value)
    assert rule.split(" (")[0].split("'")[0] in message
    assert "(rule " + rule.rsplit("(rule ", 1)[1] in message


def test_nfc_normalisation_happens_before_the_alphabet_check() -> None:
    # A decomposed accent is still outside the alphabet once composed: refused either way.
    with pytest.raises(PathRefused, match="rule 10"):
        normalise_relative("cafe\u0301.md")


LAYOUT = [
    ("shared", 0, 0, None, "SITE.md", "s/shared/SITE.md"),
    ("network", 0, 0, None, "NETWORK.md", "s/network/NETWORK.md"),
    ("agent", 1, 0, "admin", "MEMORY.md", "s/agents/admin/MEMORY.md"),
    ("agent", 1, 1, "admin", "MEMORY.md", "s/agents/admin/MEMORY.md"),
    ("agent", 1, 7, None, "SOUL.md", "s/agents/agent-7/SOUL.md"),
    ("agent", 1, 0, "admin", "daily/2026/04/17.md", "s/agents/admin/daily/2026/04/17.md"),
    ("user", 3, 0, "admin", "USER.md", "s/users/3/USER.md"),
    ("principal", 3, 1, "admin", "USER_MEMORY.md", "s/agents/admin/users/3/USER_MEMORY.md"),
]


def test_an_agent_folder_is_data_machines_own_suffix_included() -> None:
    ours = record_path("s", "agent", 1, 7, "ops", "MEMORY.md", "ops--0123456789abcdef")
    assert ours == "s/agents/ops--0123456789abcdef/MEMORY.md"
    assert record_path("s", "agent", 1, 8, "ops", "MEMORY.md", "ops") == "s/agents/ops/MEMORY.md"


@pytest.mark.parametrize(("layer", "user", "agent", "slug", "name", "path"), LAYOUT)
def test_records_map_to_the_d5_layout(layer, user, agent, slug, name, path) -> None:
    assert record_path("s", layer, user, agent, slug, name) == path


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("bogus", 1, 0, "a", "x.md"), "scope.layer 'bogus' must be one of"),
        (("agent", -1, 0, "a", "x.md"), "scope.user_id -1 must be a non-negative integer"),
        (("agent", 1, True, "a", "x.md"), "scope.agent_id True must be a non-negative integer"),
        (("agent", 1, 0, "Bad_Slug", "x.md"), "scope.agent_slug 'Bad_Slug' must match"),
        (("agent", 1, 0, "../x", "x.md"), "scope.agent_slug '../x' must match"),
        (("agent", 1, 0, None, "x.md"), "agent_slug is missing and scope.agent_id is 0"),
        (("principal", 0, 1, "a", "x.md"), "user_id must be positive for the principal layer"),
        (("agent", 1, 0, "a", "users/2/USER_MEMORY.md"), "is not a name Data Machine's layouts"),
        (("agent", 1, 0, "a", "x.md", "Bad--dir"), "scope.agent_dir 'Bad--dir' must match"),
        (("agent", 1, 0, "refs", "x.md"), "scope.agent_slug 'refs' must match"),
        (("agent", 1, 0, "a", "../../etc/passwd"), "scope.filename: path"),
    ],
)
def test_identity_fields_are_checked(args, message) -> None:
    with pytest.raises(PathRefused, match=message.replace("(", r"\(").replace(".", r"\.")):
        record_path("s", *args)


def test_the_workspace_id_is_never_used_raw() -> None:
    key = site_key("http://127.0.0.1:8089/")
    assert key == site_key("http://127.0.0.1:8089")
    assert key.startswith("site-")
    assert ":" not in key
    assert "/" not in key
    assert site_key("https://a.example", {"https://a.example": "prod"}) == "prod"
    with pytest.raises(PathRefused, match="site alias"):
        site_key("https://a.example", {"https://a.example": "../up"})
