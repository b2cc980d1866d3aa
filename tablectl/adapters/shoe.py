"""The shoe adapter: the serial link's messages into the controller's events.

Tag ids come off the wire; the deck registry says which card each is (or that it has a
different back, IRR-1). Every read carries the shoe's idempotency key, so a read the
shoe sends again after a lost acknowledgement is journaled once. Link losses become
device events: the dealer is told reads may have been missed. Reads the shoe reports dropped
are journaled with a key naming the shoe, its boot and the count (:func:`missed_key`): a
restarted controller reads those back (:func:`reported_missed`) so that the shoe's count,
which it repeats on every connection, is reported once, not at every restart.

When the shoe's optical sensor cannot tell a card's face (``Face.UNKNOWN``: no sensor, or it
could not see), ``face_seen`` may: a camera on the shoe's mouth that read that card face up
(tablectl.adapters.camera.MouthSightings) makes the read face up, a boxed card (IRR-3).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable
from dataclasses import replace

from firmware_bridge.link import LinkStatus, ShoeMessage
from firmware_bridge.protocol import CardRead, Face, ShoeState
from tablectl.adapters.decks import DeckRegistry
from tablectl.core.cards import Card, card_str
from tablectl.core.effects import Effect
from tablectl.core.events import DeviceStatus, Event
from tablectl.core.table import TableState

Submit = Callable[..., None]
log = logging.getLogger(__name__)

MISSED_KEY_PREFIX = "shoe-missed:"


def missed_key(serial: str, session: int, total: int) -> str:
    """The journal's idempotency key of a report that ``total`` reads of one boot of one shoe
    were missed: the same report after a restart is journaled once."""
    return f"{MISSED_KEY_PREFIX}{session}:{total}:{serial}"


def reported_missed(keys: Iterable[str]) -> dict[tuple[str, int], int]:
    """From the journal's keys: (shoe serial, boot session) -> missed reads reported so far."""
    reported: dict[tuple[str, int], int] = {}
    for key in keys:
        if not key.startswith(MISSED_KEY_PREFIX):
            continue
        session, total, serial = key.removeprefix(MISSED_KEY_PREFIX).split(":", 2)
        if session.isdigit() and total.isdigit():
            where = (serial, int(session))
            reported[where] = max(int(total), reported.get(where, 0))
    return reported


class ShoeAdapter:
    def __init__(
        self,
        registry: DeckRegistry,
        submit: Submit,
        confirm: Callable[[ShoeMessage], None] | None = None,
        face_seen: Callable[[Card | None, float], bool] | None = None,
    ) -> None:
        self.registry = registry
        self.submit = submit
        self.face_seen = face_seen  # the mouth camera's word on a face the sensor could not tell
        # With a link in confirm="manual" mode: acknowledge each read to the shoe only once it is
        # journaled (the service calls back), so a crash in between loses nothing.
        self.confirm = confirm
        self._lock = threading.Lock()  # reads arrive on the link's thread, hands start on the service's
        self._hand = -1

    def on_message(self, message: ShoeMessage) -> None:
        body = message.message
        if isinstance(body, CardRead):
            with self._lock:
                # An unknown face is not a boxed card: only a face the sensor saw up is (IRR-3),
                # or, when the sensor could not tell, one the mouth camera read.
                drawn = self.registry.card_drawn(
                    body.tag or None, face_up=body.face is Face.FACE, at=message.at
                )
            card = drawn.card
            if self.face_seen is not None:
                # Asked for every read, so that the face the camera saw at the mouth is used up by
                # the read of its card even when that read names no card of the deck.
                known = card if not drawn.foreign else None
                seen_up = self.face_seen(known, message.at)
                if seen_up and known is not None and body.face is Face.UNKNOWN:
                    drawn = replace(drawn, face_up=True)
                elif seen_up and known is not None and body.face is Face.BACK:
                    log.warning(
                        "the shoe's sensor saw the back of %s, the mouth camera its face: the sensor's "
                        "word is taken",
                        card_str(known),
                    )
            event: Event = drawn
            if self.confirm is not None:
                confirm = self.confirm
                self.submit(event, key=message.key, durable=lambda: confirm(message))
            else:
                self.submit(event, key=message.key)
        elif isinstance(body, ShoeState) and (body.jam or not body.deck_present):
            detail = "card jam" if body.jam else "no deck in the shoe"
            self.submit(DeviceStatus("shoe", False, detail, message.at))

    def on_status(self, status: LinkStatus) -> None:
        if status.kind == "reads_missed" and status.shoe is not None:
            # The shoe works (it is talking) but reads are gone: an alert, the device not lost.
            key = missed_key(status.shoe.serial, status.shoe.session, status.total)
            self.submit(DeviceStatus("shoe", True, status.detail, status.at, reads_lost=True), key=key)
            return
        self.submit(
            DeviceStatus("shoe", status.ok, status.detail, status.at, reads_lost=status.shoe_restarted)
        )

    def follow(self, state: TableState, effects: tuple[Effect, ...]) -> None:
        """A service sink: a new deal starts the registry's per-hand duplicate check (IRR-2)."""
        if state.hand is not None and state.hand_number != self._hand:
            with self._lock:
                self._hand = state.hand_number
                self.registry.new_hand()
