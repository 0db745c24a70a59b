"""Each option is declared once (services/options.py, issue #29 §2): the CLI's flags, the Jobs
form's fields, the options dataclasses' defaults and the help all agree with the declaration, and
a run resolves its settings once."""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path
from typing import Any

import pytest

from ragcov_tui.cli.main import _parser
from ragcov_tui.coverage.params import CoverageParams
from ragcov_tui.embeddings.providers import spec_forms
from ragcov_tui.evaluation.generation.graded import JUDGE_MODES
from ragcov_tui.evaluation.systems.records_join import JOINS
from ragcov_tui.llm.providers import PROVIDERS as LLMS
from ragcov_tui.services.analysis_job import AnalyzeOptions
from ragcov_tui.services.config import Config
from ragcov_tui.services.eval_job import EvalOptions
from ragcov_tui.services.options import ALL, BY_KEY, FORM_KINDS, OPTIONS, command_options, default, filled
from ragcov_tui.services.references_job import ReferenceOptions
from ragcov_tui.shared.errors import BadInput
from ragcov_tui.tui.panes.jobs import FIELDS
from tests.cli.conftest import CORPUS, QUESTIONS, run_cli


def subparser(command: str) -> argparse.ArgumentParser:
    subs = next(a for a in _parser()._actions if isinstance(a, argparse._SubParsersAction))
    return subs.choices[command]


@pytest.mark.parametrize("command", ALL)
def test_every_declared_option_of_a_command_is_its_flag_with_the_declared_help(command: str) -> None:
    parser = subparser(command)
    actions = {a.dest: a for a in parser._actions}
    shown = parser.format_help()
    for option in command_options(command):
        action = actions.get(option.key)
        assert action is not None, f"{command} has no flag for {option.key}"
        assert action.option_strings == [option.flag]
        assert action.help == option.help_for(command) and action.help.strip(), option.key
        assert action.default is None  # the default comes from the merge, never from argparse
        assert action.required == option.required and action.nargs == option.nargs
        if "{default}" in option.help_for(command):
            assert option.default_value() is not None, option.key
            assert f"{option.flag}" in shown and "{default}" not in shown


def test_a_help_shows_the_declared_default() -> None:
    shown = " ".join(subparser("eval").format_help().split())
    assert f"retrieval cut-off (default {default('k')})" in shown
    assert f"tokens per chunk (default {default('chunk_size')})" in " ".join(subparser("lint").format_help().split())


def test_every_form_field_is_a_declared_option_with_its_label_kinds_and_default() -> None:
    for key, (label, kinds, placeholder) in FIELDS.items():
        option = BY_KEY[key]
        assert option.form is not None and label == option.form.label
        assert set(kinds) == {kind for kind, command in FORM_KINDS.items() if command in option.commands}
        assert placeholder == filled(option.form.placeholder, option)
    assert FIELDS["k"][2] == f"empty: {default('k')}"  # was a hard-coded "empty: 5"


def test_the_form_offers_every_provider() -> None:
    """The placeholders had drifted from the providers: llamacpp and precomputed were missing."""
    embedder, llm = FIELDS["embedder"][2], FIELDS["llm"][2]
    assert "llamacpp:PATH.gguf" in embedder and "precomputed" in embedder
    for form in spec_forms(listed_only=True):
        assert form in embedder, form
    for provider in LLMS.values():
        assert provider.form in llm, provider.form


def test_the_options_dataclasses_default_to_the_declared_defaults() -> None:
    for cls, command in ((AnalyzeOptions, "analyze"), (EvalOptions, "eval"), (ReferenceOptions, "references")):
        for field in dataclasses.fields(cls):
            if (
                field.name in BY_KEY
                and command in BY_KEY[field.name].commands
                and field.default is not None
                and field.default is not dataclasses.MISSING
            ):
                assert field.default == default(field.name), (cls.__name__, field.name)
    engine = {f.name: f.default for f in dataclasses.fields(CoverageParams)}
    for option in command_options("analyze"):  # None in AnalyzeOptions: the engine's default, declared the same
        if option.key in engine:
            assert option.default_value() == engine[option.key], option.key


@pytest.mark.parametrize(("key", "choices"), [("join", JOINS), ("judge_mode", JUDGE_MODES)])
def test_declared_choices_are_the_cores(key: str, choices: tuple[str, ...]) -> None:
    option = BY_KEY[key]
    assert [option.parse(c, True) for c in choices] == list(choices)
    with pytest.raises(ValueError, match="expected one of"):
        option.parse("neither", True)
    assert all(c in option.help_for("eval") for c in choices)


def test_every_option_is_declared_once() -> None:
    keys = [o.key for o in OPTIONS]
    assert len(keys) == len(set(keys))


def test_an_eval_resolves_its_settings_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """It merged flags, env and ragcov.toml three times (setup, the options, --max-drop)."""
    calls: list[str] = []
    sources = Config.sources

    def counted(self: Config, command: str, *args: Any, **kwargs: Any) -> Any:
        calls.append(command)
        return sources(self, command, *args, **kwargs)

    monkeypatch.setattr(Config, "sources", counted)
    monkeypatch.chdir(tmp_path)
    code = run_cli(
        "eval",
        "--quiet",
        "--db",
        str(tmp_path / "r.db"),
        "--corpus",
        str(CORPUS),
        "--questions",
        str(QUESTIONS),
        "--system",
        "builtin:bm25",
        "--embedder",
        "hash",
        "--max-drop",
        "0.1",
        "--dry-run",
    )
    assert code == 0 and calls == ["eval"]


def test_an_overlap_not_below_the_chunk_size_is_one_message_naming_both(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ragcov.toml").write_text("[lint]\nchunk_overlap = 600\n")
    assert run_cli("lint", "--quiet", "--db", str(tmp_path / "r.db"), "--questions", str(QUESTIONS)) == 2
    err = capsys.readouterr().err.strip()
    assert err == (
        f"error: ragcov.toml [lint] chunk_overlap: expected a whole number of tokens from 0 to less than "
        f"the chunk size ({default('chunk_size')}, the default chunk size), got 600"
    )


def test_options_built_by_hand_are_checked_against_the_same_declaration() -> None:
    """EvalOptions.check had bounds and messages of its own (``--k: must be a whole number >= 1``)."""
    with pytest.raises(BadInput, match=r"^--k: expected a whole number from 1 to 10000, got 0$"):
        EvalOptions(questions="q.jsonl", system="builtin:bm25", k=0).check()
    with pytest.raises(BadInput, match=r"^--repeats: expected a whole number from 1 to 100, got 101$"):
        EvalOptions(questions="q.jsonl", system="builtin:bm25", repeats=101).check()
