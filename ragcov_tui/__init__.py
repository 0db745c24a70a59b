"""ragcov-tui: measure whether a RAG test set covers its knowledge base, and score the RAG system.

The core (everything but ``ragcov_tui.tui`` and ``ragcov_tui.cli.main``) is a library with no terminal
in it: functions take data, return data, and report long work through a ``Progress`` callback.
"""

__version__ = "0.1.0"
