"""Floor commands are durable before anyone is told they were taken (issue 10, point 2), and a
stop on SIGTERM loses none (the shutdown half of point 7).

The table runs as `tablectl serve` in a child process (tests/helpers/serve_child.py) with the
simulated shoe on a pty and a real mosquitto with the shipped configuration and ACL. A floor
client with a persistent session floods it with QoS 1 commands while the test kills it
(SIGKILL at random points, then SIGTERM) and starts it again. Whatever the point: every command
answered ``ok: true`` is in the journal, every command is journaled exactly once in the end
(the broker resends what the table had not acknowledged), and a stop on SIGTERM answers every
command it journaled and exits 0 within seconds, without a traceback.
"""

from __future__ import annotations

import json
import os
import random
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from firmware_bridge.simshoe import SimShoe
from tablectl.adapters.mqtt.broker import LocalBroker
from tablectl.core.events import FloorCommand, FloorKind, to_json
from tests.helpers.bench_table import write_bench_table
from tests.helpers.child_table import Table

CMD = "cardroom/main/table/1/cmd/floor/floor.ann"
RESULT = "cardroom/main/table/1/cmd_result"
STATUS = "cardroom/main/table/1/status"


@dataclass
class Floor:
    """A floor dashboard: a persistent session, QoS 1, commands with correlation data."""

    broker: LocalBroker
    results: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # correlation hex -> answers
    sent: dict[str, str] = field(default_factory=dict)  # correlation hex -> the command's `by`
    status: str | None = None  # the table's, as last published

    def __post_init__(self) -> None:
        assert self.broker.credentials is not None
        self.changed = threading.Condition()
        self.client = mqtt.Client(
            mqtt.CallbackAPIVersion.VERSION2, client_id=f"floor-flood-{os.getpid()}", protocol=mqtt.MQTTv5
        )
        self.client.username_pw_set(*self.broker.credentials.user("supervisor", "ann"))
        self.client.max_queued_messages_set(0)
        self.client.on_message = self._on_message
        self.subscribed = threading.Event()
        self.client.on_subscribe = lambda *args: self.subscribed.set()
        props = Properties(PacketTypes.CONNECT)
        props.SessionExpiryInterval = 600
        self.client.connect(self.broker.host, self.broker.port, clean_start=False, properties=props)
        self.client.loop_start()
        self.client.subscribe([(RESULT, 1), (STATUS, 1)])
        assert self.subscribed.wait(10)

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        body = json.loads(message.payload) if message.payload else {}
        with self.changed:
            if message.topic == STATUS:
                self.status = body.get("state")
            else:
                self.results.setdefault(body["correlation"], []).append(body)
            self.changed.notify_all()

    def flood(self, count: int, start: int = 0) -> None:
        for i in range(start, start + count):
            correlation = b"flood-%05d" % i
            by = f"Ann {i:05d}"  # the journal's row says which command it is
            command = FloorCommand(FloorKind.DECK_CHECK, by=by, amount=52, at=time.time())
            payload = json.dumps(to_json(command)).encode()
            self.sent[correlation.hex()] = by
            props = Properties(PacketTypes.PUBLISH)
            props.CorrelationData = correlation
            self.client.publish(CMD, payload, qos=1, properties=props)

    def answered_ok(self) -> set[str]:
        with self.changed:
            assert all(a["ok"] for answers in self.results.values() for a in answers), self.results
            return {self.sent[c] for c in self.results}

    def wait_for(self, predicate: Callable[[], bool], timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        with self.changed:
            while not predicate():
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self.changed.wait(left)
            return True

    def stop(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def journaled(path: Path) -> list[str]:
    """The floor commands in the journal (their `by`), one per row (read with the child dead)."""
    db = sqlite3.connect(path)
    try:
        rows = db.execute("SELECT body FROM events").fetchall()
    finally:
        db.close()
    bodies = [json.loads(body) for (body,) in rows]
    return [body["by"] for body in bodies if body.get("type") == "floor"]


@pytest.fixture
def bench(tmp_path: Path, table1_broker: LocalBroker) -> Iterator[tuple[Path, LocalBroker]]:
    shoe = SimShoe(seed=3).start()
    write_bench_table(tmp_path, shoe.path)
    try:
        yield tmp_path, table1_broker
    finally:
        shoe.stop()


def test_a_command_answered_ok_survives_kill_9_and_one_not_answered_is_applied_once_later(
    bench: tuple[Path, LocalBroker],
) -> None:
    folder, broker = bench
    journal = folder / "table.journal"
    seed = random.randrange(1 << 30)
    rng = random.Random(seed)
    count = 300
    floor = Floor(broker)
    table = Table(folder, broker)
    try:
        # Once the table has subscribed (it says online after), its session keeps what it misses.
        assert floor.wait_for(lambda: floor.status == "online", 10)
        floor.flood(count)
        for _ in range(2):  # two kill -9s at random points of the flood
            point = len(floor.answered_ok()) + rng.randrange(20, 110)
            assert floor.wait_for(lambda point=point: len(floor.results) >= point, 30), f"seed {seed}"
            table.kill()
            answered, keys = floor.answered_ok(), journaled(journal)
            # Told ok: in the journal. Nothing twice.
            assert answered <= set(keys), f"seed {seed}: {len(answered - set(keys))} answered, not journaled"
            assert len(keys) == len(set(keys))
            table = Table(folder, broker)
        # Everything the dead tables had not acknowledged comes again and is applied once.
        if not floor.wait_for(lambda: len(floor.results) == count, 30):
            missing = {c for c in floor.sent if c not in floor.results}
            kept = set(journaled(journal))
            details = [(bytes.fromhex(c), floor.sent[c] in kept) for c in sorted(missing)]
            raise AssertionError(
                f"seed {seed}: not answered (correlation, journaled): {details}\n{table.log()[-3000:]}"
            )
        assert table.terminate(20) == 0
        keys = journaled(journal)
        assert sorted(keys) == sorted(floor.sent.values()), f"seed {seed}"
    finally:
        if table.process.poll() is None:
            table.kill()
        floor.stop()


def test_sigterm_stops_taking_commands_answers_all_it_journaled_and_exits_at_once(
    bench: tuple[Path, LocalBroker],
) -> None:
    folder, broker = bench
    journal = folder / "table.journal"
    seed = random.randrange(1 << 30)
    rng = random.Random(seed)
    count = 400
    floor = Floor(broker)
    table = Table(folder, broker)
    try:
        assert floor.wait_for(lambda: floor.status == "online", 10)
        floor.flood(count)
        point = rng.randrange(30, 200)
        assert floor.wait_for(lambda: len(floor.results) >= point, 30), f"seed {seed}"
        started = time.monotonic()
        assert table.terminate(20) == 0, table.log()
        assert time.monotonic() - started < 10.0
        log = table.log()
        assert "Traceback" not in log, log  # no GPIODeviceClosed while the queue drains
        assert "stopped:" in log
        keys = journaled(journal)
        # Every command the table took before the signal is journaled and answered: the answers
        # of the drain went out before the table disconnected.
        assert floor.wait_for(lambda: floor.answered_ok() == set(keys), 10), (
            f"seed {seed}: {len(set(keys) - floor.answered_ok())} journaled, not answered; "
            f"{len(floor.answered_ok() - set(keys))} answered, not journaled"
        )
        # The rest waited in the table's session for the next run.
        table = Table(folder, broker)
        assert floor.wait_for(lambda: len(floor.results) == count, 30), f"seed {seed}: {len(floor.results)}"
        assert table.terminate(20) == 0
        assert sorted(journaled(journal)) == sorted(floor.sent.values())
    finally:
        if table.process.poll() is None:
            table.kill()
        floor.stop()


def test_tablectl_serve_stops_on_sigterm_with_its_commands_answered(bench: tuple[Path, LocalBroker]) -> None:
    folder, broker = bench
    floor = Floor(broker)
    table = Table(folder, broker, cli=True)
    try:
        assert floor.wait_for(lambda: floor.status == "online", 10)
        floor.flood(10)  # within the limits: a supervisor's work
        assert floor.wait_for(lambda: len(floor.results) == 10, 10)
        assert table.terminate(10) == 0, table.log()
        log = table.log()
        assert "Traceback" not in log, log
        assert "SIGTERM: stopping" in log and "stopped: " in log
        assert floor.wait_for(lambda: floor.status == "offline", 10)
        assert sorted(journaled(folder / "table.journal")) == sorted(floor.sent.values())
        assert floor.answered_ok() == set(floor.sent.values())
    finally:
        if table.process.poll() is None:
            table.kill()
        floor.stop()
