"""Before any work, the server address of every provider a run names is checked, from the provider
registries (issue #29 §3): a malformed ``$…_BASE_URL`` / ``$OLLAMA_HOST`` is one line naming the
variable, for each provider that has one, whichever flag names it."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from ragcov_tui.cli.args_to_settings import check_urls
from ragcov_tui.embeddings.providers import PROVIDERS as EMBEDDERS
from ragcov_tui.llm.providers import PROVIDERS as LLMS
from ragcov_tui.shared.errors import BadInput

VARIABLES = {
    ("embedder", "openai"): "OPENAI_BASE_URL",
    ("embedder", "voyage"): "VOYAGE_BASE_URL",
    ("llm", "openai"): "OPENAI_BASE_URL",
    ("llm", "anthropic"): "ANTHROPIC_BASE_URL",
    ("llm", "ollama"): "OLLAMA_HOST",
}
BAD_PORT = "http://127.0.0.1:70000"


def test_every_provider_with_a_server_check_has_a_case_here() -> None:
    checked = {("embedder", n) for n, p in EMBEDDERS.items() if p.check_server}
    checked |= {("llm", n) for n, p in LLMS.items() if p.check_server}
    assert checked == set(VARIABLES)


CASES = [
    (kind, name, flag)
    for kind, name in VARIABLES
    for flag in (["embedder"] if kind == "embedder" else ["llm", "judge_llm", "paraphrase_llm"])
]


@pytest.mark.parametrize("kind,name,flag", CASES)
def test_a_malformed_server_address_names_its_variable(kind: str, name: str, flag: str, monkeypatch) -> None:
    monkeypatch.setenv(VARIABLES[kind, name], BAD_PORT)
    with pytest.raises(BadInput, match=rf"^\${VARIABLES[kind, name]} {BAD_PORT}: the port must be"):
        check_urls(SimpleNamespace(**{flag: f"{name}:some-model"}))  # type: ignore[arg-type]  # deliberately a stand-in holding the one flag it reads
    monkeypatch.delenv(VARIABLES[kind, name])
    check_urls(SimpleNamespace(**{flag: f"{name}:some-model"}))  # type: ignore[arg-type]  # unset: the default server
