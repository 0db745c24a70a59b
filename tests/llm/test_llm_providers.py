"""The chat provider registry is the one list of ``--llm`` specs (issue #29 §3): the parser takes
every provider it lists and refuses naming them all, each loads the chat class that names it, and
every LLM flag's help and the README list exactly the registry (``--paraphrase-llm``, ``compare``
and ``references`` listed only ``openai:MODEL`` although every provider works there)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragcov_tui.llm.providers import PROVIDERS, llm_help, llm_table, parse_spec
from ragcov_tui.shared.errors import BadInput
from tests.support.cli_help import option_help

README = Path(__file__).resolve().parents[2] / "README.md"
LLM_FLAGS = [
    ("analyze", "--llm"),
    ("eval", "--llm"),
    ("eval", "--judge-llm"),
    ("eval", "--paraphrase-llm"),
    ("compare", "--llm"),
    ("references", "--llm"),
]


@pytest.mark.parametrize("name", PROVIDERS)
def test_each_provider_parses_its_example_and_loads_the_class_that_names_it(name: str) -> None:
    provider = PROVIDERS[name]
    assert provider.form.startswith(f"{name}:") and provider.example.startswith(f"{name}:")
    assert parse_spec(provider.example) == (name, provider.example.split(":", 1)[1])
    assert getattr(provider.load(), "provider", None) == name  # the name stored with every cached reply


def test_an_unknown_spec_names_every_provider_and_the_offline_judge() -> None:
    with pytest.raises(BadInput) as caught:
        parse_spec("mistral:x")
    assert all(p.form in str(caught.value) for p in PROVIDERS.values())
    assert str(caught.value).endswith("or heuristic for the offline judge")


@pytest.mark.parametrize("command,flag", LLM_FLAGS)
def test_every_llm_flag_lists_the_registry(command: str, flag: str) -> None:
    shown = option_help(command, flag)
    assert shown.startswith(llm_help()), shown
    assert all(p.form in shown for p in PROVIDERS.values())


def test_the_readme_table_is_the_registry() -> None:
    assert llm_table() in README.read_text(encoding="utf-8"), (
        "README's --llm table differs from the registry; paste llm_table()'s output:\n" + llm_table()
    )
