"""The table on a real mosquitto (tests/helpers/brokers.py): status by the last will, retained snapshots,
seq and epoch, payload schemas, hole cards only on private/, commands, the delayed broadcast
feed, and a broker killed mid-hand."""

from __future__ import annotations

import gc
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from tablectl.adapters.mqtt import ALERT_SEVERITIES, Follower, TablePublisher, Topics
from tablectl.adapters.mqtt.broker import LocalBroker
from tablectl.adapters.mqtt.commands import command_key
from tablectl.cli.audit import cards_named, hands_named, secret_cards
from tablectl.core.effects import Ruling
from tablectl.core.events import CardDrawn, DeviceStatus, FloorCommand, FloorKind, InputRefused, to_json
from tablectl.core.table import TableConfig, TableState, step
from tablectl.sim.dealer import SimDealer, seated_table
from tests.helpers.brokers import Listener, running_broker, schema_for, schemas, table_publisher
from tests.helpers.paths import ROOT

CONFIG = TableConfig(room="main", table="1", seats=9, game="NT", blinds=(50, 100))
TOPICS = Topics("main", "1")


@pytest.fixture
def broker(mosquitto: None, tmp_path: Path) -> Iterator[LocalBroker]:
    with running_broker(tmp_path / "broker") as running:
        yield running


def deal(
    publisher: TablePublisher, state: TableState, sim: SimDealer, events: int, every: int = 0
) -> tuple[TableState, list[Ruling]]:
    """``events`` events through step and the publisher; every ``every``-th one the shoe is lost
    or comes back (an alert, then an event)."""
    rulings: list[Ruling] = []
    for number in range(events):
        if every and number % every == every - 1:
            shoe_ok = dict(state.devices).get("shoe", True)
            event: Any = DeviceStatus("shoe", ok=not shoe_ok, detail="test")  # lost: an alert
        else:
            event = sim.next_event(state)
        state, effects = step(state, event)
        publisher.publish_state(state, effects)
        rulings += [e for e in effects if isinstance(e, Ruling)]
    return state, rulings


# -- status ------------------------------------------------------------------------------------------

CHILD = """
import sys, time
from tablectl.adapters.mqtt import TablePublisher
p = TablePublisher("main", "1", host=sys.argv[1], port=int(sys.argv[2]), username=sys.argv[3],
                   password=sys.argv[4], client_id="child-table").start()
assert p.wait_connected(10)
print("ready", flush=True)
sys.stdin.read()
"""


def test_status_online_then_offline_by_the_last_will(broker: LocalBroker) -> None:
    assert broker.credentials is not None
    username, password = broker.credentials.user("table", "1")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with Listener(broker, "public") as display:
        child = subprocess.Popen(
            [sys.executable, "-c", CHILD, broker.host, str(broker.port), username, password],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
            text=True,
        )
        try:
            assert child.stdout is not None and child.stdout.readline().strip() == "ready"
            assert display.wait_for(lambda: any(p["state"] == "online" for p in display.payloads("status")))
            child.send_signal(signal.SIGKILL)  # no DISCONNECT: the broker publishes the will
            child.wait(10)
            assert display.wait_for(lambda: display.payloads("status")[-1]["state"] == "offline")
        finally:
            child.kill()
            child.wait()
    last = display.payloads("status")[-1]
    assert last["reason"] == "connection lost"
    validate = schemas()
    for payload in display.payloads("status"):
        validate("status", payload)
    with Listener(broker, "dealer") as late:  # a display that comes later reads the retained status
        assert late.wait_for(lambda: bool(late.on("status")))
        assert late.on("status")[0].retain and late.payloads("status")[0]["state"] == "offline"


def test_a_clean_stop_says_offline_stopped(broker: LocalBroker) -> None:
    publisher = table_publisher(broker).start()
    assert publisher.wait_connected(10)
    with Listener(broker, "floor", None) as floor:
        assert floor.wait_for(lambda: bool(floor.payloads("status")))
        publisher.stop()
        assert floor.wait_for(lambda: floor.payloads("status")[-1]["reason"] == "stopped")


