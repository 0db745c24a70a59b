"""The row ragcov appends to a test file: only fields the file's rows already have.

A peer's own loader must still read the file after ragcov wrote to it (Giskard's
``QATestset.load`` passes every column to its ``QuestionSample`` dataclass, so one unknown key
breaks it; Ragas' ``Testset.from_list`` needs ``synthesizer_name`` on every row). So a new row
carries, in the file's own field names:

- the id, when the rows have ids (a fresh one, :func:`ragcov_tui.testset.ids.fresh_id`); a file
  without ids gets none and the row reads back with its content id
  (:func:`ragcov_tui.testset.ids.content_ids`), which :func:`new_row` returns;
- the question text;
- where a place for it exists, the provenance (``{source, cluster, session[, edited]}``): a
  ``provenance`` field the rows have; else inside a free-form object the rows have (Giskard
  ``metadata``, DeepEval ``additional_metadata``) as ``{"provenance": {...}}``; else Ragas'
  ``synthesizer_name`` gets the source (``ragcov:heuristic``). Otherwise the provenance is kept
  only in the session DB (the decision's payload);
- the value a new single-turn question has for a field its loader needs on every row
  (:data:`NEW_ROW_DEFAULTS`: Giskard's ``conversation_history`` is ``[]``);
- CSV: pandas' index column gets the next index (largest integer + 1), other unnamed columns stay empty;
  a column of lists gets ``[]`` (what pandas writes for an empty list: an empty cell reads back as
  NaN, which ``ast.literal_eval`` — how Ragas users parse ``retrieved_contexts`` — refuses); an
  object cell is written as JSON, or as a Python literal when the file's cells are written so.
"""

from __future__ import annotations

import json
from typing import Any

from ragcov_tui.shared.errors import BadInput
from ragcov_tui.shared.input_values import InvalidJson, is_ascii_whole, parse_json
from ragcov_tui.shared.json_types import JsonObject
from ragcov_tui.testset.cells import NotALiteral, python_literal
from ragcov_tui.testset.fields import PROVENANCE_FIELD
from ragcov_tui.testset.ids import content_ids, fresh_id
from ragcov_tui.testset.layout import Layout
from ragcov_tui.testset.models import TestSet

# Free-form object fields of peers' row schemas that may hold the provenance, in priority order.
FREE_FORM_FIELDS = ("metadata", "additional_metadata")
# Ragas' testset rows: a string naming what produced the question.
SOURCE_FIELD = "synthesizer_name"
NEW_ROW_DEFAULTS: JsonObject = {"conversation_history": []}


def new_row(testset: TestSet, layout: Layout, text: str, provenance: JsonObject) -> tuple[JsonObject, str]:
    """The row to append (see the module docstring) and the id it will read back with."""
    names, csv = testset.field_names, testset.format == "csv"
    if layout.parallel:
        raise refuse_parallel(testset, layout)
    if "question" not in names and csv:
        raise BadInput(f"{testset.path}: the CSV header has no question column (nothing was written)")
    samples = _samples(testset, layout)
    row: JsonObject = {}
    if "id" in names:
        new_id = fresh_id([q.raw.get(names["id"], q.id) for q in testset.questions if q.id_in_file])
        row[names["id"]], question_id = str(new_id) if csv else new_id, str(new_id)
    else:  # the last row: the reader gives it its content id after every other row's id
        question_id = content_ids([text], {q.id for q in testset.questions})[0]
    row[names.get("question", "question")] = text
    row.update(_provenance(samples, provenance))
    row.update({k: v for k, v in NEW_ROW_DEFAULTS.items() if isinstance(samples.get(k), type(v))})
    if not csv:
        return row, question_id
    if layout.index_column is not None:
        row[layout.index_column] = _next_index(q.raw.get(layout.index_column, "") for q in testset.questions)
    row.update({k: [] for k, v in samples.items() if isinstance(v, list) and k not in row})
    return {k: _cell(v, _literal_style(testset, k)) for k, v in row.items()}, question_id


def refuse_parallel(testset: TestSet, layout: Layout) -> BadInput:
    """The error for writing to a parallel-lists file (ARAGOG), which ragcov only reads."""
    return BadInput(
        f"{testset.path}: the questions are parallel {layout.parallel!r} lists; ragcov only reads "
        "this layout (add or remove the question by hand, or convert it to JSONL) (nothing was written)"
    )


def _samples(testset: TestSet, layout: Layout) -> JsonObject:
    """Each field the rows have -> its value in the first row where it is not blank (CSV object
    cells parsed); a CSV column blank in every row maps to ``""``."""
    samples: JsonObject = {name: "" for name in layout.header}
    for question in testset.questions:
        for name, value in question.raw.items():
            if value in (None, "") or (name in samples and samples[name] != ""):
                continue
            samples[name] = _parsed_cell(value) if testset.format == "csv" else value
    return samples


def _parsed_cell(cell: str) -> Any:
    """A CSV cell holding a JSON / Python-literal list or object, parsed; else the text."""
    if cell.strip()[:1] not in ("[", "{"):
        return cell
    try:
        return parse_json(cell)
    except InvalidJson:
        pass
    try:
        return python_literal(cell)
    except NotALiteral:
        return cell


def _provenance(samples: JsonObject, provenance: JsonObject) -> JsonObject:
    if PROVENANCE_FIELD in samples:
        return {PROVENANCE_FIELD: dict(provenance)}
    place = next((name for name in FREE_FORM_FIELDS if isinstance(samples.get(name), dict)), None)
    if place is not None:
        return {place: {PROVENANCE_FIELD: dict(provenance)}}
    if SOURCE_FIELD in samples and provenance.get("source"):
        return {SOURCE_FIELD: str(provenance["source"])}
    return {}


def _next_index(cells: Any) -> str:
    """pandas' next index: the largest integer index + 1 (empty when the column holds none); an
    index is ASCII digits, 18 at most (``"²".isdigit()`` is true, ``int("²")`` fails)."""
    numbers = [int(c) for c in (str(c).strip() for c in cells) if is_ascii_whole(c)]
    return str(max(numbers) + 1) if numbers else ""


def _literal_style(testset: TestSet, column: str) -> bool:
    """True when the column's first object / list cell is a Python literal, not JSON."""
    cell = next(
        (
            str(q.raw.get(column, "")).strip()
            for q in testset.questions
            if str(q.raw.get(column, "")).strip()[:1] in ("[", "{")
        ),
        "",
    )
    if not cell:
        return False
    try:
        parse_json(cell)
    except InvalidJson:
        return True
    return False


def _cell(value: Any, literal: bool) -> str:
    """A CSV cell: text as is, a list / object as JSON or as a Python literal."""
    if isinstance(value, str):
        return value
    return repr(value) if literal else json.dumps(value, ensure_ascii=False)
