"""Offline suggestions (coverage.suggest_offline): per-chunk candidates, other languages, no repeats."""

from __future__ import annotations

import numpy as np
import pytest

from ragcov_tui.coverage.suggest_offline import (
    chunk_candidates,
    content_words,
    lexical_duplicate,
    offline_suggestions,
    passage,
    prose_sentences,
    shorten,
)
from ragcov_tui.coverage.themes import PASSAGE_NOTE, heuristic_themes
from ragcov_tui.shared.errors import BadInput
from ragcov_tui.shared.safe_text import visible_line

WEBHOOKS = (
    "# Webhooks\n\n## Creating an endpoint\n\nOpen the admin console and add the URL of your service.\n\n"
    "## Overview\n\nEvery endpoint must use HTTPS. You can replay a failed delivery from the log.\n\n"
    "The signing secret is a random key that signs every payload."
)


def test_an_english_chunk_gives_shaped_questions_best_first() -> None:
    texts = [c.text for c in chunk_candidates("webhooks.md#0", WEBHOOKS)]
    assert texts == [
        "How do I create an endpoint?",
        "What is the signing secret?",
        "Can I replay a failed delivery from the log?",
    ]
    assert all(
        c.chunk_id == "webhooks.md#0" and c.form == "question" for c in chunk_candidates("webhooks.md#0", WEBHOOKS)
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("## Настройка прокси {#proxy}\n\nПрокси настраивается в файле конфигурации.", "Ask about: «Настройка прокси»"),
        (
            "Прокси настраивается в файле конфигурации сервера.",
            "Ask about: «Прокси настраивается в файле конфигурации сервера»",
        ),
        (
            "## Proxy einrichten\n\nDer Proxy wird in der Datei konfiguriert und ist nicht für alle Nutzer sichtbar.",
            "Ask about: «Proxy einrichten»",
        ),
        ("代理服务器在配置文件中设置。每个用户都可以修改它。", "Ask about: «代理服务器在配置文件中设置。»"),
        ("## 代理设置\n\n代理服务器在配置文件中设置。", "Ask about: «代理设置»"),
        (
            "Le proxy se configure dans le fichier de configuration pour tous les utilisateurs.",
            "Ask about: «Le proxy se configure dans le fichier de configuration pour tous les utilisateurs»",
        ),
    ],
)
def test_other_languages_get_a_passage_to_ask_about_not_an_english_template(text: str, expected: str) -> None:
    found = chunk_candidates("c1", text)
    assert [c.text for c in found] == [expected] and found[0].form == "passage"


@pytest.mark.parametrize(
    "text",
    [
        "",
        "```\ncode only\n```",
        "| a | b |\n|---|---|\n| 1 | 2 |",
        "<span style='x'>{{ v }}</span>",
        "12 34 56 78",
        "---\ntitle: x\n---\n",
    ],
)
def test_chunks_without_prose_give_nothing(text: str) -> None:
    assert chunk_candidates("c", text) == []


def test_mixed_english_chunk_skips_its_foreign_sentences() -> None:
    text = (
        "You can export a space as Markdown. The export is a zip file that holds one file for each page of the "
        "space, with the attachments in a folder beside it. Вы можете экспортировать пространство."
    )
    assert [c.text for c in chunk_candidates("c", text)] == ["What is the export?", "Can I export a space as Markdown?"]


def test_prose_sentences_join_wrapped_lines_and_skip_tables_code_headings() -> None:
    text = (
        "# Title\n\nThe audit log records\nevery sign-in. It keeps a year.\n\n| a | b |\n|---|---|\n\n"
        "```\nrm -rf /\n```\n- First step here.\n- Second step there.\n**Bold?** Then text."
    )
    assert prose_sentences(text) == [
        "The audit log records every sign-in.",
        "It keeps a year.",
        "- First step here.",
        "- Second step there.",
        "**Bold?",
        "Then text.",
    ]


@pytest.mark.parametrize(
    ("text", "limit", "expected"),
    [
        ("short", 90, "short"),
        ("one two three four", 10, "one two…"),
        ("abcdefghijklmnop", 5, "abcde…"),
        ("a, b, c, d", 5, "a, b…"),
    ],
)
def test_shorten(text: str, limit: int, expected: str) -> None:
    assert shorten(text, limit) == expected


def test_passage_prefers_a_specific_heading() -> None:
    assert passage("## Overview\n\n## Квоты и лимиты\n\nТекст раздела здесь.") == "Квоты и лимиты"
    assert passage("Слишком коротко.") is None


def test_suggestions_spread_over_chunks_round_robin_and_carry_their_chunk() -> None:
    chunks = [
        ("a", "## Creating an endpoint\n\nYou can pause an endpoint at any time."),
        ("b", "## Rotating the signing secret\n\nYou can keep two secrets for a day."),
        ("c", "## Configuring the proxy\n\nRun the setup script to install the agent."),
    ]
    found, note = offline_suggestions(chunks, 4)
    assert [(c.chunk_id, c.text) for c in found] == [
        ("a", "How do I create an endpoint?"),
        ("b", "How do I rotate the signing secret?"),
        ("c", "How do I configure the proxy?"),
        ("a", "Can I pause an endpoint at any time?"),
    ]
    assert note == ""


