"""Making a prompt fit the model's context window: recognise an overflow, learn the size, trim passages.

:func:`context_overflow` recognises the servers' "prompt too long" errors (llama.cpp
``request (4142 tokens) exceeds the available context size (4096 tokens)`` and its
``exceed_context_size_error`` body, OpenAI / vLLM ``maximum context length is N tokens``, TGI
``must be <= N``, Ollama ``input length exceeds the context length``) and reads the context size
and prompt length from them when they are given. :func:`server_context_size` asks the server
itself: llama.cpp's ``/props`` (``default_generation_settings.n_ctx``), else ``/v1/models``
(``meta.n_ctx`` / ``meta.n_ctx_train``, vLLM's ``max_model_len``).

:func:`fit_messages` trims what is sent so that ``prompt + max_tokens`` fits ``n_ctx``. The budget for the prompt is
``n_ctx - max_tokens - SAFETY_TOKENS - PER_MESSAGE_TOKENS × messages``, and a message's length is its
cl100k token count (:mod:`ragcov_tui.corpus.tokens`) × ``ratio`` (the server's tokenizer may cut
finer: ``ratio`` starts at :data:`DEFAULT_RATIO` and grows to what an overflow reply showed).
System messages (instructions, the schema) are never touched. Passages — paragraphs that start
with ``[id]`` or ``Passage N:``, optionally under a ``Passages:`` line — are trimmed first,
longest first, to a common length (water-filling); only when that is not enough are the other
paragraphs of the user turns trimmed the same way. A trimmed paragraph keeps its head and ends in
:data:`TRIM_MARK`.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeGuard

from ragcov_tui.corpus.tokens import get_token_counter
from ragcov_tui.llm.base import Message

SAFETY_TOKENS = 32
PER_MESSAGE_TOKENS = 8  # the chat template's role markers around every message
DEFAULT_RATIO = 1.25  # server tokens per cl100k token assumed before an overflow reply says better
DEFAULT_REPLY_TOKENS = 512  # room kept for the reply when the caller gave no max_tokens
TRIM_MARK = " […]"
_PASSAGE = re.compile(r"^\s*(?:[A-Za-z ]{0,20}:\s*\n)?(?:\[[^\]\n]{1,200}\]|Passage \d+:)")

_OVERFLOW = re.compile(
    r"exceeds? the available context size|exceed_context_size|context[_ ]length[_ ]exceeded"
    r"|maximum context length|context length (?:is|of) only|maximum (?:input|model) length"
    r"|longer than the maximum model length|exceeds? (?:the )?(?:model'?s? )?context (?:length|window|size)"
    r"|exceed context window|context window of this model|prompt is too long|too many tokens"
    r"|input is too large|must be <= \d+",
    re.IGNORECASE,
)
_CTX_NUMBER = re.compile(
    r"context size \((\d+)(?: tokens)?\)|maximum context length is (\d+)|context length (?:is|of) only (\d+)"
    r"|context window of (\d+)|maximum model length of (\d+)|must be <= (\d+)|tokens > (\d+) maximum"
    r"|n_ctx[\"']?\s*[:=]\s*(\d+)",
    re.IGNORECASE,
)
_PROMPT_NUMBER = re.compile(
    r"request \((\d+) tokens\)|you passed (\d+) input tokens|your messages resulted in (\d+) tokens"
    r"|\((\d+) in the messages|request has (\d+) input tokens|prompt \(length (\d+)\)"
    r"|requested tokens \((\d+)\)|given: (\d+) `inputs` tokens|too long: (\d+) tokens|keep the first (\d+) tokens"
    r"|n_prompt_tokens[\"']?\s*[:=]\s*(\d+)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Overflow:
    """A context overflow; ``n_ctx`` / ``n_prompt`` when the server said them."""

    n_ctx: int | None = None
    n_prompt: int | None = None


def _first_number(pattern: re.Pattern[str], text: str) -> int | None:
    match = pattern.search(text)
    if match is None:
        return None
    return int(next(g for g in match.groups() if g is not None))


def context_overflow(status: int, message: str, body: Any = None) -> Overflow | None:
    """The overflow an HTTP error reports (any 4xx, or a 5xx "too large"), else ``None``.
    ``body`` is the parsed error body when there is one (llama.cpp puts ``n_ctx`` /
    ``n_prompt_tokens`` in it)."""
    if status < 400:
        return None
    text = f"{message or ''} {json.dumps(body) if isinstance(body, (dict, list)) else ''}"
    if not _OVERFLOW.search(text):
        return None
    return Overflow(n_ctx=_first_number(_CTX_NUMBER, text), n_prompt=_first_number(_PROMPT_NUMBER, text))


def server_context_size(get_json: Callable[[str], Any]) -> int | None:
    """The context size a server reports, or ``None``. ``get_json(path)`` GETs ``path`` under the
    server's root (``/props``, ``/v1/models``) and returns the parsed JSON, or None on any failure."""
    props = get_json("/props")
    if isinstance(props, dict):
        settings = props.get("default_generation_settings")
        n_ctx = settings.get("n_ctx") if isinstance(settings, dict) else None
        if _positive(n_ctx):
            return int(n_ctx)
    models = get_json("/v1/models")
    data = models.get("data") if isinstance(models, dict) else None
    for entry in data if isinstance(data, list) else []:
        if not isinstance(entry, dict):
            continue
        meta = entry.get("meta")
        meta = meta if isinstance(meta, dict) else {}
        for value in (meta.get("n_ctx"), entry.get("max_model_len"), meta.get("n_ctx_train")):
            if _positive(value):
                return int(value)
    return None


