"""No silent LLM fallback (issue #17, group 6): gaps whose LLM themes failed are counted, warned
about once with the cause, and a run where not one call succeeded fails unless allowed."""

from __future__ import annotations

import pytest

from ragcov_tui.coverage.themes import HEURISTIC, ClusterThemes, check_llm_fallback, llm_fallback
from ragcov_tui.shared.errors import ProviderError

LLM = "llm:openai:m"


def themes(origins: str) -> list[ClusterThemes]:
    """One cluster per letter: ``l`` LLM themes, ``f`` the LLM failed, ``h`` heuristic (no gap)."""
    out = []
    for i, kind in enumerate(origins):
        t = ClusterThemes([f"t{i}"], origin=LLM if kind == "l" else HEURISTIC)
        if kind == "f":
            t.fallback = f"cause {i}"
        out.append(t)
    return out


@pytest.mark.parametrize(
    "origins,expected",
    [
        ("", None),
        ("hhh", None),
        ("lll", None),
        ("lhl", None),
        ("f", {"gaps": 1, "asked": 1, "cause": "cause 0"}),
        ("hflf", {"gaps": 2, "asked": 3, "cause": "cause 1"}),
        ("ffff", {"gaps": 4, "asked": 4, "cause": "cause 0"}),
        ("lllf", {"gaps": 1, "asked": 4, "cause": "cause 3"}),
    ],
)
def test_llm_fallback_counts_the_gaps_that_fell_back(origins: str, expected) -> None:
    assert llm_fallback(themes(origins)) == expected


@pytest.mark.parametrize("origins", ["", "lll", "hlh"])
@pytest.mark.parametrize("allow", [False, True])
def test_nothing_is_said_when_nothing_fell_back(origins: str, allow: bool) -> None:
    said: list[str] = []
    check_llm_fallback(themes(origins), "openai:m", allow=allow, warn=said.append)
    assert said == []


@pytest.mark.parametrize("allow", [False, True])
def test_a_partial_fallback_warns_once_with_the_cause(allow: bool) -> None:
    said: list[str] = []
    check_llm_fallback(themes("lfhf"), "openai:m", allow=allow, warn=said.append)
    assert said == ["--llm openai:m: themes and questions of 2 of 3 gaps fell back to the heuristic (cause 1)"]


@pytest.mark.parametrize("origins", ["f", "ff", "hfhf"])
def test_no_call_succeeding_is_an_error_unless_allowed(origins: str) -> None:
    said: list[str] = []
    with pytest.raises(ProviderError) as err:
        check_llm_fallback(themes(origins), "openai:m", allow=False, warn=said.append)
    assert said == [] and str(err.value).startswith("--llm openai:m: themes and questions of every gap fell back")
    assert str(err.value).endswith("pass --allow-fallback to accept heuristic themes")
    check_llm_fallback(themes(origins), "openai:m", allow=True, warn=said.append)
    assert len(said) == 1 and "every gap fell back to the heuristic" in said[0]
    check_llm_fallback(themes(origins), "openai:m", allow=True, warn=None)  # --quiet: nothing to print
