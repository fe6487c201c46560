"""Reconcile: pull the current records through Data Machine's REST API and repair the projection.

Routes (Data Machine's REST API, namespace ``datamachine/v1``): ``GET /files/agent``,
``GET /files/agent/{filename}``, ``GET /files/agent/daily``, ``GET /files/agent/daily/Y/M/D``.
The API returns no hash, so the SHA-1 of the fetched bytes is compared with what the manifest
holds. Pull wins over push: a record that differs is rewritten, an owned record the site no longer
lists is deleted (local edits are still preserved).
"""

from __future__ import annotations

import base64
import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx

from cuecard.core import UsageError
from cuecard.wp_projection._bridge_state import BridgeState, fetch_bridge_state
from cuecard.wp_projection._change import ApplyResult, Change, Outcome
from cuecard.wp_projection._errors import PathRefused, ReconcileAuthError, ReconcileError
from cuecard.wp_projection._paths import record_path, site_key
from cuecard.wp_projection._projector import Projector

__all__ = ["RemoteRecord", "SyncSettings", "fetch_remote", "load_auth", "reconcile"]

_API = "/wp-json/datamachine/v1"
_DAY = re.compile(r"\d{4}/\d{2}")
_DD = re.compile(r"\d{2}")


@dataclass(frozen=True)
class SyncSettings:
    """How to reach one site's Data Machine REST API."""

    site_url: str
    """The site's home URL; REST lives under ``<site_url>/wp-json``."""
    authorization: str = field(repr=False)
    """The ``Authorization`` header: ``Basic …`` (Application Password) or ``Bearer …``."""
    user_id: int = 1
    """The effective user whose files are listed (``user_id`` query parameter)."""
    agent_id: int = 0
    """The agent whose files are listed (0: resolved from the user, as Data Machine does)."""
    agent_slug: str | None = None
    """The agent's slug: names the agent folder (the REST API does not return it)."""
    aliases: dict[str, str] = field(default_factory=dict)
    """Home URL -> site folder name; the default is a short hash of the URL."""
    include_daily: bool = True
    """Also pull ``daily/YYYY/MM/DD.md`` files."""
    retries: int = 3
    """Attempts per request on a transport error, a 5xx or a 429."""
    backoff_s: float = 0.5
    """Wait before the second attempt, doubled after each failure."""
    timeout_s: float = 20.0
    """Timeout of each request."""
    bridge_secret: bytes | None = field(default=None, repr=False)
    """The bridge's shared secret: with it, the pull also asks the bridge for its queue and for
    Data Machine's agent folders (``cuecard-bridge/v1/state``), files the agent's records under
    Data Machine's own folder name and removes agent folders Data Machine no longer has."""

    @property
    def site(self) -> str:
        return site_key(self.site_url, self.aliases)

    @property
    def home_url(self) -> str:
        return self.site_url.strip().rstrip("/")


@dataclass(frozen=True)
class RemoteRecord:
    layer: str
    filename: str
    content: bytes


def load_auth(secret_file: Path | None, env_value: str | None, root: Path) -> str:
    """The ``Authorization`` header from a file or ``CUECARD_WP_AUTH``; the file must lie outside
    the runtime root. ``user:application password`` becomes Basic, ``datamachine_…`` Bearer."""
    if secret_file is not None:
        real = Path(os.path.realpath(secret_file))
        if str(real).startswith(str(Path(os.path.realpath(root))) + "/"):
            raise UsageError(
                f"--auth-file {secret_file}: credentials must be kept outside the runtime root"
            )
        try:
            raw = real.read_text(encoding="utf-8").strip()
        except OSError as exc:
            raise UsageError(
                f"--auth-file {secret_file}: cannot read it ({exc.strerror})"
            ) from None
    elif env_value:
        raw = env_value.strip()
    else:
        raise UsageError("credentials are required: --auth-file FILE or CUECARD_WP_AUTH")
    if raw.lower().startswith(("basic ", "bearer ")):
        return raw
    if raw.startswith("datamachine_"):
        return f"Bearer {raw}"
    if ":" not in raw:
        raise UsageError(
            "credentials must be 'user:application password' or a 'datamachine_' agent token"
        )
    return "Basic " + base64.b64encode(raw.encode("utf-8")).decode("ascii")


