"""Each peer's own loader, re-created from its published source as the checks it makes on a file.

The packages are not test dependencies: each pulls in 29 to 50 others (pandas, datasets,
langchain, …) and some reach the network on import. So the loaders are re-created here from the
published source, field by field, as the checks they make; every function cites the file it
follows. A check raises :class:`PeerLoadError` with the loader's own complaint.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any


class PeerLoadError(Exception):
    """The peer's loader would fail on this file."""


def _rows_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _is_str_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _check_types(where: str, row: dict[str, Any], types: dict[str, Callable[[Any], bool]]) -> None:
    for name, ok in types.items():
        if name in row and row[name] is not None and not ok(row[name]):
            raise PeerLoadError(f"{where}: {name} has the wrong type ({type(row[name]).__name__})")


GISKARD_FIELDS = (
    "id",
    "question",
    "reference_answer",
    "reference_context",
    "conversation_history",
    "metadata",
    "agent_answer",
    "correctness",
)
GISKARD_REQUIRED = GISKARD_FIELDS[:6]


def giskard_qatestset_load(path: Path) -> int:
    """giskard 2.19.2, ``giskard/rag/testset.py``: ``QATestset.load`` reads the JSONL with
    ``pd.read_json(path, orient="records", lines=True)`` (every record gets every column, NaN
    where a row lacks it) and calls ``QuestionSample(**record)`` — a dataclass with fields
    ``id, question, reference_answer, reference_context, conversation_history, metadata`` and
    optional ``agent_answer, correctness``: an unknown column is ``TypeError: unexpected keyword
    argument``. ``to_pandas(filters)`` and the report call ``metadata.get`` on every row, and
    ``evaluate`` passes ``conversation_history`` as the history list, so those must be an object
    and a list on every row (NaN breaks them)."""
    rows = _rows_jsonl(path)
    columns = {name for row in rows for name in row}
    unexpected = sorted(columns - set(GISKARD_FIELDS))
    if unexpected:
        raise PeerLoadError(f"__init__() got an unexpected keyword argument {unexpected[0]!r}")
    missing = [name for name in GISKARD_REQUIRED if name not in columns]
    if missing:
        raise PeerLoadError(f"__init__() missing required argument: {missing[0]!r}")
    for i, row in enumerate(rows):
        if not isinstance(row.get("metadata"), dict) or not isinstance(row.get("conversation_history"), list):
            raise PeerLoadError(f"row {i}: metadata / conversation_history missing (NaN)")
    return len(rows)


SINGLE_TURN_TYPES: dict[str, Callable[[Any], bool]] = {
    "user_input": lambda v: isinstance(v, str),
    "retrieved_contexts": _is_str_list,
    "reference_contexts": _is_str_list,
    "response": lambda v: isinstance(v, str),
    "multi_responses": _is_str_list,
    "reference": lambda v: isinstance(v, str),
    "rubrics": lambda v: isinstance(v, dict),
    "persona_name": lambda v: isinstance(v, str),
    "query_style": lambda v: isinstance(v, str),
    "query_length": lambda v: isinstance(v, str),
    "retrieved_context_ids": lambda v: isinstance(v, list),
    "reference_context_ids": lambda v: isinstance(v, list),
}


def ragas_evaluation_dataset_from_jsonl(path: Path) -> int:
    """ragas 0.4.3, ``ragas/dataset_schema.py``: ``EvaluationDataset.from_jsonl`` json-loads each
    line and builds ``SingleTurnSample(**row)`` (pydantic; every field optional and typed as
    :data:`SINGLE_TURN_TYPES`; unknown keys ignored)."""
    rows = _rows_jsonl(path)
    for i, row in enumerate(rows):
        _check_types(f"row {i}", row, SINGLE_TURN_TYPES)
    return len(rows)


