"""The ``ragcov`` command: parses arguments, calls the core, prints. No logic of its own.

Exit codes: 0 success, 1 failure, 2 bad input (one line naming the file / line / field),
3 a quality gate failed (``--fail-under``, ``--baseline``/``--max-drop``).
Progress bars go to stderr (``--quiet`` silences them); results go to stdout.
Every message quoting a value (argparse's errors, every exception) is one line with its control
characters made visible (:mod:`ragcov_tui.shared.safe_text`); JSON keeps the exact text but writes the
characters a terminal would obey as ``\\uXXXX``.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

from rich.console import Console
from rich.text import Text

from ragcov_tui import __version__
from ragcov_tui.cli.option_flags import DefaultsHelpFormatter, add_flag, add_option_flags
from ragcov_tui.cli.output import has_terminal
from ragcov_tui.cli.safe_console import SafeConsole
from ragcov_tui.services.options import BY_KEY
from ragcov_tui.shared.errors import EXIT_BAD_INPUT, EXIT_FAILURE, EXIT_GATE_FAILED, EXIT_OK, RagcovError
from ragcov_tui.shared.redact import redact_text
from ragcov_tui.shared.safe_text import visible, visible_line

EXAMPLES = {
    "analyze": "ragcov analyze --corpus sample_data/corpus --questions sample_data/questions.jsonl --json report.json",
    "eval": "ragcov eval --questions sample_data/questions.jsonl --corpus sample_data/corpus --system builtin:hybrid",
    "lint": "ragcov lint --questions sample_data/questions.jsonl --corpus sample_data/corpus --fail-under unanswerable=1",
    "compare": "ragcov compare 1a2b3c4d 5e6f7a8b   # two eval sessions (ids, names, or report files)",
    "sessions": "ragcov sessions --kind eval",
    "report": "ragcov report latest-analysis --html coverage.html",
    "tui": "ragcov tui --session latest",
    "demo": "ragcov demo",
    "references": "ragcov references --questions scifact/ --llm openai:gpt-4o-mini --out scifact-references.jsonl",
    "labels": "ragcov labels import my_labels.csv --session latest-eval   # question_id,metric,label",
    "align": "ragcov align latest-eval --json -",
}


NO_TERMINAL = "ragcov tui needs a terminal: stdin and stdout must be a TTY (for a report use `ragcov report`)"


class _ArgumentParser(argparse.ArgumentParser):
    """argparse quotes the offending value in its error (``invalid choice: '…'``): shown visible."""

    def error(self, message: str) -> NoReturn:
        """One line on stderr (no usage block), exit 2 like every other bad input."""
        self.exit(EXIT_BAD_INPUT, f"error: {self.prog}: {visible_line(message)} (see {self.prog} --help)\n")


def _parser() -> argparse.ArgumentParser:
    p = _ArgumentParser(
        prog="ragcov",
        description="Does my test set cover my knowledge base, and does my RAG system answer it well?",
        epilog="Examples:\n  " + "\n  ".join(EXAMPLES.values()),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--version", action="version", version=f"ragcov {__version__}")
    common = _ArgumentParser(add_help=False)  # a parent: its flags are copied into each subcommand
    add_flag(common, BY_KEY["db"], "")  # every command's
    common.add_argument("--config", help="settings file (default ./ragcov.toml when present)")
    common.add_argument("-q", "--quiet", action="store_true", help="no progress bars or warnings on stderr")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    def add(name: str, help_: str) -> argparse.ArgumentParser:
        """A subcommand with the flags of its declared options (services/options.py)."""
        parser = sub.add_parser(
            name,
            parents=[common],
            help=help_,
            description=help_,
            epilog=f"Example:\n  {EXAMPLES[name]}",
            formatter_class=DefaultsHelpFormatter,
        )
        add_option_flags(parser, name, skip=("db",))  # --db: the common parent's
        return parser

    a = add("analyze", "Measure how well a test set covers a corpus (semantic-coverage method).")
    a.add_argument(
        "--max",
        nargs="+",
        metavar="METRIC=VALUE",
        help="exit 3 when a figure is above, e.g. zero_results=0.02 or latency_p95_ms=2000 (traffic health)",
    )
    a.add_argument(
        "--allow-fallback",
        action="store_true",
        help="exit 0 with heuristic themes when --llm answered no call (default: exit 1)",
    )
    a.add_argument(
        "--baseline",
        metavar="SESSION",
        help="stale gold: compare gold documents with this session's (default: the test file's last session)",
    )
    run_flags(a, "a coverage metric is below, e.g. basic=0.6", "with the gap table")

    lint = add(
        "lint",
        "Lint the test set: unanswerable questions, gold without the answer, wrong language, answer in "
        "the question, vague questions, near-duplicates, stale gold (no session is stored).",
    )
    lint.add_argument(
        "--baseline",
        metavar="SESSION",
        help="stale gold: compare gold documents with this session's (default: the test file's last session)",
    )
    lint.add_argument("--no-cache", action="store_true", help="neither read nor write the embedding cache")
    lint.add_argument("--json", metavar="FILE", help="write the findings as JSON ('-' for stdout)")
    lint.add_argument("--markdown", metavar="FILE", help="write a Markdown report with a table of the findings")
    lint.add_argument(
        "--fail-under",
        nargs="+",
        metavar="GATE=SHARE",
        help="exit 3 when a share is below: clean (questions with no finding) or a kind's share of checked "
        "questions without it, e.g. unanswerable=0.95",
    )
    store_flags(lint)

    e = add("eval", "Evaluate a RAG system on the test set: retrieval, generation, robustness.")
    e.add_argument(
        "--no-gold-unanswerable",
        action="store_true",
        help="questions with no gold ids and no reference answer are out of scope (the file's answerable "
        "field wins): scored on whether the system abstained",
    )
    e.add_argument(
        "--no-preflight",
        action="store_true",
        help="skip the judge's known-answer probe that stops a judged run whose judge cannot answer",
    )
    e.add_argument("--resume", metavar="SESSION", help="continue an interrupted eval session")
    e.add_argument("--baseline", metavar="SESSION|FILE", help="compare with an earlier eval; regressions fail the gate")
    run_flags(e, "a metric's mean is below, e.g. ndcg@5=0.6", "with a table per question")

    c = add("compare", "Compare two eval sessions: deltas with bootstrap CIs, wins / losses / ties.")
    c.add_argument("a", metavar="A", help="session id/name or eval JSON report")
    c.add_argument("b", metavar="B", help="the other session id/name or eval JSON report: deltas are B − A")
    c.add_argument("--pairwise", action="store_true", help="also ask an LLM judge which answer is better")
    c.add_argument("--json", metavar="FILE", help="write the comparison as JSON ('-' for stdout)")
    c.add_argument("--html", metavar="FILE", help="write the comparison as one self-contained HTML page")

    f = add(
        "references",
        "Write a reference answer for each judged query of a BEIR folder from its most relevant "
        "documents, with an LLM, into a new test file (marked synthetic; the folder is not changed).",
    )
    f.add_argument(
        "--out",
        required=True,
        metavar="FILE",
        help="the test file to write (.jsonl: question, ground_truth, relevant_doc_ids, reference_generated)",
    )
    f.add_argument("--no-cache", action="store_true", help="neither read nor write the LLM cache")

    s = add("sessions", "List stored sessions.")
    s.add_argument("--kind", choices=["analysis", "eval"], help="list only analysis or only eval sessions")
    s.add_argument("--json", action="store_true", help="print JSON instead of a table")

    r = add("report", "Re-export a stored session as JSON / Markdown / HTML (no recomputation).")
    r.add_argument("session", help="id, id prefix, name, or latest / latest-analysis / latest-eval")
    r.add_argument("--json", metavar="FILE", help="write the session's JSON report ('-' for stdout)")
    r.add_argument("--markdown", metavar="FILE", help="write the session's Markdown report")
    r.add_argument(
        "--html", metavar="FILE", help="write the session as one self-contained HTML page (map, charts, tables)"
    )

    t = add("tui", "Open the terminal app on the stored sessions.")
    t.add_argument("--session", help="session to open first (default: the newest)")

    lab = add(
        "labels",
        "Import people's verdicts on judged metrics (CSV or JSONL: question_id, metric, label 1/0 or a "
        "score in [0, 1], yes when >= 0.5); the app sets them from Results too.",
    )
    lab.add_argument("action", choices=["import"], help="what to do with the labels")
    lab.add_argument("file", metavar="FILE", help="labels file: .csv with a header row, else JSON Lines")
    lab.add_argument("--session", required=True, help="the eval session the labels judge (id, name, latest-eval)")

    al = add(
        "align",
        "How far the judge agrees with the session's labels: rates, kappa, AUC with 95%% intervals, "
        "certified or not, and the judge-corrected means.",
    )
    al.add_argument("session", help="eval session id, id prefix, name, or latest-eval")
    al.add_argument(
        "--json", metavar="FILE", nargs="?", const="-", help="write the alignment as JSON (no FILE or '-': stdout)"
    )
    al.add_argument(
        "--fail-under",
        nargs="+",
        metavar="METRIC=VALUE",
        help="exit 3 when a judged metric's judge-corrected 95%% lower bound is below VALUE",
    )

    d = add(
        "demo",
        "Analyse and evaluate the bundled sample offline, then open the app (prints the report without a "
        "terminal). It works on a copy beside the database, never on the sample itself.",
    )
    d.add_argument(
        "--data",
        default=None,
        help="a sample folder holding corpus/ and questions.jsonl (default: the bundled sample_data)",
    )
    d.add_argument("--no-tui", action="store_true", help="print the report and exit")
    return p


def run_flags(parser: argparse.ArgumentParser, gate: str, markdown: str) -> None:
    """The flags analyze and eval share besides their declared options: caches, the dry run, the
    reports and the gate (``gate`` and ``markdown`` finish the two help texts that differ)."""
    parser.add_argument("--no-cache", action="store_true", help="neither read nor write the embedding / LLM caches")
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="say what the run would embed, call, cost and take on this machine, then stop "
        "(no remote call, no session)",
    )
    parser.add_argument("--json", metavar="FILE", help="write the JSON report ('-' for stdout)")
    parser.add_argument("--markdown", metavar="FILE", help=f"write a Markdown report {markdown}")
    parser.add_argument(
        "--html", metavar="FILE", help="write the session as one self-contained HTML page (opens offline)"
    )
    parser.add_argument("--fail-under", nargs="+", metavar="METRIC=VALUE", help=f"exit 3 when {gate}")
    parser.add_argument(
        "--junit",
        metavar="FILE",
        help="write the gates as JUnit XML test cases for CI (a failing gate lists its questions)",
    )
    store_flags(parser)


def store_flags(parser: argparse.ArgumentParser) -> None:
    """The space check of a vector store (its field mapping is declared: services/options.py)."""
    parser.add_argument(
        "--skip-space-check",
        action="store_true",
        help="do not check that --embedder reproduces the store's vectors (every report says so)",
    )


def main(argv: list[str] | None = None) -> int:
    """Run ``ragcov``; a reader that closed stdout early (``ragcov sessions | head -1``) ends it
    quietly with exit 0, stdout pointed at devnull so the interpreter's final flush cannot fail."""
    try:
        code = _run(argv)
        sys.stdout.flush()  # a closed pipe fails here, inside the handler, not in the interpreter's exit
        return code
    except KeyboardInterrupt:  # Ctrl-C while starting (imports, parsing): one line, no traceback
        sys.stderr.write("interrupted\n")
        return 130
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK


