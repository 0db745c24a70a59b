"""Read models for the terminal app: every list is paged, filtered and sorted in SQL.

The app never loads a session's 100k chunk rows: it asks for a page (``offset``, ``limit``) and a
total. Analysis figures come from the stored report (``reports.report``, the ``analyze --json``
contract without its per-item lists) and the per-item tables; eval figures from ``eval_items``.
Nothing here recomputes what a session already holds except simple aggregates (mean, spread,
histogram counts) of stored per-item values.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar, cast

import sqlite_utils

from ragcov_tui.shared.errors import BadInput
from ragcov_tui.shared.input_values import is_finite_number
from ragcov_tui.shared.json_types import JsonObject
from ragcov_tui.store.analysis_contract import ClusterEntry, DocumentEntry, GapEntry
from ragcov_tui.store.db import NATURAL, natural_key
from ragcov_tui.store.decisions import edited_suggestions, question_marks, rejected_keys
from ragcov_tui.store.evals import loads_stored
from ragcov_tui.store.map_detail import stride_rowids
from ragcov_tui.store.rows import (
    ChunkRow,
    ClusterRow,
    EvalDetail,
    EvalItemRow,
    GapRow,
    OutlierRow,
    RedundantPairRow,
    SessionRow,
    SourceChunk,
    SuggestionRow,
)
from ragcov_tui.store.sessions import list_sessions
from ragcov_tui.testset.ids import text_key

RowT = TypeVar("RowT")


@dataclass
class Page(Generic[RowT]):
    """One page of rows, the total number of matching rows and the offset of the first row."""

    rows: list[RowT]
    total: int
    offset: int = 0


@dataclass
class MapPoints:
    """The stored 2-D projection: chunks ``(x, y, cluster)`` (downsampled) and questions ``(x, y, outlier)``."""

    chunks: list[tuple[float, float, int]] = field(default_factory=list)
    questions: list[tuple[float, float, bool]] = field(default_factory=list)
    chunk_total: int = 0


@dataclass
class Stat:
    """Mean, population standard deviation, count of defined values, min and max of one metric."""

    mean: float
    std: float
    n: int
    low: float
    high: float


def matches(query: str, *values: Any) -> bool:
    """True when ``query`` occurs, case-insensitively, in one of ``values`` (lists count item by
    item; None never matches); an empty query matches everything."""
    needle = query.strip().casefold()
    if not needle:
        return True
    items = [str(x) for v in values if v is not None for x in (v if isinstance(v, (list, tuple)) else [v])]
    return any(needle in item.casefold() for item in items)


def _like(query: str) -> str:
    """A LIKE pattern (ESCAPE '\\') for text containing ``query`` literally."""
    return "%" + query.strip().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


# ---------------------------------------------------------------- sessions


def has_report(db: sqlite_utils.Database, sid: str) -> bool:
    """Whether session ``sid`` holds its report (a ``done`` row without one was left by another
    ragcov, or by an edit of the database)."""
    return db.execute("SELECT 1 FROM reports WHERE session_id = ?", [sid]).fetchone() is not None


SESSION_TEXT = ("id", "kind", "status", "name", "questions_path", "embedder", "system", "llm", "created_at")


def session_page(db: sqlite_utils.Database, offset: int = 0, limit: int = 500, *, query: str = "") -> Page[SessionRow]:
    """Sessions newest first whose id, kind, status, name, test file, embedder, system, LLM or date contain ``query``."""
    rows = [s for s in list_sessions(db) if matches(query, *(s.get(k) for k in SESSION_TEXT))]
    return Page(rows[offset : offset + limit], len(rows), offset)


ANALYSIS_TREND = ("basic", "weighted", "multi_threshold", "multi_n")
EVAL_TREND_FIRST = ("retrieval.mrr", "retrieval.hit@", "generation.faithfulness", "generation.answer_correctness")


def flat_summary(summary: JsonObject | None) -> dict[str, float]:
    """Numeric headline figures, one nesting level flattened (``{"retrieval": {"mrr": .5}}`` → ``mrr``).

    An eval summary's ``means`` dict (``{"retrieval.mrr": .5}``) is taken alone: it holds the figures.
    """
    summary = summary or {}
    if isinstance(summary.get("means"), dict):
        summary = summary["means"]
    out: dict[str, float] = {}
    for key, value in summary.items():
        if isinstance(value, dict):
            out.update({k: v for k, v in value.items() if is_finite_number(v)})
        elif is_finite_number(value):
            out[key] = value
    return out


TRAFFIC_TREND = {"negative_feedback": "neg feedback", "zero_results": "zero results", "low_relevance": "low relevance"}


def traffic_source(db: sqlite_utils.Database, sid: str) -> str | None:
    """The query log an analysis read (``--traffic``), as its report names it; None without one."""
    row = db.execute(
        "SELECT json_extract(report, '$.source.path') FROM traffic_reports WHERE session_id = ?", [sid]
    ).fetchone()
    return row[0] if row else None


def traffic_trend(db: sqlite_utils.Database, session_ids: Sequence[str], source: str) -> dict[str, list[float | None]]:
    """The traffic health rates (:data:`TRAFFIC_TREND`) of each of ``session_ids`` that read the log
    ``source`` (None for the others and for a figure its log does not carry): the stored history of
    one log source, aligned with the sessions of a trend chart."""
    found: dict[str, JsonObject] = {}
    for sid, report in db.execute(
        "SELECT session_id, report FROM traffic_reports WHERE json_extract(report, '$.source.path') = ?", [source]
    ):
        found[sid] = (json.loads(report).get("health") or {}).get("overall") or {}
    series = {
        label: [(found.get(sid, {}).get(key) or {}).get("rate") for sid in session_ids]
        for key, label in TRAFFIC_TREND.items()
    }
    return {label: values for label, values in series.items() if any(v is not None for v in values)}


def trend(
    db: sqlite_utils.Database, questions_path: str | None, kind: str, *, max_series: int = 4, traffic: str | None = None
) -> dict[str, list[float | None]]:
    """Headline metrics over the finished sessions of one test file and kind, oldest first.

    Analysis sessions give the coverage figures; eval sessions ``max_series`` metrics in [0, 1] of
    their summary, the headline ones (:data:`EVAL_TREND_FIRST`, ``hit@`` any k) before the rest.
    A session missing a metric contributes None at its position. With ``traffic`` (a log source)
    analysis sessions add that log's health rates (:func:`traffic_trend`).
    """
    rows = [s for s in reversed(list_sessions(db, kind=kind, questions_path=questions_path)) if s["status"] == "done"]
    flats = [flat_summary(s.get("summary")) for s in rows]
    if kind == "analysis":
        keys = list(ANALYSIS_TREND)
        if traffic is not None:
            figures = {k: [f.get(k) for f in flats] for k in keys if any(f.get(k) is not None for f in flats)}
            return figures | traffic_trend(db, [s["id"] for s in rows], traffic)
    else:
        keys = []
        for f in flats:
            keys += [k for k, v in f.items() if 0 <= v <= 1 and k not in keys]
        rank = {
            k: next(
                (i for i, p in enumerate(EVAL_TREND_FIRST) if k == p or p.endswith("@") and k.startswith(p)),
                len(EVAL_TREND_FIRST),
            )
            for k in keys
        }
        keys = sorted(keys, key=rank.__getitem__)[:max_series]
    return {k: [f.get(k) for f in flats] for k in keys if any(f.get(k) is not None for f in flats)}


# ---------------------------------------------------------------- analysis


def analysis_report(db: sqlite_utils.Database, sid: str) -> JsonObject:
    """The stored report of an analysis session (``{}`` when it has none yet)."""
    row = db.execute("SELECT report FROM reports WHERE session_id = ?", [sid]).fetchone()
    return json.loads(row[0]) if row else {}


def cluster_rows(db: sqlite_utils.Database, sid: str, *, query: str = "") -> list[ClusterRow]:
    """The report's clusters, each with ``covering``: inlier questions whose nearest cluster it is;
    ``query`` keeps those whose id or a theme contains it."""
    covering = dict(
        db.execute(
            "SELECT nearest_cluster, count(*) FROM question_results WHERE session_id = ? AND outlier = 0 "
            "GROUP BY nearest_cluster",
            [sid],
        ).fetchall()
    )
    clusters: list[ClusterEntry] = analysis_report(db, sid).get("clusters", [])
    return [
        ClusterRow(**c, covering=covering.get(c["id"], 0))
        for c in clusters
        if matches(query, str(c["id"]), c.get("themes"))
    ]


CHUNK_ROW = (
    "SELECT r.chunk_id, r.source, r.cluster, r.mindist, r.nearest_question, c.text FROM chunk_results r "
    "JOIN chunks c ON c.session_id = r.session_id AND c.chunk_id = r.chunk_id "
)


def cluster_chunk_page(
    db: sqlite_utils.Database, sid: str, cluster: int, offset: int = 0, limit: int = 100
) -> Page[ChunkRow]:
    """Chunks of one cluster, least covered (largest distance) first, with their text and nearest question."""
    total = db.execute(
        "SELECT count(*) FROM chunk_results WHERE session_id = ? AND cluster = ?", [sid, cluster]
    ).fetchone()[0]
    rows = db.query(
        CHUNK_ROW + "WHERE r.session_id = ? AND r.cluster = ? ORDER BY r.mindist IS NULL, r.mindist DESC, r.seq "
        "LIMIT ? OFFSET ?",
        [sid, cluster, limit, offset],
    )
    return Page([ChunkRow(**r) for r in rows], total, offset)


def document_chunks(
    db: sqlite_utils.Database, sid: str, source: str, offset: int = 0, limit: int = 100
) -> Page[ChunkRow]:
    """Chunks of one source document in document order, with their cluster, distance to the nearest
    question (None: no inlier question) and text."""
    total = db.execute(
        "SELECT count(*) FROM chunk_results WHERE session_id = ? AND source = ?", [sid, source]
    ).fetchone()[0]
    rows = db.query(
        CHUNK_ROW + "WHERE r.session_id = ? AND r.source = ? ORDER BY r.seq LIMIT ? OFFSET ?",
        [sid, source, limit, offset],
    )
    return Page([ChunkRow(**r) for r in rows], total, offset)


def suggestion_chunk(db: sqlite_utils.Database, sid: str, chunk_id: str | None) -> SourceChunk | None:
    """The chunk a suggestion was written from (``source`` and ``text`` None when the session holds
    no such chunk); None when the suggestion names none (stored by an older ragcov, or an LLM reply
    that gave none)."""
    if chunk_id is None:
        return None
    rows = list(
        db.query("SELECT chunk_id, source, text FROM chunks WHERE session_id = ? AND chunk_id = ?", [sid, chunk_id])
    )
    return SourceChunk(**rows[0]) if rows else SourceChunk(chunk_id, None, None)


def histogram(values: Sequence[float], bins: int, low: float, high: float) -> list[int]:
    """Counts of ``values`` in ``bins`` equal-width bins over [low, high]; values outside are clamped in."""
    counts = [0] * bins
    width = (high - low) / bins if high > low else 1.0
    for v in values:
        counts[min(bins - 1, max(0, int((v - low) / width)))] += 1
    return counts


def mindist_histogram(db: sqlite_utils.Database, sid: str, bins: int = 20) -> tuple[list[float], list[int]]:
    """Bin left edges and counts of per-chunk distance to the nearest question, binned in SQL over [0, max]."""
    high = db.execute("SELECT max(mindist) FROM chunk_results WHERE session_id = ?", [sid]).fetchone()[0]
    if high is None:
        return [], []
    width = (high or 1.0) / bins
    counts = [0] * bins
    for b, n in db.execute(
        "SELECT min(CAST(mindist / ? AS INTEGER), ?), count(*) FROM chunk_results "
        "WHERE session_id = ? AND mindist IS NOT NULL GROUP BY 1",
        [width, bins - 1, sid],
    ):
        counts[int(b)] = n
    return [round(i * width, 3) for i in range(bins)], counts


def map_points(db: sqlite_utils.Database, sid: str, max_chunks: int = 2000) -> MapPoints:
    """The stored projection; chunks are downsampled to at most ``max_chunks`` by an even stride over rowids.

    Rows are looked up by rowid (no scan of a 100k-chunk session); rows of other sessions that fall
    on the stride are skipped, so a few fewer points may come back.
    """
    picks, total = stride_rowids(db, sid, max_chunks)
    chunks: list[tuple[float, float, int]] = [
        tuple(r)
        for r in db.execute(
            "SELECT x, y, cluster FROM chunk_results WHERE rowid IN (SELECT value FROM json_each(?)) "
            "AND session_id = ? AND x IS NOT NULL",
            [picks, sid],
        )
    ]
    questions = db.execute(
        "SELECT x, y, outlier FROM question_results WHERE session_id = ? AND x IS NOT NULL", [sid]
    ).fetchall()
    return MapPoints(chunks, [(x, y, bool(o)) for x, y, o in questions], total)


def outlier_page(
    db: sqlite_utils.Database, sid: str, offset: int = 0, limit: int = 100, *, query: str = ""
) -> Page[OutlierRow]:
    """Outlier questions by LOF score (highest first) with their nearest chunk and triage mark;
    ``query`` keeps those whose id or text contains it (case-insensitive)."""
    where, args = "q.session_id = ? AND q.outlier = 1", [sid]
    if query.strip():
        where += " AND (q.question_id LIKE ? ESCAPE '\\' OR q.text LIKE ? ESCAPE '\\')"
        args += [_like(query)] * 2
    total = db.execute(f"SELECT count(*) FROM question_results q WHERE {where}", args).fetchone()[0]
    rows = db.query(
        "SELECT q.question_id, q.text, q.lof_score, q.nearest_chunk, q.nearest_chunk_dist, c.text AS chunk_text "
        "FROM question_results q LEFT JOIN chunks c ON c.session_id = q.session_id AND c.chunk_id = q.nearest_chunk "
        f"WHERE {where} ORDER BY q.lof_score DESC, q.seq LIMIT ? OFFSET ?",
        args + [limit, offset],
    )
    marks = question_marks(db, sid)
    return Page([OutlierRow(**r, mark=marks.get(r["question_id"])) for r in rows], total, offset)


def lint_page(
    db: sqlite_utils.Database, sid: str, offset: int = 0, limit: int = 100, *, kind: str | None = None, query: str = ""
) -> Page[OutlierRow]:
    """Questions with a test-set lint finding (of ``kind`` when given), in file order, each with
    the outlier-page fields plus ``kinds`` (comma-separated) and ``reasons`` (one per line);
    ``query`` keeps those whose id or text contains it (case-insensitive)."""
    where, args = (
        (
            "q.session_id = ? AND q.question_id IN (SELECT question_id FROM lint_findings WHERE session_id = ?"
            + (" AND kind = ?)" if kind else ")")
        ),
        [sid, sid, *([kind] if kind else [])],
    )
    if query.strip():
        where += " AND (q.question_id LIKE ? ESCAPE '\\' OR q.text LIKE ? ESCAPE '\\')"
        args += [_like(query)] * 2
    total = db.execute(f"SELECT count(*) FROM question_results q WHERE {where}", args).fetchone()[0]
    rows = db.query(
        "SELECT q.question_id, q.text, q.lof_score, q.nearest_chunk, q.nearest_chunk_dist, c.text AS chunk_text, "
        "(SELECT group_concat(kind, ', ') FROM lint_findings f WHERE f.session_id = q.session_id "
        " AND f.question_id = q.question_id) AS kinds, "
        "(SELECT group_concat(kind || ': ' || reason, char(10)) FROM lint_findings f WHERE f.session_id = q.session_id "
        " AND f.question_id = q.question_id) AS reasons "
        "FROM question_results q LEFT JOIN chunks c ON c.session_id = q.session_id AND c.chunk_id = q.nearest_chunk "
        f"WHERE {where} ORDER BY q.seq LIMIT ? OFFSET ?",
        args + [limit, offset],
    )
    marks = question_marks(db, sid)
    return Page([OutlierRow(**r, mark=marks.get(r["question_id"])) for r in rows], total, offset)


def lint_kind_counts(db: sqlite_utils.Database, sid: str) -> dict[str, int]:
    """Questions per lint kind in a session (kinds without a finding left out)."""
    return dict(
        db.execute(
            "SELECT kind, count(DISTINCT question_id) FROM lint_findings WHERE session_id = ? GROUP BY kind", [sid]
        ).fetchall()
    )


def redundant_pairs(db: sqlite_utils.Database, sid: str, limit: int = 500) -> list[RedundantPairRow]:
    """Near-duplicate question pairs ``{a, a_text, b, b_text}`` from ``redundant_with``, each pair once (a < b)."""
    flagged = db.execute(
        "SELECT question_id, text, redundant_with FROM question_results "
        "WHERE session_id = ? AND redundant_with IS NOT NULL AND redundant_with != '[]'",
        [sid],
    ).fetchall()
    texts = {qid: text for qid, text, _ in flagged}
    pairs = sorted({tuple(sorted((qid, str(other)))) for qid, _, others in flagged for other in json.loads(others)})[
        :limit
    ]
    missing = sorted({q for pair in pairs for q in pair} - set(texts))
    if missing:
        texts.update(
            db.execute(
                "SELECT question_id, text FROM question_results WHERE session_id = ? AND question_id IN "
                "(SELECT value FROM json_each(?))",
                [sid, json.dumps(missing)],
            ).fetchall()
        )
    return [RedundantPairRow(a=a, a_text=texts.get(a, ""), b=b, b_text=texts.get(b, "")) for a, b in pairs]


def gap_rows(db: sqlite_utils.Database, sid: str, testset_path: str | None, *, query: str = "") -> list[GapRow]:
    """The report's ranked gaps, each with its ``suggestions`` (:class:`SuggestionRow`), ``rank``
    (1 = highest priority), ``share`` and the report's ``note`` /
    ``flagged_documents`` (``""`` / ``[]`` for older reports); ``query`` keeps the gaps whose
    cluster id, a theme, the note, a flagged document or a suggestion contains it.

    A suggestion accepted in an edited form shows what was written: ``text`` is the edited text,
    ``edited`` True and ``suggested`` the original (None otherwise). Rejected suggestions, and any
    whose text was rejected before for this test file, are left out (never suggested again).
    """
    rejected = rejected_keys(db, testset_path) if testset_path else set()
    edits = edited_suggestions(db, sid)
    by_cluster: dict[int, list[SuggestionRow]] = {}
    for row in db.query(
        "SELECT id, cluster, text, status, question_id, origin, chunk_id, form FROM suggestions "
        "WHERE session_id = ? AND status != 'rejected' ORDER BY id",
        [sid],
    ):
        edit = edits.get(row["id"]) if row["status"] == "accepted" else None
        s = (
            SuggestionRow(**row)
            if edit is None
            else SuggestionRow(**row | {"text": edit}, edited=True, suggested=row["text"])
        )
        if s.status == "accepted" or text_key(s.text) not in rejected:
            by_cluster.setdefault(s.cluster, []).append(s)
    report = analysis_report(db, sid)
    shares = {c["id"]: c.get("share") for c in report.get("clusters", [])}
    entries: list[GapEntry] = report.get("gaps", [])
    gaps = [
        cast(
            GapRow,
            {
                "note": "",
                "flagged_documents": [],
                **g,
                "rank": rank,
                "share": shares.get(g["cluster"]),
                "suggestions": by_cluster.get(g["cluster"], []),
            },
        )
        for rank, g in enumerate(entries, 1)
    ]
    return [
        g
        for g in gaps
        if matches(
            query,
            str(g["cluster"]),
            g.get("themes"),
            g["note"],
            g["flagged_documents"],
            [s.text for s in g["suggestions"]],
        )
    ]


def document_page(
    db: sqlite_utils.Database, sid: str, offset: int = 0, limit: int = 200, *, query: str = ""
) -> Page[DocumentEntry]:
    """Per-document coverage from the report, least covered first (the report's ``rank``: reach, then
    covered share; reports without it: flagged first, then by coverage); ``query`` filters by source."""
    entries: list[DocumentEntry] = analysis_report(db, sid).get("documents", [])
    docs = sorted(
        (d for d in entries if matches(query, d["source"])),
        key=lambda d: (
            d.get("rank") or 0,
            not d.get("flagged"),
            d.get("coverage") is None,
            d.get("coverage") or 0,
            natural_key(d["source"]),
        ),
    )
    return Page(docs[offset : offset + limit], len(docs), offset)


# ---------------------------------------------------------------- eval

EVAL_TEXT_COLUMNS = {"id": "question_id", "question": "question", "diagnosis": "diagnosis", "status": "status"}
_COMPARE = re.compile(r"^\s*([\w@.]+)\s*(<=|>=|<|>|=)\s*(-?[\d.]+)\s*$")


def eval_header(db: sqlite_utils.Database, sid: str) -> JsonObject:
    """The stored report of an eval session without its items (``judge``, ``metrics``,
    ``retrieval_not_measured``…); ``{}`` before the run finishes."""
    return analysis_report(db, sid)


def eval_metric_keys(db: sqlite_utils.Database, sid: str) -> dict[str, list[str]]:
    """Metric names of the session: ``{"retrieval": [...], "generation": [...]}``. A finished run's
    report names the metrics it measured (in its order); until then, the union over the stored
    items (a failed item stores ``{}``, so never the first item alone), in the order they first
    appear: by the first item holding the name (test-file order), then by its place in that item.
    Sorting, filtering, histograms and aggregates all read this list."""
    measured = eval_header(db, sid).get("metrics")
    if isinstance(measured, dict):
        return {group: [str(m) for m in measured.get(group) or []] for group in ("retrieval", "generation")}
    return {
        group: [
            key
            for key, _, _ in db.execute(
                # SQLite takes the bare column j.id from the row that holds min(e.seq)
                f"SELECT j.key, min(e.seq) AS first, j.id FROM eval_items e, json_each(e.{group}) j "
                "WHERE e.session_id = ? GROUP BY j.key ORDER BY first, j.id",
                [sid],
            )
        ]
        for group in ("retrieval", "generation")
    }


def _metric_group(db: sqlite_utils.Database, sid: str, name: str) -> str | None:
    """The group of :func:`eval_metric_keys` that holds ``name`` (None: neither), found without
    listing every item's keys: the first item holding the name is enough."""
    measured = eval_header(db, sid).get("metrics")
    if isinstance(measured, dict):
        return next((g for g in ("retrieval", "generation") if name in (measured.get(g) or [])), None)
    return next(
        (
            g
            for g in ("retrieval", "generation")
            if db.execute(
                f"SELECT 1 FROM eval_items WHERE session_id = ? AND json_type({g}, ?) IS NOT NULL LIMIT 1",
                [sid, f'$."{name}"'],
            ).fetchone()
        ),
        None,
    )


