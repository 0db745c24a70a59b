"""Times of day are figures of their own (issue #26 §1): "4 pm" is the record's "16:0", and a time
is never compared with a star rating or a count."""

from __future__ import annotations

import json

import pytest

from ragcov_tui.embeddings.factory import DEFAULT_EMBEDDER, make_embedder
from ragcov_tui.evaluation.generation.quantities import extract_quantities
from ragcov_tui.evaluation.generation.support import ContextIndex, judge_claims


def times(text: str) -> list[str]:
    return [str(q.value) for q in extract_quantities(text) if q.kind == "time"]


def test_times_of_day_in_twelve_and_twenty_four_hour_forms() -> None:
    assert times("open 10am to 4pm") == ["10:00", "16:00"]
    assert times("from 10:00 a.m. until 4:30 PM") == ["10:00", "16:30"]
    assert times("hours Monday: 10:0-16:0") == ["10:00", "16:00"]
    assert times("12 am and 12 pm") == ["00:00", "12:00"]
    assert times("13 pm, 25:00, 4.0 stars") == []  # impossible times stay numbers; a rating is no time


@pytest.mark.slow  # loads the ONNX model: ~6 s
def test_a_business_record_holds_its_hours_and_a_wrong_closing_time_says_which() -> None:
    record = json.dumps({"name": "Blue Cafe", "stars": 4.0, "review_count": 2013, "hours": {"Monday": "10:0-16:0"}})
    embedder = make_embedder(DEFAULT_EMBEDDER)
    got = judge_claims(
        ["On Monday Blue Cafe is open from 10 am to 4 pm.", "Blue Cafe closes at 6:00 pm on Monday."],
        ContextIndex.build([("r", record)], embedder),
        embedder,
    )
    assert got[0]["verdict"] == "supported", got[0]
    assert got[1]["verdict"] != "supported" and "6:00 pm" in got[1]["reason"] and "4.0" not in got[1]["reason"]


REVIEWED = json.dumps(
    {
        "name": "Oyster Bar",
        "city": "Tampa",
        "business_stars": 4.0,
        "hours": {"Friday": "11:0-22:0"},
        "review_info": [
            {"review_stars": 5.0, "review_date": "2021-03-04", "review_text": "Great oysters and friendly staff."},
            {"review_stars": 2.0, "review_date": "2020-01-02", "review_text": "Slow service, cold fries."},
        ],
    }
)


@pytest.mark.slow  # loads the ONNX model: ~6 s
def test_a_field_holding_every_figure_and_a_review_read_whole_support_what_they_say() -> None:
    """The hours field embeds far from a sentence about them (similarity under the support
    threshold) but holds both times; a review's stars and text are two fields of one object, apart."""
    embedder = make_embedder(DEFAULT_EMBEDDER)
    got = judge_claims(
        [
            "It is open on Fridays from 11 am to 10 pm.",
            "One reviewer gave it 5 stars, praising the oysters and friendly staff.",
            "One reviewer gave it 5 stars, complaining about cold fries.",
            "It is open on Fridays from 9 am to 10 pm.",
        ],
        ContextIndex.build([("r", REVIEWED)], embedder),
        embedder,
    )
    assert [v["verdict"] == "supported" for v in got] == [True, True, False, False], got
    assert "review stars: 5.0; review info review date" in got[1]["evidence"] and "Great oysters" in got[1]["evidence"]
