"""Property tests over the shapes of issue #23 (hostile input, round 3): each reader added since
the last round, fed generated deep nesting, huge and non-finite numbers, duplicates under
normalisation, invalid bytes, special files and link loops, returns a result or raises one
BadInput line naming the file (and line, and field, where there is one) — never anything else,
never a hang, never a wrong figure.

Readers: the BEIR folder (queries.jsonl, qrels/<split>.tsv), qrels grades and nDCG, the gold-id
rules, the traffic reader's timestamps, the GGUF reader, ``ragcov.toml``, Python-literal cells,
and the number helpers that replace ``str.isdigit`` before ``int()``.
"""

from __future__ import annotations

import json
import os
import struct
from collections.abc import Callable
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from ragcov_tui.corpus.models import Chunk
from ragcov_tui.evaluation.retrieval import Ranked, ndcg_at_k
from ragcov_tui.llm.gguf import read_gguf_metadata
from ragcov_tui.services.config import load_config
from ragcov_tui.shared.errors import BadInput, ConfigError
from ragcov_tui.shared.input_values import MAX_GRADE, is_ascii_whole, parse_json
from ragcov_tui.testset.beir import read_ir_folder
from ragcov_tui.testset.cells import NotALiteral, python_literal
from ragcov_tui.testset.gold_ids import CorpusIds
from ragcov_tui.testset.qrels import read_qrels
from ragcov_tui.traffic.reader import read_traffic
from tests.support.deadline import call_within

PROPERTY = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
QUICK = settings(PROPERTY, max_examples=25)  # each example writes files or starts a reader


def beir_folder(root: Path, queries: bytes, qrels: bytes) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "qrels").mkdir(exist_ok=True)
    (root / "queries.jsonl").write_bytes(queries)
    (root / "qrels" / "test.tsv").write_bytes(qrels)
    return root


def one_line(exc: BaseException) -> str:
    message = str(exc)
    assert message.isprintable() and "\n" not in message, message
    return message


# -- duplicates under normalisation -----------------------------------------------------------------

ID_SPELLINGS = st.integers(min_value=0, max_value=10**6).flatmap(
    lambda n: st.tuples(
        st.sampled_from([n, str(n), f" {n}", f"{n} ", f"\t{n}\t"]), st.sampled_from([n, str(n), f" {n} "])
    )
)


@QUICK
@given(spellings=ID_SPELLINGS, before=st.integers(0, 3), between=st.integers(0, 3))
def test_beir_query_ids_equal_under_normalisation_are_refused_naming_the_second_line(
    tmp_path_factory: pytest.TempPathFactory, spellings: tuple, before: int, between: int
) -> None:
    first, second = spellings
    lines = [json.dumps({"_id": f"other{i}", "text": "q"}) for i in range(before)]
    lines.append(json.dumps({"_id": first, "text": "first"}))
    lines += [json.dumps({"_id": f"mid{i}", "text": "q"}) for i in range(between)]
    lines.append(json.dumps({"_id": second, "text": "second"}))
    folder = beir_folder(
        tmp_path_factory.mktemp("dup"), "\n".join(lines).encode() + b"\n", f"{str(first).strip()}\td1\t1\n".encode()
    )
    with pytest.raises(BadInput) as caught:
        read_ir_folder(folder)
    message = one_line(caught.value)
    line = before + between + 2
    assert message.startswith(f"{folder / 'queries.jsonl'}:{line}: field '_id': duplicate id")
    assert f"(also on line {before + 1})" in message


# -- invalid bytes: one rule for queries.jsonl, qrels/<split>.tsv and --qrels FILE -------------------

BAD_BYTES = st.sampled_from([b"\xff", b"\xfe", b"\xc3", b"\xe2\x82", b"\xed\xa0\x80", b"\xf8\x88\x80\x80\x80", b"\x80"])


@QUICK
@given(bad=BAD_BYTES, line=st.integers(0, 4), at=st.integers(0, 8))
def test_invalid_utf8_in_a_beir_folder_is_refused_like_qrels_file(
    tmp_path_factory: pytest.TempPathFactory, bad: bytes, line: int, at: int
) -> None:
    queries = [json.dumps({"_id": f"q{i}", "text": f"question number {i}"}).encode() for i in range(5)]
    qrels = [f"q{i}\tdoc{i}\t1".encode() for i in range(5)]
    for which in ("queries", "qrels"):
        rows = [bytes(r) for r in (queries if which == "queries" else qrels)]
        cut = min(at, len(rows[line]))
        rows[line] = rows[line][:cut] + bad + rows[line][cut:]
        data = b"\n".join(rows) + b"\n"
        folder = beir_folder(
            tmp_path_factory.mktemp(which),
            data if which == "queries" else b"\n".join(queries),
            data if which == "qrels" else b"\n".join(qrels),
        )
        path = folder / ("queries.jsonl" if which == "queries" else "qrels/test.tsv")
        with pytest.raises(BadInput) as in_folder:
            read_ir_folder(folder)
        assert one_line(in_folder.value).startswith(f"{path}:{line + 1}: not valid UTF-8")
        if which == "qrels":
            with pytest.raises(BadInput) as as_file:
                read_qrels(path)
            assert str(as_file.value) == str(in_folder.value)  # one reader, one rule


