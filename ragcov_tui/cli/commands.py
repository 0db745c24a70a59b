"""One handler per ``ragcov`` subcommand: resolve settings, call the core, print, map exit codes."""

from __future__ import annotations

import argparse
import functools
import os
import shlex
import signal
import sys
import threading
from collections.abc import Callable
from typing import Any, NoReturn

import sqlite_utils
from rich.console import Console
from rich.text import Text

from ragcov_tui.cli.args_to_settings import Setup, check_outputs, command_options, session_inputs, setup
from ragcov_tui.cli.demo import demo_copy, demo_source
from ragcov_tui.cli.exercised_views import print_exercised
from ragcov_tui.cli.lint_views import print_lint, print_stale_gold
from ragcov_tui.cli.output import dump_json, has_terminal, ragcov_command, write_html, write_output
from ragcov_tui.cli.render import ProgressBar, print_analysis, print_compare, print_eval, print_sessions, warn_printer
from ragcov_tui.cli.safe_console import SafeConsole, plain_line
from ragcov_tui.cli.traffic_views import print_traffic
from ragcov_tui.coverage.exercised import probes_line
from ragcov_tui.coverage.report_exercised_md import exercised_markdown, probes_markdown
from ragcov_tui.coverage.report_md import analysis_markdown
from ragcov_tui.coverage.report_traffic_md import traffic_markdown
from ragcov_tui.services.options import default
from ragcov_tui.shared.errors import (
    EXIT_GATE_FAILED,
    EXIT_OK,
    BadInput,
    Cancelled,
    Interrupted,
    ProviderError,
    Unreachable,
)
from ragcov_tui.shared.safe_text import single_line
from ragcov_tui.store import open_db
from ragcov_tui.store.analysis_contract import AnalysisReport
from ragcov_tui.store.db import open_db_read_only
from ragcov_tui.store.eval_contract import EvalReport
from ragcov_tui.store.liveness import tracking
from ragcov_tui.store.queries import has_report
from ragcov_tui.store.sessions import resolve_session
from ragcov_tui.testlint.report_md import lint_markdown, stale_gold_markdown

Command = Callable[[argparse.Namespace, Console], int]
STOP_SIGNALS = ("SIGINT", "SIGTERM", "SIGHUP")


def interruptible(cmd: Command) -> Command:
    """While ``cmd`` runs, SIGTERM / SIGHUP unwind it like Ctrl-C (its session is marked
    ``interrupted`` on the way out); the command then says so in one line on stderr (``interrupted
    by SIGTERM: <the stop report, parts joined by "; ">``) and exits 128 + signal.
    The first stop signal unwinds (calls in flight are abandoned: :mod:`ragcov_tui.shared.concurrency`)
    and, once the session is recorded and the stop reported, the process ends at once: the
    interpreter's teardown (~1 s with the numeric libraries loaded) would keep the abandoned
    requests open, and ending closes them. A second signal while it unwinds exits at once. A
    SIGINT the shell made us ignore stays ignored."""

    @functools.wraps(cmd)
    def run(args: argparse.Namespace, out: Console) -> int:
        if threading.current_thread() is not threading.main_thread():  # signals reach the main thread only
            return cmd(args, out)

        def exit_now(signum: int, frame: object) -> None:
            os.write(2, b"stopped again: exiting now\n")
            os._exit(128 + signum)

        def stop(signum: int, frame: object) -> None:
            stopped_by.append(signum)
            for sig in previous:
                signal.signal(sig, exit_now)
            if signum == signal.SIGINT:
                raise KeyboardInterrupt
            raise Interrupted(signal.Signals(signum).name, signum)

        stopped_by: list[int] = []
        wanted = [getattr(signal, n) for n in STOP_SIGNALS]
        previous = {sig: signal.signal(sig, stop) for sig in wanted if signal.getsignal(sig) is not signal.SIG_IGN}
        try:
            return cmd(args, out)
        except KeyboardInterrupt as exc:
            if not stopped_by:  # not one of our signals: the caller reports it
                raise
            said = "; ".join(getattr(args, "stopped", ()))  # the command's stop report, if it made one
            if isinstance(exc, Interrupted):
                _leave(f"interrupted by {exc.signal_name}" + (f": {said}" if said else ""), exc.exit_code)
            _leave("interrupted" + (f": {said}" if said else ""), 130)
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)

    return run


