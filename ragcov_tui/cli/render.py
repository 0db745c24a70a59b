"""Terminal rendering for the CLI: rich tables and the progress bar (stderr). No logic of its own.

Untrusted text goes to rich only through :mod:`ragcov_tui.cli.safe_console` (``plain`` /
``plain_line``, and every console is a ``SafeConsole``).
"""

from __future__ import annotations

import shlex
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from rich.cells import cell_len, set_cell_size
from rich.console import Console, JustifyMethod
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Table
from rich.text import Text

from ragcov_tui.cli.coverage_views import print_documents, print_gaps, print_most_severe
from ragcov_tui.cli.output import ragcov_command
from ragcov_tui.cli.progress_lines import ProgressLines
from ragcov_tui.cli.safe_console import SafeConsole, plain, plain_line
from ragcov_tui.coverage.report_md import fallback_line, fmt, pct, store_line
from ragcov_tui.evaluation.compare_contract import Comparison
from ragcov_tui.evaluation.judge_alignment import corrected_lines
from ragcov_tui.evaluation.references import synthetic_text
from ragcov_tui.evaluation.report import failure_note, judge_label
from ragcov_tui.evaluation.run_notes import run_notes
from ragcov_tui.evaluation.scope import scope_line
from ragcov_tui.evaluation.systems.base import DEFAULT_K
from ragcov_tui.llm.accounting import usage_lines
from ragcov_tui.shared.json_types import JsonObject
from ragcov_tui.shared.number_text import count, signed
from ragcov_tui.shared.progress import remaining_seconds
from ragcov_tui.shared.redact import redact_text
from ragcov_tui.shared.safe_text import single_line, visible_line
from ragcov_tui.store.analysis_contract import AnalysisReport, SampleEstimate
from ragcov_tui.store.eval_contract import EvalReport
from ragcov_tui.store.rows import SessionRow


class RateColumn(ProgressColumn):
    """Items per second (``12.3/s``) over rich's recent window (the last 30 s of updates); blank
    until two updates have been seen. The time left beside it comes from the work, not from this
    rate (:class:`WorkRemainingColumn`)."""

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text("" if not speed else f"{speed:,.1f}/s", style="progress.data.speed")


class WorkRemainingColumn(ProgressColumn):
    """The estimated time left (``0:02:10``): the stage's pace so far in work units applied to the
    work left (:func:`ragcov_tui.shared.progress.remaining_seconds`; items when the loop reports no work)."""

    def render(self, task: Task) -> Text:
        done, total = task.fields.get("work") or (task.completed, task.total or 0)
        left = remaining_seconds(task.elapsed or 0.0, done, total) if not task.finished else None
        if left is None:
            return Text("-:--:--", style="progress.remaining")
        s = int(left)
        return Text(f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}", style="progress.remaining")


class ProgressBar:
    """A ``Progress`` callback drawing one rich bar per stage on stderr (nothing when ``quiet``):
    done / total, items per second, elapsed time and the estimated time remaining. When stderr is
    no terminal (a CI log, a pipe) it prints plain lines instead (:mod:`ragcov_tui.cli.progress_lines`)."""

    def __init__(self, quiet: bool = False) -> None:
        self.quiet = quiet
        self.console = SafeConsole(stderr=True)
        self._progress: Progress | None = None
        self._lines: ProgressLines | None = None
        self._tasks: dict[str, TaskID] = {}
        self._work: dict[str, tuple[float, float]] = {}  # stage → (done, total) work units, when reported

    def __enter__(self) -> ProgressBar:
        if not self.quiet and not self.console.is_terminal:
            self._lines = ProgressLines(self._write_line).__enter__()
        elif not self.quiet:
            self._progress = Progress(
                TextColumn("{task.description:<22}", markup=False),
                BarColumn(),
                MofNCompleteColumn(),
                RateColumn(),
                TimeElapsedColumn(),
                WorkRemainingColumn(),
                console=self.console,
                transient=False,
            )
        return self

    def __exit__(self, *exc: object) -> None:
        if self._lines is not None:
            self._lines.__exit__()
        if self._progress is not None and self._tasks:
            self._progress.stop()

    def _write_line(self, line: str) -> None:
        self.console.file.write(line + "\n")
        self.console.file.flush()

    def note_failed(self, stage: str, failed: int) -> None:
        """Failed items so far (:func:`ragcov_tui.shared.progress.report_failed`): shown in the log lines."""
        if self._lines is not None:
            self._lines.note_failed(stage, failed)

    def note_work(self, stage: str, done: float, total: float) -> None:
        """Work done so far (:func:`ragcov_tui.shared.progress.report_work`): the remaining time comes from it."""
        self._work[stage] = (done, total)
        if self._lines is not None:
            self._lines.note_work(stage, done, total)

    def __call__(self, stage: str, done: int, total: int) -> None:
        if self._lines is not None:
            self._lines(stage, done, total)
        if self._progress is None:
            return
        if not self._tasks:
            self._progress.start()  # lazily: a run that fails before any work draws nothing
        size = 0 if done == total == 0 else total or None  # 0 of 0: nothing to do (all cached), a full bar, not 0/?
        task = self._tasks.get(stage)
        if task is None:
            task = self._tasks[stage] = self._progress.add_task(visible_line(stage), total=size)
        self._progress.update(task, completed=done, total=size, work=self._work.get(stage))


