"""plotext charts (via textual-plotext) fed with figures the core computed; no math here.

A chart keeps what to draw, not a drawn figure: every render starts from a cleared figure at the
widget's current size, so the picture depends only on the data and the size (stable snapshots,
correct after a resize). Series differ by marker as well as colour, so they read with NO_COLOR.
Titles, labels and messages (a test file's name, cluster themes) are made visible with
:func:`~ragcov_tui.shared.safe_text.single_line` before plotext draws them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from textual.app import RenderResult
from textual_plotext import PlotextPlot

from ragcov_tui.shared.safe_text import single_line

Painter = Callable[[Any], None]
MARKER_GLYPHS = {"dot": "•"}  # plotext marker names drawn as another character


def whole_ticks(top: float, slots: int) -> list[int]:
    """Ticks ``0, s, 2s, …`` up to the first multiple of ``s`` at or above ``top``, where ``s`` is
    the smallest of 1, 2, 5, 10, 20, 50, … that needs at most ``slots`` ticks."""
    step = 1
    while -(-top // step) + 1 > slots:
        step = step * 5 // 2 if str(step)[0] == "2" else step * 2
    return list(range(0, int(-(-top // step) * step) + 1, step)) if top > 0 else [0, 1]


def even_ticks(low: float, high: float, slots: int) -> list[float]:
    """Quarters of ``[low, high]`` (halves when there is no room): evenly spaced, ends included."""
    parts = 4 if slots >= 5 else 2
    return [low + (high - low) * i / parts for i in range(parts + 1)]


class Chart(PlotextPlot):
    """A plot redrawn from its painter on every render; set one with a ``draw_*`` method."""

    painter: Painter | None = None

    def render(self) -> RenderResult:
        self.plt.clear_figure()
        if self.painter is not None:
            self.painter(self.plt)
        return super().render()

    def _paint(self, title: str, painter: Painter, key: Sequence[tuple[str, str]] = ()) -> None:
        """Draw with ``painter`` under ``title``; a ``key`` of ``(label, marker)`` goes in the title
        (see :meth:`_keyed_title`)."""

        def paint(plt: Any) -> None:
            self._keyed_title(plt, title, key)
            painter(plt)

        self.painter = paint
        self.refresh()

    def draw_message(self, title: str, message: str) -> None:
        """An empty chart saying why there is nothing to draw."""

        def paint(plt: Any) -> None:
            plt.text(single_line(message), 0.5, 0.5, alignment="center")
            plt.xlim(0, 1)
            plt.ylim(0, 1)
            plt.xticks([])
            plt.yticks([])

        self._paint(title, paint)

    def draw_bars(
        self, title: str, labels: Sequence[str], values: Sequence[float], *, ylim: tuple[float, float] | None = None
    ) -> None:
        def paint(plt: Any) -> None:
            # numeric positions and explicit ticks: plotext's own choice for text labels varies between runs
            positions = list(range(len(labels)))
            widest = max((len(label) for label in labels), default=1) + 2
            step = max(1, -(-len(labels) * widest // max(1, self.size.width - 8)))
            plt.bar(positions, list(values), marker="hd")
            plt.xticks(positions[::step], [single_line(label) for label in labels][::step])
            rows = max(2, (self.size.height - 4) // 2)  # a tick every other text row at most
            if ylim:
                plt.ylim(*ylim)
                plt.yticks(even_ticks(ylim[0], ylim[1], rows))
            else:  # counts: whole numbers only, evenly spaced, the top tick the top of the axis
                ticks = whole_ticks(max(values, default=0), rows)
                plt.ylim(0, ticks[-1])
                plt.yticks(ticks)

        self._paint(title, paint)

    def draw_lines(
        self, title: str, series: dict[str, Sequence[float | None]], ticks: Sequence[str] | None = None
    ) -> None:
        """One line per series over positions 1..n (whole-number ticks, or ``ticks`` naming each
        position); None points are left out; the key goes in the title."""
        markers = ("dot", "+", "x", "*", "o", "#")
        drawn = [
            (name, values, markers[i % len(markers)])
            for i, (name, values) in enumerate(series.items())
            if any(v is not None for v in values)
        ]

        def paint(plt: Any) -> None:
            for i, (_, values, marker) in enumerate(drawn):
                xs = [x + 1 for x, v in enumerate(values) if v is not None]
                plt.plot(xs, [v for v in values if v is not None], marker=marker, color=i + 1)
            positions = range(1, max((len(values) for _, values, _ in drawn), default=0) + 1)
            if ticks is not None:
                plt.xticks(list(positions), [single_line(t) for t in ticks][: len(positions)])
            else:
                plt.xticks(list(positions[:: max(1, len(positions) // 8)]))
            plt.ylim(0, 1)

        self._paint(title, paint, [(name, marker) for name, _, marker in drawn])

    def draw_scatter(self, title: str, groups: Sequence[tuple[str, Sequence[float], Sequence[float], str]]) -> None:
        """``groups`` of ``(label, xs, ys, marker)``, drawn in order (later groups on top)."""

        def paint(plt: Any) -> None:
            for i, (_, xs, ys, marker) in enumerate(groups):
                if xs:
                    plt.scatter(list(xs), list(ys), marker=marker, color=i + 1)
            plt.xticks([])
            plt.yticks([])

        self._paint(title, paint, [(label, marker) for label, xs, _, marker in groups if xs])

    def _keyed_title(self, plt: Any, title: str, key: Sequence[tuple[str, str]]) -> None:
        """``title · • chunks  o cluster 3``: the key goes in the title, not in plotext's legend box,
        which sits on the top-left corner of the plot and hides what is drawn there. When both do
        not fit, the key alone; then the key with single spaces; then cut to the width with ``…``
        (plotext drops a title wider than the chart, which left no key at all)."""
        entries = [f"{MARKER_GLYPHS.get(marker, marker)} {single_line(label)}" for label, marker in key]
        title = single_line(title)
        width = self.size.width
        if not entries:
            plt.title(title)
            return
        tight = " ".join(entries)
        tries = [(f"{title} · {'  '.join(entries)}", width - 4), ("  ".join(entries), width), (tight, width)]
        plt.title(next((text for text, room in tries if len(text) <= room), tight[: max(1, width - 1)] + "…"))
