"""The embedding provider registry is the one list of ``--embedder`` specs (issue #29 §3): the parser
takes every form it lists and refuses naming them all, each provider builds the embedder that names
it, and the help and the README list exactly the registry."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragcov_tui.embeddings.factory import make_embedder
from ragcov_tui.embeddings.providers import DEFAULT_EMBEDDER, PROVIDERS, embedder_help, embedder_table, parse_spec
from ragcov_tui.shared.errors import BadInput
from tests.support.cli_help import option_help

README = Path(__file__).resolve().parents[2] / "README.md"
ARGUMENTS = {"MODEL": "some-model", "DIR": "/models/onnx", "PATH.gguf": "/models/m.gguf", "DIM": "64"}
OFFLINE = ("local", "hash", "precomputed")  # built here without a key, a server or an extra


def _example(form: str) -> str:
    name, sep, placeholder = form.partition(":")
    return f"{name}:{ARGUMENTS[placeholder]}" if sep else name


@pytest.mark.parametrize("form", [f for p in PROVIDERS.values() for f in p.forms])
def test_every_listed_form_parses_to_its_provider(form: str) -> None:
    name = form.partition(":")[0]
    assert parse_spec(_example(form))[0] == name
    assert (
        parse_spec(f"  {name.upper()}{_example(form)[len(name) :]}  ")[0] == name
    )  # the name: any case, spaces around


def test_an_unknown_spec_names_every_form() -> None:
    with pytest.raises(BadInput) as caught:
        parse_spec("nope:x")
    assert all(form in str(caught.value) for p in PROVIDERS.values() for form in p.forms)


@pytest.mark.parametrize("name", [n for n, p in PROVIDERS.items() if p.needs_model])
def test_a_provider_that_needs_a_model_refuses_none(name: str) -> None:
    with pytest.raises(BadInput, match=f"name the model, e.g. {name}:MODEL"):
        parse_spec(f"{name}:")


@pytest.mark.parametrize("name", OFFLINE)
def test_each_offline_provider_builds_the_embedder_that_names_it(name: str) -> None:
    """The stored spec is ``provider:model``: a registry name that differs from the class's
    ``provider`` would make a session's embedder impossible to rerun."""
    built = make_embedder(name)
    assert built.provider == name
    assert make_embedder(built.spec).spec == built.spec


def test_the_default_is_registered_and_listed() -> None:
    assert PROVIDERS[parse_spec(DEFAULT_EMBEDDER)[0]].listed


@pytest.mark.parametrize("command", ["analyze", "lint", "eval"])
def test_the_embedder_help_lists_the_registry(command: str) -> None:
    shown = option_help(command, "--embedder")
    listed = [f for p in PROVIDERS.values() if p.listed for f in p.forms]
    assert all(form in shown for form in listed if form != "precomputed"), shown
    assert ("precomputed" in shown) == (command == "analyze")  # lint and eval embed new text
    assert "hash" not in shown  # for tests only
    assert shown.startswith(embedder_help(given_vectors=command == "analyze"))


def test_the_readme_table_is_the_registry() -> None:
    assert embedder_table() in README.read_text(encoding="utf-8"), (
        "README's --embedder table differs from the registry; paste embedder_table()'s output:\n" + embedder_table()
    )
