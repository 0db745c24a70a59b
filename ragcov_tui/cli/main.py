"""The ``ragcov`` command: parses arguments, calls the core, prints. No logic of its own.

Exit codes: 0 success, 1 failure, 2 bad input (one line naming the file / line / field),
3 a quality gate failed (``--fail-under``, ``--baseline``/``--max-drop``).
Progress bars go to stderr (``--quiet`` silences them); results go to stdout.
Every message quoting a value (argparse's errors, every exception) is one line with its control
characters made visible (:mod:`ragcov_tui.safe_text`); JSON keeps the exact text but writes the
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
from ragcov_tui.cli.output import has_terminal
from ragcov_tui.cli.safe_console import SafeConsole
from ragcov_tui.errors import EXIT_BAD_INPUT, EXIT_FAILURE, EXIT_GATE_FAILED, EXIT_OK, RagcovError
from ragcov_tui.redact import redact_text
from ragcov_tui.safe_text import visible, visible_line
from ragcov_tui.vectorstores.registry import FORMS as STORE_FORMS

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
    common.add_argument("--db", help="session database (default $RAGCOV_DB or ./.ragcov/ragcov.db)")
    common.add_argument("--config", help="settings file (default ./ragcov.toml when present)")
    common.add_argument("-q", "--quiet", action="store_true", help="no progress bars or warnings on stderr")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    def add(name: str, help_: str) -> argparse.ArgumentParser:
        return sub.add_parser(name, parents=[common], help=help_, description=help_,
                              epilog=f"Example:\n  {EXAMPLES[name]}", formatter_class=DefaultsHelpFormatter)

    a = add("analyze", "Measure how well a test set covers a corpus (semantic-coverage method).")
    a.add_argument("--corpus", nargs="+", metavar="PATH",
                   help="files or directories of {corpus_types}, or a vector store: "
                        f"{STORE_FORMS}; default: a BEIR folder's corpus.jsonl")
    a.add_argument("--questions", required=True, metavar="FILE|DIR",
                   help="test file (.jsonl, .json, .csv) or a BEIR folder (corpus.jsonl, queries.jsonl, qrels/)")
    ir_flags(a)
    a.add_argument("--traffic", metavar="FILE",
                   help="a query log ({log_formats}: one query per row, optional count / timestamp): which "
                        "topics users ask are untested, which the corpus cannot answer, which tests nobody asks")
    a.add_argument("--eval-session", metavar="SESSION",
                   help="an eval session (id, name, latest-eval) of this test set and corpus: which chunks, clusters and "
                        "documents its questions retrieve in the top k (exercised share, blind spots)")
    a.add_argument("--window", metavar="SPAN",
                   help="traffic health of the log's last SPAN (24h, 7d, 2w …) against the windows before it")
    a.add_argument("--since", metavar="TIME", help="traffic health of the log's rows from TIME on (ISO 8601, UTC)")
    a.add_argument("--until", metavar="TIME", help="traffic health of the log's rows up to TIME (ISO 8601, UTC)")
    a.add_argument("--max", nargs="+", metavar="METRIC=VALUE",
                   help="exit 3 when a figure is above, e.g. zero_results=0.02 or latency_p95_ms=2000 (traffic health)")
    a.add_argument("--embedder", help="{embedder_choices}")
    a.add_argument("--llm", help="{llm_choices} for themes and suggested questions (default: offline heuristic)")
    a.add_argument("--allow-fallback", action="store_true",
                   help="exit 0 with heuristic themes when --llm answered no call (default: exit 1)")
    a.add_argument("--clusters", help="number of K-means clusters, or 'auto' (silhouette); default from corpus size")
    a.add_argument("--threshold", help="cosine distance under which a question covers a cluster centroid (default {threshold})")
    a.add_argument("--top-n", help="each question covers its N closest clusters (multi-cluster N form; default {top_n})")
    a.add_argument("--gap-threshold",
                   help="clusters with coverage below this are gaps (the paper's rule, e.g. 0.7); default: calibrated on the test set")
    a.add_argument("--lof-neighbors", help="neighbours for Local Outlier Factor (default {lof_neighbors})")
    a.add_argument("--contamination", help="'auto' or the expected share of outlier questions (0–0.5; default {contamination})")
    a.add_argument("--sample", metavar="N",
                   help="estimate from N chunks drawn at random (seeded), every share with its 95%% interval; "
                        "default: every chunk (exact)")
    a.add_argument("--seed", help="random seed 0 to 2**32-1 (default {seed}): same inputs + seed → same results")
    a.add_argument("--baseline", metavar="SESSION",
                   help="stale gold: compare gold documents with this session's (default: the test file's last session)")
    run_flags(a, "a coverage metric is below, e.g. basic=0.6", "with the gap table")

    lint = add("lint", "Lint the test set: unanswerable questions, gold without the answer, wrong language, answer in "
                       "the question, vague questions, near-duplicates, stale gold (no session is stored).")
    lint.add_argument("--corpus", nargs="+", metavar="PATH",
                      help=f"files or directories of {{corpus_types}}, or a vector store: {STORE_FORMS}; default: a BEIR "
                           "folder's corpus.jsonl")
    lint.add_argument("--questions", required=True, metavar="FILE|DIR", help="test file or a BEIR folder")
    ir_flags(lint)
    lint.add_argument("--embedder", help="{text_embedder_choices}")
    lint.add_argument("--baseline", metavar="SESSION",
                      help="stale gold: compare gold documents with this session's (default: the test file's last session)")
    lint.add_argument("--chunk-size", help="tokens per chunk (default {chunk_size})")
    lint.add_argument("--chunk-overlap", help="tokens of overlap (default {chunk_overlap})")
    lint.add_argument("--no-cache", action="store_true", help="neither read nor write the embedding cache")
    lint.add_argument("--concurrency", help="embedding calls in flight (default {concurrency})")
    lint.add_argument("--json", metavar="FILE", help="write the findings as JSON ('-' for stdout)")
    lint.add_argument("--markdown", metavar="FILE", help="write a Markdown report with a table of the findings")
    lint.add_argument("--fail-under", nargs="+", metavar="GATE=SHARE",
                      help="exit 3 when a share is below: clean (questions with no finding) or a kind's share of checked "
                           "questions without it, e.g. unanswerable=0.95")
    store_flags(lint)

    e = add("eval", "Evaluate a RAG system on the test set: retrieval, generation, robustness.")
    e.add_argument("--questions", required=True, metavar="FILE|DIR",
                   help="test file or a BEIR folder (corpus.jsonl, queries.jsonl, qrels/)")
    e.add_argument("--corpus", nargs="+", default=[], metavar="PATH",
                   help="corpus (needed by builtin systems and document-level gold ids), files or a vector store; "
                        "default: a BEIR folder's corpus.jsonl")
    ir_flags(e)
    e.add_argument("--system", required=True, help="records:FILE | python:pkg.mod:func | http:URL (or the URL) | "
                   "builtin:bm25|dense|hybrid | a vector store searched by its own index: lancedb:PATH#TABLE, "
                   "chroma:PATH#COLLECTION, qdrant:PATH#COLLECTION, pgvector:postgresql://…#TABLE")
    e.add_argument("--sample", metavar="N",
                   help="score a seeded sample of N questions stratified by topic (K-means of their texts), e.g. of "
                        "a production log given as --questions and records:")
    e.add_argument("--join",
                   help="how records:FILE rows meet the test questions: auto (by id, then by question text) | id | question"
                        " | order (row n is question n) (default {join})")
    e.add_argument("--embedder",
                   help="{text_embedder_choices}: builtin:dense / hybrid retrieval, gold ids from context texts, offline "
                        "answer scores")
    e.add_argument("--llm", help="{llm_choices} used by builtin systems to generate answers (and to write the --probes "
                   "questions)")
    e.add_argument("--judge-llm", help="{llm_choices} judging answers (default: --llm, else offline heuristics)")
    e.add_argument("--paraphrase-llm", help="{llm_choices} generating paraphrases (default: --judge-llm)")
    e.add_argument("--metrics", help="comma-separated metric names (default: all applicable)")
    e.add_argument("--k", help="retrieval cut-off (default {k})")
    e.add_argument("--paraphrases",
                   help="paraphrases per question: the test file's first, topped up by the paraphrase LLM (default {paraphrases})")
    e.add_argument("--repeats", help="judge each item N times and report mean and spread (default {repeats})")
    e.add_argument("--judge-mode",
                   help="how the judge gives claim verdicts: batch (all claims in one request) | claim (one claim per request)"
                        " | graded (one yes/no per claim, scored by the verdict token's probability; needs logprobs)"
                        " (default {judge_mode})")
    e.add_argument("--no-gold-unanswerable", action="store_true",
                   help="questions with no gold ids and no reference answer are out of scope (the file's answerable "
                        "field wins): scored on whether the system abstained")
    e.add_argument("--no-preflight", action="store_true",
                   help="skip the judge's known-answer probe that stops a judged run whose judge cannot answer")
    e.add_argument("--probes", metavar="N",
                   help="ask the system N questions written from sampled chunks no test question retrieved (seeded): "
                        "a chunk it does not return even then is a corpus or index defect (default {probes}: none)")
    e.add_argument("--seed", help="random seed of the probes' sample (default {seed})")
    e.add_argument("--resume", metavar="SESSION", help="continue an interrupted eval session")
    e.add_argument("--baseline", metavar="SESSION|FILE", help="compare with an earlier eval; regressions fail the gate")
    e.add_argument("--max-drop", help="allowed drop per metric against the baseline, 0 to 1 (default {max_drop})")
    run_flags(e, "a metric's mean is below, e.g. ndcg@5=0.6", "with a table per question")

    c = add("compare", "Compare two eval sessions: deltas with bootstrap CIs, wins / losses / ties.")
    c.add_argument("a", metavar="A", help="session id/name or eval JSON report")
    c.add_argument("b", metavar="B", help="the other session id/name or eval JSON report: deltas are B − A")
    c.add_argument("--pairwise", action="store_true", help="also ask an LLM judge which answer is better")
    c.add_argument("--llm", help="{llm_choices} for --pairwise")
    c.add_argument("--json", metavar="FILE", help="write the comparison as JSON ('-' for stdout)")
    c.add_argument("--html", metavar="FILE", help="write the comparison as one self-contained HTML page")

    f = add("references", "Write a reference answer for each judged query of a BEIR folder from its most relevant "
                          "documents, with an LLM, into a new test file (marked synthetic; the folder is not changed).")
    f.add_argument("--questions", required=True, metavar="DIR", help="a BEIR folder (corpus.jsonl, queries.jsonl, qrels/)")
    f.add_argument("--llm", help="{llm_choices} writing the answers (default $RAGCOV_LLM)")
    f.add_argument("--out", required=True, metavar="FILE",
                   help="the test file to write (.jsonl: question, ground_truth, relevant_doc_ids, reference_generated)")
    ir_flags(f, qrels=False)
    f.add_argument("--budget", help="tokens of relevant documents (highest grade first) given per query (default {budget})")
    f.add_argument("--concurrency", help="LLM calls in flight (default {concurrency})")
    f.add_argument("--no-cache", action="store_true", help="neither read nor write the LLM cache")

    s = add("sessions", "List stored sessions.")
    s.add_argument("--kind", choices=["analysis", "eval"], help="list only analysis or only eval sessions")
    s.add_argument("--json", action="store_true", help="print JSON instead of a table")

    r = add("report", "Re-export a stored session as JSON / Markdown / HTML (no recomputation).")
    r.add_argument("session", help="id, id prefix, name, or latest / latest-analysis / latest-eval")
    r.add_argument("--json", metavar="FILE", help="write the session's JSON report ('-' for stdout)")
    r.add_argument("--markdown", metavar="FILE", help="write the session's Markdown report")
    r.add_argument("--html", metavar="FILE", help="write the session as one self-contained HTML page (map, charts, tables)")

    t = add("tui", "Open the terminal app on the stored sessions.")
    t.add_argument("--session", help="session to open first (default: the newest)")
    t.add_argument("--keep-backups", metavar="N",
                   help="backups of the test file kept in .ragcov-backups/ per file, newest first (default {keep_backups})")

    lab = add("labels", "Import people's verdicts on judged metrics (CSV or JSONL: question_id, metric, label 1/0 or a "
                        "score in [0, 1], yes when >= 0.5); the app sets them from Results too.")
    lab.add_argument("action", choices=["import"], help="what to do with the labels")
    lab.add_argument("file", metavar="FILE", help="labels file: .csv with a header row, else JSON Lines")
    lab.add_argument("--session", required=True, help="the eval session the labels judge (id, name, latest-eval)")

    al = add("align", "How far the judge agrees with the session's labels: rates, kappa, AUC with 95%% intervals, "
                      "certified or not, and the judge-corrected means.")
    al.add_argument("session", help="eval session id, id prefix, name, or latest-eval")
    al.add_argument("--json", metavar="FILE", nargs="?", const="-", help="write the alignment as JSON (no FILE or '-': stdout)")
    al.add_argument("--certify-at", metavar="RATE",
                    help="both rates' 95%% lower bounds must reach this to certify the judge (default {certify_at})")
    al.add_argument("--fail-under", nargs="+", metavar="METRIC=VALUE",
                    help="exit 3 when a judged metric's judge-corrected 95%% lower bound is below VALUE")

    d = add("demo", "Analyse and evaluate the bundled sample offline, then open the app (prints the report without a "
                    "terminal). It works on a copy beside the database, never on the sample itself.")
    d.add_argument("--data", default=None, help="a sample folder holding corpus/ and questions.jsonl (default: the "
                                                "bundled sample_data)")
    d.add_argument("--no-tui", action="store_true", help="print the report and exit")
    return p


def run_flags(parser: argparse.ArgumentParser, gate: str, markdown: str) -> None:
    """The flags analyze and eval share: chunking, caches, concurrency, the session's name, the
    reports and the gate (``gate`` and ``markdown`` finish the two help texts that differ)."""
    parser.add_argument("--chunk-size", help="tokens per chunk (default {chunk_size})")
    parser.add_argument("--chunk-overlap", help="tokens of overlap (default {chunk_overlap})")
    parser.add_argument("--no-cache", action="store_true", help="neither read nor write the embedding / LLM caches")
    parser.add_argument("--dry-run", action="store_true",
                        help="say what the run would embed, call, cost and take on this machine, then stop "
                             "(no remote call, no session)")
    parser.add_argument("--concurrency", help="embedding / LLM calls in flight (default {concurrency})")
    parser.add_argument("--name", help="a label for the session")
    parser.add_argument("--json", metavar="FILE", help="write the JSON report ('-' for stdout)")
    parser.add_argument("--markdown", metavar="FILE", help=f"write a Markdown report {markdown}")
    parser.add_argument("--html", metavar="FILE", help="write the session as one self-contained HTML page (opens offline)")
    parser.add_argument("--fail-under", nargs="+", metavar="METRIC=VALUE", help=f"exit 3 when {gate}")
    parser.add_argument("--junit", metavar="FILE",
                        help="write the gates as JUnit XML test cases for CI (a failing gate lists its questions)")
    store_flags(parser)


def store_flags(parser: argparse.ArgumentParser) -> None:
    """A vector store's field mapping (each store has defaults) and the space check."""
    for part, default in (("id", "id"), ("text", "text; Chroma: its documents"), ("vector", "vector; pgvector: embedding"),
                          ("doc", "document")):
        parser.add_argument(f"--{part}-field", metavar="FIELD",
                            help=f"a vector store's {part} field (default per store: {default})")
    parser.add_argument("--skip-space-check", action="store_true",
                        help="do not check that --embedder reproduces the store's vectors (every report says so)")


