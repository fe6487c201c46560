"""``cuecard health``: dead triggers, unused memories, hubs, false alarms, the capture funnel."""

from __future__ import annotations

import argparse
from typing import Any

from cuecard.core.cli._output import emit_json


def _description() -> str:
    from cuecard.core.lifecycle._health import KEYS, MEMORY_KEYS

    keys = "; ".join(f"{k}: {v}" for k, v in KEYS.items() if k != "memories")
    per = "; ".join(f"{k}: {v}" for k, v in MEMORY_KEYS.items())
    return (
        "Report how the project's memories fare, from the store, the repository's files and the "
        "recorded sessions (rolled up or not). Tables on a terminal; --json prints one object "
        f"with keys: memories (one entry per memory: {per}); {keys}."
    )


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "health",
        description=_description(),
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(run=run)


def _table(title: str, header: list[str], rows: list[list[str]]) -> None:
    print(f"\n{title}")
    if not rows:
        print("  (none)")
        return
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        print("  " + "  ".join(str(c).ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())


def _render(report: dict[str, Any]) -> None:
    titles = {m["id"]: m["title"] for m in report["memories"]}

    def name(ident: str) -> str:
        return f"{ident[:8]} {titles.get(ident, '')[:50]}"

    rows = [
        [
            m["id"][:8],
            m["status"],
            m["title"][:40],
            ", ".join(f"{d} {n}" for d, n in m["fires"].items()) or "-",
            str(m["opportunities"]),
            (m["last_delivered"] or "-")[:19],
        ]
        for m in report["memories"]
    ]
    print(f"{len(report['memories'])} memories, {report['sessions']} sessions recorded")
    _table("Memories", ["id", "status", "title", "fires", "chances", "last delivered"], rows)
    _table(
        "Dead triggers (clauses matching no file)",
        ["memory", "clause"],
        [[name(d["id"]), str(d["clause"])] for d in report["dead_triggers"]],
    )
    _table(
        "Command triggers that never fire",
        ["memory", "command", "why"],
        [[name(d["id"]), d["command"], d["reason"]] for d in report["dead_commands"]],
    )
    _table(
        "Stale evidence",
        ["memory", "file"],
        [[name(d["id"]), d["ref"]] for d in report["stale_evidence"]],
    )
    _table("No opportunity", ["memory"], [[name(i)] for i in report["no_opportunity"]])
    _table("Unused despite opportunities", ["memory"], [[name(i)] for i in report["unused"]])
    _table(
        "Hubs", ["file", "memories"], [[h["path"], str(len(h["memories"]))] for h in report["hubs"]]
    )
    _table("Only on central paths", ["memory"], [[name(i)] for i in report["central_only"]])
    _table(
        "Suspected false alarms",
        ["memory", "reports"],
        [[name(d["id"]), str(d["count"])] for d in report["false_alarms"]],
    )
    funnel = report["funnel"]
    _table(
        "Capture funnel",
        ["asks", "corrections", "stored", "activated", "rejected"],
        [[str(funnel[k]) for k in ("asks", "corrections", "stored", "activated", "rejected")]],
    )
    _table(
        "Rejections by reason",
        ["reason", "count"],
        [[k, str(v)] for k, v in funnel["rejections_by_reason"].items()],
    )
    _table(
        "Last deliveries",
        ["at", "event", "delivered", "deferred", "size", "memories"],
        [
            [
                (d["at"] or "-")[:19],
                str(d["event"]),
                str(d["delivered"]),
                str(d["deferred"]),
                str(d["size"]),
                " ".join(str(i[0])[:8] for i in d["ids"]),
            ]
            for d in report["last_deliveries"]
        ],
    )
    for problem in report["problems"]:
        print(f"problem: {problem}")


def run(args: argparse.Namespace) -> int:
    from cuecard.core.lifecycle._health import health_report
    from cuecard.core.store._store import Store

    report = health_report(Store.open())
    if args.json:
        emit_json(report)
    else:
        _render(report)
    return 0