def _leave(line: str, code: int) -> NoReturn:
    """Flush what was printed, say ``line`` (made one safe line) on stderr and end the process now
    (no teardown)."""
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    os.write(2, (single_line(line) + "\n").encode())
    os._exit(code)


def _setup(args: argparse.Namespace) -> Setup:
    """Settings file, environment, every option of the command (resolved here, once), the database
    path and the output paths, checked — before a command imports its (slow to import) pipeline;
    ``args.db_where`` names the database path's source."""
    found = setup(args, None if args.quiet else warn_printer(args.quiet))
    args.db_where, args.db_path = found.db_where, found.db_path
    check_outputs(
        args,
        inputs=[getattr(args, key, None) for key in ("qrels", "baseline", "a", "b", "traffic")],
        db_path=found.db_path,
    )
    return found


def _open(args: argparse.Namespace, db_path: str, *, writable: bool = False) -> sqlite_utils.Database:
    """The session database; ``writable`` commands learn of a lock or a read-only file before any work."""
    return open_db(db_path, where=args.db_where, writable=writable)


@interruptible
def cmd_analyze(args: argparse.Namespace, out: Console) -> int:
    found = _setup(args)
    db_path = found.db_path
    from ragcov_tui.coverage.gates import (
        check_coverage_gates,
        check_gate_inputs,
        coverage_junit_cases,
        parse_coverage_gates,
    )
    from ragcov_tui.services.analysis_job import run_analysis
    from ragcov_tui.shared.thresholds import AboveMaximum

    opts = command_options(args, found, "analyze", corpus=args.corpus or [])
    gates = parse_coverage_gates(args.fail_under or [], traffic=bool(opts.traffic))
    maxima = parse_coverage_gates(args.max or [], "--max", traffic=bool(opts.traffic))
    check_gate_inputs(gates, opts.eval_session)
    opts.coverage_params()  # a bad engine option fails before the database is touched
    if args.dry_run:
        from ragcov_tui.services.dry_run import plan_analysis

        return _print_plan(args, out, plan_analysis(opts, open_db_read_only(db_path), _warn(args)))
    db = _open(args, db_path, writable=True)
    with ProgressBar(quiet=args.quiet) as bar, tracking(bar) as progress:
        _, report = run_analysis(opts, db, progress=progress, warn=None if args.quiet else warn_printer(args.quiet))
    _analysis_outputs(args, out, report, db_path, db)
    _write_junit(
        args,
        f"ragcov analyze {report.get('session_id')}",
        coverage_junit_cases(report, gates, maxima),
        report.get("timings", {}).get("total", 0.0),
        session=report.get("session_id"),
    )
    return _gate_exit(
        [
            f"{'max' if isinstance(b, AboveMaximum) else 'fail-under'} {b}"
            for b in check_coverage_gates(report, gates, maxima)
        ]
    )


def _write_junit(args: argparse.Namespace, suite: str, cases: list[Any], seconds: float, **properties: Any) -> None:
    """``--junit FILE``: the gates as JUnit XML test cases (:mod:`ragcov_tui.shared.junit_xml`)."""
    if args.junit:
        from ragcov_tui.shared.junit_xml import junit_xml

        write_output(args.junit, junit_xml(suite, cases, properties=properties, seconds=seconds), args.quiet)


