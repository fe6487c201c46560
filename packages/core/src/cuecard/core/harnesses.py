"""What core knows of the agent harnesses' own files, for the installers and ``doctor``.

The portable ``cuecard-hook`` command, Codex's hook trust in ``~/.codex/config.toml``, Grok
Build's folder trust, and which harness files run ``cuecard-hook``. Re-exported lazily.
"""

from __future__ import annotations

from cuecard.core.base._lazy import lazy_exports as _lazy_exports

# Not `from typing import ...`: importing this module must cost nothing.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from cuecard.core.doctor._groktrust import grok_findings as grok_findings
    from cuecard.core.doctor._groktrust import grok_folder_grants as grok_folder_grants
    from cuecard.core.doctor._groktrust import grok_folder_trust as grok_folder_trust
    from cuecard.core.doctor._groktrust import grok_gate_off as grok_gate_off
    from cuecard.core.doctor._groktrust import grok_trust_file as grok_trust_file
    from cuecard.core.doctor._groktrust import grok_trust_step as grok_trust_step
    from cuecard.core.doctor._groktrust import grok_trust_table as grok_trust_table
    from cuecard.core.doctor._groktrust import read_trust as read_trust
    from cuecard.core.doctor._hookcheck import CodexHook as CodexHook
    from cuecard.core.doctor._hookcheck import codex_config_path as codex_config_path
    from cuecard.core.doctor._hookcheck import codex_hash as codex_hash
    from cuecard.core.doctor._hookcheck import codex_hooks as codex_hooks
    from cuecard.core.doctor._hookcheck import codex_project_trusted as codex_project_trusted
    from cuecard.core.doctor._hookcheck import codex_trust_state as codex_trust_state
    from cuecard.core.doctor._hookcheck import portable_command as portable_command
    from cuecard.core.doctor._hookcheck import read_toml as read_toml
    from cuecard.core.doctor._installed_hooks import installed_hooks as installed_hooks

_EXPORTS: dict[str, str] = {
    "CodexHook": "cuecard.core.doctor._hookcheck",
    "codex_config_path": "cuecard.core.doctor._hookcheck",
    "codex_hash": "cuecard.core.doctor._hookcheck",
    "codex_hooks": "cuecard.core.doctor._hookcheck",
    "codex_project_trusted": "cuecard.core.doctor._hookcheck",
    "codex_trust_state": "cuecard.core.doctor._hookcheck",
    "grok_findings": "cuecard.core.doctor._groktrust",
    "grok_folder_grants": "cuecard.core.doctor._groktrust",
    "grok_folder_trust": "cuecard.core.doctor._groktrust",
    "grok_gate_off": "cuecard.core.doctor._groktrust",
    "grok_trust_file": "cuecard.core.doctor._groktrust",
    "grok_trust_step": "cuecard.core.doctor._groktrust",
    "grok_trust_table": "cuecard.core.doctor._groktrust",
    "installed_hooks": "cuecard.core.doctor._installed_hooks",
    "portable_command": "cuecard.core.doctor._hookcheck",
    "read_toml": "cuecard.core.doctor._hookcheck",
    "read_trust": "cuecard.core.doctor._groktrust",
}

__all__ = sorted(_EXPORTS)


__getattr__, __dir__ = _lazy_exports(__name__, _EXPORTS, __all__)
