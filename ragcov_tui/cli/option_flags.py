"""The CLI flags of the declared options (:mod:`ragcov_tui.services.options`): one flag per
option of a command, its help, metavar and arity taken from the declaration; ``{default}`` in a
help text is filled with the declared default only when help is shown (reading a core default
imports its module)."""

from __future__ import annotations

import argparse
from collections.abc import Collection

from ragcov_tui.services.options import BY_KEY, Option, command_options, filled


def add_option_flags(parser: argparse.ArgumentParser, command: str, *, skip: Collection[str] = ()) -> None:
    """Add the flag of every declared option of ``command`` but those in ``skip`` to ``parser``."""
    for option in command_options(command):
        if option.key not in skip:
            add_flag(parser, option, command)


def add_flag(parser: argparse.ArgumentParser, option: Option, command: str) -> None:
    """``option``'s flag as ``command`` shows it: ``--chunk-size`` (dest ``chunk_size``), its metavar,
    arity and help (``{default}`` left for :class:`DefaultsHelpFormatter`)."""
    metavar, text = option.metavar_for(command), option.help_for(command)
    if option.nargs:
        parser.add_argument(
            option.flag, dest=option.key, metavar=metavar, help=text, nargs=option.nargs, required=option.required
        )
    else:
        parser.add_argument(option.flag, dest=option.key, metavar=metavar, help=text, required=option.required)


class DefaultsHelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Fills ``{default}`` in a declared option's help with its declared default, and ``{llm_choices}``-
    style placeholders with the registries' lists (:func:`~ragcov_tui.services.options.registry_help`),
    when help is shown, so no default and no list is written twice."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        return filled(action.help, BY_KEY.get(action.dest)) if action.help else action.help
