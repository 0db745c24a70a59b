"""The JSON reports follow their TypedDicts key for key: the types are the written-down contract.

Real runs on sample_data/ (the fast ``hash`` embedder; outputs in tmp_path, nothing written into
sample_data/), each checked against its type:

- ``analyze --traffic --json``, ``report --json`` (reassembled from the store) and ``analyze --llm``
  (themes from an LLM on a local fake server for one gap, the heuristic's for the rest):
  ``store.analysis_contract.AnalysisReport``;
- ``eval --json`` (plain, ``--repeats 2``, dense, judged by an LLM on a local fake server, a
  ``records:`` file joined by position, with and without ``--corpus`` (retrieval not measured),
  gold ids from reference contexts):
  ``store.eval_contract.EvalReport``;
- ``compare --json``: ``evaluation.compare_contract.Comparison``;
- the session rows (``sessions --json``): ``store.rows.SessionRow``; an eval's stored items:
  ``store.eval_contract.StoredItem``.

Recursively through nested TypedDicts, lists and dicts of them: every required key present, no key
the type does not name (``NotRequired`` ones may be absent), and each value of the JSON type its
annotation says (str / int / float / bool / None / list / dict).
"""

from __future__ import annotations

import json
import types
from collections.abc import Callable
from typing import Any, Literal, NotRequired, Required, Union, get_args, get_origin, get_type_hints, is_typeddict

import pytest

from ragcov_tui.evaluation.compare_contract import Comparison
from ragcov_tui.llm.cost import PRICE_ENV
from ragcov_tui.store.analysis_contract import AnalysisReport, Redundancy
from ragcov_tui.store.db import open_db
from ragcov_tui.store.eval_contract import EvalReport, ItemError, MetricStats, StoredItem
from ragcov_tui.store.evals import load_eval_items
from ragcov_tui.store.rows import SessionRow
from ragcov_tui.store.sessions import list_sessions
from tests.cli.conftest import CORPUS, QUESTIONS, SAMPLE, run_cli
from tests.evaluation.generation.gen_fake_judge import RuleJudge
from tests.support.fake_api import FakeAPIServer, api_env

SCALARS: dict[Any, tuple[type, ...]] = {str: (str,), bool: (bool,), int: (int,), float: (int, float)}


def problems(value: Any, annotation: Any, path: str = "$") -> list[str]:
    """Where ``value`` (parsed JSON) departs from ``annotation``; [] when it follows it."""
    origin = get_origin(annotation)
    if origin in (NotRequired, Required):
        return problems(value, get_args(annotation)[0], path)
    if annotation is Any:
        return []
    if annotation is None or annotation is type(None):
        return [] if value is None else [f"{path}: {value!r} is not null"]
    if origin in (Union, types.UnionType):
        found = [problems(value, arm, path) for arm in get_args(annotation)]
        return [] if any(not p for p in found) else min(found, key=len)
    if is_typeddict(annotation):
        if not isinstance(value, dict):
            return [f"{path}: {type(value).__name__} where {annotation.__name__} is expected"]
        hints = get_type_hints(annotation, include_extras=True)
        out = [
            f"{path}: missing key {k!r} ({annotation.__name__})"
            for k in sorted(annotation.__required_keys__ - value.keys())
        ]
        out += [f"{path}: unknown key {k!r} ({annotation.__name__})" for k in sorted(value.keys() - hints.keys())]
        for key in value.keys() & hints.keys():
            out += problems(value[key], hints[key], f"{path}.{key}")
        return out
    if origin is list:
        if not isinstance(value, list):
            return [f"{path}: {type(value).__name__} where a list is expected"]
        return [p for i, v in enumerate(value) for p in problems(v, get_args(annotation)[0], f"{path}[{i}]")]
    if origin is dict:
        if not isinstance(value, dict):
            return [f"{path}: {type(value).__name__} where a dict is expected"]
        key_type, value_type = get_args(annotation)
        out = [p for k in value for p in problems(k, key_type, f"{path} key {k!r}")]
        return out + [p for k, v in value.items() for p in problems(v, value_type, f"{path}.{k}")]
    if origin is Literal:
        allowed = get_args(annotation)
        return (
            []
            if value in allowed and type(value) in {type(a) for a in allowed}
            else [f"{path}: {value!r} is not one of {allowed}"]
        )
    if annotation in SCALARS:
        ok = isinstance(value, SCALARS[annotation]) and (annotation is bool or not isinstance(value, bool))
        return [] if ok else [f"{path}: {value!r} is not a {annotation.__name__}"]
    raise TypeError(f"{path}: annotation {annotation!r} is not a JSON type the check knows")


