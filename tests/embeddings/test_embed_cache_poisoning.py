"""The embedding cache never keeps a bad vector, and is kept per server (issue #17, group 4).

Against the real local API server: a reply with NaN / null / all-zero / ragged vectors, an HTML
page or a change of dimension is a one-line ProviderError naming the server and caches nothing;
once the server is fixed the next run succeeds and the cache holds only good vectors. Bad entries
already in a database are embedded again, not served. The same model name on two servers is two
cache entries.
"""

from __future__ import annotations

import numpy as np
import pytest

from ragcov_tui.embeddings.cache import store, text_sha256, vector_problem
from ragcov_tui.embeddings.factory import make_embedder
from ragcov_tui.shared.errors import ProviderError
from ragcov_tui.store.db import open_db
from tests.support.fake_api import FakeAPIServer, api_env

TEXTS = ["refunds are issued within 14 days", "single sign-on with SAML", "rate limits per API key"]
SPECS = ["openai:m", "voyage:voyage-3"]
FAULTS = {
    "nan": "vector 1 of 3 has NaN or infinite values",
    "null": "vector 1 of 3 has NaN or infinite values",
    "zero": "vector 1 of 3 is all zeros",
    "ragged": "malformed reply (the vectors are not lists of numbers of one length)",
    "html": 'HTML page ("Proxy login"), not an API reply',
}


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch):
    with FakeAPIServer(dim=32) as srv:
        api_env(monkeypatch, srv)
        yield srv


def cached_rows(db) -> list[tuple[str, str, int, bytes]]:
    return db.execute("SELECT provider, model, dim, vector FROM embedding_cache").fetchall()


def assert_all_good(db, dim: int) -> None:
    rows = cached_rows(db)
    assert rows
    for _, _, d, blob in rows:
        vec = np.frombuffer(blob, dtype="<f4")
        assert d == dim == vec.shape[0] and vector_problem(vec[None, :]) is None


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_a_bad_reply_caches_nothing_and_a_fixed_server_is_asked_again(
    server: FakeAPIServer, spec: str, fault: str
) -> None:
    db = open_db(":memory:")
    server.fault = fault
    with pytest.raises(ProviderError) as err:
        make_embedder(spec, db=db).embed(TEXTS)
    message = str(err.value)
    url = server.base_url if spec.startswith("openai") else server.voyage_base_url
    assert "\n" not in message and url in message and FAULTS[fault] in message
    assert cached_rows(db) == []
    server.fault = None
    before = server.count("/embeddings")
    fixed = make_embedder(spec, db=db)
    vecs = fixed.embed(TEXTS)
    assert server.count("/embeddings") > before and fixed.stats.cached == 0
    assert vecs.shape == (3, 32) and vector_problem(vecs) is None
    assert_all_good(db, 32)
    assert len(cached_rows(db)) == 3


def test_an_html_error_page_with_an_error_status_is_named_not_dumped(server: FakeAPIServer) -> None:
    page = "<html><head><title>502 Bad Gateway</title></head><body><h1>nginx</h1>" + "x" * 500 + "</body></html>"
    server.fail_next(1, status=401, body=page)
    with pytest.raises(ProviderError) as err:
        make_embedder("openai:m").embed(["x"])
    assert str(err.value).endswith('HTTP 401: an HTML page ("502 Bad Gateway"), not an API reply (check the API key)')


@pytest.mark.parametrize("spec", SPECS)
def test_a_reply_of_another_dimension_within_a_run_is_refused(server: FakeAPIServer, spec: str) -> None:
    db = open_db(":memory:")
    embedder = make_embedder(spec, db=db)
    embedder.embed(TEXTS[:1])
    server.dim = 16
    with pytest.raises(ProviderError, match="unusable reply: 16-dimensional vectors, but earlier replies had 32"):
        embedder.embed(TEXTS[1:])
    assert [d for _, _, d, _ in cached_rows(db)] == [32]


def test_cached_vectors_of_an_old_dimension_are_embedded_again(server: FakeAPIServer) -> None:
    db = open_db(":memory:")
    make_embedder("openai:m", db=db).embed(TEXTS[:2])
    server.dim = 16  # the model behind the name changed
    embedder = make_embedder("openai:m", db=db)
    vecs = embedder.embed(TEXTS)  # one new text: the server's dimension wins
    assert vecs.shape == (3, 16)
    assert embedder.stats.discarded == 2 and embedder.stats.cached == 0 and embedder.stats.embedded == 3
    assert_all_good(db, 16)


