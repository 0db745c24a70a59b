"""Models built from a spec the test knows names one (``make_llm`` returns None only for the offline specs)."""

from __future__ import annotations

from typing import Any

from ragcov_tui.llm.base import ChatModel
from ragcov_tui.llm.factory import make_llm


def chat_model(spec: str, **options: Any) -> ChatModel:
    """:func:`make_llm` for a spec that names a model: the model, never None."""
    model = make_llm(spec, **options)
    assert model is not None, f"{spec!r} names no model"
    return model
