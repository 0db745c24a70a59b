"""``python -m ragcov_tui`` runs the ``ragcov`` command."""

from ragcov_tui.cli.main import main

raise SystemExit(main())
