"""Issue #26 §1: what the offline support check must get right on real answers — figures in the
sentence that supports the claim, meta sentences, antonyms, JSON records — with the local MiniLM."""

from __future__ import annotations

import json

import pytest

from ragcov_tui.embeddings.factory import make_embedder
from ragcov_tui.evaluation.generation.claim_checks import context_units, meta_free
from ragcov_tui.evaluation.generation.quantities import extract_quantities
from ragcov_tui.evaluation.generation.support import ContextIndex, claim_sentences, judge_claims

NEWS = [
    (
        "cnn#0",
        "The FBI charged a Philadelphia woman on Thursday with trying to travel overseas to fight for ISIS. "
        "She was arrested on Thursday in Philadelphia. On March 26, Thomas purchased a ticket to Barcelona. "
        "Sales of tickets increased last year.",
    )
]
RECORD = [
    (
        "biz#0",
        json.dumps(
            {
                "name": "Blue Cafe",
                "business_stars": 4.0,
                "hours": {"Monday": "10:0-16:0", "Tuesday": "10:0-16:0"},
                "attributes": {"WiFi": "free", "OutdoorSeating": "True"},
                "review_info": [
                    {
                        "review_date": "2013-04-05",
                        "review_stars": 5,
                        "review_text": "Lovely little place with friendly staff and great coffee, we will come back.",
                    }
                ],
            }
        ),
    )
]


@pytest.fixture(scope="module")
def local():
    return make_embedder("local")


def verdict(claim: str, passages, embedder) -> dict:
    [v] = judge_claims([claim], ContextIndex.build(passages, embedder), embedder)
    return v


@pytest.mark.slow  # loads the ONNX model
def test_a_date_must_be_in_the_sentence_that_supports_the_claim(local) -> None:
    v = verdict("Thomas was arrested on March 26 in Philadelphia.", NEWS, local)
    assert v["verdict"] != "supported" and v["reason"] == "figure '26' not in the supporting sentence"
    assert verdict("Thomas purchased a ticket to Barcelona on March 26.", NEWS, local)["verdict"] == "supported"


@pytest.mark.slow
def test_an_antonym_of_the_supporting_sentence_is_a_contradiction(local) -> None:
    v = verdict("Sales of tickets decreased last year.", NEWS, local)
    assert v["verdict"] == "contradicted" and "'decrease'" in v["reason"] and "'increase'" in v["reason"]


@pytest.mark.slow
def test_a_rating_is_read_from_the_record_field_not_the_review_year(local) -> None:
    v = verdict("Blue Cafe has a rating of 4.0 out of 5 stars.", RECORD, local)
    assert v["verdict"] == "supported" and "4.0" in v["evidence"]
    wrong = verdict("Blue Cafe has a rating of 3.5 out of 5 stars.", RECORD, local)
    assert wrong["verdict"] == "contradicted" and "'4.0'" in wrong["reason"]


@pytest.mark.slow
def test_record_fields_support_what_they_hold_and_nothing_else(local) -> None:
    opens = verdict("Blue Cafe opens at 10:00 am on Monday.", RECORD, local)
    assert opens["verdict"] == "supported" and "10:0-16:0" in opens["evidence"]
    assert verdict("Blue Cafe offers free WiFi and outdoor seating.", RECORD, local)["verdict"] == "supported"
    assert verdict("Blue Cafe offers free valet parking.", RECORD, local)["verdict"] != "supported"


def test_a_scale_is_not_a_figure_and_a_year_does_not_contradict_a_count() -> None:
    assert [q.text for q in extract_quantities("rated 4.0 out of 5 stars")] == ["4.0"]
    [stars] = extract_quantities("4.0 stars")
    [year] = extract_quantities("in 2013")
    assert not stars.conflicts_with(year)


def test_a_json_record_becomes_one_unit_per_field() -> None:
    units, structured = context_units(RECORD[0][1])
    assert structured and "business stars: 4.0" in units and "hours Monday: 10:0-16:0" in units
    assert context_units("Plain text. Two sentences.") == (["Plain text.", "Two sentences."], False)


def test_meta_sentences_and_refusals_are_not_claims() -> None:
    text = (
        "Here is a summary of the news in 175 words: According to passage 1, the cafe opens at 10. "
        "The passages do not provide specific information about parking. Parking is free."
    )
    assert claim_sentences(text) == ["The cafe opens at 10.", "Parking is free."]
    assert meta_free("Based on the provided passages, refunds take 30 days.") == "Refunds take 30 days."
