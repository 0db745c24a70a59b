"""Recursive token splitter: size bound, overlap, separators, stable ids, validation, speed."""

from __future__ import annotations

import random
import re
import time
from itertools import pairwise

import pytest

from ragcov_tui.corpus.chunking import chunk_documents, chunk_id
from ragcov_tui.corpus.models import Chunk, Document
from ragcov_tui.corpus.tokens import get_token_counter
from ragcov_tui.shared.errors import BadInput

WORDS = (
    "coverage retrieval chunk question corpus embedding cluster gap answer judge token "
    "paraphrase faithfulness context recall precision the a of and to in is for with"
).split()


def prose(rng: random.Random, paragraphs: int) -> str:
    def sentence() -> str:
        return " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 18))).capitalize() + rng.choice(".!?")

    return "\n\n".join(" ".join(sentence() for _ in range(rng.randint(1, 6))) for _ in range(paragraphs))


def random_text(rng: random.Random) -> str:
    pieces = [
        *WORDS,
        " ",
        "  ",
        "\n",
        "\n\n",
        "\n \n",
        ". ",
        "! ",
        "\t",
        "é",
        "日本語。",
        "🎉",
        "x" * rng.randint(1, 300),
    ]
    return "".join(rng.choice(pieces) for _ in range(rng.randint(0, 400)))


def squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def test_chunks_respect_size():
    text = prose(random.Random(1), 40)
    chunks = chunk_documents([Document("guide.md", text)], chunk_size=60, chunk_overlap=15)
    counter = get_token_counter()
    assert len(chunks) > 5
    for chunk in chunks:
        assert chunk.n_tokens == counter.count(chunk.text) <= 60
        assert chunk.text == chunk.text.strip() and chunk.text


def test_each_chunk_starts_with_the_tail_of_the_previous_one():
    sentences = [f"Fact {i} is about {WORDS[i % len(WORDS)]}." for i in range(60)]
    chunks = chunk_documents([Document("facts.txt", " ".join(sentences))], chunk_size=30, chunk_overlap=10)
    counter = get_token_counter()
    assert len(chunks) > 5
    for prev, nxt in pairwise(chunks):
        shared = max(
            (nxt.text[:k] for k in range(1, len(nxt.text)) if prev.text.endswith(nxt.text[:k])),
            key=len,
            default="",
        )
        assert shared.endswith(".") and shared.startswith("Fact")  # whole sentences carried over
        assert 0 < counter.count(shared) <= 10


def test_no_overlap_reproduces_the_document():
    text = prose(random.Random(2), 25)
    chunks = chunk_documents([Document("a.txt", text)], chunk_size=40, chunk_overlap=0)
    assert squash("".join(c.text for c in chunks)) == squash(text)


def test_positions_ids_and_sources():
    docs = [Document("a.md", prose(random.Random(3), 10)), Document("b/c.md", "Short one.")]
    chunks = chunk_documents(docs, chunk_size=50, chunk_overlap=5)
    by_source: dict[str, list[Chunk]] = {}
    for chunk in chunks:
        by_source.setdefault(chunk.source, []).append(chunk)
        assert chunk.id == chunk_id(chunk.source, chunk.position, chunk.text)
        assert re.fullmatch(re.escape(chunk.source) + r"#\d+-[0-9a-f]{8}", chunk.id)
    assert [c.position for c in by_source["a.md"]] == list(range(len(by_source["a.md"])))
    assert [c.text for c in by_source["b/c.md"]] == ["Short one."]


def test_ids_stable_across_runs_and_change_with_text():
    text = prose(random.Random(4), 12)
    first = [c.id for c in chunk_documents([Document("d.md", text)], chunk_size=50, chunk_overlap=10)]
    second = [c.id for c in chunk_documents([Document("d.md", text)], chunk_size=50, chunk_overlap=10)]
    assert first == second
    edited = text.replace("coverage", "COVERAGE", 1)
    third = [c.id for c in chunk_documents([Document("d.md", edited)], chunk_size=50, chunk_overlap=10)]
    changed = [a for a, b in zip(first, third, strict=False) if a != b]
    assert changed and len(third) == len(first)
    assert chunk_id("s", 0, "abc") == chunk_id("s", 0, "abc") != chunk_id("s", 0, "abd")


