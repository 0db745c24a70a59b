"""The held-out-topic benchmark's figures on tiny cases whose answers are worked out by hand
(benchmarks/heldout_metrics.py, heldout_topic.measure, heldout_data's converters)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"


def _load(name: str):
    sys.path.insert(0, str(BENCH))
    try:
        spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # dataclasses look their module up there
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(BENCH))


m = _load("heldout_metrics")
topic_bench = _load("heldout_topic")
data = _load("heldout_data")

GOLD = {"q1": {"a"}, "q2": {"a", "b"}, "q3": {"c"}, "q4": {"c", "d"}, "q5": {"e"}}
GROUPS = {"a": "x", "b": "x", "c": "y", "d": "z", "e": "y"}
# 10 chunks: documents a..e, two chunks each; clusters 0..3
CHUNKS = [("a", 0), ("a", 0), ("b", 0), ("b", 1), ("c", 2), ("c", 2), ("d", 2), ("d", 3), ("e", 3), ("e", 3)]


@pytest.mark.parametrize(
    "removed, held",
    [
        ([], set()),
        (["q1"], set()),
        (["q1", "q2"], {"a", "b"}),
        (["q3"], set()),
        (["q3", "q4"], {"c", "d"}),
        (["q4"], {"d"}),
        (["q5"], {"e"}),
        (list(GOLD), {"a", "b", "c", "d", "e"}),
        (["zz"], set()),
    ],
)
def test_held_out_documents_are_those_losing_every_question(removed, held):
    assert m.held_out_documents(GOLD, removed) == held


def test_topics_are_questions_whose_gold_lies_in_one_group():
    assert m.topics_from_groups(GOLD, GROUPS) == {"x": ["q1", "q2"], "y": ["q3", "q5"]}  # q4 spans y and z
    assert m.topics_from_groups({"q": {"nowhere"}}, GROUPS) == {}


@pytest.mark.parametrize(
    "held, cluster",
    [
        ({"a"}, 0),
        ({"b"}, 1),  # b: one chunk in 0 (of 3) and one in 1 (of 1): tie on count, 1 has the larger fraction
        ({"c", "d"}, 2),
        ({"d"}, 2),  # d: one of three chunks in 2 and in 3: full tie, the lower id
        ({"d", "e"}, 3),
        (set(), None),
        ({"zz"}, None),
    ],
)
def test_concentration_cluster(held, cluster):
    assert m.concentration_cluster(CHUNKS, held) == cluster


@pytest.mark.parametrize(
    "gaps, cluster, rank",
    [([3, 2, 0], 2, 2), ([3, 2, 0], 3, 1), ([3, 2, 0], 1, None), ([], 0, None), ([1], None, None)],
)
def test_gap_rank(gaps, cluster, rank):
    assert m.gap_rank(gaps, cluster) == rank


def test_top_gap_share_base_rate_and_recall():
    share, base, recall = m.top_gaps_share(CHUNKS, [2, 3, 1, 0], {"c", "d"}, top=3)
    # first three gaps = clusters 2, 3, 1: 3 + 3 + 1 = 7 chunks, of which c, c, d, d are held out
    assert share == pytest.approx(4 / 7) and base == pytest.approx(4 / 10) and recall == 1.0
    share, base, recall = m.top_gaps_share(CHUNKS, [0], {"c", "d"}, top=3)
    assert share == 0.0 and recall == 0.0
    assert m.top_gaps_share(CHUNKS, [], {"c"}, top=3) == (None, pytest.approx(0.2), 0.0)


def test_lowest_coverage_puts_undefined_last_and_keeps_order_on_ties():
    docs = [("a", 0.5), ("b", None), ("c", 0.2), ("d", 0.5), ("e", 0.1)]
    assert m.lowest_coverage(docs) == ["e", "c", "a", "d", "b"]


@pytest.mark.parametrize(
    "held, precision, base",
    [
        ({"e", "c"}, 1.0, 0.4),
        ({"e", "a"}, 0.5, 0.4),
        ({"b"}, 0.0, 0.2),
        (set(), 0.0, 0.0),
        ({"a", "b", "c", "d", "e"}, 1.0, 1.0),
    ],
)
def test_precision_at_held_out(held, precision, base):
    ranked = ["e", "c", "a", "d", "b"]
    assert m.precision_at_held_out(ranked, held) == (pytest.approx(precision), pytest.approx(base))


@pytest.mark.parametrize("value, base, out", [(0.6, 0.2, 3.0), (None, 0.2, None), (0.5, 0.0, None), (0.0, 0.5, 0.0)])
def test_ratio(value, base, out):
    assert m.ratio(value, base) == (None if out is None else pytest.approx(out))


def test_measure_reads_the_analyze_report():
    report = {
        "chunk_details": [{"source": s, "cluster": c} for s, c in CHUNKS],
        "gaps": [{"cluster": 3}, {"cluster": 2}, {"cluster": 0}, {"cluster": 1}],
        "clusters": [
            {"id": k, "size": n, "priority": p, "covered_share": cs}
            for k, n, p, cs in [(0, 3, 0.1, 0.9), (1, 1, 0.2, 0.8), (2, 3, 0.5, 0.4), (3, 3, 0.7, 0.2)]
        ],
        "calibration": {"gap_cut": 0.3, "median_covered_share": 0.85, "coverage_cut": 0.41},
        "documents": [
            {"source": "a", "coverage": 0.6},
            {"source": "b", "coverage": 0.55},
            {"source": "c", "coverage": 0.3},
            {"source": "d", "coverage": 0.35},
            {"source": "e", "coverage": 0.4},
        ],
    }
    got = topic_bench.measure(report, {"c", "d"})
    assert got["cluster"] == 2 and got["rank"] == 2 and got["gaps"] == 4
    assert got["cluster_holds"] == pytest.approx(3 / 4)
    # first three gaps = clusters 3, 2, 0: nine chunks, four of them (c, c, d, d) held out
    assert got["top_share"] == pytest.approx(4 / 9) and got["top_ratio"] == pytest.approx((4 / 9) / 0.4)
    assert got["precision"] == 1.0 and got["doc_base"] == pytest.approx(0.4) and got["p_ratio"] == pytest.approx(2.5)
    assert got["cluster_covered"] == 0.4 and got["gap_cut"] == 0.3 and got["priority_place"] == 2
    assert got["coverage_cut"] == 0.41 and got["cluster_coverage"] is None  # the test report has no coverage


@pytest.mark.parametrize(
    "clusters, cluster, place",
    [
        ([{"id": 0, "size": 5, "priority": 0.2}, {"id": 1, "size": 2, "priority": 0.9}], 0, 2),
        ([{"id": 0, "size": 5, "priority": 0.5}, {"id": 1, "size": 9, "priority": 0.5}], 0, 2),  # tie: the larger first
        ([{"id": 0, "size": 5, "priority": 0.5}, {"id": 1, "size": 5, "priority": 0.5}], 1, 2),  # then the lower id
        ([{"id": 0, "size": 5, "priority": None}], 0, None),
        ([{"id": 0, "size": 5, "priority": 0.1}], None, None),
    ],
)
def test_priority_place_among_all_clusters(clusters, cluster, place):
    assert topic_bench.priority_place(clusters, cluster) == place


@pytest.mark.parametrize(
    "text, rows",
    [
        ("query-id\tcorpus-id\tscore\n1\t10\t1\n1\t11\t1\n2\t12\t0\n", {"1": {"10", "11"}}),
        ("1\t 0 31715818\t1\n3\t 0 14717500\t1\r\n", {"1": {"31715818"}, "3": {"14717500"}}),
        ("garbage\n\n1 2\n", {}),
    ],
)
def test_qrels_rows_beir_and_trec(text, rows):
    assert data.parse_qrels_rows(text) == rows


def test_squad_conversion_keeps_answerable_questions_and_article_labels(tmp_path):
    source = {
        "data": [
            {
                "title": "T1",
                "paragraphs": [
                    {
                        "context": "P one.",
                        "qas": [
                            {"id": "a", "question": "Q a?", "is_impossible": False},
                            {"id": "b", "question": "Q b?", "is_impossible": True},
                        ],
                    },
                    {"context": "P two.", "qas": [{"id": "c", "question": "Q c?", "is_impossible": True}]},
                ],
            },
            {"title": "T2", "paragraphs": [{"context": "P three.", "qas": [{"id": "d", "question": "Q d?"}]}]},
        ]
    }
    note = data.squad({"data/dev-v2.0.json": json.dumps(source)}, tmp_path)
    assert note.startswith("2 paragraphs, 2 questions, 2 articles")
    assert [json.loads(r)["_id"] for r in (tmp_path / "corpus.jsonl").read_text().splitlines()] == ["00-00", "01-00"]
    assert (tmp_path / "qrels" / "test.tsv").read_text().splitlines()[1:] == ["a\t00-00\t1", "d\t01-00\t1"]
    assert (tmp_path / "topics.tsv").read_text() == "00-00\tT1\n01-00\tT2\n"


def test_ranked_documents_follow_the_report_rank_when_it_has_one():
    ranked = [
        {"source": "a", "coverage": 0.1, "rank": 3},
        {"source": "b", "coverage": 0.5, "rank": 1},
        {"source": "c", "coverage": 0.3, "rank": 2},
    ]
    assert m.ranked_documents(ranked) == (["b", "c", "a"], "rank")
    unranked = [{"source": "a", "coverage": 0.1}, {"source": "b", "coverage": 0.5}, {"source": "c", "coverage": 0.3}]
    assert m.ranked_documents(unranked) == (["a", "c", "b"], "coverage")
    assert m.ranked_documents([]) == ([], "coverage")


def test_markdown_row_shows_undefined_figures_as_a_dash():
    row = {
        "dataset": "d",
        "topic": "t",
        "removed": 3,
        "removed_share": 0.06,
        "held_out": 2,
        "documents": 40,
        "rank": None,
        "rank_before": 4,
        "top_share": None,
        "chunk_base": 0.05,
        "top_ratio": None,
        "precision": 0.5,
        "doc_base": 0.05,
        "p_ratio": 10.0,
        "seconds": 1.25,
    }
    table = topic_bench.markdown([row]).splitlines()
    assert table[2] == "| d | t | 3 (6.0%) | 2 of 40 | **—** (4) | — / 0.050 (—) | 0.50 / 0.050 (**10.0×**) | 1.2 |"


def _tiny_beir(root: Path) -> Path:
    """Three labelled topics of six documents, each with its own words; two questions per document."""
    folder = root / "tiny"
    (folder / "qrels").mkdir(parents=True)
    vocab = {
        "bees": "hive honey pollen queen drone wax",
        "ships": "hull sail anchor mast keel harbour",
        "stars": "nebula orbit comet galaxy quasar pulsar",
    }
    docs, queries, qrels, topics = [], [], [], []
    for topic, words in vocab.items():
        w = words.split()
        for i in range(6):
            doc = f"{topic}-{i}"
            docs.append({"_id": doc, "text": f"The {w[i]} and the {w[(i + 1) % 6]} of {topic}: {' '.join(w)}."})
            topics.append(f"{doc}\t{topic}\n")
            for j in range(2):
                queries.append({"_id": f"{doc}-q{j}", "text": f"What about the {w[(i + j) % 6]} of {topic}?"})
                qrels.append(f"{doc}-q{j}\t{doc}\t1\n")
    (folder / "corpus.jsonl").write_text("".join(json.dumps(d) + "\n" for d in docs))
    (folder / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in queries))
    (folder / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\n" + "".join(qrels))
    (folder / "topics.tsv").write_text("".join(topics))
    return folder


def test_the_benchmark_runs_end_to_end_without_gold_ids(tmp_path):
    _tiny_beir(tmp_path)
    out = tmp_path / "out.json"
    assert topic_bench.main([str(tmp_path), "--datasets", "tiny", "--embedder", "hash", "--json", str(out)]) == 0
    rows = json.loads(out.read_text())["rows"]
    assert sorted(r["topic"] for r in rows) == ["bees", "ships", "stars"]
    for r in rows:
        assert (r["removed"], r["held_out"], r["documents"]) == (12, 6, 18)
        assert r["removed_share"] == pytest.approx(1 / 3) and r["doc_base"] == pytest.approx(1 / 3)
        assert r["doc_order"] == "rank" and 0.0 <= r["precision"] <= 1.0 and r["seconds"] >= 0
    # main returned 0: every report had gold None (analyze_report raises when gold ids reach analyze)


def test_the_benchmark_says_what_is_missing(tmp_path, capsys):
    assert topic_bench.main([str(tmp_path), "--datasets", "nothing"]) == 2
    assert "no prepared nothing" in capsys.readouterr().err
