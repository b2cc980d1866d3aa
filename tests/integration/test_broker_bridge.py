"""A table's mosquitto bridged to the card room's central mosquitto, both real processes from the
shipped deploy/mosquitto files: the table's local broker runs bridge.conf rendered as the README's
installer line does (sed), the central broker is made by mkusers for the same room and table, so
the bridge logs in there as table.<T> with the central broker's password, as in production."""

from __future__ import annotations

import json
import random
import signal
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tablectl.adapters.mqtt import ALERT_SEVERITIES, Follower, TablePublisher, Topics
from tablectl.adapters.mqtt.broker import LocalBroker
from tablectl.core.events import DeviceStatus
from tablectl.core.table import TableConfig, TableState, step
from tablectl.sim.dealer import SimDealer, seated_table
from tests.helpers.bridge import Rig, bridge_topics, bridged_rig, render_bridge
from tests.helpers.brokers import Listener, table_publisher

CONFIG = TableConfig(room="main", table="1", seats=9, game="NT", blinds=(50, 100))
TOPICS = Topics("main", "1")


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Rig]:
    with bridged_rig(tmp_path) as rig:
        yield rig


def test_every_topic_the_table_publishes_crosses_the_bridge_and_only_commands_come_in(tmp_path: Path) -> None:
    """bridge.conf lists the topics by hand: a topic added to the table and forgotten there would
    reach the floor on a table's own Pi but never the central dashboards."""
    from paho.mqtt.client import topic_matches_sub

    local = LocalBroker(room="main", tables=("1",), folder=tmp_path / "table")
    central = LocalBroker(room="main", tables=("1",), folder=tmp_path / "central")
    local.prepare()
    central.prepare()
    topics = bridge_topics(render_bridge(central, local))
    missing = [t for t in TOPICS.all_published() if not any(topic_matches_sub(p, t) for p in topics["out"])]
    assert not missing, f"bridge.conf does not send these out: {missing}"
    assert topics["both"] == []
    assert sorted(topics["in"]) == sorted([TOPICS.cmd, TOPICS.cmd_dealer])


def deal(
    publisher: TablePublisher, state: TableState, sim: SimDealer, events: int, every: int = 0
) -> TableState:
    """``events`` events through step and the publisher; every ``every``-th one the shoe is lost
    (an alert) or comes back."""
    for number in range(events):
        if every and number % every == every - 1:
            event: Any = DeviceStatus("shoe", ok=not dict(state.devices).get("shoe", True), detail="test")
        else:
            event = sim.next_event(state)
        state, effects = step(state, event)
        publisher.publish_state(state, effects)
    return state


def link_state(listener: Listener) -> bytes | None:
    """The last notification of the bridge (bridge.conf's notification_topic): b"1" up, b"0" down."""
    states = [m.payload for m in listener.on("bridge")]
    return states[-1] if states else None


def latest_public_seq(publisher: TablePublisher) -> int:
    return int(json.loads(publisher.retained()[TOPICS.view("public")])["seq"])


def public_seqs(listener: Listener) -> list[int]:
    return [p["seq"] for p in listener.payloads("public")]


def test_the_floor_sees_the_tables_public_snapshot_and_alerts_through_the_bridge(rig: Rig) -> None:
    floor = Listener(rig.central, "floor", None, client_id="central-floor").start()
    table_admin = Listener(rig.local, "admin", None, topics=(TOPICS.base + "#",)).start()
    publisher = table_publisher(rig.local).start()
    try:
        assert floor.wait_for(lambda: link_state(floor) == b"1", 15), rig.bridge_log()
        assert publisher.wait_connected(10)
        deal(publisher, seated_table(CONFIG, 6), SimDealer(random.Random(5)), 150, every=13)
        assert publisher.wait_delivered(10)
        last = publisher.seq
        assert table_admin.wait_for(lambda: table_admin.max_seq >= last)  # what the table published
        latest = latest_public_seq(publisher)
        assert floor.wait_for(lambda: latest in public_seqs(floor), 15), rig.bridge_log()
        sent = sorted(p["seq"] for p in table_admin.payloads("alerts"))
        assert len(sent) >= 5
        assert floor.wait_for(lambda: len(floor.payloads("alerts")) >= len(sent), 15)
        assert sorted(p["seq"] for p in floor.payloads("alerts")) == sent
        assert {p["ruling"]["severity"] for p in floor.payloads("alerts")} <= {
            s.value for s in ALERT_SEVERITIES
        }
        # The central broker holds the table's current public snapshot, retained: a dashboard
        # that subscribes now gets it, with its message expiry and content type (MQTT 5 bridge).
        with Listener(rig.central, "floor", None, client_id="late-floor") as late:
            public = TOPICS.view("public")
            assert late.wait_for(lambda: any(m.topic == public and m.retain for m in late.messages))
            retained = [m for m in late.messages if m.topic == public]
            assert [m.payload for m in retained] == [publisher.retained()[public]]
            assert retained[0].properties.ContentType == "application/json"
            assert retained[0].properties.MessageExpiryInterval > 0
    finally:
        publisher.stop()
        table_admin.stop()
        floor.stop()