@interruptible
def cmd_lint(args: argparse.Namespace, out: Console) -> int:
    """``ragcov lint``: the lint section printed, as JSON / Markdown, and gated; no session stored."""
    found = _setup(args)
    db_path = found.db_path
    from ragcov_tui.services.lint_job import run_lint
    from ragcov_tui.testlint.gates import check_lint_gates, parse_lint_gates

    gates = parse_lint_gates(args.fail_under or [])
    opts = command_options(args, found, "lint", corpus=args.corpus or [])
    db = _open(args, db_path, writable=True)  # the embedding cache; the baseline's content hashes
    with ProgressBar(quiet=args.quiet) as bar, tracking(bar) as progress:
        section = run_lint(opts, db, progress=progress, warn=_warn(args))
    write_output(args.json, dump_json(section), args.quiet)
    write_output(
        args.markdown, "# Test-set lint\n" + lint_markdown(section).removeprefix("\n## Test-set lint\n"), args.quiet
    )
    if args.json != "-":
        print_lint(out, section)
    return _gate_exit([f"fail-under {b}" for b in check_lint_gates(section, gates)])


def _warn(args: argparse.Namespace) -> Callable[[str], None] | None:
    return None if args.quiet else warn_printer(args.quiet)


def _print_plan(args: argparse.Namespace, out: Console, plan: Any) -> int:
    """``--dry-run``: the plan as JSON (``--json``) and as lines (unless the JSON went to stdout)."""
    write_output(args.json, dump_json(plan.to_dict()), args.quiet)
    if args.json != "-":
        for line in plan.lines():
            out.print(plain_line(line), soft_wrap=True)  # one line each, whatever the width
    return EXIT_OK


def _analysis_outputs(args: argparse.Namespace, out: Console, report: AnalysisReport, db_path: str, db: Any) -> None:
    """``--json``, ``--markdown`` and ``--html`` of an analysis, then its summary (unless the JSON went to stdout)."""
    write_output(args.json, dump_json(report), args.quiet)
    write_output(
        args.markdown,
        analysis_markdown(report)
        + traffic_markdown(report)
        + exercised_markdown(report)
        + lint_markdown(report.get("lint")),
        args.quiet,
    )
    if args.html:
        from ragcov_tui.services.html_export import analysis_page

        write_html(args.html, analysis_page(db, report), args.quiet)
    if args.json != "-":
        print_analysis(out, report, db_path)
        print_traffic(out, report)
        print_exercised(out, report)
        print_lint(out, report.get("lint"))


def _eval_outputs(args: argparse.Namespace, out: Console, report: EvalReport, db: Any) -> None:
    """``--json``, ``--markdown`` and ``--html`` of an eval, then its summary (unless the JSON went to stdout)."""
    from ragcov_tui.evaluation.report_md import eval_markdown

    write_output(args.json, dump_json(report), args.quiet)
    write_output(
        args.markdown,
        eval_markdown(report) + probes_markdown(report) + stale_gold_markdown(report.get("stale_gold")),
        args.quiet,
    )
    if args.html:
        from ragcov_tui.services.html_export import eval_page

        write_html(args.html, eval_page(db, report), args.quiet)
    if args.json != "-":
        print_eval(out, report)
        print_stale_gold(out, report.get("stale_gold"))
        if probes := report.get("probes"):
            out.print(plain_line(probes_line(probes)))


def _gate_summary(args: argparse.Namespace, lines: list[str]) -> None:
    """One stderr line per ``--fail-under`` gate: exact or judged, and the figure it compared."""
    if not args.quiet:
        err = SafeConsole(stderr=True, soft_wrap=True)
        for line in lines:
            err.print(plain_line(line))


def _gate_exit(failures: list[str]) -> int:
    """Print one stderr line per failed gate; exit 3 when any failed."""
    err = SafeConsole(stderr=True, soft_wrap=True)
    for line in failures:
        err.print(Text(f"gate failed: {line}"))
    return EXIT_GATE_FAILED if failures else EXIT_OK


