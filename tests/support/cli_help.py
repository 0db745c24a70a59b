"""The help text of one ``ragcov`` option as argparse shows it, placeholders filled, before wrapping
(so no test depends on the terminal's width)."""

from __future__ import annotations

import argparse

from ragcov_tui.cli.main import _parser


def option_help(command: str, flag: str) -> str:
    """The expanded help of ``flag`` in ``ragcov COMMAND --help``."""
    [commands] = [a for a in _parser()._actions if isinstance(a, argparse._SubParsersAction)]
    parser = commands.choices[command]
    [action] = [a for a in parser._actions if flag in a.option_strings]
    return parser._get_formatter()._expand_help(action)
