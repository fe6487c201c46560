"""The memory-sensitive topics that make the discipline plugin recall in ``auto`` mode.

This module is the one place the list lives. The defaults below cover what a person expects an
agent to remember between sessions: preferences, paths, environment, servers, project facts,
tool status, coordination rules and the memory system itself, in English and Chinese. A user
changes them in the ``[dsh]`` table of the user config file (``$XDG_CONFIG_HOME/cuecard/
config.toml``)::

    [dsh]
    topics = ["deploy", "staging"]        # replaces the defaults
    extra_topics = ["kubernetes", "集群"]  # added to the defaults (or to ``topics``)

English keywords match whole words, case-insensitively, with an optional plural or verb ending
(``path`` matches "paths", ``prefer`` "preferred"); keywords written in CJK script match as
substrings, since those scripts do not separate words with spaces.

Whatever the list says, a question about what is known, remembered, recorded or decided ("what
do we know about billing retries?", "do you remember…", "anything noted on…", "我们知道什么")
opens the gate too, as the topic ``what is known`` (``KNOWN``). The third rule, a message naming
something the vault holds, needs the vault and lives in ``_held``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from pathlib import Path

from cuecard.core import ConfigError

__all__ = ["DEFAULT_TOPICS", "KNOWN", "TopicGate", "load_topics"]

KNOWN = "what is known"
"""The topic a question about what is known or remembered reports."""
_VERBS = (
    r"(?:know|knew|remember|recall|note|noted|record|recorded|decide|decided|learn|learned"
    r"|learnt|agree|agreed)"
)
_STATES = r"(?:known|remembered|recorded|noted|learned|learnt|decided|agreed)"
_KNOWN_QUESTION = (
    r"(?<![a-z])(?:"
    r"what\s+(?:do|did|does|have|had|has)\s+(?:we|you|i|they|the\s+team)\s+(?:already\s+)?"
    + _VERBS
    + r"|(?:do|did|does)\s+(?:we|you|anyone)\s+(?:already\s+)?"
    r"(?:know|remember|recall|have\s+(?:any\s+)?(?:notes?|anything|records?))"
    r"|what(?:'s|\s+is|\s+was|\s+has\s+been)?\s+"
    + _STATES
    + r"|"
    + _STATES
    + r"\s+(?:about|on|for|regarding|concerning)"
    r"|anything\s+(?:known|remembered|recorded|noted|on\s+file)"
    r"|remind\s+me"
    r")(?![a-z])"
)
_KNOWN_CJK = (
    "知道什么", "知道哪些", "知道些什么", "记得什么",
    "有什么记录", "有没有记录", "决定过", "约定过",
)  # fmt: skip

DEFAULT_TOPICS: tuple[str, ...] = (
    # English
    "prefer", "preference", "like", "default", "language", "format", "style", "convention",
    "path", "directory", "folder", "environment", "env", "config", "configuration", "setting",
    "install", "version", "server", "host", "port", "endpoint", "url", "account", "credential",
    "tool", "plugin", "status", "project", "repo", "repository", "rule", "workflow", "deploy",
    "agent", "relay", "coordinate", "memory", "remember", "recall", "last time", "previously",
    "usual", "always", "never",
    # Chinese
    "偏好", "喜欢", "习惯", "风格", "格式", "语言", "路径", "目录", "环境", "配置", "安装",
    "版本", "服务器", "主机", "端口", "地址", "账号", "工具", "插件", "状态", "项目", "规则",
    "流程", "部署", "协作", "记忆", "记得", "上次", "之前", "以前",
)  # fmt: skip

# Kana, CJK ideographs, Hangul. Tested by code point: compiling this as a regex character class
# costs the per-turn recall process tens of milliseconds.
_CJK_RANGES = (
    (0x3040, 0x30FF),
    (0x3400, 0x4DBF),
    (0x4E00, 0x9FFF),
    (0xAC00, 0xD7AF),
    (0xF900, 0xFAFF),
)


def _is_cjk(word: str) -> bool:
    return any(low <= ord(c) <= high for c in word for low, high in _CJK_RANGES)


_SUFFIX = r"(?:s|es|ed|d|ing|ies|red|ring|ence|ences)?"


class TopicGate:
    """Decides whether a message touches a memory-sensitive topic."""

    def __init__(self, topics: Iterable[str]) -> None:
        words = sorted({t.strip().lower() for t in topics if t.strip()}, key=len, reverse=True)
        self.topics: tuple[str, ...] = tuple(words)
        latin = [w for w in words if not _is_cjk(w)]
        self._cjk = [w for w in words if _is_cjk(w)]
        self._latin = (
            re.compile(
                r"(?<![\w])("
                + "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in latin)
                + r")"
                + _SUFFIX
                + r"(?![\w])"
            )  # matched against lowered text: IGNORECASE makes compiling \w cost milliseconds
            if latin
            else None
        )
        self._known = re.compile(_KNOWN_QUESTION)

    def matches(self, text: str) -> list[str]:
        """The topics ``text`` mentions, longest first, without repeats."""
        found: list[str] = []
        lowered = text.lower()
        if self._latin is not None:
            for match in self._latin.finditer(lowered):
                word = re.sub(r"\s+", " ", match.group(1).lower())
                if word not in found:
                    found.append(word)
        found.extend(w for w in self._cjk if w in lowered and w not in found)
        if self._known.search(lowered) or any(p in lowered for p in _KNOWN_CJK):
            found.append(KNOWN)
        return found


def load_topics(config_file: Path | None) -> tuple[str, ...]:
    """The topic list: the defaults, or the ``[dsh]`` table of ``config_file`` when it has one."""
    if config_file is None or not config_file.is_file():
        return DEFAULT_TOPICS
    import tomllib

    try:
        data = tomllib.loads(config_file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{config_file}: cannot be read as TOML ({exc})") from None
    table = data.get("dsh", {})
    if not isinstance(table, Mapping):
        raise ConfigError(f"{config_file}: [dsh] must be a table")
    topics = _word_list(config_file, table, "topics")
    extra = _word_list(config_file, table, "extra_topics")
    return (*(DEFAULT_TOPICS if topics is None else topics), *(extra or ()))


def _word_list(config_file: Path, table: Mapping[str, object], key: str) -> tuple[str, ...] | None:
    value = table.get(key)
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise ConfigError(f"{config_file}: dsh.{key} must be a list of non-empty strings")
    return tuple(value)
