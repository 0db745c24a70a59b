"""Generation metrics: LLM-judged with honest offline heuristics, paraphrase robustness, judge trust.

Public API (the eval pipeline calls it): :func:`score_generation`, :class:`GenerationInput`,
:class:`GenerationScores`, ``GENERATION_METRICS`` / ``METRICS`` (one :class:`MetricSpec` per
metric: formula, LLM use, heuristic and function; see ``registry.py``), :func:`generate_paraphrases`,
:func:`parse_citations`.
"""

from ragcov_tui.evaluation.generation.models import GenerationInput, GenerationScores
from ragcov_tui.evaluation.generation.registry import GENERATION_METRICS, JUDGED_METRICS, METRICS, MetricSpec
from ragcov_tui.evaluation.generation.robustness import generate_paraphrases
from ragcov_tui.evaluation.generation.scoring import score_generation
from ragcov_tui.evaluation.generation.text import parse_citations

__all__ = [
    "GENERATION_METRICS",
    "JUDGED_METRICS",
    "METRICS",
    "GenerationInput",
    "GenerationScores",
    "MetricSpec",
    "generate_paraphrases",
    "parse_citations",
    "score_generation",
]