def test_store_and_forward_while_the_central_broker_is_down(rig: Rig) -> None:
    """SIGKILL the central broker mid-hand, keep dealing at the table (its broker queues for the
    bridge), start the central broker again on the same port: the floor gets the current public
    snapshot and every alert of the outage, each once after dropping repeats."""
    floor = Listener(rig.central, "floor", None, client_id="central-floor", persistent=True).start()
    table_admin = Listener(rig.local, "admin", None, topics=(TOPICS.base + "#",)).start()
    publisher = table_publisher(rig.local).start()
    try:
        assert floor.wait_for(lambda: link_state(floor) == b"1", 15), rig.bridge_log()
        assert publisher.wait_connected(10)
        state, sim = seated_table(CONFIG, 6), SimDealer(random.Random(7))
        state = deal(publisher, state, sim, 60, every=9)
        while state.hand is None or state.hand.hole_dealt == 0:  # mid-hand
            state = deal(publisher, state, sim, 1)
        assert publisher.wait_delivered(10)
        before = latest_public_seq(publisher)
        assert floor.wait_for(lambda: before in public_seqs(floor), 15), rig.bridge_log()

        # The floor's session (persistent) must outlive the crash: save the central database now,
        # as its autosave would have (SIGUSR1), and wait for the file.
        assert rig.central.process is not None and rig.central.folder is not None
        database = rig.central.folder / "mosquitto.db"
        rig.central.process.send_signal(signal.SIGUSR1)
        deadline = time.monotonic() + 10
        while not database.exists():
            assert time.monotonic() < deadline, "the central mosquitto did not save its database"
            time.sleep(0.01)  # polling for the file, with a deadline
        rig.central.kill()
        killed_at_seq = publisher.seq
        # The table's broker says so on its own bridge topic ("0"): from now on it queues.
        assert table_admin.wait_for(lambda: link_state(table_admin) == b"0", 10), rig.bridge_log()

        state = deal(publisher, state, sim, 200, every=7)
        assert publisher.wait_delivered(10)  # the table's broker took everything
        last = publisher.seq
        assert table_admin.wait_for(lambda: table_admin.max_seq >= last)  # what the table published
        assert link_state(table_admin) == b"0", "the central broker was down the whole time"
        outage_alerts = sorted(p["seq"] for p in table_admin.payloads("alerts") if p["seq"] > killed_at_seq)
        assert len(outage_alerts) >= 10

        rig.central.start()
        restarted_at = len(floor.messages)
        # The bridge reconnects (restart_timeout 2 30): the table's broker says "1" again.
        assert table_admin.wait_for(lambda: link_state(table_admin) == b"1", 45), rig.bridge_log()
        latest = latest_public_seq(publisher)
        assert floor.wait_for(lambda: latest in public_seqs(floor), 20), rig.bridge_log()
        assert floor.wait_for(
            lambda: {p["seq"] for p in floor.payloads("alerts")} >= set(outage_alerts), 20
        ), (
            sorted({p["seq"] for p in floor.payloads("alerts")} & set(outage_alerts)),
            outage_alerts,
            rig.bridge_log(),
        )

        # Sent by the bridge after the restart, not before the crash.
        assert all(
            index >= restarted_at
            for index, m in enumerate(floor.messages)
            if m.topic == TOPICS.alerts and m.json()["seq"] > killed_at_seq
        )
        follower = Follower()
        shown: list[int] = []
        for message in floor.messages:
            if message.topic == TOPICS.bridge or not message.payload:
                continue
            verdict = follower.accept(message.topic, message.json())
            if message.topic == TOPICS.alerts and verdict in ("new", "gap"):
                shown.append(message.json()["seq"])
        assert sorted(s for s in shown if s > killed_at_seq) == outage_alerts  # each once
        # The retained public snapshot on the central broker is the table's latest.
        with Listener(rig.central, "floor", None, client_id="late-floor") as late:
            public = TOPICS.view("public")
            assert late.wait_for(lambda: any(m.topic == public and m.retain for m in late.messages))
            assert [p["seq"] for p in late.payloads("public")] == [latest_public_seq(publisher)]
    finally:
        publisher.stop()
        table_admin.stop()
        floor.stop()


def test_a_supervisors_command_on_the_central_broker_reaches_the_table_as_hers(rig: Rig) -> None:
    """bridge.conf carries cmd/floor/+ in, each command on its sender's topic: the table on its
    own broker journals the user the central broker's ACL vouched for."""
    from tablectl.core.events import FloorCommand, FloorKind, to_json

    received: list[FloorCommand] = []
    publisher = table_publisher(rig.local)

    def take(command: FloorCommand, key: str | None, done: Callable[[], None]) -> None:
        received.append(command)
        done()  # as the journal would, once the command is in it

    publisher.on_command = take
    publisher.start()
    ann = Listener(rig.central, "supervisor", "ann", topics=(TOPICS.cmd_result, TOPICS.bridge)).start()
    try:
        assert publisher.wait_connected(10)
        assert ann.wait_for(lambda: link_state(ann) == b"1", 15), rig.bridge_log()
        command = FloorCommand(FloorKind.DECK_CHECK, "Ann Smith", amount=52, at=time.time())
        # The bridge's subscription on the central broker may be a moment behind the link: send
        # until the table answers (each send is a fresh command; the answer is what is waited on).
        deadline = time.monotonic() + 15
        while not ann.payloads("cmd_result") and time.monotonic() < deadline:
            ann.client.publish(TOPICS.cmd_floor("floor.ann"), json.dumps(to_json(command)), qos=1)
            ann.wait_for(lambda: bool(ann.payloads("cmd_result")), 1.0)
        results = ann.payloads("cmd_result")
        assert results, rig.bridge_log()
        assert (results[0]["ok"], results[0]["by"], results[0]["user"]) == (True, "Ann Smith", "floor.ann")
        assert received and {(c.by, c.user) for c in received} == {("Ann Smith", "floor.ann")}
    finally:
        ann.stop()
        publisher.stop()
