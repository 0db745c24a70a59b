"""One handler per ``ragcov`` subcommand: resolve settings, call the core, print, map exit codes."""

from __future__ import annotations

import argparse
import functools
import os
import signal
import sys
import threading
from collections.abc import Callable
from typing import Any, NoReturn

from rich.console import Console
from rich.text import Text

from ragcov_tui.cli.args_to_settings import check_outputs, command_options, session_inputs, setting, setup
from ragcov_tui.cli.demo import demo_copy, demo_source
from ragcov_tui.cli.output import dump_json, has_terminal, ragcov_command, write_output
from ragcov_tui.cli.render import ProgressBar, print_analysis, print_compare, print_eval, print_sessions, warn_printer
from ragcov_tui.cli.safe_console import SafeConsole, plain_line
from ragcov_tui.cli.traffic_views import print_traffic
from ragcov_tui.coverage.report_md import analysis_markdown
from ragcov_tui.coverage.report_traffic_md import traffic_markdown
from ragcov_tui.errors import EXIT_GATE_FAILED, EXIT_OK, BadInput, Cancelled, Interrupted, ProviderError, Unreachable
from ragcov_tui.safe_text import single_line
from ragcov_tui.services.config import Config
from ragcov_tui.store import open_db
from ragcov_tui.store.analysis_contract import AnalysisReport
from ragcov_tui.store.db import open_db_read_only
from ragcov_tui.store.eval_contract import EvalReport
from ragcov_tui.store.liveness import tracking
from ragcov_tui.store.queries import has_report
from ragcov_tui.store.sessions import resolve_session
from ragcov_tui.testset.durable import KEEP_BACKUPS_ENV

Command = Callable[[argparse.Namespace, Console], int]
STOP_SIGNALS = ("SIGINT", "SIGTERM", "SIGHUP")


def interruptible(cmd: Command) -> Command:
    """While ``cmd`` runs, SIGTERM / SIGHUP unwind it like Ctrl-C (its session is marked
    ``interrupted`` on the way out); the command then says so in one line on stderr (``interrupted
    by SIGTERM: <the stop report, parts joined by "; ">``) and exits 128 + signal.
    The first stop signal unwinds (calls in flight are abandoned: :mod:`ragcov_tui.concurrency`)
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


def _setup(args: argparse.Namespace) -> tuple[Config, str]:
    """Settings file, environment, every option of the command, the database path and the output
    paths, checked — before a command imports its (slow to import) pipeline; ``args.db_where``
    names the database path's source."""
    found = setup(args, None if args.quiet else warn_printer(args.quiet))
    args.db_where, args.db_path = found.db_where, found.db_path
    check_outputs(args, inputs=[getattr(args, key, None) for key in ("qrels", "baseline", "a", "b", "traffic")],
                  db_path=found.db_path)
    return found.config, found.db_path


def _open(args: argparse.Namespace, db_path: str, *, writable: bool = False) -> Any:
    """The session database; ``writable`` commands learn of a lock or a read-only file before any work."""
    return open_db(db_path, where=args.db_where, writable=writable)


@interruptible
def cmd_analyze(args: argparse.Namespace, out: Console) -> int:
    cfg, db_path = _setup(args)
    from ragcov_tui.coverage.gates import check_coverage_gates, parse_coverage_gates
    from ragcov_tui.services.analysis_job import AnalyzeOptions, run_analysis
    from ragcov_tui.thresholds import AboveMaximum

    opts: AnalyzeOptions = command_options(args, cfg, corpus=args.corpus or [])
    gates = parse_coverage_gates(args.fail_under or [], traffic=bool(opts.traffic))
    maxima = parse_coverage_gates(args.max or [], "--max", traffic=bool(opts.traffic))
    opts.coverage_params()  # a bad engine option fails before the database is touched
    if args.dry_run:
        from ragcov_tui.services.dry_run import plan_analysis

        return _print_plan(args, out, plan_analysis(opts, open_db_read_only(db_path), _warn(args)))
    db = _open(args, db_path, writable=True)
    with ProgressBar(quiet=args.quiet) as bar, tracking(bar) as progress:
        _, report = run_analysis(opts, db, progress=progress, warn=None if args.quiet else warn_printer(args.quiet))
    _analysis_outputs(args, out, report, db_path)
    return _gate_exit([f"{'max' if isinstance(b, AboveMaximum) else 'fail-under'} {b}"
                       for b in check_coverage_gates(report, gates, maxima)])


