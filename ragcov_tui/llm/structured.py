"""Structured output: a JSON schema per prompt, and the ladder down when a server refuses it.

A JSON request climbs down three rungs, per server and model, for the rest of the run:

1. ``json_schema`` — ``response_format: {"type": "json_schema", "json_schema": {"name", "schema",
   "strict": true}}`` (OpenAI, vLLM, llama.cpp and Ollama accept it; llama.cpp enforces it by grammar);
2. ``json_object`` — plain JSON mode, ``response_format: {"type": "json_object"}``;
3. ``prompt`` — no ``response_format``: the prompt alone asks for JSON, parsed leniently.

A rung is left only on a refusal of that rung (:func:`is_format_refusal`): an HTTP 400 / 422 / 501
whose message names the response format (``response_format``, ``json_schema``, ``json_object``,
``structured output``, ``guided decoding``, ``grammar``, ``schema``). Any other 400 — a context
overflow above all (:mod:`ragcov_tui.llm.context_window`) — leaves the ladder where it is. Each
chat model (one per model and run) holds its ladder, so a downgrade lasts for the run and is said
once through ``warn``.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from ragcov_tui.llm.context_window import context_overflow
from ragcov_tui.llm.reply_schemas import ReplySchema
from ragcov_tui.shared.json_types import JsonObject

RUNGS = ("json_schema", "json_object", "prompt")
REFUSAL_STATUSES = (400, 415, 422, 501)
_FORMAT_WORDS = re.compile(
    r"response[_ .-]?format|json[_ -]?schema|json[_ -]?object|structured[_ -]?outputs?|guided[_ -]?(json|decoding)"
    r"|\bgrammar\b|\bschema\b|\bformat\b.{0,40}\b(not supported|unsupported|invalid|unknown)",
    re.IGNORECASE,
)


def is_format_refusal(status: int, message: str) -> bool:
    """True when an HTTP error refuses the requested response format (so the next rung may work);
    False for every other failure, a context overflow above all."""
    if status not in REFUSAL_STATUSES or context_overflow(status, message) is not None:
        return False
    return bool(_FORMAT_WORDS.search(message or ""))


@dataclass
class FormatLadder:
    """The rung one chat model is on (thread-safe: judges share the model across threads)."""

    label: str
    rung: int = 0
    bounded: bool = False  # send length bounds with the schema (ReplySchema.response_format)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def response_format(self, schema: ReplySchema | None) -> tuple[int, JsonObject | None]:
        """(rung used, ``response_format`` to send or None) for a JSON request."""
        with self._lock:
            rung = self.rung if schema is not None else max(self.rung, 1)
        if rung == 0 and schema is not None:
            return rung, schema.response_format(self.bounded)
        return rung, {"type": "json_object"} if rung == 1 else None

    def refused(self, rung: int, reason: str, warn: Callable[[str], None] | None) -> None:
        """Step below ``rung`` (once: a concurrent refusal of the same rung does nothing more)."""
        with self._lock:
            if self.rung > rung:
                return
            self.rung = rung + 1
        if warn is not None:
            fallback = "plain JSON mode" if rung + 1 == 1 else "prompt-only JSON (no response_format)"
            warn(
                f"{self.label}: the server refused {RUNGS[rung]} response_format ({reason[:120]}); "
                f"using {fallback} for the rest of the run"
            )
