"""Issue #14 item 6: a row without an id is known by its content id, so a row dropped, inserted or
moved by hand moves no other row's id; rows sharing one text get ``-2``, ``-3``… in file order."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from ragcov_tui.shared.errors import BadInput
from ragcov_tui.testset import writer
from ragcov_tui.testset.ids import content_id, content_ids
from ragcov_tui.testset.reader import read_testset

TEXTS = [
    "How much does the Team plan cost?",
    "Which identity providers work with SSO?",
    "How do I export a workspace?",
    "What is the API rate limit?",
    "Can guests edit pages?",
    "Wie funktioniert die Rückerstattung?",
    "Qu'est-ce que l'été 日本語 covers?",
]


def _jsonl(texts: list[str]) -> str:
    return "".join(json.dumps({"user_input": t, "reference": "R."}, ensure_ascii=False) + "\n" for t in texts)


def _json(texts: list[str]) -> str:
    return json.dumps([{"query": t} for t in texts], indent=2, ensure_ascii=False)


def _csv(texts: list[str]) -> str:
    out = io.StringIO()
    rows = csv.writer(out, lineterminator="\n")
    rows.writerow(["", "question", "answer"])  # pandas' index column
    rows.writerows([i, t, "A."] for i, t in enumerate(texts))
    return out.getvalue()


FORMATS = {"t.jsonl": _jsonl, "t.json": _json, "t.csv": _csv}


def ids_of(tmp_path: Path, name: str, texts: list[str]) -> list[str]:
    path = tmp_path / name
    path.write_text(FORMATS[name](texts), encoding="utf-8")
    testset = read_testset(path)
    assert not testset.has_ids and not any(q.id_in_file for q in testset.questions)
    assert [q.text for q in testset.questions] == texts
    return [q.id for q in testset.questions]


def test_the_content_id_is_pinned() -> None:
    """Stored sessions know id-less rows by this value: a change of the hash or of the
    normalisation would unpair every old session, so it is pinned literally."""
    assert content_id("How much does the Team plan cost?") == "q-e1023b54dc"
    assert content_id("  how much does the team plan COST ?! ") == "q-e1023b54dc"


@pytest.mark.parametrize("name", FORMATS)
def test_rows_without_ids_get_their_content_ids(tmp_path: Path, name: str) -> None:
    assert ids_of(tmp_path, name, TEXTS) == [content_id(t) for t in TEXTS]


@pytest.mark.parametrize("name", FORMATS)
@pytest.mark.parametrize("dropped", range(len(TEXTS)))
def test_dropping_a_row_keeps_every_other_id(tmp_path: Path, name: str, dropped: int) -> None:
    before = dict(zip(TEXTS, ids_of(tmp_path, name, TEXTS), strict=True))
    left = TEXTS[:dropped] + TEXTS[dropped + 1 :]
    assert ids_of(tmp_path, name, left) == [before[t] for t in left]


@pytest.mark.parametrize("name", FORMATS)
@pytest.mark.parametrize("edit", ["insert at the top", "insert in the middle", "reverse", "rotate"])
def test_inserting_or_moving_rows_keeps_every_id(tmp_path: Path, name: str, edit: str) -> None:
    before = dict(zip(TEXTS, ids_of(tmp_path, name, TEXTS), strict=True))
    new = "A question a teammate added?"
    after = {
        "insert at the top": [new, *TEXTS],
        "insert in the middle": [*TEXTS[:3], new, *TEXTS[3:]],
        "reverse": TEXTS[::-1],
        "rotate": TEXTS[2:] + TEXTS[:2],
    }[edit]
    assert ids_of(tmp_path, name, after) == [before.get(t, content_id(new)) for t in after]


@pytest.mark.parametrize("name", FORMATS)
def test_rows_sharing_a_text_get_suffixes_in_file_order(tmp_path: Path, name: str) -> None:
    a, b = TEXTS[0], TEXTS[1]
    texts = [a, b, a.upper(), a.rstrip("?") + " ?!", b]  # equal under text_key: one content id
    base_a, base_b = content_id(a), content_id(b)
    assert ids_of(tmp_path, name, texts) == [base_a, base_b, f"{base_a}-2", f"{base_a}-3", f"{base_b}-2"]
    # the one case where ids move: dropping the first of a text makes the next take its id
    assert ids_of(tmp_path, name, texts[1:]) == [base_b, base_a, f"{base_a}-2", f"{base_b}-2"]
    # dropping a later one moves only the ids of that text after it
    assert ids_of(tmp_path, name, texts[:2] + texts[3:]) == [base_a, base_b, f"{base_a}-2", f"{base_b}-2"]


def test_explicit_ids_win_over_content_ids(tmp_path: Path) -> None:
    """A file where some rows carry ids: an id as written is never changed; a row without one
    whose content id is taken (even by a row further down) gets the next suffix."""
    taken = content_id("B?")
    path = tmp_path / "mixed.jsonl"
    path.write_text(
        json.dumps({"question": "B?"})
        + "\n"
        + json.dumps({"question": "B?"})
        + "\n"
        + json.dumps({"id": taken, "question": "A?"})
        + "\n"
        + json.dumps({"id": f"{taken}-3", "question": "C?"})
        + "\n"
    )
    testset = read_testset(path)
    assert [q.id for q in testset.questions] == [f"{taken}-2", f"{taken}-4", taken, f"{taken}-3"]
    assert [q.id_in_file for q in testset.questions] == [False, False, True, True] and testset.has_ids


def test_a_repeated_explicit_id_is_still_refused(tmp_path: Path) -> None:
    path = tmp_path / "dup.jsonl"
    path.write_text('{"question": "A?"}\n{"id": "x", "question": "B?"}\n{"id": "x", "question": "C?"}\n')
    with pytest.raises(BadInput, match=r"dup.jsonl:3: duplicate id 'x' \(also on line 2\)"):
        read_testset(path)


@pytest.mark.parametrize(
    ("texts", "taken", "expected"),
    [
        ([], set(), []),
        (["A?"], set(), ["A"]),
        (["A?", "a", "A ?"], set(), ["A", "A-2", "A-3"]),
        (["A?"], {"A"}, ["A-2"]),
        (["A?", "A?"], {"A", "A-2"}, ["A-3", "A-4"]),
        (["A?", "B?", "A?"], {"A-2"}, ["A", "B", "A-3"]),
    ],
)
def test_content_ids_suffix_the_taken_ones(texts: list[str], taken: set[str], expected: list[str]) -> None:
    names = {"A": content_id("A"), "B": content_id("B")}
    real_taken = {names[t[0]] + t[1:] for t in taken}
    got = content_ids(texts, real_taken)
    assert got == [names[e[0]] + e[1:] for e in expected]
    assert set(got) <= real_taken  # each id given is now taken


def test_many_rows_of_one_text_are_numbered_in_linear_time() -> None:
    ids = content_ids(["Same?"] * 5000, set())
    assert ids[0] == content_id("Same?") and ids[-1] == f"{content_id('Same?')}-5000" and len(set(ids)) == 5000


@pytest.mark.parametrize("name", FORMATS)
def test_a_new_row_in_a_file_without_ids_reads_back_with_its_content_id(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_text(FORMATS[name](TEXTS[:3] + [TEXTS[0]]), encoding="utf-8")  # a duplicate already there
    before = path.read_bytes()
    edit = writer.plan_append(writer.snapshot(path), TEXTS[4], {"source": "ragcov"})
    assert edit.question_id == content_id(TEXTS[4])
    result = writer.commit(edit)
    testset = read_testset(path)
    assert testset.questions[-1].id == content_id(TEXTS[4]) and not testset.has_ids
    assert [q.id for q in testset.questions[:-1]] == [content_id(t) for t in TEXTS[:3]] + [f"{content_id(TEXTS[0])}-2"]
    writer.drop_question(path, content_id(TEXTS[1]), expected_sha256=result.sha_after)
    assert [q.id for q in read_testset(path).questions] == (
        [content_id(TEXTS[0]), content_id(TEXTS[2]), f"{content_id(TEXTS[0])}-2", content_id(TEXTS[4])]
    )
    writer.restore_backup(path, result.backup_path, expected_sha256=read_testset(path).sha256)
    assert path.read_bytes() == before
