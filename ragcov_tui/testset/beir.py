"""The standard IR layout (BEIR, MTEB) as a test set, and qrels attached to any test file.

A folder ``DIR`` with::

    DIR/corpus.jsonl          {"_id": ..., "title": ..., "text": ...} per line
    DIR/queries.jsonl         {"_id": ..., "text": ...} per line
    DIR/qrels/<split>.tsv     query-id, corpus-id, score (header optional; TREC lines accepted)

reads as a :class:`TestSet` whose questions are the queries judged in ``qrels/<split>.tsv``, in
the order of ``queries.jsonl``, each with its graded gold ids; queries without a judgement in
that split are left out (they have nothing to be scored against). Both files are read by the rules
of every reader (:func:`ragcov_tui.shared.input_files.read_input_text`: a FIFO or link loop is named,
invalid UTF-8 refused naming the line; qrels exactly as ``--qrels FILE``), and a query ``_id``
given twice — equal under :func:`ragcov_tui.testset.ids.id_key`: ``1``, ``"1"``, ``" 1"`` — is
refused naming both lines. A split other than the default with a test file is refused. ``TestSet.format`` is
``"beir"`` and ``sha256`` is the digest of the queries and qrels bytes together; such a test set
is read-only (the app's write-back needs a test file).

:func:`read_questions` is the one entry point of the pipelines: a folder is read as above, a
file by :func:`ragcov_tui.testset.reader.read_testset`, and ``qrels`` (a qrels file) replaces
the gold ids of every question it judges. :func:`corpus_paths` gives the corpus: the paths
given, else the folder's ``corpus.jsonl``.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from pathlib import Path

from ragcov_tui.shared.errors import BadInput
from ragcov_tui.shared.input_files import read_input_text
from ragcov_tui.shared.input_values import parse_json_line, quoted
from ragcov_tui.shared.number_text import count
from ragcov_tui.testset.ids import id_key
from ragcov_tui.testset.models import Question, TestSet
from ragcov_tui.testset.qrels import Qrels, read_qrels, read_qrels_file
from ragcov_tui.testset.reader import read_testset

CORPUS_FILE = "corpus.jsonl"
QUERIES_FILE = "queries.jsonl"
QRELS_DIR = "qrels"
DEFAULT_SPLIT = "test"


def is_ir_folder(path: str | Path) -> bool:
    """True when ``path`` is a folder holding an entry named ``queries.jsonl`` (the BEIR layout;
    whether that entry is a readable file is the reader's check, so a FIFO there is named as one)."""
    return Path(path).is_dir() and os.path.lexists(Path(path) / QUERIES_FILE)


def read_questions(
    questions: str | Path,
    *,
    split: str = DEFAULT_SPLIT,
    qrels: str | Path | None = None,
    warn: Callable[[str], None] | None = None,
) -> TestSet:
    """The test set named by ``--questions`` (a file, or a BEIR folder read at ``split``), with the
    gold ids of ``qrels`` attached when given; ``warn`` gets each of the reader's notes."""
    path = Path(questions)
    if is_ir_folder(path):
        testset = read_ir_folder(path, split)
    elif split != DEFAULT_SPLIT and not path.is_dir():  # never ignored silently (issue #23)
        raise BadInput(
            f"split {split!r}: only a BEIR folder has splits, and {path} is a test file "
            f"(use --qrels FILE to attach other judgements)"
        )
    else:
        testset = _read_file(path)
    for note in testset.notes:
        if warn is not None:
            warn(note)
    if qrels is not None:
        attach_qrels(testset, read_qrels(qrels), str(qrels), warn=warn)
    return testset


def _read_file(path: Path) -> TestSet:
    if path.is_dir():
        raise BadInput(
            f"{path}: a directory without {QUERIES_FILE}; expected a test file (.jsonl .json .csv) "
            f"or a BEIR folder ({CORPUS_FILE}, {QUERIES_FILE}, {QRELS_DIR}/<split>.tsv)"
        )
    return read_testset(path)


def corpus_paths(questions: str | Path, corpus: list[str] | None) -> list[str]:
    """The corpus to load: ``corpus`` when given, else the BEIR folder's ``corpus.jsonl``, else [].
    A BEIR folder given as a corpus is its ``corpus.jsonl`` too: walked as a folder, its queries,
    qrels and notes would be read as documents of the knowledge base."""
    if corpus:
        return [_beir_corpus(path) or path for path in corpus]
    return [found] if (found := _beir_corpus(str(questions))) else []


def _beir_corpus(path: str) -> str | None:
    """``path/corpus.jsonl`` when ``path`` is a BEIR folder holding one, else None."""
    folder = Path(path)
    if is_ir_folder(folder) and os.path.lexists(folder / CORPUS_FILE):
        return str(folder / CORPUS_FILE)
    return None


def qrels_file(folder: Path, split: str) -> Path:
    """``folder/qrels/<split>.tsv``; BadInput listing the splits there are when it is missing."""
    if not split or "/" in split or "\\" in split or split.startswith("."):
        raise BadInput(f"--split: {split!r} is not a split name (e.g. test, dev, train)")
    path = folder / QRELS_DIR / f"{split}.tsv"
    if not os.path.lexists(path):
        have = sorted(p.stem for p in (folder / QRELS_DIR).glob("*.tsv")) if (folder / QRELS_DIR).is_dir() else []
        listed = ", ".join(have) if have else f"none: {folder / QRELS_DIR} has no .tsv file"
        raise BadInput(f"{folder}: no qrels for split {split!r} ({path} is missing; splits: {listed})")
    return path


def read_ir_folder(folder: Path, split: str = DEFAULT_SPLIT) -> TestSet:
    """The judged queries of ``folder`` at ``split`` as a TestSet (see the module docstring)."""
    qrels_path = qrels_file(folder, split)
    qrels, qrels_bytes = read_qrels_file(qrels_path)  # the --qrels FILE reader: one rule for both
    queries_path = folder / QUERIES_FILE
    queries_text, queries_bytes = read_input_text(queries_path)  # FIFO, bad UTF-8…: refused, naming the line
    questions: list[Question] = []
    seen: dict[str, int] = {}
    for lineno, line in enumerate(queries_text.removeprefix("\ufeff").split("\n"), start=1):
        if not line.strip():
            continue
        where = f"{queries_path}:{lineno}"
        qid, text, row = _query_row(line, where)
        if qid in seen:
            raise BadInput(f"{where}: field '_id': duplicate id {quoted(qid)} (also on line {seen[qid]})")
        seen[qid] = lineno
        if qid in qrels:
            questions.append(Question(id=qid, text=text, gold=dict(qrels[qid]), row=lineno - 1, line=lineno, raw=row))
    if not questions:
        raise BadInput(
            f"{queries_path}: no query has a judgement in {qrels_path} "
            f"(e.g. qrels query ids {', '.join(repr(q) for q in list(qrels)[:3])})"
        )
    sha = hashlib.sha256(queries_bytes + b"\0" + qrels_bytes).hexdigest()
    return TestSet(
        folder, "beir", questions, sha, {"id": "_id", "question": "text", "gold": f"{QRELS_DIR}/{split}.tsv"}
    )


def _query_row(line: str, where: str) -> tuple[str, str, dict]:
    """(id, text, row) of one ``queries.jsonl`` line; BadInput naming the line and field."""
    row = parse_json_line(line, where)  # strict: no NaN, no 1e400, no lone surrogate, <= 100 deep
    if not isinstance(row, dict):
        raise BadInput(f"{where}: expected a JSON object, got {type(row).__name__}")
    qid = row.get("_id", row.get("id"))
    if isinstance(qid, bool) or not isinstance(qid, (str, int)) or not str(qid).strip():
        raise BadInput(f"{where}: field '_id' must be a non-empty string or integer")
    text = row.get("text")
    if not isinstance(text, str) or not text.strip():
        raise BadInput(f"{where}: field 'text' must be a non-empty string (the query)")
    return id_key(qid), text.strip(), row


def attach_qrels(testset: TestSet, qrels: Qrels, display: str, warn: Callable[[str], None] | None = None) -> None:
    """Replace the gold ids of every question judged in ``qrels``; BadInput when none is judged."""
    judged = [q for q in testset.questions if q.id in qrels]
    if not judged:
        ids = ", ".join(repr(q.id) for q in testset.questions[:3])
        raise BadInput(
            f"--qrels {display}: judges none of the test file's question ids "
            f"(test ids: {ids}; qrels ids: {', '.join(repr(q) for q in list(qrels)[:3])})"
        )
    for question in judged:
        question.gold = dict(qrels[question.id])
    if warn is not None and len(judged) < len(testset.questions):
        warn(
            f"--qrels {display}: {count(len(testset.questions) - len(judged))} of {count(len(testset.questions))} questions "
            f"have no judgement there (kept their own gold ids, if any)"
        )
    testset.field_names.setdefault("gold", "qrels")
