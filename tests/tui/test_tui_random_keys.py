"""Random key presses over every pane must never crash the app (seeded, so a failure replays).

An exception in any handler ends ``run_test`` with that exception, so each run fails on the first
crash and prints the seed and the keys pressed. The keys include triage (accept, drop, edit, undo,
mark) on the synthetic session's own test file, and an empty database gets the same treatment.
A run of this kind found the empty-Overview crash and the tab that could not be reached.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from ragcov_tui.tui.app import RagcovApp

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

KEYS = [
    "j",
    "k",
    "down",
    "up",
    "enter",
    "escape",
    "slash",
    "n",
    "N",
    "s",
    "h",
    "m",
    "p",
    "space",
    "c",
    "g",
    "a",
    "d",
    "u",
    "e",
    "r",
    "x",
    "1",
    "right_square_bracket",
    "left_square_bracket",
    "question_mark",
    "tab",
    "pagedown",
    "pageup",
    "q",
    "G",
    "home",
    "end",
    "b",
    "3",
    "7",
    "shift+tab",
]  # + issue #10 keys


async def press_randomly(app: RagcovApp, seed: int, presses: int, size: tuple[int, int]) -> None:
    rnd = random.Random(seed)
    pressed: list[str] = []
    app.animation_level = "none"  # the tab underline's animation would otherwise pace every press
    async with app.run_test(size=size) as pilot:
        for i in range(presses):
            pressed.append(rnd.choice(KEYS))
            try:
                await pilot.press(pressed[-1])
                if i % 8 == 0:
                    await pilot.pause()
            except Exception as exc:  # name the replay in the failure
                raise AssertionError(f"seed {seed}: crashed after {pressed}") from exc
        await pilot.pause()


@pytest.mark.parametrize("seed, size", [(1, (80, 24)), (2, (120, 40))])
async def test_random_keys_on_sessions_never_crash(tui_db: Path, seed: int, size: tuple[int, int]) -> None:
    await press_randomly(RagcovApp(tui_db, "a0000001"), seed, 120, size)


async def test_random_keys_on_an_empty_database_never_crash(tmp_path: Path) -> None:
    await press_randomly(RagcovApp(tmp_path / "empty.db"), 3, 80, (80, 24))
