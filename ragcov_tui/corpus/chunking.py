"""Cutting documents into token-bounded chunks: a recursive character splitter.

The method of LangChain's ``RecursiveCharacterTextSplitter`` with tokens as the length unit:
split a text at the coarsest separator it contains (blank line → line break → sentence end →
whitespace → fixed character windows), keep each piece of at most ``chunk_size`` tokens, split
bigger pieces again at the next separator, then merge adjacent pieces greedily into chunks of
at most ``chunk_size`` tokens, starting each new chunk with the trailing pieces of the previous
one that total at most ``chunk_overlap`` tokens.

Pieces are character spans of the document with the separator kept at the start of the next
piece, so a chunk is ``text[start:end].strip()``: whitespace inside a chunk is the original.
Each piece is tokenised once and window sizes are sums of piece counts; every emitted chunk is
then counted exactly once (that count is ``n_tokens``), and a chunk whose exact count exceeds
``chunk_size`` (token merges across piece borders can differ from the sum) gives back its last
pieces to the next chunk. The only chunks above ``chunk_size`` are single unsplittable pieces
(one character that alone is more tokens than ``chunk_size``).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from itertools import pairwise

from ragcov_tui.corpus.models import Chunk, Document
from ragcov_tui.corpus.tokens import TokenCounter, get_token_counter
from ragcov_tui.shared.errors import BadInput
from ragcov_tui.shared.progress import Progress, report

SEPARATORS: tuple[re.Pattern[str], ...] = (
    re.compile(r"\n[ \t]*\n"),  # paragraph: a blank line
    re.compile(r"\n"),  # line
    re.compile(r"(?<=[.!?])\s+|(?<=[。！？])(?=\S)"),  # sentence end
    re.compile(r"\s+"),  # word
)
# Characters per window at the last level: a character is at most 4 UTF-8 bytes and a token
# at least one byte, so a window of chunk_size // 4 characters never exceeds chunk_size tokens.
BYTES_PER_CHAR_MAX = 4
# English prose runs ~4 characters per cl100k token; a text longer than this many characters per
# token of the budget cannot plausibly fit, so it is not counted whole before being split.
MAX_CHARS_PER_TOKEN = 8
DEFAULT_CHUNK_SIZE = 500  # tokens; the defaults of every chunking entry point and options dataclass
DEFAULT_CHUNK_OVERLAP = 50


@dataclass(frozen=True)
class _Piece:
    """A span ``text[start:end]``, its token count, and the separator level that cut it."""

    start: int
    end: int
    tokens: int
    level: int = len(SEPARATORS)


class _Splitter:
    """Splits one text into chunk spans; see the module docstring for the method."""

    def __init__(self, counter: TokenCounter, chunk_size: int, chunk_overlap: int) -> None:
        self.counter = counter
        self.size = chunk_size
        self.overlap = chunk_overlap
        self.window_chars = max(1, chunk_size // BYTES_PER_CHAR_MAX)

    def chunk_spans(self, text: str) -> list[_Piece]:
        """Chunk spans of ``text`` in order; ``tokens`` is the exact count of the stripped span.

        A text that may fit (at most ``MAX_CHARS_PER_TOKEN`` characters per token of budget) is
        counted whole first and, when it fits, is its own one chunk: one count instead of one per
        piece plus the merge's (an abstract, a FAQ entry).
        """
        if text.strip() and len(text) <= MAX_CHARS_PER_TOKEN * self.size:
            whole = self.counter.count(text.strip())
            if whole <= self.size:
                return [_Piece(0, len(text), whole)]
        return self._split(text, 0, len(text), 0)

    def _segments(self, text: str, start: int, end: int, level: int) -> tuple[int, list[int]]:
        """The first level from ``level`` on whose separator occurs inside the span, and the
        boundaries it cuts at (character windows once no separator is left)."""
        for current in range(level, len(SEPARATORS)):
            cuts = [m.start() for m in SEPARATORS[current].finditer(text, start, end) if m.start() > start]
            if cuts:
                return current, cuts
        return len(SEPARATORS), list(range(start + self.window_chars, end, self.window_chars))

    def _split(self, text: str, start: int, end: int, level: int) -> list[_Piece]:
        level, cuts = self._segments(text, start, end, level)
        bounds = [start, *cuts, end]
        chunks: list[_Piece] = []
        fitting: list[_Piece] = []
        for seg_start, seg_end in pairwise(bounds):
            tokens = self.counter.count(text[seg_start:seg_end])
            if tokens <= self.size:
                fitting.append(_Piece(seg_start, seg_end, tokens, level))
                continue
            chunks.extend(self._merge(text, fitting))
            fitting = []
            chunks.extend(self._split_further(text, _Piece(seg_start, seg_end, tokens, level)))
        chunks.extend(self._merge(text, fitting))
        return chunks

    def _split_further(self, text: str, piece: _Piece) -> list[_Piece]:
        """Chunks of a piece too big on its own, cut at the next level; a piece cut at the
        character level cannot be cut again and becomes one (oversized) chunk."""
        if piece.level < len(SEPARATORS):
            return self._split(text, piece.start, piece.end, piece.level + 1)
        return [_Piece(piece.start, piece.end, self.counter.count(text[piece.start : piece.end].strip()))]

    def _merge(self, text: str, pieces: list[_Piece]) -> list[_Piece]:
        """Greedy merge of pieces (each ≤ chunk_size tokens) into overlapping chunks."""
        chunks: list[_Piece] = []
        window: list[_Piece] = []
        total = 0
        for piece in pieces:
            while window and total + piece.tokens > self.size:
                window, total = self._flush(text, window, chunks, incoming=piece.tokens)
            window.append(piece)
            total += piece.tokens
        while window:
            window, total = self._flush(text, window, chunks, incoming=None)
        return chunks

    def _flush(
        self, text: str, window: list[_Piece], chunks: list[_Piece], incoming: int | None
    ) -> tuple[list[_Piece], int]:
        """Emit the longest prefix of ``window`` whose exact count fits (a single piece that
        does not fit once stripped is split further instead); return the pieces the next chunk
        starts with and their token sum: the pieces not emitted, preceded by the longest proper
        suffix of the emitted ones that fits in ``chunk_overlap`` and leaves room for them and
        the ``incoming`` piece."""
        used = len(window)
        while True:
            start, end = window[0].start, window[used - 1].end
            exact = self.counter.count(text[start:end].strip())
            if exact <= self.size:
                chunks.append(_Piece(start, end, exact))
                break
            if used == 1:
                chunks.extend(self._split_further(text, window[0]))
                break
            used -= 1
        rest = window[used:]
        if incoming is None and not rest:
            return [], 0
        room = self.size - sum(p.tokens for p in rest) - (incoming or 0)
        tail = 0
        keep_from = used
        while keep_from > 1:
            candidate = window[keep_from - 1].tokens
            if tail + candidate > min(self.overlap, room):
                break
            tail += candidate
            keep_from -= 1
        kept = window[keep_from:]
        return kept, sum(p.tokens for p in kept)


def chunk_id(source: str, position: int, text: str) -> str:
    """The stable chunk id: ``f"{source}#{position}-{sha256(text)[:8]}"``."""
    return f"{source}#{position}-{hashlib.sha256(text.encode('utf-8')).hexdigest()[:8]}"


def validate_chunking(
    chunk_size: int, chunk_overlap: int, size_from: str = "--chunk-size", overlap_from: str = "--chunk-overlap"
) -> None:
    """The one check of a chunking: BadInput unless ``chunk_size ≥ 1`` and ``0 ≤ chunk_overlap <
    chunk_size``, naming where the bad value came from (``size_from`` / ``overlap_from``: a flag, a
    form field, a variable or a ``ragcov.toml`` key; the settings merge passes its origins)."""
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, int) or chunk_size < 1:
        raise BadInput(f"{size_from}: expected a positive whole number of tokens, got {chunk_size!r}")
    if isinstance(chunk_overlap, bool) or not isinstance(chunk_overlap, int) or not 0 <= chunk_overlap < chunk_size:
        raise BadInput(
            f"{overlap_from}: expected a whole number of tokens from 0 to less than the chunk size "
            f"({chunk_size}, {size_from}), got {chunk_overlap!r}"
        )


def chunk_documents(
    docs: list[Document],
    *,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    chunk_overlap: int = DEFAULT_CHUNK_OVERLAP,
    progress: Progress | None = None,
) -> list[Chunk]:
    """Cut every document into chunks of at most ``chunk_size`` tokens (cl100k_base).

    ``position`` is the 0-based index of the chunk within its document, ``id`` is
    :func:`chunk_id`, ``n_tokens`` the exact token count of the chunk text; chunks that are
    empty after stripping are dropped. Reports ``progress("chunking", done_docs, total_docs)``.
    """
    validate_chunking(chunk_size, chunk_overlap)
    splitter = _Splitter(get_token_counter(), chunk_size, chunk_overlap)
    chunks: list[Chunk] = []
    report(progress, "chunking", 0, len(docs))
    step = max(1, len(docs) // 500)  # at most ~500 progress reports, however large the corpus
    for done, doc in enumerate(docs, start=1):
        position = 0
        for span in splitter.chunk_spans(doc.text):
            text = doc.text[span.start : span.end].strip()
            if not text:
                continue
            chunks.append(
                Chunk(
                    id=chunk_id(doc.source, position, text),
                    text=text,
                    source=doc.source,
                    position=position,
                    n_tokens=span.tokens,
                )
            )
            position += 1
        if done == len(docs) or done % step == 0:
            report(progress, "chunking", done, len(docs))
    return chunks