@pytest.mark.parametrize(
    "existing",
    [
        "How do I create an endpoint?",
        "how do I create an endpoint",
        "  How do I   create an endpoint ?? ",
        "How can I create an endpoint?",
        "HOW DO I CREATE AN ENDPOINT",
    ],
)
def test_a_test_question_is_never_suggested_again(existing: str) -> None:
    chunks = [("a", "## Creating an endpoint\n\nYou can pause an endpoint at any time.")]
    found, _ = offline_suggestions(chunks, 3, existing=[existing])
    assert [c.text for c in found] == ["Can I pause an endpoint at any time?"]


@pytest.mark.parametrize(
    ("a", "b", "dup"),
    [
        ("How do I create an endpoint?", "How can I create an endpoint?", True),
        ("How do I replay delivery batch 1?", "How do I replay delivery batch 2?", False),
        ("What is the audit log?", "How long is the audit log kept?", False),
        ("?", "?", False),
    ],
)
def test_lexical_duplicate(a: str, b: str, dup: bool) -> None:
    assert lexical_duplicate(content_words(a), [content_words(b)]) is dup


class FakeEmbedder:
    """Unit vectors keyed by a topic word, so paraphrases with the same topic word are cosine 1."""

    TOPICS = ["endpoint", "secret", "proxy", "pause"]

    def __call__(self, texts):
        out = np.zeros((len(texts), len(self.TOPICS) + 1), dtype=np.float32)
        for i, t in enumerate(texts):
            hits = [j for j, w in enumerate(self.TOPICS) if w in t.lower()]
            out[i, hits[0] if hits else -1] = 1.0
        return out


def test_a_paraphrase_of_a_test_question_is_dropped_by_cosine() -> None:
    embed = FakeEmbedder()
    chunks = [
        ("a", "## Creating an endpoint\n\nYou can pause deliveries at any time."),
        ("b", "## Configuring the proxy"),
    ]
    existing = ["Which steps set up a new endpoint for webhooks?"]  # no shared wording, same meaning
    found, note = offline_suggestions(chunks, 3, existing=existing, question_vecs=embed(existing), embed=embed)
    assert [c.text for c in found] == ["How do I configure the proxy?", "Can I pause deliveries at any time?"]
    assert note == ""


def test_paraphrases_among_the_suggestions_are_dropped_too() -> None:
    embed = FakeEmbedder()
    chunks = [("a", "## Creating an endpoint"), ("b", "## Adding an endpoint"), ("c", "## Configuring the proxy")]
    found, _ = offline_suggestions(chunks, 3, existing=["unrelated"], question_vecs=embed(["unrelated"]), embed=embed)
    assert [c.text for c in found] == ["How do I create an endpoint?", "How do I configure the proxy?"]


def test_an_embedder_that_cannot_embed_text_falls_back_to_wording_and_says_so() -> None:
    def precomputed(texts):
        raise BadInput("embedder precomputed cannot embed text")

    found, note = offline_suggestions(
        [("a", "## Creating an endpoint")],
        3,
        existing=["x"],
        question_vecs=np.ones((1, 4), dtype=np.float32),
        embed=precomputed,
    )
    assert [c.text for c in found] == ["How do I create an endpoint?"] and "by wording only" in note


def test_heuristic_themes_note_passages_and_keep_chunk_ids() -> None:
    texts = [
        ["## Настройка прокси\n\nПрокси настраивается в файле конфигурации сервера."] * 3,
        ["## Creating an endpoint\n\nYou can pause an endpoint at any time."] * 3,
    ]
    out = heuristic_themes(texts, 3, 2, {0: [("ru#0", texts[0][0])], 1: [("en#0", texts[1][0])]})
    assert out[0].questions[0] == {
        "text": "Ask about: «Настройка прокси»",
        "origin": "heuristic",
        "chunk_id": "ru#0",
        "form": "passage",
    }
    assert out[0].note == PASSAGE_NOTE and "use --llm" in out[0].note
    assert out[1].questions[0]["chunk_id"] == "en#0" and out[1].note == ""


@pytest.mark.parametrize(
    "hostile",
    [
        "## Set\x1b]0;pwned\x07 up the proxy\n\nYou can \x1b[31mrun\x1b[0m the agent at boot.",
        "## Настройка\u202e прокси\x9b\n\nПрокси \x00настраивается в файле конфигурации.",
    ],
)
def test_hostile_text_is_kept_in_data_and_made_safe_by_the_output_layer(hostile: str) -> None:
    found, _ = offline_suggestions([("c\x1b", hostile)], 3)
    assert found
    for c in found:
        shown = visible_line(c.text)
        assert not any(ch in shown for ch in "\x1b\x07\x00\x9b\u202e")


def test_vectors_of_another_dimension_fall_back_to_wording() -> None:
    embed = FakeEmbedder()
    found, note = offline_suggestions(
        [("a", "## Creating an endpoint")],
        3,
        existing=["x"],
        question_vecs=np.ones((1, 3), dtype=np.float32),
        embed=embed,
    )
    assert [c.text for c in found] == ["How do I create an endpoint?"] and "5-d vectors against 3-d" in note


def test_an_admonition_opener_does_not_start_a_passage() -> None:
    text = '??? question "Warum haben einige Bilder den 08.12.2002 als Datum, wenn sie an diesem Tag nicht entstanden?"'
    assert [c.text for c in chunk_candidates("c", text)] == [
        "Ask about: «Warum haben einige Bilder den 08.12.2002 als Datum, wenn sie an diesem Tag nicht…»"
    ]
