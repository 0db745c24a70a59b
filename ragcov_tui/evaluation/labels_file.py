"""``ragcov labels import FILE --session S``: people's verdicts made elsewhere, read and checked.

A row names the item, the metric and the verdict: ``question_id`` (or ``id``), ``metric``, and
either ``label`` (1 / 0, also ``yes`` / ``no``, ``true`` / ``false``, ``pass`` / ``fail``) or
``score``, a number in [0, 1] read as yes when ≥ 0.5
(:data:`~ragcov_tui.evaluation.alignment.VERDICT_THRESHOLD`, the judge's own cut). The file is CSV
(a header row) when its name ends in ``.csv``, else JSON Lines (one object a line; blank lines
skipped). Every row is checked before one is stored: the first bad one is a one-line
``FILE:LINE: field 'F': …`` error (exit 2) and nothing is written. The question must be an item
of the session and the metric one of its judged generation metrics; an item and metric given
twice is refused (which verdict was meant?).
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from ragcov_tui.evaluation.alignment import VERDICT_THRESHOLD
from ragcov_tui.shared.errors import BadInput
from ragcov_tui.shared.input_files import read_input_text
from ragcov_tui.shared.input_values import parse_json_line, quoted
from ragcov_tui.store.labels import Label

ID_FIELDS = ("question_id", "id")
YES = frozenset({"1", "yes", "y", "true", "pass"})
NO = frozenset({"0", "no", "n", "false", "fail"})


def _rows(path: Path, display: str) -> Iterator[tuple[int, Mapping[str, Any]]]:
    text, _ = read_input_text(path, display)
    text = text.removeprefix("\ufeff")
    if path.suffix.lower() == ".csv":
        reader = csv.DictReader(io.StringIO(text, newline=""))
        for row in reader:
            yield reader.line_num, {k.strip(): v for k, v in row.items() if isinstance(k, str)}
        return
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip():
            value = parse_json_line(line, f"{display}:{number}")
            if not isinstance(value, dict):
                raise BadInput(f"{display}:{number}: expected a JSON object, got {type(value).__name__}")
            yield number, value


def _label(row: Mapping[str, Any], where: str) -> int:
    """1 / 0 from ``label`` (yes / no words too) or ``score`` (≥ the threshold is yes)."""
    if row.get("label") not in (None, ""):
        value = row["label"]
        word = str(value).strip().lower() if not isinstance(value, bool) else str(int(value))
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value in (0, 1):
            return int(value)
        if word in YES or word in NO:
            return 1 if word in YES else 0
        raise BadInput(
            f"{where}: field 'label': {quoted(value)} is not 1 / 0 (or yes / no); give a score in [0, 1] as 'score'"
        )
    if row.get("score") in (None, ""):
        raise BadInput(f"{where}: field 'label': missing (give 'label' 1 / 0 or 'score' in [0, 1])")
    value = row["score"]
    try:
        score = float(value) if not isinstance(value, bool) else math.nan
    except (TypeError, ValueError):
        score = math.nan
    if not (math.isfinite(score) and 0.0 <= score <= 1.0):
        raise BadInput(f"{where}: field 'score': {quoted(value)} is not a number in [0, 1]")
    return int(score >= VERDICT_THRESHOLD)


def read_labels(path: Path, display: str, question_ids: Sequence[str], metrics: Sequence[str]) -> list[Label]:
    """Every label in the file, checked against the session's ``question_ids`` and judged ``metrics``."""
    known, judged = set(question_ids), list(metrics)
    seen: dict[tuple[str, str], int] = {}
    out = []
    for line, row in _rows(path, display):
        where = f"{display}:{line}"
        qid_field = next((f for f in ID_FIELDS if row.get(f) not in (None, "")), None)
        if qid_field is None:
            raise BadInput(f"{where}: field 'question_id': missing")
        qid = str(row[qid_field])
        if qid not in known:
            raise BadInput(f"{where}: field '{qid_field}': {quoted(qid)} is no item of this session")
        metric = str(row.get("metric") or "").strip()
        if metric not in judged:
            shown = ", ".join(judged) or "none: this session scored no judged metric"
            raise BadInput(
                f"{where}: field 'metric': {quoted(metric) if metric else 'missing'}; the session's judged "
                f"metrics: {shown}"
            )
        if (qid, metric) in seen:
            raise BadInput(
                f"{where}: field '{qid_field}': {quoted(qid)} / {metric} was labelled already on line "
                f"{seen[(qid, metric)]}"
            )
        seen[(qid, metric)] = line
        out.append(Label(qid, metric, _label(row, where)))
    if not out:
        raise BadInput(f"{display}: no labels in the file")
    return out
