"""The delivery history the pages show survives `cuecard maintain`, which moves the ledger's lines
into ``telemetry.sqlite``: the UI reads the same history as `cuecard health`."""

from __future__ import annotations

import json
from typing import Any

from tests._support.cli import run_cli
from tests._support.ui import InThread, Seeded, Server


def _section(page: str, heading: str) -> str:
    return page.split(f'id="{heading}"', 1)[1].split("</section>", 1)[0]


def _figures(page: str) -> list[str]:
    return [part.split("</figure>", 1)[0] for part in page.split("<figure>")[1:]]


def _shown(seeded: Seeded) -> dict[str, Any]:
    """What the UI and `cuecard health --json` say about deliveries."""
    running = InThread(seeded)
    try:
        client = Server(running.served.url, None).client()
        memories = {
            role: _section(client.get(f"/memories/{seeded.ids[role]}").text, "h-use")
            for role in ("auto", "stale")
        }
        settings = client.get("/settings").text
        client.close()
    finally:
        running.stop()
    health = run_cli("health", "--json", cwd=seeded.root)
    assert health.returncode == 0, health.stderr
    report = json.loads(health.stdout)
    return {
        "memory pages": memories,
        "settings charts": [f for f in _figures(settings) if "Capture funnel" not in f],
        "health": {
            "fires": {m["id"]: (m["fires"], m["last_delivered"]) for m in report["memories"]},
            "last_deliveries": report["last_deliveries"],
        },
    }


def test_maintenance_keeps_the_deliveries_the_ui_and_health_show(seeded: Seeded) -> None:
    ledger = seeded.root / ".cuecard/local/ledger.jsonl"
    assert ledger.stat().st_size > 0
    before = _shown(seeded)
    assert "Delivered 2 time(s). Fires by dimension: paths 2." in before["memory pages"]["auto"]
    assert "Delivered 1 time(s)" in before["memory pages"]["stale"]
    assert len(before["settings charts"]) == 2, "deliveries per day and fires by dimension"
    assert len(before["health"]["last_deliveries"]) == 3

    done = run_cli("maintain", cwd=seeded.root)
    assert done.returncode == 0, done.stderr
    assert not ledger.exists() or ledger.stat().st_size == 0, "maintenance drained the ledger"
    assert (seeded.root / ".cuecard/local/telemetry.sqlite").is_file()

    assert _shown(seeded) == before