# -- snapshots, seq, epoch, schemas, no hole card outside private ------------------------------------


def test_snapshots_are_retained_current_sequenced_and_match_the_schemas(broker: LocalBroker) -> None:
    validate = schemas()
    publisher = table_publisher(broker).start()
    with Listener(broker, "admin", None) as admin:
        assert publisher.wait_connected(10)
        state, rulings = deal(publisher, seated_table(CONFIG, 5), SimDealer(random.Random(3)), 400, every=37)
        assert any(r.severity in ALERT_SEVERITIES for r in rulings)
        assert publisher.wait_delivered(10)
        expected = publisher.seq
        assert admin.wait_for(lambda: admin.max_seq >= expected - 3)
    messages = [m for m in admin.messages if m.topic.startswith(TOPICS.base)]
    epochs = {m.json()["epoch"] for m in messages}
    assert epochs == {publisher.epoch}
    last_seq: dict[str, int] = {}
    for message in messages:
        payload = message.json()
        validate(schema_for(message.topic), payload)
        assert payload["seq"] > last_seq.get(message.topic, 0), message.topic  # monotonic per topic
        if payload["type"] in ("event", "alert"):
            assert payload["prev"] == last_seq.get(message.topic, 0)  # no gap while connected
        last_seq[message.topic] = payload["seq"]
        assert message.properties.ContentType == "application/json"
        if payload["type"] in ("snapshot", "hole"):
            assert message.properties.MessageExpiryInterval > 0
    all_seqs = sorted(m.json()["seq"] for m in messages)
    assert len(all_seqs) == len(set(all_seqs))  # one counter over every topic
    alerts = [m.json() for m in messages if m.topic == TOPICS.alerts]
    assert len(alerts) == sum(r.severity in ALERT_SEVERITIES for r in rulings)
    assert all(a["ruling"]["severity"] in ("floor", "void", "misdeal") for a in alerts)

    current = publisher.retained()
    with Listener(broker, "admin", None, client_id="late-admin") as late:  # retained = current
        assert late.wait_for(lambda: {m.topic for m in late.messages if m.retain} >= set(current))
        for topic, payload in current.items():
            assert [m.payload for m in late.messages if m.topic == topic and m.retain] == [payload]
    publisher.stop()


def test_no_hole_card_reaches_any_topic_but_private(broker: LocalBroker) -> None:
    """Rulings that name hole cards (a duplicate card: IRR-2) are published with the card hidden;
    the hole cards themselves appear on private/hole and nowhere else."""
    publisher = table_publisher(broker).start()
    rng = random.Random(11)
    timeline: list[tuple[int, frozenset[str]]] = []
    hidden_at_end: dict[int, frozenset[str]] = {}  # what the hands' record of a finished hand may not name
    with Listener(broker, "admin", None) as admin:
        assert publisher.wait_connected(10)
        state, sim = seated_table(CONFIG, 6), SimDealer(rng)
        for _ in range(600):
            event: Any = sim.next_event(state)
            if (
                state.hand is not None
                and state.hand.pending is None
                and state.hand.dealt
                and rng.random() < 0.05
            ):
                event = CardDrawn(rng.choice(sorted(state.hand.dealt)))
            before = state.hand
            state, effects = step(state, event)
            publisher.publish_state(state, effects)
            timeline.append((publisher.seq, secret_cards(state)))
            if before is not None and state.hand is None:
                hidden_at_end[before.number] = secret_cards(state)
        assert publisher.wait_delivered(10)
        final = publisher.seq
        assert admin.wait_for(lambda: admin.max_seq >= final)
    publisher.stop()
    private_seen = 0
    for message in admin.messages:
        if not message.topic.startswith(TOPICS.base) or not message.payload:
            continue
        payload = message.json()
        if payload.get("epoch") != publisher.epoch:
            continue  # retained by an earlier test on this broker
        # (the hands' record goes out from the publisher's tick, after the event it shows)
        secrets = next((s for hi, s in timeline if hi >= payload["seq"]), timeline[-1][1])
        if message.topic == TOPICS.private_hole:
            private_seen += 1
            continue
        named = cards_named(payload)
        if message.topic == TOPICS.hands:  # a finished hand names the cards face up in it
            named, past = hands_named(payload)
            assert all(not cards & hidden_at_end[hand] for hand, cards in past), (message.topic, payload)
        assert not named & secrets, (message.topic, payload)
    assert private_seen > 50
    assert any("[card]" in json.dumps(m.json()) for m in admin.messages if m.topic == TOPICS.alerts)