def sample_line(sample: SampleEstimate) -> str:
    """``estimated from 5,000 of 1,200,000 chunks: basic 0.512–0.531, covered 38.1–40.9% (95% intervals: …)``."""
    parts = [sample["text"]]
    if (basic := sample["basic"]) is not None:
        parts.append(f"basic {fmt(basic[0])}–{fmt(basic[1])}")
    if (share := sample["covered_share"]) is not None:
        parts.append(f"covered {pct(share[0])}–{pct(share[1])}")
    return f"{parts[0]}: {', '.join(parts[1:]) or 'no interval'} ({sample['interval']}; per cluster in the JSON)"


def warn_printer(quiet: bool) -> Callable[[str], None]:
    """A ``warn`` callback printing one ``warning:`` line on stderr."""
    console = SafeConsole(stderr=True, soft_wrap=True)

    def warn(message: str) -> None:
        console.print(Text("warning: ", style="yellow") + Text(visible_line(redact_text(message))))

    return warn


def test_embedder_line(embedder: Mapping[str, Any]) -> str | None:
    """A warning when the figures come from ``hash`` (:mod:`ragcov_tui.embeddings.hashing`), the
    bag-of-words test embedder: shared words, not meaning, decide what is near."""
    if embedder.get("provider") != "hash":
        return None
    return (
        "warning: embedder hash is a test embedder (shared words, not meaning): these figures are not "
        "semantic, for plumbing checks only; use the default embedder for a real measure"
    )


def print_analysis(console: Console, report: AnalysisReport, db_path: str) -> None:
    """The short summary of an analysis: coverage figures and covered share, the calibrated gaps, flagged and
    least-covered documents, gold coverage, outliers."""
    cov, q, corpus = report["coverage"], report["questions"], report["corpus"]
    emb = report.get("embedder", {})
    console.print(
        plain_line(
            f"Session {report['session_id']}: {count(corpus['documents'])} documents, {count(corpus['chunks'])} chunks, "
            f"{count(q['total'])} questions ({count(q['outliers'])} outliers) — embedder {emb.get('provider')}:{emb.get('model')}"
        )
    )
    if test_embedder_line(emb):
        console.print(plain_line(test_embedder_line(emb), style="yellow"))
    t = Table(title="Coverage", title_justify="left")
    for col in (
        "basic",
        "weighted",
        f"multi (thr {cov.get('threshold')})",
        f"multi (top {cov.get('top_n')})",
        "covered",
    ):
        t.add_column(col, justify="right")
    t.add_row(
        fmt(cov.get("basic")),
        fmt(cov.get("weighted")),
        fmt(cov.get("multi_threshold")),
        fmt(cov.get("multi_n")),
        pct(cov.get("covered_share")),
    )
    console.print(t)
    if (sample := report.get("sample")) is not None:
        console.print(plain_line(sample_line(sample)))
    if report.get("message"):
        console.print(plain(report["message"], style="yellow"))
    if store := report.get("vector_store"):
        console.print(
            plain_line(f"vector store: {store_line(store)}", style="" if store["space_check"]["checked"] else "yellow")
        )
    print_gaps(console, report)
    if fallback_line(report):
        console.print(plain_line(fallback_line(report), style="yellow"))
    flagged = sorted(
        (d for d in report.get("documents", []) if d.get("flagged")), key=lambda d: d.get("coverage") or 0.0
    )
    print_most_severe(
        console,
        [
            f"flagged document: {d['source']}: {d.get('reason') or 'coverage ' + fmt(d.get('coverage'))}"
            for d in flagged
        ],
        "flagged documents",
    )
    print_documents(console, report)
    outliers = sorted(
        (d for d in report.get("question_details", []) if d.get("outlier")), key=lambda d: -(d.get("lof_score") or 0.0)
    )
    print_most_severe(
        console,
        [f"outlier question: {d['id']} (LOF {fmt(d.get('lof_score'), 2)}) {d.get('text', '')}" for d in outliers],
        "outlier questions",
    )
    for line in usage_lines(report.get("usage") or {}):
        console.print(plain_line(line, style="dim"))
    console.print(
        plain_line(
            f"Open it: {ragcov_command()} tui --db {shlex.quote(db_path)} --session {report['session_id']}", style="dim"
        ),
        soft_wrap=True,
    )  # a command to paste: one line, whatever the width


