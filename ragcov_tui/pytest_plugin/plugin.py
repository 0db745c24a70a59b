"""The pytest plugin (entry point ``pytest11``: ``ragcov``): fixtures that run ragcov once per session.

Fixtures (each a factory, session-scoped):

- ``ragcov_eval(questions=, system=, **options)`` → :class:`~ragcov_tui.pytest_plugin.results.RagcovResults`:
  ``ragcov eval`` in process (:func:`ragcov_tui.services.eval_job.run_eval`; ``options`` are the
  fields of ``EvalOptions``: ``corpus``, ``metrics``, ``k``, ``judge_llm``, ``repeats``, …), run once
  per session for each distinct set of options, its embeddings and LLM replies cached in the
  session database like every ragcov run;
- ``ragcov_testset(path, split=)`` and ``ragcov_corpus(path, **options)``: the test set and the
  corpus as ragcov reads them (files, BEIR folders, vector stores);
- ``ragcov_references(folder, llm=, out=)``: ``ragcov references`` (a reference answer per judged query).

Options: ``--ragcov-db PATH`` (default ``$RAGCOV_DB``, else ``<rootdir>/.ragcov/ragcov.db``) and
``--ragcov-no-cache``. Under ``pytest -n`` each worker runs its own session (the cache shares the
work). This module imports pytest and the standard library only, so a pytest run that uses none of
the fixtures pays nothing for the plugin; ragcov's pipelines are imported by the first fixture call.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from ragcov_tui.pytest_plugin.results import RagcovResults

DB_ENV = "RAGCOV_DB"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("ragcov", "ragcov: RAG test sets and evaluation")
    group.addoption(
        "--ragcov-db",
        metavar="PATH",
        help="ragcov's session database and cache (default $RAGCOV_DB, else <rootdir>/.ragcov/ragcov.db)",
    )
    group.addoption(
        "--ragcov-no-cache", action="store_true", help="neither read nor write ragcov's embedding / LLM caches"
    )


def database_path(config: pytest.Config) -> Path:
    """``--ragcov-db``, else ``$RAGCOV_DB``, else ``.ragcov/ragcov.db`` under pytest's rootdir."""
    given = config.getoption("ragcov_db") or os.environ.get(DB_ENV)
    return Path(given) if given else Path(config.rootpath) / ".ragcov" / "ragcov.db"


@pytest.fixture(scope="session")
def ragcov_db(pytestconfig: pytest.Config) -> Iterator[Any]:
    """The session database (a ``sqlite_utils.Database``) every ragcov fixture writes to."""
    from ragcov_tui.store import open_db

    path = database_path(pytestconfig)
    path.parent.mkdir(parents=True, exist_ok=True)
    db = open_db(path, where="--ragcov-db", writable=True)
    yield db
    db.close()


@pytest.fixture(scope="session")
def ragcov_eval(ragcov_db: Any, pytestconfig: pytest.Config) -> Callable[..., RagcovResults]:
    """A factory: ``ragcov_eval(questions=…, system=…, **options)`` runs the eval once per session
    for each distinct set of arguments and returns its results (see the module docstring)."""
    runs: dict[str, RagcovResults] = {}
    no_cache = bool(pytestconfig.getoption("ragcov_no_cache"))

    def run(questions: str | os.PathLike[str], system: str, **options: Any) -> RagcovResults:
        from ragcov_tui.evaluation.report import all_failed, failure_note
        from ragcov_tui.services.eval_job import EvalOptions, run_eval
        from ragcov_tui.shared.errors import RagcovError

        if isinstance(options.get("corpus"), (str, os.PathLike)):
            options["corpus"] = [options["corpus"]]
        options = {"no_cache": no_cache, **options, "questions": str(questions), "system": system}
        options["corpus"] = [str(c) for c in options.get("corpus") or ()]
        key = repr(sorted(options.items()))
        if key not in runs:
            try:
                _, report = run_eval(EvalOptions(**options), ragcov_db)
            except RagcovError as exc:  # a user mistake (a bad path, flag, judge): its one line, no traceback
                pytest.fail(f"ragcov eval: {exc}", pytrace=False)
            if all_failed(report):
                pytest.fail(f"ragcov eval: nothing to score: {failure_note(report)}", pytrace=False)
            runs[key] = RagcovResults(report)
        return runs[key]

    return run


@pytest.fixture(scope="session")
def ragcov_testset() -> Callable[..., Any]:
    """A factory: ``ragcov_testset(path, split="test")`` → the ``TestSet`` ragcov reads there."""
    from ragcov_tui.pytest_plugin.testsets import load_testset

    return load_testset


@pytest.fixture(scope="session")
def ragcov_corpus() -> Callable[..., Any]:
    """A factory: ``ragcov_corpus(path, **options)`` → the corpus' documents and chunks."""
    from ragcov_tui.pytest_plugin.testsets import load_corpus

    return load_corpus


@pytest.fixture(scope="session")
def ragcov_references(ragcov_db: Any, pytestconfig: pytest.Config) -> Callable[..., Path]:
    """A factory: ``ragcov_references(folder, llm="openai:MODEL", out=PATH, **options)`` writes the
    reference answers of a BEIR folder's judged queries (``ragcov references``) once per session
    and returns the file (a test file ``ragcov_eval`` reads)."""
    made: dict[str, Path] = {}
    no_cache = bool(pytestconfig.getoption("ragcov_no_cache"))

    def write(folder: str | os.PathLike[str], llm: str, out: str | os.PathLike[str], **options: Any) -> Path:
        from ragcov_tui.services.references_job import ReferenceOptions, write_references

        opts = ReferenceOptions(questions=str(folder), llm=llm, out=str(out), no_cache=no_cache, **options)
        key = repr(sorted(vars(opts).items()))
        if key not in made:
            from ragcov_tui.shared.errors import RagcovError

            try:
                write_references(opts, ragcov_db)
            except RagcovError as exc:
                pytest.fail(f"ragcov references: {exc}", pytrace=False)
            made[key] = Path(out)
        return made[key]

    return write
