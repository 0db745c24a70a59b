"""Read the user's test file (``.jsonl``, ``.json``, ``.csv``) into a :class:`TestSet`.

The extension names the format, the content decides it (:mod:`.sniff`: JSON Lines named
``.json`` is read as JSON Lines); ``TestSet.notes`` says so, and names the columns pandas wrote
that are ignored (:mod:`.layout`), one line each, for the caller to show as warnings.

Field names are resolved through :mod:`ragcov_tui.testset.fields` row by row (first alias
present wins); ``TestSet.field_names`` records, per canonical field, the name the first row
having it uses (for CSV: the header). Values are checked and normalised:

- gold ids: a list gives grade 1.0 each, an object ``{"id": grade}`` gives grades (numbers from 0 to
  ``MAX_GRADE``: :func:`ragcov_tui.shared.input_values.grade_problem`, the qrels rule too);
- ids may be strings or integers; a row without one gets its content id (``q-`` + 10 hex digits of
  the sha256 of its normalised question; the 2nd, 3rd… row with that text gets ``-2``, ``-3``…:
  :func:`ragcov_tui.testset.ids.content_ids`), so dropping or inserting a row moves no other id;
- reference contexts: a list of texts, or one text (Giskard's ``reference_context``, never split);
  Ragas 0.1's ``contexts`` are reference contexts in a file with no answer field (its test set),
  retrieved contexts otherwise (its records), with a note saying which
  (:func:`ragcov_tui.testset.fields.is_ragas_testset`);
  ``seed_document_id`` comes from a ``metadata`` object (a CSV cell: JSON or Python literal);
- CSV cells are text: a list-valued cell is a JSON list or a Python list literal (pandas'
  ``to_csv``), or ``;``/``|``-separated (texts such as paraphrases and contexts split on ``|``
  only, since ``;`` occurs in prose); graded gold is a JSON object; an empty cell means the
  field is absent (:mod:`ragcov_tui.testset.cells`).

Every mistake raises :class:`BadInput` with one line naming ``file:line`` (JSON: also the
element index) and the field: among them a path that is not a regular file (a FIFO is refused,
never opened for reading), JSON that is not strict (``NaN``, ``1e400``, nesting deeper than 100
levels: :mod:`ragcov_tui.shared.input_values`), a grade or vector entry that is not a finite number, a
vector that is all zeros or of another length than the first row's. Unknown fields stay in
``Question.raw``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ragcov_tui.shared.errors import BadInput
from ragcov_tui.shared.input_files import decode_text, read_input_file
from ragcov_tui.shared.input_values import EMBED_TEXT_CHARS, grade_problem, long_text_note, quoted, vector_problem
from ragcov_tui.shared.json_types import JsonObject
from ragcov_tui.testset.cells import cell_value as _cell_value
from ragcov_tui.testset.fields import (
    FIELD_ALIASES,
    NEGATED_ALIASES,
    RAGAS_CONTEXTS,
    aliases_text,
    is_ragas_testset,
    resolve_fields,
)
from ragcov_tui.testset.ids import content_ids, id_key
from ragcov_tui.testset.layout import Layout, split_layout
from ragcov_tui.testset.models import Question, TestFormat, TestSet
from ragcov_tui.testset.sniff import sniff_format

FORMATS: dict[str, TestFormat] = {".jsonl": "jsonl", ".json": "json", ".csv": "csv"}


def read_testset(path: str | Path) -> TestSet:
    """Read and check the test file at ``path``; ``TestSet.sha256`` is of the exact bytes read."""
    return parse_testset(Path(path), read_bytes(Path(path)))[0]


def read_bytes(path: Path) -> bytes:
    """The file's bytes; BadInput when it is missing, a directory, a FIFO or other non-regular
    file, a symbolic link loop or dangling link, or unreadable (see :mod:`ragcov_tui.shared.input_files`)."""
    if path.is_dir():
        raise BadInput(f"{path}: is a directory, expected a .jsonl, .json or .csv test file")
    return read_input_file(path)


def file_format(path: Path) -> TestFormat:
    """The format named by the file's extension; BadInput for any other."""
    fmt = FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise BadInput(f"{path}: unsupported test file type {path.suffix!r} (use .jsonl, .json or .csv)")
    return fmt


