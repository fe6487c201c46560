"""``cuecard dsh recall``: the discipline plugin's topic gate and bounded vault search."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cuecard.core.engine import ADVISORY
from cuecard.dsh_adapter import DEFAULT_TOPICS, TopicGate, load_topics
from cuecard.dsh_adapter._recall import INSTRUCTIONS
from cuecard.dsh_adapter._topics import KNOWN
from tests._support.dsh import Home, dsh

GATE = TopicGate(DEFAULT_TOPICS)


@pytest.mark.parametrize(
    ("text", "topics"),
    [
        ("Which port does the staging server use?", ["server", "port"]),
        ("Where is the config file?", ["config"]),
        ("What did we do last time?", ["last time"]),
        ("Remember my preferred editor", ["remember", "prefer"]),
        ("用户偏好是什么？", ["偏好"]),
        ("部署到哪个服务器", ["服务器", "部署"]),
        ("Write a haiku about autumn", []),
        ("Fix the typo in the README", []),
        ("a report on airports and passports", []),  # whole words only
        ("support the sporty paths", ["path"]),
        # a question about what is known, remembered or decided opens the gate
        ("what do we know about billing retries?", ["what is known"]),
        ("What's known about the flaky CI job?", ["what is known"]),
        ("anything noted on billing retries", ["what is known"]),
        ("what has the team decided for retries", ["what is known"]),
        ("我们知道什么关于计费重试？", ["what is known"]),
        ("I know this test is wrong, fix it", []),  # "know" alone is no question
    ],
)
def test_the_gate_matches_whole_words_and_cjk(text: str, topics: list[str]) -> None:
    assert sorted(GATE.matches(text)) == sorted(topics)


@given(st.text(max_size=300))
def test_the_gate_never_fails(text: str) -> None:
    found = GATE.matches(text)
    assert all(t in GATE.topics or t == KNOWN for t in found)


def test_the_topic_list_is_configurable(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    assert load_topics(config) == DEFAULT_TOPICS
    config.write_text('[dsh]\ntopics = ["kubernetes"]\nextra_topics = ["集群"]\n')
    gate = TopicGate(load_topics(config))
    assert gate.matches("the kubernetes 集群 port") == ["kubernetes", "集群"]
    config.write_text('[dsh]\ntopics = "kubernetes"\n')
    with pytest.raises(ValueError, match=r"dsh\.topics must be a list of non-empty strings"):
        load_topics(config)
    config.write_text("[dsh\n")
    with pytest.raises(ValueError, match="cannot be read as TOML"):
        load_topics(config)


def recall(*args: str, stdin: str = "", cwd: Path | None = None) -> dict[str, Any]:
    done = dsh("recall", "--json", *args, stdin=stdin, cwd=cwd)
    assert done.returncode == 0, done.stderr
    value: dict[str, Any] = json.loads(done.stdout)
    assert set(value) == {"topics", "searched", "count", "output"}
    return value


def test_recall_needs_a_topic_in_auto_mode(seeded: Home) -> None:
    shut = recall(stdin="a haiku about autumn 8443")
    assert shut == {"topics": [], "searched": False, "count": 0, "output": ""}
    done = dsh("recall", stdin="a haiku about autumn 8443")
    assert (done.returncode, done.stdout) == (0, "")  # exit 0, no output: nothing to inject
    opened = recall(stdin="Which port does the staging server use?")
    assert opened["searched"] is True
    assert opened["count"] >= 1
    output = str(opened["output"])
    assert output.startswith('<memory-data source="cuecard recall" topics="')
    assert output.endswith(f"</memory-data>\n{INSTRUCTIONS}\n{ADVISORY}")
    assert "listens on port 8443" in output
    assert str(seeded.root) not in output


def test_always_mode_searches_every_message(seeded: Home) -> None:
    value = recall("--mode", "always", "staging", "8443")
    assert value["searched"] is True
    assert "port 8443" in str(value["output"])


def test_a_search_without_hits_prints_nothing(seeded: Home) -> None:
    value = recall("--mode", "always", stdin="zebra giraffe")
    assert (value["searched"], value["count"], value["output"]) == (True, 0, "")


def test_chinese_messages_recall_chinese_facts(seeded: Home) -> None:
    value = recall(stdin="我的回复语言偏好是什么？")
    assert "用户偏好简体中文回复" in str(value["output"])


def test_output_fits_max_chars_and_keeps_the_closing_tag(home: Home) -> None:
    # Near-identical facts would be held as conflicts at promotion: a person writes them instead.
    facts = "".join(f"- Server rack {i} exposes port {9000 + i} for metrics\n" for i in range(40))
    with (home.vault / "notes" / "environment.md").open("a") as note:
        note.write("\n" + facts)
    value = recall("--limit", "40", "--max-chars", "400", stdin="which server port is for metrics")
    output = str(value["output"])
    assert len(output) <= 400
    # the data block, then the line every delivery ends with; the instructions do not fit here
    assert output.endswith(f"</memory-data>\n{ADVISORY}")
    assert "[…]" in output
    assert output.count("</memory-data>") == 1
    assert "memory_submit" not in output


def test_recall_inside_a_project_reads_its_memories(seeded: Home, project: Path) -> None:
    value = recall(stdin="which port does the staging server use", cwd=project)
    assert "listens on port 8443" in str(value["output"])


@pytest.mark.parametrize(
    "args", [["--limit", "0"], ["--max-chars", "10"], ["--mode", "never"]], ids=str
)
def test_bad_options_are_usage_errors(isolated: Home, args: list[str]) -> None:
    assert dsh("recall", *args, stdin="x").returncode == 2


def test_a_missing_vault_fails_loudly_for_the_plugin_to_log(isolated: Home) -> None:
    done = dsh("recall", stdin="where is the config?")
    assert done.returncode == 1
    assert done.stdout == ""
    assert "vault" in done.stderr


def test_invalid_utf8_on_stdin_does_not_crash(seeded: Home) -> None:
    done = dsh("recall", "--mode", "auto", "--limit", "5", "--max-chars", "1600",
               stdin=b"which \xff\xfe port does the staging server use")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "listens on port 8443" in done.stdout


def test_a_question_about_what_is_known_recalls_in_auto_mode(home: Home) -> None:
    from tests._support.dsh import vault_cli

    vault_cli("vault", "submit", "--agent", "seed",
              stdin="Billing retries use exponential backoff capped at 5 tries\n")  # fmt: skip
    vault_cli("vault", "apply", "--auto")
    value = recall(stdin="what do we know about billing retries?")
    assert value["topics"] == ["what is known"]
    assert value["searched"] is True
    assert "exponential backoff" in str(value["output"])


def test_a_message_naming_what_the_vault_holds_recalls_in_auto_mode(home: Home) -> None:

    facts = [
        "Billing retries use exponential backoff capped at 5 tries",
        "The release train departs on Thursdays",
        "Invoices are rendered by the ledgerline service",
        *(f"Rack {i} build agents share the cache volume {i * 7}" for i in range(120)),
    ]
    # Near-identical facts would be held as conflicts at promotion: a person writes them instead.
    with (home.vault / "notes" / "environment.md").open("a") as note:
        note.write("\n" + "".join(f"- {fact}\n" for fact in facts))
    # none of these words is a configured topic; the vault holds them
    value = recall(stdin="the ledgerline output looks odd today")
    [topic] = value["topics"]  # the search's own form of the word (it may be stemmed)
    assert str(topic)[:8] == "ledgerli"
    assert value["searched"] is True
    assert "rendered by the ledgerline service" in str(value["output"])
    # a word most facts share names nothing in particular; an unknown word names nothing
    assert recall(stdin="the build seems slow")["searched"] is False
    assert recall(stdin="Write a haiku about autumn leaves")["searched"] is False


def test_the_vault_rule_needs_no_vault_and_never_fails(isolated: Home) -> None:
    from cuecard.dsh_adapter._held import held_topics

    assert held_topics("the ledgerline output", None) == []
    assert held_topics("the ledgerline output", str(isolated.root / "nowhere")) == []
    assert held_topics("the ledgerline output", "postgresql://localhost/vault") == []
