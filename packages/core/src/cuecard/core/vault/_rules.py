"""The rules both backends apply alike: what a submission may hold, how a review classifies
inbox facts, which facts forgetting picks, which conflicts are new, how a session block reads.

Pure functions over text and values; each backend feeds them what it stores.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from datetime import date

from cuecard.core.base._errors import UsageError, ValidationError
from cuecard.core.engine._secrets import find_secret, redact
from cuecard.core.engine._text import neutralise, strip_invisibles, unsafe_reason
from cuecard.core.vault._facts import (
    best_overlap,
    classify_against,
    fact_id,
    inbox_facts,
    note_facts,
    stamp_date,
    usage_tag,
)
from cuecard.core.vault._model import Candidate, Conflict, Pending, Review

__all__ = [
    "AGENT_RULE",
    "MAX_ARCHIVE_CHARS",
    "MAX_FACTS",
    "MAX_FACT_CHARS",
    "MAX_SEQUENCE",
    "PROTECTED",
    "SUPERSESSION",
    "check_agent",
    "check_facts",
    "classify_submissions",
    "distinct",
    "pick",
    "render_block",
]

# -- submissions --------------------------------------------------------------------------------

AGENT = re.compile(r"^[^\W_][\w.-]{0,63}$")
AGENT_RULE = (
    "use 1-64 letters, digits, dots, underscores or hyphens, starting with a letter or digit"
)
MAX_FACTS = 200
MAX_FACT_CHARS = 4_000
MAX_SEQUENCE = 999


def check_agent(agent: str) -> str:
    if not AGENT.fullmatch(agent):
        raise UsageError(f"--agent {agent!r}: invalid agent name: {AGENT_RULE}")
    return agent


def check_facts(lines: list[str]) -> list[str]:
    """The facts of the submitted text, or ``ValidationError`` naming every refused line."""
    facts = [
        f for f in (strip_invisibles(fact).strip() for fact in inbox_facts("\n".join(lines))) if f
    ]
    if not facts:
        raise ValidationError(["nothing to submit: give at least one non-blank fact line"])
    refusals: list[str] = []
    if len(facts) > MAX_FACTS:
        refusals.append(f"submission: {len(facts)} facts, at most {MAX_FACTS} per submission")
    for number, fact in enumerate(facts, 1):
        secret = find_secret(fact)
        if secret is not None:
            refusals.append(
                f"fact {number}: looks like a plaintext credential ({secret}); store a label or "
                "where it is kept, never the secret"
            )
        unsafe = unsafe_reason(fact)
        if unsafe is not None:
            refusals.append(f"fact {number}: {unsafe}")
        if len(fact) > MAX_FACT_CHARS:
            refusals.append(f"fact {number}: {len(fact)} characters, at most {MAX_FACT_CHARS}")
    if refusals:
        raise ValidationError(["submission rejected, nothing written:", *refusals])
    return facts


# -- review ------------------------------------------------------------------------------------

SUPERSESSION = re.compile(
    r"改为|改用|换成|迁移到|升级到|更新为|弃用|废弃|不再使用|代替|替代|替换|取代|"
    r"\bdeprecated\b|\bsuperseded\b|\breplaced by\b|\breplaces\b|\bnow uses\b|\binstead of\b"
    r"|\bnew version\b|\bno longer\b|\bmigrated to\b|\bchanged to\b|新版本",
    re.IGNORECASE,
)


def classify_submissions(
    submissions: Iterable[tuple[str, str]],
    note_of: Callable[[str], str],
    live: Callable[[str], list[str]],
) -> Review:
    """Classify every fact of ``submissions`` (name, text), in order: ``note_of`` names a fact's
    note, ``live`` gives a note's live facts. Pure apart from those two; both backends use it."""
    result = Review()
    known: dict[str, list[str]] = {}
    for name, body in submissions:
        result.sources.append(name)
        for raw in inbox_facts(body):
            fact = neutralise(redact(raw)).strip()
            if not fact:
                continue
            note_id = note_of(fact)
            existing = known.setdefault(note_id, live(note_id))
            status, hit = classify_against(fact, existing)
            if status == "duplicate":
                result.duplicates += 1
                continue
            replaces = ""
            if status == "conflict" and hit is not None:
                if not SUPERSESSION.search(fact):
                    result.conflicts.append(Conflict(fact, hit, name, note_id))
                    continue
                replaces = hit
            elif SUPERSESSION.search(fact):
                replaces = best_overlap(fact, existing, 0.3) or ""
            if replaces:
                result.supersessions += 1
            result.pending.append(Pending(fact, note_id, name, replaces))
            existing.append(fact)
    return result


def distinct(conflicts: list[Conflict], held: set[tuple[str, str, str]]) -> list[Conflict]:
    """The conflicts, in order, each question once and none of those ``held`` already."""
    seen, out = set(held), []
    for c in conflicts:
        if c.key not in seen:
            seen.add(c.key)
            out.append(c)
    return out


# -- forgetting --------------------------------------------------------------------------------

PROTECTED = re.compile(
    r"\b(?:path|director|config|prefer|account|server|port\b|ports\b|credential|password"
    r"|secret|model|domain|backup|script|rule|coordinat|agent|vault|endpoint|api\b|url)"
    r"|#keep\b|路径|目录|配置|偏好|账号|服务器|端口|凭据|密码|密钥|规则|协作|模型|域名|备份|脚本",
    re.IGNORECASE,
)


def pick(
    notes: Iterable[tuple[str, str]], uses: dict[str, date], *, today: date, days: int = 90
) -> list[Candidate]:
    """The lines to forget among ``notes`` (vault-relative path, text; the index note left out
    by the caller), given each fact's last use. Pure: both backends feed it their notes."""
    found = []
    for rel, text in notes:
        for fact in note_facts(text):
            if fact.superseded or fact.placeholder or PROTECTED.search(fact.text):
                continue
            stamped = stamp_date(fact.line)
            if stamped is None or (today - stamped).days < days:
                continue
            ident = fact_id(fact.text)
            count, tagged = usage_tag(fact.line)
            last = max(
                (d for d in (uses.get(ident), tagged or (stamped if count else None)) if d),
                default=None,
            )
            if last is not None and (today - last).days < days:
                continue
            found.append(Candidate(rel, fact.line, ident, stamped, last))
    return found


# -- session archives --------------------------------------------------------------------------

MAX_ARCHIVE_CHARS = 1_000_000


def _header_field(text: str) -> str:
    return neutralise(redact(" ".join(text.split()))).replace("#", "\\#")


def render_block(when: str, agent: str, title: str, lines: list[str]) -> str:
    """``## HH:MM [agent] title``, a blank line, then each non-blank line as ``- …``."""
    head = f"## {when} [{_header_field(agent)}]"
    if title.strip():
        head += f" {_header_field(title)}"
    body = []
    for raw in lines:
        line = neutralise(redact(raw.strip()))
        if not line:
            continue
        body.append(line if line.startswith(("- ", "* ", "• ")) else f"- {line}")
    return head + "\n\n" + "\n".join(body) + "\n\n"
