"""cuecard.wp_projection: a one-way projection of WordPress Data Machine agent memory.

A PHP bridge (package data) sends signed events; the receiver queues them durably; a worker
and REST reconcile write records under one managed folder of a runtime root with the
path-safety rules; runtime configuration is wired in owned blocks only. Names are re-exported
lazily, so importing the package pulls in neither Starlette nor httpx.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cuecard.core import lazy_exports as _lazy_exports
from cuecard.wp_projection.__about__ import __version__

if TYPE_CHECKING:
    from cuecard.wp_projection._bridge import plugin_source as plugin_source
    from cuecard.wp_projection._bridge import render_settings as render_settings
    from cuecard.wp_projection._bridge import write_bridge as write_bridge
    from cuecard.wp_projection._change import ApplyResult as ApplyResult
    from cuecard.wp_projection._change import Change as Change
    from cuecard.wp_projection._change import Outcome as Outcome
    from cuecard.wp_projection._change import change_from_envelope as change_from_envelope
    from cuecard.wp_projection._envelope import Envelope as Envelope
    from cuecard.wp_projection._envelope import parse_envelope as parse_envelope
    from cuecard.wp_projection._errors import EnvelopeRefused as EnvelopeRefused
    from cuecard.wp_projection._errors import PathRefused as PathRefused
    from cuecard.wp_projection._errors import ProjectionError as ProjectionError
    from cuecard.wp_projection._errors import ReconcileAuthError as ReconcileAuthError
    from cuecard.wp_projection._errors import ReconcileError as ReconcileError
    from cuecard.wp_projection._errors import RootBusy as RootBusy
    from cuecard.wp_projection._errors import RootNotWritable as RootNotWritable
    from cuecard.wp_projection._errors import SignatureRefused as SignatureRefused
    from cuecard.wp_projection._paths import FILENAME_PATTERN as FILENAME_PATTERN
    from cuecard.wp_projection._paths import check_filename as check_filename
    from cuecard.wp_projection._paths import normalise_relative as normalise_relative
    from cuecard.wp_projection._paths import record_path as record_path
    from cuecard.wp_projection._paths import site_key as site_key
    from cuecard.wp_projection._projector import Projector as Projector
    from cuecard.wp_projection._receiver import ReceiverSettings as ReceiverSettings
    from cuecard.wp_projection._receiver import build_app as build_app
    from cuecard.wp_projection._reconcile import SyncSettings as SyncSettings
    from cuecard.wp_projection._reconcile import fetch_remote as fetch_remote
    from cuecard.wp_projection._reconcile import reconcile as reconcile
    from cuecard.wp_projection._safefs import SafeRoot as SafeRoot
    from cuecard.wp_projection._signature import sign as sign
    from cuecard.wp_projection._signature import signed_headers as signed_headers
    from cuecard.wp_projection._signature import verify as verify
    from cuecard.wp_projection._status import status_report as status_report

_EXPORTS: dict[str, str] = {
    "ApplyResult": "cuecard.wp_projection._change",
    "Change": "cuecard.wp_projection._change",
    "Envelope": "cuecard.wp_projection._envelope",
    "FILENAME_PATTERN": "cuecard.wp_projection._paths",
    "EnvelopeRefused": "cuecard.wp_projection._errors",
    "Outcome": "cuecard.wp_projection._change",
    "PathRefused": "cuecard.wp_projection._errors",
    "ProjectionError": "cuecard.wp_projection._errors",
    "Projector": "cuecard.wp_projection._projector",
    "ReceiverSettings": "cuecard.wp_projection._receiver",
    "ReconcileAuthError": "cuecard.wp_projection._errors",
    "ReconcileError": "cuecard.wp_projection._errors",
    "RootBusy": "cuecard.wp_projection._errors",
    "RootNotWritable": "cuecard.wp_projection._errors",
    "SafeRoot": "cuecard.wp_projection._safefs",
    "SignatureRefused": "cuecard.wp_projection._errors",
    "SyncSettings": "cuecard.wp_projection._reconcile",
    "build_app": "cuecard.wp_projection._receiver",
    "change_from_envelope": "cuecard.wp_projection._change",
    "check_filename": "cuecard.wp_projection._paths",
    "fetch_remote": "cuecard.wp_projection._reconcile",
    "normalise_relative": "cuecard.wp_projection._paths",
    "parse_envelope": "cuecard.wp_projection._envelope",
    "plugin_source": "cuecard.wp_projection._bridge",
    "reconcile": "cuecard.wp_projection._reconcile",
    "record_path": "cuecard.wp_projection._paths",
    "render_settings": "cuecard.wp_projection._bridge",
    "sign": "cuecard.wp_projection._signature",
    "signed_headers": "cuecard.wp_projection._signature",
    "site_key": "cuecard.wp_projection._paths",
    "status_report": "cuecard.wp_projection._status",
    "verify": "cuecard.wp_projection._signature",
    "write_bridge": "cuecard.wp_projection._bridge",
}

__all__ = sorted([*_EXPORTS, "__version__"])


__getattr__, __dir__ = _lazy_exports(__name__, _EXPORTS, __all__)
