"""Test-set lint: is each question sound? (issue #27 §1, §2)

Questions the corpus cannot answer (``answerable``), gold ids that do not hold the answer, a
question in another language than the corpus (``language``), the answer given away in the
question and questions too vague to test (``wording``), near-duplicate groups (``duplicates``,
over :func:`ragcov_tui.coverage.redundancy.near_duplicate_pairs`), gold documents changed or gone
since an earlier session (``stale``); ``lint`` puts them in one report section.
"""
