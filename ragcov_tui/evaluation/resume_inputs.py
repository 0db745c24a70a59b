"""What else ``eval --resume`` must refuse: the same questions scored against other gold or another corpus.

The test file's digest (:mod:`ragcov_tui.evaluation.resume`) does not cover what comes from beside
it: the judgements of ``--qrels FILE`` and the corpus the gold ids are matched in. A resumed run
keeps the items already scored, so it must score the rest against the same gold ids and the same
chunks, or one session would mix two sets of gold or two corpora. A session stores the identity of
both as it loaded them (:func:`input_identity`, kept with its parameters under ``inputs``)::

    gold         sha256 of every question's gold ids and grades (canonical JSON), whatever gave them
    qrels        the --qrels file as given (None: the test file's own gold)
    corpus       sha256 of every chunk's id and text, in order: the files, their content and the
                 chunking (--chunk-size, --chunk-overlap) together
    corpus_paths the corpus paths as given

The content decides: the same gold or corpus at another path resumes. A session stored before this
identity existed is compared by paths (``qrels``, ``corpus`` among its parameters).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

from ragcov_tui.corpus.models import Chunk
from ragcov_tui.shared.errors import BadInput
from ragcov_tui.shared.json_types import JsonObject
from ragcov_tui.testset.models import TestSet

INPUTS_KEY = "inputs"  # the identity's key among a session's stored parameters


def input_identity(
    testset: TestSet, chunks: Sequence[Chunk], qrels: str | None, corpus_paths: Sequence[str]
) -> JsonObject:
    """The identity of the gold and corpus a run loaded (the table in the module docstring)."""
    gold = [[q.id, sorted(q.gold.items())] for q in testset.questions]
    corpus = hashlib.sha256()
    for chunk in chunks:
        corpus.update(json.dumps([chunk.id, chunk.text], ensure_ascii=False).encode("utf-8", "surrogatepass") + b"\n")
    return {"gold": _digest(gold), "qrels": qrels, "corpus": corpus.hexdigest(), "corpus_paths": list(corpus_paths)}


def check_same_inputs(before: Mapping[str, Any], now: Mapping[str, Any], sid: str, ref: str) -> None:
    """BadInput (one line naming what differs) unless the run loading ``now`` scores against the
    gold and corpus that session ``sid`` (stored parameters ``before``) was run with."""
    then = before.get(INPUTS_KEY)
    if isinstance(then, dict):
        gold_differs = then.get("gold") != now["gold"]
        corpus_differs = then.get("corpus") != now["corpus"]
    else:  # stored by an older ragcov: the paths are all it kept
        gold_differs = before.get("qrels", now["qrels"]) != now["qrels"]
        corpus_differs = before.get("corpus", now["corpus_paths"]) != now["corpus_paths"]
        then = {"qrels": before.get("qrels"), "corpus_paths": before.get("corpus")}
    if gold_differs:
        raise BadInput(
            f"--resume {ref}: session {sid} was scored against other gold ids ("
            f"{_change(_gold_source(then.get('qrels')), _gold_source(now['qrels']))}); resume with "
            "the same gold, or start a new run"
        )
    if corpus_differs:
        raise BadInput(
            f"--resume {ref}: session {sid} was run on another corpus ("
            f"{_change(_paths(then.get('corpus_paths')), _paths(now['corpus_paths']))}: the files, their "
            "content or the chunking differ); resume with the same corpus, or start a new run"
        )


def _digest(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _change(then: str, now: str) -> str:
    return f"{now}, changed since" if then == now else f"{then} then, {now} now"


def _gold_source(qrels: Any) -> str:
    return f"--qrels {qrels}" if qrels else "the test file's gold ids"


def _paths(paths: Any) -> str:
    if not isinstance(paths, list) or not paths:
        return "no corpus"
    return "--corpus " + ", ".join(str(p) for p in paths)
