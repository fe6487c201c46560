"""cuecard for the DeepSeek Harness: the Python side of the two DSH plugins.

``cuecard dsh call`` answers the memory tools, ``cuecard dsh recall`` the discipline plugin,
``cuecard dsh install`` places the plugins, ``cuecard dsh deploy`` writes the vault rules into
agent instruction files. Names are re-exported lazily: the per-call paths import little.
"""

from __future__ import annotations

from cuecard.core import lazy_exports as _lazy_exports
from cuecard.dsh_adapter.__about__ import __version__

# Not `from typing import ...`: typing costs the per-call paths milliseconds.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from cuecard.dsh_adapter._deploy import BEGIN as BEGIN
    from cuecard.dsh_adapter._deploy import END as END
    from cuecard.dsh_adapter._deployer import TARGETS as TARGETS
    from cuecard.dsh_adapter._deployer import Deployer as Deployer
    from cuecard.dsh_adapter._errors import BadRequest as BadRequest
    from cuecard.dsh_adapter._errors import DeployError as DeployError
    from cuecard.dsh_adapter._errors import DshAdapterError as DshAdapterError
    from cuecard.dsh_adapter._errors import VaultCallError as VaultCallError
    from cuecard.dsh_adapter._errors import VaultNotConfigured as VaultNotConfigured
    from cuecard.dsh_adapter._plugins import PLUGINS as PLUGINS
    from cuecard.dsh_adapter._plugins import pack as pack
    from cuecard.dsh_adapter._plugins import plugin_dir as plugin_dir
    from cuecard.dsh_adapter._topics import DEFAULT_TOPICS as DEFAULT_TOPICS
    from cuecard.dsh_adapter._topics import TopicGate as TopicGate
    from cuecard.dsh_adapter._topics import load_topics as load_topics

_EXPORTS: dict[str, str] = {
    "BEGIN": "cuecard.dsh_adapter._deploy",
    "BadRequest": "cuecard.dsh_adapter._errors",
    "DEFAULT_TOPICS": "cuecard.dsh_adapter._topics",
    "DeployError": "cuecard.dsh_adapter._errors",
    "Deployer": "cuecard.dsh_adapter._deployer",
    "DshAdapterError": "cuecard.dsh_adapter._errors",
    "END": "cuecard.dsh_adapter._deploy",
    "PLUGINS": "cuecard.dsh_adapter._plugins",
    "TARGETS": "cuecard.dsh_adapter._deployer",
    "TopicGate": "cuecard.dsh_adapter._topics",
    "VaultCallError": "cuecard.dsh_adapter._errors",
    "VaultNotConfigured": "cuecard.dsh_adapter._errors",
    "load_topics": "cuecard.dsh_adapter._topics",
    "pack": "cuecard.dsh_adapter._plugins",
    "plugin_dir": "cuecard.dsh_adapter._plugins",
}

__all__ = sorted([*_EXPORTS, "__version__"])


__getattr__, __dir__ = _lazy_exports(__name__, _EXPORTS, __all__)
