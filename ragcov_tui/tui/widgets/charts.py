"""plotext charts (via textual-plotext) fed with figures the core computed; no math here.

Series are told apart by marker as well as colour, so the charts stay readable with NO_COLOR.
"""

from __future__ import annotations

from typing import Sequence

from textual_plotext import PlotextPlot

MARKERS = ("dot", "+", "x", "*", "o", "#")


class Chart(PlotextPlot):
    """A plot that is redrawn from scratch by one of the ``draw_*`` methods."""

    def _begin(self, title: str) -> None:
        plt = self.plt
        plt.clear_figure()
        plt.title(title)

    def draw_message(self, title: str, message: str) -> None:
        """An empty chart saying why there is nothing to draw."""
        self._begin(title)
        self.plt.text(message, 0.5, 0.5, alignment="center")
        self.plt.xlim(0, 1)
        self.plt.ylim(0, 1)
        self.plt.xticks([])
        self.plt.yticks([])
        self.refresh()

    def draw_bars(self, title: str, labels: Sequence[str], values: Sequence[float], *, ylim: tuple[float, float] | None = None) -> None:
        self._begin(title)
        self.plt.bar(list(labels), list(values), marker="hd")
        if ylim:
            self.plt.ylim(*ylim)
        self.refresh()

    def draw_lines(self, title: str, series: dict[str, Sequence[float | None]]) -> None:
        """One line per series over positions 1..n; None points are left out."""
        self._begin(title)
        for i, (name, values) in enumerate(series.items()):
            xs = [x + 1 for x, v in enumerate(values) if v is not None]
            ys = [v for v in values if v is not None]
            if ys:
                self.plt.plot(xs, ys, label=name, marker=MARKERS[i % len(MARKERS)])
        self.plt.ylim(0, 1)
        self.refresh()

    def draw_scatter(self, title: str, groups: Sequence[tuple[str, Sequence[float], Sequence[float], str]]) -> None:
        """``groups`` of ``(label, xs, ys, marker)``, drawn in order (later groups on top)."""
        self._begin(title)
        for i, (label, xs, ys, marker) in enumerate(groups):
            if xs:
                self.plt.scatter(list(xs), list(ys), label=label, marker=marker, color=i + 1)
        self.plt.xticks([])
        self.plt.yticks([])
        self.refresh()
