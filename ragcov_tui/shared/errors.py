"""Error types shared by the core, and the exit codes the CLI maps them to.

Every user mistake is raised as a :class:`BadInput` whose message is one line naming the file,
line or field at fault; the CLI prints it and exits 2, never a traceback.
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_BAD_INPUT = 2
EXIT_GATE_FAILED = 3


class RagcovError(Exception):
    """Base class: an error the CLI reports as one line with an exit code."""

    exit_code = EXIT_FAILURE


class BadInput(RagcovError):
    """The user's input is wrong (missing path, malformed line, unknown field…): exit 2."""

    exit_code = EXIT_BAD_INPUT


class ProviderError(RagcovError):
    """A remote provider failed after retries (unreachable, 5xx forever, bad replies): exit 1."""

    exit_code = EXIT_FAILURE


class Unreachable(ProviderError):
    """No server answers at a provider's address after every retry (connection refused, unknown
    host): the setting that names it (``$OPENAI_BASE_URL``, ``http:URL``…) points at nothing, a
    mistake to fix before running again, so exit 2 like any bad setting."""

    exit_code = EXIT_BAD_INPUT


class ConfigError(BadInput):
    """A setting is missing or invalid (e.g. an API key env var is not set): exit 2."""


class Cancelled(RagcovError):
    """Long work was cancelled by the caller (the TUI's cancel button)."""

    exit_code = EXIT_FAILURE


class Interrupted(KeyboardInterrupt):
    """A stop signal (SIGTERM, SIGHUP) turned into a ``KeyboardInterrupt`` by the CLI, so the run
    unwinds like Ctrl-C: the running session is marked ``interrupted`` and the exit code is 128 + N."""

    def __init__(self, signal_name: str, signum: int) -> None:
        super().__init__(signal_name)
        self.signal_name = signal_name
        self.exit_code = 128 + signum
