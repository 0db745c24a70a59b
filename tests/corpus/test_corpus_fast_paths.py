"""Loading a large corpus of short documents stays cheap: one token count per document that fits,
and the token counter loads without bpe-openai's wrapper parsing every table it ships."""

from __future__ import annotations

import subprocess
import sys

import pytest

from ragcov_tui.corpus.chunking import _Splitter, chunk_documents
from ragcov_tui.corpus.models import Document
from ragcov_tui.corpus.tokens import get_token_counter


class CountingCounter:
    def __init__(self) -> None:
        self.inner = get_token_counter()
        self.calls = 0

    def count(self, text: str) -> int:
        self.calls += 1
        return self.inner.count(text)


@pytest.mark.parametrize(
    "text", ["Title\n\nA short abstract. It has two sentences.", "one line", "  padded \n\n text  "]
)
def test_a_document_that_fits_is_counted_once_and_is_one_chunk(text: str) -> None:
    counter = CountingCounter()
    spans = _Splitter(counter, 500, 50).chunk_spans(text)  # type: ignore[arg-type]
    assert counter.calls == 1 and len(spans) == 1
    assert text[spans[0].start : spans[0].end].strip() == text.strip()
    assert spans[0].tokens == get_token_counter().count(text.strip())


def test_fitting_and_long_documents_chunk_as_before() -> None:
    long = "\n\n".join(f"Paragraph {i}. " + "word " * 120 for i in range(12))
    chunks = chunk_documents(
        [Document("a", "Title\n\nBody text."), Document("b", long), Document("c", "   ")],
        chunk_size=200,
        chunk_overlap=20,
    )
    assert [c.source for c in chunks].count("a") == 1 and chunks[0].text == "Title\n\nBody text."
    assert [c.source for c in chunks].count("b") > 6 and all(c.n_tokens <= 200 for c in chunks)
    assert "c" not in {c.source for c in chunks}


def test_progress_reports_are_bounded_for_large_corpora() -> None:
    calls: list[int] = []
    chunk_documents([Document(str(i), f"doc {i}") for i in range(5000)], progress=lambda s, d, t: calls.append(d))
    assert calls[0] == 0 and calls[-1] == 5000 and len(calls) <= 510


def test_token_counter_skips_the_wrapper_that_parses_every_table() -> None:
    code = (
        "import sys; from ragcov_tui.corpus.tokens import get_token_counter; c = get_token_counter(); "
        "print(c.backend, c.count('hello world'), 'bpe_openai.compat' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    if out[0] == "bpe-openai":
        assert out[1:] == ["2", "False"]
