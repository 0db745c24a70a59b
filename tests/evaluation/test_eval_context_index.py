"""The reference-context matcher: which texts name which chunks, at which tier, and which must
name none (paraphrases at the text tiers, empty / very short texts, boilerplate)."""

from __future__ import annotations

import random

import pytest

from ragcov_tui.corpus.chunking import chunk_documents
from ragcov_tui.corpus.models import Chunk, Document
from ragcov_tui.evaluation.context_index import MAX_PLACES, ContextIndex, normalise

WORDS = (
    "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa "
    "quebec romeo sierra tango uniform victor whiskey xray yankee zulu amber basalt cobalt dune ember "
    "fjord glacier harbor iris jasper kelp lagoon meadow nectar orchid prairie quartz reef summit "
    "tundra umber valley willow"
).split()
BOILERPLATE = "All rights reserved by the Skein documentation team, see the licence page for details."


def _sentence(rng: random.Random) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(8, 14))]
    return words[0].capitalize() + " " + " ".join(words[1:]) + rng.choice([".", "!", "?", ";"])


def _documents() -> list[Document]:
    rng = random.Random(7)
    docs = []
    for d in range(12):
        paragraphs = ["\n".join(_sentence(rng) for _ in range(4)) for _ in range(6)]
        docs.append(Document(f"doc{d:02d}.md", "\n\n".join(paragraphs) + "\n\n" + BOILERPLATE))
    docs.append(
        Document(
            "unicode.md",
            "Der Straße entlang: ﬁnancial café naïve résumé ＦＵＬＬＷＩＤＴＨ text "
            "über die Brücke, 東京 の 天気 は 晴れ です, and then the end of the note.",
        )
    )
    return docs


DOCS = _documents()
CHUNKS = chunk_documents(DOCS, chunk_size=60, chunk_overlap=10)
INDEX = ContextIndex(DOCS, CHUNKS)
BY_DOC = {d.source: [c for c in CHUNKS if c.source == d.source] for d in DOCS}


def _chunk(doc: int, n: int) -> Chunk:
    return BY_DOC[f"doc{doc:02d}.md"][n]


@pytest.mark.parametrize("doc", range(12))
@pytest.mark.parametrize("n", [0, 1, 2])
@pytest.mark.parametrize(
    "change", ["as is", "upper", "lower", "spaces", "newlines", "no punctuation", "extra punctuation", "tabs and nbsp"]
)
def test_a_chunk_text_with_trivial_changes_matches_exactly_that_chunk(doc: int, n: int, change: str) -> None:
    chunk = _chunk(doc, n)
    text = {
        "as is": chunk.text,
        "upper": chunk.text.upper(),
        "lower": chunk.text.lower(),
        "spaces": "  " + chunk.text.replace(" ", "   ") + "  ",
        "newlines": chunk.text.replace(" ", "\n"),
        "no punctuation": "".join(ch for ch in chunk.text if ch.isalnum() or ch.isspace()),
        "extra punctuation": chunk.text.replace(" ", ", "),
        "tabs and nbsp": chunk.text.replace(" ", "\t\u00a0"),
    }[change]
    outcome, places = INDEX.find(text)
    assert outcome == "exact"
    assert len(places) == 1 and chunk.id in places[0].chunk_ids


@pytest.mark.parametrize("doc", range(0, 12, 2))
@pytest.mark.parametrize("cut", [(3, -3), (7, -1), (1, -11), (25, 90)])
def test_a_context_cut_mid_word_or_mid_sentence_still_matches(doc: int, cut: tuple[int, int]) -> None:
    chunk = _chunk(doc, 1)
    outcome, places = INDEX.find(chunk.text[cut[0] : cut[1]])
    assert outcome == "exact" and chunk.id in places[0].chunk_ids


@pytest.mark.parametrize("doc", range(12))
def test_a_context_spanning_two_chunks_names_both(doc: int) -> None:
    first, second = _chunk(doc, 0), _chunk(doc, 1)
    text = DOCS[doc].text
    start = text.index(first.text) + len(first.text) // 2
    end = text.index(second.text) + len(second.text) * 3 // 4
    outcome, places = INDEX.find(text[start:end])
    assert outcome == "exact"
    assert {first.id, second.id} <= set(places[0].chunk_ids)


@pytest.mark.parametrize("doc", range(12))
def test_a_chunk_holding_only_the_last_words_is_not_named(doc: int) -> None:
    first, second = _chunk(doc, 0), _chunk(doc, 2)
    text = DOCS[doc].text
    start = text.index(first.text)
    outcome, places = INDEX.find(text[start : start + len(first.text) - 30])
    assert outcome == "exact" and places[0].chunk_ids[0] == first.id
    assert second.id not in places[0].chunk_ids