def eval_aggregates(db: sqlite_utils.Database, sid: str) -> dict[str, dict[str, Stat]]:
    """Per metric over the items where it is defined: mean, spread (population std), n, min, max;
    in :func:`eval_metric_keys` order (a metric no item defines is left out)."""
    out: dict[str, dict[str, Stat]] = {}
    for group, keys in eval_metric_keys(db, sid).items():
        stats = {
            key: Stat(mean, math.sqrt(max(0.0, sq - mean * mean)), n, low, high)
            for key, mean, sq, n, low, high in db.execute(
                f"SELECT j.key, avg(j.value), avg(j.value * j.value), count(j.value), min(j.value), max(j.value) "
                f"FROM eval_items e, json_each(e.{group}) j WHERE e.session_id = ? AND j.type IN ('real', 'integer') "
                "GROUP BY j.key",
                [sid],
            )
        }
        out[group] = {key: stats[key] for key in keys if key in stats}
    return out


def eval_counts(db: sqlite_utils.Database, sid: str) -> dict[str, int]:
    """Items by status (``done`` / ``error``)."""
    return dict(
        db.execute("SELECT status, count(*) FROM eval_items WHERE session_id = ? GROUP BY status", [sid]).fetchall()
    )


def first_error(db: sqlite_utils.Database, sid: str) -> tuple[str, str] | None:
    """``(question id, error)`` of the first failed item in test-file order, or None."""
    row = db.execute(
        "SELECT question_id, error FROM eval_items WHERE session_id = ? AND status = 'error' ORDER BY seq LIMIT 1",
        [sid],
    ).fetchone()
    return (row[0], row[1] or "") if row else None


