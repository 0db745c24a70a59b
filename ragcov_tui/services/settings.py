"""Typed settings: one spec per option, one merge of flags, environment and ``ragcov.toml``.

Precedence, highest first: a flag (or a Jobs-form field), the stored parameters of the session a
job reruns, a ``RAGCOV_*`` environment variable, the ``[command]`` table of ``ragcov.toml``, its
top level, and finally the default — which lives only in the options dataclasses
(``AnalyzeOptions``, ``EvalOptions``, ``CoverageParams``). Text typed by a person (flags, env,
form fields) is parsed; values from TOML or a stored session must already have the right type
(``seed = "1"`` is refused, ``threshold = 1`` is a number). A bad value is a one-line
:class:`~ragcov_tui.errors.ConfigError` naming where it came from::

    --seed: expected a whole number from 0 to 4294967295, got '-1'
    $RAGCOV_CONCURRENCY: expected a whole number from 1 to 1024, got 'many'
    ragcov.toml [analyze] seed: expected a whole number from 0 to 4294967295, got "x"

NaN and infinities are refused everywhere; numbers are checked against the ranges below.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ragcov_tui.errors import BadInput, ConfigError
from ragcov_tui.evaluation.generation.graded import JUDGE_MODES
from ragcov_tui.input_values import is_ascii_whole

Parser = Callable[[Any, bool], Any]  # (value, is_text) -> typed value; ValueError(reason) when bad

SEED_MAX = 2**32 - 1


def _shown(value: Any) -> str:
    """The offending value as the user wrote it, quoted when text, cut at 80 characters."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _whole(low: int, high: int) -> Parser:
    def parse(value: Any, is_text: bool) -> int:
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


def _choice(*choices: str) -> Parser:
    """One of ``choices`` (any case, spaces around ignored)."""
    def parse(value: Any, is_text: bool) -> str:
        if isinstance(value, str) and value.strip().lower() in choices:
            return value.strip().lower()
        raise ValueError(f"expected one of {', '.join(choices)}, got {_shown(value)}")
    return parse


def _metric_list(value: Any, is_text: bool) -> str | list[str]:
    if isinstance(value, list) and value and all(isinstance(v, str) and v.strip() for v in value):
        return [v.strip() for v in value]
    return _text(value, is_text)


@dataclass(frozen=True)
class Spec:
    """One option: its key (``ragcov.toml`` key and options field), parser, commands and env var."""

    key: str
    parse: Parser
    commands: tuple[str, ...]
    env: str | None = None


