"""Synthetic data shared by the coverage tests: clustered unit vectors, chunks and questions."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ragcov_tui.corpus.models import Chunk
from ragcov_tui.testset.models import Question

WORDS = ["billing", "invoice", "refund", "password", "login", "token", "search", "index", "export", "backup"]


def unit(m: np.ndarray) -> np.ndarray:
    return (m / np.linalg.norm(m, axis=1, keepdims=True)).astype(np.float32)


def topic_data(
    n_topics: int = 5,
    per_topic: int = 40,
    dim: int = 32,
    q_per_topic: int = 4,
    n_off: int = 3,
    seed: int = 0,
    chunk_noise: float = 0.35,
    question_noise: float = 0.2,
    style: float = 1.0,
):
    """Chunks around ``n_topics`` centres; on-topic questions around the same centres plus a shared
    "question style" direction (the query/document asymmetry of real embedders); ``n_off``
    off-topic questions (same style) in directions orthogonal to all centres.
    Returns (C, Q, chunks, questions, off_topic_indices)."""
    rng = np.random.default_rng(seed)
    basis = np.linalg.qr(rng.standard_normal((dim, dim)))[0]
    centres, off_dirs, style_dir = basis[:n_topics], basis[n_topics : n_topics + n_off], basis[-1]
    topic = np.repeat(np.arange(n_topics), per_topic)
    C = unit(centres[topic] + chunk_noise / 3 * rng.standard_normal((len(topic), dim)))
    qt = np.repeat(np.arange(n_topics), q_per_topic)
    Q_on = unit(centres[qt] + style * style_dir + question_noise / 3 * rng.standard_normal((len(qt), dim)))
    Q_off = unit(off_dirs + style * style_dir + 0.1 * rng.standard_normal((n_off, dim)))
    Q = np.vstack([Q_on, Q_off])
    chunks = [Chunk(f"c{i}", text_for(int(t), i), f"doc{t}.md", i) for i, t in enumerate(topic)]
    questions = [Question(f"q{j}", f"What about {WORDS[int(t) % len(WORDS)]} number {j}?") for j, t in enumerate(qt)]
    questions += [Question(f"off{j}", f"Unrelated question {j}?") for j in range(n_off)]
    return C, Q, chunks, questions, np.arange(len(qt), len(qt) + n_off)


def text_for(topic: int, i: int) -> str:
    word = WORDS[topic % len(WORDS)]
    return (
        f"The {word} service handles {word} requests for every account. "
        f"Customers can change the {word} settings from the dashboard page today. item{i}"
    )


def find_nan(value: Any, path: str = "report") -> str | None:
    """The path of the first NaN / infinite float inside a nested report, or None."""
    if isinstance(value, float) and not math.isfinite(value):
        return path
    if isinstance(value, dict):
        for k, v in value.items():
            hit = find_nan(v, f"{path}.{k}")
            if hit:
                return hit
    if isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            hit = find_nan(v, f"{path}[{i}]")
            if hit:
                return hit
    return None
