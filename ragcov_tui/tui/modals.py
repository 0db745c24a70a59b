"""Modal screens: help, confirm, text prompt, session compare. Esc / q close them."""

from __future__ import annotations

from collections.abc import Callable

from rich.console import Group, RenderableType
from rich.text import Text
from textual import on, work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static
from textual.worker import get_current_worker

from ragcov_tui.evaluation.compare_contract import Comparison
from ragcov_tui.shared.errors import RagcovError
from ragcov_tui.shared.number_text import signed
from ragcov_tui.store import open_db
from ragcov_tui.store.evals import load_eval_report
from ragcov_tui.store.queries import flat_summary
from ragcov_tui.store.rows import SessionRow
from ragcov_tui.tui.type_ahead import hold_keys
from ragcov_tui.tui.widgets.literal import lit

CLOSE: list[BindingType] = [Binding("escape", "close", "Back"), Binding("q", "close", "Back", show=False)]


class Closable(ModalScreen):
    BINDINGS = CLOSE

    def action_close(self) -> None:
        self.dismiss(None)


class TextScreen(Closable):
    """A scrollable page of text (help, compare, details). Every key press scrolls: ``j`` / ``k`` /
    arrows a line, ``space`` / ``b`` / pgdn / pgup a page, ``g`` / ``G`` / home / end the top / bottom."""

    BINDINGS = CLOSE + [
        Binding("j,down", "scroll(1)", show=False),
        Binding("k,up", "scroll(-1)", show=False),
        Binding("space,pagedown", "page(1)", show=False),
        Binding("b,pageup", "page(-1)", show=False),
        Binding("g,home", "jump(0)", show=False),
        Binding("G,end", "jump(1)", show=False),
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

    def _scroll_body_to(self, y: float) -> None:
        """Scroll from where the previous key left it (``scroll_target_y``), so no press is lost."""
        scroller = self.query_one(VerticalScroll)
        scroller.scroll_to(y=max(0, min(y, scroller.max_scroll_y)), animate=False, immediate=True)

    def action_scroll(self, lines: int) -> None:
        self._scroll_body_to(self.query_one(VerticalScroll).scroll_target_y + lines)

    def action_page(self, pages: int) -> None:
        scroller = self.query_one(VerticalScroll)
        self._scroll_body_to(scroller.scroll_target_y + pages * max(1, scroller.scrollable_content_region.height - 1))

    def action_jump(self, end: int) -> None:
        self._scroll_body_to(self.query_one(VerticalScroll).max_scroll_y if end else 0)


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

    @on(Button.Pressed, "#yes")
    def _yes_pressed(self) -> None:
        self.dismiss(True)

    @on(Button.Pressed, "#no")
    def _no_pressed(self) -> None:
        self.dismiss(False)

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


class TextPrompt(Closable):
    """One line of text (rename, edit a suggestion); enter submits, esc cancels (None)."""

    BINDINGS = [Binding("escape", "close", "Cancel")]

    def __init__(self, title: str, value: str) -> None:
        super().__init__()
        self.title_text, self.value = title, value

    def open(self, app: App, done: Callable[[str | None], None]) -> None:
        """Push the prompt; keys typed before its field has focus wait and go into it, in order."""
        app.push_screen(self, done)
        hold_keys(app, lambda: app.screen is self and isinstance(app.focused, Input))

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog wide"):
            yield Static(lit(self.title_text, "bold"))
            # the cursor at the end, nothing selected: a key typed at once edits the text, never replaces it
            yield Input(self.value, id="prompt-input", select_on_focus=False)
            yield Static(lit("enter: save · esc: cancel", "dim"))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value)


