"""HTTP embedders against the real local API server: keys, retries, errors, cache, concurrency."""

from __future__ import annotations

import socket
import time

import numpy as np
import pytest

from ragcov_tui.embeddings.factory import embed_items, make_embedder
from ragcov_tui.shared.errors import BadInput, ConfigError, ProviderError
from ragcov_tui.store.db import open_db
from tests.support.fake_api import FakeAPIServer, api_env

TEXTS = ["refunds are issued within 14 days", "single sign-on with SAML", "rate limits per API key"]


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch):
    with FakeAPIServer(dim=32) as srv:
        api_env(monkeypatch, srv, attempts=4)
        yield srv


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.parametrize(
    "spec,var", [("openai:text-embedding-3-small", "OPENAI_API_KEY"), ("voyage:voyage-3", "VOYAGE_API_KEY")]
)
def test_missing_api_key_is_one_line_config_error(monkeypatch: pytest.MonkeyPatch, spec: str, var: str) -> None:
    monkeypatch.delenv(var, raising=False)
    with pytest.raises(ConfigError) as err:
        make_embedder(spec)
    message = str(err.value)
    assert var in message and "any non-empty value" in message and "\n" not in message


def test_openai_embeddings_normalised_in_order_with_tokens(server: FakeAPIServer) -> None:
    embedder = make_embedder("openai:my-model")
    vecs = embedder.embed(TEXTS)
    assert vecs.shape == (3, 32) and vecs.dtype == np.float32
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
    assert embedder.dim == 32 and embedder.spec == "openai:my-model"
    single = make_embedder("openai:my-model").embed([TEXTS[1]])
    assert np.allclose(single[0], vecs[1], atol=1e-6)
    assert embedder.stats.tokens == 6 + 5 + 5  # the server counts \w+ words: "sign-on" is two
    assert server.requests[0].body["model"] == "my-model"
    assert server.requests[0].headers["authorization"] == "Bearer test-key"


def test_unreachable_base_url_gives_one_line_provider_error(
    server: FakeAPIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = f"http://127.0.0.1:{closed_port()}/v1"
    monkeypatch.setenv("OPENAI_BASE_URL", url)
    with pytest.raises(ProviderError) as err:
        make_embedder("openai:m").embed(["x"])
    assert str(err.value) == f"openai embeddings at {url}: unreachable after 4 attempts (Connection refused)"


def test_429_then_success_is_retried(server: FakeAPIServer) -> None:
    server.fail_next(2, status=429)
    vecs = make_embedder("openai:m").embed(TEXTS)
    assert vecs.shape == (3, 32)
    assert server.count("/embeddings") == 3


def test_retry_after_header_is_honoured(server: FakeAPIServer) -> None:
    server.fail_next(1, status=503, retry_after=0.3)
    start = time.perf_counter()
    make_embedder("openai:m").embed(["x"])
    assert time.perf_counter() - start >= 0.3


def test_500_forever_becomes_provider_error_after_all_attempts(server: FakeAPIServer) -> None:
    server.fail_next(10, status=500)
    with pytest.raises(ProviderError, match=r"failed after 4 attempts \(HTTP 500: scripted 500\)"):
        make_embedder("openai:m").embed(["x"])
    assert server.count("/embeddings") == 4


def test_401_is_not_retried(server: FakeAPIServer) -> None:
    server.fail_next(1, status=401)
    with pytest.raises(ProviderError, match="HTTP 401.*check the API key"):
        make_embedder("openai:m").embed(["x"])
    assert server.count("/embeddings") == 1


@pytest.mark.parametrize("spec", ["openai:m", "voyage:voyage-3"])
def test_invalid_json_reply_is_provider_error(server: FakeAPIServer, spec: str) -> None:
    server.bad_json_next(1)
    with pytest.raises(ProviderError, match="invalid JSON"):
        make_embedder(spec).embed(["x"])


def test_voyage_protocol_retries_and_fails_cleanly(server: FakeAPIServer) -> None:
    server.fail_next(1, status=429)
    embedder = make_embedder("voyage:voyage-3")
    vecs = embedder.embed(TEXTS)
    assert vecs.shape == (3, 32) and embedder.dim == 32 and embedder.stats.tokens > 0
    assert server.count("/voyage/v1/embeddings") == 2
    assert server.requests[-1].body["input"] == sorted(TEXTS, key=len)  # misses sorted by length
    server.fail_next(10, status=503)
    with pytest.raises(ProviderError, match=r"voyage embeddings at .*/voyage/v1: failed after 4 attempts \(HTTP 503"):
        embedder.embed(["something new"])


def test_cache_second_run_makes_zero_http_calls(server: FakeAPIServer) -> None:
    db = open_db(":memory:")
    first = make_embedder("openai:m", db=db)
    v1 = first.embed(TEXTS + [TEXTS[0]])
    calls = server.count("/embeddings")
    second = make_embedder("openai:m", db=db)
    v2 = second.embed(TEXTS + [TEXTS[0]])
    assert server.count("/embeddings") == calls == 1
    assert np.array_equal(v1, v2)
    assert (second.stats.cached, second.stats.embedded, second.stats.calls) == (4, 0, 0)
    assert (first.stats.texts, first.stats.embedded) == (4, 3)  # the duplicate is embedded once
    other_model = make_embedder("openai:other", db=db)
    other_model.embed(TEXTS)
    assert server.count("/embeddings") == 2  # the cache is per (provider, model)


def test_batches_run_with_bounded_concurrency(server: FakeAPIServer) -> None:
    server.latency = 0.2
    embedder = make_embedder("openai:m", concurrency=3)
    embedder.batch_size = 1
    seen: list[tuple[int, int]] = []
    start = time.perf_counter()
    vecs = embedder.embed([f"text number {i}" for i in range(9)], progress=lambda s, d, t: seen.append((d, t)))
    elapsed = time.perf_counter() - start
    assert vecs.shape == (9, 32)
    assert server.max_in_flight == 3
    assert elapsed < 9 * 0.2 * 0.7  # parallel, not sequential
    assert seen[0] == (0, 9) and seen[-1] == (9, 9)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)


