"""Test files in the field layouts peers' tools publish, written by hand for the tests (issue #14).

Each layout is built from the published schema (the fields and how the tool serialises them),
with our own rows: Ragas (evaluation results via pandas ``to_csv``, ``Testset.to_jsonl``,
``EvaluationDataset.to_jsonl``), DeepEval goldens JSON, Giskard RAGET ``QATestset.save`` JSONL
and ``to_pandas().to_csv()``, LlamaIndex ``LabelledRagDataset.save_json`` and ARAGOG's parallel
lists. :data:`LAYOUTS` maps a name to ``(file name, text, peer)``; ``peer`` names the loader check
of :mod:`tests.testset.peer_loaders` the file must still pass after ragcov writes to it.
"""

from __future__ import annotations

import csv
import io
import json

QUESTIONS = [
    "How much does the Team plan cost per member, billed annually?",
    "Which identity providers does Skein support for SAML SSO?",
    "Wie lange werden gelöschte Projekte aufbewahrt?",
]
ANSWERS = ["$8 per member per month", "Any SAML 2.0 provider — Okta, Azure AD", "30 Tage"]
CONTEXTS = [
    ["Team costs $8 per member, billed annually.", 'Monthly billing is $10; it\'s the "default".'],
    ["Any SAML 2.0 identity provider:\nOkta, Azure AD, OneLogin"],
    ["Gelöschte Projekte bleiben 30 Tage im Papierkorb, danach — endgültig weg."],
]
RESPONSES = ["$8.", "Okta and Azure AD.", "30 Tage."]


def pandas_csv(header: list[str], rows: list[list[object]], index: str | None = "") -> str:
    """What ``DataFrame.to_csv`` writes: ``str()`` of each cell (a list becomes its Python repr),
    QUOTE_MINIMAL, ``\\n`` terminators, the index first unless ``index`` is None (its name is the
    header's first cell: empty for an unnamed RangeIndex)."""
    buffer = io.StringIO()
    out = csv.writer(buffer, lineterminator="\n")
    out.writerow(([index] if index is not None else []) + header)
    for i, row in enumerate(rows):
        out.writerow(([i] if index is not None else []) + ["" if v is None else str(v) for v in row])
    return buffer.getvalue()


def jsonl(rows: list[dict]) -> str:
    return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)


def _ragas_eval_rows() -> list[list[object]]:
    return [
        [q, c, r, a, 1.0, None if i == 1 else 0.5]
        for i, (q, c, r, a) in enumerate(zip(QUESTIONS, CONTEXTS, RESPONSES, ANSWERS, strict=True))
    ]


RAGAS_EVAL_HEADER = ["user_input", "retrieved_contexts", "response", "reference", "faithfulness", "context_recall"]
GISKARD_ROWS = [
    {
        "id": f"{n:08x}-3c1e-4f7a-9d2b-5e6f7a8b9c0d",
        "question": q,
        "reference_answer": a,
        "reference_context": "\n\n".join(f"Document {k}: {t}" for k, t in enumerate(c)),
        "conversation_history": [],
        "metadata": {"question_type": "simple", "seed_document_id": f"doc-{n}", "topic": "Billing"},
    }
    for n, (q, a, c) in enumerate(zip(QUESTIONS, ANSWERS, CONTEXTS, strict=True))
]
RAGAS_TESTSET_ROWS = [
    {
        "user_input": q,
        "reference_contexts": c,
        "reference": a,
        "synthesizer_name": "single_hop_specifc_query_synthesizer",
    }
    for q, a, c in zip(QUESTIONS, ANSWERS, CONTEXTS, strict=True)
]
# Ragas 0.1: ``TestDataset.to_pandas()`` (``contexts`` the question was written from, no answer), and
# the records its ``evaluate`` reads (``answer``; ``contexts`` then the retrieved ones).
RAGAS01_TESTSET_ROWS = [
    {
        "question": q,
        "contexts": c,
        "ground_truth": a,
        "evolution_type": "simple",
        "metadata": [{"source": f"doc-{i}"}],
        "episode_done": True,
    }
    for i, (q, a, c) in enumerate(zip(QUESTIONS, ANSWERS, CONTEXTS, strict=True))
]
RAGAS01_RECORDS_ROWS = [
    {"question": q, "answer": r, "contexts": c, "ground_truth": a}
    for q, a, c, r in zip(QUESTIONS, ANSWERS, CONTEXTS, RESPONSES, strict=True)
]
DEEPEVAL_ROWS = [
    {
        "input": q,
        "actual_output": r,
        "expected_output": a,
        "context": c,
        "retrieval_context": c[:1],
        "additional_metadata": {"owner": "docs"},
        "comments": None,
    }
    for q, a, c, r in zip(QUESTIONS, ANSWERS, CONTEXTS, RESPONSES, strict=True)
]
LLAMA_ROWS = [
    {
        "query": q,
        "query_by": {"model_name": "gpt-4o", "type": "ai"},
        "reference_contexts": c,
        "reference_answer": a,
        "reference_answer_by": {"model_name": "gpt-4o", "type": "ai"},
    }
    for q, a, c in zip(QUESTIONS, ANSWERS, CONTEXTS, strict=True)
]