def _warn(args: argparse.Namespace) -> Callable[[str], None] | None:
    return None if args.quiet else warn_printer(args.quiet)


def _print_plan(args: argparse.Namespace, out: Console, plan: Any) -> int:
    """``--dry-run``: the plan as JSON (``--json``) and as lines (unless the JSON went to stdout)."""
    write_output(args.json, dump_json(plan.to_dict()), args.quiet)
    if args.json != "-":
        for line in plan.lines():
            out.print(plain_line(line), soft_wrap=True)  # one line each, whatever the width
    return EXIT_OK


def _analysis_outputs(args: argparse.Namespace, out: Console, report: AnalysisReport, db_path: str) -> None:
    """``--json`` and ``--markdown`` of an analysis, then its summary (unless the JSON went to stdout)."""
    write_output(args.json, dump_json(report), args.quiet)
    write_output(args.markdown, analysis_markdown(report) + traffic_markdown(report), args.quiet)
    if args.json != "-":
        print_analysis(out, report, db_path)
        print_traffic(out, report)


def _eval_outputs(args: argparse.Namespace, out: Console, report: EvalReport) -> None:
    """``--json`` and ``--markdown`` of an eval, then its summary (unless the JSON went to stdout)."""
    from ragcov_tui.evaluation.report_md import eval_markdown

    write_output(args.json, dump_json(report), args.quiet)
    write_output(args.markdown, eval_markdown(report), args.quiet)
    if args.json != "-":
        print_eval(out, report)


def _gate_exit(failures: list[str]) -> int:
    """Print one stderr line per failed gate; exit 3 when any failed."""
    err = SafeConsole(stderr=True, soft_wrap=True)
    for line in failures:
        err.print(Text(f"gate failed: {line}"))
    return EXIT_GATE_FAILED if failures else EXIT_OK


def cmd_sessions(args: argparse.Namespace, out: Console) -> int:
    from ragcov_tui.store.sessions import list_sessions

    _, db_path = _setup(args)
    sessions = list_sessions(_open(args, db_path), kind=args.kind)
    if args.json:
        sys.stdout.write(dump_json(sessions) + "\n")
    elif not sessions:
        out.print(plain_line(f"No sessions in {db_path} yet. Start with: {ragcov_command()} analyze --help"),
                  soft_wrap=True)  # a command to paste: one line, whatever the width
    else:
        print_sessions(out, sessions)
    return EXIT_OK


def cmd_report(args: argparse.Namespace, out: Console) -> int:
    _, db_path = _setup(args)
    db = _open(args, db_path)
    session = resolve_session(db, args.session)
    check_outputs(args, inputs=session_inputs(db, [session["id"]]), db_path=db_path)  # not over its inputs
    if session["status"] != "done":
        raise BadInput(f"session {session['id']} is {session['status']}: {session.get('error') or 'no report'}")
    if not has_report(db, session["id"]):
        raise BadInput(f"session {session['id']} is done but holds no report (left by another ragcov, or the "
                       "database was edited): run it again")
    if session["kind"] == "analysis":
        from ragcov_tui.store.analysis import load_analysis_report

        _analysis_outputs(args, out, load_analysis_report(db, session["id"]), db_path)
    else:
        from ragcov_tui.store.evals import load_eval_report

        _eval_outputs(args, out, load_eval_report(db, session["id"]))
    return EXIT_OK


def cmd_tui(args: argparse.Namespace, out: Console) -> int:
    """Open the app (``main`` has refused already when there is no terminal)."""
    cfg, db_path = _setup(args)
    keep = setting(args, cfg, "keep_backups")
    if keep is not None:  # --keep-backups or ragcov.toml: the writer reads the variable (testset/durable.py)
        os.environ[KEEP_BACKUPS_ENV] = str(keep)
    db = _open(args, db_path)  # create / migrate before the app starts, and fail here on a bad path
    if args.session and not args.session.startswith("latest"):
        resolve_session(db, args.session)  # a mistyped id is a one-line error, not an app with a notice
    from ragcov_tui.tui.app import run_tui

    return run_tui(db_path, session_id=args.session)


