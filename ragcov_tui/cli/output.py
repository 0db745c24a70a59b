"""Where a command's reports go: a file, or stdout for ``-``; JSON safe to print."""

from __future__ import annotations

import json
import shlex
import shutil
import sys
from pathlib import Path
from typing import Any

from ragcov_tui.cli.safe_console import SafeConsole, plain_line
from ragcov_tui.shared.errors import BadInput
from ragcov_tui.shared.safe_text import escape_json_text


def ragcov_command() -> str:
    """How the user's shell runs this ragcov, to be pasted as it is: ``ragcov`` when that name on
    PATH is this installation's script; else that script's full path (a virtual environment that
    is not activated: ``.venv/bin/ragcov``); else this Python with ``-m ragcov_tui``."""
    script = Path(sys.executable).parent / "ragcov"
    on_path = shutil.which("ragcov")
    if script.is_file():
        return "ragcov" if on_path and Path(on_path).resolve() == script.resolve() else shlex.quote(str(script))
    return f"{shlex.quote(sys.executable)} -m ragcov_tui"


def has_terminal() -> bool:
    """stdin and stdout are both a terminal: the app can run (Textual would spin forever on a closed stdin)."""
    return sys.stdin.isatty() and sys.stdout.isatty()


def write_output(path: str | None, text: str, quiet: bool) -> None:
    """Write ``text`` to ``path`` ('-' = stdout), then say ``wrote PATH`` on stderr (unless ``quiet``),
    like the other status lines; BadInput when the file cannot be written."""
    if not path:
        return
    if path == "-":
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
        return
    try:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise BadInput(f"cannot write {path}: {exc.strerror or exc}") from exc
    if not quiet:
        SafeConsole(stderr=True, soft_wrap=True).print(plain_line(f"wrote {path}"))


def write_html(path: str, page: str, quiet: bool) -> None:
    """Write an HTML page to ``path`` ('-' = stdout) atomically, then say ``wrote PATH`` on stderr (unless ``quiet``)."""
    if path == "-":
        write_output(path, page, quiet)
        return
    from ragcov_tui.services.html_export import write_page

    write_page(path, page)
    if not quiet:
        SafeConsole(stderr=True, soft_wrap=True).print(plain_line(f"wrote {path}"))


def dump_json(data: Any) -> str:
    """Indented JSON, non-ASCII text kept readable; control, bidi and other characters a terminal
    or editor would obey written as ``\\uXXXX`` (the same text once parsed), so printing or ``cat``-ing
    a report is safe."""
    return escape_json_text(json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False))
