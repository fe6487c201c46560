"""Delivery at Stop, for a harness that drops what a hook prints at every other event (Grok Build
0.2.111 passes hook output on to the model only at Stop). Stdlib only.

At UserPromptSubmit and PreToolUse the memories the event matches are found but not claimed:
their ids go to ``held.jsonl`` in the session's folder (``.cuecard/local/sessions/<session>/``),
one line per event: ``{"t": …, "epoch": 0, "agent": "", "ids": [["<memory id>", "paths"]]}``
(never a prompt's text). At a genuine end of turn whose Stop hook did not already keep the agent
working (``stop_hook_active`` false), the held memories of the current epoch not claimed since
are delivered in Stop's block reason, as feedback the agent checks its changes against before it
finishes; the ledger claims them only then. What does not fit, or is held after the agent already
continued once, waits for the next Stop.

cuecard's answer to a proposal the agent wrote to ``.cuecard/inbox/`` (printed at PostToolUse
elsewhere) goes to ``replies.jsonl`` beside it, ``{"t": …, "text": "…"}``, and reaches the agent
at the next Stop, even one after a continuation (it answers the agent's own action, and each
reply is given once: the ledger claims ``reply-<line>``).
"""

from __future__ import annotations

import json

TYPE_CHECKING = False  # importing typing costs a hook process more than its work
if TYPE_CHECKING:
    from cuecard.core.engine import Event
    from cuecard.core.fs import Tree

__all__ = ["FILE", "INTRO", "REPLIES", "held", "hold", "hold_reply", "release", "replies"]

FILE = "held.jsonl"
REPLIES = "replies.jsonl"
INTRO = (
    "cuecard: project knowledge for what you did this turn (this harness passes it on only when "
    "a turn ends). Check your changes against it and fix what it rules out before you finish; "
    "if nothing needs to change, finish."
)
_MAX_BYTES = 1024 * 1024  # past this a session holds no more (about 10,000 events)


def _path(local: str, session: str, name: str = FILE) -> tuple[Tree, str]:
    """The tree and relative path of a session's file (reached by descriptor, no link)."""
    from cuecard.core.engine import local_tree, safe_name

    tree, rel = local_tree(local)
    return tree, "/".join(p for p in (rel, "sessions", safe_name(session), name) if p)


def _append(where: tuple[Tree, str], line: dict[str, object]) -> None:
    data = (json.dumps(line, ensure_ascii=False) + "\n").encode("utf-8")
    tree, rel = where
    tree.append(rel, data)  # one write with O_APPEND: parallel hooks never interleave lines


def _lines(where: tuple[Tree, str], limit: int) -> list[str]:
    tree, rel = where
    try:
        return tree.read_bytes(rel, limit, whole=False).decode("utf-8", "replace").splitlines()
    except OSError:
        return []


def hold(root: str, local: str, event: Event) -> None:
    """Record the memories ``event`` matches, unclaimed, for the session's next Stop."""
    if not event.session:
        return
    from cuecard.core.engine import Ledger, matches

    found = matches(root, event)
    if not found:
        return
    path = _path(local, event.session)
    st = path[0].lstat(path[1])
    if st is not None and st.st_size > _MAX_BYTES:
        return
    import time

    epoch = Ledger(local, event.session, event.agent).epoch()
    _append(path, {"t": round(time.time(), 3), "epoch": epoch, "agent": event.agent, "ids": found})


def hold_reply(local: str, session: str, text: str) -> None:
    """Keep cuecard's answer to an inbox proposal for the session's next Stop."""
    if session and text:
        import time

        _append(_path(local, session, REPLIES), {"t": round(time.time(), 3), "text": text})


def replies(local: str, session: str, agent: str, limit: int) -> str:
    """The answers not given yet, claimed now, within ``limit`` characters ("" for none)."""
    from cuecard.core.engine import Ledger

    lines = _lines(_path(local, session, REPLIES), _MAX_BYTES)
    if not lines:
        return ""
    ledger = Ledger(local, session, agent)
    given: list[str] = []
    for number, raw in enumerate(lines):
        try:
            text = json.loads(raw).get("text")
        except (ValueError, AttributeError):
            continue
        if not isinstance(text, str) or not text or ledger.claimed(f"reply-{number}", 0):
            continue
        if sum(len(t) + 2 for t in given) + len(text) > limit:
            break
        if ledger.claim(f"reply-{number}", {"kind": "reply"}, 0):
            given.append(text)
    return "\n\n".join(given)


def held(local: str, session: str, agent: str, epoch: int) -> list[tuple[str, str]]:
    """The ``(memory id, dimension)`` pairs held for ``agent`` in ``epoch``, oldest first."""
    lines = _lines(_path(local, session), _MAX_BYTES * 2)
    out: list[tuple[str, str]] = []
    for raw in lines:
        try:
            line = json.loads(raw)
        except ValueError:
            continue
        if not isinstance(line, dict) or line.get("epoch") != epoch:
            continue
        if line.get("agent", "") != agent or not isinstance(line.get("ids"), list):
            continue
        for item in line["ids"]:
            if isinstance(item, list) and len(item) == 2 and all(isinstance(v, str) for v in item):
                out.append((item[0], item[1]))
    return out


def release(root: str, local: str, session: str, agent: str, limit: int) -> str:
    """The held memories not claimed since, claimed now, as the text for Stop's reason ("" for
    none). ``limit`` bounds the knowledge (wrapper and advisory line included)."""
    from cuecard.core.engine import Ledger, deliver_held

    items = held(local, session, agent, Ledger(local, session, agent).epoch())
    if not items or limit < 1_000:
        return ""
    delivery = deliver_held(root, session, items, agent=agent, limit=limit - len(INTRO) - 2)
    return f"{INTRO}\n\n{delivery.text}" if delivery.text else ""