ALL = ("analyze", "eval", "lint", "compare", "sessions", "report", "tui", "demo", "references", "labels", "align")
BOTH = ("analyze", "eval", "lint")  # the corpus, chunking and embedder options (lint reads inputs as analyze does)
SPECS: dict[str, Spec] = {s.key: s for s in (
    Spec("db", _text, ALL, "RAGCOV_DB"),
    Spec("embedder", _embedder, BOTH, "RAGCOV_EMBEDDER"),
    Spec("llm", _llm, ("analyze", "eval", "compare", "references"), "RAGCOV_LLM"),
    Spec("judge_llm", _llm, ("eval",), "RAGCOV_JUDGE_LLM"),
    Spec("paraphrase_llm", _llm, ("eval",)),
    Spec("concurrency", _whole(1, 1024), (*BOTH, "references"), "RAGCOV_CONCURRENCY"),
    Spec("budget", _whole(1, 1_000_000), ("references",)),  # tokens of relevant documents per reference answer
    Spec("chunk_size", _whole(1, 1_000_000), BOTH),
    Spec("chunk_overlap", _whole(0, 999_999), BOTH),
    Spec("clusters", _auto_or(_whole(1, 1_000_000)), ("analyze",)),
    Spec("threshold", _number(0.0, 2.0, low_open=True), ("analyze",)),
    Spec("top_n", _whole(1, 1_000_000), ("analyze",)),
    Spec("gap_threshold", _number(0.0, 1.0), ("analyze",)),
    Spec("lof_neighbors", _whole(1, 1_000_000), ("analyze",)),
    Spec("contamination", _auto_or(_number(0.0, 0.5, low_open=True, high_open=True)), ("analyze",)),
    Spec("seed", _whole(0, SEED_MAX), BOTH),
    Spec("traffic", _text, ("analyze",)),  # a query log path (--traffic)
    Spec("certify_at", _number(0.0, 1.0), ("align",)),  # default: evaluation/alignment.py CERTIFY_AT
    Spec("window", _text, ("analyze",)),  # traffic health windows (--window 7d; traffic/windows.py checks it)
    Spec("since", _text, ("analyze",)),
    Spec("until", _text, ("analyze",)),
    Spec("sample", _whole(1, 10**12), BOTH),  # analyze: chunks to estimate from; eval: questions to score (--sample)
    Spec("eval_session", _text, ("analyze",)),  # the eval whose retrievals give retrieval coverage (--eval-session)
    Spec("probes", _whole(0, 1_000_000), ("eval",)),  # unexercised chunks asked about directly (--probes)
    Spec("metrics", _metric_list, ("eval",)),
    Spec("k", _whole(1, 10_000), ("eval",)),
    Spec("paraphrases", _whole(0, 100), ("eval",)),
    Spec("repeats", _whole(1, 100), ("eval",)),
    Spec("max_drop", _number(0.0, 1.0), ("eval",)),
    Spec("judge_mode", _choice(*JUDGE_MODES), ("eval",), "RAGCOV_JUDGE_MODE"),
    Spec("join", _choice("auto", "id", "question", "order"), ("eval",)),  # records_join.JOINS
    Spec("keep_backups", _whole(1, 1_000_000), ("tui",), "RAGCOV_KEEP_BACKUPS"),  # testset.durable: backups per file
    # a vector store's field mapping (--corpus / --system lancedb:… ; vectorstores/base.py FieldMap)
    Spec("id_field", _text, BOTH),
    Spec("text_field", _text, BOTH),
    Spec("vector_field", _text, BOTH),
    Spec("doc_field", _text, BOTH),
)}
ENV_VARS = {s.key: s.env for s in SPECS.values() if s.env}


@dataclass(frozen=True)
class Source:
    """One layer of settings: its values and how to name a key of it in an error message."""

    values: Mapping[str, Any]
    where: Callable[[str], str]
    is_text: bool  # values typed by a person (flags, env, form fields): parsed from text


def flag_source(values: Mapping[str, Any], label: Callable[[str], str] | None = None) -> Source:
    """Flags (``None`` = not given); named ``--chunk-size`` unless ``label`` says otherwise."""
    given = {k: v for k, v in values.items() if v is not None and k in SPECS}
    return Source(given, label or (lambda key: "--" + key.replace("_", "-")), True)


def env_source(environ: Mapping[str, str]) -> Source:
    """``RAGCOV_*`` variables that are set and not empty."""
    given = {key: environ[var] for key, var in ENV_VARS.items() if environ.get(var, "").strip()}
    return Source(given, lambda key: f"${ENV_VARS[key]}", True)


def toml_sources(sections: Mapping[str, Mapping[str, Any]], values: Mapping[str, Any], path: str,
                 command: str) -> list[Source]:
    """The ``[command]`` table, then the top level, of a ``ragcov.toml`` read from ``path``."""
    return [Source(dict(sections.get(command, {})), lambda key: f"{path} [{command}] {key}", False),
            Source(dict(values), lambda key: f"{path} {key}", False)]


@dataclass
class Resolved:
    """Typed values of the options some source set, and where each came from (for messages)."""

    values: dict[str, Any]
    origin: dict[str, str]

    def where(self, key: str) -> str:
        return self.origin.get(key, f"{key} (default)")


def resolve(command: str, sources: Sequence[Source]) -> Resolved:
    """Every option of ``command`` that some source sets, typed and checked; the first source
    wins, but every source's value is checked, so a broken file or variable is never silent."""
    out = Resolved({}, {})
    for key, spec in SPECS.items():
        if command not in spec.commands:
            continue
        for source in reversed(sources):
            if key in source.values:
                out.origin[key] = source.where(key)
                out.values[key] = parse_value(spec, source.values[key], out.origin[key], source.is_text)
    return out