def test_paragraphs_are_kept_whole_when_they_fit():
    text = "First paragraph here.\n\nSecond paragraph, a bit longer than the first.\n\nThird."
    chunks = chunk_documents([Document("p.md", text)], chunk_size=12, chunk_overlap=0)
    assert [c.text for c in chunks] == [
        "First paragraph here.",
        "Second paragraph, a bit longer than the first.",
        "Third.",
    ]


def test_whitespace_inside_a_chunk_is_original():
    text = "Line  one\twith   spacing\nline two\n\n   "
    chunks = chunk_documents([Document("w.txt", text)], chunk_size=100, chunk_overlap=0)
    assert [c.text for c in chunks] == ["Line  one\twith   spacing\nline two"]


def test_blank_documents_give_no_chunks():
    assert chunk_documents([Document("e.txt", " \n\n\t ")]) == []


def test_unbroken_text_is_cut_into_character_windows():
    blob = "".join(random.Random(5).choice("abcdefghij0123456789+/") for _ in range(5000))
    chunks = chunk_documents([Document("b.txt", blob)], chunk_size=32, chunk_overlap=0)
    assert all(c.n_tokens <= 32 for c in chunks)
    assert "".join(c.text for c in chunks) == blob


def test_only_a_single_unsplittable_character_may_exceed():
    chunks = chunk_documents([Document("e.txt", "🎉🎉 ok")], chunk_size=1, chunk_overlap=0)
    counter = get_token_counter()
    assert counter.count("🎉") > 1
    for chunk in chunks:
        assert chunk.n_tokens <= 1 or chunk.text == "🎉"


@pytest.mark.parametrize("seed", range(40))
def test_property_random_texts(seed):
    rng = random.Random(seed)
    text = random_text(rng)
    size = rng.choice([1, 2, 5, 16, 50, 200])
    overlap = rng.randrange(0, size)
    chunks = chunk_documents([Document("r.txt", text)], chunk_size=size, chunk_overlap=overlap)
    counter = get_token_counter()
    for chunk in chunks:
        assert chunk.text and chunk.text == chunk.text.strip()
        assert chunk.text in text  # a contiguous span of the document
        assert chunk.n_tokens == counter.count(chunk.text)
        assert chunk.n_tokens <= size or len(chunk.text) == 1
    covered = squash("".join(c.text for c in chunks))
    assert set(covered) == set(squash(text))  # nothing but whitespace is lost
    if overlap == 0:
        assert covered == squash(text)


@pytest.mark.parametrize(
    ("size", "overlap", "message"),
    [
        (0, 0, "--chunk-size: expected a positive whole number of tokens"),
        (-5, 0, "--chunk-size: expected a positive whole number of tokens"),
        (2.5, 0, "--chunk-size: expected a positive whole number of tokens"),
        (100, 100, "--chunk-overlap"),
        (100, -1, "--chunk-overlap"),
        (100, 150, "--chunk-overlap"),
    ],
)
def test_invalid_settings(size, overlap, message):
    with pytest.raises(BadInput, match=re.escape(message)):
        chunk_documents([Document("a.txt", "text")], chunk_size=size, chunk_overlap=overlap)


def test_progress_per_document():
    calls = []
    docs = [Document(f"d{i}.txt", "Some text.") for i in range(3)]
    chunk_documents(docs, progress=lambda stage, done, total: calls.append((stage, done, total)))
    assert calls == [("chunking", i, 3) for i in range(4)]


def test_speed_one_megabyte_well_under_a_second():
    text = prose(random.Random(6), 3000)
    while len(text) < 1_000_000:
        text += "\n\n" + text
    docs = [Document(f"d{i}.md", text[i * 100_000 : (i + 1) * 100_000]) for i in range(10)]
    get_token_counter()  # exclude the one-off table load
    started = time.perf_counter()
    chunks = chunk_documents(docs)
    elapsed = time.perf_counter() - started
    assert chunks and elapsed < 1.0, f"1 MB took {elapsed:.2f} s"
