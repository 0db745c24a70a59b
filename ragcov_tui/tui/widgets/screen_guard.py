"""The app's last line of defence against terminal escapes: a filter over every rendered line.

Panes make untrusted text visible before layout (:func:`~ragcov_tui.tui.widgets.literal.lit`,
``␛`` for ESC). This :class:`ControlCharFilter` runs on every line Textual draws, after layout,
and drops whatever unsafe character (:data:`ragcov_tui.shared.safe_text.UNSAFE`) a widget still holds
(an ``Input`` holding a stored path, a library widget, a pane that forgot ``lit``). It keeps the
layout: every unsafe character is zero cells wide, except a lone surrogate (one cell), which
becomes ``�``.
"""

from __future__ import annotations

import re

from rich.segment import Segment
from textual.color import Color
from textual.filter import LineFilter

from ragcov_tui.shared.safe_text import UNSAFE

SURROGATE_STAND_IN = "\ufffd"


def _drop(match: re.Match[str]) -> str:
    return SURROGATE_STAND_IN if "\ud800" <= match.group() <= "\udfff" else ""


class ControlCharFilter(LineFilter):
    """Removes unsafe characters from the text of every segment (control segments kept)."""

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        if not UNSAFE.search("".join([s.text for s in segments])):
            return segments
        return [s if s.control else Segment(UNSAFE.sub(_drop, s.text), s.style) for s in segments]
