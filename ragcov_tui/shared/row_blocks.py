"""Row blocks of a matrix that may be memory-mapped, with its pages handed back (issue #25 §1).

A chunk matrix larger than memory arrives as a memory map (``np.load(path, mmap_mode="r")``,
``np.lib.format.open_memmap``, ``np.memmap``, or a view of one). Reading it pulls its pages in, and
pages of a mapping count in the process's resident memory until it is unmapped, so one full pass
would make the peak RSS the size of the file. Every pass over such a matrix therefore goes
through :func:`blocks` (the pages of a block are dropped with ``madvise(MADV_DONTNEED)`` once the
caller is done with it) or :func:`take` (rows gathered into an in-memory copy, then the pages
dropped). For an array in memory both are plain slicing: views, no copy, no system call.
"""

from __future__ import annotations

import mmap
from collections.abc import Iterator

import numpy as np

BLOCK_ROWS = 65536  # 96 MB of 384-d float32 per block


def mapping_of(vectors: np.ndarray) -> mmap.mmap | None:
    """The mmap under ``vectors`` (an ``np.memmap`` or a view of one), else None."""
    base: object = vectors
    for _ in range(8):  # a few views deep at most
        if isinstance(base, mmap.mmap):
            return base
        base = getattr(base, "_mmap", None) or getattr(base, "base", None)
        if base is None:
            return None
    return None


def release(vectors: np.ndarray, start: int = 0, stop: int | None = None) -> None:
    """Drop the resident pages of rows ``start:stop`` of a memory-mapped ``vectors`` (whole pages
    inside the span only); nothing for an array in memory."""
    handle = mapping_of(vectors)
    if handle is None or len(vectors) == 0:
        return
    stop = len(vectors) if stop is None else stop
    origin = vectors.ctypes.data - np.frombuffer(handle, dtype=np.uint8, count=1).ctypes.data
    row = vectors.strides[0]
    lo, hi = origin + start * row, origin + stop * row
    lo_page = -(-lo // mmap.PAGESIZE) * mmap.PAGESIZE
    hi_page = min(hi // mmap.PAGESIZE * mmap.PAGESIZE, len(handle))
    if hi_page > lo_page:
        handle.madvise(mmap.MADV_DONTNEED, lo_page, hi_page - lo_page)


def blocks(vectors: np.ndarray, rows: int = BLOCK_ROWS) -> Iterator[tuple[int, np.ndarray]]:
    """``(start, vectors[start:start + rows])`` for every block, in order. The block is a view:
    use it before asking for the next one (a memory map's pages are dropped then)."""
    mapped = mapping_of(vectors) is not None
    for start in range(0, len(vectors), max(1, rows)):
        stop = min(len(vectors), start + rows)
        yield start, vectors[start:stop]
        if mapped:
            release(vectors, start, stop)


def take(vectors: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """``vectors[indices]`` as an array in memory (for a memory map, its pages dropped after)."""
    out = np.asarray(vectors[indices])
    release(vectors)
    return out


def is_mapped(vectors: np.ndarray) -> bool:
    return mapping_of(vectors) is not None
