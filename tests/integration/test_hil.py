"""Hardware in the loop: the simulated shoe's firmware on a pseudo-terminal opened by pyserial,
the dealer's buttons on gpiozero's mock pins, through the real link, deck registry, service,
journal and controller, to a real mosquitto with the shipped ACL, for whole real hands with and
without line faults; a public display checks the final stacks it was shown."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory

from firmware_bridge.faults import Faults
from firmware_bridge.link import ShoeLink
from firmware_bridge.simshoe import SimShoe
from firmware_bridge.tags import tag_id
from tablectl.adapters.decks import Deck, DeckRegistry
from tablectl.adapters.mqtt import TablePublisher
from tablectl.adapters.mqtt.broker import LocalBroker
from tablectl.adapters.panel import DealerPanel, PanelConfig
from tablectl.adapters.shoe import ShoeAdapter
from tablectl.core.events import CardDrawn, DealerInput, DealerKey, Event
from tablectl.core.table import new_table
from tablectl.formats.phh import iter_sources, parse_phh
from tablectl.service.table_service import open_service
from tablectl.sim.phh_table import table_hand
from tests.helpers.brokers import Listener
from tests.helpers.paths import DATA as SHARED_DATA

DATA = SHARED_DATA / "phh"
PINS = {
    "fold": 2,
    "check_call": 3,
    "bet": 4,
    "all_in": 5,
    "confirm": 6,
    "new_hand": 7,
    "misdeal": 8,
    "exposed": 9,
}
PANEL = PanelConfig(
    buttons=PINS,
    seat_leds=(10, 11, 12, 13, 14, 15),
    plus_minus=(16, 17),
    debounce=0.02,
    hold_time=1.0,
    amount_step=1,
)
KEYS = {
    DealerKey.FOLD: "fold",
    DealerKey.CALL: "check_call",
    DealerKey.CHECK: "check_call",
    DealerKey.BET: "bet",
}


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def pump(service: Any, until: Callable[[], bool], timeout: float = 10.0) -> None:
    """Handle queued events until ``until()`` holds (waiting on the queue, never sleeping)."""
    deadline = time.monotonic() + timeout
    while not until():
        assert time.monotonic() < deadline, "timed out waiting for the table"
        service.process(timeout=0.05)


def play_hand_through_hardware(
    tmp_path: Path, pins: MockFactory, broker: LocalBroker, source: str, text: str, faults: Faults
) -> None:
    hand = parse_phh(text, source)
    table = table_hand(hand, random.Random(source))
    registry = DeckRegistry()
    registry.add_deck(Deck("sim-red", "red", {tag_id("sim-red", c): c for c in range(52)}), active=True)
    service = open_service(
        str(tmp_path / "table.journal"), new_table(table.config, table.players, table.button)
    )
    submitted: list[Event] = []

    def submit(event: Event, key: str | None = None) -> None:
        submitted.append(event)
        service.submit(event, key)

    adapter = ShoeAdapter(registry, submit)
    clock = Clock()
    panel = DealerPanel(PANEL, submit, clock=clock, timestamp=time.time)
    assert broker.credentials is not None
    username, password = broker.credentials.user("table", "1")
    publisher = TablePublisher(
        "main", "1", host=broker.host, port=broker.port, username=username, password=password
    ).start()
    display = Listener(broker, "public", "1").start()
    service.sinks += [adapter.follow, panel.follow, publisher.publish_state]
    shoe = SimShoe(seed=1, faults=faults).start()
    link = ShoeLink(shoe.path, adapter.on_message, adapter.on_status).start()
    try:
        assert link.wait_connected(10.0)

        def press(name: str, hold: float = 0.1) -> None:
            pin = pins.pin(PINS[name])
            pin.drive_low()
            clock.now += hold
            panel.poll()
            pin.drive_high()
            clock.now += 0.5

        for event in table.events:
            handled = service.controller.last_seq
            if isinstance(event, CardDrawn):
                cards_before = sum(isinstance(e, CardDrawn) for e in submitted)
                assert event.card is not None
                shoe.deal(event.card)
                pump(
                    service,
                    lambda n=cards_before: (
                        sum(isinstance(e, CardDrawn) for e in submitted) > n and service._events.empty()
                    ),
                )
                continue
            assert isinstance(event, DealerInput)
            if event.key is DealerKey.NEW_HAND:
                press("new_hand", hold=1.5)  # a long press: new hand could do harm
            elif event.key in KEYS:
                if event.key is DealerKey.BET:
                    panel.amount_entry.set(event.amount or 0)
                press(KEYS[event.key])
            else:
                submit(event)  # show and muck come from the dealer's screen, not the buttons
            pump(service, lambda n=handled: service.controller.last_seq > n and service._events.empty())
        recorded = hand.finishing_stacks or ()
        ours = [service.state.seat(k + 1).stack for k in range(len(recorded))]  # type: ignore[union-attr]
        assert all(abs(o - r) <= 0.5 for o, r in zip(ours, recorded, strict=True)), (source, ours, recorded)
        assert service.state.hand is None
        drawn = [e for e in submitted if isinstance(e, CardDrawn)]
        assert len(drawn) == sum(isinstance(e, CardDrawn) for e in table.events)  # none lost, none doubled
        assert any(e.key is DealerKey.NEW_HAND for e in submitted if isinstance(e, DealerInput))

        def display_shows_the_result() -> bool:
            views = [p["state"] for p in display.payloads("public")]
            if not views:
                return False
            seats = {s["seat"]: s.get("stack") for s in views[-1]["seats"]}
            return views[-1].get("hand") is None and all(
                abs(seats[k + 1] - r) <= 0.5 for k, r in enumerate(recorded)
            )

        assert display.wait_for(display_shows_the_result, timeout=10.0)
        assert not display.on("private/hole")  # the public role never receives hole cards
    finally:
        display.stop()
        publisher.stop()
        link.stop()
        shoe.stop()
        panel.close()
        service.controller.close()


def some_hands(count: int) -> list[tuple[str, str]]:
    hands = list(iter_sources([DATA / "wsop-2023-43"]))
    return [h for h in hands if "'NT'" in h[1] or "'FO/8'" in h[1]][:count]


@pytest.mark.parametrize("source,text", some_hands(3), ids=lambda v: Path(str(v)).name[:12])
def test_real_hands_through_shoe_and_buttons(
    tmp_path: Path, pins: MockFactory, table1_broker: LocalBroker, source: str, text: str
) -> None:
    play_hand_through_hardware(tmp_path, pins, table1_broker, source, text, Faults())


def test_a_real_hand_on_a_faulty_line(tmp_path: Path, pins: MockFactory, table1_broker: LocalBroker) -> None:
    faults = Faults(drop=0.1, corrupt=0.1, duplicate=0.1, delay=0.05, delay_ms=20, garbage=0.05)
    source, text = some_hands(1)[0]
    play_hand_through_hardware(tmp_path, pins, table1_broker, source, text, faults)
