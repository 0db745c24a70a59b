"""Token counter: backend choice without network, exact cl100k ids, the labelled approximation."""

from __future__ import annotations

import gzip
import importlib.resources
import random
import socket

import pytest

from ragcov_tui.corpus import tokens
from ragcov_tui.corpus.tokens import clear_token_counters, get_token_counter, tiktoken_cache_path
from ragcov_tui.shared.errors import BadInput

# Reference ids published for cl100k_base (OpenAI cookbook / tiktoken README examples).
KNOWN_CL100K = {
    "hello world": [15339, 1917],
    "tiktoken is great!": [83, 1609, 5963, 374, 2294, 0],
}


@pytest.fixture(autouse=True)
def fresh_counters(monkeypatch, tmp_path):
    """Each test starts with no shared counters and an empty tiktoken cache directory."""
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "tiktoken-cache"))
    clear_token_counters()
    yield
    clear_token_counters()


@pytest.fixture
def no_network(monkeypatch):
    """Any attempt to open a socket fails the test."""

    def refuse(*args, **kwargs):
        raise AssertionError("the token counter tried to use the network")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


def seed_tiktoken_cache(encoding: str) -> None:
    """Put tiktoken's file for ``encoding`` in its cache, taken from bpe-openai's wheel (the
    same bytes: the sha256 tiktoken checks is verified by the counter itself)."""
    url, _ = tokens._TIKTOKEN_BLOBS[encoding]
    data = gzip.decompress((importlib.resources.files("bpe_openai.data") / f"{encoding}.tiktoken.gz").read_bytes())
    path = tiktoken_cache_path(url)
    assert path is not None
    import os

    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as handle:
        handle.write(data)


def random_texts(n: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    alphabet = "abcdefghijklmnopqrstuvwxyz ABCXYZ 0123456789 .,;:!?'\"()-_\n\t é ü 日本語 🎉 <|endoftext|>"
    return ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 200))) for _ in range(n)]


def test_default_backend_is_exact_and_offline(no_network):
    counter = get_token_counter()
    assert counter.backend == "bpe-openai"  # tiktoken's file is not cached here
    assert counter.exact is True
    assert counter.name == "cl100k_base"
    for text, ids in KNOWN_CL100K.items():
        assert counter.encode(text) == ids
        assert counter.count(text) == len(ids)
        assert counter.decode(ids) == text


def test_counter_is_shared_per_encoding():
    assert get_token_counter() is get_token_counter("cl100k_base")
    assert get_token_counter("o200k_base") is not get_token_counter()
    assert get_token_counter("o200k_base").name == "o200k_base"


def test_special_token_text_counts_as_plain_text():
    counter = get_token_counter()
    assert counter.count("<|endoftext|>") > 1
    assert counter.decode(counter.encode("<|endoftext|> hi")) == "<|endoftext|> hi"


def test_empty_text():
    counter = get_token_counter()
    assert counter.count("") == 0 and counter.encode("") == [] and counter.decode([]) == ""


def test_unknown_encoding_is_bad_input():
    with pytest.raises(BadInput, match="unknown token encoding 'nope'"):
        get_token_counter("nope")


def test_cached_tiktoken_file_is_used_and_agrees_with_bpe_openai(no_network):
    bpe = tokens._bpe_openai_counter("cl100k_base")
    assert bpe is not None
    seed_tiktoken_cache("cl100k_base")
    counter = get_token_counter()
    assert counter.backend == "tiktoken" and counter.exact
    for text in [*KNOWN_CL100K, *random_texts(200)]:
        assert counter.encode(text) == bpe.encode(text), text
        assert counter.count(text) == bpe.count(text)


def test_corrupt_tiktoken_cache_is_not_used(no_network):
    url, _ = tokens._TIKTOKEN_BLOBS["cl100k_base"]
    path = tiktoken_cache_path(url)
    assert path is not None
    import os

    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as handle:
        handle.write(b"truncated")
    assert get_token_counter().backend == "bpe-openai"
    with open(path, "rb") as handle:
        assert handle.read() == b"truncated"  # untouched: tiktoken never saw it


def test_disabled_tiktoken_cache(monkeypatch):
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "")
    assert tiktoken_cache_path("https://x") is None
    assert get_token_counter().backend == "bpe-openai"


def test_approximation_when_no_exact_table(monkeypatch, no_network):
    exact_counter = tokens._bpe_openai_counter("cl100k_base")
    assert exact_counter is not None
    monkeypatch.setattr(tokens, "_bpe_openai_counter", lambda encoding: None)
    counter = get_token_counter()
    assert counter.backend == "approx" and counter.exact is False
    for text in random_texts(50):
        ids = counter.encode(text)
        assert len(ids) == counter.count(text)
        assert counter.decode(ids) == text
    prose = "The quick brown fox jumps over the lazy dog, twice. " * 20
    exact = exact_counter.count(prose)
    assert exact <= counter.count(prose) <= 1.5 * exact


def test_encoding_without_offline_table_falls_back_to_approx(no_network):
    counter = get_token_counter("r50k_base")  # tiktoken knows it, nothing ships its table
    assert counter.backend == "approx" and not counter.exact
