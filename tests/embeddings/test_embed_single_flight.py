"""CPU-bound embedders take turns across threads: no text is embedded twice at the same moment."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence

import numpy as np

from ragcov_tui.embeddings.base import Embedder, embed_with_cache
from ragcov_tui.store import open_db


class SlowCpuEmbedder(Embedder):
    provider, model, single_flight = "test", "slow-cpu", True

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[str] = []
        self.live = self.peak = 0
        self.guard = threading.Lock()

    @property
    def dim(self) -> int:
        return 4

    def _embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        with self.guard:
            self.live += 1
            self.peak = max(self.peak, self.live)
            self.seen.extend(texts)
        time.sleep(0.05)
        with self.guard:
            self.live -= 1
        return np.ones((len(texts), 4), dtype=np.float32)


def test_threads_share_the_work_through_the_cache(tmp_path) -> None:
    embedder = SlowCpuEmbedder()
    embedder.db = open_db(tmp_path / "c.db")
    threads = [threading.Thread(target=embed_with_cache, args=(embedder, ["same text", "other"])) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(embedder.seen) == ["other", "same text"]  # embedded once, served from the cache after
    assert embedder.peak == 1
