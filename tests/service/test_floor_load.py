"""The cards come first (issue 10, point 5): the table's devices go ahead of floor commands in
the service's queue, floor commands are limited per sender with the wait on ``cmd_result``, and
the dealer and floor snapshots are coalesced while events wait. The real service, publisher
and mosquitto."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from tablectl.adapters.mqtt import Topics
from tablectl.adapters.mqtt.broker import LocalBroker
from tablectl.core.events import (
    CardDrawn,
    DealerInput,
    DealerKey,
    DeviceStatus,
    FloorCommand,
    FloorKind,
    to_json,
)
from tablectl.core.table import TableConfig
from tablectl.service.table_service import open_service
from tablectl.sim.dealer import seated_table
from tests.helpers.brokers import Listener, table_publisher

CONFIG = TableConfig(room="main", table="1", seats=9, game="NT", blinds=(50, 100))
TOPICS = Topics("main", "1")


def deck_check(by: str) -> FloorCommand:
    return FloorCommand(FloorKind.DECK_CHECK, by=by, amount=52, at=time.time())


def test_the_devices_go_ahead_of_queued_floor_commands_each_in_its_order(tmp_path: Path) -> None:
    service = open_service(str(tmp_path / "t.journal"), seated_table(CONFIG, 3))
    try:
        for i in range(50):
            service.submit(deck_check(f"Ann {i}"))
        service.submit(DeviceStatus("camera", False, "frame timeout"))
        service.submit(DealerInput(DealerKey.NEW_HAND))
        service.submit(CardDrawn(7))
        assert service.pending() == 53
        while service.pending():
            service.process(timeout=0)
        events = [event for _, _, event, _ in service.controller.journal.events()]
        # The panel's key and the shoe's read are taken first, in the order they came; then the
        # floor's commands, in theirs.
        assert [type(e).__name__ for e in events[:3]] == ["DeviceStatus", "DealerInput", "CardDrawn"]
        assert [e.by for e in events[3:] if isinstance(e, FloorCommand)] == [f"Ann {i}" for i in range(50)]
    finally:
        service.controller.close()


def send(floor: Listener, command: FloorCommand, correlation: bytes, user: str = "floor.ann") -> None:
    props = Properties(PacketTypes.PUBLISH)
    props.CorrelationData = correlation
    floor.client.publish(
        TOPICS.cmd_floor(user), json.dumps(to_json(command)).encode(), qos=1, properties=props
    )


def test_a_flooding_sender_is_told_to_wait_and_another_supervisor_is_not(table1_broker: LocalBroker) -> None:
    taken: list[str] = []

    def handler(command: FloorCommand, key: str | None, done: Callable[[], None]) -> None:
        taken.append(command.by)
        done()

    publisher = table_publisher(table1_broker, on_command=handler).start()
    try:
        assert publisher.wait_connected(10)
        with (
            Listener(table1_broker, "supervisor", "ann", topics=(TOPICS.cmd_result,)) as ann_screen,
            Listener(table1_broker, "supervisor", "bob", topics=(TOPICS.cmd_result,)) as bob_screen,
        ):
            for i in range(45):  # a script gone wrong: 45 commands at once from one login
                send(ann_screen, deck_check("Ann"), b"ann-%02d" % i)
            burst = 30  # SENDER_LIMIT: a supervisor's real work never comes near it
            # 30 taken, then one answer that says how long to wait: a flood is told once a second.
            assert ann_screen.wait_for(lambda: len(ann_screen.payloads("cmd_result")) >= burst + 1)
            # Every one of the 45 handled (taken, refused and told, or refused unanswered):
            assert ann_screen.wait_for(
                lambda: publisher.stats.commands + publisher.stats.commands_rejected >= 45
            )
            send(bob_screen, deck_check("Bob"), b"bob", user="floor.bob")
            assert bob_screen.wait_for(
                lambda: any(r["correlation"] == b"bob".hex() for r in bob_screen.payloads("cmd_result"))
            )
            results = {r["correlation"]: r for r in ann_screen.payloads("cmd_result")}
            bob = {r["correlation"]: r for r in bob_screen.payloads("cmd_result")}
    finally:
        publisher.stop()
    ann = [results[(b"ann-%02d" % i).hex()] for i in range(burst)]
    assert all(r["ok"] for r in ann)
    rest = [results[key] for i in range(burst, 45) if (key := (b"ann-%02d" % i).hex()) in results]
    refused = [r for r in rest if not r["ok"]]
    # Told to wait, once a second: not one answer per command of the flood.
    assert refused and len(rest) < 45 - burst
    assert "too many commands from floor.ann" in refused[0]["error"]
    assert "send it again in" in refused[0]["error"]
    assert publisher.stats.commands + publisher.stats.commands_rejected == 45 + 1
    assert bob[b"bob".hex()]["ok"]
    # (a token may come back while the flood is handled: a second is long on a slow machine)
    assert burst <= taken.count("Ann") <= burst + 1 and taken[-1] == "Bob"


def test_dealer_and_floor_snapshots_coalesce_while_commands_wait(
    tmp_path: Path, table1_broker: LocalBroker
) -> None:
    service = open_service(str(tmp_path / "t.journal"), seated_table(CONFIG, 3))
    publisher = table_publisher(table1_broker, backlog=service.pending, sender_limit=None, topic_limit=None)
    service.sinks.append(publisher.publish_state)
    publisher.start()
    count = 200
    try:
        assert publisher.wait_connected(10)
        with Listener(
            table1_broker, "floor", None, topics=(TOPICS.view("floor"), TOPICS.view("dealer"))
        ) as floor:
            # 200 commands waiting at once: seat changes, each a new state for every view.
            for i in range(count):
                seat = i % 3 + 1  # the three seated players sit out, then in again
                kind = FloorKind.SIT_OUT if i % 6 < 3 else FloorKind.SIT_IN
                service.submit(FloorCommand(kind, by="Ann", seat=seat, at=time.time()))
            service.start()

            def caught_up() -> bool:
                views = floor.payloads("floor")
                return bool(views) and service.handled == count and not service.pending()

            assert floor.wait_for(caught_up, 20)
            final = publisher.retained()
            assert floor.wait_for(lambda: floor.on("floor")[-1].payload == final[TOPICS.view("floor")], 10), (
                "the newest state is the last one published"
            )
            floors, dealers = len(floor.on("floor")), len(floor.on("dealer"))
    finally:
        service.stop()
        publisher.stop()
    # Not one pair of snapshots per command: the newest state wins (at most one every 0.25 s).
    assert floors < count / 4 and dealers < count / 4, (floors, dealers)
