"""A restart of `tablectl serve` loses nothing a display relies on (issue 10, point 6): the real
service (start_table) with the simulated shoe on a pty, mock GPIO buttons and a real mosquitto
with the shipped ACL, stopped and started again on the same journal while the shoe stays up.

- the dealer and floor views list the rulings of the hand in progress again after the restart,
  from the journal, and they are not published again as events or alerts;
- the shoe's dropped-reads count, which it repeats on every connection, raises the alert once,
  not at every restart of the controller;
- the shoe back after a reboot that lost reads is an alert, not information.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from gpiozero.pins.mock import MockFactory

from firmware_bridge.protocol import Face
from firmware_bridge.simshoe import SimShoe
from tablectl.adapters.mqtt.broker import LocalBroker
from tablectl.core.events import CardDrawn, FloorCommand, FloorKind, to_json
from tablectl.journal.store import Journal
from tablectl.service.serve import BrokerSettings, RunningTable, start_table
from tablectl.service.tablefile import TableFile, load_table_config
from tests.helpers.bench_table import write_bench_table
from tests.helpers.brokers import Listener
from tests.helpers.child_table import Table
from tests.helpers.polling import wait_until


class Bench:
    """One table's Pi on a bench: its config file, the simulated shoe, the broker's users."""

    def __init__(self, tmp_path: Path, broker: LocalBroker, pins: MockFactory, shoe: SimShoe) -> None:
        self.tmp_path, self.broker, self.pins, self.shoe = tmp_path, broker, pins, shoe
        self.table_file: TableFile = load_table_config(write_bench_table(tmp_path, shoe.path))
        self.journal = tmp_path / "table.journal"
        self.now = [100.0]
        assert broker.credentials is not None
        self.settings = BrokerSettings(broker.host, broker.port, *broker.credentials.user("table", "1"))

    def start(self) -> RunningTable:
        running = start_table(self.table_file, self.journal, self.settings, clock=lambda: self.now[0])
        assert running.publisher.wait_connected(10.0)
        return running

    def press_new_hand(self, running: RunningTable) -> None:
        pin = self.pins.pin(25)  # deploy/table.example.toml: new_hand = 25, a long press
        pin.drive_low()
        self.now[0] += 2.0
        assert running.panel is not None
        running.panel.poll()
        pin.drive_high()

    def card_reads(self) -> int:
        with Journal(self.journal) as journal:
            return sum(isinstance(entry.event, CardDrawn) for entry in journal.events())


@pytest.fixture
def shoe(tmp_path: Path) -> Iterator[SimShoe]:
    # A stable name, as udev gives the Pi's shoe: a replugged shoe is a new pty, and the kernel
    # gives it the old number only if nothing took that number meanwhile (under load, something did).
    shoe = SimShoe(seed=5, queue_size=4, link=tmp_path / "shoe").start()
    yield shoe
    shoe.stop()


@pytest.fixture
def floor(table1_broker: LocalBroker) -> Iterator[Listener]:
    listener = Listener(table1_broker, "floor", None, topics=("cardroom/main/table/1/#",)).start()
    yield listener
    listener.stop()


def seated(running: RunningTable) -> int:
    return sum(1 for s in running.service.state.seats if s is not None and s.name)


def retained(listener: Listener, view: str, epoch: str) -> dict[str, Any] | None:
    for payload in reversed(listener.payloads(view)):
        if payload.get("epoch") == epoch:
            return payload  # type: ignore[no-any-return]
    return None


def seat_three(table1_broker: LocalBroker) -> None:
    assert table1_broker.credentials is not None
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
    client.username_pw_set(*table1_broker.credentials.user("supervisor", "ann"))
    client.connect(table1_broker.host, table1_broker.port)
    client.loop_start()
    try:
        commands = [
            FloorCommand(FloorKind.SEAT_PLAYER, "Jane", seat=s, name=n, amount=5000, at=time.time())
            for s, n in ((1, "Ann"), (2, "Bob"), (3, "Cy"))
        ]
        commands.append(FloorCommand(FloorKind.MOVE_BUTTON, "Jane", seat=3, at=time.time()))
        for command in commands:
            client.publish(
                "cardroom/main/table/1/cmd/floor/floor.ann", json.dumps(to_json(command)), qos=1
            ).wait_for_publish(5)
    finally:
        client.loop_stop()
        client.disconnect()


def alerts(floor: Listener, about: str) -> list[str]:
    """The texts of the alerts (any epoch) that name ``about`` (words of the link's detail)."""
    rulings = [p["ruling"] for p in floor.payloads("alerts") if p.get("kind") == "ruling"]
    return [r["text"] for r in rulings if r["rule"] == "INPUT" and about in r["text"]]


def rulings_of(payload: dict[str, Any] | None) -> list[tuple[Any, ...]]:
    state = (payload or {}).get("state") or {}
    return [(r["hand"], r["rule"], r["text"], r["severity"]) for r in state.get("rulings", ())]


def test_the_rulings_of_the_hand_in_progress_are_listed_again_after_a_restart(
    tmp_path: Path, table1_broker: LocalBroker, pins: MockFactory, shoe: SimShoe, floor: Listener
) -> None:
    bench = Bench(tmp_path, table1_broker, pins, shoe)
    running = bench.start()
    try:
        seat_three(table1_broker)
        assert wait_until(lambda: seated(running) == 3)
        bench.press_new_hand(running)
        assert shoe.wait_connected(10.0)
        shoe.deal(0)
        shoe.deal(1, Face.FACE)  # a boxed card (IRR-3): a ruling of hand 1
        epoch = running.publisher.epoch
        assert epoch is not None
        for view in ("dealer", "floor"):
            assert floor.wait_for(
                lambda v=view: any(r[0] == 1 for r in rulings_of(retained(floor, v, epoch)))
            )
        before = {view: rulings_of(retained(floor, view, epoch)) for view in ("dealer", "floor")}
    finally:
        running.stop()
    assert before["dealer"] and before["dealer"] == before["floor"]
    assert all(hand == 1 for hand, *_ in before["dealer"])

    running = bench.start()  # the same journal, the shoe still up
    try:
        epoch = running.publisher.epoch
        assert epoch is not None and running.service.state.hand is not None
        for view in ("dealer", "floor"):
            assert floor.wait_for(lambda v=view: retained(floor, v, epoch) is not None)
            after = retained(floor, view, epoch)
            assert rulings_of(after) == before[view]
            assert after is not None
            seqs = [r["seq"] for r in after["state"]["rulings"]]
            assert seqs == sorted(seqs) and max(seqs) < after["seq"]  # this epoch's, below the snapshot's
        # Listed again, not published again: nothing on events or alerts in the new epoch.
        assert not [p for p in floor.payloads("events") + floor.payloads("alerts") if p.get("epoch") == epoch]
    finally:
        running.stop()


def test_dropped_reads_raise_one_alert_across_restarts_of_the_controller(
    tmp_path: Path, table1_broker: LocalBroker, pins: MockFactory, shoe: SimShoe, floor: Listener
) -> None:
    bench = Bench(tmp_path, table1_broker, pins, shoe)

    running = bench.start()
    try:
        # This run's link has met this boot of the shoe (not only the shoe the line): a shoe first
        # met after the drop reports it as a count from before, not as news (a race under load).
        assert running.link.wait_connected(10.0)
        shoe.unplug()
        for card in range(10):  # the shoe keeps 4 unsent: the others are dropped
            shoe.deal(card)
        shoe.replug()
        assert floor.wait_for(lambda: len(alerts(floor, "dropped")) == 1)
        assert shoe.dropped_reads > 0
    finally:
        running.stop()
    for _restart in range(2):
        running = bench.start()
        try:
            reads = bench.card_reads()
            assert shoe.wait_connected(10.0)
            shoe.deal(20)  # after the shoe's state (it says it on connecting): a mark in the journal
            assert wait_until(lambda r=reads: bench.card_reads() > r)
            running.publisher.wait_delivered(5.0)
        finally:
            running.stop()
    assert len(alerts(floor, "dropped")) == 1, alerts(floor, "dropped")


def test_the_shoe_back_after_a_reboot_that_lost_reads_is_an_alert(
    tmp_path: Path, table1_broker: LocalBroker, pins: MockFactory, shoe: SimShoe, floor: Listener
) -> None:
    bench = Bench(tmp_path, table1_broker, pins, shoe)
    running = bench.start()
    try:
        assert running.link.wait_connected(10.0)  # this run's link has met this boot of the shoe
        shoe.reboot()  # a power cut: the reads the host had not acknowledged are gone
        shoe.deal(2)
        assert floor.wait_for(
            lambda: any("call the floor" in text for text in alerts(floor, "it restarted meanwhile"))
        )
    finally:
        running.stop()


def newest_epoch(listener: Listener, view: str) -> str | None:
    views = listener.payloads(view)
    return views[-1].get("epoch") if views else None


def test_the_rulings_of_the_hand_in_progress_survive_kill_9(
    tmp_path: Path, table1_broker: LocalBroker, shoe: SimShoe, floor: Listener
) -> None:
    # The same as above with the service killed with SIGKILL: `tablectl serve` in a child
    # process, its panel pressed by the child's mock pins, the cards from the simulated shoe.
    write_bench_table(tmp_path, shoe.path)
    table = Table(tmp_path, table1_broker)
    try:
        seat_three(table1_broker)
        assert floor.wait_for(
            lambda: (
                sum(
                    1
                    for s in (floor.payloads("public") or [{}])[-1].get("state", {}).get("seats", ())
                    if s.get("name")
                )
                == 3
            )
        )
        table.hold(25, 2.0)  # new hand: a long press (deploy/table.example.toml, hold_time 1.5)
        assert shoe.wait_connected(10.0)
        shoe.deal(0)
        shoe.deal(1, Face.FACE)  # a boxed card (IRR-3): a ruling of hand 1
        epoch = newest_epoch(floor, "dealer")
        assert epoch is not None
        assert floor.wait_for(
            lambda: any(r[1] == "IRR-3" for r in rulings_of(retained(floor, "dealer", epoch)))
        )
        before = rulings_of(retained(floor, "dealer", epoch))
        table.kill()
        table = Table(tmp_path, table1_broker)  # the same journal, the shoe still up
        assert floor.wait_for(lambda: newest_epoch(floor, "dealer") not in (None, epoch))
        again = newest_epoch(floor, "dealer")
        assert again is not None
        for view in ("dealer", "floor"):
            assert floor.wait_for(lambda v=view: rulings_of(retained(floor, v, again)) == before)
    finally:
        if table.process.poll() is None:
            table.kill()


def without_times(value: Any) -> Any:
    """The hands' record without its times: the running table stamps a step with its publisher's
    clock, the journal's fold with the time of the event."""
    if isinstance(value, dict):
        return {k: without_times(v) for k, v in value.items() if k not in ("at", "started_at", "ended_at")}
    if isinstance(value, list):
        return [without_times(v) for v in value]
    return value


def test_the_hand_in_progress_and_the_last_hands_are_replayable_after_a_restart(
    tmp_path: Path, table1_broker: LocalBroker, pins: MockFactory, shoe: SimShoe, floor: Listener
) -> None:
    import random

    from tablectl.sim.dealer import SimDealer

    bench = Bench(tmp_path, table1_broker, pins, shoe)
    running = bench.start()
    try:
        seat_three(table1_broker)
        assert wait_until(lambda: seated(running) == 3)
        dealer = SimDealer(random.Random(3))
        service = running.service
        while service.state.hand_number < 4 or service.state.hand is None or len(service.state.hand.log) < 8:
            handled = service.handled
            service.submit(dealer.next_event(service.state))
            assert wait_until(lambda h=handled: service.handled > h)
        epoch = running.publisher.epoch
        assert epoch is not None
        assert running.publisher.wait_delivered(10.0)
        # The record goes out from the publisher's tick, once a second: wait for the newest one
        # (the one the journal will rebuild), not merely this hand's.
        from tablectl.views.hands import hands_view

        newest = hands_view(running.publisher.hands, "1")
        assert floor.wait_for(lambda: (retained(floor, "hands", epoch) or {}).get("state") == newest)
        before = retained(floor, "hands", epoch)
        assert before is not None
        hands = before["state"]["hands"]
        assert before["state"]["live"] == service.state.hand_number and hands[0]["in_progress"]
        assert [h["hand"] for h in hands] == list(range(service.state.hand_number, 0, -1))
        assert all(h["end"] == "played" for h in hands[1:])
    finally:
        running.stop()

    running = bench.start()  # a restart: the record is rebuilt from the journal
    try:
        epoch = running.publisher.epoch
        assert epoch is not None
        assert floor.wait_for(lambda: retained(floor, "hands", epoch) is not None)
        after = retained(floor, "hands", epoch)
        assert after is not None
        assert without_times(after["state"]) == without_times(before["state"])
    finally:
        running.stop()