def build_options(command: str, sources: Sequence[Source], /, **fixed: Any) -> Any:
    """``AnalyzeOptions`` (command ``analyze``) or ``EvalOptions`` (``eval``) from the merged
    sources; ``fixed`` gives the fields no setting covers (corpus, questions, system, name…).
    Fields left unset keep the dataclass's default: the only place a default is written."""
    import dataclasses

    if command in ("analyze", "lint"):
        from ragcov_tui.services.analysis_job import AnalyzeOptions
        cls: type[AnalyzeOptions] | type[EvalOptions] = AnalyzeOptions
    else:
        from ragcov_tui.services.eval_job import EvalOptions
        cls = EvalOptions
    resolved = resolve(command, sources)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    values = {k: v for k, v in resolved.values.items() if k in fields}
    size, overlap = (values.get(k, fields[k].default) for k in ("chunk_size", "chunk_overlap"))
    if overlap >= size:
        size_from = resolved.origin.get("chunk_size", "the default")
        raise ConfigError(f"{resolved.where('chunk_overlap')}: the overlap ({overlap}) must be smaller than "
                          f"the chunk size ({size}, {size_from})")
    if command == "eval":  # the judge defaults to the system's LLM, the paraphraser to the judge
        values.setdefault("judge_llm", values.get("llm"))
        values.setdefault("paraphrase_llm", values["judge_llm"])
    return cls(**{k: v for k, v in fixed.items() if k in fields and k not in values and v is not None}, **values)


def parse_value(spec: Spec, value: Any, where: str, is_text: bool) -> Any:
    """``spec``'s typed value, or ConfigError ``"<where>: <reason>"``."""
    try:
        return spec.parse(value, is_text)
    except ValueError as exc:
        raise ConfigError(f"{where}: {exc}") from None


def unknown_keys(sections: Mapping[str, Mapping[str, Any]], values: Mapping[str, Any], path: str) -> list[str]:
    """One warning per key of ``ragcov.toml`` that no command reads (a typo, most likely)."""
    warnings = [f"{path}: unknown key '{key}' ignored" for key in values if key not in SPECS]
    for section, table in sections.items():
        if section not in ALL:
            warnings.append(f"{path}: unknown table [{section}] ignored (tables: {', '.join(ALL)})")
            continue
        for key in table:
            if key not in SPECS:
                warnings.append(f"{path} [{section}]: unknown key '{key}' ignored")
            elif section not in SPECS[key].commands:
                warnings.append(f"{path} [{section}]: '{key}' is not an option of {section} (only of "
                                f"{', '.join(SPECS[key].commands)}); ignored")
    return warnings


def option_defaults(command: str) -> dict[str, Any]:
    """Each option's default for ``command``, read from where it is defined (for help texts):
    the options dataclass, else the engine's ``CoverageParams``, else ``check_gates``."""
    import dataclasses
    import inspect

    from ragcov_tui.coverage.params import CoverageParams
    from ragcov_tui.testset.durable import DEFAULT_KEEP_BACKUPS

    out: dict[str, Any] = {f.name: f.default for f in dataclasses.fields(CoverageParams)}
    out["keep_backups"] = DEFAULT_KEEP_BACKUPS
    if command == "align":
        from ragcov_tui.evaluation.alignment import CERTIFY_AT

        out["certify_at"] = CERTIFY_AT
    if command == "eval":
        from ragcov_tui.evaluation.gates import check_gates
        from ragcov_tui.services.eval_job import EvalOptions

        out["max_drop"] = inspect.signature(check_gates).parameters["max_drop"].default
        cls: type[AnalyzeOptions] | type[EvalOptions] | type[ReferenceOptions] = EvalOptions
    elif command == "references":
        from ragcov_tui.services.references_job import ReferenceOptions
        cls = ReferenceOptions
    else:
        from ragcov_tui.services.analysis_job import AnalyzeOptions
        cls = AnalyzeOptions
    out.update({f.name: f.default for f in dataclasses.fields(cls)
                if f.default is not None and f.default is not dataclasses.MISSING})
    return out
