"""What a ``Static`` shows, as plain text, whether it holds a ``Text`` or a Rich renderable (a grid);
what the whole screen shows (:func:`screen_text`); the Input that has the focus (:func:`focused_input`)."""

from __future__ import annotations

import io

from rich.console import Console
from rich.text import Text
from textual.app import App
from textual.widgets import Input, Static


def static_text(widget: Static) -> str:
    content = widget.content
    if isinstance(content, (str, Text)):
        return str(content)
    console = Console(width=max(widget.size.width, 40), file=io.StringIO(), record=True, color_system=None)
    console.print(content)
    return console.export_text()


def screen_text(app: App) -> str:
    """Every character on the app's screen as Textual would write it (after its line filters),
    one line per row; rich's control segments (cursor moves) left out."""
    strips = app.screen._compositor.render_strips()
    return "\n".join("".join(segment.text for segment in strip if not segment.control) for strip in strips)


def focused_input(app: App) -> Input:
    """The Input that has the focus (a filter bar, a form field, a prompt)."""
    focused = app.focused
    assert isinstance(focused, Input), focused
    return focused
