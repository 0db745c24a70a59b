"""No control character reaches the terminal from any pane (issue #17): a session whose every stored
text starts with every C0/C1 control code, DEL, the bidi controls and OSC 0 / 8 / 52 sequences is
shown in every pane, detail view, prompt, notification and the status line; the screen Textual
would write holds none of them, and the panes show them as visible stand-ins (``␛``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.text import Text
from textual.app import App, ComposeResult
from textual.widgets import Static

from ragcov_tui.shared.errors import BadInput
from ragcov_tui.store import open_db
from ragcov_tui.tui.app import PANES, RagcovApp, pane_id
from ragcov_tui.tui.panes.jobs import JobRequest
from ragcov_tui.tui.widgets.screen_guard import ControlCharFilter
from tests.support.hostile import HOSTILE, leaked, poison_database
from tests.support.screen_text import screen_text
from tests.support.synthetic_sessions import make_analysis_session, make_eval_session

pytestmark = [pytest.mark.anyio, pytest.mark.slow]  # ~30 s: two sessions through every pane
SIZE = (160, 50)
SHOWN = "␛]0;PWNTITLE␇"  # how the start of the hostile text reads on screen
# a pane's own views beyond the main list: (key presses, whether they push a screen to close)
EXTRA_VIEWS: dict[str, list[tuple[tuple[str, ...], bool]]] = {
    "sessions": [(("space", "j", "space", "c"), True), (("r",), True)],
    "clusters": [(("enter",), True), (("m",), False)],
    "outliers": [(("enter",), True), (("p",), False), (("p", "a"), False)],
    "gaps": [(("e",), True), (("a",), False), (("m",), False)],
    "documents": [(("j",), False)],
    "results": [(("enter",), True), (("h",), False)],
}


def failing_job(request: JobRequest, db, progress) -> tuple[str, dict]:
    progress(f"reading {request.fields['questions']}", 1, 2)
    raise BadInput(f"{request.fields['questions']}: no such file")


@pytest.fixture()
def hostile_db(tmp_path: Path) -> Path:
    path = tmp_path / "ragcov.db"
    db = open_db(path)
    make_analysis_session(db, testset_dir=tmp_path, n_chunks=120, n_questions=30, name="analysis")
    make_eval_session(db, n_questions=12, name="eval")
    db.conn.close()
    poison_database(path)
    return path


async def test_no_control_character_reaches_any_pane(hostile_db: Path) -> None:
    app = RagcovApp(hostile_db, "a0000001", job_runner=failing_job)
    screens: dict[str, str] = {}
    async with app.run_test(size=SIZE) as pilot:
        app.title = f"ragcov {HOSTILE}"
        app.sub_title = HOSTILE
        for sid in ("a0000001", "e0000001"):
            app.open_session(sid)
            for cls in PANES:
                name = pane_id(cls)
                app.show_pane(name)
                await pilot.pause()
                screens[f"{sid} {name}"] = screen_text(app)
                for keys, modal in EXTRA_VIEWS.get(name, []):
                    if not app.query_one(f"#{name}").has_class("-empty"):
                        await pilot.press(*keys)
                        await pilot.pause()
                        screens[f"{sid} {name} {' '.join(keys)}"] = screen_text(app)
                        if modal and len(app.screen_stack) > 1:
                            await pilot.press("escape")
                            await pilot.pause()
        app.show_pane("jobs")
        await pilot.press(
            "R", "y"
        )  # rerun the eval: the form is filled with its hostile paths, the job fails quoting one
        for _ in range(20):
            await pilot.pause(0.05)
        screens["jobs rerun"] = screen_text(app)
        assert leaked(app.title + app.sub_title) == [] and SHOWN in app.title and SHOWN in app.sub_title

    assert {name: leaked(text) for name, text in screens.items() if leaked(text)} == {}
    for view in (
        "a0000001 outliers",
        "a0000001 documents",
        "a0000001 outliers enter",
        "e0000001 results enter",
        "a0000001 sessions",
        "a0000001 clusters enter",
        "e0000001 results",
        "jobs rerun",
    ):
        assert SHOWN in screens[view], f"{view}: the hostile text is not shown visibly"


async def test_the_line_filter_drops_what_a_widget_forgot() -> None:
    """A widget given raw text (no ``lit``): the app's filter still keeps ESC off the screen."""

    class Bare(App):
        def compose(self) -> ComposeResult:
            yield Static(Text(f"raw {HOSTILE} end"), id="raw")

    class Guarded(Bare):
        guard = ControlCharFilter()

        def get_line_filters(self):
            return [*super().get_line_filters(), self.guard]

    async with Bare().run_test(size=(80, 6)) as pilot:
        await pilot.pause()
        assert "\x1b" in screen_text(pilot.app)  # without the filter the escape reaches the terminal
    async with Guarded().run_test(size=(80, 6)) as pilot:
        await pilot.pause()
        text = screen_text(pilot.app)
        assert leaked(text) == [] and "raw ]0;PWNTITLE" in text