# -- the broker goes away --------------------------------------------------------------------------


def test_broker_killed_mid_hand_loses_nothing(broker: LocalBroker) -> None:
    """SIGKILL the broker mid-hand, keep dealing, start it again on the same port: publishing
    never waits; afterwards every retained snapshot is the current one and a display (a
    persistent session the broker had saved) shows every alert exactly once."""
    assert broker.folder is not None
    publisher = table_publisher(broker).start()
    display = Listener(broker, "floor", None, client_id="floor-display", persistent=True).start()
    follower = Follower()
    assert publisher.wait_connected(10)
    # The broker keeps sessions in its database: save it now (SIGUSR1), as autosave would have.
    assert broker.process is not None
    broker.process.send_signal(signal.SIGUSR1)
    database = broker.folder / "mosquitto.db"
    deadline = time.monotonic() + 10
    while not database.exists():
        assert time.monotonic() < deadline, "mosquitto did not save its database"
        time.sleep(0.01)

    state, sim = seated_table(CONFIG, 6), SimDealer(random.Random(7))
    state, rulings = deal(publisher, state, sim, 80, every=9)
    while state.hand is None or state.hand.hole_dealt == 0:  # mid-hand
        state, more = deal(publisher, state, sim, 1)
        rulings += more

    gc.disable()  # a collection pause is not the network: keep it out of the timings
    timings_up = []
    for _ in range(40):
        t0 = time.perf_counter()
        state, more = deal(publisher, state, sim, 1, every=0)
        timings_up.append(time.perf_counter() - t0)
        rulings += more
    broker.kill()
    timings_down = []
    for number in range(120):
        t0 = time.perf_counter()
        state, more = deal(publisher, state, sim, 1, every=1 if number % 10 == 0 else 0)
        timings_down.append(time.perf_counter() - t0)
        rulings += more
    gc.enable()
    # Waiting for the network would take a reconnect attempt (a second or more); a busy machine's
    # scheduling takes tens of milliseconds (0.085 s seen at a load of 8), so the bound is between.
    assert max(timings_down) < 0.5, "publish_state waited for the network"
    assert statistics.median(timings_down) < 3 * statistics.median(timings_up) + 0.001
    broker.start()
    state, more = deal(publisher, state, sim, 60, every=11)
    rulings += more
    assert publisher.wait_connected(20)
    assert publisher.wait_delivered(20)
    assert publisher.stats.disconnects >= 1 and publisher.stats.connects >= 2

    alerts_sent = sum(r.severity in ALERT_SEVERITIES for r in rulings)
    assert alerts_sent >= 10
    # The table sends its snapshots after the events and alerts queued before them: once the
    # display has the current floor snapshot, it has everything.
    floor_seq = json.loads(publisher.retained()[TOPICS.view("floor")])["seq"]
    assert display.wait_for(
        lambda: any(
            m.topic == TOPICS.view("floor") and m.json()["seq"] == floor_seq for m in display.messages[-50:]
        ),
        20,
    )
    shown: list[int] = []
    raw: list[int] = []
    for message in display.messages:
        if not message.topic.startswith(TOPICS.base) or not message.payload:
            continue
        payload = message.json()
        verdict = follower.accept(message.topic, payload)
        if message.topic == TOPICS.alerts:
            raw.append(payload["seq"])
            if verdict in ("new", "gap"):
                shown.append(payload["seq"])
        elif message.topic == TOPICS.view("floor"):
            shown += [
                r["seq"]
                for r in follower.rulings_missed(payload)
                if r["severity"] in ("floor", "void", "misdeal")
            ]
    assert len(shown) == len(set(shown)) == alerts_sent, (sorted(shown), sorted(raw))
    assert set(raw) <= set(shown)
    display.stop()

    current = publisher.retained()
    with Listener(broker, "admin", None, client_id="after-restart") as late:
        assert late.wait_for(lambda: {m.topic for m in late.messages if m.retain} >= set(current))
        for topic, payload in current.items():
            assert [m.payload for m in late.messages if m.topic == topic and m.retain] == [payload], topic
        assert late.payloads("status")[-1]["state"] == "online"
    publisher.stop()