def cmd_sessions(args: argparse.Namespace, out: Console) -> int:
    from ragcov_tui.store.sessions import list_sessions

    db_path = _setup(args).db_path
    sessions = list_sessions(_open(args, db_path), kind=args.kind)
    if args.json:
        sys.stdout.write(dump_json(sessions) + "\n")
    elif not sessions:
        out.print(
            plain_line(f"No sessions in {db_path} yet. Start with: {ragcov_command()} analyze --help"), soft_wrap=True
        )  # a command to paste: one line, whatever the width
    else:
        print_sessions(out, sessions)
    return EXIT_OK


def cmd_report(args: argparse.Namespace, out: Console) -> int:
    db_path = _setup(args).db_path
    db = _open(args, db_path)
    session = resolve_session(db, args.session)
    check_outputs(args, inputs=session_inputs(db, [session["id"]]), db_path=db_path)  # not over its inputs
    if session["status"] != "done":
        raise BadInput(f"session {session['id']} is {session['status']}: {session.get('error') or 'no report'}")
    if not has_report(db, session["id"]):
        raise BadInput(
            f"session {session['id']} is done but holds no report (left by another ragcov, or the "
            "database was edited): run it again"
        )
    if session["kind"] == "analysis":
        from ragcov_tui.store.analysis import load_analysis_report

        _analysis_outputs(args, out, load_analysis_report(db, session["id"]), db_path, db)
    else:
        from ragcov_tui.evaluation.judge_alignment import aligned_report

        _eval_outputs(args, out, aligned_report(db, session["id"]), db)
    return EXIT_OK


def cmd_labels(args: argparse.Namespace, out: Console) -> int:
    """``ragcov labels import FILE --session S``: every row checked, then all stored in one go."""
    from pathlib import Path

    from ragcov_tui.evaluation.judge_alignment import judged_metrics
    from ragcov_tui.evaluation.labels_file import read_labels
    from ragcov_tui.store.evals import item_questions
    from ragcov_tui.store.labels import import_labels

    db_path = _setup(args).db_path
    db = _open(args, db_path, writable=True)
    sid = resolve_session(db, args.session, kind="eval")["id"]
    labels = read_labels(Path(args.file), args.file, list(item_questions(db, sid)), judged_metrics(db, sid))
    stored = import_labels(db, sid, labels, f"import:{Path(args.file).name}")
    yes = sum(x.label for x in labels)
    out.print(
        plain_line(
            f"{stored} labels stored in session {sid} ({yes} yes, {stored - yes} no); "
            f"next: {ragcov_command()} align {sid}"
        ),
        soft_wrap=True,
    )
    return EXIT_OK


def cmd_align(args: argparse.Namespace, out: Console) -> int:
    """``ragcov align SESSION``: the judge against the session's labels; ``--fail-under`` gates on
    the judge-corrected lower bounds."""
    from ragcov_tui.cli.alignment_views import print_alignment
    from ragcov_tui.evaluation.gates import check_gates, parse_fail_under
    from ragcov_tui.evaluation.judge_alignment import session_alignment, with_alignment
    from ragcov_tui.evaluation.systems.base import DEFAULT_K
    from ragcov_tui.store.evals import load_eval_report

    found = _setup(args)
    certify_at = found.setting("certify_at")
    db = _open(args, found.db_path)
    sid = resolve_session(db, args.session, kind="eval")["id"]
    report = load_eval_report(db, sid)
    parse_fail_under(args.fail_under or [], int(report.get("k") or DEFAULT_K))
    alignment = session_alignment(db, sid, certify_at=default("certify_at") if certify_at is None else certify_at)
    if alignment is None or not alignment.metrics:
        why = "no labels" if alignment is None else "no label on an item the judge scored"
        raise BadInput(
            f"session {sid} has {why}: label items in the app (Results) or run "
            f"{ragcov_command()} labels import FILE --session {sid}"
        )
    report = with_alignment(report, alignment)
    write_output(args.json, dump_json(report["judge_alignment"]), args.quiet)
    if args.json != "-":
        print_alignment(out, sid, report)
    if not args.fail_under:
        return EXIT_OK
    gates = check_gates(report, fail_under=args.fail_under, alignment=alignment)
    _gate_summary(args, gates.summary())
    return _gate_exit(gates.lines())


