"""The LLM reply cache (``llm_cache`` table): a rerun with the same prompts calls nobody.

The key is the sha256 of the canonical JSON (sorted keys, no spaces) of
``{provider, base_url, model, messages, params}``: the same prompt sent to another server or with
another temperature is another entry. The base URL goes in redacted (:mod:`ragcov_tui.shared.redact`), so
no password or key in ``OPENAI_BASE_URL`` reaches the stored ``request``. Judges call ``chat`` from
worker threads, and the connection is shared (``check_same_thread=False``), so every access holds one lock
(:func:`ragcov_tui.store.db.connection_lock`, taken by :mod:`ragcov_tui.store.caches`).
"""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING

from ragcov_tui.llm.base import ChatReply, Message
from ragcov_tui.shared.input_values import is_finite_number
from ragcov_tui.shared.json_types import JsonObject
from ragcov_tui.shared.redact import redact_url
from ragcov_tui.store.caches import delete_llm_reply, llm_reply, put_llm_reply

if TYPE_CHECKING:
    import sqlite_utils


def cache_key(provider: str, base_url: str, model: str, messages: list[Message], params: JsonObject) -> tuple[str, str]:
    """(sha256 key, canonical request JSON) for one chat request."""
    request = json.dumps(
        {
            "provider": provider,
            "base_url": redact_url(base_url),
            "model": model,
            "messages": messages,
            "params": params,
        },
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return hashlib.sha256(request.encode("utf-8")).hexdigest(), request


class LLMCache:
    """Thread-safe get / put of chat replies in one database (the SQL: :mod:`ragcov_tui.store.caches`)."""

    def __init__(self, db: sqlite_utils.Database) -> None:
        self.db = db

    def get(self, key: str, logprobs: bool = False) -> ChatReply | None:
        """The stored reply; for a request that asked for ``logprobs`` the stored text is the
        envelope :meth:`put` wrote (one that does not read as such is no answer: ``None``)."""
        row = llm_reply(self.db, key)
        if row is None:
            return None
        reply = ChatReply(text=row[0], prompt_tokens=row[1] or 0, completion_tokens=row[2] or 0, cached=True)
        if logprobs:
            return _opened(reply)
        return reply

    def put(self, key: str, provider: str, model: str, request: str, reply: ChatReply) -> None:
        """Store ``reply``; one with ``top_logprobs`` as the JSON envelope ``{"text", "top_logprobs"}``
        (its key says it asked for them, so nothing else ever reads it as plain text)."""
        text = reply.text
        if reply.top_logprobs:
            text = json.dumps({"text": reply.text, "top_logprobs": reply.top_logprobs}, ensure_ascii=False)
        put_llm_reply(
            self.db,
            key,
            provider=provider,
            model=model,
            request=request,
            reply=text,
            prompt_tokens=reply.prompt_tokens,
            completion_tokens=reply.completion_tokens,
        )

    def delete(self, key: str) -> None:
        """Drop one entry (a reply found unusable; absent keys are fine)."""
        delete_llm_reply(self.db, key)


def _opened(reply: ChatReply) -> ChatReply | None:
    """``reply`` with the text and alternatives of its stored envelope, ``None`` when it holds none."""
    try:
        data = json.loads(reply.text)
    except ValueError:
        return None
    if (
        not isinstance(data, dict)
        or not isinstance(data.get("text"), str)
        or not isinstance(data.get("top_logprobs"), list)
    ):
        return None
    reply.text = data["text"]
    reply.top_logprobs = [
        {str(t): float(v) for t, v in top.items() if is_finite_number(v)}
        for top in data["top_logprobs"]
        if isinstance(top, dict)
    ]
    return reply
