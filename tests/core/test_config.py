"""Settings: precedence flag > environment > [command] table > top level > dataclass default; typed
values; a bad value names its source; unknown keys warn."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest

from ragcov_tui.services.analysis_job import AnalyzeOptions
from ragcov_tui.services.config import load_config
from ragcov_tui.services.eval_job import EvalOptions
from ragcov_tui.services.options import default
from ragcov_tui.services.settings import SEED_MAX, SPECS, flag_source, options_from, resolve
from ragcov_tui.shared.errors import ConfigError


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "ragcov.toml"
    path.write_text(text)
    return path


def values(cfg, command: str, flags: dict | None = None, env: dict | None = None) -> dict:
    return resolve(command, cfg.sources(command, flags or {}, env or {})).values


def test_precedence(tmp_path: Path) -> None:
    cfg = load_config(write(tmp_path, 'embedder = "hash"\nk = 3\n[eval]\nk = 10\n'))
    assert values(cfg, "analyze")["embedder"] == "hash"
    assert values(cfg, "eval")["k"] == 10
    assert values(cfg, "eval", {"k": "7"})["k"] == 7
    assert "k" not in values(cfg, "analyze")  # k is no option of analyze
    env = {"RAGCOV_EMBEDDER": "openai:text-embedding-3-small"}
    assert values(cfg, "analyze", env=env)["embedder"] == "openai:text-embedding-3-small"
    assert values(cfg, "analyze", {"embedder": "local"}, env)["embedder"] == "local"
    assert values(cfg, "analyze", env={"RAGCOV_EMBEDDER": "  "})["embedder"] == "hash"  # empty variable = unset


def test_defaults_come_from_the_options_dataclasses(tmp_path: Path) -> None:
    cfg = load_config(write(tmp_path, ""))
    opts = options_from(
        "analyze", resolve("analyze", cfg.sources("analyze", {}, {})), corpus=["c"], questions="q.jsonl"
    )
    assert opts == AnalyzeOptions(corpus=["c"], questions="q.jsonl")
    ev = options_from("eval", resolve("eval", cfg.sources("eval", {}, {})), questions="q.jsonl", system="builtin:bm25")
    assert ev == EvalOptions(questions="q.jsonl", system="builtin:bm25")
    assert (
        AnalyzeOptions.__dataclass_fields__["concurrency"].default
        == EvalOptions.__dataclass_fields__["concurrency"].default
    )
    assert default("max_drop") == 0.05
    assert default("gap_threshold") is None  # calibrated on the test set unless given


def test_judge_defaults_to_llm_and_paraphraser_to_judge(tmp_path: Path) -> None:
    cfg = load_config(write(tmp_path, '[eval]\nllm = "openai:a"\n'))
    ev = options_from(
        "eval", resolve("eval", cfg.sources("eval", {"judge_llm": "openai:j"}, {})), questions="q", system="s"
    )
    assert (ev.llm, ev.judge_llm, ev.paraphrase_llm) == ("openai:a", "openai:j", "openai:j")


def test_flags_parse_text_but_toml_values_must_be_typed(tmp_path: Path) -> None:
    assert values(load_config(write(tmp_path, "seed = 3\nthreshold = 1")), "analyze") | {} == {
        "seed": 3,
        "threshold": 1.0,
    }
    with pytest.raises(ConfigError, match=r"ragcov.toml seed: expected a whole number .* got \'3\'"):
        values(load_config(write(tmp_path, 'seed = "3"')), "analyze")
    assert values(load_config(write(tmp_path, "")), "analyze", {"seed": "3", "clusters": "AUTO"}) == {
        "seed": 3,
        "clusters": "auto",
    }


@pytest.mark.parametrize(
    "flag, text",
    [
        ("seed", str(SEED_MAX)),
        ("seed", "0"),
        ("clusters", "auto"),
        ("clusters", "7"),
        ("contamination", "auto"),
        ("contamination", "0.1"),
        ("threshold", "2"),
        ("gap_threshold", "0"),
        ("gap_threshold", "1"),
        ("top_n", "3"),
    ],
)
def test_good_flag_values(flag: str, text: str) -> None:
    assert flag in resolve("analyze", [flag_source({flag: text})]).values


def test_no_file_is_fine_but_a_named_missing_file_is_not(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("RAGCOV_CONFIG", raising=False)
    assert load_config().values == {}
    with pytest.raises(ConfigError, match="--config .*no such file"):
        load_config(tmp_path / "nope.toml")
    monkeypatch.setenv("RAGCOV_CONFIG", str(tmp_path / "gone.toml"))
    with pytest.raises(ConfigError, match=r"\$RAGCOV_CONFIG .*no such file"):
        load_config()
    with pytest.raises(ConfigError, match="--config .*is a directory"):
        load_config(tmp_path)
    os.mkfifo(tmp_path / "fifo.toml")  # never opened: reading a FIFO would wait for a writer forever
    with pytest.raises(ConfigError, match="named pipe"):
        load_config(tmp_path / "fifo.toml")


@pytest.mark.parametrize(
    "text, needle",
    [
        ("embedder = ", "invalid TOML"),
        ('openai_api_key = "sk-123"', "environment variable"),
        ('[eval]\napi_key = "x"', "environment variable"),
    ],
)
def test_bad_files_are_one_line_errors(tmp_path: Path, text: str, needle: str) -> None:
    with pytest.raises(ConfigError, match=needle):
        load_config(write(tmp_path, text))


def test_unknown_keys_and_tables_warn_once_each(tmp_path: Path) -> None:
    cfg = load_config(write(tmp_path, "sed = 1\nseed = 2\n[analyze]\nclustres = 3\nk = 4\n[evaluate]\nk = 1\n"))
    lines = cfg.warnings()
    assert len(lines) == 4
    assert any("unknown key 'sed'" in line for line in lines)
    assert any("[analyze]: unknown key 'clustres'" in line for line in lines)
    assert any("'k' is not an option of analyze (only of eval)" in line for line in lines)
    assert any("unknown table [evaluate]" in line for line in lines)
    assert all(str(cfg.path) in line for line in lines)


def test_every_spec_belongs_to_a_real_field() -> None:
    from ragcov_tui.services.references_job import ReferenceOptions

    fields = {f.name for cls in (AnalyzeOptions, EvalOptions, ReferenceOptions) for f in dataclasses.fields(cls)}
    assert set(SPECS) - fields == {"db", "max_drop", "keep_backups", "certify_at"}  # certify_at: ragcov align