def compare_text(a: SessionRow, b: SessionRow) -> Text:
    """Two sessions' headline figures side by side, with the change from the older to the newer; the
    name column is as wide as the longest metric name (at least 28), so every row lines up."""
    old, new = sorted((a, b), key=lambda s: s["created_at"])
    fo, fn = flat_summary(old.get("summary")), flat_summary(new.get("summary"))
    keys = list(dict.fromkeys([*fo, *fn]))
    width = max([28, *(len(key) + 2 for key in keys)])
    out = Text()
    out.append(f"{'':{width}}{old['id']:>10}{new['id']:>10}{'change':>10}\n", style="bold")
    for label, key in (("kind", "kind"), ("created", "created_at"), ("embedder", "embedder"), ("system", "system")):
        x, y = (str(s.get(key) or "—") for s in (old, new))
        if key == "created_at":
            x, y = x[:16].replace("T", " "), y[:16].replace("T", " ")
        out.append(f"{label:<{width}}").append_text(lit(f"{x} (both)" if x == y else f"{x}  →  {y}")).append("\n")
    for key in keys:
        before, after = fo.get(key), fn.get(key)
        delta = signed(after - before) if before is not None and after is not None else "—"
        show = lambda v: "—" if v is None else (f"{v:,}" if isinstance(v, int) else f"{v:.3f}")  # noqa: E731
        name = lit(key)
        out.append_text(name).append(" " * (width - len(name))).append(
            f"{show(before):>10}{show(after):>10}{delta:>10}\n"
        )
    return out


def _signed(value: float | None, sign: str = "") -> str:
    """``0.812``; with ``sign="+"`` a difference (``+0.012``, never ``-0.000``); None as ``—``."""
    if value is None:
        return "—"
    return signed(value) if sign == "+" else f"{value:.3f}"


def paired_text(result: Comparison) -> Text:
    """The CLI compare's table (``ragcov compare A B``, one
    :func:`~ragcov_tui.evaluation.compare.compare_reports` result) as lines: per metric both means,
    the delta B − A, its paired bootstrap interval, wins / losses / ties and ``*`` when the interval
    excludes 0; above it the one-line note when the two runs scored different questions."""
    from ragcov_tui.evaluation.compare import question_set_note  # numpy and the LLM client: only when comparing

    out = Text("\n")
    out.append_text(
        lit(
            f"Paired B − A (A {result['a'].get('session_id')}, B {result['b'].get('session_id')}): "
            f"{round(100 * result['confidence'])}% bootstrap intervals, {result['resamples']:,} resamples, "
            "* the interval excludes 0",
            "bold",
        )
    ).append("\n")
    if note := question_set_note(result):
        out.append_text(lit(f"Note: {note}", "bold yellow")).append("\n")
    if not result["metrics"]:
        return out.append("No metric was scored in both sessions.\n")
    out.append(f"{'metric':<19}{'A':>6}{'B':>7}{'delta':>8}  {'interval':<17}{'W/L/T':>10}\n", style="underline")
    for m in result["metrics"]:
        interval = "—" if m["ci_low"] is None else f"[{_signed(m['ci_low'], '+')}, {_signed(m['ci_high'], '+')}]"
        wlt = f"{m['wins']}/{m['losses']}/{m['ties']}"
        name = lit(m["metric"], width=18)
        out.append_text(name).append(" " * (19 - len(name)))
        out.append(
            f"{_signed(m['mean_a']):>6}{_signed(m['mean_b']):>7}{_signed(m['delta'], '+'):>8}  {interval:<17}"
            f"{wlt:>10}{' *' if m['significant'] else ''}\n"
        )
    return out


class CompareScreen(TextScreen):
    """Two sessions side by side; for two evals also the paired intervals (A the older, B the
    newer), computed by the core off the UI thread on its own connection to ``db_path``."""

    def __init__(self, a: SessionRow, b: SessionRow, db_path: str) -> None:
        self.headline = compare_text(a, b)
        super().__init__(f"Compare {a['id']} and {b['id']}", self.headline)
        old, new = sorted((a, b), key=lambda s: s["created_at"])
        self.evals = (old["id"], new["id"]) if a["kind"] == b["kind"] == "eval" else None
        self.db_path = db_path

    def on_mount(self) -> None:
        if self.evals is not None:
            self._show_paired(Text("\nComputing the paired bootstrap intervals…", style="dim"))
            self._paired(self.db_path, *self.evals)

    @work(thread=True, exclusive=True, exit_on_error=False)
    def _paired(self, db_path: str, a: str, b: str) -> None:
        """Worker: its own database connection, the stored reports, the core compare."""
        from ragcov_tui.evaluation.compare import compare_reports

        db = open_db(db_path)
        try:
            shown: RenderableType = paired_text(compare_reports(load_eval_report(db, a), load_eval_report(db, b)))
        except RagcovError as exc:
            shown = lit(f"No paired comparison: {exc}")
        finally:
            db.conn.close()
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._show_paired, shown)

    def _show_paired(self, shown: RenderableType) -> None:
        if self.is_attached:
            self.set_body(Group(self.headline, shown))
