"""Gold ids are matched against the corpus before any work: normalised when unambiguous, an
error naming examples when most questions match nothing, never a silent 0.000."""

from __future__ import annotations

import pytest

from ragcov_tui.corpus.models import Chunk
from ragcov_tui.shared.errors import BadInput
from ragcov_tui.testset.gold_ids import match_gold_ids
from ragcov_tui.testset.models import Question

DOCS = ["billing-and-plans.md", "guides/setup.md", "guides/export.md", "v2/api/auth.md", "notes.txt", "faq.md"]


def corpus() -> list[Chunk]:
    return [Chunk(id=f"{d}#{p}-abcdef{p:02d}", text="t", source=d, position=p) for d in DOCS for p in range(2)]


@pytest.mark.parametrize(
    "gold, expected, rule",
    [
        ("billing-and-plans.md", "billing-and-plans.md", None),
        ("guides/setup.md#1-abcdef01", "guides/setup.md#1-abcdef01", None),
        ("  ./guides/setup.md ", "guides/setup.md", "cleaned"),
        ("guides\\setup.md", "guides/setup.md", "cleaned"),
        ("sample_data/corpus/billing-and-plans.md", "billing-and-plans.md", "relative"),
        ("sample_data/corpus/guides/export.md", "guides/export.md", "relative"),
        ("corpus/guides/export.md", "guides/export.md", "prefix"),
        ("elsewhere/billing-and-plans.md", "billing-and-plans.md", "prefix"),
        ("api/auth.md", "v2/api/auth.md", "suffix"),
        ("auth.md", "v2/api/auth.md", "suffix"),
        ("billing-and-plans", "billing-and-plans.md", "file stem"),
        ("notes", "notes.txt", "file stem"),
        ("faq.markdown", "faq.md", "file stem"),
        ("guides/setup.md#7-00000000", "guides/setup.md", "chunk→document"),
        ("sample_data/corpus/faq.md#0-abcdef99", "faq.md", "chunk→document"),
    ],
)
def test_each_normalisation(gold: str, expected: str, rule: str | None) -> None:
    questions = [Question(id="q", text="?", gold={gold: 2.0})]
    result = match_gold_ids(questions, corpus(), roots=["sample_data/corpus"])
    assert questions[0].gold == {expected: 2.0}
    assert result.matched == 1 and not result.unmatched
    assert (result.exact == 1) if rule is None else (dict(result.normalised) == {rule: 1})


@pytest.mark.parametrize("gold", ["setup.md#0-abcdef00", "export", "unknown.md", "guides", "faq.md#nope"])
def test_ambiguous_or_unknown_ids_stay_as_they_are(gold: str) -> None:
    chunks = corpus() + [
        Chunk(id="other/setup.md#0-1", text="t", source="other/setup.md", position=0),
        Chunk(id="export.txt#0-1", text="t", source="export.txt", position=0),
    ]
    questions = [
        Question(id="q", text="?", gold={gold: 1.0}),
        Question(id="r", text="?", gold={"faq.md": 1.0}),
        Question(id="s", text="?", gold={"faq.md": 1.0}),
    ]
    result = match_gold_ids(questions, chunks)
    assert questions[0].gold == {gold: 1.0}
    assert len(result.unmatched) + len(result.ambiguous) == 1


def test_path_prefix_case_says_so_in_one_line() -> None:
    questions = [Question(id=f"q{i}", text="?", gold={f"sample_data/corpus/{d}": 1.0}) for i, d in enumerate(DOCS)]
    warnings: list[str] = []
    result = match_gold_ids(questions, corpus(), roots=["sample_data/corpus"], warn=warnings.append)
    assert result.matched == len(DOCS) and result.questions_matched == len(DOCS)
    assert len(warnings) == 1
    assert warnings[0].startswith(
        f"gold ids: {len(DOCS)} distinct ids matched the corpus after normalisation: path relative to the corpus root"
    )
    assert "'sample_data/corpus/billing-and-plans.md' → 'billing-and-plans.md'" in warnings[0]


def test_mostly_unmatched_is_an_error_naming_ids_corpus_ids_and_what_was_tried() -> None:
    questions = [Question(id=f"q{i}", text="?", gold={f"nope-{i}.pdf": 1.0}) for i in range(5)]
    questions.append(Question(id="ok", text="?", gold={"faq.md": 1.0}))
    with pytest.raises(BadInput) as err:
        match_gold_ids(questions, corpus())
    message = str(err.value)
    assert "\n" not in message
    assert "only 1 of 6 questions with gold ids match the corpus" in message
    assert "'nope-0.pdf', 'nope-1.pdf', 'nope-2.pdf'" in message and "nope-3" not in message
    assert "corpus ids: 'billing-and-plans.md', 'guides/setup.md', 'guides/export.md'" in message
    assert "tried exact, then cleaned, relative, prefix, suffix, chunk→document, file name, file stem" in message


def test_half_matching_goes_on_and_warns_about_the_rest() -> None:
    questions = [Question(id="a", text="?", gold={"faq.md": 1.0}), Question(id="b", text="?", gold={"zzz.md": 1.0})]
    warnings: list[str] = []
    result = match_gold_ids(questions, corpus(), warn=warnings.append)
    assert result.as_dict()["matched"] == 1 and result.as_dict()["unmatched"] == 1
    assert warnings == ["gold ids: 1 of 2 distinct ids match no corpus id and score as not retrieved (e.g. 'zzz.md')"]


def test_grade_zero_ids_and_questions_without_gold_are_not_counted() -> None:
    questions = [Question(id="a", text="?", gold={"faq.md": 1.0, "zzz": 0.0}), Question(id="b", text="?")]
    result = match_gold_ids(questions, corpus())
    assert (result.questions_with_gold, result.ids, result.matched) == (1, 1, 1)
    assert questions[0].gold == {"faq.md": 1.0, "zzz": 0.0}


def test_two_gold_ids_naming_one_document_keep_the_higher_grade() -> None:
    questions = [Question(id="a", text="?", gold={"faq": 1.0, "faq.md": 3.0})]
    match_gold_ids(questions, corpus())
    assert questions[0].gold == {"faq.md": 3.0}