def parse_testset(path: Path, data: bytes) -> tuple[TestSet, Layout]:
    """Parse ``data`` (the bytes of ``path``) into a TestSet and the Layout the writer edits."""
    fmt = file_format(path)
    text = decode_text(data, str(path))
    if not text.lstrip("\ufeff").strip():
        raise BadInput(f"{path}: the file is empty (no questions)")
    fmt, note = sniff_format(path, text, fmt)
    layout = split_layout(path, text, fmt)
    ragas_testset = is_ragas_testset({k for raw in layout.rows for k, v in raw.value.items() if not _is_blank(v, fmt)})
    field_names: dict[str, str] = resolve_fields(layout.header, ragas_testset=ragas_testset) if fmt == "csv" else {}
    questions: list[Question] = []
    seen_ids: dict[str, int] = {}
    first_vector: tuple[int, int] | None = None  # (length, line)
    long: list[tuple[str, str, int]] = []  # (where, field, characters) of reference contexts cut for embedding
    for raw in layout.rows:
        where = layout.where(path, raw)
        names = resolve_fields((k for k, v in raw.value.items() if not _is_blank(v, fmt)), ragas_testset=ragas_testset)
        for canonical, actual in names.items():
            field_names.setdefault(canonical, actual)
        question = _question(where, raw.value, names, fmt)
        question.row, question.line, question.raw = raw.index, raw.line, raw.value
        if question.id_in_file:
            key = id_key(question.id)
            if key in seen_ids:
                raise BadInput(f"{where}: duplicate id {quoted(question.id)} (also on line {seen_ids[key]})")
            seen_ids[key] = raw.line
        if question.vector is not None:
            first_vector = first_vector or (len(question.vector), raw.line)
            if len(question.vector) != first_vector[0]:
                raise BadInput(
                    f"{where}: field {names['vector']!r} has {len(question.vector)} numbers "
                    f"but the vector on line {first_vector[1]} has {first_vector[0]}"
                )
        long += [
            (where, names["reference_contexts"], len(text))
            for text in question.reference_contexts or ()
            if len(text) > EMBED_TEXT_CHARS
        ]
        questions.append(question)
    if not questions:
        raise BadInput(f"{path}: no questions in the file")
    without_id = [q for q in questions if not q.id_in_file]  # explicit ids first: they win
    for question, qid in zip(without_id, content_ids((q.text for q in without_id), set(seen_ids)), strict=True):
        question.id = qid
    notes = ([] if note is None else [note]) + layout.notes + _contexts_note(path, field_names)
    if long:
        notes.append(long_text_note(long[0][0], f"a text of field {long[0][1]!r}", long[0][2], len(long)))
    testset = TestSet(
        path, fmt, questions, hashlib.sha256(data).hexdigest(), field_names, layout.container, notes=notes
    )
    return testset, layout


def _contexts_note(path: Path, field_names: dict[str, str]) -> list[str]:
    """One line saying how Ragas 0.1's ambiguous ``contexts`` field was read (not used: no line)."""
    if field_names.get("reference_contexts") == RAGAS_CONTEXTS:
        return [
            f"{path}: read as a Ragas 0.1 test set ({RAGAS_CONTEXTS!r} and no answer field): its "
            f"{RAGAS_CONTEXTS!r} are the reference contexts the questions were written from, gold where a row has no gold ids"
        ]
    if field_names.get("retrieved_contexts") == RAGAS_CONTEXTS:
        return [
            f"{path}: read as Ragas records (the rows have answers): {RAGAS_CONTEXTS!r} are retrieved contexts, not gold"
        ]
    return []


def _is_blank(value: Any, fmt: TestFormat) -> bool:
    """An absent value: JSON null, or an empty CSV cell."""
    return value is None or (fmt == "csv" and isinstance(value, str) and not value.strip())


