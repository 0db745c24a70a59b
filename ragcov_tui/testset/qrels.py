"""Relevance judgements (qrels) in the two layouts IR people already have.

- TREC: ``qid iteration docid grade`` — four fields separated by whitespace (``iteration`` is
  ignored, usually ``0`` or ``Q0``);
- BEIR / MTEB TSV: ``query-id<TAB>corpus-id<TAB>score`` — three fields, with or without the
  header line ``query-id corpus-id score``.

The layout is decided per line by its number of fields, so a file may not mix them. A grade
must be a finite number no larger than ``MAX_GRADE`` (:func:`ragcov_tui.shared.input_values.grade_problem`,
the rule the test file's graded gold ids follow too); a negative grade (TREC's "judged, non-relevant" -1 …) counts as 0, as in
trec_eval. When a (query, document) pair is judged twice, the last grade wins. The file is decoded by
:func:`ragcov_tui.shared.input_files.decode_text` (the rule of every text reader: invalid UTF-8 is refused,
naming the line), whether it is given as ``--qrels FILE`` or read from a BEIR folder. Every
mistake is one :class:`BadInput` naming ``file:line``.
"""

from __future__ import annotations

import os
from pathlib import Path

from ragcov_tui.shared.errors import BadInput
from ragcov_tui.shared.input_files import read_input_text
from ragcov_tui.shared.input_values import grade_problem

Qrels = dict[str, dict[str, float]]  # query id -> {document id: grade}

HEADER_FIRST_FIELDS = ("query-id", "query_id", "qid", "query")


def read_qrels(path: str | Path) -> Qrels:
    """The judgements of the qrels file at ``path``; BadInput when it is missing, empty or malformed."""
    return read_qrels_file(Path(path))[0]


def read_qrels_file(path: Path) -> tuple[Qrels, bytes]:
    """The judgements of the qrels file at ``path`` and the bytes they were read from."""
    if not os.path.lexists(path):
        raise BadInput(f"{path}: no such qrels file")
    text, data = read_input_text(path)  # BadInput for a FIFO, a directory, a link loop, bad UTF-8…
    return parse_qrels(text.removeprefix("\ufeff"), str(path)), data


def parse_qrels(text: str, display: str) -> Qrels:
    """Parse qrels ``text`` (named ``display`` in errors); see the module docstring."""
    qrels: Qrels = {}
    width: int | None = None
    for lineno, line in enumerate(text.split("\n"), start=1):  # not splitlines: \x0b, \x1c… are no line ends
        fields = line.split("\t") if "\t" in line else line.split()
        fields = [f.strip() for f in fields]
        if not any(fields):
            continue
        where = f"{display}:{lineno}"
        if width is None and fields[0].lower() in HEADER_FIRST_FIELDS:
            width = len(fields)
            continue
        if len(fields) not in (3, 4):
            raise BadInput(
                f"{where}: expected 'query-id corpus-id score' or TREC 'qid 0 docid grade', got {len(fields)} field(s)"
            )
        if width is not None and len(fields) != width:
            raise BadInput(f"{where}: {len(fields)} fields where the lines above have {width}")
        width = len(fields)
        qid, docid, grade_text = fields[0], fields[-2], fields[-1]
        if not qid or not docid:
            raise BadInput(f"{where}: empty query or document id")
        try:
            grade = float(grade_text)
        except ValueError:
            raise BadInput(f"{where}: grade {grade_text[:40]!r} is not a number") from None
        problem = grade_problem(grade)
        if problem is not None:
            raise BadInput(f"{where}: grade {grade_text[:40]!r} {problem}")
        qrels.setdefault(qid, {})[docid] = max(grade, 0.0)
    if not qrels:
        raise BadInput(f"{display}: no judgements in the qrels file")
    return qrels
