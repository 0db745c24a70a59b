"""``--metrics``: a list with an empty name is an error, never "every metric"."""

from __future__ import annotations

import pytest

from ragcov_tui.evaluation.metric_names import select_metrics
from ragcov_tui.evaluation.retrieval import metric_names
from ragcov_tui.shared.errors import BadInput


@pytest.mark.parametrize(
    "value", [",", ",,", " , ", "mrr,", ",mrr", "mrr,,hit", "mrr, ,hit", ["mrr", ""], [" "], ("",)]
)
def test_an_empty_metric_name_is_an_error(value) -> None:
    with pytest.raises(BadInput, match=r"--metrics: an empty metric name in .*leave --metrics out for all of them"):
        select_metrics(value, 5)


@pytest.mark.parametrize("value", [None, "", "   ", [], ()])
def test_nothing_given_means_every_metric(value) -> None:
    retrieval, generation = select_metrics(value, 5)
    assert retrieval == metric_names(5) and "faithfulness" in generation


@pytest.mark.parametrize(
    ("value", "expected"),
    [("mrr", (["mrr"], [])), (" mrr , hit ", (["hit@5", "mrr"], [])), (["faithfulness"], ([], ["faithfulness"]))],
)
def test_names_are_trimmed(value, expected) -> None:
    assert select_metrics(value, 5) == expected
