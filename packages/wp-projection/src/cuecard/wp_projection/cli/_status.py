"""``cuecard wp status``: what is projected, from where, what waits, what was preserved."""

from __future__ import annotations

import argparse

from cuecard.core.cli import emit_json
from cuecard.wp_projection.cli._common import add_root


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "status",
        allow_abbrev=False,
        description=(
            "--json prints keys: root, managed, sites (last sequence, reconcile needed, "
            "bridge: the WordPress queue as the last pull found it, stale_agents: agent folders "
            "Data Machine no longer has), "
            "projected, queue (waiting, applied), preserved, refused (records not written), "
            "refused_events (requests the receiver refused: status, reason, event; status 0: "
            "accepted, then given up after its attempts to apply it), retrying (events waiting "
            "for another attempt: attempts, next attempt, last error), wired."
        ),
    )
    add_root(parser)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from cuecard.wp_projection._status import status_report
    from cuecard.wp_projection.cli._common import root_of

    report = status_report(root_of(args))
    if args.json:
        emit_json(report)
        return 0
    print(f"projection under {report['root']}/{report['managed']}")
    for site, state in report["sites"].items():
        need = (
            f"; reconcile needed ({state['reconcile_reason']})" if state["reconcile_needed"] else ""
        )
        print(f"site {site} ({state['home_url']}): last seq {state['last_seq']}{need}")
        _print_wordpress_side(state)
    print(f"projected files: {len(report['projected'])}")
    for item in report["projected"]:
        print(f"  {item['path']} (seq {item['seq']}, {item['source']})")
    queue = report["queue"]
    print(f"queue: {queue['waiting']} waiting, {queue['applied']} applied")
    for path, item in report["preserved"].items():
        beside = f"; incoming in {item['incoming']}" if item["incoming"] else ""
        print(f"preserved: {path}: {item['reason']}{beside}")
    for item in report["refused"]:
        print(f"refused: {item['path']}: {item['reason']}")
    for item in report["retrying"]:
        print(
            f"retrying event {item['event_id']} (seq {item['seq']}, {item['attempts']} failed, "
            f"next at {item['next_attempt_at']}): {item['last_error']}"
        )
    for event in report["refused_events"]:
        named = " ".join(
            f"{k}={event[k]}" for k in ("event_id", "seq", "layer", "filename") if k in event
        )
        print(f"refused event ({event['status']}, {event['at']}): {event['reason']} {named}")
    if report["wired"]:
        print("wired: " + ", ".join(report["wired"]))
    return 0


def _print_wordpress_side(state: dict[str, object]) -> None:
    """The bridge's queue and the stale agent folders, as the last pull found them."""
    bridge = state.get("bridge")
    if isinstance(bridge, dict):
        if bridge.get("error"):
            print(f"  WordPress queue: unknown ({bridge['error']}), asked {bridge['fetched_at']}")
        else:
            queue = bridge.get("queue") or {}
            assert isinstance(queue, dict)
            oldest = queue.get("oldest") or {}
            assert isinstance(oldest, dict)
            since = f", oldest queued {oldest.get('queued_at')}" if oldest else ""
            print(
                f"  WordPress queue: {queue.get('waiting', 0)} waiting{since} (asked "
                f"{bridge.get('fetched_at')})"
            )
            last = queue.get("last_error")
            if isinstance(last, dict):
                print(f"  last failed delivery ({last.get('at')}): {last.get('reason')}")
            for item in queue.get("set_aside") or []:
                print(f"  set aside by the bridge: {item.get('label')}: {item.get('reason')}")
    for stale in state.get("stale_agents") or []:  # type: ignore[attr-defined]
        kept = f"; kept: {', '.join(stale['kept'])}" if stale.get("kept") else ""
        print(
            f"  agent folder {stale['folder']} is gone from Data Machine (renamed or removed){kept}"
        )
