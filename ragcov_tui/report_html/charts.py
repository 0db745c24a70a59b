"""The page's charts, drawn by Bokeh (inline resources; no hand-written charting).

Every figure is built from stored values; :func:`embed` turns a list of them into one inline
script (Bokeh serialises the data as JSON with ``</`` escaped) and one ``<div>`` per figure.
Hover tooltips show field values as text (Bokeh escapes them unless told ``{safe}``, which is never
used here); the texts are made visible (:func:`ragcov_tui.shared.safe_text.visible_line`) before they go in.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from bokeh.embed import components
from bokeh.layouts import gridplot
from bokeh.model import Model
from bokeh.models import ColumnDataSource, DataRange1d, FactorRange, HoverTool, Range1d
from bokeh.models.annotations import Whisker
from bokeh.palettes import Category20
from bokeh.plotting import figure
from bokeh.resources import Resources

from ragcov_tui.report_html.map_data import MapView
from ragcov_tui.shared.input_values import is_finite_number
from ragcov_tui.shared.safe_text import visible_line

TOOLS = "pan,wheel_zoom,box_zoom,reset,save"
CLUSTER_COLOURS = Category20[20]
UNCLUSTERED = "#9e9e9e"


@dataclass(frozen=True)
class Embedded:
    """Figures ready for the page: the script that draws them and one placeholder ``<div>`` each."""

    script: str
    divs: tuple[str, ...]


def library_scripts() -> list[str]:
    """Bokeh's own library (core and WebGL), inline: about 1.5 MB of the page."""
    return list(Resources(mode="inline", components=["bokeh", "bokeh-gl"]).js_raw)


def embed(figures: Sequence[Model]) -> Embedded:
    """One script for every figure (its body, without the ``<script>`` tags) and their divs."""
    if not figures:
        return Embedded("", ())
    script, divs = components(list(figures))
    body = re.fullmatch(r"\s*<script[^>]*>(.*)</script>\s*", script, re.S)
    if body is None:
        raise ValueError("bokeh.embed.components returned no script element")
    return Embedded(body.group(1), tuple(divs))


def cluster_colour(cluster: int) -> str:
    return UNCLUSTERED if cluster < 0 else CLUSTER_COLOURS[cluster % len(CLUSTER_COLOURS)]


def tooltip(*rows: tuple[str, str]) -> str:
    """A hover template that wraps long text: fixed labels (ours) and ``@field`` values, which Bokeh
    substitutes HTML-escaped (no ``{safe}`` anywhere)."""
    lines = "".join(f'<div><span class="tip-label">{label}:</span> {field}</div>' for label, field in rows)
    return f'<div class="tip" style="max-width: 28rem; white-space: normal; overflow-wrap: anywhere">{lines}</div>'


def map_figure(view: MapView) -> Model:
    """Chunks coloured by cluster, gap clusters outlined (their convex hull, dashed), questions as
    triangles and outlier questions as red crosses; hover shows the text, its document and cluster."""
    fig = figure(
        name="map",
        tools=TOOLS,
        active_scroll="wheel_zoom",
        sizing_mode="stretch_width",
        height=560,
        output_backend="webgl",
        title="Chunks and questions on the 2-D map",
    )
    fig.axis.visible = False
    fig.grid.visible = False
    for hull in view.gap_hulls:
        fig.patch(
            x=list(hull.xs),
            y=list(hull.ys),
            fill_alpha=0.06,
            fill_color="#d62728",
            line_color="#d62728",
            line_dash="dashed",
            line_width=2,
            legend_label="gap cluster",
        )
    chunks = ColumnDataSource(
        name="chunks",
        data={
            "x": [c.x for c in view.chunks],
            "y": [c.y for c in view.chunks],
            "text": [visible_line(c.text) for c in view.chunks],
            "doc": [visible_line(c.source) for c in view.chunks],
            "id": [visible_line(c.chunk_id) for c in view.chunks],
            "cluster": [str(c.cluster) if c.cluster >= 0 else "none" for c in view.chunks],
            "colour": [cluster_colour(c.cluster) for c in view.chunks],
        },
    )
    chunk_dots = fig.scatter("x", "y", source=chunks, size=5, color="colour", alpha=0.65, legend_label="chunk")
    fig.add_tools(
        HoverTool(
            renderers=[chunk_dots],
            tooltips=tooltip(("chunk", "@id"), ("document", "@doc"), ("cluster", "@cluster"), ("text", "@text")),
        )
    )
    for outlier, marker, colour, label in (
        (False, "triangle", "#111111", "question"),
        (True, "x", "#d62728", "outlier question"),
    ):
        picked = [q for q in view.questions if q.outlier == outlier]
        source = ColumnDataSource(
            name="outliers" if outlier else "questions",
            data={
                "x": [q.x for q in picked],
                "y": [q.y for q in picked],
                "id": [visible_line(q.question_id) for q in picked],
                "text": [visible_line(q.text) for q in picked],
            },
        )
        dots = fig.scatter(
            "x", "y", source=source, marker=marker, size=9, color=colour, line_width=2, legend_label=label
        )
        fig.add_tools(HoverTool(renderers=[dots], tooltips=tooltip((label, "@id"), ("text", "@text"))))
    fig.legend.location = "top_left"
    fig.legend.click_policy = "hide"
    return fig


