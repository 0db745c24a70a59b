"""Systems under test: where an answer and its retrieved contexts come from (``--system``)."""
