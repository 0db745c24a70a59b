"""Hostile input, round 3 (issue #23 §1–4, §7), end to end: each bad input is exit 2 with ONE line
on stderr naming the file, line or field (or setting) at fault, nothing written (the ``--json``
report does not exist) and no session left ``running``; the extreme values that are accepted give
the right figure. The shapes are generated in ``tests/property/test_property_hostile_shapes.py``;
here each of the issue's cases runs through ``ragcov`` once.
"""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import struct
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ragcov_tui.evaluation.retrieval import Ranked, ndcg_at_k
from ragcov_tui.shared.input_values import EMBED_TEXT_CHARS
from ragcov_tui.testset.reader import read_testset
from ragcov_tui.traffic.reader import read_traffic
from tests.cli.conftest import CORPUS, QUESTIONS, run_cli
from tests.cli.test_cli_bad_input import one_line_error
from tests.support.deadline import call_within


@pytest.fixture(autouse=True)
def clean_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith(("RAGCOV_", "OPENAI_", "VOYAGE_")):
            monkeypatch.delenv(name)
    monkeypatch.setenv("RAGCOV_RETRY_ATTEMPTS", "1")
    monkeypatch.chdir(tmp_path)


def beir(root: Path, queries: bytes, qrels: bytes = b"1\td1\t1\n") -> Path:
    (root / "qrels").mkdir(parents=True)
    (root / "corpus.jsonl").write_text('{"_id": "d1", "text": "alpha beta"}\n{"_id": "d2", "text": "gamma delta"}\n')
    (root / "queries.jsonl").write_bytes(queries)
    (root / "qrels" / "test.tsv").write_bytes(qrels)
    return root


def _dup(t: Path) -> list[str]:
    folder = beir(t / "b", b'{"_id": 1, "text": "what is alpha"}\n{"_id": "1", "text": "what is gamma"}\n')
    return ["eval", "--questions", str(folder), "--system", "builtin:bm25"]


def _bad_query_bytes(t: Path) -> list[str]:
    folder = beir(t / "b", b'{"_id": "1", "text": "what is alpha"}\n{"_id": "2", "text": "what \xff is"}\n')
    return ["eval", "--questions", str(folder), "--system", "builtin:bm25"]


def _bad_qrels_bytes(t: Path) -> list[str]:
    folder = beir(t / "b", b'{"_id": "1", "text": "what is alpha"}\n', b"1\td1\t1\n1\td2\xfe\t1\n")
    return ["eval", "--questions", str(folder), "--system", "builtin:bm25"]


def _fifo_queries(t: Path) -> list[str]:
    folder = beir(t / "b", b"")
    (folder / "queries.jsonl").unlink()
    os.mkfifo(folder / "queries.jsonl")
    return ["eval", "--questions", str(folder), "--system", "builtin:bm25"]


def _fifo_qrels(t: Path) -> list[str]:
    folder = beir(t / "b", b'{"_id": "1", "text": "what is alpha"}\n')
    (folder / "qrels" / "test.tsv").unlink()
    os.mkfifo(folder / "qrels" / "test.tsv")
    return ["eval", "--questions", str(folder), "--system", "builtin:bm25"]


def _huge_grade(t: Path) -> list[str]:
    folder = beir(t / "b", b'{"_id": "1", "text": "what is alpha"}\n', b"1\td1\t1e308\n1\td2\t1e308\n")
    return ["eval", "--questions", str(folder), "--system", "builtin:bm25"]


def _split_with_a_file(t: Path) -> list[str]:
    return [
        "eval",
        "--questions",
        str(QUESTIONS),
        "--corpus",
        str(CORPUS),
        "--system",
        "builtin:bm25",
        "--split",
        "dev",
    ]


def _gguf(t: Path, value: bytes) -> Path:
    path = t / "m.gguf"
    path.write_bytes(b"GGUF" + struct.pack("<IQQ", 3, 0, 1) + struct.pack("<Q", 1) + b"k" + value)
    return path


def _llm(path: Path | str) -> list[str]:
    return [
        "eval",
        "--questions",
        str(QUESTIONS),
        "--corpus",
        str(CORPUS),
        "--system",
        "builtin:bm25",
        "--llm",
        f"llamacpp:{path}",
    ]