def ragas_testset_from_jsonl(path: Path) -> int:
    """ragas 0.4.3, ``ragas/testset/synthesizers/testset_schema.py``: ``Testset.from_list`` takes
    ``sample["synthesizer_name"]`` of every row (``KeyError`` without it) and builds a
    ``SingleTurnSample`` from the rest."""
    rows = _rows_jsonl(path)
    for i, row in enumerate(rows):
        if not isinstance(row.get("synthesizer_name"), str):
            raise PeerLoadError(f"row {i}: KeyError 'synthesizer_name'")
        _check_types(f"row {i}", row, SINGLE_TURN_TYPES)
    return len(rows)


def deepeval_goldens_from_json(path: Path) -> int:
    """deepeval 4.3.1, ``deepeval/dataset/dataset.py`` ``add_goldens_from_json_file``: ``json.load``
    of a list, each object read with ``.get`` into ``Golden`` (``deepeval/dataset/golden.py``,
    pydantic): ``input: str`` required; ``actual_output``, ``expected_output``, ``comments``:
    optional str; ``context``: optional list of str; ``retrieval_context``: optional list;
    ``additional_metadata``: optional dict."""
    rows = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(rows, list):
        raise PeerLoadError("the goldens file must hold a JSON list")
    for i, row in enumerate(rows):
        if not isinstance(row.get("input"), str):
            raise PeerLoadError(f"golden {i}: input: Input should be a valid string")
        _check_types(
            f"golden {i}",
            row,
            {
                "actual_output": lambda v: isinstance(v, str),
                "expected_output": lambda v: isinstance(v, str),
                "comments": lambda v: isinstance(v, str),
                "context": _is_str_list,
                "retrieval_context": lambda v: isinstance(v, list),
                "additional_metadata": lambda v: isinstance(v, dict),
            },
        )
    return len(rows)


def deepeval_goldens_from_csv(path: Path) -> int:
    """deepeval 4.3.1, ``deepeval/dataset/dataset.py`` ``add_goldens_from_csv_file``: ``pd.read_csv``
    (NaN read as None), ``input`` of every row into ``Golden(input: str)``; ``context`` and
    ``retrieval_context`` split on ``|``; ``additional_metadata`` parsed as a JSON object."""
    rows = list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))
    for i, row in enumerate(rows):
        if not row.get("input"):
            raise PeerLoadError(f"golden {i}: input: Input should be a valid string")
        if row.get("additional_metadata") and not isinstance(json.loads(row["additional_metadata"]), dict):
            raise PeerLoadError(f"golden {i}: additional_metadata: Input should be a valid dictionary")
    return len(rows)


def _created_by(value: Any) -> bool:
    return isinstance(value, dict) and value.get("type") in ("ai", "human")


def llamaindex_labelled_rag_dataset_from_json(path: Path) -> int:
    """llama-index-core, ``llama_index/core/llama_dataset/rag.py`` and ``base.py``:
    ``LabelledRagDataset.from_json`` json-loads the file and validates each of ``data["examples"]``
    as ``LabelledRagDataExample`` (pydantic): ``query: str``, ``reference_answer: str`` (both
    default ``""``), ``reference_contexts``: optional list of str, ``query_by`` /
    ``reference_answer_by``: optional ``CreatedBy`` (``type`` "ai" or "human")."""
    data = json.loads(path.read_text(encoding="utf-8"))
    for i, row in enumerate(data["examples"]):
        _check_types(
            f"example {i}",
            row,
            {
                "query": lambda v: isinstance(v, str),
                "reference_answer": lambda v: isinstance(v, str),
                "reference_contexts": _is_str_list,
                "query_by": _created_by,
                "reference_answer_by": _created_by,
            },
        )
    return len(data["examples"])


LOADERS: dict[str, Callable[[Path], int]] = {
    "giskard": giskard_qatestset_load,
    "ragas-eval": ragas_evaluation_dataset_from_jsonl,
    "ragas-testset": ragas_testset_from_jsonl,
    "deepeval": deepeval_goldens_from_json,
    "deepeval-csv": deepeval_goldens_from_csv,
    "llamaindex": llamaindex_labelled_rag_dataset_from_json,
}
