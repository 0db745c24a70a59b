"""From parsed ``ragcov`` arguments to checked settings, before any work starts.

Thin glue over :mod:`ragcov_tui.services.settings`: the flags, the environment and ``ragcov.toml`` become
typed options (one line naming the flag, variable or key when a value is wrong), the session
database path and where it came from, and the output paths (``--json`` / ``--markdown``) are
checked up front — a folder, an input file (test file, corpus file, qrels, the database) or a
place that cannot be written is refused before the run, not after it.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, overload

from ragcov_tui.cli.progress_lines import progress_every
from ragcov_tui.llm.cost import user_prices
from ragcov_tui.services.config import Config, load_config
from ragcov_tui.services.settings import OptionsCommand, Resolved, options_from, resolve
from ragcov_tui.shared.errors import BadInput
from ragcov_tui.shared.http_retry import RetryPolicy
from ragcov_tui.shared.input_files import LINK_LOOP, path_problem, resolved
from ragcov_tui.store.db import DEFAULT_DB, busy_timeout
from ragcov_tui.store.sessions import resolve_session

if TYPE_CHECKING:
    from ragcov_tui.services.analysis_job import AnalyzeOptions
    from ragcov_tui.services.eval_job import EvalOptions
    from ragcov_tui.services.references_job import ReferenceOptions

OUTPUT_FLAGS = ("json", "markdown", "html", "junit", "out")


@dataclass
class Setup:
    """What every command starts from: the settings file, every option of the command resolved
    once (flag > env > ``ragcov.toml``, typed and checked) and the session database."""

    config: Config
    resolved: Resolved
    db_path: str
    db_where: str  # the flag, variable or ragcov.toml key the path came from, for messages

    def setting(self, key: str) -> Any:
        """One checked setting of the command, ``None`` when no source sets it."""
        return self.resolved.values.get(key)


def setup(args: argparse.Namespace, warn: Callable[[str], None] | None) -> Setup:
    """Read ``ragcov.toml``, warn once per unknown key, resolve and check every option of the
    command (the only time a run resolves them) and the ``RAGCOV_*`` tuning variables, and the
    database path (``--db`` > ``$RAGCOV_DB`` > ``ragcov.toml`` > ``.ragcov/ragcov.db``)."""
    cfg = load_config(args.config)
    for line in cfg.warnings():
        if warn is not None:
            warn(line)
    RetryPolicy()  # reads and checks $RAGCOV_RETRY_ATTEMPTS / _BASE_DELAY / $RAGCOV_HTTP_TIMEOUT / _IDLE_TIMEOUT now
    busy_timeout()  # checks $RAGCOV_DB_TIMEOUT
    user_prices()  # checks $RAGCOV_PRICE_PER_MTOK
    progress_every()  # checks $RAGCOV_PROGRESS_EVERY
    resolved = resolve(args.command, cfg.sources(args.command, vars(args)))
    path = resolved.values.get("db") or str(DEFAULT_DB)
    return Setup(cfg, resolved, path, resolved.origin.get("db", "--db"))


@overload
def command_options(
    args: argparse.Namespace, found: Setup, command: Literal["analyze", "lint"], **fixed: Any
) -> AnalyzeOptions: ...
@overload
def command_options(args: argparse.Namespace, found: Setup, command: Literal["eval"], **fixed: Any) -> EvalOptions: ...
@overload
def command_options(
    args: argparse.Namespace, found: Setup, command: Literal["references"], **fixed: Any
) -> ReferenceOptions: ...
def command_options(
    args: argparse.Namespace, found: Setup, command: OptionsCommand, **fixed: Any
) -> AnalyzeOptions | EvalOptions | ReferenceOptions:
    """The options of ``command`` from the settings :func:`setup` resolved and the flags no
    setting covers, with the URLs the run will use checked now (:func:`check_urls`)."""
    opts = options_from(command, found.resolved, **{**vars(args), **fixed})
    check_urls(opts)
    return opts


def check_urls(opts: AnalyzeOptions | EvalOptions | ReferenceOptions) -> None:
    """Before any work: an ``http:`` system's URL is well formed and accepts a connection
    (``--system``), and the server address of each provider the options name is well formed (its
    registry's ``check_server``: ``$OPENAI_BASE_URL``, ``$VOYAGE_BASE_URL``, ``$ANTHROPIC_BASE_URL``,
    ``$OLLAMA_HOST``)."""
    from ragcov_tui.embeddings.providers import PROVIDERS as EMBEDDERS
    from ragcov_tui.embeddings.providers import parse_spec as embedder_spec
    from ragcov_tui.llm.providers import PROVIDERS as LLMS
    from ragcov_tui.llm.providers import parse_spec as llm_spec
    from ragcov_tui.shared.urls import check_reachable

    system = getattr(opts, "system", None) or ""
    if system.startswith("http:") or system.startswith("https://"):
        check_reachable(system if system.startswith(("http://", "https://")) else system[len("http:") :], "--system")
    embedder = getattr(opts, "embedder", None)
    checks = [EMBEDDERS[embedder_spec(embedder)[0]].check_server] if embedder else []
    for key in ("llm", "judge_llm", "paraphrase_llm"):
        parsed = llm_spec(getattr(opts, key, None))
        checks += [LLMS[parsed[0]].check_server] if parsed else []
    for check in checks:  # each provider's, from its registry: $OPENAI_BASE_URL, $OLLAMA_HOST …
        if check is not None:
            check()


def check_outputs(args: argparse.Namespace, *, inputs: Iterable[str | None] = (), db_path: str | None = None) -> None:
    """Every output flag of ``args`` (``--json`` / ``--markdown``; ``-`` is stdout) names a file that
    can be written and is none of the inputs; BadInput naming the flag otherwise."""
    outputs = [
        (f"--{name}", getattr(args, name))
        for name in OUTPUT_FLAGS
        if isinstance(getattr(args, name, None), str) and getattr(args, name) != "-"
    ]
    protected = [(str(p), "one of the inputs (test file, corpus, qrels, baseline)") for p in inputs if p]
    if getattr(args, "questions", None):
        protected.append((args.questions, "the test file (--questions)"))
    protected += [(p, "a corpus file (--corpus)") for p in (getattr(args, "corpus", None) or [])]
    if db_path:
        protected.append((db_path, "the session database"))
    seen: dict[Path, str] = {}
    for flag, raw in outputs:
        try:
            target = check_output_path(raw, flag, protected)
        except OSError as exc:  # a name too long, a loop of links…
            raise BadInput(f"{flag} {raw}: {exc.strerror or exc}") from None
        if target in seen:
            raise BadInput(f"{flag} {raw}: the same file as {seen[target]}")
        seen[target] = flag


def check_output_path(raw: str, flag: str, protected: list[tuple[str, str]]) -> Path:
    """``raw`` resolved; BadInput when it is a folder, an input (or a file inside an input folder),
    or cannot be created or written."""
    if not raw.strip():
        raise BadInput(f"{flag}: empty path")
    path = Path(raw)
    if path.is_dir():
        raise BadInput(f"{flag} {raw}: is a folder; name a file")
    if os.path.islink(path) and path_problem(path) == LINK_LOOP:
        raise BadInput(f"{flag} {raw}: {LINK_LOOP}")
    target = resolved(path)  # an input that is a link loop is not resolved here: its reader names it
    for other, what in protected:
        source = resolved(other)
        if target == source:
            raise BadInput(f"{flag} {raw}: is {what}; writing the report there would overwrite it")
        if source.is_dir() and target.is_relative_to(source) and target.exists():
            raise BadInput(f"{flag} {raw}: is {what} inside {other}; writing the report there would overwrite it")
    ancestor = next(a for a in (target, *target.parents) if a.exists() or a == a.parent)
    if ancestor != target and not ancestor.is_dir():
        raise BadInput(f"{flag} {raw}: {ancestor} is a file, not a folder")
    if not os.access(ancestor, os.W_OK):
        where = "the file is read-only" if ancestor == target else f"cannot write in {ancestor}"
        raise BadInput(f"{flag} {raw}: {where} (permission denied)")
    return target


def session_inputs(db: Any, refs: Iterable[str]) -> list[str]:
    """The test file and corpus paths of the stored sessions named by ``refs`` (refs that are no
    session, e.g. report files, give none): what ``report`` / ``compare`` outputs must not overwrite."""
    paths: list[str] = []
    for ref in refs:
        try:
            session = resolve_session(db, ref)
        except BadInput:
            continue
        paths += [p for p in [session.get("questions_path"), *(session.get("corpus") or [])] if p]
    return paths
