"""The plugin's loaders are ragcov's own: a vector store as the corpus, a BEIR folder as the test set
(issue #30 §1)."""

from __future__ import annotations

from pathlib import Path

from ragcov_tui.pytest_plugin import load_corpus, load_testset, question_ids
from tests.evaluation.test_eval_beir import make_beir
from tests.vectorstores.stores import build_parquet, client, sample_rows


def test_a_vector_store_loads_as_the_corpus_ragcov_reads(tmp_path: Path) -> None:
    client("pyarrow")
    rows = sample_rows()
    loaded = load_corpus(build_parquet(tmp_path / "kb.parquet", rows), skip_space_check=True)
    assert [c.id for c in loaded.chunks] == list(rows.ids) and loaded.store is not None


def test_a_beir_folder_gives_its_judged_queries_in_file_order(tmp_path: Path) -> None:
    folder = make_beir(tmp_path / "beir")
    testset = load_testset(folder)
    assert testset.format == "beir" and question_ids(folder) == [q.id for q in testset.questions]
    assert all(q.gold for q in testset.questions)