class _Api:
    def __init__(
        self, settings: SyncSettings, client: httpx.Client, sleep: Callable[[float], None]
    ) -> None:
        self.settings = settings
        self.client = client
        self.sleep = sleep
        self.params = {"user_id": settings.user_id, "agent_id": settings.agent_id}

    def get(self, route: str) -> Any:
        """GET a route and return ``data``; ``None`` on 404. Retries transient failures."""
        url = self.settings.home_url + _API + route
        delay = self.settings.backoff_s
        problem = ""
        for attempt in range(1, self.settings.retries + 1):
            try:
                response = self.client.get(
                    url,
                    params=self.params,
                    headers={"Authorization": self.settings.authorization},
                    timeout=self.settings.timeout_s,
                    follow_redirects=False,
                )
            except httpx.TransportError as exc:
                problem = f"{type(exc).__name__}: {exc}"
            else:
                status = response.status_code
                if status in (401, 403):
                    raise ReconcileAuthError(
                        f"{url}: the site answered {status} {_wp_message(response)}; check the "
                        "Application Password or agent token (--auth-file / CUECARD_WP_AUTH)"
                    )
                if status == 404:
                    return None
                if status < 300:
                    return _data(url, response)
                if status != 429 and status < 500:
                    raise ReconcileError(
                        f"{url}: the site answered {status} {_wp_message(response)}"
                    )
                problem = f"{status} {_wp_message(response)}"
            if attempt < self.settings.retries:
                self.sleep(delay)
                delay *= 2
        raise ReconcileError(f"{url}: failed {self.settings.retries} times; last: {problem}")


