"""Which rows of a query log the health figures cover: ``--since`` / ``--until`` and ``--window``.

``--window SPAN`` (a number and a unit: ``m`` minutes, ``h`` hours, ``d`` days, ``w`` weeks, e.g.
``24h``, ``7d``) reports the last SPAN of the log (ending at its latest timestamp) against the
windows of the same length before it; ``--since`` / ``--until`` (ISO 8601, no zone: UTC; both
inclusive) keep only the rows logged in that range. Rows without a timestamp are outside every
window and range. Checked before any work: a bad value is one line naming the option.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime

import numpy as np

from ragcov_tui.shared.errors import BadInput
from ragcov_tui.traffic.reader import ServedRows

UNITS = {"m": 60.0, "h": 3600.0, "d": 86400.0, "w": 604800.0}
_SPAN = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*([mhdw])\s*$")


@dataclass(frozen=True)
class TrafficWindow:
    """The options as given (for the report) and in Unix seconds."""

    window: str | None = None
    since: str | None = None
    until: str | None = None
    span_s: float | None = None
    since_s: float | None = None
    until_s: float | None = None

    @property
    def filters(self) -> bool:
        return self.since_s is not None or self.until_s is not None or self.span_s is not None

    def in_range(self, rows: ServedRows) -> np.ndarray:
        """Rows inside ``--since`` / ``--until`` (all rows without them; timeless rows only then)."""
        if self.since_s is None and self.until_s is None:
            return np.ones(len(rows.time), dtype=bool)
        keep = ~np.isnan(rows.time)
        if self.since_s is not None:
            keep &= rows.time >= self.since_s
        if self.until_s is not None:
            keep &= rows.time <= self.until_s
        return keep

    def selected(self, rows: ServedRows) -> np.ndarray:
        """The rows the health figures describe: the range, and within it the last window."""
        keep = self.in_range(rows)
        if self.span_s is not None:
            timed = keep & ~np.isnan(rows.time)
            if timed.any():
                end = float(rows.time[timed].max())
                keep = timed & (rows.time > end - self.span_s)
            else:
                keep = timed
        return keep


ALL_ROWS = TrafficWindow()  # no option given: the health figures cover the whole log


def parse_window(window: str | None, since: str | None, until: str | None, *, traffic: str | None) -> TrafficWindow:
    """The options checked (module doc); BadInput naming the option, or when one is given without
    a query log (``traffic``)."""
    if not traffic and (window or since or until):
        raise BadInput("--window / --since / --until select rows of a query log: give one with --traffic")
    span = None
    if window is not None:
        match = _SPAN.match(window)
        if match is None or float(match.group(1)) <= 0:
            raise BadInput(
                f"--window {window!r}: expected a positive number and a unit, e.g. 24h, 7d or 2w (units: m, h, d, w)"
            )
        span = float(match.group(1)) * UNITS[match.group(2)]
    since_s, until_s = _moment("--since", since), _moment("--until", until)
    if since_s is not None and until_s is not None and since_s > until_s:
        raise BadInput(f"--since {since!r} is after --until {until!r}")
    return TrafficWindow(window, since, until, span, since_s, until_s)


def _moment(option: str, text: str | None) -> float | None:
    if text is None:
        return None
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise BadInput(
            f"{option} {text!r}: expected an ISO 8601 time, e.g. 2026-01-15 or 2026-01-15T12:00:00Z"
        ) from None
    return (moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment).timestamp()