def test_alerts_acknowledged_after_the_brokers_last_save_survive_a_kill(broker: LocalBroker) -> None:
    """mosquitto acknowledges a QoS 1 message (PUBACK) before it is on disk: it saves its
    database every autosave_interval. Killed, it comes back from its last save, without what it
    acknowledged since, and the display's queue with it. The table sends those again when it
    reconnects, so a display whose session the broker had saved still gets every alert."""
    assert broker.folder is not None and broker.process is not None
    publisher = table_publisher(broker).start()
    display = Listener(broker, "floor", None, client_id="floor-away", persistent=True).start()
    assert publisher.wait_connected(10)
    database = broker.folder / "mosquitto.db"
    broker.process.send_signal(signal.SIGUSR1)  # the broker's last save: the display's session
    deadline = time.monotonic() + 10
    while not database.exists():
        assert time.monotonic() < deadline, "mosquitto did not save its database"
        time.sleep(0.01)
    display.stop()  # away: the broker queues for its session, in memory only

    state, rulings = deal(publisher, seated_table(CONFIG, 6), SimDealer(random.Random(7)), 60, every=5)
    assert publisher.wait_delivered(10)  # every alert acknowledged by the broker
    alerts = sum(r.severity in ALERT_SEVERITIES for r in rulings)
    assert alerts >= 5
    broker.kill()
    broker.start()
    assert publisher.wait_connected(20) and publisher.wait_delivered(20)
    assert publisher.stats.replayed >= alerts

    with Listener(broker, "floor", None, client_id="floor-away", persistent=True) as back:
        floor_seq = json.loads(publisher.retained()[TOPICS.view("floor")])["seq"]
        assert back.wait_for(lambda: any(p["seq"] == floor_seq for p in back.payloads("floor")))
        follower = Follower()
        shown = [
            p["seq"] for p in back.payloads("alerts") if follower.accept(TOPICS.alerts, p) in ("new", "gap")
        ]
    assert len(shown) == len(set(shown)) == alerts
    publisher.stop()


def test_publishing_with_no_broker_at_all_never_blocks(tmp_path: Path) -> None:
    from tablectl.adapters.mqtt.broker import free_port

    publisher = TablePublisher("main", "1", host="127.0.0.1", port=free_port()).start()
    state, sim = seated_table(CONFIG, 6), SimDealer(random.Random(1))
    t0 = time.perf_counter()
    state, _ = deal(publisher, state, sim, 500)
    assert time.perf_counter() - t0 < 5.0
    assert not publisher.connected
    publisher.tick()  # the hands' record goes out from the tick
    # public, dealer, floor, summary, hands, private/hole: the newest of each
    assert len(publisher.retained()) == 6
    publisher.stop(timeout=0.1)