def metrics_table(title: str, metrics: JsonObject) -> Table:
    """Aggregate metrics ``{name: {mean, std, n}|number|None}`` as a table."""
    t = Table(title=title, title_justify="left")
    columns: list[tuple[str, JustifyMethod]] = [
        ("metric", "left"),
        ("mean", "right"),
        ("spread", "right"),
        ("n", "right"),
    ]
    for col, j in columns:
        t.add_column(col, justify=j)
    for name, value in metrics.items():
        if isinstance(value, dict):
            t.add_row(plain_line(name), fmt(value.get("mean")), fmt(value.get("std")), count(value.get("n")))
        else:
            t.add_row(plain_line(name), fmt(value), "", "")
    return t


def print_eval(console: Console, report: EvalReport) -> None:
    """Summary of an evaluation: aggregates, diagnoses, cost."""
    agg = report.get("aggregate", {})
    judge = judge_label(report.get("judge"), (report.get("metrics") or {}).get("generation"))
    console.print(
        plain_line(
            f"Session {report.get('session_id')}: system {report.get('system')}, k={report.get('k')}, judge {judge}"
        )
    )
    if synthetic := report.get("synthetic_references"):
        console.print(
            plain_line(synthetic_text(synthetic, (report.get("counts") or {}).get("questions", 0)), style="bold yellow")
        )
    if unmeasured := report.get("retrieval_not_measured"):
        console.print(plain_line(f"Retrieval: not measured — {unmeasured}", style="bold yellow"))
    else:
        console.print(metrics_table("Retrieval", agg.get("retrieval", {})))
    if agg.get("generation"):
        console.print(metrics_table("Generation", agg["generation"]))
        for metric, line in corrected_lines(report):  # once the session has labels (ragcov align)
            console.print(plain_line(f"{metric}: {line}"), soft_wrap=True)
    else:
        console.print(plain_line("Generation: not scored (retrieval metrics only; --metrics all scores answers too)"))
    diag = (report.get("counts") or {}).get("diagnosis") or {}
    if diag:
        console.print(plain_line("Diagnosis: " + ", ".join(f"{k} {count(v)}" for k, v in sorted(diag.items()))))
    if scope := scope_line(report.get("scope")):
        console.print(plain_line(scope))
    failed = failure_note(report)
    if failed:
        console.print(
            plain_line(
                f"{failed}; their metrics are left out, the errors are in the JSON report and the app",
                style="bold yellow",
            )
        )
    for line in usage_lines(report.get("usage") or {}) + run_notes(report):
        console.print(plain_line(line, style="dim"))


def print_compare(console: Console, result: Comparison) -> None:
    """Per-metric deltas (B − A) with the bootstrap interval and wins / losses / ties."""
    from ragcov_tui.evaluation.compare import question_set_note  # numpy: only when a compare is printed

    a, b = result.get("a", {}), result.get("b", {})
    for side, d in (("A", a), ("B", b)):
        console.print(
            plain_line(
                f"{side}: session {d.get('session_id')} {d.get('name') or ''} — system {d.get('system')}, "
                f"judge {d.get('judge')}, k={d.get('k')}"
            )
        )
    console.print(
        plain_line(
            f"{count(result.get('shared_questions'))} shared questions; "
            f"{int(100 * result.get('confidence', 0.95))}% paired bootstrap intervals"
        )
    )
    if note := question_set_note(result):
        console.print(plain_line(f"Note: {note}"), style="yellow")
    t = Table(title="B − A", title_justify="left")
    columns: list[tuple[str, JustifyMethod]] = [
        ("metric", "left"),
        ("A", "right"),
        ("B", "right"),
        ("delta", "right"),
        ("interval", "right"),
        ("W/L/T", "right"),
        ("", "left"),
    ]
    for col, j in columns:
        t.add_column(col, justify=j)
    for m in result.get("metrics", []):
        low, high, delta = m.get("ci_low"), m.get("ci_high"), m.get("delta")
        interval = "n/a" if low is None or high is None else f"[{signed(low)}, {signed(high)}]"
        wlt = f"{count(m.get('wins', 0))}/{count(m.get('losses', 0))}/{count(m.get('ties', 0))}"
        t.add_row(
            plain_line(m["metric"]),
            fmt(m.get("mean_a")),
            fmt(m.get("mean_b")),
            "n/a" if delta is None else signed(delta),
            interval,
            wlt,
            "significant" if m.get("significant") else "",
        )
    console.print(t)
    pair = result.get("pairwise")
    if pair:
        console.print(
            plain_line(
                f"LLM pairwise judge: A wins {pair.get('a_wins')}, B wins {pair.get('b_wins')}, "
                f"ties {pair.get('ties')}, errors {pair.get('errors')}"
            )
        )


