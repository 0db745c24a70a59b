"""Chart axes: counts get whole-number ticks at an even 1-2-5 step; fixed ranges get quarters."""

from __future__ import annotations

from itertools import pairwise

import pytest

from ragcov_tui.tui.widgets.charts import even_ticks, whole_ticks


@pytest.mark.parametrize("top", [0, 0.5, 1, 2, 3, 7, 9.5, 10, 17, 47, 99, 100, 123, 999, 1000, 12_345, 10**7])
@pytest.mark.parametrize("slots", [2, 3, 5, 8, 12])
def test_whole_ticks_are_even_whole_numbers_covering_the_top(top: float, slots: int) -> None:
    ticks = whole_ticks(top, slots)
    assert all(isinstance(t, int) for t in ticks) and ticks[0] == 0
    steps = {b - a for a, b in pairwise(ticks)}
    assert len(steps) == 1
    step = steps.pop()
    assert str(step).rstrip("0") in ("1", "2", "5")
    assert ticks[-1] >= top and ticks[-1] - step < max(top, 1)
    assert len(ticks) <= max(slots, 2)


@pytest.mark.parametrize(
    ("top", "slots", "expected"),
    [
        (3, 5, [0, 1, 2, 3]),
        (7, 5, [0, 2, 4, 6, 8]),
        (17, 5, [0, 5, 10, 15, 20]),
        (47, 8, [0, 10, 20, 30, 40, 50]),
        (0, 5, [0, 1]),
    ],
)
def test_whole_ticks_examples(top: float, slots: int, expected: list[int]) -> None:
    assert whole_ticks(top, slots) == expected


@pytest.mark.parametrize(
    ("slots", "expected"),
    [(8, [0, 0.25, 0.5, 0.75, 1]), (5, [0, 0.25, 0.5, 0.75, 1]), (4, [0, 0.5, 1]), (2, [0, 0.5, 1])],
)
def test_even_ticks(slots: int, expected: list[float]) -> None:
    assert even_ticks(0.0, 1.0, slots) == expected