def deepeval_csv(rows: list[dict]) -> str:
    """``EvaluationDataset.save_as("csv")`` (deepeval 4.3.1, ``deepeval/dataset/dataset.py``):
    ``csv.writer`` defaults (``\r\n``), lists joined with ``|``, ``additional_metadata`` as JSON."""
    header = [
        "input",
        "actual_output",
        "expected_output",
        "retrieval_context",
        "context",
        "name",
        "comments",
        "source_file",
        "tools_called",
        "expected_tools",
        "token_cost",
        "input_token_count",
        "output_token_count",
        "additional_metadata",
        "custom_column_key_values",
        "expectations",
    ]
    buffer = io.StringIO()
    out = csv.writer(buffer)
    out.writerow(header)
    for r in rows:
        out.writerow(
            [
                r["input"],
                r["actual_output"],
                r["expected_output"],
                "|".join(r["retrieval_context"]),
                "|".join(r["context"]),
                None,
                None,
                None,
                None,
                None,
                None,
                None,
                None,
                json.dumps(r["additional_metadata"], ensure_ascii=False),
                None,
                None,
            ]
        )
    return buffer.getvalue()


LAYOUTS: dict[str, tuple[str, str, str | None]] = {
    "ragas-eval-csv-index": ("ragas_eval.csv", pandas_csv(RAGAS_EVAL_HEADER, _ragas_eval_rows()), None),
    "ragas-eval-csv-unnamed-0": (
        "ragas_eval.csv",
        pandas_csv(RAGAS_EVAL_HEADER, _ragas_eval_rows(), "Unnamed: 0"),
        None,
    ),
    "ragas-eval-csv-trailing-comma": (
        "ragas_eval.csv",
        "".join(line + ",\n" for line in pandas_csv(RAGAS_EVAL_HEADER, _ragas_eval_rows(), None).splitlines()),
        None,
    ),
    "ragas-eval-jsonl": (
        "ragas_eval.jsonl",
        jsonl(
            [
                {"user_input": q, "retrieved_contexts": c, "response": r, "reference": a}
                for q, a, c, r in zip(QUESTIONS, ANSWERS, CONTEXTS, RESPONSES, strict=True)
            ]
        ),
        "ragas-eval",
    ),
    "ragas-testset-jsonl": ("testset.jsonl", jsonl(RAGAS_TESTSET_ROWS), "ragas-testset"),
    "ragas-testset-csv": (
        "testset.csv",
        pandas_csv(list(RAGAS_TESTSET_ROWS[0]), [list(r.values()) for r in RAGAS_TESTSET_ROWS]),
        None,
    ),
    "ragas01-testset-jsonl": ("testset.jsonl", jsonl(RAGAS01_TESTSET_ROWS), None),
    "ragas01-testset-csv": (
        "testset.csv",
        pandas_csv(list(RAGAS01_TESTSET_ROWS[0]), [list(r.values()) for r in RAGAS01_TESTSET_ROWS]),
        None,
    ),
    "ragas01-records-jsonl": ("records.jsonl", jsonl(RAGAS01_RECORDS_ROWS), None),
    "deepeval-goldens-json": ("goldens.json", json.dumps(DEEPEVAL_ROWS, indent=4, ensure_ascii=False), "deepeval"),
    "deepeval-goldens-csv": ("goldens.csv", deepeval_csv(DEEPEVAL_ROWS), "deepeval-csv"),
    "giskard-jsonl": ("qa_testset.jsonl", jsonl(GISKARD_ROWS), "giskard"),
    "giskard-jsonl-named-json": ("qa_testset.json", jsonl(GISKARD_ROWS), "giskard"),
    "giskard-csv": (
        "qa_testset.csv",
        pandas_csv(list(GISKARD_ROWS[0]), [list(r.values()) for r in GISKARD_ROWS], None),
        None,
    ),  # to_pandas() is indexed by "id": its first column
    "llamaindex-labelled-rag-json": ("rag_dataset.json", json.dumps({"examples": LLAMA_ROWS}, indent=4), "llamaindex"),
    "json-list-named-jsonl": (
        "expected.jsonl",
        json.dumps([{"question": q, "expected_answer": a} for q, a in zip(QUESTIONS, ANSWERS, strict=True)], indent=2),
        None,
    ),
}
# Read-only layouts: ragcov reads them but refuses to add or remove a row.
ARAGOG = json.dumps({"questions": QUESTIONS, "ground_truths": ANSWERS}, indent=2)
