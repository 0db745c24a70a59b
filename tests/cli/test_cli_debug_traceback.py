"""``RAGCOV_DEBUG=1`` prints the traceback of an internal error — sanitised and redacted like every
other line, since the exception's message quotes untrusted text (a model reply, a file name, a URL
with a key in it)."""

from __future__ import annotations

import pytest

from ragcov_tui.cli import commands as cli_commands
from ragcov_tui.cli import main as cli

HOSTILE = "boom \x1b]0;pwned\x07 \x1b[2J \x9b31m \u202e http://user:secret@example.com/v1?key=sk-123"


@pytest.mark.parametrize("debug", ["", "1"])
def test_internal_error_line_and_traceback_are_sanitised(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], debug: str
) -> None:
    def explode(*_args: object) -> int:
        raise RuntimeError(HOSTILE)

    monkeypatch.setattr(cli_commands, "cmd_sessions", explode)
    monkeypatch.setenv("RAGCOV_DEBUG", debug)
    assert cli.main(["sessions"]) == 1
    err = capsys.readouterr().err
    assert "internal error: RuntimeError: boom" in err
    assert ("Traceback (most recent call last)" in err) == bool(debug)
    assert not any(c in err for c in "\x1b\x07\x9b\u202e"), repr(err)
    assert "secret" not in err
