"""Modal screens: help, confirm, text prompt, session compare. Esc / q close them."""

from __future__ import annotations

from typing import Any

from rich.console import RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static

from ragcov_tui.store.queries import flat_summary
from ragcov_tui.tui.widgets.literal import lit

CLOSE = [Binding("escape", "close", "Back"), Binding("q", "close", "Back", show=False)]


class Closable(ModalScreen):
    BINDINGS = CLOSE

    def action_close(self) -> None:
        self.dismiss(None)


class TextScreen(Closable):
    """A scrollable page of text (help, compare, details). Every key press scrolls: ``j`` / ``k`` /
    arrows a line, ``space`` / ``b`` / pgdn / pgup a page, ``g`` / ``G`` / home / end the top / bottom."""

    BINDINGS = CLOSE + [
        Binding("j,down", "scroll(1)", show=False), Binding("k,up", "scroll(-1)", show=False),
        Binding("space,pagedown", "page(1)", show=False), Binding("b,pageup", "page(-1)", show=False),
        Binding("g,home", "jump(0)", show=False), Binding("G,end", "jump(1)", show=False),
    ]

    def __init__(self, title: str, body: RenderableType, *, keys: str = "") -> None:
        super().__init__()
        self.title_text, self.body, self.keys = title, body, keys

    def compose(self) -> ComposeResult:
        small = self.app.size.width < 100 or self.app.size.height < 30  # the app's .-narrow / .-short
        with Vertical(classes="dialog wide full" if small else "dialog wide"):
            yield Static(lit(self.title_text, "bold"), classes="dialog-title")
            with VerticalScroll(can_focus=False):  # the screen's keys, not the scroller's, move it
                yield Static(self.body, id="text-body")
            keys = "esc / q back · j/k line · space/b page · g/G top/bottom" + (f" · {self.keys}" if self.keys else "")
            yield Static(lit(keys, "dim"))

    def set_body(self, body: RenderableType) -> None:
        self.body = body
        self.query_one("#text-body", Static).update(body)

    def _scroll_to(self, y: float) -> None:
        """Scroll from where the previous key left it (``scroll_target_y``), so no press is lost."""
        scroller = self.query_one(VerticalScroll)
        scroller.scroll_to(y=max(0, min(y, scroller.max_scroll_y)), animate=False, immediate=True)

    def action_scroll(self, lines: int) -> None:
        self._scroll_to(self.query_one(VerticalScroll).scroll_target_y + lines)

    def action_page(self, pages: int) -> None:
        scroller = self.query_one(VerticalScroll)
        self._scroll_to(scroller.scroll_target_y + pages * max(1, scroller.scrollable_content_region.height - 1))

    def action_jump(self, end: int) -> None:
        self._scroll_to(self.query_one(VerticalScroll).max_scroll_y if end else 0)


class ConfirmScreen(Closable):
    """Yes / no; dismisses with True only on yes."""

    BINDINGS = CLOSE + [Binding("y", "answer(True)", "Yes"), Binding("n", "answer(False)", "No")]

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(lit(self.question))
            with Horizontal(classes="buttons"):
                yield Button("Yes (y)", id="yes", variant="error")
                yield Button("No (n)", id="no")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


class TextPrompt(Closable):
    """One line of text (rename, edit a suggestion); enter submits, esc cancels (None)."""

    BINDINGS = [Binding("escape", "close", "Cancel")]

    def __init__(self, title: str, value: str) -> None:
        super().__init__()
        self.title_text, self.value = title, value

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog wide"):
            yield Static(lit(self.title_text, "bold"))
            yield Input(self.value, id="prompt-input")
            yield Static(lit("enter: save · esc: cancel", "dim"))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value)


def compare_text(a: dict[str, Any], b: dict[str, Any]) -> Text:
    """Two sessions' headline figures side by side, with the change from the older to the newer."""
    old, new = sorted((a, b), key=lambda s: s["created_at"])
    fo, fn = flat_summary(old.get("summary")), flat_summary(new.get("summary"))
    out = Text()
    out.append(f"{'':28}{old['id']:>10}{new['id']:>10}{'change':>10}\n", style="bold")
    for label, key in (("kind", "kind"), ("created", "created_at"), ("embedder", "embedder"), ("system", "system")):
        out.append(f"{label:<28}").append_text(lit(f"{old.get(key) or '—'}  →  {new.get(key) or '—'}")).append("\n")
    for key in list(dict.fromkeys([*fo, *fn])):
        x, y = fo.get(key), fn.get(key)
        delta = f"{y - x:+.3f}" if x is not None and y is not None else "—"
        show = lambda v: "—" if v is None else (f"{v:,}" if isinstance(v, int) else f"{v:.3f}")  # noqa: E731
        out.append(f"{key:<28}{show(x):>10}{show(y):>10}{delta:>10}\n")
    return out


class CompareScreen(TextScreen):
    def __init__(self, a: dict[str, Any], b: dict[str, Any]) -> None:
        super().__init__(f"Compare {a['id']} and {b['id']}", compare_text(a, b))
