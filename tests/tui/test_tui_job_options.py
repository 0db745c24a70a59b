"""A rerun from the Jobs form keeps every stored setting the form does not show."""

from __future__ import annotations

from ragcov_tui.tui.screens.jobs import JobRequest, job_options


def test_analysis_rerun_keeps_engine_parameters_and_chunking() -> None:
    base = {"threshold": 0.35, "top_n": 3, "gap_threshold": 0.5, "seed": 7, "clusters": 4, "chunk_size": 300,
            "chunk_overlap": 20}
    opts = job_options(JobRequest("analysis", {"corpus": "docs", "questions": "q.jsonl", "clusters": "6"}, base=base))
    params = opts.coverage_params()
    assert (params.threshold, params.top_n, params.gap_threshold, params.seed) == (0.35, 3, 0.5, 7)
    assert params.clusters == 6  # the form wins over the stored value
    assert (opts.chunk_size, opts.chunk_overlap) == (300, 20)


def test_eval_rerun_keeps_judge_metrics_and_repeats() -> None:
    base = {"judge_llm": "openai:gpt-4o-mini", "repeats": 3, "metrics": ["ndcg@5", "faithfulness"], "k": 5,
            "resume": "abc", "name": "old"}
    opts = job_options(JobRequest("eval", {"questions": "q.jsonl", "system": "builtin:bm25", "k": "10"}, base=base))
    assert (opts.judge_llm, opts.repeats, opts.metrics) == ("openai:gpt-4o-mini", 3, ["ndcg@5", "faithfulness"])
    assert opts.k == 10 and opts.resume is None and opts.name is None


def test_no_base_gives_the_defaults() -> None:
    opts = job_options(JobRequest("analysis", {"corpus": "docs", "questions": "q.jsonl"}))
    assert opts.chunk_size == 500 and opts.extra == {}
