"""The error tree of cuecard. Every package adds its subclasses under ``CuecardError``.

CuecardError
├── UsageError(ValueError)        bad command-line use (exit 2)
├── ConfigError(ValueError)       an unreadable or invalid configuration
├── ValidationError(ValueError)   a record refused before anything was written
├── BadInput(ValueError)          outside text that is not UTF-8, holds a lone surrogate or nests
│                                 too deeply
├── CacheError                    a derived cache unreadable even after a rebuild from its source
└── StoreError                    the project store could not do what was asked
    ├── NotOptedIn                no ``.cuecard/`` here: nothing is created
    ├── StoreBusy(TimeoutError)   another process held the lock too long
    ├── TopicConflict             a second live memory on one topic
    └── NotFound(LookupError)     no memory with that id
"""

from __future__ import annotations

__all__ = [
    "BadInput",
    "CacheError",
    "ConfigError",
    "CuecardError",
    "NotFound",
    "NotOptedIn",
    "StoreBusy",
    "StoreError",
    "TopicConflict",
    "UsageError",
    "ValidationError",
]


class CuecardError(Exception):
    """The root of every error cuecard raises on purpose."""


class UsageError(CuecardError, ValueError):
    """The command line asked for something that cannot be done as written."""


class ConfigError(CuecardError, ValueError):
    """A configuration file is unreadable or breaks a rule."""


class ValidationError(CuecardError, ValueError):
    """A record was refused; ``refusals`` holds one message per broken rule."""

    def __init__(self, refusals: list[str]) -> None:
        self.refusals = list(refusals)
        super().__init__("\n".join(self.refusals))


class BadInput(CuecardError, ValueError):
    """Text from outside (an argument, the standard input, a file, a payload) that is not UTF-8,
    holds a lone surrogate or nests too deeply; the message never repeats the text."""


class CacheError(CuecardError):
    """A derived cache (a recall index) cannot be read even after it was rebuilt from its
    source; the message names the file and the fix."""


class StoreError(CuecardError):
    """The project store could not carry out an operation."""


class NotOptedIn(StoreError):
    """The project has no ``.cuecard/config.json``."""


class StoreBusy(StoreError, TimeoutError):
    """Another process held the store lock past the bounded wait."""


class TopicConflict(StoreError):
    """A write would leave two live memories on one topic."""


class NotFound(StoreError, LookupError):
    """No record answers to the given id."""