def ir_flags(parser: argparse.ArgumentParser, *, qrels: bool = True) -> None:
    """--split and --qrels: relevance judgements in the BEIR / TREC layouts."""
    parser.add_argument("--split", help="qrels split of a BEIR folder: qrels/SPLIT.tsv (default {split})")
    if qrels:
        parser.add_argument("--qrels", metavar="FILE",
                            help="gold ids from a qrels file (TREC 'qid 0 docid grade' or BEIR TSV)")


class DefaultsHelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Fills ``{chunk_size}``-style placeholders in a subcommand's help with the default from the
    options dataclasses, and ``{llm_choices}``-style ones with the lists of :func:`registry_help`
    (both imported only when help is shown), so no default and no list is written twice."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        from ragcov_tui.services.settings import option_defaults

        text = action.help
        if not text or "{" not in text:
            return text
        return text.format_map({**option_defaults(self._prog.split()[-1]), **registry_help()})


def registry_help() -> dict[str, str]:
    """The help placeholders the provider and format registries fill: ``embedder_choices``
    (``text_embedder_choices`` without ``precomputed``, for commands that embed new text),
    ``llm_choices``, ``corpus_types`` and ``log_formats``."""
    from ragcov_tui.corpus.file_types import corpus_help
    from ragcov_tui.embeddings.providers import embedder_help
    from ragcov_tui.llm.providers import llm_help
    from ragcov_tui.traffic.log_formats import traffic_help

    return {"embedder_choices": embedder_help(), "text_embedder_choices": embedder_help(given_vectors=False),
            "llm_choices": llm_help(), "corpus_types": corpus_help(), "log_formats": traffic_help()}


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
        err.print(Text(visible_line(redact_text(f"internal error: {type(exc).__name__}: {exc} "
                                                "(set RAGCOV_DEBUG=1 for the traceback)"))))
        return EXIT_FAILURE


__all__ = ["main", "EXIT_GATE_FAILED", "EXIT_BAD_INPUT"]
