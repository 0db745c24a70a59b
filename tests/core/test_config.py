"""Settings precedence: flag > environment variable > [command] table > top level > default."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragcov_tui.config import load_config
from ragcov_tui.errors import ConfigError


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "ragcov.toml"
    path.write_text(text)
    return path


def test_precedence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = load_config(write(tmp_path, 'embedder = "hash"\nk = 3\n[eval]\nk = 10\n'))
    monkeypatch.delenv("RAGCOV_EMBEDDER", raising=False)
    assert cfg.resolve("embedder", None, "local") == "hash"
    assert cfg.resolve("k", None, 5, "eval") == 10
    assert cfg.resolve("k", None, 5, "analyze") == 3
    assert cfg.resolve("k", 7, 5, "eval") == 7
    assert cfg.resolve("missing", None, "dflt") == "dflt"
    monkeypatch.setenv("RAGCOV_EMBEDDER", "openai:text-embedding-3-small")
    assert cfg.resolve("embedder", None, "local") == "openai:text-embedding-3-small"
    assert cfg.resolve("embedder", "local", None) == "local"


def test_no_file_is_fine_but_a_named_missing_file_is_not(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("RAGCOV_CONFIG", raising=False)
    assert load_config().values == {}
    with pytest.raises(ConfigError, match="no such file"):
        load_config(tmp_path / "nope.toml")


@pytest.mark.parametrize("text, needle", [
    ("embedder = ", "invalid TOML"),
    ('openai_api_key = "sk-123"', "environment variable"),
    ('[eval]\napi_key = "x"', "environment variable"),
])
def test_bad_files_are_one_line_errors(tmp_path: Path, text: str, needle: str) -> None:
    with pytest.raises(ConfigError, match=needle):
        load_config(write(tmp_path, text))


def test_bad_concurrency_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAGCOV_CONCURRENCY", "many")
    with pytest.raises(ConfigError, match="RAGCOV_CONCURRENCY"):
        load_config(write(tmp_path, "")).resolve("concurrency", None, 4)