def _gguf_nested(t: Path) -> list[str]:
    return _llm(_gguf(t, struct.pack("<I", 9) + struct.pack("<IQ", 9, 1) * 3000 + struct.pack("<IQ", 4, 0)))


def _gguf_count(t: Path) -> list[str]:
    return _llm(_gguf(t, struct.pack("<IIQ", 9, 4, 2**62)))


def _gguf_fifo(t: Path) -> list[str]:
    os.mkfifo(t / "m.gguf")
    return _llm(t / "m.gguf")


def _gguf_loop(t: Path) -> list[str]:
    os.symlink("m.gguf", t / "m.gguf")
    return _llm(t / "m.gguf")


def _deep_toml(t: Path) -> list[str]:
    (t / "deep.toml").write_text("a = " + "[" * 5000 + "]" * 5000 + "\n")
    return [
        "eval",
        "--config",
        str(t / "deep.toml"),
        "--questions",
        str(QUESTIONS),
        "--corpus",
        str(CORPUS),
        "--system",
        "builtin:bm25",
    ]


def _traffic(t: Path, stamp: str) -> list[str]:
    (t / "log.jsonl").write_text(json.dumps({"query": "how do I reset my password", "timestamp": stamp}) + "\n")
    return [
        "analyze",
        "--questions",
        str(QUESTIONS),
        "--corpus",
        str(CORPUS),
        "--embedder",
        "hash",
        "--traffic",
        str(t / "log.jsonl"),
    ]


def _traffic_loop(t: Path) -> list[str]:
    os.symlink("log.jsonl", t / "log.jsonl")
    return [
        "analyze",
        "--questions",
        str(QUESTIONS),
        "--corpus",
        str(CORPUS),
        "--embedder",
        "hash",
        "--traffic",
        str(t / "log.jsonl"),
    ]


def _traffic_from_toml(t: Path) -> list[str]:
    os.mkfifo(t / "log.jsonl")
    (t / "ragcov.toml").write_text('[analyze]\ntraffic = "log.jsonl"\n')
    return ["analyze", "--questions", str(QUESTIONS), "--corpus", str(CORPUS), "--embedder", "hash"]


def _input_loop_with_json(t: Path) -> list[str]:
    os.symlink("loop.jsonl", t / "loop.jsonl")
    return ["analyze", "--questions", str(t / "loop.jsonl"), "--corpus", str(CORPUS), "--embedder", "hash"]


def _output_loop(t: Path) -> list[str]:
    os.symlink("out.json", t / "out.json")
    return [
        "analyze",
        "--questions",
        str(QUESTIONS),
        "--corpus",
        str(CORPUS),
        "--embedder",
        "hash",
        "--markdown",
        str(t / "out.json"),
    ]


def _tuple_key(t: Path) -> list[str]:
    (t / "t.csv").write_text('question,relevant_doc_ids\nWhat is SSO?,"{(1, 2): 1}"\n')
    return ["eval", "--questions", str(t / "t.csv"), "--corpus", str(CORPUS), "--system", "builtin:bm25"]


def _gate(spec: str) -> Callable[[Path], list[str]]:
    return lambda t: [
        "analyze",
        "--questions",
        str(QUESTIONS),
        "--corpus",
        str(CORPUS),
        "--embedder",
        "hash",
        "--fail-under",
        spec,
    ]


def _eval_gate(spec: str) -> Callable[[Path], list[str]]:
    return lambda t: [
        "eval",
        "--questions",
        str(QUESTIONS),
        "--corpus",
        str(CORPUS),
        "--system",
        "builtin:bm25",
        "--fail-under",
        spec,
    ]


def _nan(field: str, value: str) -> Callable[[Path], list[str]]:
    def make(t: Path) -> list[str]:
        (t / "t.jsonl").write_text(f'{{"question": "What is SSO?", "{field}": {value}}}\n')
        return ["eval", "--questions", str(t / "t.jsonl"), "--corpus", str(CORPUS), "--system", "builtin:bm25"]

    return make


def _test_file_ids(t: Path) -> list[str]:
    (t / "t.jsonl").write_text('{"id": 1, "question": "What is SSO?"}\n{"id": " 1", "question": "What is SCIM?"}\n')
    return ["eval", "--questions", str(t / "t.jsonl"), "--corpus", str(CORPUS), "--system", "builtin:bm25"]