def _metric_expr(db: sqlite_utils.Database, sid: str, name: str) -> tuple[str, list[Any]]:
    """SQL for one sortable / filterable column and its parameters; BadInput for an unknown name."""
    if name in EVAL_TEXT_COLUMNS:
        return EVAL_TEXT_COLUMNS[name], []
    if group := _metric_group(db, sid, name):
        return f"json_extract({group}, ?)", [f'$."{name}"']
    raise BadInput(f"unknown column {name!r}")


def eval_page(
    db: sqlite_utils.Database,
    sid: str,
    *,
    sort: str = "id",
    descending: bool = False,
    query: str = "",
    offset: int = 0,
    limit: int = 100,
) -> Page[EvalItemRow]:
    """One page of eval items sorted by ``sort`` (a text column or a metric name; None values last).

    ``query`` is either a comparison on a metric (``faithfulness<0.5``, ``hit@5=0``) or text
    searched, case-insensitively, in the id, question, answer and diagnosis.
    """
    where, args = "session_id = ?", [sid]
    match = _COMPARE.match(query)
    if match:
        expr, eargs = _metric_expr(db, sid, match.group(1))
        where += f" AND {expr} {match.group(2)} ?"
        args += eargs + [float(match.group(3))]
    elif query.strip():
        like = _like(query)
        where += (
            " AND ("
            + " OR ".join(f"{c} LIKE ? ESCAPE '\\'" for c in ("question_id", "question", "answer", "diagnosis"))
            + ")"
        )
        args += [like] * 4
    order, oargs = _metric_expr(db, sid, sort)
    if sort in EVAL_TEXT_COLUMNS:
        order += f" COLLATE {NATURAL}"  # ids in natural order: q2 before q10, 113 before 1012
    direction = "DESC" if descending else "ASC"
    total = db.execute(f"SELECT count(*) FROM eval_items WHERE {where}", args).fetchone()[0]
    rows = db.query(
        f"SELECT question_id, seq, status, question, diagnosis, retrieval, generation FROM eval_items WHERE {where} "
        f"ORDER BY ({order}) IS NULL, ({order}) {direction}, seq LIMIT ? OFFSET ?",
        args + oargs + oargs + [limit, offset],
    )
    page = [
        EvalItemRow(
            **r | {"retrieval": loads_stored(r["retrieval"], "{}"), "generation": loads_stored(r["generation"], "{}")}
        )
        for r in rows
    ]
    return Page(page, total, offset)


