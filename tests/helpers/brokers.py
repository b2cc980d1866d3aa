"""A real mosquitto for the tests: its own process, config, users and ACL, on free ports.

``running_broker(folder, ...)`` starts mosquitto from the shipped deploy/mosquitto files
(mosquitto.conf with this machine's ports and paths, users and ACL made by mkusers) and
stops it; the ``LocalBroker`` it yields can ``kill()`` it (SIGKILL) and ``start()`` it again
on the same ports. ``Listener`` is a client as one role that records what it receives and
waits, with a timeout, for what a test expects. ``schemas()`` validates payloads against
docs/schemas.
"""

from __future__ import annotations

import json
import random
import shutil
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from tablectl.adapters.mqtt import TablePublisher
from tablectl.adapters.mqtt.broker import LocalBroker
from tests.helpers.paths import ROOT

SCHEMAS = ROOT / "docs" / "schemas"


def require_mosquitto() -> None:
    if shutil.which("mosquitto") or Path("/usr/sbin/mosquitto").exists():
        return
    # A missing broker fails the test, never skips it: `./run tests` installs Debian's mosquitto.
    pytest.fail("mosquitto is not installed: apt-get install mosquitto (./run tests does it)")


@contextmanager
def running_broker(
    folder: Path, tables: tuple[str, ...] = ("1", "2"), **options: Any
) -> Iterator[LocalBroker]:
    require_mosquitto()
    broker = LocalBroker(room="main", tables=tables, folder=folder, **options)
    broker.start()
    try:
        yield broker
    finally:
        broker.stop()


@dataclass
class Received:
    topic: str
    payload: bytes
    retain: bool
    properties: Any
    at: float
    data: Any = None  # the payload's JSON, read once

    def json(self) -> Any:
        return self.data


@dataclass
class Listener:
    """A client as one role (``role``, ``table``) subscribed to ``topics``; resubscribes on every
    connection (a restarted broker may have lost the session)."""

    broker: LocalBroker
    role: str
    table: str | None = "1"
    topics: tuple[str, ...] = ("#",)
    client_id: str | None = None
    persistent: bool = False
    messages: list[Received] = field(default_factory=list)
    connects: int = 0
    max_seq: int = 0  # the highest seq received from a table

    def __post_init__(self) -> None:
        assert self.broker.credentials is not None
        username, password = self.broker.credentials.user(self.role, self.table)
        self.changed = threading.Condition()
        self.client = mqtt.Client(
            mqtt.CallbackAPIVersion.VERSION2,
            client_id=self.client_id or f"test-{self.role}-{id(self)}",
            protocol=mqtt.MQTTv5,
        )
        self.client.username_pw_set(username, password)
        self.client.reconnect_delay_set(1, 2)
        self.client.on_connect = self._on_connect
        self.client.on_message = self._on_message
        self.client.on_subscribe = self._on_subscribe
        self.subscribed = 0

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        if not reason.is_failure:
            client.subscribe([(topic, 1) for topic in self.topics])
        with self.changed:
            self.connects += 1
            self.changed.notify_all()

    def _on_subscribe(self, client: mqtt.Client, userdata: Any, mid: int, codes: Any, props: Any) -> None:
        with self.changed:
            self.subscribed += 1
            self.changed.notify_all()

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        item = Received(
            message.topic, message.payload, bool(message.retain), message.properties, time.monotonic()
        )
        try:
            item.data = json.loads(message.payload) if message.payload else None
        except ValueError:
            item.data = None
        with self.changed:
            self.messages.append(item)
            if isinstance(item.data, dict) and isinstance(item.data.get("seq"), int):
                self.max_seq = max(self.max_seq, item.data["seq"])
            self.changed.notify_all()

    def start(self, timeout: float = 10.0) -> Listener:
        props = Properties(PacketTypes.CONNECT)
        if self.persistent:
            props.SessionExpiryInterval = 600
        self.client.connect(
            self.broker.host,
            self.broker.port,
            keepalive=10,
            clean_start=not self.persistent,
            properties=props,
        )
        self.client.loop_start()
        assert self.wait_for(lambda: self.subscribed >= 1, timeout), f"{self.role} could not subscribe"
        return self

    def stop(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()

    def wait_for(self, predicate: Callable[[], bool], timeout: float = 10.0) -> bool:
        deadline = time.monotonic() + timeout
        with self.changed:
            while not predicate():
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self.changed.wait(left)
            return True

    def on(self, suffix: str) -> list[Received]:
        with self.changed:
            return [m for m in self.messages if m.topic.endswith("/" + suffix) or m.topic == suffix]

    def payloads(self, suffix: str) -> list[Any]:
        return [m.json() for m in self.on(suffix) if m.payload]

    def __enter__(self) -> Listener:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def schemas() -> Callable[[str, Any], None]:
    """``validate(schema_file_stem, payload)`` against docs/schemas (raises on a mismatch)."""
    from jsonschema import Draft202012Validator
    from referencing import Registry, Resource

    resources = []
    for path in sorted(SCHEMAS.glob("*.json")):
        document = json.loads(path.read_text())
        resources.append((document["$id"], Resource.from_contents(document)))
    registry: Registry[Any] = Registry().with_resources(resources)
    validators = {
        uri.rsplit(":", 1)[-1]: Draft202012Validator({"$ref": uri}, registry=registry) for uri, _ in resources
    }

    def validate(name: str, payload: Any) -> None:
        validators[name].validate(payload)

    return validate


SCHEMA_OF_TOPIC = {
    "status": "status",
    "public": "snapshot-public",
    "dealer": "snapshot-dealer",
    "floor": "snapshot-floor",
    "summary": "snapshot-summary",
    "hands": "snapshot-hands",
    "private/hole": "private-hole",
    "broadcast/hole": "broadcast-hole",
    "events": "event",
    "alerts": "alert",
    "cmd_result": "cmd-result",
    "cmd/floor": "cmd-floor",
    "cmd/dealer": "cmd-dealer",
}


def schema_for(topic: str) -> str:
    rest = "/".join(topic.split("/")[4:])
    if rest.startswith("cmd/floor/"):
        rest = "cmd/floor"  # cmd/floor/<user>: one schema for every supervisor's topic
    return SCHEMA_OF_TOPIC[rest]


def table_publisher(broker: LocalBroker, table: str = "1", **options: Any) -> TablePublisher:
    """A publisher logged in as table ``table`` of room main (not started); a client id of its
    own unless ``options`` names one, so that two tests never take each other's session."""
    assert broker.credentials is not None
    username, password = broker.credentials.user("table", table)
    options.setdefault("client_id", f"test-table-{table}-{random.randrange(1 << 30)}")
    options.setdefault("port", broker.port)
    return TablePublisher("main", table, host=broker.host, username=username, password=password, **options)
