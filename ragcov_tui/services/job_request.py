"""A job asked for from a form (the app's Jobs pane): what to run, and the options it becomes.

The form's fields are the declared options that have a form part
(:func:`ragcov_tui.services.options.form_fields`); their text goes through the same merge as the
CLI's flags (:func:`ragcov_tui.services.settings.options_from`): a filled field, else the stored value of the
session being rerun, else ``$RAGCOV_*``, else ``ragcov.toml``, else the default. A rerun keeps every
setting the form does not show (threshold, chunk size, metrics, judge…) from the session it was
prefilled from; the fields in :data:`FORM_ONLY` come from the form alone.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ragcov_tui.services.config import load_config
from ragcov_tui.services.options import FORM_SYSTEM
from ragcov_tui.services.settings import SPECS, Source, flag_source, options_from, resolve
from ragcov_tui.shared.errors import BadInput

if TYPE_CHECKING:
    from ragcov_tui.services.analysis_job import AnalyzeOptions
    from ragcov_tui.services.eval_job import EvalOptions

FORM_ONLY = {"questions", "system", "corpus", "embedder", "llm", "k", "name", "resume"}  # never from ``base``


@dataclass
class JobRequest:
    """What the form asks for: the kind of job (``analysis`` / ``eval``), the raw text of each field,
    and the stored parameters of the session the form was prefilled from (``base``); ``resume``:
    the eval session to continue instead of starting a new one."""

    kind: str
    fields: dict[str, str]
    base: dict[str, Any] = field(default_factory=dict)
    resume: str | None = None


def form_options(request: JobRequest, label: Callable[[str], str]) -> AnalyzeOptions | EvalOptions:
    """The request as the core's ``AnalyzeOptions`` (kind ``analysis``) / ``EvalOptions`` (``eval``),
    its settings resolved once. BadInput names the field (``label(key)``: its name on the form),
    the variable or the file's key holding a bad value."""
    from ragcov_tui.coverage.params import CoverageParams

    f = {k: v.strip() for k, v in request.fields.items()}
    if not f.get("questions"):
        raise BadInput(f"{label('questions')}: required")
    form = flag_source({k: v or None for k, v in f.items()}, label)
    base = {k: v for k, v in request.base.items() if v is not None and k not in FORM_ONLY and k not in f}
    rerun = Source(base, lambda key: f"the rerun session's {key}", False)
    corpus = [p.strip() for p in f.get("corpus", "").split(",") if p.strip()]
    fixed: dict[str, Any] = {"corpus": corpus, "questions": f["questions"], "name": f.get("name") or None}
    if request.kind == "analysis":
        engine = {field.name for field in dataclasses.fields(CoverageParams)}
        fixed["extra"] = {k: v for k, v in base.items() if k in engine and k not in SPECS}
        return options_from(
            "analyze", resolve("analyze", [form, rerun, *load_config().sources("analyze")[1:]]), **fixed
        )
    fixed["system"] = f.get("system") or FORM_SYSTEM
    fixed["resume"] = request.resume
    fixed |= {k: v for k, v in base.items() if k not in SPECS}
    return options_from("eval", resolve("eval", [form, rerun, *load_config().sources("eval")[1:]]), **fixed)
