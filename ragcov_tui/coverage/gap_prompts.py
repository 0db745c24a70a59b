"""The prompts that write test questions for a gap: its themes and questions, and more questions.

- :data:`THEMES` — a gap cluster's most representative passages (the first :data:`LLM_CHUNKS`,
  each cut to :data:`LLM_CHARS` characters) → :class:`GapThemes`: up to ``n_themes`` themes and
  ``n_questions`` questions, stripped (``analyze --llm``, and the probes of ``eval --probes --llm``);
- :data:`MORE_QUESTIONS` — a gap's themes, its least-covered chunks and its suggestions so far →
  up to ``n`` new questions (``g`` in the app's Gaps pane, :mod:`ragcov_tui.services.suggestions`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ragcov_tui.llm.json_reply import ReplyError
from ragcov_tui.llm.prompt import Example, JsonPrompt
from ragcov_tui.llm.reply_schemas import (
    BASE_TOKENS,
    ITEM_CHARS,
    STRINGS,
    TOKENS_PER_ITEM,
    ReplySchema,
    cap,
    json_object,
)

LLM_CHUNKS, LLM_CHARS = 6, 1200


@dataclass(frozen=True)
class GapPassages:
    """A gap's passages (most representative first) and how many themes and questions to ask for."""

    texts: Sequence[str]
    n_themes: int
    n_questions: int


@dataclass(frozen=True)
class GapThemes:
    themes: list[str]
    questions: list[str]


class ThemesPrompt(JsonPrompt[GapPassages, GapThemes]):
    name = "themes"
    instruction = "You help improve the test set of a retrieval-augmented generation system. Reply with JSON only."
    examples = (
        Example(
            GapPassages(["Refunds are issued within 14 days."], 2, 1),
            '{"themes": [" Refund window ", "Refund method", "Extra"], "questions": ["How long do refunds take?"]}',
            GapThemes(["Refund window", "Refund method"], ["How long do refunds take?"]),
        ),
    )

    def user(self, data: GapPassages) -> str:
        passages = "\n\n".join(f"Passage {i + 1}:\n{t[:LLM_CHARS]}" for i, t in enumerate(data.texts[:LLM_CHUNKS]))
        return (
            f"The passages below come from one topic of a knowledge base that the test questions do not cover well "
            f"(the least covered passages first).\n"
            f"Name 3 to {data.n_themes} short themes (2-4 words each) and write {data.n_questions} distinct questions "
            f'a user would ask that these passages answer.\nReply as {{"themes": [...], "questions": [...]}}.\n\n'
            f"{passages}"
        )

    def reply_schema(self, data: GapPassages) -> ReplySchema:
        """``{"themes": [str], "questions": [str]}``, each list at most as long as the longer one asked for."""
        n = max(1, data.n_themes, data.n_questions)
        return ReplySchema(
            self.name,
            json_object(themes=STRINGS, questions=STRINGS),
            cap(BASE_TOKENS + 2 * n * TOKENS_PER_ITEM),
            max_items=n,
            max_chars=ITEM_CHARS,
        )

    def read(self, data: GapPassages, value: Any) -> GapThemes:
        if not isinstance(value, dict):
            raise ReplyError("expected a JSON object with 'themes' and 'questions'")
        for key in ("themes", "questions"):
            items = value.get(key)
            if not isinstance(items, list) or not items or not all(isinstance(s, str) and s.strip() for s in items):
                raise ReplyError(f"'{key}' must be a non-empty list of strings")
        return GapThemes(
            [s.strip() for s in value["themes"]][: data.n_themes],
            [s.strip() for s in value["questions"][: data.n_questions]],
        )


@dataclass(frozen=True)
class GapQuestions:
    """What more questions for a gap are written from: its themes, its (chunk id, text) passages, the
    suggestions it has, and how many new ones to ask for."""

    themes: Sequence[str]
    passages: Sequence[tuple[str, str]]
    existing: Sequence[str]
    n: int


class MoreQuestionsPrompt(JsonPrompt[GapQuestions, list[str]]):
    name = "questions"
    instruction = (
        "You write test questions for a retrieval-augmented assistant. The passages below come from one "
        "part of the knowledge base that the current test set barely covers (themes: {themes}). Write {n} "
        "new, distinct, self-contained questions a user could ask that these passages answer. Avoid these "
        'existing ones: {existing}. Reply with JSON only: {{"questions": ["...", ...]}}'
    )
    examples = (
        Example(
            GapQuestions(["Refunds"], [("refunds.md#1", "Refunds take 14 days.")], [], 1),
            '{"questions": ["How long do refunds take?", "Who pays?"]}',
            ["How long do refunds take?"],
        ),
    )

    def system(self, data: GapQuestions) -> str:
        return self.instruction.format(
            themes=", ".join(data.themes) or "unknown",
            n=data.n,
            existing=json.dumps(list(data.existing), ensure_ascii=False),
        )

    def user(self, data: GapQuestions) -> str:
        return "\n\n".join(f"[{chunk_id}] {text}" for chunk_id, text in data.passages)

    def reply_schema(self, data: GapQuestions) -> ReplySchema:
        n = max(1, data.n)
        return ReplySchema(
            self.name,
            json_object(questions=STRINGS),
            cap(BASE_TOKENS + n * TOKENS_PER_ITEM),
            max_items=n,
            max_chars=ITEM_CHARS,
        )

    def read(self, data: GapQuestions, value: Any) -> list[str]:
        if not isinstance(value, dict) or not isinstance(value.get("questions"), list):
            raise ReplyError('expected {"questions": [...]}')
        if not all(isinstance(q, str) for q in value["questions"]):
            raise ReplyError("every question must be a string")
        return value["questions"][: data.n]


THEMES = ThemesPrompt()
MORE_QUESTIONS = MoreQuestionsPrompt()