def cmd_tui(args: argparse.Namespace, out: Console) -> int:
    """Open the app (``main`` has refused already when there is no terminal)."""
    found = _setup(args)
    db_path = found.db_path
    db = _open(args, db_path)  # create / migrate before the app starts, and fail here on a bad path
    if args.session and not args.session.startswith("latest"):
        resolve_session(db, args.session)  # a mistyped id is a one-line error, not an app with a notice
    from ragcov_tui.tui.app import run_tui

    return run_tui(db_path, session_id=args.session, keep_backups=found.setting("keep_backups"))


@interruptible
def cmd_demo(args: argparse.Namespace, out: Console) -> int:
    """Analyse + evaluate the sample's working copy (:mod:`ragcov_tui.cli.demo`) with the offline
    defaults, then open the app (or print)."""
    from ragcov_tui.services.analysis_job import AnalyzeOptions, run_analysis
    from ragcov_tui.services.eval_job import EvalOptions, run_eval

    db_path = _setup(args).db_path
    source = demo_source(args.data)
    db = _open(args, db_path, writable=True)
    data, made = demo_copy(source, db_path)
    if not args.quiet:
        SafeConsole(stderr=True, soft_wrap=True).print(
            plain_line(
                f"demo: working on {'a new copy' if made else 'the copy'} of {source} in {data} (accepted questions go there)"
            )
        )
    corpus, questions = data / "corpus", data / "questions.jsonl"
    with ProgressBar(quiet=args.quiet) as bar, tracking(bar) as progress:
        traffic = data / "traffic.jsonl"  # the sample's query log, when there is one: the Traffic pane has data
        sid, report = run_analysis(
            AnalyzeOptions(
                corpus=[str(corpus)], questions=str(questions), traffic=str(traffic) if traffic.is_file() else None
            ),
            db,
            progress=progress,
        )
        _, eval_report = run_eval(
            EvalOptions(questions=str(questions), corpus=[str(corpus)], system="builtin:hybrid"), db, progress=progress
        )
    if args.no_tui or not has_terminal():
        print_analysis(out, report, db_path)
        print_traffic(out, report)
        print_eval(out, eval_report)
        out.print(
            plain_line(
                f"Share it as a page: {ragcov_command()} report {sid} --db {shlex.quote(db_path)} --html "
                "coverage.html (or press H in the app)",
                style="dim",
            ),
            soft_wrap=True,
        )
        return EXIT_OK
    from ragcov_tui.tui.app import run_tui

    return run_tui(db_path, session_id=sid)


@interruptible
def cmd_eval(args: argparse.Namespace, out: Console) -> int:
    found = _setup(args)
    db_path = found.db_path
    from ragcov_tui.evaluation.gates import check_gates, junit_cases, load_baseline, parse_fail_under
    from ragcov_tui.evaluation.judge_alignment import session_alignment, with_alignment
    from ragcov_tui.evaluation.report import all_failed, all_unreachable, failure_note
    from ragcov_tui.services.eval_job import run_eval

    opts = command_options(args, found, "eval")
    max_drop = found.setting("max_drop")
    parse_fail_under(args.fail_under or [], opts.k)  # bad gate specs fail before any work
    if args.dry_run:
        from ragcov_tui.services.dry_run import plan_eval

        return _print_plan(args, out, plan_eval(opts, open_db_read_only(db_path), _warn(args)))
    db = _open(args, db_path, writable=True)
    baseline = load_baseline(db, args.baseline) if args.baseline else None
    with ProgressBar(quiet=args.quiet) as bar, tracking(bar) as progress:
        try:
            _, report = run_eval(opts, db, progress=progress, warn=None if args.quiet else warn_printer(args.quiet))
        except (KeyboardInterrupt, Cancelled):  # the stop line says what was kept and how to go on
            args.stopped = _stopped(db, progress)
            raise
    alignment = session_alignment(db, report["session_id"])  # a resumed, labelled session
    _eval_outputs(args, out, with_alignment(report, alignment), db)
    if all_failed(report):
        error = Unreachable if all_unreachable(report) else ProviderError  # a wrong address: exit 2
        raise error(
            f"nothing to score: {failure_note(report)}; fix the cause and continue "
            f"with --resume {report.get('session_id')}"
        )
    drop = {"max_drop": default("max_drop") if max_drop is None else max_drop}
    gates = check_gates(report, baseline=baseline, fail_under=args.fail_under or [], alignment=alignment, **drop)
    _gate_summary(args, gates.summary())
    _write_junit(
        args,
        f"ragcov eval {report.get('session_id')}",
        junit_cases(report, baseline=baseline, fail_under=args.fail_under or [], alignment=alignment, **drop),
        report.get("timings", {}).get("total", 0.0),
        session=report.get("session_id"),
        system=report.get("system"),
        judge=report.get("judge"),
        questions=report.get("questions_path"),
    )
    return _gate_exit(gates.lines())


