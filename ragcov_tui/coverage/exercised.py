"""Retrieval coverage: which chunks an eval's questions exercise, as tests exercise lines of code.

A chunk is **exercised** when some question of an eval session retrieved it in its top ``k``. A
retrieved id names a chunk of this corpus when it is that chunk's id, all the chunks of a document
when it is the document's id (a document-level retriever), and nothing otherwise (counted in
``unmatched_ids``: the eval ran on another corpus or chunking).

* ``share = exercised chunks / chunks``, overall, per analysis cluster and per document;
* a **blind spot** is a cluster or a document none of whose chunks any question retrieved;
* with a query log, ``traffic_queries`` of a cluster is the count of logged queries whose nearest
  chunk lies in it, so a blind spot users ask about stands out;
* with retrievability probes (``ragcov eval --probes N``), a chunk the system did not return even
  for a question written from it is a corpus or index defect, not a test gap (``defects``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from ragcov_tui.corpus.models import Chunk
from ragcov_tui.store.analysis_contract import (
    ExercisedCluster,
    ExercisedDocument,
    ExercisedSection,
    ProbeDefect,
)
from ragcov_tui.store.eval_contract import ProbeReport
from ragcov_tui.testset.gold_ids import CorpusIds


def exercised_mask(chunks: Sequence[Chunk], retrieved: Iterable[Sequence[str]]) -> tuple[np.ndarray, int]:
    """(per chunk: retrieved by some question, the number of distinct retrieved ids naming no
    chunk or document of this corpus); exact ids first, then :class:`CorpusIds`' path rules."""
    index = {c.id: i for i, c in enumerate(chunks)}
    by_source: dict[str, list[int]] = {}
    for i, c in enumerate(chunks):
        by_source.setdefault(c.source, []).append(i)
    mask = np.zeros(len(chunks), dtype=bool)
    lookup: CorpusIds | None = None
    unmatched: set[str] = set()
    for rid in {r for ids in retrieved for r in ids}:
        target: str | None = rid
        if rid not in index and rid not in by_source:
            if lookup is None:
                lookup = CorpusIds(chunks)
            target = lookup.resolve(rid, via_chunk=False)[0]
        if target is None:
            unmatched.add(rid)
        elif target in index:
            mask[index[target]] = True
        else:
            mask[by_source.get(target, [])] = True
    return mask, len(unmatched)


def _share(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def exercised_section(
    mask: np.ndarray,
    labels: np.ndarray,
    k: int,
    chunk_ids: Sequence[str],
    sources: Sequence[str],
    *,
    themes: Sequence[Sequence[str]],
    eval_session: str,
    system: str,
    top_k: int,
    questions: int,
    unmatched_ids: int,
    traffic: Sequence[tuple[str, int]] | None = None,
    probes: ProbeReport | None = None,
) -> ExercisedSection:
    """The report's ``exercised`` key (module doc). ``traffic``: (nearest chunk id, count) per
    distinct logged query; ``probes``: the eval's retrievability probes, if it ran them."""
    where = {cid: i for i, cid in enumerate(chunk_ids)}
    counts = np.zeros(k, dtype=np.int64)
    if traffic is not None:
        for cid, count in traffic:
            if cid in where:
                counts[labels[where[cid]]] += count
    defects: list[ProbeDefect] = []
    unretrievable_by_doc: dict[str, int] = {}
    for p in probes["unretrievable"] if probes else []:
        i = where.get(p["chunk_id"])
        if i is not None:
            defects.append(
                {"chunk_id": p["chunk_id"], "source": sources[i], "cluster": int(labels[i]), "question": p["question"]}
            )
            unretrievable_by_doc[sources[i]] = unretrievable_by_doc.get(sources[i], 0) + 1
    clusters: list[ExercisedCluster] = []
    for c in range(k):
        members = labels == c
        size, hit = int(members.sum()), int(mask[members].sum())
        clusters.append(
            {
                "cluster": c,
                "chunks": size,
                "exercised": hit,
                "share": _share(hit, size),
                "themes": list(themes[c]) if c < len(themes) else [],
                "traffic_queries": None if traffic is None else int(counts[c]),
            }
        )
    doc_chunks: dict[str, list[int]] = {}
    for i, s in enumerate(sources):
        doc_chunks.setdefault(s, []).append(i)
    documents: list[ExercisedDocument] = []
    for s, rows in doc_chunks.items():
        hit = int(mask[rows].sum())
        documents.append(
            {
                "source": s,
                "chunks": len(rows),
                "exercised": hit,
                "share": hit / len(rows),
                "unretrievable": unretrievable_by_doc.get(s, 0),
            }
        )
    documents.sort(key=lambda d: (d["share"], -d["chunks"], d["source"]))
    n, hit = len(mask), int(mask.sum())
    blind_clusters = [e["cluster"] for e in clusters if e["exercised"] == 0]
    blind_documents = [d["source"] for d in documents if d["exercised"] == 0]
    return {
        "eval_session": eval_session,
        "system": system,
        "k": top_k,
        "questions": questions,
        "chunks": n,
        "exercised_chunks": hit,
        "share": _share(hit, n),
        "documents": len(documents),
        "documents_exercised": len(documents) - len(blind_documents),
        "document_share": _share(len(documents) - len(blind_documents), len(documents)),
        "unmatched_ids": unmatched_ids,
        "blind_clusters": blind_clusters,
        "blind_documents": blind_documents,
        "blind_traffic": None if traffic is None else int(counts[blind_clusters].sum()),
        "traffic_queries": None if traffic is None else int(sum(c for _, c in traffic)),
        "clusters": clusters,
        "document_detail": documents,
        "probes": probes,
        "defects": defects,
    }


def exercised_line(section: ExercisedSection) -> str:
    """One line: the exercised share and the blind spots (CLI, Markdown and the app say the same)."""
    share = section["share"]
    shown = "not measured" if share is None else f"{share:.1%}"
    line = (
        f"Exercised by eval {section['eval_session']} ({section['system']}, top {section['k']}): "
        f"{section['exercised_chunks']:,} of {section['chunks']:,} chunks ({shown}), "
        f"{section['documents_exercised']:,} of {section['documents']:,} documents; blind spots: "
        f"{len(section['blind_clusters'])} cluster(s), {len(section['blind_documents']):,} document(s)"
    )
    if section["blind_traffic"] is not None:
        line += (
            f"; {section['blind_traffic']:,} of {section['traffic_queries']:,} logged queries land in blind clusters"
        )
    return line


def probes_line(probes: ProbeReport) -> str:
    """One line: what the retrievability probes found."""
    writer = probes.get("writer", "offline")
    line = (
        f"Retrievability probes: {probes['asked']} unexercised chunk(s) asked about directly (seed "
        f"{probes['seed']}, questions by {writer}), {probes['found']} came back in the top {probes['k']}, "
        f"{len(probes['unretrievable'])} did not (a corpus or index defect, not a test gap)"
    )
    if probes["unwritable"]:
        line += f"; {probes['unwritable']} chunk(s) gave no question to ask"
    if probes["errors"]:
        line += f"; the system failed on {probes['errors']}"
    return line
