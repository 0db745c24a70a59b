"""Application services: the runs a front end starts that tie several layers together (triage of a
session's findings: the store's decision log, the test file's lossless writer, embedders and LLMs for
more suggestions). Front ends (``cli*.py``, ``tui/``) call them; nothing below imports them
(the import contracts in pyproject.toml check it)."""