@interruptible
def cmd_references(args: argparse.Namespace, out: Console) -> int:
    """``ragcov references``: reference answers for a BEIR folder's judged queries, into a new file."""
    found = _setup(args)
    from ragcov_tui.services.references_job import write_references

    if found.setting("llm") is None:
        raise BadInput("--llm: a model is needed to write reference answers (e.g. --llm openai:gpt-4o-mini)")
    opts = command_options(args, found, "references")
    db = _open(args, found.db_path, writable=True)
    with ProgressBar(quiet=args.quiet) as bar:
        summary = write_references(opts, db, progress=bar, warn=_warn(args))
    from ragcov_tui.llm.accounting import usage_lines

    out.print(
        plain_line(
            f"wrote {summary.written} synthetic reference answers to {summary.out} "
            f"(marked 'reference_generated'; eval reports say so)"
        ),
        soft_wrap=True,
    )
    if summary.without_answer:
        shown = ", ".join(summary.without_answer[:10]) + (" …" if len(summary.without_answer) > 10 else "")
        out.print(
            plain_line(
                f"{len(summary.without_answer)} queries left out (their relevant documents gave no answer): {shown}"
            ),
            soft_wrap=True,
        )
    for line in usage_lines({opts.llm: summary.usage}):
        out.print(plain_line(line), soft_wrap=True)
    return EXIT_OK


def _stopped(db: Any, tracker: Any) -> list[str]:
    """The stop report of the eval session this run claimed (none when it stopped before one), for
    :func:`interruptible` to join into its one ``interrupted by …`` line."""
    from ragcov_tui.evaluation.stop_report import stop_report

    return [part for sid in tracker.sessions[-1:] for part in stop_report(db, sid, tracker.last)]


def cmd_compare(args: argparse.Namespace, out: Console) -> int:
    from ragcov_tui.evaluation.compare import compare
    from ragcov_tui.llm.factory import make_llm

    found = _setup(args)
    db = _open(args, found.db_path)
    check_outputs(args, inputs=session_inputs(db, [args.a, args.b]), db_path=found.db_path)
    llm = make_llm(found.setting("llm"), db=db) if args.pairwise else None
    if args.pairwise and llm is None:
        raise BadInput("--pairwise needs an LLM: pass --llm openai:MODEL")
    with ProgressBar(quiet=args.quiet) as bar:
        result = compare(db, args.a, args.b, llm=llm, progress=bar)
    write_output(args.json, dump_json(result), args.quiet)
    if args.html:
        from ragcov_tui.evaluation.report import read_eval_report
        from ragcov_tui.services.html_export import compare_page

        write_html(
            args.html, compare_page(result, read_eval_report(db, args.a), read_eval_report(db, args.b)), args.quiet
        )
    if args.json != "-":
        print_compare(out, result)
    return EXIT_OK