def _positive(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool) and 0 < value < 10**8


def prompt_tokens(messages: list[Message], ratio: float = DEFAULT_RATIO) -> int:
    """Estimated server tokens of ``messages``: cl100k count × ``ratio`` + template overhead."""
    counter = get_token_counter("cl100k_base")
    return sum(int(counter.count(m.get("content") or "") * ratio) + PER_MESSAGE_TOKENS for m in messages)


def fit_messages(
    messages: list[Message], *, n_ctx: int, max_tokens: int | None, ratio: float = DEFAULT_RATIO
) -> list[Message] | None:
    """``messages`` trimmed to fit ``n_ctx`` (the same list when it already fits); ``None`` when
    even the instructions alone leave no room."""
    budget = n_ctx - (max_tokens or DEFAULT_REPLY_TOKENS) - SAFETY_TOKENS
    if prompt_tokens(messages, ratio) <= budget:
        return messages
    counter = get_token_counter("cl100k_base")
    fixed = 0
    parts: list[list[list[int]]] = []  # per message: token ids per paragraph (system: none)
    for m in messages:
        content = m.get("content") or ""
        if m.get("role") == "system":
            fixed += int(counter.count(content) * ratio) + PER_MESSAGE_TOKENS
            parts.append([])
        else:
            fixed += PER_MESSAGE_TOKENS
            parts.append([counter.encode(p) for p in content.split("\n\n")])
    room = int((budget - fixed) / ratio) - 2 * sum(len(p) for p in parts)  # paragraph joins
    if room <= 0:
        return None
    paragraphs = [(i, j) for i, p in enumerate(parts) for j in range(len(p))]
    texts = {(i, j): (messages[i].get("content") or "").split("\n\n")[j] for i, j in paragraphs}
    passages = [k for k in paragraphs if _PASSAGE.match(texts[k])]
    others = [k for k in paragraphs if k not in set(passages)]
    caps = _water_fill({k: len(parts[k[0]][k[1]]) for k in passages}, room - sum(len(parts[i][j]) for i, j in others))
    if caps is None:  # passages cut to nothing are not enough: trim the other paragraphs too
        caps = _water_fill({k: len(parts[k[0]][k[1]]) for k in paragraphs}, room)
        if caps is None:
            return None
    out = []
    for i, m in enumerate(messages):
        if not parts[i]:
            out.append(m)
            continue
        pieces = []
        for j, ids in enumerate(parts[i]):
            cap = caps.get((i, j), len(ids))
            pieces.append(texts[(i, j)] if cap >= len(ids) else counter.decode(ids[:cap]).rstrip() + TRIM_MARK)
        out.append({**m, "content": "\n\n".join(pieces)})
    return out


