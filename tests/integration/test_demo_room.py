"""The demo a newcomer sees (`tablectl run`, the README's first command), as they see it: six
tables online on the room's broker with their snapshots, the irregularities ruled on within the
first hands, and Ctrl-C (SIGINT to the terminal's process group) or SIGTERM stopping everything,
every child process gone, exit code 0."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest

from tablectl.adapters.mqtt.broker import Credentials
from tests.helpers.brokers import require_mosquitto
from tests.helpers.paths import ROOT

TABLES = [str(n) for n in range(1, 7)]
# boxed, exposed, misdeal, the other deck, the dealer calling the floor (and the floor answering)
IRREGULARITIES = {"IRR-3", "IRR-6", "MD-1", "IRR-1", "CALL"}


class DemoRoom:
    """`tablectl run --fast` in its own process group, as a terminal runs it; its output kept."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.changed = threading.Condition()
        tablectl = Path(sys.executable).parent / "tablectl"
        self.process = subprocess.Popen(
            [str(tablectl), "run", "--fast"],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            cwd=ROOT,
            start_new_session=True,
        )
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            with self.changed:
                self.lines.append(line)
                self.changed.notify_all()
        with self.changed:
            self.changed.notify_all()

    def wait_line(self, pattern: str, timeout: float) -> re.Match[str]:
        deadline = time.monotonic() + timeout
        with self.changed:
            while True:
                for line in self.lines:
                    found = re.search(pattern, line)
                    if found:
                        return found
                left = deadline - time.monotonic()
                assert left > 0 and self.process.poll() is None, "".join(self.lines)
                self.changed.wait(left)

    def output(self) -> str:
        with self.changed:
            return "".join(self.lines)


class Floor:
    """The floor dashboard's login on the room's broker: everything it receives, by topic."""

    def __init__(self, host: str, port: int, credentials: Credentials) -> None:
        self.received: list[tuple[str, Any]] = []
        self.changed = threading.Condition()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
        self.client.username_pw_set(*credentials.user("floor"))
        self.client.on_connect = lambda c, *_: c.subscribe("cardroom/main/table/+/#", qos=1)
        self.client.on_message = self._on_message
        self.client.connect(host, port)
        self.client.loop_start()

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        try:
            payload = json.loads(message.payload)
        except ValueError:
            payload = None
        with self.changed:
            self.received.append((message.topic, payload))
            self.changed.notify_all()

    def wait_for(self, predicate: Callable[[], bool], timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        with self.changed:
            while not predicate():
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self.changed.wait(left)
            return True

    def latest(self, table: str, topic: str) -> Any:
        wanted = f"cardroom/main/table/{table}/{topic}"
        found = [payload for name, payload in self.received if name == wanted]
        return found[-1] if found else None

    def rulings(self) -> set[str]:
        return {
            payload["ruling"]["rule"]
            for name, payload in self.received
            if name.rsplit("/", 1)[-1] in ("events", "alerts") and payload and payload.get("kind") == "ruling"
        }

    def stop(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def children_of(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (the tables and the broker), from /proc."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.fixture
def room() -> Iterator[DemoRoom]:
    require_mosquitto()
    room = DemoRoom()
    yield room
    if room.process.poll() is None:  # a failed test: leave nothing behind
        os.killpg(room.process.pid, signal.SIGKILL)
        room.process.wait(10)


def floor_of(room: DemoRoom) -> Floor:
    broker = room.wait_line(r"Broker: mqtt://([\d.]+):(\d+) .* in (\S+)\)", 30)
    host, port, credentials = broker.group(1), int(broker.group(2)), Credentials.read(broker.group(3))
    room.wait_line("Ctrl-C stops the room", 30)
    return Floor(host, port, credentials)


def descendants_of(pid: int) -> list[int]:
    found, todo = [], [pid]
    while todo:
        children = children_of(todo.pop())
        found += children
        todo += children
    return found


def stop_and_check(room: DemoRoom, how: Callable[[int], None]) -> None:
    children = children_of(room.process.pid)
    assert len(children) == len(TABLES) + 2, children  # the tables, mosquitto and tablectl web
    everyone = descendants_of(room.process.pid)  # with each table's command intake
    assert len(everyone) >= 2 * len(TABLES) + 2, everyone
    how(room.process.pid)
    assert room.process.wait(30) == 0, room.output()
    assert not [pid for pid in everyone if alive(pid)], room.output()
    assert "Stopped." in room.output()


def test_the_room_deals_rules_and_stops_on_ctrl_c(room: DemoRoom) -> None:
    floor = floor_of(room)
    try:

        def online_with_snapshots() -> bool:
            return all(
                (floor.latest(t, "status") or {}).get("state") == "online"
                and all(floor.latest(t, view) for view in ("public", "dealer", "floor"))
                for t in TABLES
            )

        assert floor.wait_for(online_with_snapshots, 20), room.output()
        # The pages are served, and the printed addresses log in by their fragment.
        pages = room.wait_line(r"the floor dashboard: +(http://[\d.]+:\d+)/floor#user=floor\.\w+&pass=", 5)
        with urllib.request.urlopen(pages.group(1) + "/floor", timeout=10) as answer:
            assert answer.status == 200 and b"<html" in answer.read().lower()
        # Each kind is on the first deal of some table (the schedule takes turns from each table's
        # own place in it): seen within the first hands, not by chance.
        assert floor.wait_for(lambda: floor.rulings() >= IRREGULARITIES, 20), (floor.rulings(), room.output())
        assert floor.wait_for(
            lambda: any(
                name.endswith("/events") and payload and payload.get("kind") == "hand_ended"
                for name, payload in floor.received
            ),
            20,
        )
        stop_and_check(room, lambda pid: os.killpg(pid, signal.SIGINT))  # Ctrl-C: the whole group
        assert all((floor.latest(t, "status") or {}).get("state") == "offline" for t in TABLES)
    finally:
        floor.stop()
    out = room.output()
    for table in TABLES:
        assert f"cardroom/main/table/{table}/#" in out
    assert re.search(r"table +\d+ +hand \d+: CORRECT IRR-3", out) and " ended" in out


def test_sigterm_stops_the_room(room: DemoRoom) -> None:
    floor = floor_of(room)
    try:
        assert floor.wait_for(
            lambda: all((floor.latest(t, "status") or {}).get("state") == "online" for t in TABLES), 20
        ), room.output()
    finally:
        floor.stop()
    stop_and_check(room, lambda pid: os.kill(pid, signal.SIGTERM))
