"""Helpers for test rigs: record what a :class:`~firmware_bridge.link.ShoeLink` reports
and wait for it with a timeout (never sleep to synchronise)::

    rec = LinkRecorder()
    with SimShoe(link=path) as shoe, ShoeLink(path, rec.on_message, rec.on_status):
        shoe.deal_deck()
        assert rec.wait_cards(52, timeout=5)
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from firmware_bridge.link import LinkStatus, ShoeMessage
from firmware_bridge.protocol import CardRead


class LinkRecorder:
    """Pass ``rec.on_message`` and ``rec.on_status`` to a ShoeLink."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.messages: list[ShoeMessage] = []
        self.statuses: list[LinkStatus] = []
        self.status_times: list[float] = []  # the clock when each status arrived
        self._changed = threading.Condition()

    def on_message(self, message: ShoeMessage) -> None:
        with self._changed:
            self.messages.append(message)
            self._changed.notify_all()

    def on_status(self, status: LinkStatus) -> None:
        with self._changed:
            self.statuses.append(status)
            self.status_times.append(self.clock())
            self._changed.notify_all()

    def card_messages(self) -> list[ShoeMessage]:
        with self._changed:
            return [m for m in self.messages if isinstance(m.message, CardRead)]

    def cards(self) -> list[CardRead]:
        return [m.message for m in self.card_messages() if isinstance(m.message, CardRead)]

    def of_kind(self, kind: str) -> list[LinkStatus]:
        with self._changed:
            return [s for s in self.statuses if s.kind == kind]

    def wait_for(self, predicate: Callable[[], bool], timeout: float = 5.0) -> bool:
        with self._changed:
            return self._changed.wait_for(predicate, timeout)

    def wait_cards(self, count: int, timeout: float = 5.0) -> bool:
        """Wait until ``count`` card reads have arrived in all."""
        return self.wait_for(
            lambda: sum(isinstance(m.message, CardRead) for m in self.messages) >= count, timeout
        )

    def wait_status(self, kind: str, count: int = 1, timeout: float = 5.0) -> LinkStatus | None:
        """Wait for the ``count``-th status of ``kind``; returns it (None on timeout)."""
        if not self.wait_for(lambda: sum(s.kind == kind for s in self.statuses) >= count, timeout):
            return None
        return self.of_kind(kind)[count - 1]

    def status_time(self, status: LinkStatus) -> float:
        with self._changed:
            for s, t in zip(self.statuses, self.status_times, strict=True):
                if s is status:
                    return t
        raise KeyError("status not recorded here")