def _closed_port(t: Path) -> tuple[list[str], dict[str, str]]:
    with socket.socket() as s:  # a port nobody listens on: bound, never listening, then closed
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return (
        [
            "analyze",
            "--questions",
            str(QUESTIONS),
            "--corpus",
            str(CORPUS),
            "--embedder",
            "openai:text-embedding-3-small",
        ],
        {"OPENAI_BASE_URL": f"http://127.0.0.1:{port}/v1", "OPENAI_API_KEY": "sk-test"},
    )


CASES: dict[str, tuple[Callable[[Path], Any], list[str]]] = {
    "beir duplicate ids 1 and '1' (§1)": (_dup, ["queries.jsonl:2:", "field '_id'", "duplicate id '1'", "line 1"]),
    "beir invalid UTF-8 in queries (§1)": (_bad_query_bytes, ["queries.jsonl:2: not valid UTF-8"]),
    "beir invalid UTF-8 in qrels (§1)": (_bad_qrels_bytes, ["test.tsv:2: not valid UTF-8"]),
    "grades of 1e308 (§2)": (_huge_grade, ["test.tsv:1: grade '1e308' must be at most 1e+06"]),
    "gguf nested arrays (§3)": (_gguf_nested, ["m.gguf: damaged GGUF model file (arrays nested deeper than"]),
    "gguf count 2^62 (§3)": (_gguf_count, ["m.gguf: damaged GGUF model file (an array of 4611686018427387904 items"]),
    "gguf link loop (§3)": (_gguf_loop, ["m.gguf: is a symbolic link loop"]),
    "ragcov.toml 5000 deep (§3)": (_deep_toml, ["deep.toml: invalid TOML (arrays or tables nested too deep)"]),
    "traffic past 9999 (§3)": (
        lambda t: _traffic(t, "9999-12-31T23:00:00-14:00"),
        ["log.jsonl:1: field 'timestamp' is out of range"],
    ),
    "traffic before year 1 (§3)": (
        lambda t: _traffic(t, "0001-01-01T00:00:00+14:00"),
        ["log.jsonl:1: field 'timestamp' is out of range"],
    ),
    "traffic link loop (§3)": (_traffic_loop, ["log.jsonl: is a symbolic link loop"]),
    "input link loop with --json (§3)": (_input_loop_with_json, ["loop.jsonl: is a symbolic link loop"]),
    "output link loop (§3)": (_output_loop, ["--markdown", "out.json: is a symbolic link loop"]),
    "tuple as a dict key in a cell (§3)": (_tuple_key, ["t.csv:2: field 'relevant_doc_ids'", "a dict key must be"]),
    "gguf FIFO (§4)": (_gguf_fifo, ["m.gguf: is a named pipe (FIFO), not a regular file"]),
    "beir FIFO queries.jsonl (§7)": (_fifo_queries, ["queries.jsonl: is a named pipe (FIFO), not a regular file"]),
    "beir FIFO qrels (§7)": (_fifo_qrels, ["test.tsv: is a named pipe (FIFO), not a regular file"]),
    "--split with a test file (§7)": (_split_with_a_file, ["split 'dev': only a BEIR folder has splits"]),
    "traffic named in ragcov.toml (§7)": (_traffic_from_toml, ["query log log.jsonl: is a named pipe"]),
    "covered_share=-0.1 (§7)": (_gate("covered_share=-0.1"), ["covered_share lies in [0, 1]", "always passes"]),
    "covered_share=1.5 (§7)": (_gate("covered_share=1.5"), ["covered_share lies in [0, 1]", "can never be met"]),
    "basic=1.01 (§7)": (_gate("basic=1.01"), ["basic lies in [-1, 1]"]),
    "ndcg=1.5 (§7)": (_eval_gate("ndcg=1.5"), ["ndcg@5 lies in [0, 1]"]),
    "NaN grade (§7)": (_nan("relevant_doc_ids", '{"a.md": NaN}'), ["t.jsonl:1:", "in field 'relevant_doc_ids'"]),
    "NaN vector (§7)": (_nan("vector", "[0.1, NaN]"), ["t.jsonl:1:", "in field 'vector'"]),
    "closed port in $OPENAI_BASE_URL (§7)": (_closed_port, ["unreachable after 1 attempts (Connection refused)"]),
    # beyond the cases: "²".isdigit() is true and int("²") fails, wherever a number is read
    "--k ²": (lambda t: _eval_gate("ndcg=0.5")(t) + ["--k", "²"], ["--k: expected a whole number from 1 to"]),
    "test file ids 1 and ' 1' (§1)": (_test_file_ids, ["t.jsonl:2: duplicate id ' 1' (also on line 1)"]),
    "hash:²": (lambda t: _gate("basic=0.5")(t) + ["--embedder", "hash:²"], ["hash:DIM needs a whole number"]),
}


