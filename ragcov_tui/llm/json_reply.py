"""Getting JSON out of chat models: lenient parsing, one repair round, never an exception.

:func:`parse_json_reply` accepts what models actually send: JSON inside ```json fences, JSON
preceded or followed by prose, trailing commas. It takes the first balanced JSON object or
array that parses strictly (``NaN``, ``Infinity`` and ``1e309`` are refused: never a score).
:func:`complete_json` asks in JSON mode — structured output when the caller gives the prompt's
:class:`~ragcov_tui.llm.reply_schemas.ReplySchema`, whose ``max_tokens`` caps the reply unless the
caller gives its own — reads the reply with the caller's ``parse`` (a prompt's
:meth:`~ragcov_tui.llm.prompt.Prompt.parse`: the typed output, or :class:`ReplyError` saying why
not), and on a :class:`ReplyError` sends one repair turn quoting it; if that fails too — or the
provider fails after its retries — it returns ``JsonResult(ok=False, error=...)`` for the caller to
record as an undefined score.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, TypeVar

from ragcov_tui.llm.base import ChatModel, ChatReply, JsonResult, Message
from ragcov_tui.llm.reply_schemas import ReplySchema
from ragcov_tui.shared.errors import ProviderError, Unreachable
from ragcov_tui.shared.input_values import InvalidJson, parse_json

_FENCE = re.compile(r"```[ \t]*(?:json|JSON)?[ \t]*\r?\n?(.*?)```", re.DOTALL)
_CLOSERS = {"{": "}", "[": "]"}
MAX_CANDIDATES = 20
T = TypeVar("T")
REPAIR_INSTRUCTION = (
    "Your previous reply could not be used: {error}. Reply again with only the corrected "
    "JSON value: no prose, no code fences."
)


class ReplyError(ValueError):
    """A model's reply that cannot be used, with one line saying why (quoted back in the repair turn,
    kept in the call log)."""


def _balanced(text: str, start: int) -> str | None:
    """The balanced bracket span starting at ``text[start]``, trailing commas dropped; None if unclosed."""
    out: list[str] = []
    stack: list[str] = []
    in_string = escaped = False
    i = start
    while i < len(text):
        ch = text[i]
        if in_string:
            out.append(ch)
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
            out.append(ch)
        elif ch in _CLOSERS:
            stack.append(_CLOSERS[ch])
            out.append(ch)
        elif ch in "}]":
            if not stack or stack.pop() != ch:
                return None
            out.append(ch)
            if not stack:
                return "".join(out)
        elif ch == ",":
            rest = text[i + 1 :].lstrip()
            if not rest.startswith(("}", "]")):  # a trailing comma is dropped
                out.append(ch)
        else:
            out.append(ch)
        i += 1
    return None


def _is_syntax_error(span: str) -> bool:
    """True when ``span`` is no JSON at all (not merely JSON that :func:`parse_json` refuses)."""
    try:
        json.loads(span)
    except json.JSONDecodeError:
        return True
    except (ValueError, RecursionError):  # a 4300+ digit integer, deep nesting: JSON, refused
        return False
    return False


def parse_json_reply(text: str) -> Any:
    """The first JSON object or array in a model reply; :class:`ReplyError` saying why when there is none.

    Candidates are read strictly (:func:`ragcov_tui.shared.input_values.parse_json`): one holding ``NaN``,
    ``Infinity``, an overflowing number such as ``1e309`` or nesting too deep is no answer, and its
    reason is the error when no other candidate parses.
    """
    if not text or not text.strip():
        raise ReplyError("the reply is empty")
    sources = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    refused: InvalidJson | None = None
    for source in sources:
        tried = 0
        for match in re.finditer(r"[{\[]", source):
            span = _balanced(source, match.start())
            if span is None:
                continue
            try:
                return parse_json(span)
            except InvalidJson as exc:
                if not _is_syntax_error(span):
                    refused = refused or exc
                tried += 1
                if tried >= MAX_CANDIDATES:
                    break
    if refused is not None:
        raise ReplyError(f"the reply's JSON is not usable: {refused.message}")
    snippet = " ".join(text.split())[:80]
    raise ReplyError(f"no JSON object or array found in the reply ({snippet!r})")


def json_value(reply: ChatReply) -> Any:
    """The reply's JSON as parsed (:func:`parse_json_reply`), unchecked: ``parse`` of a call that
    takes any JSON."""
    return parse_json_reply(reply.text)


def _check(reply: ChatReply, parse: Callable[[ChatReply], T]) -> tuple[T | None, str | None]:
    try:
        return parse(reply), None
    except ReplyError as exc:
        return None, str(exc)


def complete_json(
    model: ChatModel,
    messages: list[Message],
    *,
    parse: Callable[[ChatReply], T] = json_value,
    max_tokens: int | None = None,
    schema: ReplySchema | None = None,
) -> JsonResult[T]:
    """Ask for JSON, parse it robustly, repair once; ``ok=False`` with ``error`` instead of raising.

    When no usable reply came back, the replies that were unusable are dropped from the model's
    cache (:meth:`ChatModel.forget`), so asking again (``eval --resume``) really asks again.
    """
    raw, unreachable = "", False
    asked: list[list[Message]] = []
    json_mode: bool | ReplySchema = schema if schema is not None else True
    if max_tokens is None and schema is not None:
        max_tokens = schema.max_tokens
    try:
        asked.append(messages)
        reply = model.chat(messages, max_tokens=max_tokens, json_mode=json_mode)
        raw = reply.text
        data, problem = _check(reply, parse)
        if problem is None:
            return JsonResult(ok=True, data=data, prompt=messages, raw=raw)
        repair = [
            *messages,
            {"role": "assistant", "content": raw},
            {"role": "user", "content": REPAIR_INSTRUCTION.format(error=problem)},
        ]
        asked.append(repair)
        reply = model.chat(repair, max_tokens=max_tokens, json_mode=json_mode)
        raw = reply.text
        data, problem = _check(reply, parse)
        if problem is None:
            return JsonResult(ok=True, data=data, prompt=messages, raw=raw)
        error = f"unusable JSON reply after one repair: {problem}"
    except ProviderError as exc:
        error, unreachable = str(exc), isinstance(exc, Unreachable)
    for request in asked:
        model.forget(request, max_tokens=max_tokens, json_mode=json_mode)
    return JsonResult(ok=False, error=error, prompt=messages, raw=raw, unreachable=unreachable)