# -- grades: finite, bounded, and nDCG that does not overflow ------------------------------------------


@PROPERTY
@given(
    grades=st.lists(st.floats(min_value=1e-300, max_value=1.7e308), min_size=1, max_size=8),
    order=st.permutations(range(8)),
    k=st.integers(1, 8),
)
def test_ndcg_is_the_same_for_grades_scaled_by_any_factor(grades: list[float], order: list[int], k: int) -> None:
    names = [f"d{i}" for i in range(len(grades))]
    ranking = [f"d{i}" for i in order]
    small = {n: g / max(grades) for n, g in zip(names, grades, strict=True)}
    big = dict(zip(names, grades, strict=True))
    huge, scaled = ndcg_at_k(Ranked.of(ranking, big, k)), ndcg_at_k(Ranked.of(ranking, small, k))
    assert 0.0 <= huge <= 1.0 + 1e-9 and huge == pytest.approx(scaled, rel=1e-9, abs=1e-12)


GRADE_TEXT = st.one_of(
    st.sampled_from(
        ["nan", "NaN", "inf", "-inf", "Infinity", "1e308", "1e400", "-1e400", "1e6", "1000000.5", "9" * 400]
    ),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
)


@QUICK
@given(grade=GRADE_TEXT)
def test_a_qrels_grade_is_finite_and_bounded_or_refused_naming_the_line(
    tmp_path_factory: pytest.TempPathFactory, grade: str
) -> None:
    path = tmp_path_factory.mktemp("qrels") / "q.tsv"
    path.write_text(f"q1\td1\t1\nq1\td2\t{grade}\n")
    try:
        qrels = read_qrels(path)
    except BadInput as exc:
        assert one_line(exc).startswith(f"{path}:2: grade ")
        return
    assert all(0.0 <= g <= MAX_GRADE for g in qrels["q1"].values())


@QUICK
@given(
    literal=st.sampled_from(["NaN", "Infinity", "-Infinity", "1e400", "-2e999"]),
    field=st.sampled_from(["relevant_doc_ids", "vector", "metadata", "gold_doc_ids"]),
    nested=st.booleans(),
)
def test_a_non_finite_number_names_the_field_it_sits_in(literal: str, field: str, nested: bool) -> None:
    value = f'{{"d1": 1, "d2": {literal}}}' if nested else f"[1, {literal}]"
    with pytest.raises(ValueError) as caught:
        parse_json(f'{{"question": "q", "{field}": {value}}}')
    assert f"in field '{field}'" in str(caught.value)


# -- deep nesting -------------------------------------------------------------------------------------


def gguf(value_type: int, value: bytes) -> bytes:
    key = b"k"
    return (
        b"GGUF"
        + struct.pack("<IQQ", 3, 0, 1)
        + struct.pack("<Q", len(key))
        + key
        + struct.pack("<I", value_type)
        + value
    )


@QUICK
@given(
    depth=st.integers(1, 20_000),
    count=st.one_of(st.integers(0, 3), st.just(2**62), st.just(2**64 - 1)),
    item=st.sampled_from([0, 4, 8, 9, 12, 13, 255]),
)
def test_gguf_nested_arrays_and_huge_counts_are_refused_in_one_line(
    tmp_path_factory: pytest.TempPathFactory, depth: int, count: int, item: int
) -> None:
    nested = b"".join(struct.pack("<IQ", 9, 1) for _ in range(depth - 1))
    path = tmp_path_factory.mktemp("gguf") / "m.gguf"
    path.write_bytes(gguf(9, nested + struct.pack("<IQ", item, count) + b"\0" * 16))
    try:
        meta = call_within(10, read_gguf_metadata, path)
    except BadInput as exc:
        assert one_line(exc).startswith(f"{path}: damaged GGUF model file (")
        return
    assert meta == {}  # an array is skipped, never read into memory


@QUICK
@given(depth=st.integers(1, 6000), kind=st.sampled_from(["[", "{x = "]))
def test_ragcov_toml_nested_any_depth_is_read_or_refused_in_one_line(
    tmp_path_factory: pytest.TempPathFactory, depth: int, kind: str
) -> None:
    close = "]" if kind == "[" else "}"
    path = tmp_path_factory.mktemp("toml") / "ragcov.toml"
    path.write_text("a = " + kind * depth + ("1" if kind == "{x = " else "") + close * depth + "\n")
    try:
        load_config(path)
    except ConfigError as exc:
        assert one_line(exc).startswith(f"{path}: invalid TOML")