def eval_detail(db: sqlite_utils.Database, sid: str, question_id: str) -> EvalDetail | None:
    """One eval item with its JSON columns decoded (None if the session holds no such item)."""
    rows = list(db.query("SELECT * FROM eval_items WHERE session_id = ? AND question_id = ?", [sid, question_id]))
    if not rows:
        return None
    item = dict(rows[0])
    del item["session_id"]
    for col, empty in (
        ("retrieved", "[]"),
        ("retrieval", "{}"),
        ("generation", "{}"),
        ("details", "{}"),
        ("judge_calls", "[]"),
    ):
        item[col] = loads_stored(item[col], empty)  # a NaN an older version stored reads as None
    return EvalDetail(**item)


def metric_defined(db: sqlite_utils.Database, sid: str, metric: str) -> bool:
    """True when some item of the session holds a number for ``metric`` (retrieval or generation)."""
    return any(
        db.execute(
            f"SELECT 1 FROM eval_items WHERE session_id = ? AND json_type({group}, ?) IN ('real', 'integer') LIMIT 1",
            [sid, f'$."{metric}"'],
        ).fetchone()
        for group in ("retrieval", "generation")
    )


def metric_values(db: sqlite_utils.Database, sid: str, metric: str) -> list[float]:
    """Every defined value of one metric (retrieval or generation) in the session."""
    group = _metric_group(db, sid, metric)
    if group is None:
        return []
    return [
        v
        for (v,) in db.execute(
            f"SELECT json_extract({group}, ?) FROM eval_items WHERE session_id = ? AND json_extract({group}, ?) IS NOT NULL",
            [f'$."{metric}"', sid, f'$."{metric}"'],
        )
    ]
