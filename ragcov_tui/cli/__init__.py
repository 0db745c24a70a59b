"""The ``ragcov`` command line: ``main.py`` parses arguments, ``commands.py`` runs one subcommand,
the rest render for a terminal or a log. Thin: every computation is a call into the core."""
