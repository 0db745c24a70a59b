"""Every embedder's ``spec`` (as stored in sessions and prefilled by the TUI's rerun form) builds the same embedder."""

import pytest

from ragcov_tui.embeddings.factory import make_embedder


@pytest.mark.parametrize("spec", ["local", "hash", "hash:64", "precomputed"])
def test_stored_spec_round_trips(spec: str) -> None:
    built = make_embedder(spec)
    assert make_embedder(built.spec).spec == built.spec
