"""Every option of ``ragcov``, declared once (harlequin's ``options.py`` pattern).

One :class:`Option` per setting: its key (the ``ragcov.toml`` key and the options-dataclass
field), the flag it becomes, how its text is parsed and checked (type, bounds, choices), its
default, its help (``{default}`` filled in when shown), its ``RAGCOV_*`` variable, the commands it
applies to, and — for the few the app's Jobs form shows — the form field's label and placeholder.
From this table come the CLI's flags (:mod:`ragcov_tui.cli.option_flags`), the Jobs form's fields
(:func:`form_fields`), the help texts and the merge of flag > env > ``ragcov.toml`` > default
(:mod:`ragcov_tui.services.settings`). A test (``tests/core/test_option_table.py``) fails when the
CLI or the form disagrees with it.

A default the core defines (``DEFAULT_CHUNK_SIZE``, ``CoverageParams.threshold``…) is named here
by a :class:`CoreDefault` and read only when needed, so building the parser imports nothing slow.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ragcov_tui.shared.errors import BadInput
from ragcov_tui.vectorstores.registry import FORMS as STORE_FORMS

Parser = Callable[[Any, bool], Any]  # (value, is_text) -> typed value; ValueError(reason) when bad

SEED_MAX = 2**32 - 1
CHUNK_SIZE_MAX = 1_000_000  # tokens; the declared bound of --chunk-size


def _shown(value: Any) -> str:
    """The offending value as the user wrote it, quoted when text, cut at 80 characters."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def whole(low: int, high: int) -> Parser:
    """A whole number in ``[low, high]`` (text parsed when typed by a person)."""

    def parse(value: Any, is_text: bool) -> int:
        from ragcov_tui.shared.input_values import is_ascii_whole  # numpy (0.3 s): not for building the parser

        bad = ValueError(f"expected a whole number from {low} to {high}, got {_shown(value)}")
        if is_text and isinstance(value, str):
            text = value.strip()
            if not is_ascii_whole(text.lstrip("+-"), 30):
                raise bad
            value = int(text)
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise bad
        return value

    return parse


def _number(low: float, high: float, *, low_open: bool = False, high_open: bool = False) -> Parser:
    interval = f"{'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"

    def parse(value: Any, is_text: bool) -> float:
        bad = ValueError(f"expected a number in {interval}, got {_shown(value)}")
        number = value
        if is_text and isinstance(value, str):
            try:
                number = float(value.strip())
            except ValueError:
                raise bad from None
        if isinstance(number, bool) or not isinstance(number, (int, float)):
            raise bad
        number = float(number)
        too_low = number <= low if low_open else number < low
        too_high = number >= high if high_open else number > high
        if not math.isfinite(number) or too_low or too_high:  # NaN compares false: caught by isfinite
            raise bad
        return number

    return parse


def _text(value: Any, is_text: bool) -> str:
    if not isinstance(value, str):
        raise ValueError(f"expected text, got {_shown(value)}")
    if not value.strip():
        raise ValueError("must not be empty")
    return value.strip()


def _embedder(value: Any, is_text: bool) -> str:
    """A spec some embedder provider takes (checked, not built)."""
    from ragcov_tui.embeddings.factory import parse_spec

    return _provider_spec(parse_spec, _text(value, is_text))


def _llm(value: Any, is_text: bool) -> str:
    """``openai:MODEL`` or ``heuristic`` (checked, not built)."""
    from ragcov_tui.llm.factory import parse_spec

    return _provider_spec(parse_spec, _text(value, is_text))


def _provider_spec(check: Callable[[str], Any], spec: str) -> str:
    try:
        check(spec)
    except BadInput as exc:
        raise ValueError(str(exc)) from None
    return spec