def test_a_dimension_change_after_serving_from_the_cache_cleans_the_cache(server: FakeAPIServer) -> None:
    db = open_db(":memory:")
    make_embedder("openai:m", db=db).embed(TEXTS[:2])
    server.dim = 16
    embedder = make_embedder("openai:m", db=db)
    assert embedder.embed(TEXTS[:2]).shape == (2, 32)  # all cached: nothing tells the change yet
    with pytest.raises(
        ProviderError,
        match="now sends 16-dimensional vectors but the cached ones of openai:m "
        "have 32; the stale cache entries were deleted, run again",
    ):
        embedder.embed(TEXTS[2:])
    assert cached_rows(db) == []
    again = make_embedder("openai:m", db=db)
    assert again.embed(TEXTS).shape == (3, 16)
    assert_all_good(db, 16)


BAD_VECTORS = {
    "nan": np.array([np.nan] + [0.1] * 31, dtype=np.float32),
    "inf": np.array([np.inf] + [0.1] * 31, dtype=np.float32),
    "zero": np.zeros(32, dtype=np.float32),
    "unnormalised": np.full(32, 3.0, dtype=np.float32),
}


@pytest.mark.parametrize("kind", sorted(BAD_VECTORS))
def test_a_poisoned_entry_already_in_the_cache_is_not_served(server: FakeAPIServer, kind: str) -> None:
    db = open_db(":memory:")
    embedder = make_embedder("openai:m", db=db)
    good = make_embedder("openai:m").embed(TEXTS)
    store(
        db,
        "openai",
        embedder.cache_model,
        [text_sha256(t) for t in TEXTS],
        np.stack([BAD_VECTORS[kind], good[1], good[2]]),
    )
    before = server.count("/embeddings")
    vecs = embedder.embed(TEXTS)
    assert np.allclose(vecs, good, atol=1e-6)
    assert embedder.stats.discarded == 1 and embedder.stats.cached == 2 and embedder.stats.embedded == 1
    assert server.count("/embeddings") == before + 1
    assert server.requests[-1].body["input"] == [TEXTS[0]]
    assert_all_good(db, 32)


def test_the_same_model_on_two_servers_is_two_cache_entries(
    server: FakeAPIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = open_db(":memory:")
    with FakeAPIServer(dim=32) as other:
        make_embedder("openai:m", db=db).embed(TEXTS)
        monkeypatch.setenv("OPENAI_BASE_URL", other.base_url)
        second = make_embedder("openai:m", db=db)
        second.embed(TEXTS)
        assert other.count("/embeddings") == 1 and second.stats.cached == 0
    models = sorted({m for _, m, _, _ in cached_rows(db)})
    assert models == sorted([f"m@{server.base_url}", f"m@{other.base_url}"])
    assert len(cached_rows(db)) == 6


def test_the_cache_key_holds_the_server_without_its_password(
    server: FakeAPIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = open_db(":memory:")
    monkeypatch.setenv("OPENAI_BASE_URL", f"http://alice:hunter2@127.0.0.1:{server.port}/v1")
    embedder = make_embedder("openai:m", db=db)
    embedder.embed(TEXTS)
    assert server.requests[-1].headers["authorization"].startswith("Basic ")  # the real URL was used
    assert {m for _, m, _, _ in cached_rows(db)} == {f"m@http://***@127.0.0.1:{server.port}/v1"}
    server.fault = "nan"
    with pytest.raises(ProviderError) as err:
        embedder.embed(["something new"])
    assert "hunter2" not in str(err.value) and "alice" not in str(err.value) and "***@127.0.0.1" in str(err.value)
    assert not any(b"hunter2" in bytes(blob) or "hunter2" in model for _, model, _, blob in cached_rows(db))


def test_vector_problem_names_the_first_bad_row() -> None:
    good = np.eye(3, dtype=np.float32)
    assert vector_problem(good) is None
    assert vector_problem(np.zeros((0, 3), dtype=np.float32)) is None
    bad = good.copy()
    bad[1] = 0
    bad[2, 0] = np.nan
    assert vector_problem(bad) == "vector 2 of 3 is all zeros"
    assert vector_problem(bad[[0, 2]]) == "vector 2 of 2 has NaN or infinite values"