def session_headline(session: SessionRow) -> str:
    """The few figures that identify a session at a glance."""
    summary = session.get("summary") or {}
    if session["kind"] == "analysis":
        gaps, outliers = summary.get("gaps"), summary.get("outliers")
        return f"basic {fmt(summary.get('basic'))} · {count(gaps)} gap{'' if gaps == 1 else 's'} · {count(outliers)} outliers"
    means = summary.get("means") or {}
    k = summary.get("k", DEFAULT_K)
    picks = [
        (f"hit@{k}", means.get(f"retrieval.hit@{k}")),
        ("ndcg", means.get(f"retrieval.ndcg@{k}")),
        ("faith", means.get("generation.faithfulness")),
    ]
    return " · ".join(f"{name} {fmt(value, 2)}" for name, value in picks if value is not None)


SESSION_COLUMNS = ("id", "kind", "status", "created UTC", "embedder / system", "name", "test file")
FREE_TEXT_COLUMNS, MIN_FREE_TEXT = ("embedder / system", "name", "test file"), 12  # cut to fit a narrow terminal


def session_cells(session: SessionRow) -> dict[str, str]:
    """A session's identity as :data:`SESSION_COLUMNS` cells, each one visible line: an eval names
    its system (a records file by its file name), an analysis its embedder — what tells two
    unnamed runs on one test file apart."""
    what = session.get("system") if session["kind"] == "eval" else session.get("embedder")
    if what and what.startswith("records:"):
        what = "records:" + Path(what.removeprefix("records:")).name
    questions_path = session.get("questions_path")
    cells = {
        "id": session["id"],
        "kind": session["kind"],
        "status": session["status"],
        "created UTC": (session.get("created_at") or "")[5:16].replace("T", " "),
        "embedder / system": what or "",
        "name": session.get("name") or "",
        "test file": Path(questions_path).name if questions_path else "",
    }
    return {column: single_line(value) for column, value in cells.items()}


def print_sessions(console: Console, sessions: list[SessionRow]) -> None:
    """One line per session, its headline last; where that would not fit the console (a terminal
    narrower than the longest line) the headline goes on a line of its own under the session, and
    the widest of the free-text columns (embedder / system, name, test file) are cut with "…" until
    the session's line fits."""
    columns = [c for c in SESSION_COLUMNS if c != "name" or any(s.get("name") for s in sessions)]
    rows = [(session_cells(s), single_line(session_headline(s))) for s in sessions]
    widths = {c: max(cell_len(c), *(cell_len(cells[c]) for cells, _ in rows)) for c in columns}
    gaps = 2 * (len(columns) - 1)
    one_line = sum(widths.values()) + gaps + 2 + max(cell_len(h) for _, h in rows) <= console.width
    while not one_line and sum(widths.values()) + gaps > console.width:
        widest = max((c for c in columns if c in FREE_TEXT_COLUMNS), key=lambda c: widths[c])
        if widths[widest] <= MIN_FREE_TEXT:
            break
        widths[widest] -= 1

    def line(cells: dict[str, str]) -> str:
        """The cells padded to their columns' widths (the last one too: the headline follows it)."""
        return "  ".join(fit(cells[c], widths[c]) for c in columns)

    console.print(Text("Sessions", style="bold"))
    header = {c: c for c in columns}
    console.print(
        Text(f"{line(header)}  headline" if one_line else line(header).rstrip(), style="bold"),
        no_wrap=True,
        overflow="ellipsis",
    )
    for cells, headline in rows:
        if one_line:
            console.print(Text(f"{line(cells)}  {headline}"), no_wrap=True)
        else:
            console.print(Text(line(cells).rstrip()), no_wrap=True, overflow="ellipsis")
            console.print(Text(" " * (widths["id"] + 2) + headline), no_wrap=True, overflow="ellipsis")


def fit(text: str, width: int) -> str:
    """``text`` padded to ``width`` terminal cells, or cut to it with a final "…"."""
    return text + " " * (width - cell_len(text)) if cell_len(text) <= width else set_cell_size(text, width - 1) + "…"


def elapsed(start: float) -> str:
    return f"{time.perf_counter() - start:.1f}s"