def _auto_or(parser: Parser) -> Parser:
    """``"auto"`` (any case) or what ``parser`` accepts; the form of ``--clusters`` / ``--contamination``."""

    def parse(value: Any, is_text: bool) -> Any:
        if isinstance(value, str) and value.strip().lower() == "auto":
            return "auto"
        try:
            return parser(value, is_text)
        except ValueError as exc:
            raise ValueError("expected 'auto' or " + str(exc).removeprefix("expected ")) from None

    return parse


def _choice(choices: CoreDefault | tuple[str, ...]) -> Parser:
    """One of ``choices`` (any case, spaces around ignored)."""

    def parse(value: Any, is_text: bool) -> str:
        allowed = choices.value() if isinstance(choices, CoreDefault) else choices
        if isinstance(value, str) and value.strip().lower() in allowed:
            return value.strip().lower()
        raise ValueError(f"expected one of {', '.join(allowed)}, got {_shown(value)}")

    return parse


def _metric_list(value: Any, is_text: bool) -> str | list[str]:
    if isinstance(value, list) and value and all(isinstance(v, str) and v.strip() for v in value):
        return [v.strip() for v in value]
    return _text(value, is_text)


@dataclass(frozen=True)
class CoreDefault:
    """A value the core defines, read when needed: ``CoreDefault("ragcov_tui.shared.concurrency", "DEFAULT_CONCURRENCY")``
    (``name`` may be dotted: ``CoverageParams.seed``)."""

    module: str
    name: str

    def value(self) -> Any:
        found: Any = importlib.import_module(self.module)
        for part in self.name.split("."):
            found = getattr(found, part)
        return found


@dataclass(frozen=True)
class FormField:
    """How the app's Jobs form shows an option: the label, and what an empty field means
    (``{default}`` filled in)."""

    label: str
    placeholder: str


PerCommand = str | Mapping[str, str]  # one text for every command, or one per command


@dataclass(frozen=True)
class Option:
    """One option (see the module docstring). ``setting``: merged from env / ``ragcov.toml`` / a
    rerun session too (False: a flag or form field only, like ``--questions``). ``default`` of None
    means the run decides (stated in the help). The flag is ``--key-with-dashes``; ``metavar``,
    ``nargs`` and ``required`` shape it; ``help`` and ``metavar`` may differ per command."""

    key: str
    parse: Parser
    commands: tuple[str, ...]
    help: PerCommand
    default: Any = None
    env: str | None = None
    setting: bool = True
    form: FormField | None = None
    metavar: PerCommand | None = None
    nargs: str | None = None
    required: bool = False

    @property
    def flag(self) -> str:
        return "--" + self.key.replace("_", "-")

    def help_for(self, command: str) -> str:
        """The help text for ``command``, ``{default}`` still in it (see :func:`filled`)."""
        return _per(self.help, command)

    def metavar_for(self, command: str) -> str | None:
        return None if self.metavar is None else _per(self.metavar, command)

    def default_value(self) -> Any:
        """The default (a :class:`CoreDefault` is read now)."""
        return self.default.value() if isinstance(self.default, CoreDefault) else self.default


def _per(value: PerCommand, command: str) -> str:
    return value if isinstance(value, str) else value[command]


def filled(text: str, option: Option | None = None) -> str:
    """``text`` with its placeholders filled: ``{default}`` with ``option``'s default, the others with
    the lists of :func:`registry_help` (read only when a text has a placeholder)."""
    if "{" not in text:
        return text
    values = registry_help()
    if option is not None and "{default}" in text:
        values["default"] = str(option.default_value())
    return text.format_map(values)


