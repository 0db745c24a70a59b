"""``python -m ragcov_tui`` runs the ``ragcov`` command."""

from ragcov_tui.cli import main

raise SystemExit(main())