@pytest.mark.parametrize("doc", range(12))
@pytest.mark.parametrize("every", [20, 30])
def test_a_few_changed_words_match_near_exactly(doc: int, every: int) -> None:
    """One word in 20 changed (an OCR slip, a fixed typo): 4 shingles in 20 lost, 80 % kept."""
    chunk = _chunk(doc, 1)
    start = DOCS[doc].text.index(chunk.text)
    words = DOCS[doc].text[start:].split()[:100]
    for i in range(every // 2, len(words), every):
        words[i] = "zzyzx"
    outcome, places = INDEX.find(" ".join(words))
    assert outcome == "near-exact" and chunk.id in places[0].chunk_ids
    assert 0.75 <= places[0].score < 1


def _paraphrase(text: str, rng: random.Random) -> str:
    """Same words, other order and other filler: what a paraphrase keeps of a text."""
    words = normalise(text).split()
    rng.shuffle(words)
    return " ".join(w + (" indeed" if i % 3 == 0 else "") for i, w in enumerate(words))


@pytest.mark.parametrize("doc", range(12))
@pytest.mark.parametrize("n", [0, 1])
def test_a_paraphrase_matches_at_no_text_tier(doc: int, n: int) -> None:
    outcome, places = INDEX.find(_paraphrase(_chunk(doc, n).text, random.Random(doc * 10 + n)))
    assert outcome == "unmatched" and places == []


@pytest.mark.parametrize(
    "text",
    [
        "",
        " ",
        "\n\t",
        ".",
        "?!",
        "a",
        "the",
        "Yes.",
        "alpha bravo",
        "alpha bravo charlie",
        "alpha bravo charlie delta",
        "…",
        "東京",
        "\x00",
        "- - - - - - - -",
    ],
)
def test_empty_or_very_short_contexts_match_nothing(text: str) -> None:
    assert INDEX.find(text) == ("too short", [])


def test_boilerplate_found_in_many_documents_is_ambiguous_not_everything() -> None:
    outcome, places = INDEX.find(BOILERPLATE)
    assert outcome == "ambiguous" and places == []
    assert MAX_PLACES < 12


@pytest.mark.parametrize(
    "text",
    [
        "Der Straße entlang: financial café naïve résumé FULLWIDTH text",  # NFKC: ligature, full width
        "DER STRASSE ENTLANG FINANCIAL CAFÉ NAÏVE RÉSUMÉ",  # casefold: ß → ss
        "über die Brücke, 東京 の 天気 は 晴れ です",
        "café naïve résumé ＦＵＬＬＷＩＤＴＨ text über",
    ],
)
def test_unicode_contexts_match_after_normalisation(text: str) -> None:
    outcome, places = INDEX.find(text)
    assert outcome == "exact" and places[0].chunk_ids == (BY_DOC["unicode.md"][0].id,)


@pytest.mark.parametrize("text", ["cafe naive resume fullwidth text uber die", "Der Strase entlang financial cafe x y"])
def test_accents_are_not_dropped(text: str) -> None:
    assert INDEX.find(text)[0] != "exact"


@pytest.mark.parametrize(
    "text",
    [
        "Nothing in this sentence appears anywhere in the corpus at all.",
        " ".join(WORDS[:30]),  # corpus words, never in this order
    ],
)
def test_text_from_elsewhere_is_unmatched(text: str) -> None:
    assert INDEX.find(text) == ("unmatched", [])


def test_prechunked_chunks_without_document_text_are_matched_on_their_own() -> None:
    chunks = [Chunk(id=f"p{i}", text=c.text, source="pre.jsonl", position=i) for i, c in enumerate(CHUNKS[:5])]
    index = ContextIndex([Document("pre.jsonl", "")], chunks)
    outcome, places = index.find(chunks[3].text[5:])
    assert outcome == "exact" and places[0].chunk_ids == ("p3",)


def test_an_empty_corpus_matches_nothing() -> None:
    assert ContextIndex([], []).find(_chunk(0, 0).text) == ("unmatched", [])


@pytest.mark.parametrize(
    "text, expected",
    [
        ("The  Team-plan: $8!", "the team plan 8"),
        ("snake_case_name", "snake case name"),
        ("ﬁ", "fi"),
        ("  \n", ""),
        ("Straße", "strasse"),
        ("a\u00a0b", "a b"),
    ],
)
def test_normal_form(text: str, expected: str) -> None:
    assert normalise(text) == expected


@pytest.mark.parametrize("seed", range(20))
def test_the_ascii_fast_path_gives_the_general_normal_form(seed: int) -> None:
    import re
    import unicodedata

    rng = random.Random(seed)
    for _ in range(500):
        text = "".join(chr(rng.randrange(0, 128)) for _ in range(rng.randrange(0, 40)))
        general = re.sub(r"[\W_]+", " ", unicodedata.normalize("NFKC", text).casefold()).strip()
        assert normalise(text) == general
