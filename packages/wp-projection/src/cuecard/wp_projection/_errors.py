"""The errors of the Data Machine projection, under core's ``CuecardError``.

CuecardError
└── ProjectionError                 the projection could not do what was asked
    ├── PathRefused(ValueError)     a path or identity broke a path-safety rule (D4)
    ├── EnvelopeRefused(ValueError) an event envelope broke the schema
    ├── SignatureRefused            a request's signature, timestamp or origin was refused
    ├── RootBusy(TimeoutError)      another writer held the runtime root's lock too long
    ├── RootNotWritable             this process cannot write the runtime root
    └── ReconcileError              the Data Machine REST API could not be read
        └── ReconcileAuthError      the site refused the credentials
"""

from __future__ import annotations

from cuecard.core import CuecardError

__all__ = [
    "EnvelopeRefused",
    "PathRefused",
    "ProjectionError",
    "ReconcileAuthError",
    "ReconcileError",
    "RootBusy",
    "RootNotWritable",
    "SignatureRefused",
]


class ProjectionError(CuecardError):
    """The projection could not carry out an operation."""


class PathRefused(ProjectionError, ValueError):
    """A path or an identity field broke one of the path-safety rules."""


class EnvelopeRefused(ProjectionError, ValueError):
    """An event envelope broke the ``dm-memory-projection/v1`` schema."""


class SignatureRefused(ProjectionError):
    """A request's signature or timestamp did not verify."""


class RootBusy(ProjectionError, TimeoutError):
    """Another writer held the runtime root's lock past the bounded wait."""


class RootNotWritable(ProjectionError):
    """This process cannot create or write the managed folder under the runtime root."""


class ReconcileError(ProjectionError):
    """The Data Machine REST API could not be read."""


class ReconcileAuthError(ReconcileError):
    """The site refused the credentials (401 or 403)."""