# -- commands --------------------------------------------------------------------------------------


def test_floor_commands_reach_the_handler_and_anything_else_is_refused(broker: LocalBroker) -> None:
    validate = schemas()
    received: list[tuple[FloorCommand, str | None]] = []
    refused: list[tuple[InputRefused, str | None]] = []
    handed_over = threading.Condition()

    def handler(command: FloorCommand | InputRefused, key: str | None, done: Callable[[], None]) -> None:
        if isinstance(command, InputRefused):  # refused at the boundary, handed over for the journal
            with handed_over:
                refused.append((command, key))
                handed_over.notify_all()
            done()  # journaled: answered and acknowledged now
            return
        if command.kind is FloorKind.KILL_HAND:
            raise ValueError("no hand in progress to kill")
        received.append((command, key))
        done()  # journaled: answered and acknowledged now

    publisher = table_publisher(broker, on_command=handler, command_max_age=60).start()
    assert publisher.wait_connected(10)
    with Listener(broker, "supervisor", "ann", topics=(TOPICS.cmd_result,)) as floor:

        def send(payload: bytes, correlation: bytes | None = None, retain: bool = False) -> None:
            props = Properties(PacketTypes.PUBLISH)
            if correlation:
                props.CorrelationData = correlation
            floor.client.publish(
                TOPICS.cmd_floor("floor.ann"), payload, qos=1, retain=retain, properties=props
            )

        void = FloorCommand(FloorKind.VOID_HAND, by="Ann")
        send(json.dumps(to_json(void)).encode(), correlation=b"\x01\x02")
        send(b"not json")
        send(json.dumps({"type": "card_drawn", "card": "As"}).encode())
        send(
            json.dumps(
                to_json(FloorCommand(FloorKind.SIT_OUT, by="Bob", seat=2, at=time.time() - 3600))
            ).encode()
        )
        kill = FloorCommand(FloorKind.KILL_HAND, by="Cy", seat=3, at=time.time())
        send(json.dumps(to_json(kill)).encode())
        send(json.dumps(to_json(FloorCommand(FloorKind.SIT_IN, by="Di", seat=2))).encode(), retain=True)
        send(b"", retain=True)  # clears the retained one
        assert floor.wait_for(lambda: len(floor.payloads("cmd_result")) >= 6)
        # The empty retained message is refused without an answer: wait for it to be handed over.
        with handed_over:
            assert handed_over.wait_for(lambda: len(refused) >= 5, timeout=10)
        results = floor.payloads("cmd_result")
    for result in results:
        validate("cmd-result", result)
    assert results[0]["ok"] and results[0]["command"] == "void_hand" and results[0]["correlation"] == "0102"
    assert floor.on("cmd_result")[0].properties.CorrelationData == b"\x01\x02"
    assert not results[1]["ok"] and "JSON" in results[1]["error"]
    assert not results[2]["ok"] and "only floor commands" in results[2]["error"]
    assert not results[3]["ok"] and "old" in results[3]["error"]
    assert not results[4]["ok"] and results[4]["error"] == "no hand in progress to kill"
    assert not results[5]["ok"] and "retained" in results[5]["error"]
    void_key = command_key(json.dumps(to_json(void)).encode(), b"\x01\x02")
    assert [(c.kind, c.by, c.user, key) for c, key in received] == [
        (FloorKind.VOID_HAND, "Ann", "floor.ann", void_key)
    ]
    assert results[0]["user"] == "floor.ann"
    # Every one refused at the boundary is handed over to be journaled, with its reason, no key.
    assert [(r.what, r.by, key) for r, key in refused] == [
        ("?", "", None),
        ("?", "", None),
        ("sit_out", "Bob", None),
        ("sit_in", "Di", None),
        ("?", "", None),  # the empty retained message that clears it
    ]
    assert [r.reason for r, _ in refused][:4] == [results[i]["error"] for i in (1, 2, 3, 5)]
    assert received[0][0].at > 0  # stamped when it arrived
    publisher.stop()