def themes_once() -> Callable[[list[dict], dict], str]:
    """A chat handler that answers the first theme request well and every later one with junk."""
    asked: list[int] = []

    def reply(messages: list[dict], body: dict) -> str:
        asked.append(1)
        if len(asked) == 1:
            return json.dumps({"themes": ["Billing", "Plans"], "questions": ["How is a plan billed?"] * 3})
        return json.dumps({"echo": "no themes"})

    return reply


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One analysis (with traffic) and three evals of sample_data, their JSON outputs read back."""
    tmp = tmp_path_factory.mktemp("contracts")
    db = str(tmp / "ragcov.db")
    out: dict[str, Any] = {}

    def json_of(name: str, *argv: str) -> Any:
        path = tmp / f"{name}.json"
        assert run_cli(*argv, "--quiet", "--db", db, "--json", str(path)) == 0, name
        out[name] = json.loads(path.read_text())
        return out[name]

    analysis = json_of(
        "analyze",
        "analyze",
        "--corpus",
        str(CORPUS),
        "--questions",
        str(QUESTIONS),
        "--embedder",
        "hash",
        "--traffic",
        str(SAMPLE / "traffic.jsonl"),
    )
    json_of("report", "report", analysis["session_id"])
    evals = ["eval", "--questions", str(QUESTIONS), "--corpus", str(CORPUS), "--embedder", "hash"]
    bm25 = json_of("eval", *evals, "--system", "builtin:bm25", "--probes", "3")
    json_of(
        "analyze_exercised",
        "analyze",
        "--corpus",
        str(CORPUS),
        "--questions",
        str(QUESTIONS),
        "--embedder",
        "hash",
        "--traffic",
        str(SAMPLE / "traffic.jsonl"),
        "--eval-session",
        bm25["session_id"],
    )
    json_of("eval_repeats", *evals, "--system", "builtin:bm25", "--repeats", "2", "--metrics", "faithfulness,hit@5")
    dense = json_of("eval_dense", *evals, "--system", "builtin:dense")
    json_of("compare", "compare", bm25["session_id"], dense["session_id"])
    rows = [json.loads(line) for line in QUESTIONS.read_text().splitlines() if line.strip()]
    answers = tmp / "agent_answer.json"  # a records: file without ids (RAGET's layout), joined by position
    answers.write_text(json.dumps([{"message": r["ground_truth"], "documents": [r["ground_truth"]]} for r in rows]))
    json_of(
        "eval_records",
        "eval",
        "--questions",
        str(QUESTIONS),
        "--corpus",
        str(CORPUS),
        "--embedder",
        "hash",
        "--system",
        f"records:{answers}",
        "--join",
        "order",
        "--metrics",
        "retrieval",
    )
    json_of(
        "eval_records_texts",
        "eval",
        "--questions",
        str(QUESTIONS),
        "--embedder",
        "hash",  # no --corpus:
        "--system",
        f"records:{answers}",
        "--join",
        "order",
        "--metrics",
        "hit@5,keyword_coverage",
    )  # not measured
    ragas = tmp / "ragas.jsonl"  # no gold ids: reference contexts give them
    ragas.write_text(
        "".join(
            json.dumps(
                {"user_input": r["question"], "reference": r["ground_truth"], "reference_contexts": [r["ground_truth"]]}
            )
            + "\n"
            for r in rows
        )
    )
    json_of(
        "eval_contexts",
        "eval",
        "--questions",
        str(ragas),
        "--corpus",
        str(CORPUS),
        "--embedder",
        "hash",
        "--system",
        "builtin:bm25",
        "--metrics",
        "retrieval",
    )
    with FakeAPIServer() as server, pytest.MonkeyPatch.context() as env:  # an LLM judge on 127.0.0.1
        api_env(env, server)
        env.delenv(PRICE_ENV, raising=False)
        server.chat_handler = RuleJudge()
        json_of(
            "eval_judged",
            *evals,
            "--system",
            "builtin:bm25",
            "--judge-llm",
            "openai:gpt-4o-mini",
            "--metrics",
            "faithfulness,answer_correctness,robustness,hit@5",
            "--paraphrases",
            "1",
        )
        server.chat_handler = themes_once()  # one gap gets LLM themes, the others fall back to the heuristic
        json_of(
            "analyze_llm",
            "analyze",
            "--corpus",
            str(CORPUS),
            "--questions",
            str(QUESTIONS),
            "--embedder",
            "hash",
            "--llm",
            "openai:gpt-4o-mini",
            "--allow-fallback",
            "--gap-threshold",
            "0.99",
        )  # every cluster a gap
    store = open_db(db)
    out["sessions"] = json.loads(json.dumps(list_sessions(store)))  # what `ragcov sessions --json` prints
    out["items"] = json.loads(json.dumps(load_eval_items(store, bm25["session_id"])))
    return out


CONTRACTS = [
    ("analyze", AnalysisReport),
    ("report", AnalysisReport),
    ("analyze_llm", AnalysisReport),
    ("analyze_exercised", AnalysisReport),
    ("eval", EvalReport),
    ("eval_repeats", EvalReport),
    ("eval_dense", EvalReport),
    ("eval_judged", EvalReport),
    ("eval_records", EvalReport),
    ("eval_records_texts", EvalReport),
    ("eval_contexts", EvalReport),
    ("compare", Comparison),
    ("sessions", list[SessionRow]),
    ("items", list[StoredItem]),
]


@pytest.mark.slow
@pytest.mark.parametrize(("run", "contract"), CONTRACTS, ids=[name for name, _ in CONTRACTS])
def test_json_output_follows_its_typeddict(runs: dict[str, Any], run: str, contract: Any) -> None:
    assert problems(runs[run], contract) == []


@pytest.mark.slow
def test_the_runs_reach_the_optional_parts(runs: dict[str, Any]) -> None:
    """The optional keys and nullable values the contracts name are really exercised above."""
    analysis, stored = runs["analyze"], runs["report"]
    for report in (analysis, stored):
        assert {"question_details", "chunk_details", "llm", "timings", "usage", "traffic"} <= report.keys()
        assert report["traffic"]["details"] and report["gaps"] and report["gaps"][0]["suggested_questions"]
    assert all(q["questions"] for q in (runs["eval"], runs["eval_repeats"]))
    assert all("judge_spread" in s for s in runs["eval_repeats"]["aggregate"]["generation"].values())
    assert not any("judge_spread" in s for s in runs["eval"]["aggregate"]["generation"].values())
    assert any(q["paraphrases"] for q in runs["eval"]["questions"]) and runs["compare"]["metrics"]
    themed = runs["analyze_llm"]
    assert (
        themed["llm_fallback"]
        and themed["usage"]["llm"]
        and any(  # LLM suggestions carry no chunk_id / form
            "chunk_id" not in s for g in themed["gaps"] for s in g["suggested_questions"]
        )
    )
    assert runs["eval_records"]["records_join"] and runs["eval_contexts"]["gold_from_contexts"]
    assert runs["eval_records_texts"]["retrieval_not_measured"]
    exercised = runs["analyze_exercised"]["exercised"]
    assert runs["eval"]["probes"]["asked"] and exercised["probes"] and exercised["traffic_queries"]
    assert all("fixes" in s for g in runs["analyze_exercised"]["gaps"] for s in g["suggested_questions"])
    judged = runs["eval_judged"]
    assert judged["judge"] == "llm:openai:gpt-4o-mini" and judged["usage"]["llm"]["openai:gpt-4o-mini"]["calls"]


REDUNDANCY = {"threshold": 0.05, "pairs": [], "epsilon": 0.0, "removal_impact": {}, "removable": []}
BAD: list[tuple[str, Any, Any, str]] = [
    ("missing key", {"id": "q1"}, ItemError, "missing key 'error'"),
    ("unknown key", {"id": "q1", "error": "x", "extra": 1}, ItemError, "unknown key 'extra'"),
    ("optional key of the wrong type", {"id": "q1", "error": "x", "metric": 3}, ItemError, "$.metric: 3 is not a str"),
    ("null where a str is required", {"id": None, "error": "x"}, ItemError, "$.id: None is not a str"),
    ("bool where an int is required", {"mean": None, "n": True, "std": None}, MetricStats, "$.n: True is not a int"),
    (
        "str where a float is expected",
        {"mean": "0.5", "n": 1, "std": None},
        MetricStats,
        "$.mean: '0.5' is not a float",
    ),
    ("int is a JSON float", {"mean": 1, "n": 1, "std": 0}, MetricStats, ""),
    (
        "key missing in a list item",
        {**REDUNDANCY, "pairs": [{"a": "q1", "b": "q2"}]},
        Redundancy,
        "$.pairs[0]: missing key 'distance'",
    ),
    (
        "dict value of the wrong type",
        {**REDUNDANCY, "removal_impact": {"q1": "x"}},
        Redundancy,
        "$.removal_impact.q1: 'x' is not a float",
    ),
    ("list where a dict is expected", {**REDUNDANCY, "removal_impact": []}, Redundancy, "where a dict is expected"),
    ("not an object", [], MetricStats, "list where MetricStats is expected"),
]


@pytest.mark.parametrize(("case", "value", "contract", "expected"), BAD, ids=[b[0] for b in BAD])
def test_the_check_catches_a_departure(case: str, value: Any, contract: Any, expected: str) -> None:
    found = problems(value, contract)
    assert any(expected in p for p in found) if expected else found == [], found


def annotations_in(annotation: Any) -> list[Any]:
    """Every annotation reachable from ``annotation`` (through TypedDict keys, unions, lists, dicts)."""
    if is_typeddict(annotation):
        return [annotation] + [
            a for hint in get_type_hints(annotation, include_extras=True).values() for a in annotations_in(hint)
        ]
    if get_origin(annotation) is Literal:  # its arguments are values, not annotations
        return [annotation]
    return [annotation] + [a for arg in get_args(annotation) for a in annotations_in(arg)]


@pytest.mark.parametrize(
    "contract", [AnalysisReport, EvalReport, Comparison, SessionRow, StoredItem], ids=lambda c: c.__name__
)
def test_every_annotation_of_a_contract_is_a_json_type(contract: Any) -> None:
    """No set, tuple, dataclass or numpy type hides in a contract: the check knows every annotation."""
    for annotation in annotations_in(contract):
        problems(None, annotation)  # raises TypeError for an annotation the check does not know