@interruptible
def cmd_demo(args: argparse.Namespace, out: Console) -> int:
    """Analyse + evaluate the sample's working copy (:mod:`ragcov_tui.cli.demo`) with the offline
    defaults, then open the app (or print)."""
    from ragcov_tui.services.analysis_job import AnalyzeOptions, run_analysis
    from ragcov_tui.services.eval_job import EvalOptions, run_eval

    _, db_path = _setup(args)
    source = demo_source(args.data)
    db = _open(args, db_path, writable=True)
    data, made = demo_copy(source, db_path)
    if not args.quiet:
        SafeConsole(stderr=True, soft_wrap=True).print(plain_line(
            f"demo: working on {'a new copy' if made else 'the copy'} of {source} in {data} (accepted questions go there)"))
    corpus, questions = data / "corpus", data / "questions.jsonl"
    with ProgressBar(quiet=args.quiet) as bar, tracking(bar) as progress:
        traffic = data / "traffic.jsonl"  # the sample's query log, when there is one: the Traffic pane has data
        sid, report = run_analysis(AnalyzeOptions(corpus=[str(corpus)], questions=str(questions),
                                                  traffic=str(traffic) if traffic.is_file() else None), db, progress=progress)
        _, eval_report = run_eval(
            EvalOptions(questions=str(questions), corpus=[str(corpus)], system="builtin:hybrid"), db, progress=progress
        )
    if args.no_tui or not has_terminal():
        print_analysis(out, report, db_path)
        print_traffic(out, report)
        print_eval(out, eval_report)
        return EXIT_OK
    from ragcov_tui.tui.app import run_tui

    return run_tui(db_path, session_id=sid)


@interruptible
def cmd_eval(args: argparse.Namespace, out: Console) -> int:
    cfg, db_path = _setup(args)
    from ragcov_tui.evaluation.gates import check_gates, load_baseline, parse_fail_under
    from ragcov_tui.evaluation.report import all_failed, all_unreachable, failure_note
    from ragcov_tui.services.eval_job import EvalOptions, run_eval

    opts: EvalOptions = command_options(args, cfg)
    max_drop = setting(args, cfg, "max_drop")
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
    _eval_outputs(args, out, report)
    if all_failed(report):
        error = Unreachable if all_unreachable(report) else ProviderError  # a wrong address: exit 2
        raise error(f"nothing to score: {failure_note(report)}; fix the cause and continue "
                    f"with --resume {report.get('session_id')}")
    gates = check_gates(report, baseline=baseline, fail_under=args.fail_under or [],
                        **({} if max_drop is None else {"max_drop": max_drop}))
    return _gate_exit(gates.lines())


def _stopped(db: Any, tracker: Any) -> list[str]:
    """The stop report of the eval session this run claimed (none when it stopped before one), for
    :func:`interruptible` to join into its one ``interrupted by …`` line."""
    from ragcov_tui.evaluation.stop_report import stop_report

    return [part for sid in tracker.sessions[-1:] for part in stop_report(db, sid, tracker.last)]


def cmd_compare(args: argparse.Namespace, out: Console) -> int:
    from ragcov_tui.evaluation.compare import compare
    from ragcov_tui.llm.factory import make_llm

    cfg, db_path = _setup(args)
    db = _open(args, db_path)
    check_outputs(args, inputs=session_inputs(db, [args.a, args.b]), db_path=db_path)
    llm = make_llm(setting(args, cfg, "llm"), db=db) if args.pairwise else None
    if args.pairwise and llm is None:
        raise BadInput("--pairwise needs an LLM: pass --llm openai:MODEL")
    with ProgressBar(quiet=args.quiet) as bar:
        result = compare(db, args.a, args.b, llm=llm, progress=bar)
    write_output(args.json, dump_json(result), args.quiet)
    if args.json != "-":
        print_compare(out, result)
    return EXIT_OK