def _run(argv: list[str] | None) -> int:
    args = _parser().parse_args(argv)
    if not args.command:
        _parser().print_help()
        return EXIT_OK
    if args.command == "tui" and not has_terminal():  # refused before the app's imports (seconds)
        sys.stderr.write(f"error: {NO_TERMINAL}\n")
        return EXIT_BAD_INPUT
    from ragcov_tui.cli import commands as cli_commands  # its pipelines' imports: not for --help or a usage error

    handler: Callable[[argparse.Namespace, Console], int] = getattr(cli_commands, f"cmd_{args.command}")
    out = SafeConsole()
    err = SafeConsole(stderr=True, soft_wrap=True)
    try:
        return handler(args, out)
    except RagcovError as exc:
        err.print(Text(visible_line(redact_text(f"error: {exc}"))))
        return exc.exit_code
    except sqlite3.Error as exc:  # the session database failed mid-run (locked too long, read-only, damaged)
        if not getattr(args, "db_where", None):
            raise
        from ragcov_tui.store.db import db_error

        err.print(Text(visible_line(f"error: {db_error(exc, Path(args.db_path), args.db_where)}")))
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        err.print(Text("interrupted"))
        return 130
    except BrokenPipeError:  # stdout closed by its reader: main ends quietly
        raise
    except Exception as exc:  # a bug, not a user mistake: one line, traceback on request
        if os.environ.get("RAGCOV_DEBUG"):  # the traceback quotes untrusted values too: sanitised, redacted
            err.print(Text(visible(redact_text(traceback.format_exc().rstrip("\n")))))
        err.print(
            Text(
                visible_line(
                    redact_text(f"internal error: {type(exc).__name__}: {exc} (set RAGCOV_DEBUG=1 for the traceback)")
                )
            )
        )
        return EXIT_FAILURE


__all__ = ["main", "EXIT_GATE_FAILED", "EXIT_BAD_INPUT"]
