"""Vault layouts: where each part of a vault lives and how its files are worded.

Two profiles. ``default`` is cuecard's English layout. ``unified-agent-memory`` reads and writes
a vault of that system in place: its ``50-Agent-Context/`` folder names, canonical note ids, fact
stamps, pending-list and conflict-queue formats. Standard library only.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["DEFAULT", "LAYOUTS", "UAM", "Layout", "detect_layout"]

# Keyword rules shared by both layouts: (note id, pattern), first match wins. Words match at
# word starts, so "like" does not fire on "likely" nor "port" on "report".
_RULES: tuple[tuple[str, str], ...] = (
    (
        "ui",
        r"\bui\b|\buser interface|\binterface|\bdesign|\btheme|\bcolou?r|\baesthetic|\blayout"
        r"|\bstyle|\bdashboard|\bfont|界面|设计|审美|主题|颜色|布局|风格|デザイン|디자인",
    ),
    (
        "prefs",
        r"\bprefer|\blikes?\b|\bdislike|\bdefault|\blanguage|\bformat|\btone\b|\bwriting"
        r"|偏好|喜欢|希望|语言|格式|语气|好み|선호",
    ),
    (
        "rules",
        r"\brules?\b|\bworkflow|\bprocess|\bpolicy|\bmust\b|\bshould\b|\balways\b|\bnever\b"
        r"|\bverify|\baudit|\brollback|\bdeploy|\bred line"
        r"|红线|规则|必须|验证|审计|回滚|部署|流程|步骤",
    ),
    (
        "env",
        r"\bpath|\bdirector(?:y|ies)|\binstall|\bversion|\benvironment|\bconfig|\bports?\b"
        r"|\bserver|\bmodel|\bprovider|\bendpoint|\bhost|\burl|\baccount|\bbackup|\bcache"
        r"|\bstorage|\bhome\b|\bstaging|\bproduction|\d{1,3}(?:\.\d{1,3}){3}|localhost"
        r"|路径|目录|端口|服务器|服务|环境|安装|版本|地址|配置|账号|依赖|サーバ|서버",
    ),
    (
        "tools",
        r"\btools?\b|\bavailable|\bbroken|\bstatus|\bdoctor|\buninstall|\bhealth|\bplugin"
        r"|工具|插件|状态|健康|排查",
    ),
    (
        "coord",
        r"\bcoordinat|\bcollaborat|\bagents?\b|\brelay|\bhandoff|\bownership|\bboundary"
        r"|\binbox|协作|代理|边界|共享|隔离|提交",
    ),
)


class Layout:
    """Where the parts of a vault live (paths relative to the vault root) and their wording.

    A layout is a subclass that sets every attribute; its one instance is the profile.
    """

    name: str
    """The profile name given to ``--layout``."""
    marker: str
    """A folder whose presence identifies this layout."""
    notes_dir: str
    """The folder whose top-level ``*.md`` files are canonical notes."""
    notes: dict[str, tuple[str, ...]]
    """Canonical note id -> accepted file names under ``notes_dir``; the first is created."""
    catch_all: str
    """Vault-relative note that receives facts no keyword rule claims (indexed too)."""
    inbox: str
    processed: str
    pending: str
    conflicts: str
    adjudicated: str
    promoted: str
    """The promotion log (one line per promoted fact), read for ``last promotion``."""
    forgotten: str
    sessions: str
    stamp: str
    """Format of the suffix a promoted fact line gets: ``{date}`` and ``{source}``."""
    superseded_heading: str
    """The heading under which superseded facts are kept."""
    pending_labels: tuple[str, str, str, str, str]
    """Field labels of a pending item: note, target, source, replaces, fact."""
    pending_header: str
    """Header of the pending list; ``{now}`` and ``{command}`` are filled in."""
    pending_empty: str
    conflict_tag: str
    """The word after ``- [ ]`` on a conflict line."""
    conflict_keys: tuple[str, str, str, str]
    """JSON keys of a conflict entry: new, old, source, note."""
    conflict_header: str
    decisions: dict[str, str]
    """Decision -> the word written to the adjudication log."""
    log_format: str
    """Adjudication log line: ``{when}``, ``{decision}``, ``{new}``, ``{old}``."""
    adjudicated_header: str
    notes_templates: dict[str, str]
    """Note id -> the text ``init`` writes."""
    extra_files: dict[str, str]
    """Vault-relative path -> text, written by ``init`` (READMEs)."""
    rules: tuple[tuple[str, str], ...] = _RULES

    def __repr__(self) -> str:
        return f"<layout {self.name}>"

    def note_file(self, root: Path, note_id: str) -> Path:
        """The file of a canonical note: the first accepted name that exists, else the first."""
        if note_id == "other":
            return root / self.catch_all
        names = self.notes[note_id]
        for name in names:
            candidate = root / self.notes_dir / name
            if candidate.is_file():
                return candidate
        return root / self.notes_dir / names[0]

    def classify(self, fact: str) -> str:
        """The note id a fact belongs to by the keyword rules; ``other`` when none claims it."""
        import re

        for note_id, pattern in self.rules:
            if re.search(pattern, fact, re.IGNORECASE):
                return note_id
        return "other"


_DEFAULT_NOTES: dict[str, tuple[str, ...]] = {
    "index": ("index.md",),
    "prefs": ("preferences.md",),
    "env": ("environment.md",),
    "rules": ("rules.md",),
    "tools": ("tools.md",),
    "ui": ("ui.md",),
    "coord": ("coordination.md",),
}
_DEFAULT_TITLES = {
    "index": ("Index", "What each note holds."),
    "prefs": ("Preferences", "How the person likes things done."),
    "env": ("Paths and environment", "Machines, paths, ports, versions, accounts (never secrets)."),
    "rules": ("Rules", "Workflow rules that must be followed."),
    "tools": ("Tools", "Which tools are available, broken or preferred."),
    "ui": ("Interface and design", "Visual and interface taste."),
    "coord": ("Coordination", "How agents share work, hand off and respect boundaries."),
}


_DEFAULT_DECISIONS: dict[str, str] = {
    "use-new": "use-new",
    "keep-old": "keep-old",
    "keep-both": "keep-both",
    "defer": "defer",
}


_DEFAULT_TEMPLATES: dict[str, str] = {
    k: f"# {title}\n\n> {desc}\n\n" for k, (title, desc) in _DEFAULT_TITLES.items()
} | {"other": "# Uncategorised\n\n> Facts no keyword rule claimed. Still searchable.\n\n"}


_DEFAULT_EXTRA: dict[str, str] = {
    "inbox/README.md": (
        "# Inbox\n\nAgents write submissions here with `cuecard vault submit --agent NAME`, "
        "one file each: `<agent>-<YYYYMMDD>-<HHMMSS>-<nn>.md`. Never write a secret.\n"
    ),
    "sessions/README.md": "# Session archives\n\nOne redacted file per day.\n",
}


class _Default(Layout):
    """cuecard's layout."""

    name = "default"
    marker = "notes"
    notes_dir = "notes"
    notes = _DEFAULT_NOTES
    catch_all = "notes/uncategorised.md"
    inbox = "inbox"
    processed = "inbox/processed"
    pending = "review/pending.md"
    conflicts = "review/conflicts.md"
    adjudicated = "review/adjudicated.md"
    promoted = "review/promoted.md"
    forgotten = "forgotten"
    sessions = "sessions"
    stamp = " (written {date} | source: inbox/{source})"
    superseded_heading = "## Superseded"
    pending_labels = ("note", "target", "source", "replaces", "fact")
    pending_header = (
        "# Pending promotions\n\n"
        "> Generated {now}. Run `{command}` to promote every unticked item;\n"
        "> tick `[x]` or delete a line to leave a fact out.\n"
    )
    pending_empty = "_Nothing to promote._"
    conflict_tag = "conflict"
    conflict_keys = ("new", "old", "source", "note")
    conflict_header = (
        "# Conflicts waiting\n\n"
        "> Similar but different facts. Decide each with `cuecard vault adjudicate ID "
        "--decision use-new|keep-old|keep-both|defer`.\n\n"
    )
    decisions = _DEFAULT_DECISIONS
    log_format = "- {when} | decision: {decision} | new: {new} | old: {old}"
    adjudicated_header = "# Adjudicated conflicts\n\n> use-new, keep-old, keep-both or defer.\n\n"
    notes_templates = _DEFAULT_TEMPLATES
    extra_files = _DEFAULT_EXTRA