# -- the delayed broadcast feed --------------------------------------------------------------------


def test_broadcast_feed_comes_after_the_delay_and_never_during_the_hand(broker: LocalBroker) -> None:
    clock = [1_800_000_000.0]
    publisher = table_publisher(
        broker, clock=lambda: clock[0], tick_interval=None, broadcast_delay=1800, snapshot_expiry=86400
    ).start()
    assert publisher.wait_connected(10)
    with Listener(broker, "broadcast", None) as tv:
        state, sim = seated_table(CONFIG, 4), SimDealer(random.Random(5))
        while state.hand is None or state.hand.hole_dealt < 8:  # every hole card dealt
            state, effects = step(state, sim.next_event(state))
            clock[0] += 2
            publisher.publish_state(state, effects)
        hand = state.hand_number
        assert publisher.tick() == 1  # the hands' record, sent from the tick
        assert publisher.tick() == 0  # nothing is due yet
        clock[0] += 1800
        assert publisher.tick() == 0  # due, but the hand is still being played
        while state.hand is not None:
            state, effects = step(state, sim.next_event(state))
            clock[0] += 2
            publisher.publish_state(state, effects)
        released = publisher.tick() - 1  # and the hands' record, changed since the last tick
        assert released > 0
        assert publisher.wait_delivered(10)
        assert tv.wait_for(lambda: len(tv.on("broadcast/hole")) >= released)
        assert tv.payloads("broadcast/hole")[-1]["state"]["hand"] == hand
    copies = tv.payloads("broadcast/hole")
    assert all(p["ts"] - p["of_ts"] >= 1800 for p in copies)
    assert max(len(cards) for p in copies for cards in p["state"]["hole"].values()) == 2
    assert not tv.on("private/hole")  # the broadcast role never reads the live hole cards
    validate = schemas()
    for payload in copies:
        validate("broadcast-hole", payload)
    publisher.stop()


# -- a restart of the controller -------------------------------------------------------------------


def test_republish_after_a_restart_gives_a_new_epoch_and_current_snapshots(broker: LocalBroker) -> None:
    first = table_publisher(broker).start()
    assert first.wait_connected(10)
    state, _ = deal(first, seated_table(CONFIG, 5), SimDealer(random.Random(2)), 50)
    assert first.wait_delivered(10)
    first.stop()
    second = table_publisher(broker).start()  # the service restarted: the journal rebuilt `state`
    second.republish(state)
    assert second.wait_connected(10) and second.wait_delivered(10)
    assert second.epoch != first.epoch
    with Listener(broker, "dealer") as dealer_screen:
        assert dealer_screen.wait_for(lambda: len({m.topic for m in dealer_screen.messages}) >= 3)
        snapshots = {m.topic: m.json() for m in dealer_screen.messages}
    assert {p["epoch"] for p in snapshots.values()} == {second.epoch}
    assert snapshots[TOPICS.view("public")]["state"]["hand"] == state.hand_number
    second.stop()


def test_websocket_displays_and_publisher_over_websockets(mosquitto: None, tmp_path: Path) -> None:
    # mosquitto's own websockets listener (not shipped: the pages use tablectl web's relay), for
    # a publisher that can only reach its broker over websockets.
    with running_broker(tmp_path / "ws-broker", ws_port=-1) as broker:
        _publish_over_websockets(broker)


def _publish_over_websockets(broker: LocalBroker) -> None:
    publisher = table_publisher(broker, transport="websockets", port=broker.ws_port).start()
    assert publisher.wait_connected(10)
    with Listener(broker, "public") as display:
        deal(publisher, seated_table(CONFIG, 3), SimDealer(random.Random(4)), 5)
        assert display.wait_for(lambda: bool(display.payloads("public")))
    publisher.stop()
