"""Real user traffic (a query log export): reading and aggregating it (``reader``).

The maths that compares traffic with the test set and the corpus lives in
:mod:`ragcov_tui.coverage.traffic`.
"""
