"""ragcov in pytest: fixtures that run an eval once per session, and assertions that name questions.

Installed with the package (entry point ``pytest11``: ``ragcov`` → :mod:`.plugin`); a test writes::

    from ragcov_tui.pytest_plugin import assert_metric, assert_question, question_ids

    @pytest.fixture(scope="session")
    def retrieval(ragcov_eval):
        return ragcov_eval(questions=DATA, system="builtin:bm25", k=10)

    def test_recall(retrieval):                                 # one aggregate test
        assert_metric(retrieval, "recall@10", at_least=0.8)

    @pytest.mark.parametrize("qid", question_ids(DATA))         # or one test per question
    def test_each_question_finds_its_document(retrieval, qid):
        assert_question(retrieval, qid, "recall@10", at_least=1.0)

The modules import the standard library only at import time (ragcov's pipelines load when a
fixture or an assertion first runs): the plugin costs nothing in a pytest run that does not use it.
"""

from ragcov_tui.pytest_plugin.assertions import assert_metric, assert_question
from ragcov_tui.pytest_plugin.results import QuestionResult, RagcovResults
from ragcov_tui.pytest_plugin.testsets import load_corpus, load_testset, question_ids

__all__ = [
    "assert_metric",
    "assert_question",
    "question_ids",
    "load_testset",
    "load_corpus",
    "QuestionResult",
    "RagcovResults",
]
