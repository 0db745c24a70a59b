"""Settings: command-line flags, then environment variables, then an optional ``ragcov.toml``.

``ragcov.toml`` (looked up in the current directory, or named by ``--config`` / ``RAGCOV_CONFIG``)
holds top-level keys and per-command tables, e.g.::

    embedder = "openai:text-embedding-3-small"
    db = ".ragcov/ragcov.db"

    [analyze]
    clusters = "auto"
    gap_threshold = 0.65

    [eval]
    llm = "openai:gpt-4o-mini"
    k = 10

Environment variables: the ``env`` of each option declared in :mod:`ragcov_tui.services.options`
(``RAGCOV_DB``, ``RAGCOV_EMBEDDER``, ``RAGCOV_LLM``, …). Values are typed and checked by
:mod:`ragcov_tui.services.settings`; a key no command reads gets one warning line. API keys are read
by the providers from their own variables (``OPENAI_API_KEY``, ``VOYAGE_API_KEY``) and never stored.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragcov_tui.services.settings import Source, env_source, flag_source, toml_sources, unknown_keys
from ragcov_tui.shared.errors import BadInput, ConfigError
from ragcov_tui.shared.input_files import read_input_file

CONFIG_FILE = "ragcov.toml"


@dataclass
class Config:
    """A parsed ``ragcov.toml`` (empty when there is none): top-level keys and per-command tables."""

    values: dict[str, Any] = field(default_factory=dict)
    sections: dict[str, dict[str, Any]] = field(default_factory=dict)
    path: Path | None = None

    def sources(
        self, command: str, flags: dict[str, Any] | None = None, environ: Mapping[str, str] | None = None
    ) -> list[Source]:
        """The settings layers for ``command``, highest precedence first: flags, environment,
        ``[command]`` table, top level (see :mod:`ragcov_tui.services.settings`)."""
        layers = [flag_source(flags or {}), env_source(os.environ if environ is None else environ)]
        return layers + toml_sources(self.sections, self.values, str(self.path or CONFIG_FILE), command)

    def warnings(self) -> list[str]:
        """One line per key or table of the file that no command reads."""
        return unknown_keys(self.sections, self.values, str(self.path)) if self.path else []


def load_config(path: str | os.PathLike[str] | None = None) -> Config:
    """Read ``ragcov.toml`` (explicit path, ``$RAGCOV_CONFIG``, or ./ragcov.toml if present)."""
    explicit = path or os.environ.get("RAGCOV_CONFIG", "").strip()
    where = "--config" if path else "$RAGCOV_CONFIG"
    p = Path(explicit) if explicit else Path(CONFIG_FILE)
    if not explicit and not p.exists():
        return Config()
    try:  # a regular file only: a FIFO or a device named by mistake is refused, never read (it could block)
        data = tomllib.loads(read_input_file(p, f"{where if explicit else 'settings file'} {p}").decode("utf-8"))
    except BadInput as exc:
        raise ConfigError(str(exc)) from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{p}: invalid TOML ({' '.join(str(exc).split())})") from None
    except RecursionError:  # tomllib parses arrays and inline tables by recursion
        raise ConfigError(f"{p}: invalid TOML (arrays or tables nested too deep)") from None
    sections = {k: v for k, v in data.items() if isinstance(v, dict)}
    values = {k: v for k, v in data.items() if not isinstance(v, dict)}
    for secret in ("api_key", "openai_api_key", "voyage_api_key"):
        if secret in values or any(secret in s for s in sections.values()):
            raise ConfigError(f"{p}: '{secret}' does not belong in a config file; set the environment variable")
    return Config(values=values, sections=sections, path=p)
