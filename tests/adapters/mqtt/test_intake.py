"""The floor's command intake: its decisions (pure), and its process beside the table's."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import threading
import time
from collections.abc import Callable

from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from tablectl.adapters.mqtt.broker import LocalBroker
from tablectl.adapters.mqtt.commands import NO_KEY, command_key
from tablectl.adapters.mqtt.intake import Answer, CommandGate, Drop, Take
from tablectl.adapters.mqtt.ratelimit import Limit
from tablectl.adapters.mqtt.topics import Topics
from tablectl.core.events import FloorCommand, FloorKind, InputRefused, to_json
from tests.helpers.brokers import Listener, table_publisher
from tests.helpers.paths import ROOT

TOPICS = Topics("main", "1")
ANN = TOPICS.cmd_floor("floor.ann")
BOB = TOPICS.cmd_floor("floor.bob")


def payload(by: str = "Ann", **fields: object) -> bytes:
    command = FloorCommand(FloorKind.DECK_CHECK, by=by, amount=52, at=fields.pop("at", 1000.0))  # type: ignore[arg-type]
    return json.dumps({**to_json(command), **fields}).encode()


def test_the_gate_takes_a_burst_then_tells_a_flood_to_wait_once_a_second() -> None:
    gate = CommandGate(TOPICS, 120.0, Limit(burst=3, per_second=1.0), Limit(burst=100, per_second=10.0))
    now = 1000.0
    decisions = [gate.decide(ANN, payload(), False, b"c%d" % i, now) for i in range(6)]
    assert [type(d) for d in decisions] == [Take, Take, Take, Answer, Drop, Drop]
    first = decisions[0]
    assert isinstance(first, Take) and isinstance(first.event, FloorCommand)
    assert first.event.user == "floor.ann" and first.key == command_key(payload(), b"c0")
    told = decisions[3]
    assert isinstance(told, Answer) and "too many commands from floor.ann" in told.reason
    assert "send it again in 1 s" in told.reason
    # Another supervisor has a bucket of her own.
    assert isinstance(gate.decide(BOB, payload("Bob"), False, b"b", now), Take)
    # A second later: one token back, and the flood is told again after it.
    later = [type(gate.decide(ANN, payload(), False, b"d%d" % i, now + 1.0)) for i in range(3)]
    assert later == [Take, Answer, Drop]
    assert gate.limited == 5


def test_the_tables_own_cap_counts_every_sender_together() -> None:
    gate = CommandGate(TOPICS, 120.0, None, Limit(burst=2, per_second=1.0))
    now = 1000.0
    kinds = [
        type(gate.decide(TOPICS.cmd_floor(f"floor.u{i}"), payload(), False, b"x", now)) for i in range(4)
    ]
    assert kinds == [Take, Take, Answer, Answer]  # each sender told once: each its own topic
    told = gate.decide(TOPICS.cmd_floor("floor.u9"), payload(), False, b"x", now)
    assert isinstance(told, Answer) and "at this table" in told.reason


def test_the_gate_refuses_at_the_boundary_with_a_record_for_the_journal() -> None:
    gate = CommandGate(TOPICS, 120.0, None, None)
    now = 1000.0
    garbage = gate.decide(ANN, b"not json", False, None, now)
    assert isinstance(garbage, Take) and isinstance(garbage.event, InputRefused)
    assert garbage.key is None and garbage.reason is not None and "JSON" in garbage.reason
    keyless = gate.decide(
        ANN, json.dumps({"type": "floor", "kind": "deck_check", "by": "A"}).encode(), False, None, now
    )
    assert isinstance(keyless, Take) and keyless.reason == NO_KEY and isinstance(keyless.event, InputRefused)
    # Seats are checked against the table's, as its process last said.
    sit = json.dumps({**to_json(FloorCommand(FloorKind.SIT_OUT, by="A", seat=8, at=now))}).encode()
    assert isinstance(gate.decide(ANN, sit, False, None, now), Take)
    gate.seats = 6
    refused = gate.decide(ANN, sit, False, None, now)
    assert isinstance(refused, Take) and isinstance(refused.event, InputRefused)


def _send(listener: Listener, body: bytes, correlation: bytes) -> None:
    props = Properties(PacketTypes.PUBLISH)
    props.CorrelationData = correlation
    listener.client.publish(ANN, body, qos=1, properties=props)


def test_an_intake_killed_is_started_again_and_the_broker_resends_what_was_not_journaled(
    table1_broker: LocalBroker,
) -> None:
    """kill -9 of the intake process while a command waits for the journal: the table starts
    another, the broker sends the command again (never acknowledged), with the same key, and it
    is answered once it is journaled."""
    waiting: list[tuple[FloorCommand, str | None, Callable[[], None]]] = []
    arrived = threading.Condition()

    def handler(command: FloorCommand | InputRefused, key: str | None, done: Callable[[], None]) -> None:
        assert isinstance(command, FloorCommand)
        with arrived:
            waiting.append((command, key, done))
            arrived.notify_all()

    publisher = table_publisher(table1_broker, on_command=handler).start()
    try:
        assert publisher.wait_connected(10)
        intake = publisher._intake
        assert intake is not None and intake._child is not None
        first_child = intake._child
        with Listener(table1_broker, "supervisor", "ann", topics=(TOPICS.cmd_result,)) as ann:
            body = payload(at=time.time())
            _send(ann, body, b"one")
            with arrived:
                assert arrived.wait_for(lambda: len(waiting) == 1, timeout=10)
            first_child.kill()  # before the journal has it: never acknowledged
            with arrived:
                assert arrived.wait_for(lambda: len(waiting) == 2, timeout=30)
            assert intake.restarts == 1 and intake._child is not first_child
            (old, old_key, _), (again, key, done) = waiting
            assert (again, key) == (old, old_key) and key == command_key(body, b"one")
            done()  # the journal has it now
            assert ann.wait_for(lambda: len(ann.payloads("cmd_result")) == 1)
            assert ann.payloads("cmd_result")[0]["ok"]
    finally:
        publisher.stop()


CHILD = """
import sys, time
from tablectl.adapters.mqtt import TablePublisher
host, port, user, password = sys.argv[1:5]
publisher = TablePublisher("main", "1", host=host, port=int(port), username=user, password=password,
                           client_id="orphan-test", on_command=lambda command, key, done: None).start()
