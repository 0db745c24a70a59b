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

Environment variables: ``RAGCOV_DB``, ``RAGCOV_EMBEDDER``, ``RAGCOV_LLM``, ``RAGCOV_JUDGE_LLM``,
``RAGCOV_CONCURRENCY``. API keys are read by the providers from their own variables
(``OPENAI_API_KEY``, ``VOYAGE_API_KEY``) and never stored.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragcov_tui.errors import ConfigError

CONFIG_FILE = "ragcov.toml"
ENV_VARS = {
    "db": "RAGCOV_DB",
    "embedder": "RAGCOV_EMBEDDER",
    "llm": "RAGCOV_LLM",
    "judge_llm": "RAGCOV_JUDGE_LLM",
    "concurrency": "RAGCOV_CONCURRENCY",
}


@dataclass
class Config:
    """The merged file + environment layer; flags are applied on top by :meth:`resolve`."""

    values: dict[str, Any] = field(default_factory=dict)
    sections: dict[str, dict[str, Any]] = field(default_factory=dict)
    path: Path | None = None

    def resolve(self, key: str, flag: Any, default: Any, command: str | None = None) -> Any:
        """``flag`` if given, else the env var, else ``[command].key``, else top-level ``key``, else ``default``."""
        if flag is not None:
            return flag
        env = ENV_VARS.get(key)
        if env and os.environ.get(env):
            return _coerce(key, os.environ[env], f"${env}")
        if command and key in self.sections.get(command, {}):
            return self.sections[command][key]
        if key in self.values:
            return self.values[key]
        return default


def _coerce(key: str, raw: str, where: str) -> Any:
    if key == "concurrency":
        try:
            value = int(raw)
        except ValueError:
            raise ConfigError(f"{where}: expected a whole number, got {raw!r}") from None
        if value < 1:
            raise ConfigError(f"{where}: must be at least 1")
        return value
    return raw


def load_config(path: str | os.PathLike[str] | None = None) -> Config:
    """Read ``ragcov.toml`` (explicit path, ``$RAGCOV_CONFIG``, or ./ragcov.toml if present)."""
    explicit = path or os.environ.get("RAGCOV_CONFIG")
    p = Path(explicit) if explicit else Path(CONFIG_FILE)
    if not p.exists():
        if explicit:
            raise ConfigError(f"config file {p}: no such file")
        return Config()
    try:
        data = tomllib.loads(p.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{p}: invalid TOML ({exc})") from exc
    sections = {k: v for k, v in data.items() if isinstance(v, dict)}
    values = {k: v for k, v in data.items() if not isinstance(v, dict)}
    for secret in ("api_key", "openai_api_key", "voyage_api_key"):
        if secret in values or any(secret in s for s in sections.values()):
            raise ConfigError(f"{p}: '{secret}' does not belong in a config file; set the environment variable")
    return Config(values=values, sections=sections, path=p)
