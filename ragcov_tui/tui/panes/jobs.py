"""Jobs: start an analysis or an evaluation from the app, in a thread worker with progress, ETA and cancel.

The form is prefilled from the newest session of the chosen kind (or the session being rerun).
The worker opens its own database connection; progress reaches the UI through
``call_from_thread``; cancel (``ctrl+x`` from anywhere, an app binding) is checked on every
progress callback, which the core calls at least every 0.25 s while it waits on a batch
(``Cancelled`` is raised there, the job marks its session cancelled and the Sessions pane lists it
at once). A job that finishes while the Jobs pane is shown opens its session; one that finishes while
the user works in another pane is listed and notified, and the pane stays as it is. A failure shows
as a notification with the reason. Switching the kind keeps the fields already typed.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import sqlite_utils
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.notifications import SeverityLevel
from textual.reactive import var
from textual.widgets import Button, Input, Label, ProgressBar, Select, Static
from textual.worker import Worker, get_current_worker

from ragcov_tui.coverage.report_md import fallback_line
from ragcov_tui.evaluation.report import all_failed, failure_note
from ragcov_tui.services.job_request import JobRequest, form_options
from ragcov_tui.services.options import FORM_KINDS, filled, form_fields
from ragcov_tui.shared.errors import Cancelled, RagcovError
from ragcov_tui.shared.progress import Progress
from ragcov_tui.store import open_db
from ragcov_tui.store.db import db_error
from ragcov_tui.store.liveness import tracking
from ragcov_tui.store.rows import SessionRow
from ragcov_tui.store.sessions import list_sessions
from ragcov_tui.tui.context import JobRunner, PaneContext
from ragcov_tui.tui.messages import JobFinished
from ragcov_tui.tui.panes.base import Pane
from ragcov_tui.tui.widgets.literal import lit

if TYPE_CHECKING:
    from ragcov_tui.services.analysis_job import AnalyzeOptions
    from ragcov_tui.services.eval_job import EvalOptions

FIELDS = {  # field -> (label, kinds it applies to, placeholder: what an empty field means), from the declarations
    key: (
        option.form.label,
        tuple(kind for kind, command in FORM_KINDS.items() if command in option.commands),
        filled(option.form.placeholder, option),
    )
    for key, option in form_fields().items()
    if option.form is not None
}


RESUMABLE = ("cancelled", "interrupted", "failed")  # an eval stopped in one of these continues on R


def job_options(request: JobRequest) -> AnalyzeOptions | EvalOptions:
    """The form's request as the core's options (:func:`~ragcov_tui.services.job_request.form_options`),
    a bad value named by its field's label on this form."""
    return form_options(request, lambda key: FIELDS[key][0])


def run_job(request: JobRequest, db: sqlite_utils.Database, progress: Progress) -> tuple[str, Mapping[str, Any]]:
    """The default runner: :func:`job_options` → ``run_analysis`` / ``run_eval``."""
    from ragcov_tui.services.analysis_job import AnalyzeOptions, run_analysis  # the pipelines: imported in the worker
    from ragcov_tui.services.eval_job import run_eval

    opts = job_options(request)
    if isinstance(opts, AnalyzeOptions):
        return run_analysis(opts, db, progress=progress)
    return run_eval(opts, db, progress=progress)


def prefill(session: SessionRow | None) -> dict[str, str]:
    """Form values from a stored session (empty strings where it has none)."""
    if not session:
        return {}
    params = session.get("params") or {}
    llm = session.get("llm") or ""
    return {
        "corpus": ", ".join(session.get("corpus") or []),
        "questions": session.get("questions_path") or "",
        # an eval's params hold the embedder as given ('hash'), which a resume compares with
        "embedder": params.get("embedder") or session.get("embedder") or "",
        "llm": "" if llm == "heuristic" else llm,
        "clusters": str(params.get("clusters") or ""),
        "system": session.get("system") or "",
        "k": str(params.get("k") or ""),
        "name": "",
    }


def resumes(session: SessionRow) -> bool:
    """Whether ``R`` resumes ``session`` (an eval that stopped before its end: its finished questions
    are not redone) rather than starting a new session with its settings."""
    return session["kind"] == "eval" and session["status"] in RESUMABLE


