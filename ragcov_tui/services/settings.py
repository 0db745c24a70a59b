"""Typed settings: one merge of flags, environment and ``ragcov.toml``, resolved once per run.

The options themselves (type, bounds, default, help, variable) are declared in
:mod:`ragcov_tui.services.options`. Precedence, highest first: a flag (or a Jobs-form field), the
stored parameters of the session a job reruns, a ``RAGCOV_*`` environment variable, the
``[command]`` table of ``ragcov.toml``, its top level, and finally the declared default. Text typed by a person (flags, env,
form fields) is parsed; values from TOML or a stored session must already have the right type
(``seed = "1"`` is refused, ``threshold = 1`` is a number). A bad value is a one-line
:class:`~ragcov_tui.shared.errors.ConfigError` naming where it came from::

    --seed: expected a whole number from 0 to 4294967295, got '-1'
    $RAGCOV_CONCURRENCY: expected a whole number from 1 to 1024, got 'many'
    ragcov.toml [analyze] seed: expected a whole number from 0 to 4294967295, got "x"

NaN and infinities are refused everywhere; numbers are checked against the declared ranges.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, overload

from ragcov_tui.services.options import ALL, ENV_VARS, SEED_MAX, SPECS, Option
from ragcov_tui.shared.errors import ConfigError

if TYPE_CHECKING:
    from ragcov_tui.services.analysis_job import AnalyzeOptions
    from ragcov_tui.services.eval_job import EvalOptions
    from ragcov_tui.services.references_job import ReferenceOptions

__all__ = ["ALL", "ENV_VARS", "SEED_MAX", "SPECS", "OptionsCommand", "Resolved", "Source", "options_from", "resolve"]


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


def toml_sources(
    sections: Mapping[str, Mapping[str, Any]], values: Mapping[str, Any], path: str, command: str
) -> list[Source]:
    """The ``[command]`` table, then the top level, of a ``ragcov.toml`` read from ``path``."""
    return [
        Source(dict(sections.get(command, {})), lambda key: f"{path} [{command}] {key}", False),
        Source(dict(values), lambda key: f"{path} {key}", False),
    ]


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


OptionsCommand = Literal["analyze", "lint", "eval", "references"]


@overload
def options_from(command: Literal["analyze", "lint"], resolved: Resolved, /, **fixed: Any) -> AnalyzeOptions: ...
@overload
def options_from(command: Literal["eval"], resolved: Resolved, /, **fixed: Any) -> EvalOptions: ...
@overload
def options_from(command: Literal["references"], resolved: Resolved, /, **fixed: Any) -> ReferenceOptions: ...
@overload
def options_from(
    command: OptionsCommand, resolved: Resolved, /, **fixed: Any
) -> AnalyzeOptions | EvalOptions | ReferenceOptions: ...
def options_from(
    command: OptionsCommand, resolved: Resolved, /, **fixed: Any
) -> AnalyzeOptions | EvalOptions | ReferenceOptions:
    """``AnalyzeOptions`` (``analyze`` / ``lint``), ``EvalOptions`` (``eval``) or ``ReferenceOptions``
    (``references``) from settings resolved once; ``fixed`` gives the fields no setting covers
    (corpus, questions, system, name…). Fields left unset keep the dataclass's default, which is
    the declared one (:mod:`ragcov_tui.services.options`). The chunking is checked here, the one
    place, naming where each value came from."""
    import dataclasses

    from ragcov_tui.corpus.chunking import validate_chunking

    cls: type[AnalyzeOptions] | type[EvalOptions] | type[ReferenceOptions]
    if command in ("analyze", "lint"):
        from ragcov_tui.services.analysis_job import AnalyzeOptions

        cls = AnalyzeOptions
    elif command == "eval":
        from ragcov_tui.services.eval_job import EvalOptions

        cls = EvalOptions
    else:
        from ragcov_tui.services.references_job import ReferenceOptions

        cls = ReferenceOptions
    fields = {f.name: f for f in dataclasses.fields(cls)}
    values = {k: v for k, v in resolved.values.items() if k in fields}
    if "chunk_size" in fields:
        size, overlap = (values.get(k, fields[k].default) for k in ("chunk_size", "chunk_overlap"))
        validate_chunking(
            size, overlap, resolved.origin.get("chunk_size", "the default chunk size"), resolved.where("chunk_overlap")
        )
    if command == "eval":  # the judge defaults to the system's LLM, the paraphraser to the judge
        values.setdefault("judge_llm", values.get("llm"))
        values.setdefault("paraphrase_llm", values["judge_llm"])
    return cls(**{k: v for k, v in fixed.items() if k in fields and k not in values and v is not None}, **values)


def parse_value(spec: Option, value: Any, where: str, is_text: bool) -> Any:
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
                warnings.append(
                    f"{path} [{section}]: '{key}' is not an option of {section} (only of "
                    f"{', '.join(SPECS[key].commands)}); ignored"
                )
    return warnings