def _question(where: str, row: JsonObject, names: dict[str, str], fmt: TestFormat) -> Question:
    if "question" not in names:
        blank = next((a for a in FIELD_ALIASES["question"] if a in row), None)
        if blank is not None:
            raise BadInput(f"{where}: field {blank!r} is empty (no question text)")
        raise BadInput(f"{where}: no question field (expected one of: {aliases_text('question')})")

    def value(canonical: str) -> Any:
        if canonical not in names:
            return None
        cell = row[names[canonical]]
        if fmt != "csv" or names[canonical] == "reference_context":  # Giskard's: always one text
            return cell
        return _cell_value(where, names[canonical], canonical, cell)

    def check(canonical: str, ok: bool, expected: str) -> None:
        if not ok:
            got = row[names[canonical]]
            raise BadInput(f"{where}: field {names[canonical]!r} must be {expected} (got {type(got).__name__})")

    text = value("question")
    check("question", isinstance(text, str), "a string")
    if not text.strip():
        raise BadInput(f"{where}: field {names['question']!r} is empty (no question text)")
    qid = value("id")
    check("id", qid is None or _is_id(qid), "a string or an integer")
    if isinstance(qid, str) and not qid.strip():
        qid = None
    gold = value("gold")
    gold = [gold] if isinstance(gold, str) and fmt != "csv" else gold
    strings = {c: value(c) for c in ("ground_truth", "answer")}
    lists = {c: value(c) for c in ("expected_keywords", "paraphrases", "retrieved_contexts", "retrieved_ids")}
    references = value("reference_contexts")
    references = [references] if isinstance(references, str) else references
    for canonical, item in strings.items():
        check(canonical, item is None or isinstance(item, str), "a string")
    for canonical in ("expected_keywords", "paraphrases", "retrieved_contexts"):
        check(canonical, lists[canonical] is None or _is_list_of(lists[canonical], _is_str), "a list of strings")
    check("reference_contexts", references is None or _is_list_of(references, _is_str), "a string or a list of strings")
    check(
        "retrieved_ids",
        lists["retrieved_ids"] is None or _is_list_of(lists["retrieved_ids"], _is_id),
        "a list of ids (strings or integers)",
    )
    return Question(
        id=str(qid) if qid is not None else "",
        text=text.strip(),
        ground_truth=strings["ground_truth"],
        gold=_gold(where, names.get("gold", ""), gold),
        expected_keywords=lists["expected_keywords"] or [],
        paraphrases=lists["paraphrases"] or [],
        answer=strings["answer"],
        retrieved_ids=None if lists["retrieved_ids"] is None else [str(i) for i in lists["retrieved_ids"]],
        retrieved_contexts=lists["retrieved_contexts"],
        reference_contexts=references,
        seed_document_id=_seed_document_id(where, row.get("metadata"), fmt),
        vector=_vector(where, names.get("vector", ""), value("vector")),
        answerable=_answerable(where, names.get("answerable", ""), value("answerable")),
        id_in_file=qid is not None,
    )


TRUE_WORDS = frozenset({"true", "yes", "y", "1"})
FALSE_WORDS = frozenset({"false", "no", "n", "0"})


def _answerable(where: str, name: str, flag: Any) -> bool | None:
    """Whether the question can be answered from the knowledge base: a JSON boolean, ``0`` / ``1``,
    or (a CSV cell, a string) ``true`` / ``false``, ``yes`` / ``no``, ``1`` / ``0`` in any case;
    ``None`` (not said) when absent. Negated for ``unanswerable`` / ``is_impossible``."""
    if flag is None:
        return None
    if isinstance(flag, bool) or (isinstance(flag, int) and flag in (0, 1)):
        value = bool(flag)
    elif isinstance(flag, str) and flag.strip().lower() in TRUE_WORDS | FALSE_WORDS:
        value = flag.strip().lower() in TRUE_WORDS
    else:
        raise BadInput(f"{where}: field {name!r} must be true or false (got {quoted(flag, 30)})")
    return not value if name in NEGATED_ALIASES else value


def _seed_document_id(where: str, metadata: Any, fmt: TestFormat) -> str | None:
    """Giskard's ``metadata.seed_document_id`` (a string or integer id), else None."""
    if fmt == "csv" and isinstance(metadata, str) and metadata.strip().startswith("{"):
        try:
            metadata = _cell_value(where, "metadata", "metadata", metadata)
        except BadInput:  # not ragcov's field: an unreadable one only means no seed id
            return None
    seed = metadata.get("seed_document_id") if isinstance(metadata, dict) else None
    return str(seed) if seed is not None and _is_id(seed) else None


def _is_id(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def _is_str(value: Any) -> bool:
    return isinstance(value, str)


def _is_list_of(value: Any, test: Callable[[Any], bool]) -> bool:
    return isinstance(value, list) and all(test(v) for v in value)


def _gold(where: str, name: str, gold: Any) -> dict[str, float]:
    """Gold ids as {id: grade}: a list gives 1.0 each, an object gives its grades (>= 0)."""
    if gold is None:
        return {}
    if _is_list_of(gold, _is_id):
        return {str(g): 1.0 for g in gold}
    if isinstance(gold, dict):
        for key, grade in gold.items():
            problem = grade_problem(grade) or ("must be >= 0" if grade < 0 else None)
            if problem is not None:
                raise BadInput(f"{where}: field {name!r}: grade of {quoted(key)} {problem} (got {quoted(grade, 30)})")
        return {str(k): float(v) for k, v in gold.items()}
    raise BadInput(
        f"{where}: field {name!r} must be a list of ids or an object {{id: grade}} (got {type(gold).__name__})"
    )


def _vector(where: str, name: str, vector: Any) -> list[float] | None:
    if vector is None:
        return None
    problem = vector_problem(vector)
    if problem is not None:
        raise BadInput(f"{where}: field {name!r} {problem}")
    return [float(v) for v in vector]
