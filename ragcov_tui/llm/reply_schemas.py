"""The JSON schema and token cap of a prompt's reply (:class:`ReplySchema`), and what schemas are built from.

Each JSON prompt (:class:`ragcov_tui.llm.prompt.JsonPrompt`) builds its own :class:`ReplySchema` in
``reply_schema`` from the parts here, and :func:`ragcov_tui.llm.json_reply.complete_json` sends it.
Schemas keep to what OpenAI's
strict mode accepts (every property required, ``additionalProperties: false``, nullable as
``["string", "null"]``), which vLLM, llama.cpp and Ollama accept too. Each prompt's ``read`` still
checks every reply: a server on the prompt-only rung follows no schema.

``max_tokens`` is sized to the reply: a fixed part for the braces and a short reason, plus a part
per list item the prompt asks for (:data:`TOKENS_PER_ITEM`, :data:`TOKENS_PER_REASON`), capped at
:data:`MAX_REPLY_TOKENS`. Without a cap a small model in JSON mode keeps nesting until the context
is full. ``max_items`` is the list length the prompt asks for; it reaches the server only as a
grammar bound for local models (:func:`bounded_schema`).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from ragcov_tui.shared.json_types import JsonObject


@dataclass(frozen=True)
class ReplySchema:
    """The JSON schema one prompt's reply must follow, and the reply's token cap.

    ``max_tokens`` bounds the reply: in JSON mode a small model otherwise nests
    ``{"claim 1": {"claim 2": {…`` until the context is full.
    """

    name: str
    schema: JsonObject
    max_tokens: int
    max_items: int = 20  # list length the prompt expects at most (sent only as a bound, see below)
    max_chars: int = 300  # length of one free string at most (a reason; list items are shorter)

    def response_format(self, bounded: bool = False) -> JsonObject:
        """The ``response_format``; ``bounded`` adds ``maxLength`` to free strings and ``maxItems``
        to lists (:func:`bounded_schema`), for servers that enforce a schema by grammar."""
        schema = bounded_schema(self.schema, self.max_items, self.max_chars) if bounded else self.schema
        return {"type": "json_schema", "json_schema": {"name": self.name, "schema": schema, "strict": True}}

    def fingerprint(self) -> str:
        """``name:sha256[:12]`` of the schema, for cache keys (another schema is another request)."""
        text = json.dumps(self.schema, sort_keys=True, separators=(",", ":"))
        return f"{self.name}:{hashlib.sha256(text.encode()).hexdigest()[:12]}"


def bounded_schema(schema: Any, max_items: int, max_chars: int) -> Any:
    """``schema`` with ``maxLength`` on every string without an ``enum`` and ``maxItems`` on every
    array. A small local model under a grammar otherwise repeats itself inside one string until
    ``max_tokens`` cuts the reply; with the bounds the longest reply the grammar allows fits the
    schema's ``max_tokens`` (:mod:`ragcov_tui.llm.reply_schemas`). OpenAI's strict mode refuses these keywords, so only the in-process
    llama.cpp server gets them (its grammar enforces them)."""
    if isinstance(schema, list):
        return [bounded_schema(s, max_items, max_chars) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: bounded_schema(v, max_items, max_chars) for k, v in schema.items()}
    kinds = schema.get("type")
    kinds = kinds if isinstance(kinds, list) else [kinds]
    if "string" in kinds and "enum" not in schema:
        out["maxLength"] = max_chars
    if "array" in kinds:
        out["maxItems"] = max(1, max_items)
    return out


BASE_TOKENS = 48  # braces, keys and one short field
TOKENS_PER_REASON = 120  # one "reason" / "rationale" sentence or two
TOKENS_PER_ITEM = 60  # one question, claim or paraphrase
ITEM_CHARS = 180  # the grammar bound of one list item (about 45 tokens: it fits TOKENS_PER_ITEM)
REASON_CHARS = 300  # the grammar bound of one reason (about 75 tokens: it fits TOKENS_PER_REASON)
MAX_REPLY_TOKENS = 4096


def cap(tokens: int) -> int:
    """``tokens``, at most :data:`MAX_REPLY_TOKENS`."""
    return min(MAX_REPLY_TOKENS, tokens)


def json_object(**properties: Any) -> JsonObject:
    """The strict-mode schema of an object with exactly these properties, every one required."""
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


STRING: JsonObject = {"type": "string"}
STRINGS: JsonObject = {"type": "array", "items": STRING}
