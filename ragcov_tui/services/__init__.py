"""Application services: the runs a front end starts, each tying several layers together.

``analysis_job`` (``ragcov analyze``, the app's Jobs pane), ``eval_job`` (``ragcov eval``), ``triage``
and ``writeback`` (decisions on a session's findings, written losslessly into the test file), and
``options`` (every option declared once), ``settings`` + ``config`` (one typed merge of flags or
form fields, the environment and ``ragcov.toml``). Front ends (``cli/``, ``tui/``) call them; nothing below imports them (the import
contracts in pyproject.toml check it)."""
