"""What a ``Static`` shows, as plain text, whether it holds a ``Text`` or a Rich renderable (a grid)."""

from __future__ import annotations

import io

from rich.console import Console
from rich.text import Text
from textual.widgets import Static


def static_text(widget: Static) -> str:
    content = widget.content
    if isinstance(content, (str, Text)):
        return str(content)
    console = Console(width=max(widget.size.width, 40), file=io.StringIO(), record=True, color_system=None)
    console.print(content)
    return console.export_text()
