"""``--system lancedb:PATH#TABLE`` (and each store with a search): the user's own index as the retriever.

Each question is embedded by ``--embedder`` and sent to the store's own search
(:meth:`~ragcov_tui.vectorstores.base.StoreReader.search`: its ANN index as configured, approximations
included), so retrieval metrics measure the index the user serves. It retrieves, it does not
answer: the answer is empty and the eval defaults to the retrieval metrics. Before the first
question, the space check runs on a seeded sample of the store's first rows (skipped with
``--skip-space-check``; the dimension is compared either way).
"""

from __future__ import annotations

from contextlib import closing

from ragcov_tui.embeddings.base import Embedder
from ragcov_tui.embeddings.space_check import SpaceCheck, check_dimension, check_space
from ragcov_tui.evaluation.systems.base import DEFAULT_K, RetrievedChunk, SystemOutput
from ragcov_tui.vectorstores.base import FieldOverrides, StoreSpec
from ragcov_tui.vectorstores.registry import open_store

LABEL = "retrieval only (the store's own search)"


class StoreSystem:
    """The store's search over question vectors made by ``embedder``; ``space`` after :meth:`prepare`."""

    def __init__(
        self,
        spec: StoreSpec,
        *,
        embedder: Embedder,
        overrides: FieldOverrides | None = None,
        k: int = DEFAULT_K,
        skip_space_check: bool = False,
    ) -> None:
        self.name = spec.text
        self.reader = open_store(spec, overrides)
        self.embedder, self.k = embedder, k
        try:
            self.space = self._space_check(skip_space_check)
        except BaseException:
            self.reader.close()
            raise

    def _space_check(self, skip: bool) -> SpaceCheck:
        """The space check on a seeded sample of the first rows (the dimension only when ``skip``)."""
        check_dimension(self.embedder, self.reader.dim(), self.name)
        with closing(self.reader.batches()) as rows:  # the first batch only; closing releases the engine's cursor
            first = next(rows, None)
        if skip or first is None:
            return SpaceCheck(embedder=self.embedder.spec, checked=False)
        return check_space(self.embedder, first.texts or [], first.vectors, store=self.name)

    def retrieve_only(self, question: str) -> SystemOutput:
        """The ``k`` chunks the store's index returns for the question, best first."""
        hits = self.reader.search(self.embedder.embed([question]), self.k)[0]
        return SystemOutput(
            answer="", contexts=[RetrievedChunk(id=h.id, text=h.text, score=h.score) for h in hits], label=LABEL
        )

    def answer(self, question: str) -> SystemOutput:
        return self.retrieve_only(question)

    def close(self) -> None:
        self.reader.close()