def registry_help() -> dict[str, str]:
    """The help placeholders the provider and format registries fill: ``embedder_choices``
    (``text_embedder_choices`` without ``precomputed``, for commands that embed new text),
    ``llm_choices``, ``corpus_types``, ``log_formats``; for the Jobs form's placeholders,
    ``embedder_forms`` / ``llm_forms`` (the spec forms joined by `` · ``)."""
    from ragcov_tui.corpus.file_types import corpus_help
    from ragcov_tui.embeddings.providers import embedder_help, spec_forms
    from ragcov_tui.llm.providers import PROVIDERS as LLMS
    from ragcov_tui.llm.providers import llm_help
    from ragcov_tui.traffic.log_formats import traffic_help

    return {
        "embedder_choices": embedder_help(),
        "text_embedder_choices": embedder_help(given_vectors=False),
        "llm_choices": llm_help(),
        "corpus_types": corpus_help(),
        "log_formats": traffic_help(),
        "embedder_forms": " · ".join(spec_forms(listed_only=True)),
        "llm_forms": " · ".join(p.form for p in LLMS.values()),
    }


ALL = ("analyze", "eval", "lint", "compare", "sessions", "report", "tui", "demo", "references", "labels", "align")
BOTH = ("analyze", "eval", "lint")  # the corpus, chunking and embedder options (lint reads inputs as analyze does)
RUNS = ("analyze", "eval")  # the two kinds of run the Jobs form starts
FORM_KINDS = {"analysis": "analyze", "eval": "eval"}  # a Jobs-form kind -> the command whose options it shows

BEIR_CORPUS = "default: a BEIR folder's corpus.jsonl"
FORM_SYSTEM = "builtin:hybrid"  # the system an eval from the Jobs form asks when its field is empty
CONCURRENCY = CoreDefault("ragcov_tui.shared.concurrency", "DEFAULT_CONCURRENCY")
COVERAGE = "ragcov_tui.coverage.params"
STORE_FIELD_DEFAULTS = (
    ("id", "id"),
    ("text", "text; Chroma: its documents"),
    ("vector", "vector; pgvector: embedding"),
    ("doc", "document"),
)

