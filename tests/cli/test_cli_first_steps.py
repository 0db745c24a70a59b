"""A new user's first commands (issue #22 §6): ``ragcov tui`` without a terminal refuses before the
app's imports, and with one a mistyped session is still a one-line error before any app starts; every
flag has help; the commands ragcov tells the user to run can be run as they are printed."""

from __future__ import annotations

import argparse
import os
import pty
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.conftest import REPO, run_cli

NO_TERMINAL = "error: ragcov tui needs a terminal: stdin and stdout must be a TTY (for a report use `ragcov report`)"
PROBE = (
    "import sys; from ragcov_tui.cli.main import main; code = main(['tui', '--db', sys.argv[1]]); "
    "print(code, [m for m in ('textual', 'numpy', 'sqlite_utils') if m in sys.modules])"
)


def _python(*argv: str, **kw) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, *argv], env=env, text=True, capture_output=True, timeout=120, **kw)


def test_tui_without_a_terminal_refuses_before_importing_the_app(tmp_path: Path) -> None:
    """It took 4.6–8.8 s to say so: Textual, numpy and the store were imported first."""
    done = _python("-c", PROBE, str(tmp_path / "r.db"), stdin=subprocess.DEVNULL)
    assert done.stdout.split("\n")[0] == "2 []"
    assert done.stderr.strip() == NO_TERMINAL
    assert not (tmp_path / "r.db").exists()  # nothing was opened or created


def test_tui_in_a_terminal_names_a_mistyped_session_before_any_app_starts(tmp_path: Path) -> None:
    primary, secondary = pty.openpty()
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "ragcov_tui", "tui", "--db", str(tmp_path / "r.db"), "--session", "zzz"],
            env={**os.environ, "PYTHONPATH": str(REPO)},
            stdin=secondary,
            stdout=secondary,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            err = proc.communicate(timeout=120)[1]
        finally:
            proc.kill()
    finally:
        os.close(primary)
        os.close(secondary)
    assert proc.returncode == 2
    assert "session 'zzz': no such session" in err and len(err.strip().splitlines()) == 1


def test_every_flag_and_argument_of_every_command_says_what_it_does() -> None:
    """``eval --embedder``, compare's B and ``--json``, ``sessions --kind``, report's ``--json`` and
    ``--markdown`` had no help."""
    from ragcov_tui.cli.main import _parser

    [commands] = [a for a in _parser()._actions if isinstance(a, argparse._SubParsersAction)]
    silent = [
        f"{name} {action.dest}" for name, sub in commands.choices.items() for action in sub._actions if not action.help
    ]
    assert silent == []


def _start_with(capsys: pytest.CaptureFixture[str], db: Path) -> str:
    """The command ``ragcov sessions`` on an empty database tells the user to run."""
    assert run_cli("sessions", "--db", str(db)) == 0
    out = capsys.readouterr().out.strip()
    assert out.startswith(f"No sessions in {db} yet. Start with: ") and out.endswith(" analyze --help")
    return out.split("Start with: ", 1)[1].removesuffix(" analyze --help")


def test_the_printed_command_runs_as_it_is_when_ragcov_is_not_on_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The quick start's venv is not activated: "Open it: ragcov tui …" named a command the shell cannot find."""
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    command = _start_with(capsys, tmp_path / "r.db")
    script = Path(sys.executable).parent / "ragcov"
    assert command == (shlex.quote(str(script)) if script.is_file() else f"{shlex.quote(sys.executable)} -m ragcov_tui")
    done = subprocess.run(
        [*shlex.split(command), "sessions", "--db", str(tmp_path / "r.db")],
        text=True,
        capture_output=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert done.returncode == 0 and "No sessions in" in done.stdout


def test_the_printed_command_is_plain_ragcov_when_this_one_is_on_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    bin_dir = Path(sys.executable).parent
    if not (bin_dir / "ragcov").is_file():
        pytest.skip("ragcov is not installed beside this Python (pip install -e . puts it there)")
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    assert _start_with(capsys, tmp_path / "r.db") == "ragcov"
