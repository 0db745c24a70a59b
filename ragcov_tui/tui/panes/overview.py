"""Overview: the headline coverage figures and counts, coverage per cluster and the distance histogram;
for an eval session the retrieval and generation aggregates with their spread.

A session that is not ``done`` says what it is doing or why it stopped (running with its progress,
cancelled, interrupted, failed) instead of empty figures: an analysis stores its results only when
it finishes, an eval shows the items it stored so far."""

from __future__ import annotations

from pathlib import PurePath

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import DataTable, Static

from ragcov_tui.evaluation.judge_alignment import corrected_lines, session_alignment
from ragcov_tui.evaluation.references import synthetic_text
from ragcov_tui.evaluation.report import judge_label
from ragcov_tui.shared.json_types import JsonObject
from ragcov_tui.store import queries
from ragcov_tui.store.labels import has_labels
from ragcov_tui.store.liveness import state_line
from ragcov_tui.store.rows import SessionRow
from ragcov_tui.store.sessions import get_session
from ragcov_tui.tui.panes.base import Pane
from ragcov_tui.tui.widgets.charts import Chart
from ragcov_tui.tui.widgets.literal import labelled, lit, num
from ragcov_tui.tui.widgets.paged_table import Table


class OverviewPane(Pane):
    title = "Overview"
    needs = "any"

    def compose(self) -> ComposeResult:
        yield self.compose_empty()
        with Horizontal(id="overview-body"):
            with Vertical(id="overview-left"):
                yield Static(id="overview-figures")
                yield Table(id="overview-aggregates")
            with Horizontal(id="overview-charts"):
                yield Chart(id="overview-bars")
                yield Chart(id="overview-hist")

    def render_session(self) -> None:
        session = get_session(self.context.db, self.sid)
        if session is None:  # deleted by another process since it was opened
            self.query_one("#overview-figures", Static).update(lit(f"Session {self.sid} no longer exists."))
            return
        analysis = session["kind"] == "analysis"
        self.set_class(not analysis, "-eval")
        self.remove_class("-unmeasured")  # every chart shown until an eval says which it measured
        for chart in self.query(Chart):
            chart.remove_class("-unmeasured")
        if analysis and session["status"] != "done":
            self._unfinished_analysis(session)
        elif analysis:
            self._analysis(session)
        else:
            self._eval(session)

    @staticmethod
    def _exercised_rows(ex: JsonObject | None) -> list[tuple[str, Text]]:
        """With ``--eval-session``: the exercised share and the blind spots (coverage/exercised.py)."""
        if not ex:
            return []
        share = "—" if ex.get("share") is None else f"{ex['share']:.0%}"
        return [
            (
                "exercised",
                lit(
                    f"{ex.get('exercised_chunks', 0):,} of {ex.get('chunks', 0):,} chunks ({share}) by "
                    f"eval {ex.get('eval_session')}, top {ex.get('k')}"
                ),
            ),
            (
                "blind spots",
                lit(
                    f"{len(ex.get('blind_clusters', []))} clusters   "
                    f"{len(ex.get('blind_documents', [])):,} documents"
                    + ("" if ex.get("probes") is None else f"   unretrievable {len(ex.get('defects', []))}")
                ),
            ),
        ]

    def _analysis(self, session: SessionRow) -> None:
        db, sid = self.context.db, session["id"]
        r = queries.analysis_report(db, sid)
        cov, qs, corpus = r.get("coverage", {}), r.get("questions", {}), r.get("corpus", {})
        figures = Text.assemble(
            (f"Analysis {sid}  ", "bold"), lit(PurePath(session.get("questions_path") or "").name, "dim"), "\n"
        )
        figures.append_text(
            labelled(
                [
                    ("basic", num(cov.get("basic"))),
                    ("weighted", num(cov.get("weighted"))),
                    (f"multi ≥{cov.get('threshold', '?')}", num(cov.get("multi_threshold"))),
                    (f"multi top-{cov.get('top_n', '?')}", num(cov.get("multi_n"))),
                    (
                        "covered",
                        lit(
                            "—"
                            if cov.get("covered_share") is None
                            else f"{cov['covered_share']:.0%} of chunks within reach of a question"
                        ),
                    ),
                    ("documents", lit(f"{corpus.get('documents', 0):,}   chunks {corpus.get('chunks', 0):,}")),
                    (
                        "questions",
                        lit(f"{qs.get('total', 0):,}   in {qs.get('inliers', 0):,}  out {qs.get('outliers', 0):,}"),
                    ),
                    (
                        "gaps",
                        lit(
                            f"{len(r.get('gaps', []))}   flagged docs {sum(1 for d in r.get('documents', []) if d.get('flagged'))}"
                        ),
                    ),
                    ("embedder", lit(session.get("embedder"))),
                    *self._exercised_rows(r.get("exercised")),
                ],
                label_width=12,
            )
        )
        self.query_one("#overview-figures", Static).update(figures)
        clusters = r.get("clusters", [])
        bars = self.query_one("#overview-bars", Chart)
        if clusters:
            bars.draw_bars(
                "Coverage per cluster",
                [str(c["id"]) for c in clusters],
                [c["coverage"] or 0 for c in clusters],
                ylim=(0, 1),
            )
        else:
            bars.draw_message("Coverage per cluster", "no clusters")
        edges, counts = queries.mindist_histogram(db, sid, bins=16)
        hist = self.query_one("#overview-hist", Chart)
        if counts:
            hist.draw_bars("Chunks by distance to nearest q", [f"{e:.2f}" for e in edges], counts)
        else:
            hist.draw_message("Distance to nearest question", "no inlier questions")

    def _unfinished_analysis(self, session: SessionRow) -> None:
        """Running, cancelled, interrupted or failed: its state, and that results come at the end."""
        sid, running = session["id"], session["status"] == "running"
        figures = Text.assemble(
            (f"Analysis {sid}  ", "bold"), lit(PurePath(session.get("questions_path") or "").name, "dim"), "\n"
        )
        figures.append_text(
            labelled(
                [
                    ("status", lit(state_line(session), "bold", width=200)),
                    (
                        "results",
                        lit(
                            "stored when the analysis finishes"
                            if running
                            else "none: stored only when an analysis finishes · R reruns it"
                        ),
                    ),
                    ("embedder", lit(session.get("embedder"))),
                ],
                label_width=12,
            )
        )
        self.query_one("#overview-figures", Static).update(figures)
        for chart_id, title in (
            ("#overview-bars", "Coverage per cluster"),
            ("#overview-hist", "Distance to nearest question"),
        ):
            self.query_one(chart_id, Chart).draw_message(title, f"analysis {session['status']}: no results")

    def _corrected(self, sid: str) -> list[tuple[str, str]]:
        """The judged means beside their judge-corrected estimates, once the session has labels."""
        if not has_labels(self.context.db, sid):
            return []
        alignment = session_alignment(self.context.db, sid)
        return corrected_lines({"judge_alignment": alignment.to_dict()}) if alignment is not None else []

    def _eval(self, session: SessionRow) -> None:
        db, sid = self.context.db, session["id"]
        counts = queries.eval_counts(db, sid)
        params = session.get("params") or {}
        figures = Text.assemble((f"Eval {sid}  ", "bold"), lit(session.get("system"), "dim"), "\n")
        failed = queries.first_error(db, sid)
        state = state_line(session)
        header = queries.eval_header(db, sid)
        unmeasured = header.get("retrieval_not_measured")
        figures.append_text(
            labelled(
                [
                    *([("status", lit(state, "bold", width=200))] if state else []),
                    (
                        "items",
                        lit(
                            f"{sum(counts.values()):,}  done {counts.get('done', 0):,}  errors {counts.get('error', 0):,}"
                        ),
                    ),
                    *([("error", lit(f"{failed[0]}: {failed[1]}", "bold", width=200))] if failed else []),
                    ("k", lit(params.get("k"))),
                    ("judge", lit(judge_label(session.get("llm"), (header.get("metrics") or {}).get("generation")))),
                    *([("retr", lit(f"not measured: {unmeasured}", width=200))] if unmeasured else []),
                    *(
                        [("refs", lit(synthetic_text(synthetic, sum(counts.values())), "bold", width=200))]
                        if (synthetic := header.get("synthetic_references"))
                        else []
                    ),
                    *(("aligned", lit(f"{metric}: {line}", width=200)) for metric, line in self._corrected(sid)),
                ],
                label_width=8,
            )
        )
        self.query_one("#overview-figures", Static).update(figures)
        table = self.query_one("#overview-aggregates", DataTable)
        table.clear(columns=True)
        table.add_columns("metric", "mean", "± std", "n", "min", "max")
        for group, stats in queries.eval_aggregates(db, sid).items():
            for name, s in stats.items():
                table.add_row(lit(f"{group[:3]} {name}"), num(s.mean), num(s.std), num(s.n), num(s.low), num(s.high))
        measured = False
        for chart_id, metric in (("#overview-bars", "faithfulness"), ("#overview-hist", "robustness")):
            values = queries.metric_values(db, sid, metric)
            chart = self.query_one(chart_id, Chart)
            chart.set_class(not values, "-unmeasured")  # no empty chart for a metric the run did not score
            measured = measured or bool(values)
            if values:
                chart.draw_bars(
                    f"{metric} (n={len(values)})",
                    [f"{i / 10:.1f}" for i in range(10)],
                    queries.histogram(values, 10, 0.0, 1.0),
                )
        self.set_class(not measured, "-unmeasured")  # the figures and aggregates take the whole width
