"""The offline ONNX embedder: reference behaviour, determinism, windowing, cache, ``local:DIR``."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from ragcov_tui.embeddings.factory import make_embedder
from ragcov_tui.embeddings.local import MINILM_TOKENIZER, OnnxEmbedder, minilm_model_path
from ragcov_tui.shared.errors import BadInput
from ragcov_tui.store.db import open_db

BILLING = (
    "Invoices are issued on the first day of each month. The invoice lists every seat, the plan price, "
    "taxes and any credit applied to the account. Refunds go back to the original card. "
)
DOGS = (
    "Our golden retriever loves swimming in the lake and chasing sticks. Puppies need short walks, "
    "plenty of sleep and gentle training with treats. "
)


@pytest.fixture(scope="module")
def local() -> OnnxEmbedder:
    return make_embedder("local")  # type: ignore[return-value]


def test_matches_sentence_transformers_reference_similarities(local: OnnxEmbedder) -> None:
    """sbert.net's quickstart prints these cosine similarities for all-MiniLM-L6-v2 (fp32);
    the int8 weights must land within 0.01 of them."""
    vecs = local.embed(["The weather is lovely today.", "It's so sunny outside!", "He drove to the stadium."])
    sims = vecs @ vecs.T
    assert local.dim == 384 and vecs.shape == (3, 384) and vecs.dtype == np.float32
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
    assert sims[0, 1] == pytest.approx(0.6660, abs=0.01)
    assert sims[0, 2] == pytest.approx(0.1046, abs=0.01)
    assert sims[1, 2] == pytest.approx(0.1411, abs=0.01)


def test_paraphrases_are_closer_than_unrelated_pairs(local: OnnxEmbedder) -> None:
    pairs = [
        ("How do I reset my password?", "What are the steps to change my login password?"),
        ("Can I get a refund for my subscription?", "Is it possible to have my plan money returned?"),
        ("A man is playing a guitar.", "Someone is performing music on a string instrument."),
    ]
    left = local.embed([a for a, _ in pairs])
    right = local.embed([b for _, b in pairs])
    sims = left @ right.T
    for i in range(len(pairs)):
        assert sims[i, i] > 0.5
        assert sims[i, i] > max(sims[i, j] for j in range(len(pairs)) if j != i) + 0.3


def test_deterministic_and_independent_of_batch_order(local: OnnxEmbedder) -> None:
    texts = ["short", "a somewhat longer sentence about billing", BILLING, "sso", DOGS * 2]
    first = local.embed(texts)
    again = make_embedder("local").embed(list(reversed(texts)))[::-1]
    alone = np.stack([local.embed([t])[0] for t in texts])
    assert np.allclose(first, again, atol=1e-5)
    assert np.allclose(first, alone, atol=1e-4)  # padding to other lengths must not change a vector


def test_long_text_is_embedded_in_overlapping_windows(local: OnnxEmbedder) -> None:
    long_text = BILLING * 8 + DOGS * 8  # ~600 word pieces: billing first, dogs last
    local._load()
    assert local._tokenizer is not None
    windows = [local._tokenizer.encode(long_text), *local._tokenizer.encode(long_text).overflowing]
    assert len(windows) >= 3 and all(len(w.ids) <= 256 for w in windows)
    billing, dogs, whole = local.embed([BILLING, DOGS, long_text])
    first_window = local._run([windows[0].ids])[0]  # what truncation at 256 pieces would give
    assert whole @ dogs > 0.3 and whole @ billing > 0.3  # both halves are in the vector
    assert whole @ dogs > first_window @ dogs + 0.2
    tokens_before = local.stats.tokens
    local.embed(["a brand new text so it is not cached anywhere"])
    assert local.stats.tokens > tokens_before


def test_second_call_is_served_from_the_cache(tmp_path: Path) -> None:
    db = open_db(tmp_path / "cache.db")
    texts = ["refund policy", "password reset", "refund policy"]
    first = make_embedder("local", db=db)
    v1 = first.embed(texts)
    second = make_embedder("local", db=open_db(tmp_path / "cache.db"))
    v2 = second.embed(texts)
    assert np.array_equal(v1, v2)
    assert (first.stats.embedded, first.stats.calls) == (2, 1)
    assert (second.stats.cached, second.stats.embedded, second.stats.calls) == (3, 0, 0)
    assert isinstance(second, OnnxEmbedder) and second._session is None  # the model was never even loaded


def test_local_dir_spec_runs_any_onnx_dir(tmp_path: Path, local: OnnxEmbedder) -> None:
    (tmp_path / "model.onnx").symlink_to(minilm_model_path())
    shutil.copy(MINILM_TOKENIZER, tmp_path / "tokenizer.json")
    embedder = make_embedder(f"local:{tmp_path}")
    assert embedder.spec == f"local:{tmp_path.resolve()}"
    texts = ["The weather is lovely today.", BILLING * 5]
    assert np.allclose(embedder.embed(texts), local.embed(texts), atol=1e-5)


def test_local_dir_spec_names_what_is_missing(tmp_path: Path) -> None:
    (tmp_path / "model.onnx").write_bytes(b"not really a model")
    with pytest.raises(BadInput, match="tokenizer.json is missing"):
        make_embedder(f"local:{tmp_path}")
    with pytest.raises(BadInput, match="not a directory"):
        make_embedder(f"local:{tmp_path / 'nope'}")
    shutil.copy(MINILM_TOKENIZER, tmp_path / "tokenizer.json")
    with pytest.raises(BadInput, match="cannot load ONNX model"):
        make_embedder(f"local:{tmp_path}").embed(["x"])


def test_sentence_bert_config_sets_the_window(tmp_path: Path) -> None:
    (tmp_path / "model.onnx").symlink_to(minilm_model_path())
    shutil.copy(MINILM_TOKENIZER, tmp_path / "tokenizer.json")
    (tmp_path / "sentence_bert_config.json").write_text('{"max_seq_length": 128}')
    embedder = make_embedder(f"local:{tmp_path}")
    assert isinstance(embedder, OnnxEmbedder) and embedder.max_seq_length == 128
    assert embedder.embed([BILLING * 3]).shape == (1, 384)