def cluster_bars(clusters: Sequence[Mapping[str, object]]) -> Model:
    """Coverage and covered share per cluster, side by side; gap clusters in red."""
    names = [str(c["id"]) for c in clusters]
    fig = figure(
        name="cluster_bars",
        x_range=FactorRange(factors=names),
        tools="hover,save",
        sizing_mode="stretch_width",
        height=300,
        title="Per cluster: coverage (mean similarity) and covered share",
        y_range=Range1d(start=0, end=1.05),
        tooltips=[("cluster", "@name"), ("coverage", "@coverage{0.000}"), ("covered", "@covered{0.0%}")],
    )
    source = ColumnDataSource(
        {
            "name": names,
            "coverage": [_number(c.get("coverage")) for c in clusters],
            "covered": [_number(c.get("covered_share")) for c in clusters],
            "colour": ["#d62728" if c.get("gap") else "#1f77b4" for c in clusters],
        }
    )
    fig.vbar(x="name", top="coverage", width=0.4, source=source, color="colour", legend_label="coverage")
    fig.scatter(
        x="name", y="covered", source=source, size=9, marker="diamond", color="#ff7f0e", legend_label="covered share"
    )
    fig.xaxis.axis_label = "cluster (red: gap)"
    fig.legend.location = "top_right"
    return fig


def _number(value: Any) -> float:
    """A stored figure for a chart: NaN (Bokeh draws nothing) where it is missing."""
    return float(value) if is_finite_number(value) else float("nan")


def histogram(metric: str, values: Sequence[float], bins: int = 10) -> Model:
    """How one metric's per-question values spread over [0, 1] (values outside are clipped into the end bins)."""
    counts, edges = np.histogram(np.clip(np.asarray(values, dtype=float), 0.0, 1.0), bins=bins, range=(0.0, 1.0))
    fig = figure(
        name=f"hist:{metric}",
        tools="hover,save",
        height=170,
        width=270,
        title=visible_line(metric),
        y_range=DataRange1d(start=0),
        tooltips=[("from", "@left{0.00}"), ("to", "@right{0.00}"), ("questions", "@top")],
    )
    fig.quad(
        source=ColumnDataSource(
            {"left": edges[:-1], "right": edges[1:], "top": counts, "bottom": np.zeros_like(counts)}
        ),
        top="top",
        bottom="bottom",
        left="left",
        right="right",
        color="#1f77b4",
        line_color="white",
    )
    return fig


def histogram_grid(values: Mapping[str, Sequence[float]], columns: int = 4) -> Model:
    """Every metric's histogram in one grid with one toolbar (one Bokeh view: the page draws faster)."""
    return gridplot(
        [histogram(name, vals) for name, vals in values.items() if vals],
        ncols=columns,
        merge_tools=True,
        toolbar_location="right",
    )


def delta_figure(rows: Sequence[Mapping[str, object]]) -> Model:
    """Paired deltas (B − A) per metric with their bootstrap interval as whiskers; significant ones in colour."""
    names = [visible_line(str(r["metric"])) for r in rows]
    source = ColumnDataSource(
        {
            "metric": names,
            "delta": [_number(r.get("delta")) for r in rows],
            "low": [_number(r.get("ci_low")) for r in rows],
            "high": [_number(r.get("ci_high")) for r in rows],
            "colour": [
                "#2ca02c"
                if r.get("significant") and _number(r.get("delta")) > 0
                else "#d62728"
                if r.get("significant")
                else "#9e9e9e"
                for r in rows
            ],
        }
    )
    fig = figure(
        name="deltas",
        y_range=FactorRange(factors=list(reversed(names))),
        tools="hover,save",
        sizing_mode="stretch_width",
        height=max(200, 24 * len(names) + 60),
        title="B − A per metric, with the 95% paired bootstrap interval",
        tooltips=[("metric", "@metric"), ("delta", "@delta{+0.000}"), ("interval", "@low{+0.000} … @high{+0.000}")],
    )
    ends = [v for key in ("low", "high", "delta") for v in source.data[key] if v == v]
    if ends:
        pad = 0.05 * max(1e-3, max(ends) - min(ends))
        fig.x_range = Range1d(min(0.0, *ends) - pad, max(0.0, *ends) + pad)
    fig.hbar(y="metric", right="delta", height=0.5, source=source, color="colour")
    fig.add_layout(Whisker(source=source, base="metric", lower="low", upper="high", dimension="width"))
    return fig