DEFAULT = _Default()

_UAM_CTX = "50-Agent-Context"
_UAM_NOTES: dict[str, tuple[str, ...]] = {
    "index": ("上下文索引.md",),
    "prefs": ("我的偏好摘要.md",),
    "env": ("常用路径与环境.md",),
    "rules": ("工程执行规则.md",),
    "tools": ("工具可用性检查.md", "工具可用性.md"),
    "ui": ("UI审美准则.md", "UI 审美.md"),
    "coord": ("Codex-Claude-Hermes协作规则.md", "协作规则.md"),
}
_UAM_TITLES = {
    "index": "上下文索引",
    "prefs": "我的偏好摘要",
    "env": "常用路径与环境",
    "rules": "工程执行规则",
    "tools": "工具可用性检查",
    "ui": "UI审美准则",
    "coord": "Codex-Claude-Hermes协作规则",
}


_UAM_DECISIONS: dict[str, str] = {
    "use-new": "用新",
    "keep-old": "保留旧",
    "keep-both": "并存",
    "defer": "暂缓",
}


_UAM_TEMPLATES: dict[str, str] = {
    k: f"# {title}\n\n> 由晋升器写入的事实。\n\n" for k, title in _UAM_TITLES.items()
} | {"other": "# 未归类事实\n\n> 没有关键词规则认领的事实（仍可搜索）。\n\n"}


