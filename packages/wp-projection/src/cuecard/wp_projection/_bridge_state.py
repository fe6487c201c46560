"""What the WordPress side knows: the bridge's queue and Data Machine's agent folders.

The bridge answers ``GET /wp-json/cuecard-bridge/v1/state`` to a request signed with the shared
secret (``X-Cuecard-Timestamp``, ``X-Cuecard-Signature`` over ``"<timestamp>."``): its queue
(waiting envelopes, the oldest, the last failed delivery, the envelopes set aside) and every agent
Data Machine has, with the folder its disk store keeps the agent's files in.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import httpx

from cuecard.wp_projection._errors import ReconcileError
from cuecard.wp_projection._paths import check_identity
from cuecard.wp_projection._signature import signed_headers

__all__ = ["STATE_ROUTE", "AgentFolder", "BridgeState", "fetch_bridge_state"]

STATE_ROUTE = "/wp-json/cuecard-bridge/v1/state"
_SCHEMA = "cuecard-bridge-state/v1"


@dataclass(frozen=True)
class AgentFolder:
    """One Data Machine agent and the folder its files are kept in."""

    agent_id: int
    agent_slug: str
    owner_id: int
    agent_dir: str


@dataclass(frozen=True)
class BridgeState:
    """The bridge's answer, checked."""

    queue: dict[str, Any]
    """``waiting``, ``oldest`` (queued_at, label, attempts, last_error), ``last_error``,
    ``set_aside`` (refused or given-up envelopes), ``seq``."""
    agents: list[AgentFolder] | None
    """``None`` when Data Machine's agents repository is missing (nothing can be called stale)."""
    fetched_at: str
    raw: dict[str, Any] = field(repr=False, default_factory=dict)

    def folder_of(self, agent_id: int, user_id: int) -> str | None:
        """The folder of the agent a scope names: by id, else the user's own (first) agent."""
        if self.agents is None:
            return None
        if agent_id > 0:
            return next((a.agent_dir for a in self.agents if a.agent_id == agent_id), None)
        owned = sorted((a for a in self.agents if a.owner_id == user_id), key=lambda a: a.agent_id)
        return owned[0].agent_dir if owned else None


def _agents(raw: object) -> list[AgentFolder] | None:
    if raw is None:
        return None
    if not isinstance(raw, list):
        raise ReconcileError("the bridge's state: agents must be a list")
    out = []
    for item in raw:
        if not isinstance(item, dict):
            raise ReconcileError("the bridge's state: every agent must be an object")
        try:
            agent = AgentFolder(
                agent_id=int(item["agent_id"]),
                agent_slug=str(item["agent_slug"]),
                owner_id=int(item["owner_id"]),
                agent_dir=str(item["agent_dir"]),
            )
            check_identity("agent", agent.owner_id, agent.agent_id, None, agent.agent_dir)
        except (KeyError, TypeError, ValueError) as exc:
            raise ReconcileError(f"the bridge's state: an agent is malformed ({exc})") from None
        out.append(agent)
    return out


def fetch_bridge_state(
    site_url: str, secret: bytes, client: httpx.Client, *, timeout_s: float = 20.0
) -> BridgeState:
    """Ask the bridge for its state; ``ReconcileError`` if it cannot answer."""
    url = site_url.strip().rstrip("/") + STATE_ROUTE
    headers = signed_headers(secret, int(time.time()), b"")
    try:
        response = client.get(url, headers=headers, timeout=timeout_s, follow_redirects=False)
    except httpx.TransportError as exc:
        raise ReconcileError(f"{url}: {type(exc).__name__}: {exc}") from None
    if response.status_code != 200:
        raise ReconcileError(
            f"{url}: the bridge answered {response.status_code} (is a bridge with this route "
            "(plugin 0.3 or newer) installed, and the same secret given with --secret-file?)"
        )
    try:
        body = response.json()
    except ValueError:
        raise ReconcileError(f"{url}: the answer is not JSON") from None
    if not isinstance(body, dict) or body.get("schema") != _SCHEMA:
        raise ReconcileError(f"{url}: the answer is not the bridge's state ({_SCHEMA})")
    queue = body.get("queue")
    return BridgeState(
        queue=queue if isinstance(queue, dict) else {},
        agents=_agents(body.get("agents")),
        fetched_at=str(body.get("at", "")),
        raw=body,
    )
