"""Property tests over stored session rows (issue #23 §6): whatever another host, another ragcov or a
hand edit left in a ``sessions`` row — ``progress`` that is no JSON, a list or holds no numbers, a
heartbeat without a time zone or centuries ahead, text where a number belongs — ``ragcov sessions``,
``sessions --json`` and ``report`` answer (exit 0, or one line and exit 2: never a traceback), every
field reads back in the shape :class:`~ragcov_tui.store.rows.SessionRow` promises, and no row with a
heartbeat beyond the clock-skew allowance reads as running. Rows are written straight into SQLite.
"""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragcov_tui.cli.main import main
from ragcov_tui.store.db import open_db
from ragcov_tui.store.liveness import CLOCK_SKEW, STALE_AFTER, heartbeat_age, is_live, this_host
from ragcov_tui.store.sessions import list_sessions

PROPERTY = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

NOW = datetime.now(UTC)
JSON_JUNK = [
    "not json",
    "[1, 2, 3]",
    '"text"',
    "42",
    "null",
    "true",
    "{",
    '{"a": NaN}',
    "[" * 3000 + "]" * 3000,
    '{"stage": "evaluating", "done": "x", "total": 40}',
    '{"stage": 3, "done": 1, "total": 2}',
    '{"stage": "evaluating", "done": -1, "total": 1e400}',
    '{"stage": "evaluating", "done": 1.5, "total": 2}',
    '{"stage": "evaluating", "done": true, "total": [2]}',
    '{"stage": "evaluating", "done": 3, "total": 9}',
    '{"basic": "high", "gaps": [1], "means": [0.5], "k": "five"}',
    '{"means": {"retrieval.hit@5": "x"}}',
    '{"means": 1, "k": {"a": 1}, "gaps": {"b": 2}}',
    '{"means": {"retrieval.hit@5": 0.5}, "k": 5, "system": 3, "judge": "heuristic"}',
    '["/a", 3, null]',
]
BEATS = [
    (NOW - timedelta(seconds=1)).isoformat(),
    (NOW - timedelta(seconds=1)).replace(tzinfo=None).isoformat(),
    (NOW + timedelta(days=365 * 970)).isoformat(),
    (NOW + timedelta(seconds=CLOCK_SKEW / 2)).isoformat(),
    "9999-12-31T23:59:59-23:59",
    "0001-01-01T00:00:00+23:59",
    "yesterday",
    "",
    "2026-13-45T99:99:99",
]
SCALARS = st.one_of(
    st.none(), st.integers(-(2**63), 2**63 - 1), st.floats(), st.text(max_size=20), st.binary(max_size=10)
)
NOT_NULL = SCALARS.filter(lambda v: v is not None and v == v)  # SQLite stores NaN as NULL
JSONISH = st.one_of(
    SCALARS,
    st.sampled_from(JSON_JUNK),
    st.builds(
        json.dumps,
        st.recursive(
            st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=5)),
            lambda inner: (
                st.lists(inner, max_size=3)
                | st.dictionaries(
                    st.sampled_from(["stage", "done", "total", "means", "basic", "k", "gaps", "system"]),
                    inner,
                    max_size=4,
                )
            ),
            max_leaves=8,
        ),
    ),
)
TEXT_COLUMNS = (
    "name",
    "finished_at",
    "user",
    "questions_path",
    "testset_sha256",
    "embedder",
    "llm",
    "system",
    "error",
    "host",
)
JSON_COLUMNS = ("corpus", "params", "summary", "timings", "usage", "progress")
SHAPES = {"corpus": list, "params": dict, "summary": dict, "timings": dict, "usage": dict, "progress": dict}


@st.composite
def junk_rows(draw: st.DrawFn) -> dict[str, Any]:
    row: dict[str, Any] = {
        "id": draw(st.sampled_from(["a1b2c3d4", "e5f6a7b8"])),
        "kind": draw(st.sampled_from(["analysis", "eval"]) | NOT_NULL),
        "status": draw(st.sampled_from(["running", "done", "failed"]) | NOT_NULL),
        "created_at": draw(st.sampled_from(BEATS[:1]) | NOT_NULL),
        "pid": draw(st.sampled_from([1, 2**40, -5, "123", 1.5]) | SCALARS),
        "heartbeat_at": draw(st.sampled_from(BEATS) | SCALARS),
    }
    row |= {column: draw(SCALARS) for column in TEXT_COLUMNS}
    row |= {column: draw(JSONISH) for column in JSON_COLUMNS}
    if draw(st.booleans()):
        row["host"] = this_host()
    return row


def _write(db_path: Path, rows: list[dict[str, Any]]) -> None:
    open_db(db_path).conn.close()  # the schema, at the current version
    conn = sqlite3.connect(db_path)
    with conn:
        for row in rows:
            marks = ", ".join("?" for _ in row)
            conn.execute(f"INSERT OR REPLACE INTO sessions ({', '.join(row)}) VALUES ({marks})", list(row.values()))
    conn.close()


