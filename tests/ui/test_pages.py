"""What the pages show, read over HTTP from one seeded project (nothing here changes it)."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from tests._support.ui import Seeded, Server


@pytest.fixture(scope="module")
def site(shared: tuple[Seeded, Server]) -> Iterator[tuple[Seeded, httpx.Client]]:
    seeded, server = shared
    client = server.client()
    try:
        yield seeded, client
    finally:
        client.close()


@pytest.mark.parametrize(
    ("queue", "shown", "count"),
    [
        ("candidates", ["refund() needs the original charge id", "amounts in billing"], 2),
        ("contested", ["deploys only before 15:00 UTC"], 1),
        ("auto-accepted", ["routes.py order decides precedence"], 1),
        ("requests", ["finance moved to the CSV export", "FAKE_CLOCK and TZ=UTC"], 2),
        ("stale-evidence", ["run billing tests with the fake clock"], 1),
        ("dead-triggers", ["the legacy XML export", "backups run from cron"], 2),
        ("not-derivable", ["backups run from cron on db-1"], 1),
        ("vault-conflicts", ["port 5434", "port 5433"], 1),
        ("vault-pending", ["Nothing waits for promotion.", "1 file(s) wait in the inbox"], 0),
        ("vault-forget", ["No fact is due to be forgotten."], 0),
    ],
)
def test_each_queue_lists_what_waits(
    site: tuple[Seeded, httpx.Client], queue: str, shown: list[str], count: int
) -> None:
    _seeded, client = site
    page = client.get(f"/queues/{queue}")
    assert page.status_code == 200
    for text in shown:
        assert text in page.text, text
    assert f'data-queue="{queue}">{count}</span>' in page.text


def test_the_header_counts(site: tuple[Seeded, httpx.Client]) -> None:
    page = client_text(site, "/")
    assert '<strong id="count-active">4</strong>' in page
    assert '<strong id="count-memories">9</strong>' in page
    assert '<strong id="count-waiting">11</strong>' in page


def client_text(site: tuple[Seeded, httpx.Client], path: str) -> str:
    answer = site[1].get(path)
    assert answer.status_code == 200, answer.text
    return answer.text


def test_a_memory_page_shows_breadth_evidence_use_similar_and_history(
    site: tuple[Seeded, httpx.Client],
) -> None:
    seeded, _client = site
    page = client_text(site, f"/memories/{seeded.ids['stale']}")
    assert "Its triggers match <strong>1</strong> of 6 recorded events" in page
    assert "stale: the file changed since it was recorded" in page
    assert "Delivered 1 time(s). Fires by dimension: commands 1." in page
    revision = client_text(site, f"/memories/{seeded.ids['revision']}")
    assert "Revises <a href" in revision
    similar = revision.split('id="h-similar"')[1].split("</section>")[0]
    assert "run billing tests with the fake clock" in similar, "a live memory reads alike"
    assert "Seed: seed" in page, "the git commit of its file"
    auto = client_text(site, f"/memories/{seeded.ids['auto']}")
    assert "Fires by dimension: paths 2." in auto
    assert "unchanged" in auto
    assert "no person has reviewed it yet" in auto


def test_memory_text_is_escaped_everywhere(site: tuple[Seeded, httpx.Client]) -> None:
    seeded, _client = site
    for path in (f"/memories/{seeded.ids['html']}", "/memories", "/memories?status=archived"):
        page = client_text(site, path)
        assert "<script>alert" not in page
        assert '<img src=x onerror="alert(1)">' not in page
        assert "&lt;script&gt;alert" in page
        assert page.count("</textarea>") == page.count("<textarea"), "no textarea is closed early"


def test_settings_show_the_health_report_and_charts(site: tuple[Seeded, httpx.Client]) -> None:
    page = client_text(site, "/settings")
    assert "the same data as <code>cuecard health --json</code>" in page
    assert page.count('<svg xmlns="http://www.w3.org/2000/svg" class="chart"') == 3
    assert "Memories delivered per day" in page
    assert "Capture funnel" in page
    assert 'name="delivery_limit"' in page
    assert 'value="10000"' in page


def test_the_memory_list_filters_by_status(site: tuple[Seeded, httpx.Client]) -> None:
    page = client_text(site, "/memories?status=contested")
    assert "deploys only before 15:00 UTC" in page
    assert "refund() needs" not in page
    empty = client_text(site, "/memories?status=superseded")
    assert "No memories are superseded." in empty
