"""A rerun from the Jobs form keeps every stored setting the form does not show; the form goes
through the CLI's settings merge, so a bad value names the field, the rerun session or the variable."""

from __future__ import annotations

import pytest

from ragcov_tui.services.analysis_job import AnalyzeOptions
from ragcov_tui.services.eval_job import EvalOptions
from ragcov_tui.shared.errors import BadInput
from ragcov_tui.tui.panes.jobs import JobRequest, job_options


def test_analysis_rerun_keeps_engine_parameters_and_chunking() -> None:
    base = {
        "threshold": 0.35,
        "top_n": 3,
        "gap_threshold": 0.5,
        "seed": 7,
        "clusters": 4,
        "chunk_size": 300,
        "chunk_overlap": 20,
    }
    opts = job_options(JobRequest("analysis", {"corpus": "docs", "questions": "q.jsonl", "clusters": "6"}, base=base))
    assert isinstance(opts, AnalyzeOptions)
    params = opts.coverage_params()
    assert (params.threshold, params.top_n, params.gap_threshold, params.seed) == (0.35, 3, 0.5, 7)
    assert params.clusters == 6  # the form wins over the stored value
    assert (opts.chunk_size, opts.chunk_overlap) == (300, 20)


def test_eval_rerun_keeps_judge_metrics_and_repeats() -> None:
    base = {
        "judge_llm": "openai:gpt-4o-mini",
        "repeats": 3,
        "metrics": ["ndcg@5", "faithfulness"],
        "k": 5,
        "resume": "abc",
        "name": "old",
    }
    opts = job_options(JobRequest("eval", {"questions": "q.jsonl", "system": "builtin:bm25", "k": "10"}, base=base))
    assert isinstance(opts, EvalOptions)
    assert (opts.judge_llm, opts.repeats, opts.metrics) == ("openai:gpt-4o-mini", 3, ["ndcg@5", "faithfulness"])
    assert opts.k == 10 and opts.resume is None and opts.name is None


def test_no_base_gives_the_defaults() -> None:
    opts = job_options(JobRequest("analysis", {"corpus": "docs", "questions": "q.jsonl"}))
    assert isinstance(opts, AnalyzeOptions) and opts.chunk_size == 500 and opts.extra == {}


@pytest.mark.parametrize(
    "kind, fields, base, env, needle",
    [
        ("analysis", {"clusters": "zero"}, {}, {}, "clusters (K): expected 'auto' or a whole number"),
        ("analysis", {"clusters": "-3"}, {}, {}, "clusters (K):"),
        ("eval", {"k": "0"}, {}, {}, "k (chunks retrieved): expected a whole number from 1"),
        ("eval", {"k": "nan"}, {}, {}, "k (chunks retrieved):"),
        ("analysis", {}, {"threshold": "x"}, {}, "the rerun session's threshold: expected a number"),
        ("analysis", {}, {"seed": -1}, {}, "the rerun session's seed"),
        ("eval", {}, {"repeats": 0}, {}, "the rerun session's repeats"),
        ("analysis", {}, {}, {"RAGCOV_CONCURRENCY": "many"}, "$RAGCOV_CONCURRENCY:"),
        ("eval", {}, {}, {"RAGCOV_CONCURRENCY": "inf"}, "$RAGCOV_CONCURRENCY:"),
        ("eval", {}, {}, {"RAGCOV_EMBEDDER": "5"}, "$RAGCOV_EMBEDDER: unknown embedder '5'"),
        ("analysis", {"embedder": "openai:"}, {}, {}, "embedder: embedder 'openai:': name the model"),
        ("eval", {"llm": "gpt-4o"}, {}, {}, "LLM: unknown LLM 'gpt-4o'"),
    ],
)
def test_a_bad_value_names_the_form_field_the_rerun_session_or_the_variable(
    kind, fields, base, env, needle, monkeypatch, tmp_path
) -> None:
    monkeypatch.chdir(tmp_path)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    form = {
        "corpus": "docs",
        "questions": "q.jsonl",
        **({"system": "builtin:bm25"} if kind == "eval" else {}),
        **fields,
    }
    with pytest.raises(BadInput) as err:
        job_options(JobRequest(kind, form, base=base))
    assert str(err.value).startswith(needle)


def test_the_form_reads_ragcov_toml_below_its_fields(monkeypatch, tmp_path) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ragcov.toml").write_text("[eval]\nrepeats = 2\nk = 7\n")
    opts = job_options(JobRequest("eval", {"questions": "q.jsonl", "system": "builtin:bm25", "k": ""}))
    assert isinstance(opts, EvalOptions) and (opts.repeats, opts.k) == (2, 7)
    (tmp_path / "ragcov.toml").write_text('[eval]\nrepeats = "2"\n')
    with pytest.raises(BadInput, match=r"ragcov.toml \[eval\] repeats"):
        job_options(JobRequest("eval", {"questions": "q.jsonl", "system": "builtin:bm25"}))
