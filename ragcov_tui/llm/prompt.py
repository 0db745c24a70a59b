"""One typed object per LLM prompt: what it says, what it takes, what its reply must be, what it gives.

A :class:`Prompt` ``[In, Out]`` (after Ragas' ``BasePrompt[Input, Output]``) holds a prompt's
``instruction``, renders its messages for an input of type ``In`` (:meth:`Prompt.messages`: the
system message, then the user message) and parses a reply into its output type ``Out``
(:meth:`Prompt.parse`), raising :class:`~ragcov_tui.llm.json_reply.ReplyError` — one line saying
why — for a reply it cannot use. Two kinds are sent:

- :class:`JsonPrompt` — a JSON reply: its schema and token cap (:meth:`JsonPrompt.reply_schema`),
  and :meth:`JsonPrompt.read`, which checks the parsed JSON and turns it into ``Out`` (its error
  text is quoted back to the model in the one repair turn of
  :func:`~ragcov_tui.llm.json_reply.complete_json`, which :meth:`JsonPrompt.ask` runs);
- :class:`TextPrompt` — free text with a token cap (:meth:`TextPrompt.ask`).

``examples`` are worked ``(input, reply, output)`` triples: they document the prompt, and the tests
run each through :meth:`Prompt.parse`. They are not sent to the model.

The rendered text is part of the key of every cached reply (:func:`ragcov_tui.llm.cache.cache_key`:
the messages, and the schema's fingerprint and token cap): a changed word asks every model again
once, and changes nothing else. :data:`REPEAT_NOTE` marks a re-judgement (``repeat`` > 0), so a
repeat is a real call, not a cache hit of the first.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from ragcov_tui.llm.base import ChatModel, ChatReply, JsonResult, Message
from ragcov_tui.llm.json_reply import complete_json, parse_json_reply
from ragcov_tui.llm.reply_schemas import ReplySchema

In = TypeVar("In")
Out = TypeVar("Out")
REPEAT_NOTE = "\n(Independent re-judgement #{repeat}: judge afresh.)"


@dataclass(frozen=True)
class Example(Generic[In, Out]):
    """A worked example: ``input``, a ``reply`` a model may send for it, and the ``output`` it parses to."""

    input: In
    reply: str
    output: Out


class Prompt(ABC, Generic[In, Out]):
    """A prompt taking ``In`` and giving ``Out``: ``name`` says which, ``instruction`` is its system
    message (a template, for a prompt that fills it in :meth:`system`)."""

    name: str
    instruction: str
    examples: tuple[Example[In, Out], ...] = ()

    def system(self, data: In) -> str:
        """The system message for ``data``: the instruction as it is."""
        return self.instruction

    @abstractmethod
    def user(self, data: In) -> str:
        """The user message for ``data``."""

    def messages(self, data: In, repeat: int = 0) -> list[Message]:
        """The system and user messages; ``repeat`` > 0 appends :data:`REPEAT_NOTE` to the system one."""
        system = self.system(data)
        if repeat > 0:
            system += REPEAT_NOTE.format(repeat=repeat)
        return [{"role": "system", "content": system}, {"role": "user", "content": self.user(data)}]

    @abstractmethod
    def parse(self, data: In, reply: ChatReply) -> Out:
        """The output of ``reply`` to the messages of ``data``; ReplyError when it cannot be used."""


class JsonPrompt(Prompt[In, Out]):
    """A prompt whose reply is one JSON value, checked and read by :meth:`read`."""

    @abstractmethod
    def reply_schema(self, data: In) -> ReplySchema:
        """The JSON schema and token cap of the reply to ``data``."""

    @abstractmethod
    def read(self, data: In, value: Any) -> Out:
        """``value`` (the reply's JSON) as the output; ReplyError naming what is wrong with it."""

    def parse(self, data: In, reply: ChatReply) -> Out:
        return self.read(data, parse_json_reply(reply.text))

    def ask(self, model: ChatModel, data: In, *, repeat: int = 0) -> JsonResult[Out]:
        """Ask ``model`` (one repair round, never an exception for a bad reply or a failing provider)."""
        return complete_json(
            model,
            self.messages(data, repeat),
            parse=lambda reply: self.parse(data, reply),
            schema=self.reply_schema(data),
        )


class TextPrompt(Prompt[In, Out]):
    """A prompt whose reply is free text, at most ``max_tokens`` long."""

    max_tokens: int

    def ask(self, model: ChatModel, data: In) -> Out:
        """The output of ``model``'s reply (cached and retried by the model; its ProviderError passes)."""
        return self.parse(data, model.chat(self.messages(data), max_tokens=self.max_tokens))
