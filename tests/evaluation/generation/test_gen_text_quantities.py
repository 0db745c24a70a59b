"""Citations, sentence splitting, keyword matching, token F1, and figure normalisation."""

from __future__ import annotations

import pytest

from ragcov_tui.evaluation.generation import parse_citations
from ragcov_tui.evaluation.generation.quantities import conflicting_pairs, extract_quantities, missing_quantities
from ragcov_tui.evaluation.generation.text import contains_phrase, split_sentences, strip_citations, token_f1


def test_parse_citations_several_per_bracket_distinct_in_order() -> None:
    answer = (
        "Refunds take 30 days [billing.md#0-1a2b3c4d, faq.md#3-00ff00ff]. See [billing.md#0-1a2b3c4d]; "
        "a [link](https://x.y) and a [ ] box are not citations [guides/setup.md#2-abcdef12; x#1]."
    )
    assert parse_citations(answer) == [
        "billing.md#0-1a2b3c4d",
        "faq.md#3-00ff00ff",
        "guides/setup.md#2-abcdef12",
        "x#1",
    ]
    assert parse_citations("") == [] and parse_citations("no brackets") == []


def test_strip_citations_keeps_link_labels() -> None:
    assert strip_citations("It is $49 [a.md#0-1] per month. See [docs](http://d).") == "It is $49 per month. See docs."


def test_split_sentences_is_robust() -> None:
    text = (
        "The Pro plan costs $49.99 per month [a#1]. It adds v2.3.1 features, e.g. SSO. Dr. Smith wrote billing.md! "
        "Read https://x.com/a.b now.\n- First item\n2. Second item. Third sentence?"
    )
    assert split_sentences(text) == [
        "The Pro plan costs $49.99 per month.",
        "It adds v2.3.1 features, e.g. SSO.",
        "Dr. Smith wrote billing.md!",
        "Read https://x.com/a.b now.",
        "First item",
        "Second item.",
        "Third sentence?",
    ]


@pytest.mark.parametrize(
    "text,phrase,expected",
    [
        ("It costs 1,000 USD.", "1000", True),
        ("Use the login page", "log-in", True),
        ("The price is $49", "$49", True),
        ("REFUNDS are   Available", "refunds are available", True),
        ("Two refunds", "refund", True),
        ("concatenate", "cat", False),
        ("49.5 percent", "49", False),
        ("version 1.49", "49", False),
        ("It costs 49.00 dollars", "49", True),
    ],
)
def test_contains_phrase(text: str, phrase: str, expected: bool) -> None:
    assert contains_phrase(text, phrase) is expected


def test_token_f1() -> None:
    # content tokens: refunds, take, 30, days vs 30, days → P = 1/2, R = 1
    assert token_f1("Refunds take 30 days", "30 days") == pytest.approx(2 * 0.5 * 1 / (0.5 + 1))
    assert token_f1("the a of", "30 days") == 0.0


def figures(text: str) -> set[tuple]:
    return {(q.kind, q.value, q.unit) for q in extract_quantities(text)}


@pytest.mark.parametrize(
    "a,b",
    [
        ("$1,000", "1000 USD"),
        ("1k dollars", "$1000"),
        ("2 hours", "120 minutes"),
        ("15%", "15 percent"),
        ("5 GB", "5000 MB"),
        ("thirty days", "30 days"),
        ("a 30-day trial", "30 days"),
        ("v2.3.1", "version 2.3.1"),
        ("March 1, 2024", "2024-03-01"),
        ("1st March 2024", "2024-03-01"),
        ("$1.2M", "1,200,000 USD"),
    ],
)
def test_figures_normalise_to_the_same_quantity(a: str, b: str) -> None:
    assert figures(a) and figures(a) == figures(b)


def test_identifiers_and_plain_words_are_not_figures() -> None:
    assert figures("one of the plans") == set()
    assert figures("chunk abc123 and 1a2b3c4d, a 4G modem") == set()


def test_missing_and_conflicting_figures() -> None:
    context = extract_quantities("The Pro plan costs $49 per month and includes 5 team seats. Data is kept 90 days.")
    assert not missing_quantities(extract_quantities("It is 49 USD with 5 team seats"), context)
    made_up = extract_quantities("It has 12 regions")
    assert missing_quantities(made_up, context) and not conflicting_pairs(made_up, context)  # different noun
    assert conflicting_pairs(extract_quantities("It costs €49"), context)  # another currency
    assert conflicting_pairs(extract_quantities("It includes 8 team seats"), context)
    assert conflicting_pairs(extract_quantities("kept for 30 days"), context)
    assert not conflicting_pairs(extract_quantities("kept for 3 GB"), context)  # another unit
    march = extract_quantities("March 2024")
    assert not missing_quantities(march, extract_quantities("on March 1, 2024"))  # coarser date matches