assert publisher.wait_connected(20)
print(publisher._intake._child.pid, flush=True)
time.sleep(600)
"""


def test_the_intake_leaves_when_the_table_process_is_killed(table1_broker: LocalBroker) -> None:
    assert table1_broker.credentials is not None
    user, password = table1_broker.credentials.user("table", "1")
    table = subprocess.Popen(
        [sys.executable, "-c", CHILD, table1_broker.host, str(table1_broker.port), user, password],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    try:
        assert table.stdout is not None
        intake_pid = int(table.stdout.readline())
        watch = os.pidfd_open(intake_pid)
        table.kill()
        table.wait(10)
        # The intake reads end-of-file on its stdin and exits: no orphan keeps the session.
        readable, _, _ = select.select([watch], [], [], 10)
        assert readable, "the intake process outlived the table's"
        os.close(watch)
    finally:
        table.kill()


def test_a_command_queued_in_a_session_from_before_the_intake_is_answered_send_it_again(
    table1_broker: LocalBroker,
) -> None:
    """A table upgraded from a version whose publisher took the commands itself: its session
    still holds the subscription and a command queued in it. The publisher refuses that one
    (the sender is told to send it again, which reaches the intake) rather than leaving it
    unanswered."""
    import paho.mqtt.client as mqtt
    from paho.mqtt.subscribeoptions import SubscribeOptions

    assert table1_broker.credentials is not None
    user, password = table1_broker.credentials.user("table", "1")
    client_id = f"upgraded-table-{os.getpid()}"
    old = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id, protocol=mqtt.MQTTv5)
    old.username_pw_set(user, password)
    subscribed = threading.Event()
    old.on_subscribe = lambda *args: subscribed.set()
    props = Properties(PacketTypes.CONNECT)
    props.SessionExpiryInterval = 600
    old.connect(table1_broker.host, table1_broker.port, clean_start=False, properties=props)
    old.loop_start()
    old.subscribe(TOPICS.cmd, options=SubscribeOptions(qos=1))
    assert subscribed.wait(10)
    old.disconnect()
    old.loop_stop()
    with Listener(table1_broker, "supervisor", "ann", topics=(TOPICS.cmd_result,)) as ann:
        _send(ann, payload(at=time.time()), b"queued")  # kept in the old session
        publisher = table_publisher(table1_broker, client_id=client_id).start()
        try:
            assert ann.wait_for(lambda: len(ann.payloads("cmd_result")) == 1)
            answer = ann.payloads("cmd_result")[0]
            assert not answer["ok"] and "send it again" in answer["error"]
            assert answer["correlation"] == b"queued".hex()
        finally:
            publisher.stop()


def test_the_dealers_commands_come_through_the_same_gate_with_a_bucket_of_their_own() -> None:
    from tablectl.core.events import DealerAction, DealerCommand

    gate = CommandGate(TOPICS, 120.0, Limit(burst=2, per_second=1.0), None)
    now = 1000.0
    call = json.dumps(to_json(DealerCommand(DealerAction.CALL_FLOOR, name="Dana", at=now))).encode()
    decisions = [gate.decide(TOPICS.cmd_dealer, call, False, b"d%d" % i, now) for i in range(3)]
    taken = decisions[0]
    assert isinstance(taken, Take) and isinstance(taken.event, DealerCommand)
    assert taken.event.user == "dealer.1" and taken.key == command_key(call, b"d0")
    told = decisions[2]
    assert isinstance(told, Answer) and "from dealer.1" in told.reason
    assert isinstance(gate.decide(ANN, payload(), False, b"a", now), Take)  # the floor's own bucket


def test_a_dealers_call_reaches_the_table_from_its_screen(table1_broker: LocalBroker) -> None:
    from tablectl.core.events import DealerAction, DealerCommand

    received: list[DealerCommand] = []
    arrived = threading.Event()

    def handler(command: object, key: str | None, done: Callable[[], None]) -> None:
        assert isinstance(command, DealerCommand)
        received.append(command)
        done()
        arrived.set()

    publisher = table_publisher(table1_broker, on_command=handler).start()
    try:
        assert publisher.wait_connected(10)
        with Listener(table1_broker, "dealer", "1", topics=(TOPICS.cmd_result,)) as screen:
            call = DealerCommand(DealerAction.CALL_FLOOR, name="Dana", reason="dispute", at=time.time())
            props = Properties(PacketTypes.PUBLISH)
            props.CorrelationData = b"call-1"
            screen.client.publish(TOPICS.cmd_dealer, json.dumps(to_json(call)), qos=1, properties=props)
            assert arrived.wait(10)
            assert screen.wait_for(lambda: len(screen.payloads("cmd_result")) == 1)
            result = screen.payloads("cmd_result")[0]
        assert (result["ok"], result["command"], result["by"], result["user"]) == (
            True,
            "call_floor",
            "Dana",
            "dealer.1",
        )
        assert [(c.action, c.name, c.user) for c in received] == [
            (DealerAction.CALL_FLOOR, "Dana", "dealer.1")
        ]
    finally:
        publisher.stop()