@PROPERTY
@given(depth=st.integers(1, 5000), found=st.booleans())
def test_chunk_ids_of_chunk_ids_resolve_without_recursion(depth: int, found: bool) -> None:
    document = "docs/a.md"
    gold = document + "".join(f"#{i}-{i % 16:x}{'0' * 7}" for i in range(depth))
    corpus = CorpusIds([Chunk(id=f"{document}#0-12345678", text="t", source=document if found else "b.md", position=0)])
    target, rule, _ = corpus.resolve(gold)
    if depth == 1 and found:
        assert (target, rule) == (document, "chunk→document")
    else:
        assert target is None or rule is not None


# -- out of range: traffic timestamps ------------------------------------------------------------------


@QUICK
@given(
    moment=st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31, 23, 59)),
    offset=st.integers(-23 * 60 - 59, 23 * 60 + 59),
)
@example(moment=datetime(9999, 12, 31, 23, 0), offset=-14 * 60)  # the cases: past 9999 in UTC…
@example(moment=datetime(1, 1, 1, 0, 0), offset=14 * 60)  # …and before the year 1
def test_traffic_times_with_any_offset_are_read_or_refused_naming_the_field(
    tmp_path_factory: pytest.TempPathFactory, moment: datetime, offset: int
) -> None:
    stamp = moment.replace(microsecond=0, tzinfo=timezone(timedelta(minutes=offset))).isoformat()  # shown to the second
    path = tmp_path_factory.mktemp("traffic") / "log.jsonl"
    path.write_text(json.dumps({"query": "how do I reset a password", "timestamp": stamp}) + "\n")
    try:
        log = read_traffic(path)
    except BadInput as exc:
        assert one_line(exc).startswith(f"{path}:1: field 'timestamp' is out of range")
        return
    assert log.first_seen[0] == datetime.fromisoformat(stamp).astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


# -- Python-literal cells and digits --------------------------------------------------------------------


@PROPERTY
@given(
    key=st.one_of(st.tuples(st.integers()), st.tuples(st.text(max_size=3), st.integers()), st.just(())),
    value=st.one_of(st.integers(), st.text(max_size=5)),
)
def test_a_tuple_or_list_as_a_dict_key_is_not_a_literal(key: tuple, value: object) -> None:
    with pytest.raises(NotALiteral):
        python_literal(repr({key: value}))
    with pytest.raises(NotALiteral):
        python_literal("{" + repr(list(key)).replace("[", "(").replace("]", ",)") + ": 1}")


@PROPERTY
@given(
    text=st.text(alphabet=st.characters(categories=["Nd", "No", "Nl"]) | st.sampled_from("0123456789+- "), max_size=25)
)
def test_is_ascii_whole_means_int_reads_it(text: str) -> None:
    if is_ascii_whole(text):
        assert int(text) >= 0 and len(text) <= 18
    else:
        assume(text)
        assert not (text.isascii() and text.isdigit() and len(text) <= 18)


# -- special files and link loops: every reader of this round ---------------------------------------------

READERS: dict[str, Callable[[Path], object]] = {
    "queries.jsonl": lambda p: read_ir_folder(p.parent),
    "qrels": lambda p: read_ir_folder(p.parent.parent),
    "gguf": read_gguf_metadata,
    "traffic": read_traffic,
    "toml": load_config,
}


def _place(root: Path, which: str) -> Path:
    if which == "queries.jsonl":
        folder = beir_folder(root / "beir", b"", b"q1\td1\t1\n")
        os.remove(folder / "queries.jsonl")
        return folder / "queries.jsonl"
    if which == "qrels":
        folder = beir_folder(root / "beir", b'{"_id": "q1", "text": "q"}\n', b"")
        os.remove(folder / "qrels" / "test.tsv")
        return folder / "qrels" / "test.tsv"
    return root / {"gguf": "m.gguf", "traffic": "log.jsonl", "toml": "ragcov.toml"}[which]


@pytest.mark.parametrize("which", sorted(READERS))
@pytest.mark.parametrize("shape", ["fifo", "loop", "dangling", "directory"])
def test_special_files_and_link_loops_are_named_never_opened(tmp_path: Path, which: str, shape: str) -> None:
    path = _place(tmp_path, which)
    if shape == "fifo":
        os.mkfifo(path)
    elif shape == "loop":
        os.symlink(path.name, path)
    elif shape == "dangling":
        os.symlink("nowhere", path)
    else:
        path.mkdir()
    with pytest.raises(BadInput) as caught:
        call_within(10, READERS[which], path)
    message = one_line(caught.value)
    expected = {
        "fifo": "is a named pipe (FIFO), not a regular file",
        "loop": "is a symbolic link loop",
        "dangling": "broken symbolic link",
        "directory": "directory",
    }[shape]
    assert str(path.name) in message and expected in message, message
    assert "missing" not in message, message