def _wp_message(response: httpx.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        return ""
    if isinstance(body, dict):
        code, message = body.get("code"), body.get("message")
        return " ".join(str(x) for x in (code, message) if x)[:300]
    return ""


def _data(url: str, response: httpx.Response) -> Any:
    try:
        body = response.json()
    except ValueError:
        raise ReconcileError(f"{url}: the answer is not JSON") from None
    if not isinstance(body, dict) or body.get("success") is not True or "data" not in body:
        raise ReconcileError(f"{url}: the answer lacks success=true and data")
    return body["data"]


def fetch_remote(
    settings: SyncSettings,
    client: httpx.Client,
    *,
    sleep: Callable[[float], None] = time.sleep,
) -> list[RemoteRecord]:
    """Every record the site lists for this user and agent, with its exact content."""
    api = _Api(settings, client, sleep)
    listing = api.get("/files/agent")
    if not isinstance(listing, list):
        raise ReconcileError(f"{settings.home_url}{_API}/files/agent: data must be a list")
    records: list[RemoteRecord] = []
    for entry in listing:
        if not isinstance(entry, dict) or not isinstance(entry.get("filename"), str):
            continue
        if entry.get("type") == "daily_summary":
            continue
        name = entry["filename"]
        data = api.get("/files/agent/" + quote(name, safe=""))
        if isinstance(data, dict) and isinstance(data.get("content"), str):
            layer = entry.get("layer") if isinstance(entry.get("layer"), str) else "agent"
            records.append(RemoteRecord(str(layer), name, data["content"].encode("utf-8")))
    if settings.include_daily:
        months = api.get("/files/agent/daily")
        if isinstance(months, dict):
            for month, days in months.items():
                if not _DAY.fullmatch(str(month)) or not isinstance(days, list):
                    continue
                for day in days:
                    if not _DD.fullmatch(str(day)):
                        continue
                    data = api.get(f"/files/agent/daily/{month}/{day}")
                    if isinstance(data, dict) and isinstance(data.get("content"), str):
                        name = f"daily/{month}/{day}.md"
                        records.append(RemoteRecord("agent", name, data["content"].encode("utf-8")))
    return records


def _agent_folder(path: str) -> str | None:
    """The agent folder a record path lies in (``<site>/agents/<folder>/…``), if any."""
    parts = path.split("/")
    return parts[2] if len(parts) > 3 and parts[1] == "agents" else None


def _in_scope(settings: SyncSettings, path: str, layer: str, folder: str | None, user: int) -> bool:
    if layer == "shared":
        return True
    if layer == "user":
        return user == settings.user_id
    if layer == "principal":
        return user == settings.user_id and _agent_folder(path) == folder
    if layer == "agent":
        is_daily = "/daily/" in path
        return _agent_folder(path) == folder and (settings.include_daily or not is_daily)
    return False


def _bridge(
    settings: SyncSettings, client: httpx.Client
) -> tuple[BridgeState | None, dict[str, Any] | None]:
    """The bridge's state and what to note of it (``None``, ``None`` without a secret)."""
    if settings.bridge_secret is None:
        return None, None
    try:
        state = fetch_bridge_state(
            settings.home_url, settings.bridge_secret, client, timeout_s=settings.timeout_s
        )
    except ReconcileError as exc:
        return None, {"error": str(exc), "fetched_at": _now()}
    return state, {"fetched_at": _now(), "queue": state.queue}


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def reconcile(
    projector: Projector,
    settings: SyncSettings,
    *,
    client: httpx.Client | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> ApplyResult:
    """Pull, compare by SHA-1, write what differs and delete owned records the site dropped."""
    own_client = client is None
    http = client or httpx.Client()
    try:
        remote = fetch_remote(settings, http, sleep=sleep)
        bridge, noted = _bridge(settings, http)
    finally:
        if own_client:
            http.close()
    site, home = settings.site, settings.home_url
    # The agent's folder: Data Machine's own name for it when the bridge says, else the slug.
    folder = bridge.folder_of(settings.agent_id, settings.user_id) if bridge else None
    folder = folder or settings.agent_slug
    # The folder record_path files this agent's records in, whatever named it.
    fallback = f"agent-{settings.agent_id}" if settings.agent_id else None
    scope_folder = folder or fallback
    changes: list[Change] = []
    seen: set[str] = set()
    refused: list[tuple[str, str]] = []
    network_listed = any(r.layer == "network" for r in remote)
    for record in remote:
        try:
            path = record_path(
                site,
                record.layer,
                settings.user_id,
                settings.agent_id,
                settings.agent_slug,
                record.filename,
                folder,
            )
        except PathRefused as exc:
            refused.append((record.filename, str(exc)))
            continue
        seen.add(path)
        changes.append(
            Change(
                kind="update",
                site=site,
                home_url=home,
                path=path,
                layer=record.layer,
                user_id=settings.user_id,
                agent_id=settings.agent_id,
                agent_slug=settings.agent_slug,
                agent_dir=folder if folder != settings.agent_slug else None,
                filename=record.filename,
                content=record.content,
                source="pull",
            )
        )
    manifest = projector.load()
    known = (
        None if bridge is None or bridge.agents is None else {a.agent_dir for a in bridge.agents}
    )
    stale: dict[str, list[str]] = {}
    for path, rec in manifest.records.items():
        if rec.site != site or rec.deleted or rec.hash is None or path in seen:
            continue
        in_scope = _in_scope(settings, path, rec.layer, scope_folder, rec.user_id) or (
            rec.layer == "network" and network_listed
        )
        held = _agent_folder(path)
        if known is not None and held is not None and held not in known:
            stale.setdefault(held, []).append(path)  # renamed or removed in Data Machine
            in_scope = True
        if in_scope:
            changes.append(
                Change(
                    kind="delete",
                    site=site,
                    home_url=home,
                    path=path,
                    layer=rec.layer,
                    user_id=rec.user_id,
                    agent_id=rec.agent_id,
                    agent_slug=rec.agent_slug,
                    filename=rec.filename,
                    source="pull",
                )
            )
    result = projector.apply(changes)
    for filename, reason in refused:
        result.outcomes.append(Outcome(filename, "refused", reason))
    found: list[dict[str, Any]] = []
    for held, paths in sorted(stale.items()):
        kept = [o.path for o in result.outcomes if o.path in paths and o.action == "preserved"]
        removed = sum(1 for o in result.outcomes if o.path in paths and o.action == "deleted")
        result.outcomes.append(
            Outcome(
                f"{site}/agents/{held}",
                "stale",
                f"Data Machine no longer has this agent folder (renamed or removed): "
                f"{removed} files removed, {len(kept)} local edits kept",
            )
        )
        found.append({"folder": f"agents/{held}", "found_at": _now(), "kept": kept})
    projector.mark_synced(
        site,
        home,
        bridge=noted,
        stale_agents=found if known is not None else None,
        prune=[f"agents/{held}" for held in sorted(stale)],
    )
    return result