def _water_fill(lengths: dict[Any, int], room: int) -> dict[Any, int] | None:
    """Caps per key so that ``sum(min(length, cap)) <= room`` with one common cap as high as
    possible (the longest are cut first); ``None`` when even cap 0 does not fit."""
    if room < 0:
        return None
    if sum(lengths.values()) <= room:
        return dict(lengths)
    lo, hi = 0, max(lengths.values(), default=0)
    while lo < hi:  # the largest common cap that fits
        mid = (lo + hi + 1) // 2
        if sum(min(n, mid) for n in lengths.values()) <= room:
            lo = mid
        else:
            hi = mid - 1
    return {k: min(n, lo) for k, n in lengths.items()}


class ContextWindow:
    """What one chat model knows of its server's context: ``n_ctx`` (given, or learned from the
    first overflow) and the token ratio. Thread-safe; :meth:`fit` trims before a request,
    :meth:`after_overflow` learns from a refusal and trims harder. With ``probe_first`` the size is
    asked of the server (``probe``) before the first fit, for servers that truncate an overlong
    prompt instead of refusing it (Ollama)."""

    def __init__(
        self,
        n_ctx: int | None = None,
        probe: Callable[[], int | None] | None = None,
        notice: Callable[[int], None] | None = None,
        *,
        probe_first: bool = False,
    ) -> None:
        self.n_ctx = n_ctx
        self.ratio = DEFAULT_RATIO
        self._probe = probe  # asks the server for its size (server_context_size) when an overflow did not say
        self._unprobed = probe_first and probe is not None and n_ctx is None
        self._notice = notice  # hears n_ctx once, the first time a prompt is trimmed
        self._noticed = False
        self._lock = threading.Lock()

    def fit(self, messages: list[Message], max_tokens: int | None) -> list[Message] | None:
        """``messages`` as they fit the known context (unchanged while it is unknown); ``None`` when
        they cannot fit."""
        with self._lock:
            if self._unprobed and self._probe is not None:  # once, under the lock: the other threads wait for it
                self._unprobed = False
                self.n_ctx = self._probe()
            n_ctx, ratio = self.n_ctx, self.ratio
        if n_ctx is None:
            return messages
        fitted = fit_messages(messages, n_ctx=n_ctx, max_tokens=max_tokens, ratio=ratio)
        if fitted is not None and fitted is not messages and self._notice is not None and not self._noticed:
            self._noticed = True
            self._notice(n_ctx)
        return fitted

    def after_overflow(
        self, overflow: Overflow, sent: list[Message], messages: list[Message], max_tokens: int | None
    ) -> list[Message] | None:
        """The original ``messages`` trimmed to what the server will take, after ``sent`` overflowed;
        ``None`` when the context size cannot be learned or nothing smaller fits."""
        n_ctx = overflow.n_ctx or self.n_ctx or (self._probe() if self._probe is not None else None)
        if n_ctx is None:
            return None
        counted = prompt_tokens(sent, 1.0)
        with self._lock:
            self.n_ctx = n_ctx
            if overflow.n_prompt and counted > 0:
                self.ratio = max(self.ratio, overflow.n_prompt / counted * 1.05)
            else:
                self.ratio *= 1.25
        fitted = self.fit(messages, max_tokens)
        if fitted is not None and prompt_tokens(fitted, 1.0) >= counted:  # no smaller than what overflowed
            with self._lock:
                self.ratio *= 1.25
            fitted = self.fit(messages, max_tokens)
        return fitted