@PROPERTY
@given(rows=st.lists(junk_rows(), min_size=1, max_size=2, unique_by=lambda r: r["id"]))
def test_junk_session_rows_are_read_in_shape_and_never_crash_a_command(
    rows: list[dict[str, Any]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db_path = tmp_path / "junk.db"
    db_path.unlink(missing_ok=True)
    _write(db_path, rows)

    read = list_sessions(open_db(db_path))
    assert len(read) == len(rows)
    for session in read:
        for column in TEXT_COLUMNS + ("id", "kind", "status", "created_at", "heartbeat_at"):
            assert session[column] is None or isinstance(session[column], str), column  # type: ignore[literal-required]
        for column, shape in SHAPES.items():
            assert session[column] is None or isinstance(session[column], shape), column  # type: ignore[literal-required]
        assert session["pid"] is None or (type(session["pid"]) is int and session["pid"] > 0)
        progress = session["progress"]
        assert progress is None or (
            isinstance(progress["stage"], str)
            and all(type(progress[k]) is int and progress[k] >= 0 for k in ("done", "total"))
        )
        if session["live"]:  # a heartbeat counts only when it is a time with a zone, not far ahead
            beat = datetime.fromisoformat(str(session["heartbeat_at"]))
            assert beat.tzinfo is not None and beat - datetime.now(UTC) <= timedelta(seconds=CLOCK_SKEW)
            assert datetime.now(UTC) - beat < timedelta(seconds=STALE_AFTER)

    capsys.readouterr()
    for argv in (["sessions"], ["sessions", "--json"], *(["report", s["id"]] for s in read)):
        code = main([*argv, "--db", str(db_path)])
        out, err = capsys.readouterr()
        assert "Traceback" not in out + err, (argv, err)
        assert code in (0, 2), (argv, code, err)
        if code == 2:
            assert len(err.strip().splitlines()) == 1, err
        if argv == ["sessions", "--json"]:
            assert len(json.loads(out)) == len(rows)


def test_a_heartbeat_970_years_ahead_is_not_a_live_session_and_says_why(tmp_path: Path) -> None:
    """The hand-found case: such a row stayed ``running`` forever."""
    ahead = (NOW + timedelta(days=365 * 970)).isoformat(timespec="seconds")
    _write(
        tmp_path / "r.db",
        [
            {
                "id": "a1b2c3d4",
                "kind": "eval",
                "status": "running",
                "created_at": NOW.isoformat(),
                "pid": 999_999,
                "host": "elsewhere.example",
                "heartbeat_at": ahead,
            }
        ],
    )
    [row] = list_sessions(open_db(tmp_path / "r.db"))
    assert (row["status"], row["live"]) == ("interrupted", False)
    assert row["error"] == (
        f"its process (pid 999999 on elsewhere.example) ended without finishing; "
        f"its heartbeat {ahead} is in the future (a clock ahead?)"
    )


def test_a_heartbeat_without_a_time_zone_is_no_heartbeat(tmp_path: Path) -> None:
    naive = (NOW - timedelta(seconds=1)).replace(tzinfo=None).isoformat(timespec="seconds")
    _write(
        tmp_path / "r.db",
        [
            {
                "id": "a1b2c3d4",
                "kind": "eval",
                "status": "running",
                "created_at": NOW.isoformat(),
                "pid": 999_999,
                "host": "elsewhere.example",
                "heartbeat_at": naive,
                "progress": "[1, 2]",
            }
        ],
    )
    [row] = list_sessions(open_db(tmp_path / "r.db"))
    assert (row["status"], row["progress"]) == ("interrupted", None)
    assert (row["error"] or "").endswith(f"its heartbeat {naive} has no time zone")


@PROPERTY
@given(
    at=st.datetimes(min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30)),
    offset_minutes=st.integers(-23 * 60 - 59, 23 * 60 + 59),
    naive=st.booleans(),
)
def test_clock_skew_is_bounded_and_no_heartbeat_breaks_the_reader(
    at: datetime, offset_minutes: int, naive: bool
) -> None:
    """Any heartbeat, from year 1 to 9999 in any UTC offset: its age is None (no heartbeat) when it has
    no zone or lies more than CLOCK_SKEW ahead, else a number ≥ 0; it never raises."""
    zone = timezone(timedelta(minutes=offset_minutes))
    beat = at if naive else at.replace(tzinfo=zone)
    now = datetime.now(UTC)
    age = heartbeat_age({"heartbeat_at": beat.isoformat()}, now)
    if naive or (beat - now).total_seconds() > CLOCK_SKEW:
        assert age is None
    else:
        assert age is not None and age >= 0
    row = {
        "id": "a1b2c3d4",
        "status": "running",
        "pid": 999_999,
        "host": "elsewhere.example",
        "heartbeat_at": beat.isoformat(),
    }
    assert is_live(row) is (age is not None and age < STALE_AFTER)


@pytest.mark.parametrize(
    "stored",
    ["not json", "[1, 2]", '"text"', "null", "{", "[" * 3000 + "]" * 3000],
    ids=["text", "list", "string", "null", "cut", "nested"],
)
def test_report_on_an_analysis_whose_stored_report_is_unreadable_says_so_in_one_line(
    stored: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A ``reports`` row another version or a hand edit left: one line and exit 2, not a traceback."""
    db_path = tmp_path / "r.db"
    _write(db_path, [{"id": "a1b2c3d4", "kind": "analysis", "status": "done", "created_at": NOW.isoformat()}])
    conn = sqlite3.connect(db_path)
    with conn:
        conn.execute("INSERT INTO reports (session_id, report) VALUES (?, ?)", ["a1b2c3d4", stored])
    conn.close()
    capsys.readouterr()
    code = main(["report", "a1b2c3d4", "--db", str(db_path)])
    out, err = capsys.readouterr()
    assert code == 2 and "Traceback" not in out + err
    assert err.strip().splitlines() == [err.strip()] and "not readable" in err
