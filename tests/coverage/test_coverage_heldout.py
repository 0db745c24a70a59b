"""The held-out-topic check in small (what benchmarks/heldout_topic.py measures on public corpora):
drop every question of one topic (or of two documents) from a synthetic corpus, and the gap list
and the document view must lead with what the test set now misses."""

from __future__ import annotations

import pytest

from tests.coverage.heldout_data import heldout_case, topic_of
from tests.support.present import present

CASES = [(seed, topic) for seed in range(6) for topic in (0, 3)]


@pytest.mark.parametrize("gold", [True, False], ids=["gold radius", "nearest-chunk radius"])
@pytest.mark.parametrize("seed, topic", CASES)
def test_a_held_out_topic_is_the_first_gap_and_tops_the_document_view(seed, topic, gold):
    result, held = heldout_case(seed=seed, held_out={(topic, d) for d in range(5)}, gold=gold)
    report = result.to_report(details=False)
    assert report["gaps"], report["calibration"]["gaps_text"]
    assert report["gaps"][0]["cluster"] in topic_of(result, held)
    assert len(report["gaps"]) < len(report["clusters"])  # not every cluster is a gap
    assert {d["source"] for d in report["documents"][: len(held)]} == held
    assert all(d["unreached"] for d in report["documents"] if d["source"] in held)
    assert report["calibration"]["radius_from"] == ("gold" if gold else "nearest chunk")
    if gold:
        assert set(present(report["gold"])["unnamed"]) == held
    else:
        assert report["gold"] is None


@pytest.mark.parametrize("seed, topic", CASES)
def test_a_narrow_held_out_topic_is_named_not_averaged_away(seed, topic):
    result, held = heldout_case(seed=seed, held_out={(topic, 1), (topic, 3)})
    report = result.to_report(details=False)
    assert {d["source"] for d in report["documents"][:2]} == held  # the document view leads with them
    assert all(d["unreached"] and d["gold_count"] == 0 for d in report["documents"][:2])
    assert set(present(report["gold"])["unnamed"]) == held
    named = set()
    for c in report["clusters"]:  # the held-out documents' clusters list them as their unreached part
        named |= set(c["unreached_documents"]) & held
    assert named == held
