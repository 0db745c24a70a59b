"""Judge preflight (issue #26 §5): before a judged run, one probe with a known answer; a junk
judge stops the run within seconds with exit 2 and one line, ``--no-preflight`` skips the probe,
and the probe is cached like every call."""

from __future__ import annotations

import time
from pathlib import Path

from ragcov_tui.cli.main import main
from tests.evaluation.conftest import judge_server  # noqa: F401 (the fake OpenAI judge fixture)
from tests.evaluation.generation.gen_fake_judge import kind_of

REPO = Path(__file__).resolve().parents[2]
QUESTIONS = REPO / "sample_data" / "questions.jsonl"
CORPUS = REPO / "sample_data" / "corpus"


def run_eval(tmp: Path, *extra: str) -> int:
    return main(
        [
            "eval",
            "--db",
            str(tmp / "r.db"),
            "--questions",
            str(QUESTIONS),
            "--corpus",
            str(CORPUS),
            "--system",
            "builtin:bm25",
            "--embedder",
            "hash",
            "--judge-llm",
            "openai:gpt-4o-mini",
            "--metrics",
            "faithfulness",
            "--quiet",
            *extra,
        ]
    )


def probes(server) -> int:
    return sum(
        kind_of(r.body["messages"][0]["content"]) == "verify" and "probe#0" in r.body["messages"][1]["content"]
        for r in server.requests
        if r.path.endswith("/chat/completions")
    )


def test_a_junk_judge_stops_the_run_in_seconds_with_one_line(
    judge_server,  # noqa: F811
    tmp_path: Path,
    capsys,
) -> None:
    judge_server.chat_handler = lambda messages, body: "I think it is fine."
    start = time.perf_counter()
    assert run_eval(tmp_path) == 2
    assert time.perf_counter() - start < 5
    err = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert len(err) == 1 and "judge preflight failed for openai:gpt-4o-mini" in err[0] and "--no-preflight" in err[0]
    assert judge_server.count("/chat/completions") == 2  # the probe and its one repair turn, no item


def test_a_judge_with_wrong_verdicts_stops_the_run(
    judge_server,  # noqa: F811
    tmp_path: Path,
    capsys,
) -> None:
    judge_server.chat_handler = lambda messages, body: (
        '{"verdicts": [{"claim": 1, "verdict": "supported"}, {"claim": 2, "verdict": "supported"}]}'
    )
    assert run_eval(tmp_path) == 2
    assert "verdicts supported, supported where supported, not supported was expected" in capsys.readouterr().err


def test_no_preflight_skips_the_probe_and_a_good_judge_is_probed_once(
    judge_server,  # noqa: F811
    tmp_path: Path,
) -> None:
    assert run_eval(tmp_path, "--no-preflight") == 0
    assert probes(judge_server) == 0
    assert run_eval(tmp_path) == 0 and probes(judge_server) == 1
    assert run_eval(tmp_path) == 0 and probes(judge_server) == 1  # the second run's probe is a cache hit
