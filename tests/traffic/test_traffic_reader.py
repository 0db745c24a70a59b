"""The query-log reader: formats, field aliases, aggregation, and hostile input named by line."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from ragcov_tui.shared.errors import BadInput
from ragcov_tui.shared.safe_text import is_safe
from ragcov_tui.traffic.fields import COUNT_FIELDS, QUERY_FIELDS, TIME_FIELDS
from ragcov_tui.traffic.reader import read_traffic


def write(tmp_path: Path, name: str, text: str | bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    return path


def jsonl(tmp_path: Path, rows: list, name: str = "log.jsonl") -> Path:
    return write(tmp_path, name, "".join(json.dumps(r) + "\n" for r in rows))


# ---------------------------------------------------------------- formats and aliases


@pytest.mark.parametrize("qname", QUERY_FIELDS)
@pytest.mark.parametrize("cname", COUNT_FIELDS)
@pytest.mark.parametrize("tname", TIME_FIELDS)
def test_every_alias_combination_is_read(tmp_path: Path, qname: str, cname: str, tname: str) -> None:
    path = jsonl(
        tmp_path,
        [
            {qname: "reset password", cname: 3, tname: "2026-01-02T03:04:05Z", "user": "x"},
            {qname: "export pages", cname: 5, tname: 1767323045},
        ],
    )
    log = read_traffic(path)
    assert log.texts == ["export pages", "reset password"]
    assert log.counts.tolist() == [5, 3]
    assert log.fields == {"query": qname, "count": cname, "timestamp": tname}
    assert log.first_seen[1] == "2026-01-02T03:04:05Z"
    assert log.first_seen[0] == "2026-01-02T03:04:05Z"  # 1767323045 s is the same moment


@pytest.mark.parametrize("delimiter", [",", ";", "\t", "|"])
def test_csv_with_any_common_delimiter(tmp_path: Path, delimiter: str) -> None:
    text = (
        delimiter.join(["question", "hits", "ts"]) + "\n" + delimiter.join(["how to invite", "4", "2026-01-05"]) + "\n"
    )
    text += delimiter.join(['"a, b; c | d"', "", ""]) + "\n"
    log = read_traffic(write(tmp_path, "log.csv", text))
    assert log.texts == ["how to invite", "a, b; c | d"] if delimiter == "," else log.texts[0] == "how to invite"
    assert log.counts.tolist()[0] == 4
    assert log.first_seen[0] == "2026-01-05T00:00:00Z"


def test_tsv_and_txt_and_log(tmp_path: Path) -> None:
    assert read_traffic(write(tmp_path, "a.tsv", "prompt\tcount\nexport pdf\t2\n")).counts.tolist() == [2]
    log = read_traffic(write(tmp_path, "a.txt", "reset password\r\n\r\n  Reset   PASSWORD \nexport\n"))
    assert log.texts == ["reset password", "export"] and log.counts.tolist() == [2, 1] and log.rows == 3
    assert read_traffic(write(tmp_path, "a.log", "one\n")).texts == ["one"]


def test_jsonl_row_may_be_a_bare_string(tmp_path: Path) -> None:
    log = read_traffic(jsonl(tmp_path, ["how do webhooks retry", {"query": "How do webhooks retry", "count": 2}]))
    assert log.texts == ["how do webhooks retry"] and log.counts.tolist() == [3]


def test_duplicates_aggregate_counts_and_keep_first_spelling_and_time_span(tmp_path: Path) -> None:
    rows = [
        {"query": "Restore a page", "count": 2, "time": "2026-01-10T00:00:00Z"},
        {"query": "restore  a\tPAGE", "count": 5, "time": "2026-01-03T00:00:00+02:00"},
        {"query": "restore a page", "time": "2026-01-20T12:00:00"},
        {"query": "other", "count": 8},
    ]
    log = read_traffic(jsonl(tmp_path, rows))
    assert log.texts == ["Restore a page", "other"]  # a tie: first seen first
    assert log.counts.tolist() == [8, 8] and log.total == 16 and log.rows == 4
    assert (log.first_seen[0], log.last_seen[0]) == ("2026-01-02T22:00:00Z", "2026-01-20T12:00:00Z")
    assert log.first_seen[1] is None
    assert log.summary()["distinct"] == 2 and log.summary()["first"] == "2026-01-02T22:00:00Z"


def test_most_asked_first_ties_in_order_of_first_appearance(tmp_path: Path) -> None:
    log = read_traffic(
        jsonl(tmp_path, [{"q": 1, "query": t, "n": c} for t, c in [("a", 1), ("b", 3), ("c", 1), ("d", 3), ("e", 2)]])
    )
    assert log.texts == ["b", "d", "e", "a", "c"]


@pytest.mark.parametrize("count,expected", [(1, 1), (3.0, 3), (10**12, 10**12), ("7", None)])
def test_whole_counts_accepted(tmp_path: Path, count, expected) -> None:
    path = jsonl(tmp_path, [{"query": "x", "count": count}])
    if expected is None:  # JSON counts must be numbers
        with pytest.raises(BadInput, match=r"log\.jsonl:1: field 'count' must be a whole number"):
            read_traffic(path)
    else:
        assert read_traffic(path).counts.tolist() == [expected]


# ---------------------------------------------------------------- hostile input: sanitised, never raw

CONTROL_QUERIES = [
    "\x1b]0;pwned\x07title",
    "a\x1b[2Jb",
    "c\x9bd",
    "e\u202ef",
    "tab\there\nnext",
    "del\x7f",
    "tag\U000e0041x",
    "sep\u2028x",
    "bell\x07",
]


@pytest.mark.parametrize("text", CONTROL_QUERIES)
@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
def test_control_characters_are_made_visible_where_the_log_is_read(tmp_path: Path, text: str, fmt: str) -> None:
    path = (
        jsonl(tmp_path, [{"query": text}])
        if fmt == "jsonl"
        else write(tmp_path, "log.csv", "query\n" + json.dumps(text) + "\n")
    )
    log = read_traffic(path)
    assert len(log.texts) == 1 and is_safe(log.texts[0], multiline=False), ascii(log.texts[0])
    assert log.texts[0]


# ---------------------------------------------------------------- bad rows are named by file and line

BAD_JSONL = [
    ('{"query": "a", "count": NaN}', "invalid JSON (NaN is not valid JSON"),
    ('{"query": "a", "count": Infinity}', "invalid JSON"),
    ('{"query": "a", "count": 1e400}', "invalid JSON"),
    ('{"query": "a", "count": -1}', "field 'count' must be a whole number from 1"),
    ('{"query": "a", "count": 0}', "field 'count' must be a whole number from 1"),
    ('{"query": "a", "count": 2.5}', "field 'count' must be a whole number from 1"),
    ('{"query": "a", "count": true}', "field 'count' must be a whole number from 1"),
    ('{"query": "a", "hits": 1000000000001}', "field 'hits' must be a whole number from 1"),
    ('{"query": "a", "n": ' + "9" * 400 + "}", "field 'n' must be a whole number from 1"),
    ('{"query": "a", "count": [1]}', "field 'count' must be a whole number"),
    ('{"query": "a", "timestamp": "yesterday"}', "field 'timestamp' must be an ISO 8601 time"),
    ('{"query": "a", "ts": 1e30}', "field 'ts' is out of range"),
    ('{"query": "a", "time": {"s": 1}}', "field 'time' must be an ISO 8601 time"),
    ('{"query": 3}', "field 'query' must be text (got int)"),
    ('{"query": "   "}', "field 'query' is empty"),
    ('{"query": null}', "field 'query' is empty"),
    ('{"user": "a"}', "no query field (expected one of: query, question"),
    ("[1, 2]", "expected a JSON object or a string (got list)"),
    ("42", "expected a JSON object or a string (got int)"),
    ('{"query": "a"', "invalid JSON"),
    ('"\\ud800"', "invalid JSON"),
    ("[" * 200 + "]" * 200, "invalid JSON (nested deeper"),
    ('"\\u001b\\u0007"', None),  # a string of controls only: visible stand-ins, not empty
]


@pytest.mark.parametrize("line,message", BAD_JSONL)
@pytest.mark.parametrize("at", [1, 3])
def test_bad_jsonl_row_is_one_line_naming_file_and_line(
    tmp_path: Path, line: str, message: str | None, at: int
) -> None:
    good = '{"query": "fine"}'
    lines = [good] * 4
    lines[at - 1] = line
    path = write(tmp_path, "log.jsonl", "\n".join(lines) + "\n")
    if message is None:
        assert is_safe(read_traffic(path).texts[-1], multiline=False)
        return
    with pytest.raises(BadInput) as info:
        read_traffic(path)
    text = str(info.value)
    assert text.startswith(f"{path}:{at}: ") and message in text and "\n" not in text, text


BAD_CSV = [
    ("query,count\na,NaN\n", 2, "field 'count' must be a whole number"),
    ("query,count\na,-3\n", 2, "field 'count' must be a whole number"),
    ("query,count\na,inf\n", 2, "field 'count' must be a whole number"),
    ("query,count\na,1.5\n", 2, "field 'count' must be a whole number"),
    ("query,count\na,lots\n", 2, "field 'count' must be a whole number"),
    ("query,count\nfine,1\na,1,extra\n", 3, "3 cells but the header has 2"),
    ("query,count\nfine,1\n,4\n", 3, "field 'query' is empty"),
    ("query,ts\na,31/12/2025\n", 2, "field 'ts' must be an ISO 8601 time"),
    ('query,count\n"multi\nline",1\nb,x\n', 4, "field 'count' must be a whole number"),
    ("user,count\na,1\n", 1, "no query column in the header"),
]


@pytest.mark.parametrize("text,line,message", BAD_CSV)
def test_bad_csv_row_is_one_line_naming_file_and_line(tmp_path: Path, text: str, line: int, message: str) -> None:
    path = write(tmp_path, "log.csv", text)
    with pytest.raises(BadInput) as info:
        read_traffic(path)
    assert str(info.value).startswith(f"{path}:{line}: ") and message in str(info.value), str(info.value)


@pytest.mark.parametrize(
    "name,data,message",
    [
        ("log.jsonl", b"", "no queries in the file"),
        ("log.txt", b"\n  \n\n", "no queries in the file"),
        ("log.csv", b"query,count\n", "no queries in the file"),
        ("log.jsonl", b'{"query": "a"}\n\xff\xfe\n', "log.jsonl:2: not valid UTF-8"),
        ("log.txt", b"a\nb\x00c\n", "log.txt:2: NUL byte"),
        ("log.txt", "\ufeffq".encode("utf-16"), "UTF-16 text"),
        ("log.xlsx", b"x", "unsupported file type '.xlsx'"),
        ("log.parquet", b"x", "unsupported file type"),
    ],
)
def test_unusable_files_are_refused_in_one_line(tmp_path: Path, name: str, data: bytes, message: str) -> None:
    with pytest.raises(BadInput, match=None) as info:
        read_traffic(write(tmp_path, name, data))
    assert message in str(info.value) and "\n" not in str(info.value), str(info.value)


def test_missing_directory_and_fifo_are_refused_without_blocking(tmp_path: Path) -> None:
    with pytest.raises(BadInput, match="no such file"):
        read_traffic(tmp_path / "absent.jsonl")
    (tmp_path / "dir.jsonl").mkdir()
    with pytest.raises(BadInput, match="is a directory"):
        read_traffic(tmp_path / "dir.jsonl")
    fifo = tmp_path / "pipe.txt"
    os.mkfifo(fifo)
    with pytest.raises(BadInput, match="named pipe"):
        read_traffic(fifo)


def test_a_bom_is_not_part_of_the_first_query(tmp_path: Path) -> None:
    assert read_traffic(write(tmp_path, "log.txt", "\ufeffhello\n")).texts == ["hello"]
    assert read_traffic(write(tmp_path, "log.csv", "\ufeffquery\nhello\n")).texts == ["hello"]