def test_partial_failure_keeps_finished_batches_in_cache(server: FakeAPIServer) -> None:
    db = open_db(":memory:")
    embedder = make_embedder("openai:m", db=db, concurrency=1)
    embedder.batch_size = 1
    server.fail_next(1, status=400)  # the first batch fails for good, the others succeed
    with pytest.raises(ProviderError):
        embedder.embed(["aa", "bbb", "cccc"])
    assert db.execute("SELECT count(*) FROM embedding_cache").fetchone()[0] == 2


def test_precomputed_uses_given_vectors_and_names_bad_rows() -> None:
    embedder = make_embedder("precomputed")
    vecs = embed_items(embedder, ["a", "b"], [[3.0, 4.0], [0.0, 2.0]], what="chunks")
    assert np.allclose(vecs, [[0.6, 0.8], [0.0, 1.0]]) and embedder.dim == 2
    with pytest.raises(BadInput, match="questions: q2 has no 'vector' field"):
        embed_items(embedder, ["x", "y"], [[1.0, 0.0], None], what="questions", labels=["q1", "q2"])
    with pytest.raises(BadInput, match="row 1: vector has 3 dimensions, expected 2"):
        embed_items(embedder, ["x"], [[1.0, 0.0, 0.0]], what="questions")
    with pytest.raises(BadInput, match="cannot embed text"):
        embedder.embed(["free text"])


def test_embed_items_embeds_texts_for_other_embedders() -> None:
    embedder = make_embedder("hash:16")
    vecs = embed_items(embedder, ["alpha beta", "gamma"], [None, None], what="chunks")
    assert vecs.shape == (2, 16) and embedder.spec == "hash:test-hash-16"
    assert np.array_equal(vecs, make_embedder("hash:16").embed(["alpha beta", "gamma"]))


@pytest.mark.parametrize(
    "spec,message",
    [
        ("nope:x", "unknown embedder"),
        ("openai", "name the model"),
        ("hash:abc", "whole number"),
        ("st:all-MiniLM-L6-v2", "pip install 'ragcov-tui\\[st\\]'"),
    ],
)
def test_bad_specs_are_bad_input(spec: str, message: str) -> None:
    pytest.importorskip("numpy")
    if spec.startswith("st:"):
        try:
            import sentence_transformers  # noqa: F401

            pytest.skip("sentence-transformers is installed here")
        except ImportError:
            pass
    with pytest.raises(BadInput, match=message):
        make_embedder(spec)


def test_empty_input_gives_empty_matrix(server: FakeAPIServer) -> None:
    assert make_embedder("openai:text-embedding-3-small").embed([]).shape == (0, 1536)
    assert server.count() == 0


def test_usage_prices_paid_providers_and_says_unknown_for_unpriced_models(server: FakeAPIServer, monkeypatch) -> None:
    voyage = make_embedder("voyage:voyage-3")
    voyage.embed(TEXTS)
    assert voyage.usage()["cost_usd"] is None  # voyage-3's list price is for api.voyageai.com, not this server
    monkeypatch.setenv("RAGCOV_PRICE_PER_MTOK", "voyage-3=0.06")
    usage = voyage.usage()
    assert usage["tokens"] > 0 and usage["cost_usd"] == pytest.approx(usage["tokens"] * 0.06 / 1e6, abs=1e-6)
    unpriced = make_embedder("openai:nomic-embed-text")  # e.g. a local OpenAI-compatible server
    unpriced.embed(TEXTS)
    assert unpriced.usage()["cost_usd"] is None
    assert "cost_usd" not in make_embedder("hash:64").usage()  # nothing metered, no cost line