def eta_text(stage: str, done: int, total: int, started: float, now: float) -> str:
    """``stage done/total · ETA 12s`` from the stage's rate so far (no ETA before the first item)."""
    if total <= 0:
        return f"{stage} {done:,}"
    eta = ""
    if 0 < done < total and now > started:
        eta = f" · ETA {(total - done) * (now - started) / done:.0f}s"
    return f"{stage} {done:,}/{total:,}{eta}"


class JobsPane(Pane):
    title = "Jobs"
    BINDINGS = [
        Binding("ctrl+r", "start", "Start job"),  # cancel (ctrl+x) is the app's: it must work from any pane
    ]
    running: var[bool] = var(False, bindings=True, toggle_class="-running")
    """From Start until the job's outcome is shown (the app's ``ctrl+x`` Cancel job shows meanwhile)."""

    def __init__(self, context: PaneContext, *, id: str | None = None) -> None:
        super().__init__(context, id=id)
        self.worker: Worker | None = None
        self.base: dict[str, Any] = {}  # stored params of the session the form was filled from
        self.prefilled: dict[str, str] = {}  # the field values of the last prefill

    def compose(self) -> ComposeResult:
        yield self.compose_empty()
        with VerticalScroll(id="jobs-form"):
            with Horizontal(classes="form-row"):
                yield Label("kind", classes="form-label")
                yield Select(
                    [("analysis", "analysis"), ("evaluation", "eval")],
                    value="analysis",
                    allow_blank=False,
                    compact=True,
                    id="job-kind",
                )
            for key, (label, _, hint) in FIELDS.items():
                with Horizontal(classes="form-row", id=f"row-{key}"):
                    yield Label(label, classes="form-label")
                    yield Input(id=f"job-{key}", placeholder=hint, compact=True)
            with Horizontal(classes="form-row"):
                yield Button("Start (ctrl+r)", id="job-start", variant="primary", compact=True)
                yield Button("Cancel (ctrl+x)", id="job-cancel", disabled=True, compact=True)
        yield ProgressBar(id="job-progress", show_eta=False)
        yield Static(lit("No job running."), id="job-status")

    def render_session(self) -> None:
        """The form for the kind shown, prefilled anew (this pane shows no one session: ``sid`` is '');
        while a job runs, it stays as that job was started."""
        if not self.running:
            self.fill(str(self.query_one("#job-kind", Select).value), keep_typed=True)

    def fill(self, kind: str, session: SessionRow | None = None, *, keep_typed: bool = False) -> None:
        """Show the fields of ``kind`` prefilled from ``session`` (default: the newest of that kind);
        ``keep_typed``: a field the user changed since the last prefill keeps its text."""
        typed = self.typed() if keep_typed else {}
        if session is None:
            found = list_sessions(self.context.db, kind=kind)
            session = found[0] if found else None
        values = prefill(session)
        self.base = dict(session.get("params") or {}) if session else {}
        self.query_one("#job-kind", Select).value = kind
        for key, (_, kinds, _) in FIELDS.items():
            self.query_one(f"#row-{key}").display = kind in kinds
            self.query_one(f"#job-{key}", Input).value = typed.get(key, values.get(key, ""))
        self.prefilled = {key: values.get(key, "") for key in FIELDS}

    def typed(self) -> dict[str, str]:
        """The fields whose text differs from what the form was last prefilled with."""
        fields = {key: self.query_one(f"#job-{key}", Input).value for key in FIELDS}
        return {key: value for key, value in fields.items() if value != self.prefilled.get(key, "")}

    @on(Select.Changed, "#job-kind")
    def _kind_changed(self, event: Select.Changed) -> None:
        if not self.running:
            self.fill(str(event.value), keep_typed=True)  # switching the kind keeps what was typed

    @on(Button.Pressed, "#job-start")
    def _start_pressed(self) -> None:
        self.action_start()

    @on(Button.Pressed, "#job-cancel")
    def _cancel_pressed(self) -> None:
        self.action_cancel()

    def request(self) -> JobRequest:
        kind = str(self.query_one("#job-kind", Select).value)
        fields = {k: self.query_one(f"#job-{k}", Input).value for k, (_, kinds, _) in FIELDS.items() if kind in kinds}
        return JobRequest(kind, fields, base=self.base)

    def action_start(self, resume: str | None = None) -> None:
        if self.running:
            self.app.notify("A job is already running; cancel it first (ctrl+x).", severity="warning")
            return
        request = self.request()
        request.resume = resume
        self.query_one("#job-start", Button).disabled = True
        self.query_one("#job-cancel", Button).disabled = False
        self.query_one("#job-status", Static).update(lit(f"Starting {request.kind}…"))
        self.query_one(ProgressBar).update(total=None, progress=0)
        self.running = True  # ctrl+x Cancel job joins the footer
        self.worker = self._run(request, self.context.db_path, self.context.job_runner)

    def action_cancel(self) -> None:
        if self.worker is not None and self.running:
            self.worker.cancel()
            self.query_one("#job-status", Static).update(lit("Cancelling…"))

    @work(thread=True, group="jobs", exit_on_error=False)
    def _run(self, request: JobRequest, db_path: str, runner: JobRunner) -> None:
        worker = get_current_worker()
        try:  # a locked, read-only or damaged database is said before any work, as in the CLI
            db = open_db(db_path, where="database", writable=True)
        except RagcovError as exc:
            self.app.call_from_thread(self._finished, "failed", None, str(exc))
            return
        stage_start: dict[str, float] = {}
        last = [0.0]

        def progress(stage: str, done: int, total: int) -> None:
            if worker.is_cancelled:
                raise Cancelled("cancelled by the user")
            now = time.monotonic()
            stage_start.setdefault(stage, now)
            if now - last[0] > 0.05 or done == total:
                last[0] = now
                self.app.call_from_thread(
                    self._progress, eta_text(stage, done, total, stage_start[stage], now), done, total
                )

        with tracking(progress) as tracked:  # feeds the session's heartbeat; tracked.sessions: the job's session
            try:
                sid, report = runner(request, db, tracked)
                # eval reports list the questions that failed; an analysis, the gaps whose LLM themes failed
                note = failure_note(report) or fallback_line(report)
                outcome: tuple[str, str | None, str] = (
                    "done" if note is None else "failed" if all_failed(report) else "partial",
                    sid,
                    f"{request.kind} finished: session {sid}" + (f"; {note}" if note else ""),
                )
            except Cancelled:
                kept = tracked.sessions[-1] if tracked.sessions else None
                outcome = (
                    "cancelled",
                    kept,
                    f"{request.kind} cancelled" + (f": session {kept} is kept as cancelled" if kept else ""),
                )
            except RagcovError as exc:
                outcome = ("failed", None, str(exc))
            except sqlite3.Error as exc:  # the database failed mid-job (locked too long, read-only, damaged)
                outcome = ("failed", None, str(db_error(exc, Path(db_path), "database")))
            except Exception as exc:  # a bug or an environment failure: say what, keep the app alive
                outcome = ("failed", None, f"{type(exc).__name__}: {exc}")
            finally:
                db.conn.close()
        self.app.call_from_thread(self._finished, *outcome)

    def _progress(self, text: str, done: int, total: int) -> None:
        self.query_one(ProgressBar).update(total=total or None, progress=done)
        self.query_one("#job-status", Static).update(lit(text))

    def _finished(self, status: str, sid: str | None, message: str) -> None:
        self.running = False
        self.query_one("#job-start", Button).disabled = False
        self.query_one("#job-cancel", Button).disabled = True
        self.query_one("#job-status", Static).update(lit(message))
        if sid:
            self.forget_name()
        severity: SeverityLevel = (
            "information" if status == "done" else "warning" if status in ("cancelled", "partial") else "error"
        )
        title = "Job finished with errors" if status == "partial" else f"Job {status}"
        away = not self.on_active_tab  # the user went on working elsewhere: stay there
        if away and sid and status != "cancelled":
            message += "; open it in Sessions (1)"
        self.app.notify(message, title=title, severity=severity, markup=False, timeout=8)
        if status == "cancelled" or away:  # listed at once (a cancelled one labelled so); the form stays for a retry
            self.post_message(JobFinished(sid, open_it=False))
        elif sid:
            self.post_message(JobFinished(sid, open_it=True))

    def forget_name(self) -> None:
        """After a job made a session: the name field empties, so the next run does not get the same name."""
        self.query_one("#job-name", Input).value = ""

    def rerun(self, session: SessionRow) -> None:
        """Prefill from ``session`` and start at once (``R``); an eval that stopped before its end
        (cancelled, interrupted, failed) is resumed: its finished questions are not redone. While a
        job runs, nothing changes: the form still shows what that job was started with."""
        if self.running:
            self.app.notify("A job is already running; cancel it first (ctrl+x), then rerun.", severity="warning")
            return
        self.fill(session["kind"], session)
        self.action_start(resume=session["id"] if resumes(session) else None)
