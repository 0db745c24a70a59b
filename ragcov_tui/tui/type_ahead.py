"""Keys typed ahead of a text field that is still opening wait for it, in order (issue #22 §4).

Textual routes a key to the widget focused when the key is taken off the app's queue, and runs a
non-priority binding only after the key has bubbled back up; keys typed quickly after ``/`` or
``e`` went to the list (a digit switched panes) or into a pop-up not mounted yet (lost). So a key
that opens a text field is bound with ``priority=True`` (its action runs as the key arrives,
before any later key is routed: :data:`TEXT_OPENERS`) and is off while a text field has focus
(the key is typed there); an opener whose field gets focus only later (a pop-up) calls
:func:`hold_keys`: later keys wait and go, in the order typed, to whatever has focus once the
field has it (or after :data:`HOLD_LIMIT` seconds, should it never open).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from textual import events
from textual.app import App
from textual.timer import Timer
from textual.widgets import Input

HOLD_LIMIT = 1.0  # seconds keys wait at most for the field they were typed for
POLL_EVERY = 0.01
TEXT_OPENERS = frozenset({"filter", "edit", "rename"})  # pane actions that open a text field: priority bindings


class TypeAheadApp(App):
    """An App that can hold the keys typed while a text field opens (:meth:`hold_keys`)."""

    def __init__(self) -> None:
        super().__init__()
        self._hold_until: Callable[[], bool] | None = None
        self._hold_deadline = 0.0
        self._held: list[events.Key] = []
        self._hold_timer: Timer | None = None

    def hold_keys(self, until: Callable[[], bool]) -> None:
        """Hold every key that arrives from now on until ``until()`` is true, then route them."""
        self._hold_until, self._hold_deadline = until, time.monotonic() + HOLD_LIMIT
        if self._hold_timer is None:
            self._hold_timer = self.set_interval(POLL_EVERY, self._release_when_ready)

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key) and not event.is_forwarded and self._hold_until is not None:
            self._held.append(event)
            await self._release_when_ready()
            return
        if isinstance(event, events.Key) and not event.is_forwarded and isinstance(self.focused, Input):
            await self._type_into(self.focused, event)
            return
        await super().on_event(event)

    async def _type_into(self, field: Input, event: events.Key) -> None:
        """One key for the focused text field, handled now: the priority bindings (quit…), then a
        printable key typed into the field as Input does (replacing a selection), then the field's
        and its ancestors' bindings; a key none of them takes goes on as Textual routes it."""
        if await self._check_bindings(event.key, priority=True):
            return
        if event.is_printable and event.character is not None:
            selection = field.selection
            if selection.is_empty:
                field.insert_text_at_cursor(event.character)
            else:
                field.replace(event.character, *selection)
            return
        if not await self._check_bindings(event.key):
            field._forward_event(event)

    async def _release_when_ready(self) -> None:
        """Route the held keys once the field has focus; a key that opens another field holds the rest again."""
        if self._hold_until is None or not (self._hold_until() or time.monotonic() > self._hold_deadline):
            return
        self._hold_until = None
        if self._hold_timer is not None:
            self._hold_timer.stop()
            self._hold_timer = None
        while self._held and self._hold_until is None:
            await self.on_event(self._held.pop(0))


def hold_keys(app: App, until: Callable[[], bool]) -> None:
    """:meth:`TypeAheadApp.hold_keys` on ``app`` (any other App routes keys as Textual does)."""
    if isinstance(app, TypeAheadApp):
        app.hold_keys(until)
