"""The app's base: untrusted text never reaches the terminal raw, and notifications fit small terminals.

Every rendered line goes through :class:`ControlCharFilter`; titles are one line; a notification
(many quote a path or an error) shows its control characters visibly, is kept for ``?`` (the
newest :data:`NOTICE_LOG`), and below 100x30 shows on the status line instead of as a toast, for
:data:`NOTICE_HOLD` seconds at least before the next one takes its place (two in a row, such as
"test file … reloaded" then "accepted", are both read).
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Sequence
from typing import Any

from rich.text import Text
from textual.filter import LineFilter
from textual.notifications import SeverityLevel
from textual.timer import Timer

from ragcov_tui.shared.safe_text import single_line, visible
from ragcov_tui.tui.type_ahead import TypeAheadApp
from ragcov_tui.tui.widgets.literal import lit
from ragcov_tui.tui.widgets.screen_guard import ControlCharFilter

NARROW = 100  # below this many columns the panes stack vertically
SHORT = 30  # below this many rows optional charts hide and notifications go to the status line
NOTICE_HOLD = 2.0  # seconds a status-line notice stays at least before a newer one replaces it
NOTICE_LOG = 10  # notifications ? lists in full (the status line shows one, cut to the width)
NOTICE_MARK = {"information": "✓", "warning": "!", "error": "✗"}
NOTICE_STYLE = {"information": "bold", "warning": "bold yellow", "error": "bold red"}


class SafeTextApp(TypeAheadApp):
    """An App whose notifications, titles and lines are safe to show; the subclass draws the status
    line (``#status-line``) in :meth:`_update_status`, from :attr:`notice` when one is shown."""

    def __init__(self) -> None:
        super().__init__()
        self.notice: Text | None = None  # a notification shown on the status line (small terminals)
        self.notice_log: deque[tuple[str, str, str]] = deque(maxlen=NOTICE_LOG)  # newest first, listed in ?
        self._notice_timer: Timer | None = None
        self._notice_since = 0.0  # when the notice shown was put there (time.monotonic)
        self._notice_queue: deque[tuple[Text, float]] = deque()  # newer notices waiting for NOTICE_HOLD to pass
        self._queue_timer: Timer | None = None
        self._control_filter = ControlCharFilter()

    def _update_status(self) -> None:
        """Redraw the status line (the subclass's; called when the notice shown there changes)."""

    def get_line_filters(self) -> Sequence[LineFilter]:
        """Textual's filters plus :class:`ControlCharFilter`, which drops any control character left
        in a rendered line (one instance, so Textual's per-filter line cache keeps working)."""
        return [*super().get_line_filters(), self._control_filter]

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        **kwargs: Any,
    ) -> None:
        """Every notification (many quote a path or an error) with its control characters visible.
        Below 100x30 a toast would cover the list being triaged: the newest notification shows on
        the status line instead (for its timeout), and the app's CSS hides the toasts."""
        message, title = visible(str(message)), single_line(str(title))
        super().notify(message, title=title, severity=severity, timeout=timeout, **kwargs)
        self.notice_log.appendleft((severity, title, message))
        if self.size.width < NARROW or self.size.height < SHORT:
            self._show_notice(
                f"{title}: {message}" if title else message,
                severity,
                self.NOTIFICATION_TIMEOUT if timeout is None else timeout,
            )

    def _show_notice(self, text: str, severity: str, seconds: float) -> None:
        """``text`` on the status line for ``seconds``; while the notice shown is younger than
        :data:`NOTICE_HOLD` it waits its turn (a repeat of the last one is not queued again)."""
        notice = lit(f"{NOTICE_MARK.get(severity, '·')} {text}", NOTICE_STYLE.get(severity, "bold"))
        last = self._notice_queue[-1][0] if self._notice_queue else self.notice
        if last is not None and last.plain == notice.plain:
            if not self._notice_queue:
                self._put_notice(notice, seconds, since=self._notice_since)
            return
        held = time.monotonic() - self._notice_since
        if self.notice is None or held >= NOTICE_HOLD:
            self._put_notice(notice, seconds)
            return
        self._notice_queue.append((notice, seconds))
        if self._queue_timer is None:
            self._queue_timer = self.set_timer(NOTICE_HOLD - held, self._next_notice)

    def _put_notice(self, notice: Text, seconds: float, *, since: float | None = None) -> None:
        if self._notice_timer is not None:
            self._notice_timer.stop()
        self.notice, self._notice_since = notice, time.monotonic() if since is None else since
        self._notice_timer = self.set_timer(seconds, self._clear_notice)
        if self.query("#status-line"):
            self._update_status()

    def _next_notice(self) -> None:
        """The oldest waiting notice takes the status line; the next one waits NOTICE_HOLD again."""
        self._queue_timer = None
        if self._notice_queue:
            self._put_notice(*self._notice_queue.popleft())
        if self._notice_queue:
            self._queue_timer = self.set_timer(NOTICE_HOLD, self._next_notice)

    def _clear_notice(self) -> None:
        self.notice, self._notice_timer = None, None
        if self.query("#status-line"):
            self._update_status()

    def validate_title(self, title: Any) -> str:
        return single_line(str(title))

    def validate_sub_title(self, sub_title: Any) -> str:
        return single_line(str(sub_title))