@pytest.mark.parametrize("case", list(CASES))
def test_each_bad_input_is_one_line_exit_2_nothing_written_nothing_running(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    make, needles = CASES[case]
    made = make(tmp_path)
    argv, environ = made if isinstance(made, tuple) else (made, {})
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    db, report = tmp_path / "r.db", tmp_path / "report.json"
    code = call_within(60, run_cli, *argv, "--quiet", "--db", str(db), "--json", str(report))
    one_line_error(capsys, code, *needles)
    assert "--traffic" not in capsys.readouterr().err  # a flag the toml case never typed
    assert not report.exists()
    if db.exists():
        with sqlite3.connect(db) as conn:
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            running = (
                conn.execute("SELECT count(*) FROM sessions WHERE status = 'running'").fetchone()[0]
                if "sessions" in tables
                else 0
            )
        assert running == 0


def test_grades_of_1e308_give_the_ndcg_that_grades_of_1_give() -> None:
    ranking, k = ["x", "y", "a", "z", "b", "c"], 5
    ones = ndcg_at_k(Ranked.of(ranking, {"a": 1.0, "b": 1.0, "c": 1.0}, k))
    huge = ndcg_at_k(Ranked.of(ranking, {"a": 1e308, "b": 1e308, "c": 1e308}, k))
    assert ones == pytest.approx(0.4162, abs=1e-4) and huge == pytest.approx(ones)  # was 0.0000: IDCG overflowed


def test_a_2mb_reference_context_and_query_line_cost_a_bounded_text_with_one_warning(tmp_path: Path) -> None:
    big = " ".join(f"w{i % 5000}" for i in range(330_000))  # ~2 MB, matches nothing
    questions = tmp_path / "t.jsonl"
    questions.write_text(
        json.dumps({"question": "What is SSO?", "reference_contexts": [big]})
        + "\n"
        + json.dumps({"question": "And SCIM?", "reference_contexts": [big, "short"]})
        + "\n"
    )
    notes = read_testset(questions).notes
    assert notes == [
        f"{questions}:1: a text of field 'reference_contexts' is {len(big):,} characters; only its first "
        f"{EMBED_TEXT_CHARS:,} are embedded (1 more such texts in the file)"
    ]
    log = tmp_path / "log.jsonl"
    log.write_text(json.dumps({"query": "short one"}) + "\n" + json.dumps({"query": big}) + "\n")
    traffic = read_traffic(log)
    assert max(len(t) for t in traffic.texts) == EMBED_TEXT_CHARS
    assert traffic.notes == [
        f"{log}:2: the query is {len(big):,} characters; only its first {EMBED_TEXT_CHARS:,} are embedded"
    ]


def test_the_2mb_query_runs_in_seconds_with_its_warning(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    big = " ".join(f"w{i % 5000}" for i in range(330_000))
    log = tmp_path / "log.jsonl"
    log.write_text(json.dumps({"query": big}) + "\n" + json.dumps({"query": "how do I reset my password"}) + "\n")
    code = call_within(
        120,
        run_cli,
        "analyze",
        "--db",
        str(tmp_path / "r.db"),
        "--questions",
        str(QUESTIONS),
        "--corpus",
        str(CORPUS),
        "--traffic",
        str(log),
        "--json",
        str(tmp_path / "r.json"),
    )
    err = capsys.readouterr().err
    assert code == 0, err
    assert f"{log}:1: the query is {len(big):,} characters" in " ".join(err.split())
