"""The shoe adapter: the serial link's messages into the controller's events.

Tag ids come off the wire; the deck registry says which card each is (or that it has a
different back, IRR-1). Every read carries the shoe's idempotency key, so a read the
shoe sends again after a lost acknowledgement is journaled once. Link losses become
device events: the dealer is told reads may have been missed.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from firmware_bridge.link import LinkStatus, ShoeMessage
from firmware_bridge.protocol import CardRead, Face, ShoeState
from tablectl.adapters.decks import DeckRegistry
from tablectl.core.effects import Effect
from tablectl.core.events import DeviceStatus, Event
from tablectl.core.table import TableState

Submit = Callable[..., None]


class ShoeAdapter:
    def __init__(
        self, registry: DeckRegistry, submit: Submit, confirm: Callable[[ShoeMessage], None] | None = None
    ) -> None:
        self.registry = registry
        self.submit = submit
        # With a link in confirm="manual" mode: acknowledge each read to the shoe only once it is
        # journaled (the service calls back), so a crash in between loses nothing.
        self.confirm = confirm
        self._lock = threading.Lock()  # reads arrive on the link's thread, hands start on the service's
        self._hand = -1

    def on_message(self, message: ShoeMessage) -> None:
        body = message.message
        if isinstance(body, CardRead):
            with self._lock:
                # An unknown face is not a boxed card: only a face the sensor saw up is (IRR-3).
                event: Event = self.registry.card_drawn(
                    body.tag or None, face_up=body.face is Face.FACE, at=message.at
                )
            if self.confirm is not None:
                confirm = self.confirm
                self.submit(event, key=message.key, durable=lambda: confirm(message))
            else:
                self.submit(event, key=message.key)
        elif isinstance(body, ShoeState) and (body.jam or not body.deck_present):
            detail = "card jam" if body.jam else "no deck in the shoe"
            self.submit(DeviceStatus("shoe", False, detail, message.at))

    def on_status(self, status: LinkStatus) -> None:
        detail = status.detail
        if status.reads_may_be_missing:
            detail += "; reads may have been missed: check the cards dealt against the display"
        self.submit(DeviceStatus("shoe", status.ok, detail, status.at))

    def follow(self, state: TableState, effects: tuple[Effect, ...]) -> None:
        """A service sink: a new deal starts the registry's per-hand duplicate check (IRR-2)."""
        if state.hand is not None and state.hand_number != self._hand:
            with self._lock:
                self._hand = state.hand_number
                self.registry.new_hand()