_UAM_EXTRA: dict[str, str] = {
    f"{_UAM_CTX}/README.md": "# 50-Agent-Context\n\n共享记忆库。Agent 只写 Agent提交区/。\n",
    f"{_UAM_CTX}/Agent提交区/README.md": (
        "# Agent提交区\n\n每次提交一个文件：`<agent>-<YYYYMMDD>-<HHMMSS>-<nn>.md`。"
        "不要写入明文凭据。\n"
    ),
    f"{_UAM_CTX}/会话归档/README.md": ("# 会话归档 — session archive\n\nOne dated file per day.\n"),
}


class _UnifiedAgentMemory(Layout):
    """The unified-agent-memory vault, read and written in place."""

    name = "unified-agent-memory"
    marker = _UAM_CTX
    notes_dir = _UAM_CTX
    notes = _UAM_NOTES
    catch_all = f"{_UAM_CTX}/情境信息/未归类事实.md"
    inbox = f"{_UAM_CTX}/Agent提交区"
    processed = f"{_UAM_CTX}/Agent提交区/已处理"
    pending = f"{_UAM_CTX}/情境信息/待晋升.md"
    conflicts = f"{_UAM_CTX}/情境信息/事实冲突待裁决.md"
    adjudicated = f"{_UAM_CTX}/情境信息/事实冲突已裁决.md"
    promoted = f"{_UAM_CTX}/情境信息/晋升记录.md"
    forgotten = f"{_UAM_CTX}/记忆遗忘区"
    sessions = f"{_UAM_CTX}/会话归档"
    stamp = "（写入 {date}｜来源：Agent提交区/{source}）"
    superseded_heading = "## 已取代"
    pending_labels = ("分类", "目标", "来源", "取代", "内容")
    pending_header = (
        "# 待晋升清单\n\n"
        '> 生成于 {now}。运行 "{command}" 晋升；\n'
        '> 或 "--auto" 一步完成（需显式开启）。\n'
    )
    pending_empty = "_无待晋升事实。_"
    conflict_tag = "冲突"
    conflict_keys = ("新", "旧", "来源", "目标")
    conflict_header = (
        "# 事实冲突待裁决\n\n"
        "> 相似但不同的事实（similar but different facts）。"
        "运行 `cuecard vault adjudicate` 裁决：用新 / 保留旧 / 并存 / 暂缓。\n\n"
    )
    decisions = _UAM_DECISIONS
    log_format = "- {when}｜裁决：{decision}｜新：{new}｜旧：{old}"
    adjudicated_header = "# 事实冲突已裁决\n\n> 裁决记录：用新 / 保留旧 / 并存 / 暂缓。\n\n"
    notes_templates = _UAM_TEMPLATES
    extra_files = _UAM_EXTRA


UAM = _UnifiedAgentMemory()

LAYOUTS: dict[str, Layout] = {DEFAULT.name: DEFAULT, UAM.name: UAM}


def detect_layout(root: str | os.PathLike[str]) -> Layout | None:
    """The layout of the vault at ``root``, or ``None`` when it is not a vault. Its folders are
    looked at through the confined layer: a link in a marker folder's place (or on its way) is
    not a vault's folder, and is never followed."""
    from cuecard.core.base._confined import Tree

    tree = Tree(root)
    if tree.is_dir(UAM.marker):
        return UAM
    if tree.is_dir(DEFAULT.notes_dir) and tree.is_dir(DEFAULT.inbox):
        return DEFAULT
    return None


def vault_problem(where: str) -> str | None:
    """Why the vault folder ``where`` cannot serve the memory tools (missing, or not a vault),
    or ``None``; a URL (a database vault) passes. The DSH plugins' worker checks this at
    startup, and ``cuecard doctor`` the same way."""
    if "://" in where:
        return None
    if not os.path.isdir(where):
        return f"the vault {where} does not exist: create it with `cuecard vault init --vault PATH`"
    if detect_layout(where) is None:
        return f"{where} is not a vault (no notes/ and inbox/): `cuecard vault init --vault PATH`"
    return None