OPTIONS: tuple[Option, ...] = (
    Option("db", _text, ALL, "session database (default $RAGCOV_DB or ./.ragcov/ragcov.db)", env="RAGCOV_DB"),
    Option(
        "corpus",
        _text,
        BOTH,
        setting=False,
        nargs="+",
        metavar="PATH",
        help={
            "analyze": f"files or directories of {{corpus_types}}, or a vector store: {STORE_FORMS}; {BEIR_CORPUS}",
            "lint": f"files or directories of {{corpus_types}}, or a vector store: {STORE_FORMS}; {BEIR_CORPUS}",
            "eval": f"corpus (needed by builtin systems and document-level gold ids), files or a vector store; {BEIR_CORPUS}",
        },
        form=FormField("corpus (comma-separated)", "docs/, more/faq.md"),
    ),
    Option(
        "questions",
        _text,
        (*BOTH, "references"),
        setting=False,
        required=True,
        metavar={"analyze": "FILE|DIR", "lint": "FILE|DIR", "eval": "FILE|DIR", "references": "DIR"},
        help={
            "analyze": "test file (.jsonl, .json, .csv) or a BEIR folder (corpus.jsonl, queries.jsonl, qrels/)",
            "lint": "test file or a BEIR folder",
            "eval": "test file or a BEIR folder (corpus.jsonl, queries.jsonl, qrels/)",
            "references": "a BEIR folder (corpus.jsonl, queries.jsonl, qrels/)",
        },
        form=FormField("test file", "required: questions.jsonl / .json / .csv"),
    ),
    Option(
        "split",
        _text,
        (*BOTH, "references"),
        setting=False,
        default=CoreDefault("ragcov_tui.testset.beir", "DEFAULT_SPLIT"),
        help="qrels split of a BEIR folder: qrels/SPLIT.tsv (default {default})",
    ),
    Option(
        "qrels",
        _text,
        BOTH,
        setting=False,
        metavar="FILE",
        help="gold ids from a qrels file (TREC 'qid 0 docid grade' or BEIR TSV)",
    ),
    Option(
        "embedder",
        _embedder,
        BOTH,
        env="RAGCOV_EMBEDDER",
        default=CoreDefault("ragcov_tui.embeddings.factory", "DEFAULT_EMBEDDER"),
        help={
            "analyze": "{embedder_choices}",
            "lint": "{text_embedder_choices}",
            "eval": "{text_embedder_choices}: builtin:dense / hybrid retrieval, gold ids from context texts, offline "
            "answer scores",
        },
        form=FormField("embedder", "empty: {embedder_forms}"),
    ),
    Option(
        "llm",
        _llm,
        ("analyze", "eval", "compare", "references"),
        env="RAGCOV_LLM",
        help={
            "analyze": "{llm_choices} for themes and suggested questions (default: offline heuristic)",
            "eval": "{llm_choices} used by builtin systems to generate answers (and to write the --probes questions)",
            "compare": "{llm_choices} for --pairwise",
            "references": "{llm_choices} writing the answers (default $RAGCOV_LLM)",
        },
        form=FormField("LLM", "empty: offline heuristic · {llm_forms}"),
    ),
    Option(
        "judge_llm",
        _llm,
        ("eval",),
        env="RAGCOV_JUDGE_LLM",
        help="{llm_choices} judging answers (default: --llm, else offline heuristics)",
    ),
    Option("paraphrase_llm", _llm, ("eval",), help="{llm_choices} generating paraphrases (default: --judge-llm)"),
    Option(
        "clusters",
        _auto_or(whole(1, 1_000_000)),
        ("analyze",),
        help="number of K-means clusters, or 'auto' (silhouette); default from corpus size",
        form=FormField("clusters (K)", "empty: by corpus size · auto: best silhouette · N"),
    ),
    Option(
        "threshold",
        _number(0.0, 2.0, low_open=True),
        ("analyze",),
        default=CoreDefault(COVERAGE, "CoverageParams.threshold"),
        help="cosine distance under which a question covers a cluster centroid (default {default})",
    ),
    Option(
        "top_n",
        whole(1, 1_000_000),
        ("analyze",),
        default=CoreDefault(COVERAGE, "CoverageParams.top_n"),
        help="each question covers its N closest clusters (multi-cluster N form; default {default})",
    ),
    Option(
        "gap_threshold",
        _number(0.0, 1.0),
        ("analyze",),
        help="clusters with coverage below this are gaps (the paper's rule, e.g. 0.7); default: calibrated on the test set",
    ),
    Option(
        "lof_neighbors",
        whole(1, 1_000_000),
        ("analyze",),
        default=CoreDefault(COVERAGE, "CoverageParams.lof_neighbors"),
        help="neighbours for Local Outlier Factor (default {default})",
    ),
    Option(
        "contamination",
        _auto_or(_number(0.0, 0.5, low_open=True, high_open=True)),
        ("analyze",),
        default=CoreDefault(COVERAGE, "CoverageParams.contamination"),
        help="'auto' or the expected share of outlier questions (0–0.5; default {default})",
    ),
    Option(
        "sample",
        whole(1, 10**12),
        RUNS,
        metavar="N",
        help={
            "analyze": "estimate from N chunks drawn at random (seeded), every share with its 95%% interval; "
            "default: every chunk (exact)",
            "eval": "score a seeded sample of N questions stratified by topic (K-means of their texts), e.g. of "
            "a production log given as --questions and records:",
        },
    ),
    Option(
        "seed",
        whole(0, SEED_MAX),
        RUNS,
        default=CoreDefault(COVERAGE, "CoverageParams.seed"),
        help={
            "analyze": "random seed 0 to 2**32-1 (default {default}): same inputs + seed → same results",
            "eval": "random seed of the probes' sample (default {default})",
        },
    ),
    Option(
        "traffic",
        _text,
        ("analyze",),
        metavar="FILE",
        help="a query log ({log_formats}: one query per row, optional count / timestamp): which "
        "topics users ask are untested, which the corpus cannot answer, which tests nobody asks",
    ),
    Option(
        "eval_session",
        _text,
        ("analyze",),
        metavar="SESSION",
        help="an eval session (id, name, latest-eval) of this test set and corpus: which chunks, clusters and "
        "documents its questions retrieve in the top k (exercised share, blind spots)",
    ),
    Option(
        "engine",
        _choice(("local", "ray")),
        ("analyze",),
        env="RAGCOV_ENGINE",
        default="local",  # coverage/engine.py
        help="where the per-chunk pass runs: local | ray (Ray Data on a local instance, or the cluster in "
        "$RAY_ADDRESS; pip install 'ragcov-tui[ray]') (default {default})",
    ),
    Option(
        "ray_cpus",
        whole(1, 1_000_000),
        ("analyze",),
        env="RAGCOV_RAY_CPUS",
        metavar="N",
        help="CPUs of the local Ray instance --engine ray starts (default: all)",
    ),
    Option(
        "window",
        _text,
        ("analyze",),
        metavar="SPAN",
        help="traffic health of the log's last SPAN (24h, 7d, 2w …) against the windows before it",
    ),
    Option(
        "since",
        _text,
        ("analyze",),
        metavar="TIME",
        help="traffic health of the log's rows from TIME on (ISO 8601, UTC)",
    ),
    Option(
        "until", _text, ("analyze",), metavar="TIME", help="traffic health of the log's rows up to TIME (ISO 8601, UTC)"
    ),
    Option(
        "system",
        _text,
        ("eval",),
        setting=False,
        required=True,
        help="records:FILE | python:pkg.mod:func | http:URL (or the URL) | builtin:bm25|dense|hybrid | a vector store "
        "searched by its own index: lancedb:PATH#TABLE, chroma:PATH#COLLECTION, qdrant:PATH#COLLECTION, "
        "pgvector:postgresql://…#TABLE",
        form=FormField("system under test", f"empty: {FORM_SYSTEM}"),
    ),
    Option(
        "join",
        _choice(("auto", "id", "question", "order")),
        ("eval",),
        default="auto",  # records_join.JOINS
        help="how records:FILE rows meet the test questions: auto (by id, then by question text) | id | question"
        " | order (row n is question n) (default {default})",
    ),
    Option("metrics", _metric_list, ("eval",), help="comma-separated metric names (default: all applicable)"),
    Option(
        "k",
        whole(1, 10_000),
        ("eval",),
        default=CoreDefault("ragcov_tui.evaluation.systems.base", "DEFAULT_K"),
        help="retrieval cut-off (default {default})",
        form=FormField("k (chunks retrieved)", "empty: {default}"),
    ),
    Option(
        "paraphrases",
        whole(0, 100),
        ("eval",),
        default=0,
        help="paraphrases per question: the test file's first, topped up by the paraphrase LLM (default {default})",
    ),
    Option(
        "repeats",
        whole(1, 100),
        ("eval",),
        default=1,
        help="judge each item N times and report mean and spread (default {default})",
    ),
    Option(
        "judge_mode",
        _choice(CoreDefault("ragcov_tui.evaluation.generation.graded", "JUDGE_MODES")),
        ("eval",),
        env="RAGCOV_JUDGE_MODE",
        default="batch",
        help="how the judge gives claim verdicts: batch (all claims in one request) | claim (one claim per request)"
        " | graded (one yes/no per claim, scored by the verdict token's probability; needs logprobs)"
        " (default {default})",
    ),
    Option(
        "probes",
        whole(0, 1_000_000),
        ("eval",),
        default=0,
        metavar="N",
        help="ask the system N questions written from sampled chunks no test question retrieved (seeded): "
        "a chunk it does not return even then is a corpus or index defect (default {default}: none)",
    ),
    Option(
        "max_drop",
        _number(0.0, 1.0),
        ("eval",),
        default=0.05,
        help="allowed drop per metric against the baseline, 0 to 1 (default {default})",
    ),
    Option(
        "chunk_size",
        whole(1, CHUNK_SIZE_MAX),
        BOTH,
        default=CoreDefault("ragcov_tui.corpus.chunking", "DEFAULT_CHUNK_SIZE"),
        help="tokens per chunk (default {default})",
    ),
    Option(
        "chunk_overlap",
        whole(0, CHUNK_SIZE_MAX - 1),
        BOTH,
        default=CoreDefault("ragcov_tui.corpus.chunking", "DEFAULT_CHUNK_OVERLAP"),
        help="tokens of overlap (default {default})",
    ),
    Option(
        "concurrency",
        whole(1, 1024),
        (*BOTH, "references"),
        env="RAGCOV_CONCURRENCY",
        default=CONCURRENCY,
        help={
            "analyze": "embedding / LLM calls in flight (default {default})",
            "eval": "embedding / LLM calls in flight (default {default})",
            "lint": "embedding calls in flight (default {default})",
            "references": "LLM calls in flight (default {default})",
        },
    ),
    Option(
        "budget",
        whole(1, 1_000_000),
        ("references",),
        default=CoreDefault("ragcov_tui.evaluation.references", "DEFAULT_BUDGET"),
        help="tokens of relevant documents (highest grade first) given per query (default {default})",
    ),
    Option(
        "name", _text, RUNS, setting=False, help="a label for the session", form=FormField("session name", "optional")
    ),
    Option(
        "keep_backups",
        whole(1, 1_000_000),
        ("tui",),
        env="RAGCOV_KEEP_BACKUPS",
        metavar="N",
        default=CoreDefault("ragcov_tui.testset.durable", "DEFAULT_KEEP_BACKUPS"),
        help="backups of the test file kept in .ragcov-backups/ per file, newest first (default {default})",
    ),
    Option(
        "certify_at",
        _number(0.0, 1.0),
        ("align",),
        metavar="RATE",
        default=CoreDefault("ragcov_tui.evaluation.alignment", "CERTIFY_AT"),
        help="both rates' 95%% lower bounds must reach this to certify the judge (default {default})",
    ),
    # a vector store's field mapping (--corpus / --system lancedb:… ; vectorstores/base.py FieldMap)
    *(
        Option(
            f"{part}_field",
            _text,
            BOTH,
            metavar="FIELD",
            help=f"a vector store's {part} field (default per store: {shown})",
        )
        for part, shown in STORE_FIELD_DEFAULTS
    ),
)
BY_KEY: dict[str, Option] = {o.key: o for o in OPTIONS}
SPECS: dict[str, Option] = {o.key: o for o in OPTIONS if o.setting}  # merged from env / ragcov.toml / a rerun too
ENV_VARS = {o.key: o.env for o in OPTIONS if o.env}


def command_options(command: str) -> list[Option]:
    """The declared options of ``command``, in declaration order."""
    return [o for o in OPTIONS if command in o.commands]


def form_fields(kind: str | None = None) -> dict[str, Option]:
    """The options the Jobs form shows (of ``kind``, ``analysis`` or ``eval``; all when None)."""
    commands = tuple(FORM_KINDS.values()) if kind is None else (FORM_KINDS[kind],)
    return {o.key: o for o in OPTIONS if o.form is not None and any(c in o.commands for c in commands)}


def default(key: str) -> Any:
    """The declared default of option ``key``."""
    return BY_KEY[key].default_value()


def check_values(values: Mapping[str, Any]) -> None:
    """Typed values (``{key: value}``) checked against their declarations; BadInput naming the
    flag, with the reason the merge gives (``--k: expected a whole number from 1 to 10000, got 0``)."""
    for key, value in values.items():
        option = BY_KEY[key]
        try:
            option.parse(value, False)
        except ValueError as exc:
            raise BadInput(f"{option.flag}: {exc}") from None
