"""The Textual app: one tab per pane over the stored sessions; `run_tui` is the `ragcov tui` entry point.

The app is thin: panes ask :mod:`ragcov_tui.store.queries` and :mod:`ragcov_tui.services.triage`
and render. It keeps which analysis and which eval session are open; opening a session marks
every pane stale and reloads only the one on screen. Attributes down, messages up: every pane gets
the app's :class:`~ragcov_tui.tui.context.PaneContext` (database, open sessions) and posts a
:mod:`ragcov_tui.tui.messages` message, handled here, for anything beyond itself.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

from rich.text import Text
from textual import events
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Static, TabbedContent, TabPane

from ragcov_tui.shared.errors import BadInput
from ragcov_tui.store import open_db
from ragcov_tui.store.labels import has_labels
from ragcov_tui.store.liveness import owner_text
from ragcov_tui.store.sessions import get_session, resolve_session
from ragcov_tui.store.traffic import has_traffic
from ragcov_tui.tui.context import KINDS, JobRunner, PaneContext
from ragcov_tui.tui.html_export import export_html
from ragcov_tui.tui.messages import DecisionMade, JobFinished, LabelsChanged, SessionDeleted, SessionOpened
from ragcov_tui.tui.modals import ConfirmScreen, TextScreen
from ragcov_tui.tui.panes.alignment import AlignmentPane
from ragcov_tui.tui.panes.base import Pane
from ragcov_tui.tui.panes.clusters import ClustersPane
from ragcov_tui.tui.panes.documents import DocumentsPane
from ragcov_tui.tui.panes.gaps import GapsPane
from ragcov_tui.tui.panes.jobs import JobsPane, resumes, run_job
from ragcov_tui.tui.panes.outliers import OutliersPane
from ragcov_tui.tui.panes.overview import OverviewPane
from ragcov_tui.tui.panes.results import DIAGNOSIS_LABELS, ResultsPane
from ragcov_tui.tui.panes.sessions import SessionsPane
from ragcov_tui.tui.panes.traffic import TrafficPane
from ragcov_tui.tui.safe_app import NARROW, NOTICE_MARK, NOTICE_STYLE, SHORT, SafeTextApp
from ragcov_tui.tui.session_watch import POLL_EVERY, SessionWatch
from ragcov_tui.tui.widgets.footer import AdaptiveFooter
from ragcov_tui.tui.widgets.literal import lit
from ragcov_tui.tui.widgets.paged_table import PagedTable

PANES: list[type[Pane]] = [
    SessionsPane,
    OverviewPane,
    ClustersPane,
    OutliersPane,
    GapsPane,
    DocumentsPane,
    ResultsPane,
    JobsPane,
    TrafficPane,
    AlignmentPane,
]
OPTIONAL_TABS = {
    "traffic",
    "alignment",
}  # shown only while the open session has what they show (see _sync_optional_tabs)
NUMBERED = 9  # the panes 1–9 reach; the tenth (Alignment) by [ ] or A in Results


def pane_id(cls: type[Pane]) -> str:
    return cls.title.lower()


class RagcovApp(SafeTextApp):
    """``RagcovApp(db_path, session_id)``; ``job_runner`` replaces the real jobs (tests inject a fast one);
    ``keep_backups``: backups of the test file a write-back keeps (the ``tui`` command's setting)."""

    CSS_PATH = "app.tcss"
    TITLE = "ragcov"
    BINDINGS = [
        Binding("right_square_bracket", "tab(1)", "Next tab", key_display="]"),
        Binding("left_square_bracket", "tab(-1)", "Prev tab", key_display="[", show=False),
        *(Binding(str(n), f"go({n})", f"Go to {cls.title}", show=False) for n, cls in enumerate(PANES[:NUMBERED], 1)),
        Binding("question_mark", "help", "Help", key_display="?"),
        Binding("R", "rerun", "Rerun"),
        # in the help (?) and the command palette, not the footer: the footer keeps what triage uses
        Binding("H", "export_html", "Write the session as an HTML page", show=False),
        # priority: heard before a focused Input (whose ctrl+x is cut); shown while a job runs
        Binding("ctrl+x", "cancel_job", "Cancel job", priority=True),
        # no job of this app running (and no text field taking the key): say where the session in view runs
        Binding("ctrl+x", "cancel_elsewhere", "Cancel job", show=False),
        Binding("escape", "back", "Back", show=False),
        Binding("q", "back", "Back", show=False),
        Binding("ctrl+q", "quit", "Quit", priority=True),
    ]

    def __init__(
        self,
        db_path: str | Path,
        session_id: str | None = None,
        *,
        job_runner: JobRunner = run_job,
        keep_backups: int | None = None,
    ) -> None:
        super().__init__()
        self.db_path = str(db_path)
        self.initial_ref = session_id
        self.db = open_db(self.db_path)
        self.context = PaneContext(self.db, self.db_path, job_runner, keep_backups)  # handed to every pane
        self.history: list[str] = []

    @property
    def job_runner(self) -> JobRunner:
        return self.context.job_runner

    @job_runner.setter
    def job_runner(self, runner: JobRunner) -> None:
        self.context.job_runner = runner

    @property
    def analysis_sid(self) -> str | None:
        return self.context.sessions.analysis

    @property
    def eval_sid(self) -> str | None:
        return self.context.sessions.eval

    @property
    def current_sid(self) -> str | None:
        return self.context.sessions.current

    def compose(self) -> ComposeResult:
        yield Static(id="status-line")
        with TabbedContent(id="tabs"):
            for cls in PANES:
                with TabPane(cls.title, id=f"tab-{pane_id(cls)}"):
                    yield cls(self.context, id=pane_id(cls))
        yield AdaptiveFooter()

    def on_mount(self) -> None:
        self._pick_initial_sessions()
        self._update_status()
        self.on_resize()
        self.show_pane("overview" if self.current_sid else "sessions")
        self.session_watch = SessionWatch(self.db)
        self.session_watch.changes()
        self.set_interval(POLL_EVERY, self.poll_sessions)

    def poll_sessions(self) -> None:
        """Every second: pick up sessions another process (or this app's job) wrote or whose owner died."""
        if not self._widgets_mounted():  # checked first, so a change waits for the next poll
            return
        changed = self.session_watch.changes()
        if changed:
            self.sessions_changed(changed)

    def _widgets_mounted(self) -> bool:
        """False while the app closes: its widgets are removed one by one, and the poll may fire in
        between."""
        return bool(self.query("#status-line") and self.query(SessionsPane) and self.query(OverviewPane))

    def sessions_changed(self, changed: set[str] | None = None) -> None:
        """Reload the Sessions pane, and the Overview when its session is among ``changed`` (None: all).
        A kind with no session open (none yet, or the open one was deleted elsewhere) opens its newest
        finished session."""
        sessions = self.context.sessions
        before = replace(sessions)
        sessions.open_newest(self.db, sessions.kinds_not_in(self.session_watch.seen or {}))
        if sessions != before:
            changed = None
        panes: list[Pane] = [self.query_one(SessionsPane)]
        if changed is None or self.current_sid in changed:
            panes += [self.query_one(OverviewPane)]
        for pane in panes:
            pane.stale = True
        self.active_pane().refresh_if_stale()
        self._update_status()

    def _pick_initial_sessions(self) -> None:
        """The session asked for (id, prefix, name, ``latest``…), plus the newest finished one of each kind."""
        self.context.sessions.open_newest(self.db)
        if self.initial_ref:
            try:
                self.context.sessions.select(resolve_session(self.db, self.initial_ref))
            except BadInput as exc:
                self.notify(str(exc), severity="error", markup=False)

    def open_session(self, sid: str) -> None:
        """Show ``sid`` in every pane of its kind and switch to Overview."""
        session = get_session(self.db, sid)
        if session is None:
            return
        self.context.sessions.select(session)
        self._update_status()
        self.mark_stale()
        self.show_pane("overview")

    def forget_session(self, sid: str) -> None:
        """After a delete: fall back to the newest remaining session of that kind."""
        self.context.sessions.open_newest(self.db, self.context.sessions.kinds_showing(sid))
        self._update_status()
        self.mark_stale()

    def mark_stale(self) -> None:
        """Every pane reloads the next time it is shown (the visible one at once)."""
        for pane in self.query(Pane):
            pane.stale = True
        self.active_pane().refresh_if_stale()

    def _update_status(self) -> None:
        parts = []
        for kind in KINDS:
            sid = self.context.sessions.of_kind(kind)
            s = get_session(self.db, sid) if sid else None
            if s:
                label = f"{kind} {sid}" + (f" '{s['name']}'" if s.get("name") else "")
                path = s["questions_path"]
                parts.append(label + (f" · {Path(path).name}" if kind == "analysis" and path else ""))
        line = "ragcov · ? keys · [ ] tabs · " + ("  |  ".join(parts) if parts else f"no sessions in {self.db_path}")
        self.query_one("#status-line", Static).update(self.notice or lit(line))
        self._sync_optional_tabs()

    def _sync_optional_tabs(self) -> None:
        """The Traffic tab shows while the open analysis has traffic, the Alignment tab while the open
        eval has labels, each also while it is the pane in use (Traffic's number key reaches it anyway,
        to say how to get traffic); hidden, ``[`` ``]`` skip them."""
        tabs = self.query_one(TabbedContent)
        wanted = {
            "traffic": self.analysis_sid is not None and has_traffic(self.db, self.analysis_sid),
            "alignment": self.eval_sid is not None and has_labels(self.db, self.eval_sid),
        }
        for name, shown in wanted.items():
            if shown or tabs.active == f"tab-{name}":
                self._reveal(name)
            elif not tabs.get_tab(f"tab-{name}").has_class("-hidden"):
                tabs.hide_tab(f"tab-{name}")

    def _reveal(self, name: str) -> None:
        tabs = self.query_one(TabbedContent)
        if tabs.get_tab(f"tab-{name}").has_class("-hidden"):
            tabs.show_tab(f"tab-{name}")

    # ------------------------------------------------------------ what the panes say (messages up)

    def on_session_opened(self, message: SessionOpened) -> None:
        self.open_session(message.sid)

    def on_session_deleted(self, message: SessionDeleted) -> None:
        self.forget_session(message.sid)

    def on_decision_made(self, message: DecisionMade) -> None:
        """The deciding pane has reloaded itself; every other one reloads when next shown."""
        for pane in self.query(Pane):
            if pane is not message.pane:
                pane.stale = True

    def on_labels_changed(self, message: LabelsChanged) -> None:
        """Alignment and Overview reload when next shown; the Alignment tab appears with the first label."""
        for pane in self.query(Pane):
            if pane is not message.pane:
                pane.stale = True
        self._sync_optional_tabs()

    def on_job_finished(self, message: JobFinished) -> None:
        if message.open_it and message.sid:
            self.open_session(message.sid)
        else:
            self.sessions_changed()

    # ------------------------------------------------------------ panes and keys

    def active_pane(self) -> Pane:
        active = self.query_one(TabbedContent).active
        return self.query_one(f"#{active.removeprefix('tab-')}", Pane)

    def show_pane(self, name: str, *, remember: bool = True) -> None:
        """Switch to pane ``name`` and focus its first list; ``remember``: ``esc`` comes back here."""
        tabs = self.query_one(TabbedContent)
        current = tabs.active.removeprefix("tab-")
        if current and current != name:
            if remember:
                self.history.append(current)
            # Let go of the old pane's focus first: Textual would otherwise move it to the next
            # focusable widget there and, focusing it, activate the old tab again (a pane with
            # nothing to focus, such as an empty Overview, could never be reached by keyboard).
            self.screen.set_focus(None)
        if name in OPTIONAL_TABS:
            self._reveal(name)
        tabs.active = f"tab-{name}"
        pane = self.query_one(f"#{name}", Pane)
        pane.refresh_if_stale()
        self._focus_pane(pane)  # at once, so the pane's keys work on the very next key press

    def _focus_pane(self, pane: Pane) -> None:
        """Focus the pane's first table or field, unless another tab became active meanwhile
        (focusing a widget activates its tab)."""
        if (
            pane is not self.active_pane()
            or pane.screen is not self.screen
            or (self.focused is not None and pane in self.focused.ancestors)
        ):
            return  # (a pop-up opened meanwhile: its keys stay its own)
        target = next((w for w in pane.query("DataTable, Input, Select") if w.display and w.focusable), None)
        if target is not None:
            self.screen.set_focus(target)

    def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        self._sync_optional_tabs()  # a hidden tab shown by its number key hides again once left
        pane = self.active_pane()
        pane.refresh_if_stale()
        self.call_after_refresh(self._focus_pane, pane)

    def action_tab(self, step: int) -> None:
        tabs = self.query_one(TabbedContent)
        names = [pane_id(c) for c in PANES if not tabs.get_tab(f"tab-{pane_id(c)}").has_class("-hidden")]
        current = tabs.active.removeprefix("tab-")
        self.show_pane(names[(names.index(current) + step) % len(names)])

    def action_show(self, name: str) -> None:
        """Show pane ``name`` (a pane's key for another pane, e.g. Results' ``A``: Alignment)."""
        self.show_pane(name)

    def action_go(self, number: int) -> None:
        """``1``–``9``: the panes in tab order (``9`` Traffic, shown even when its tab is hidden)."""
        self.show_pane(pane_id(PANES[number - 1]))

    async def action_back(self) -> None:
        """``esc`` / ``q``: back to the pane shown before (Textual's own ``back`` pops a screen;
        here the pop-ups close themselves)."""
        if self.history:
            self.show_pane(self.history.pop(), remember=False)

    def action_rerun(self) -> None:
        """``R``: rerun the session of the pane in use (Gaps: its analysis; Results: its eval;
        Sessions: the highlighted one), not merely the one opened last, once the user confirms."""
        sid = self.active_pane().rerun_sid()
        session = get_session(self.db, sid) if sid else None
        if session is None:
            self.notify("No session to rerun.", severity="warning")
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self.show_pane("jobs")
                self.query_one(JobsPane).rerun(session)

        name = f" '{session['name']}'" if session.get("name") else ""
        plan = (
            f"resumes this {session['status']} eval, keeping its finished questions"
            if resumes(session)
            else "starts a new session with the same settings"
        )
        self.push_screen(
            ConfirmScreen(f"Rerun {session['kind']} {session['id']}{name}? This {plan}, in Jobs."), answered
        )

    def action_export_html(self) -> None:
        """``H``: the session of the pane in use as one HTML page (:mod:`ragcov_tui.tui.html_export`)."""
        sid = self.active_pane().rerun_sid() or self.current_sid
        session = get_session(self.db, sid) if sid else None
        if session is None:
            self.notify("No session to export: open one in Sessions first.", severity="warning")
            return
        export_html(self, self.db_path, session)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """``ctrl+x`` cancels (and shows in the footer) only while a job runs; otherwise the key goes on
        to the focused widget (a text field cuts), then to :meth:`action_cancel_elsewhere`."""
        if action == "cancel_job":
            jobs = self.query(JobsPane)
            return bool(jobs) and jobs.first().running
        return True

    def action_cancel_job(self) -> None:
        self.query_one(JobsPane).action_cancel()

    def action_cancel_elsewhere(self) -> None:
        """``ctrl+x`` while this app runs no job: the session in view may run in another process
        (``ragcov eval`` in a terminal): say which, and that it is stopped there."""
        sid = self.active_pane().rerun_sid()
        session = get_session(self.db, sid) if sid else None
        if session is not None and session["live"]:
            self.notify(
                f"{session['kind']} {sid} is running in {owner_text(session)}: stop it there (ctrl+c in its "
                "terminal, or kill its pid).",
                severity="warning",
                markup=False,
            )
        else:
            self.notify("No job is running in this app.", severity="warning")

    def action_help(self) -> None:
        self.push_screen(TextScreen("Keys", help_text(self.notice_log, self.active_pane().title)))

    def on_resize(self, event: events.Resize | None = None) -> None:
        """Set the layout classes for the new size (the event's: this handler runs before Textual's
        own, so ``self.size`` is still the old one) on the app, so that they hold on every screen (a
        pop-up's toasts hide too) and a resize under a pop-up re-lays the panes below it; restyle
        the screens once, and only when one of the classes changed."""
        size = self.size if event is None else event.size
        before = set(self.classes)
        self.set_class(size.width < NARROW, "-narrow", update=False)
        self.set_class(size.height < SHORT, "-short", update=False)
        if set(self.classes) != before:
            for screen in self.screen_stack:
                screen.update_node_styles()

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        for cls in PANES:
            name = pane_id(cls)
            yield SystemCommand(f"Go to {cls.title}", f"Show the {cls.title} pane", lambda n=name: self.show_pane(n))
            for b in cls.BINDINGS:
                if isinstance(b, Binding) and b.description:
                    yield SystemCommand(
                        f"{cls.title}: {b.description}",
                        f"key {b.key}",
                        lambda n=name, a=b.action: self._pane_action(n, a),
                    )
        yield SystemCommand("Rerun the current session", "key R", self.action_rerun)
        yield SystemCommand("Write the current session as an HTML page", "key H", self.action_export_html)

    def _pane_action(self, name: str, action: str) -> None:
        self.show_pane(name)
        pane = self.query_one(f"#{name}", Pane)
        self.call_after_refresh(pane.run_action, action)


def help_text(notices: Iterable[tuple[str, str, str]] = (), pane: str | None = None) -> Text:
    """The recent notifications in full (``(severity, title, message)``, newest first), then every
    binding of the app, the panes and the tables, grouped (built from the BINDINGS themselves); the
    keys of the pane titled ``pane`` come first, so ``?`` opens on them (at 80x24 the Traffic keys
    were four pages down)."""
    out = Text()
    for i, (severity, title, message) in enumerate(notices):
        if not i:
            out.append("Recent messages, newest first\n", style="bold underline")
        out.append(f"  {NOTICE_MARK.get(severity, '·')} ", style=NOTICE_STYLE.get(severity, "bold"))
        out.append_text(lit(f"{title}: {message}" if title else message)).append("\n")
    if out.plain:
        out.append("\n")
    out.append(
        "Accept / drop write the test file at once (atomic, with a backup); u undoes the session's newest "
        "decision and restores the file byte for byte.\n\n",
        style="italic",
    )
    panes = [(cls.title, cls.BINDINGS) for cls in PANES if cls.BINDINGS is not Pane.BINDINGS]
    groups = [(f"{title} (this pane)", bindings) for title, bindings in panes if title == pane]
    groups += [
        ("Everywhere", RagcovApp.BINDINGS + [Binding("ctrl+p", "", "Command palette")]),
        (
            "Tables",
            PagedTable.BINDINGS
            + [
                Binding("up/down", "", "Move"),
                Binding("enter", "", "Open the row's detail"),
                Binding("pgup/pgdn", "", "Page"),
                *Pane.BINDINGS,
            ],
        ),
    ]
    groups += [
        (
            "Pop-ups (help, details)",
            [
                Binding("j/k", "", "A line down / up"),
                Binding("space/b", "", "A page down / up"),
                Binding("g/G", "", "Top / bottom"),
                Binding("esc/q", "", "Close"),
                Binding("c", "", "Result detail: show / fold the retrieved chunks' text"),
            ],
        )
    ]
    groups += [(title, bindings) for title, bindings in panes if title != pane]
    for title, bindings in groups:
        if not bindings:
            continue
        out.append(f"{title}\n", style="bold underline")
        listed = set()  # one key bound twice for one purpose (ctrl+x: cancel, or say there is no job) is one line
        for b in bindings:
            if isinstance(b, Binding) and (line := (b.key_display or b.key, b.description or b.action)) not in listed:
                listed.add(line)
                out.append(f"  {line[0]:<12}", style="bold").append(f"{line[1]}\n")
        out.append("\n")
    out.append("Sessions: the first column\n", style="bold underline")
    for mark, meaning in (
        ("*", "marked with space (c compares two marked sessions)"),
        (">", "open: the session the other panes show (one analysis, one eval)"),
    ):
        out.append(f"  {mark:<12}", style="bold").append(f"{meaning}\n")
    out.append("\n")
    out.append("Results: diagnosis column (/ finds either form)\n", style="bold underline")
    for name, short in DIAGNOSIS_LABELS.items():
        out.append(f"  {short:<12}", style="bold").append(f"{name}\n")
    return out


def run_tui(db_path: str | Path, session_id: str | None = None, keep_backups: int | None = None) -> int:
    """Open the app on the database at ``db_path`` (optionally on one session); returns the exit code."""
    RagcovApp(db_path, session_id, keep_backups=keep_backups).run()
    return 0
