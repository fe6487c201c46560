"""Where the pinned harness CLIs live, and the environment that keeps each on loopback.

``scripts/deps/harnesses.sh`` installs the harnesses into ``.cache/harnesses/``. A run gets a
minimal environment (no variable of the developer's leaks in), an empty home of its own, and each
harness's own switches for telemetry, auto-update, plugin sync and model-list fetches turned off,
so that nothing leaves 127.0.0.1.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[3]
CACHE = ROOT / ".cache" / "harnesses"
VENV_BIN = Path(sys.executable).parent
BINARIES = {
    "claude": CACHE / "npm" / "node_modules" / ".bin" / "claude",
    "codex": CACHE / "npm" / "node_modules" / ".bin" / "codex",
    "opencode": CACHE / "npm" / "node_modules" / ".bin" / "opencode",
    "grok": CACHE / "grok" / "bin" / "grok",
}
OPENCODE_PLUGIN_SEED = CACHE / "opencode-plugin"


def versions() -> dict[str, str]:
    """The versions ``harnesses.sh`` installed (from the npm packages' manifests)."""
    out: dict[str, str] = {}
    modules = CACHE / "npm" / "node_modules"
    for name, package in (
        ("claude", "@anthropic-ai/claude-code"),
        ("codex", "@openai/codex"),
        ("opencode", "opencode-ai"),
    ):
        manifest = modules / package / "package.json"
        if manifest.is_file():
            out[name] = str(json.loads(manifest.read_text("utf-8"))["version"])
    stamp = CACHE / "grok" / ".stamp"
    if stamp.is_file():
        out["grok"] = stamp.read_text("utf-8").split()[-1]
    return out


def require(harness: str) -> Path:
    """The harness's binary, or a skip (a failure in CI) when it is not installed."""
    binary = BINARIES[harness]
    if binary.exists():
        return binary
    reason = f"{harness} is not installed in {binary.parent}: run scripts/deps/harnesses.sh"
    if os.environ.get("CI"):
        pytest.fail(reason)
    pytest.skip(reason)


def base_env(home: Path, *, path_extra: list[Path] | None = None) -> dict[str, str]:
    """A minimal environment: an empty ``home``, ``cuecard`` and ``cuecard-hook`` on PATH (as a
    user's tool install puts them), Node on PATH, nothing else of the developer's."""
    node = _which("node")
    node_dir = Path(os.path.realpath(node)).parent if node else None
    parts = [str(p) for p in path_extra or []]
    parts.append(str(VENV_BIN))
    if node_dir is not None:
        parts.append(str(node_dir))
    parts += ["/usr/local/bin", "/usr/bin", "/bin"]
    env = {
        "HOME": str(home),
        "PATH": os.pathsep.join(dict.fromkeys(parts)),
        "LANG": "C.UTF-8",
        "TERM": "dumb",
        "NO_COLOR": "1",
        "TMPDIR": os.environ.get("TMPDIR", "/tmp"),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    for name in ("SSL_CERT_FILE", "SYSTEMROOT"):
        if name in os.environ:
            env[name] = os.environ[name]
    return env


def _which(name: str) -> str | None:
    for folder in os.environ.get("PATH", "").split(os.pathsep):
        candidate = Path(folder) / name
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return None


# -- Claude Code ----------------------------------------------------------------------------------

CLAUDE_MODEL = "claude-sonnet-4-5"


def claude_env(env: dict[str, str], url: str) -> dict[str, str]:
    """``env`` (a project's, see ``Project.env``) with Claude Code pointed at ``url``."""
    return {
        **env,
        "ANTHROPIC_BASE_URL": url,
        "ANTHROPIC_API_KEY": "sk-ant-test-not-a-key",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_ERROR_REPORTING": "1",
        "DISABLE_BUG_COMMAND": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "CLAUDE_CODE_DISABLE_TERMINAL_TITLE": "1",
    }


def claude_command(prompt: str, *, tools: list[str], debug_file: Path | None = None,
                   resume: str | None = None) -> list[str]:  # fmt: skip
    """``claude -p`` headless. As root Claude Code refuses bypassPermissions, so the tools a
    scenario uses are allowed one by one (``Bash(<command>)`` for a shell command)."""
    cmd = [
        str(BINARIES["claude"]), "-p", prompt, "--output-format", "stream-json", "--verbose",
        "--include-hook-events", "--permission-mode", "acceptEdits", "--model", CLAUDE_MODEL,
        "--allowedTools", *tools,
    ]  # fmt: skip
    if debug_file is not None:
        cmd += ["--debug-file", str(debug_file)]
    if resume is not None:
        cmd += ["--resume", resume]
    return cmd


# -- Codex ----------------------------------------------------------------------------------------

CODEX_MODEL = "gpt-5.5"  # a slug Codex knows: an unknown one gets no apply_patch tool


def codex_config(url: str = "http://127.0.0.1:9", *, extra: str = "") -> str:
    """``CODEX_HOME/config.toml``: the fake provider (its ``url`` can be overridden per run,
    see :func:`codex_command`), and every call home turned off."""
    return f"""model = "{CODEX_MODEL}"
model_provider = "fake"
check_for_update_on_startup = false
approval_policy = "never"
sandbox_mode = "danger-full-access"

[model_providers.fake]
name = "fake"
base_url = "{url}/v1"
env_key = "FAKE_API_KEY"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0

[features]
plugins = false
remote_plugin = false

[analytics]
enabled = false
{extra}"""


def codex_env(env: dict[str, str]) -> dict[str, str]:
    """``env`` (a project's, see ``Project.env``) for Codex."""
    return {
        **env,
        "CODEX_HOME": str(Path(env["HOME"]) / ".codex"),
        "FAKE_API_KEY": "test-not-a-key",
    }


def codex_command(prompt: str, *, url: str | None = None, bypass_trust: bool = False,
                  resume: bool = False) -> list[str]:  # fmt: skip
    """``codex exec`` headless; ``url``: the model server for this run."""
    cmd = [str(BINARIES["codex"]), "exec"]
    if resume:
        cmd.append("resume")
    cmd += ["--json", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox"]
    if url is not None:
        cmd += ["-c", f'model_providers.fake.base_url="{url}/v1"']
    if bypass_trust:
        cmd.append("--dangerously-bypass-hook-trust")
    return [*cmd, *(["--last"] if resume else []), prompt]


def codex_prepare(project: object) -> None:
    """A Codex user's own set-up: ``CODEX_HOME/config.toml`` with the fake provider, and the
    project trusted (Codex asks at the first start in a folder; ``codex exec`` never asks)."""
    from tests.e2e._support._project import Project

    assert isinstance(project, Project)
    config = project.home / ".codex" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    trusted = f'\n[projects.{json.dumps(str(project.root))}]\ntrust_level = "trusted"\n'
    config.write_text(codex_config() + trusted, encoding="utf-8")


@dataclass
class Run:
    """A finished harness run."""

    returncode: int
    stdout: str
    stderr: str

    def events(self) -> list[dict[str, object]]:
        """The JSON lines of ``stdout`` (stream-json / --json output)."""
        out = []
        for line in self.stdout.splitlines():
            line = line.strip()
            if line.startswith("{"):
                try:
                    out.append(json.loads(line))
                except ValueError:
                    continue
        return out


def run(cmd: list[str], *, cwd: Path, env: dict[str, str], timeout: float = 180) -> Run:
    """Run a harness to the end of its turn, stdin closed."""
    done = subprocess.run(
        cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
        timeout=timeout,
    )  # fmt: skip
    return Run(done.returncode, done.stdout, done.stderr)


def codex_hooks_list(project: object) -> list[dict[str, Any]]:
    """What Codex's own hook review sees in ``project``: ``codex app-server``'s ``hooks/list``
    (JSON-RPC on stdio), each hook with its ``key``, ``currentHash`` and ``trustStatus``."""
    from tests.e2e._support._project import Project

    assert isinstance(project, Project)
    env = codex_env(project.env)
    messages = [
        {"id": 1, "method": "initialize", "params": {"clientInfo": {"name": "t", "version": "1"}}},
        {"method": "initialized"},
        {"id": 2, "method": "hooks/list", "params": {"cwds": [str(project.root)]}},
    ]
    with subprocess.Popen(
        [str(BINARIES["codex"]), "app-server"], cwd=project.root, env=env, text=True,
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
    ) as proc:  # fmt: skip
        assert proc.stdin is not None
        assert proc.stdout is not None
        try:
            for message in messages:
                proc.stdin.write(json.dumps(message) + "\n")
            proc.stdin.flush()
            for line in proc.stdout:
                answer = json.loads(line)
                if answer.get("id") == 2:
                    data = answer["result"]["data"]
                    return [hook for entry in data for hook in entry["hooks"]]
            raise AssertionError("codex app-server ended without answering hooks/list")
        finally:
            proc.kill()


# -- OpenCode -------------------------------------------------------------------------------------

OPENCODE_MODEL = "fake/fake-model"


def opencode_env(env: dict[str, str], url: str) -> dict[str, str]:
    """``env`` (a project's) with OpenCode pointed at ``url`` through a custom provider on
    ``@ai-sdk/openai-compatible`` in a config file outside the project (``OPENCODE_CONFIG``),
    and its model-list fetch, auto-update, sharing and LSP downloads turned off."""
    home = Path(env["HOME"])
    config = home / "opencode-test.json"
    provider = {
        "npm": "@ai-sdk/openai-compatible",
        "name": "fake",
        "options": {"baseURL": f"{url}/v1", "apiKey": "test-not-a-key"},
        "models": {"fake-model": {"name": "fake", "tool_call": True}},
    }
    settings = {"autoupdate": False, "share": "disabled", "provider": {"fake": provider},
                "model": OPENCODE_MODEL}  # fmt: skip
    config.write_text(json.dumps(settings), encoding="utf-8")
    return {
        **env,
        "OPENCODE_CONFIG": str(config),
        "OPENCODE_DISABLE_MODELS_FETCH": "1",
        "OPENCODE_DISABLE_AUTOUPDATE": "1",
        "OPENCODE_DISABLE_SHARE": "1",
        "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
    }


def opencode_command(prompt: str) -> list[str]:
    """``opencode run`` headless, one JSON event per line."""
    return [str(BINARIES["opencode"]), "run", "--format", "json", "-m", OPENCODE_MODEL, prompt]


def opencode_seed(project: object, *, in_project: bool = True) -> None:
    """What OpenCode installs at every start into each configuration folder it reads (the
    project's ``.opencode/``, unless not ``in_project``, and ``~/.config/opencode/``):
    ``@opencode-ai/plugin``, copied from the cache so that no run reaches the registry (with it
    in place OpenCode installs nothing)."""
    import shutil

    from tests.e2e._support._project import Project

    assert isinstance(project, Project)
    folders = [project.home / ".config" / "opencode"]
    if in_project:
        folders.append(project.root / ".opencode")
    for folder in folders:
        folder.mkdir(parents=True, exist_ok=True)
        for name in ("package.json", "package-lock.json"):
            shutil.copy2(OPENCODE_PLUGIN_SEED / name, folder / name)
        if not (folder / "node_modules").exists():
            shutil.copytree(OPENCODE_PLUGIN_SEED / "node_modules", folder / "node_modules",
                            symlinks=True)  # fmt: skip
        ignore = folder / ".gitignore"
        if not ignore.exists():  # as OpenCode writes it
            ignore.write_text("node_modules\npackage.json\npackage-lock.json\nbun.lock\n"
                              ".gitignore\n")  # fmt: skip


# -- Grok Build -----------------------------------------------------------------------------------


def grok_config(url: str) -> str:
    """``~/.grok/config.toml``: the fake model on chat completions, every call home off."""
    return f"""auto_update = false

[cli]
auto_update = false

[features]
telemetry = false
remote_fetch = false
feedback = false
codebase_indexing = false

[telemetry]
trace_upload = false
mixpanel_enabled = false

[models]
default = "fake"

[model.fake]
model = "fake-model"
base_url = "{url}/v1"
api_backend = "chat_completions"
api_key = "test-not-a-key"
context_window = 128000
"""


def grok_env(env: dict[str, str], url: str) -> dict[str, str]:
    """``env`` (a project's) with Grok Build pointed at ``url`` (its config in the home)."""
    config = Path(env["HOME"]) / ".grok" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(grok_config(url), encoding="utf-8")
    return {
        **env,
        "XAI_API_KEY": "test-not-a-key",
        "GROK_DISABLE_AUTOUPDATER": "1",
        "GROK_TELEMETRY_ENABLED": "0",
        "GROK_TELEMETRY_TRACE_UPLOAD": "0",
    }


def grok_command(prompt: str) -> list[str]:
    """``grok -p`` headless. No ``--trust``: the folder is trusted as a user's install leaves it
    (``cuecard install grok`` records it), or not."""
    return [str(BINARIES["grok"]), "-p", prompt, "--output-format", "json", "--no-auto-update",
            "--always-approve"]  # fmt: skip
