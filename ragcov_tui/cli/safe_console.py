"""The only ways untrusted text reaches the terminal: :class:`SafeConsole`, :func:`plain`, :func:`plain_line`.

Untrusted text (questions, document names, model output, file names, error messages) is passed
to rich through :func:`plain` / :func:`plain_line`: a ``Text`` (markup shown literally) whose
control characters are made visible before the layout measures it (:mod:`ragcov_tui.shared.safe_text`).
Every console is a :class:`SafeConsole`, which makes visible whatever a print forgot, and which
wraps lines only for a terminal: output to a file, a pipe or a CI log keeps each line whole (at most
``COLUMNS`` wide when that is set).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

from rich.console import Console, ConsoleOptions, RenderableType
from rich.segment import Segment
from rich.text import Text

from ragcov_tui.shared.safe_text import UNSAFE, single_line, visible

UNWRAPPED_WIDTH = 100_000  # the width of output that is no terminal: no line of a report is this long


class SafeConsole(Console):
    """A ``Console`` that never writes an unsafe character it was given as text.

    Strings are never parsed for markup or emoji codes, and every rendered segment (except rich's
    own control segments: cursor moves of the progress bar) is passed through
    :func:`~ragcov_tui.shared.safe_text.visible`, so a print that forgot :func:`plain` still shows
    ``␛`` instead of sending ESC.

    Its width is the terminal's; written anywhere else (a file, a pipe, a log), it is ``COLUMNS``
    when that is set, else :data:`UNWRAPPED_WIDTH`: rich's default of 80 columns would break log
    lines mid-phrase, and tests would pass or fail with the length of the paths they print.
    """

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("markup", False)
        kwargs.setdefault("emoji", False)
        kwargs.setdefault("highlight", False)
        super().__init__(**kwargs)
        if "width" not in kwargs and not self.is_terminal and not os.environ.get("COLUMNS", "").isdigit():
            self.width = UNWRAPPED_WIDTH

    def on_broken_pipe(self) -> None:
        """The reader closed the pipe (``ragcov sessions | head -1``): print nothing more and let
        :func:`ragcov_tui.cli.main.main` end quietly with exit 0 (rich's default exits 1)."""
        self.quiet = True
        raise BrokenPipeError

    def render(self, renderable: RenderableType, options: ConsoleOptions | None = None) -> Iterable[Segment]:
        for segment in super().render(renderable, options):
            if segment.control or not UNSAFE.search(segment.text):
                yield segment
            else:
                yield Segment(visible(segment.text), segment.style)


def plain(value: Any, style: str = "") -> Text:
    """Untrusted text, line breaks kept: literal, control characters visible."""
    return Text(visible("" if value is None else str(value)), style=style)


def plain_line(value: Any, style: str = "") -> Text:
    """Untrusted text for one line or a table cell (see :func:`~ragcov_tui.shared.safe_text.single_line`)."""
    return Text(single_line("" if value is None else str(value)), style=style)
