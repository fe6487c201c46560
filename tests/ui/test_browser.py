"""End to end in real Chromium (Debian's, driven by Playwright; never a downloaded browser).

Each test saves a screenshot in its own output folder (``tmp_path``). With
``CUECARD_UI_SCREENSHOTS=DIR`` set, the main-page test also writes the README screenshots there.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect, sync_playwright

from tests._support.ui import Seeded, Server

os.environ.setdefault("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")
expect.set_options(timeout=20_000)  # a bound on waiting for the page, not a speed assertion

CHROMIUM = "/usr/bin/chromium"
REFUSED = "Failed to load resource: the server responded with a status of 4"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    assert Path(CHROMIUM).is_file(), "Chromium is missing: run scripts/deps/chromium.sh"
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: Any, tmp_path: Path) -> Iterator[Any]:
    """A fresh browser context at 1280 px; fails the test on any console error (CSP included)."""
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    tab = context.new_page()
    errors: list[str] = []

    def console(message: Any) -> None:
        # A refused change (4xx) is logged by Chromium and shown by the page: expected here.
        if message.type == "error" and not message.text.startswith(REFUSED):
            errors.append(message.text)

    tab.on("console", console)
    tab.on("pageerror", lambda e: errors.append(str(e)))
    tab.on("dialog", lambda d: d.accept())
    yield tab
    context.close()
    assert errors == [], errors


def shot(page: Any, tmp_path: Path, name: str) -> Path:
    path = tmp_path / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    assert path.stat().st_size > 1000
    return path


def test_open_the_printed_url_and_accept_a_candidate(
    ui: Server, seeded: Seeded, page: Any, tmp_path: Path
) -> None:
    page.goto(ui.url)
    assert page.url == ui.base + "/", "the key leaves the address bar"
    cookie = next(c for c in page.context.cookies() if c["name"] == f"cuecard_ui_{ui.port}")
    assert cookie["httpOnly"]
    assert cookie["sameSite"] == "Strict"
    assert page.evaluate("document.cookie") == "", "scripts cannot read the key"
    expect(page.locator("h1")).to_have_text("Overview")
    expect(page.locator("#count-waiting")).not_to_have_text("0")
    page.locator('nav a[href="/queues/candidates"]').click()
    expect(page.locator("h1")).to_contain_text("Candidates")
    item = page.locator("li.item", has_text="refund() needs the original charge id")
    item.get_by_role("button", name="Accept").click()
    expect(page.locator("#flash")).to_contain_text("is now active")
    expect(page.locator("li.item", has_text="refund() needs")).to_have_count(0)
    assert seeded.memory("candidate")["status"] == "active"
    shot(page, tmp_path, "accepted")


def test_a_bad_glob_is_shown_next_to_its_field(
    live: Server, seeded: Seeded, page: Any, tmp_path: Path
) -> None:
    before = seeded.memory_bytes("candidate")
    page.goto(live.url)
    page.goto(f"{live.base}/memories/{seeded.ids['candidate']}")
    paths = page.locator('textarea[data-field="triggers[0].paths"]')
    paths.fill("billing/**\n../secrets/**")
    page.get_by_role("button", name="Save changes").click()
    error = page.locator('[data-error-for="triggers[0].paths"]')
    expect(error).to_be_visible()
    expect(error).to_contain_text('"../secrets/**" leaves the repository')
    expect(paths).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#flash")).to_contain_text("Not saved")
    assert seeded.memory_bytes("candidate") == before
    shot(page, tmp_path, "bad-glob")
    paths.fill("billing/*.py")  # fixing it saves, and the page shows the new trigger
    page.get_by_role("button", name="Save changes").click()
    expect(page.locator("#flash")).to_contain_text("saved triggers")
    assert seeded.memory("candidate")["triggers"][0]["paths"] == ["billing/*.py"]


def test_a_dry_run_lists_the_events_an_edited_trigger_fires_on(
    live: Server, seeded: Seeded, page: Any, tmp_path: Path
) -> None:
    page.goto(live.url)
    page.goto(f"{live.base}/memories/{seeded.ids['candidate']}")
    expect(page.locator("#breadth")).to_contain_text("match 3 of 6 recorded events")
    page.locator('textarea[data-field="triggers[0].paths"]').fill("src/api/**")
    page.get_by_role("button", name="Dry run these triggers").click()
    expect(page.locator("#dry-run-summary")).to_contain_text("1 of 6 recorded events")
    rows = page.locator("#dry-run-hits tr")
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("read src/api/routes.py")
    assert seeded.memory("candidate")["triggers"][0]["paths"] == ["billing/**"], "not saved"
    shot(page, tmp_path, "dry-run")


def test_a_vault_conflict_is_adjudicated(
    live: Server, seeded: Seeded, page: Any, tmp_path: Path
) -> None:
    page.goto(live.url)
    page.locator('nav a[href="/queues/vault-conflicts"]').click()
    conflict = page.locator("li.conflict")
    expect(conflict).to_contain_text("port 5434")
    shot(page, tmp_path, "conflict")
    conflict.get_by_role("button", name="Use new").click()
    expect(page.locator("#flash")).to_contain_text("use-new")
    expect(page.locator("li.conflict")).to_have_count(0)
    expect(page.locator("main")).to_contain_text("No conflicts wait.")
    notes = "".join(p.read_text() for p in (seeded.vault / "notes").glob("*.md"))
    assert "port 5434" in notes
    assert "port 5433" not in notes
    log = (seeded.vault / "review/adjudicated.md").read_text()
    assert "5434" in log


def test_what_the_vault_has_to_say_is_flashed_as_a_note(
    live: Server, seeded: Seeded, page: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CUECARD_VAULT_MIRROR", "postgresql://nobody@127.0.0.1:1/none")
    page.goto(live.url)
    page.locator('nav a[href="/queues/vault-conflicts"]').click()
    page.locator("li.conflict").get_by_role("button", name="Use new").click()
    flash = page.locator("#flash")
    expect(flash).to_contain_text("use-new")
    expect(flash).to_contain_text("warning: the vault mirror was not updated")
    expect(flash).to_have_class("flash note")


def test_an_auto_accepted_memory_is_marked_reviewed_from_the_keyboard(
    live: Server, seeded: Seeded, page: Any, tmp_path: Path
) -> None:
    page.goto(live.url)
    page.goto(f"{live.base}/queues/auto-accepted")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.textContent") == "Skip to content"
    button = page.get_by_role("button", name="Mark reviewed")
    button.focus()
    page.keyboard.press("Enter")
    expect(page.locator("#flash")).to_contain_text("marked reviewed")
    expect(page.locator("main")).to_contain_text("has been reviewed")
    saved = seeded.memory("auto")
    assert saved["review"]["reviewed_by"] == "tester"
    shot(page, tmp_path, "reviewed")


def test_a_batch_is_accepted_and_the_refused_member_explained(
    live: Server, seeded: Seeded, page: Any, tmp_path: Path
) -> None:
    page.goto(live.url)
    page.goto(f"{live.base}/queues/candidates")
    page.get_by_role("button", name="Accept batch b1").click()
    flash = page.locator("#flash")
    expect(flash).to_contain_text("1 accepted, 1 refused")
    expect(flash).to_contain_text("not_derivable is required")
    assert seeded.memory("candidate")["status"] == "active"
    assert seeded.memory("unready")["status"] == "candidate"
    shot(page, tmp_path, "batch")


def test_settings_turn_auto_accept_off(
    live: Server, seeded: Seeded, page: Any, tmp_path: Path
) -> None:
    page.goto(live.url)
    page.goto(f"{live.base}/settings")
    expect(page.locator("svg.chart").first).to_be_visible()
    page.get_by_label("Auto-accept", exact=False).uncheck()
    page.get_by_role("button", name="Save settings").click()
    expect(page.locator("#flash")).to_contain_text("auto-accept off")
    config = json.loads((seeded.root / ".cuecard/config.json").read_text())
    assert config["auto_accept"] is False
    shot(page, tmp_path, "settings")


MAIN_PAGES = {
    "overview": "/",
    "candidates": "/queues/candidates",
    "memory": "/memories/{candidate}",
    "requests": "/queues/requests",
    "vault-conflicts": "/queues/vault-conflicts",
    "settings": "/settings",
}


def test_main_pages_fit_a_wide_and_a_laptop_screen(
    ui: Server, seeded: Seeded, browser: Any, tmp_path: Path
) -> None:
    keep = os.environ.get("CUECARD_UI_SCREENSHOTS")
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    tab = context.new_page()
    tab.goto(ui.url)
    for width, height in ((1280, 800), (1366, 768)):
        tab.set_viewport_size({"width": width, "height": height})
        for name, path in MAIN_PAGES.items():
            tab.goto(ui.base + path.format(candidate=seeded.ids["candidate"]))
            expect(tab.locator("h1")).to_be_visible()
            overflow = tab.evaluate("document.scrollingElement.scrollWidth - window.innerWidth")
            assert overflow <= 0, f"{name} scrolls sideways by {overflow}px at {width}px"
            if width == 1280:
                saved = shot(tab, tmp_path, name)
                if keep:
                    Path(keep).mkdir(parents=True, exist_ok=True)
                    shutil.copy(saved, Path(keep) / f"{name}.png")
    context.close()
