"""Benchmark: from a card event entering the controller to the public snapshot on a display.

Prints one JSON object:
- broker_rtt_p50_ms / broker_rtt_p99_ms: the bare broker round trip measured in the same run:
  a ~300-byte JSON message published at QoS 1 (TCP_NODELAY) to a subscriber in another process;
- e2e_p50_ms / e2e_p99_ms: from a card drawn from the shoe entering Controller.handle (the
  journal, durable, then the pure step) through TablePublisher.publish_state (the views, JSON)
  and the broker, to the public snapshot reaching that subscriber; over >= 2,000 card events;
- e2e_p50_ratio / e2e_p99_ratio: e2e over the bare round trip;
- journal_p50_ms: the journal's share (one fsync per event, synchronous=FULL);
- e2e_step_*: the same from tablectl.core.table.step, without the journal;
- rss_mb / peak_rss_mb: resident memory of this process (controller, publisher, paho).
Goals: e2e p50 within 3x the bare round trip, p99 under 10 ms, memory under 80 MB.

The broker is a throwaway mosquitto with the shipped configuration (deploy/mosquitto); the
subscriber runs in a child process (a display is another process, on another machine): both
sides time with the same monotonic clock.
"""

from __future__ import annotations

import json
import platform
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import paho.mqtt.client as mqtt  # noqa: E402

from tablectl.adapters.mqtt import TablePublisher, Topics  # noqa: E402
from tablectl.adapters.mqtt.broker import LocalBroker  # noqa: E402
from tablectl.core.events import CardDrawn  # noqa: E402
from tablectl.core.table import TableConfig, step  # noqa: E402
from tablectl.journal import Controller  # noqa: E402
from tablectl.journal.snapshot import table_restore, table_snapshot  # noqa: E402
from tablectl.sim.dealer import SimDealer, seated_table  # noqa: E402

CARD_EVENTS = 2000
RTT_SAMPLES = 2000


def subscriber(host: str, port: int, username: str, password: str, topic: str) -> None:
    """The display: prints "seq monotonic-time" for every message on ``topic``."""
    out = sys.stdout
    lock = threading.Lock()

    def on_socket_open(client: mqtt.Client, userdata: Any, sock: Any) -> None:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def on_message(client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        now = time.perf_counter()
        seq = json.loads(message.payload)["seq"]  # a display reads the payload
        with lock:
            out.write(f"{seq} {now!r}\n")
            out.flush()

    def on_connect(client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        client.subscribe(topic, qos=1)

    def on_subscribe(client: mqtt.Client, userdata: Any, mid: int, codes: Any, props: Any) -> None:
        out.write("ready\n")
        out.flush()

    client = mqtt.Client(
        mqtt.CallbackAPIVersion.VERSION2, client_id=f"bench-display-{topic}", protocol=mqtt.MQTTv5
    )
    client.username_pw_set(username, password)
    client.on_socket_open = on_socket_open
    client.on_message = on_message
    client.on_connect = on_connect
    client.on_subscribe = on_subscribe
    client.connect(host, port)
    client.loop_forever()


class Display:
    """The subscriber process, and the arrival time of each seq it reports."""

    def __init__(self, broker: LocalBroker, role: str, topic: str) -> None:
        assert broker.credentials is not None
        username, password = broker.credentials.user(role, "1")
        self.process = subprocess.Popen(
            [
                sys.executable,
                __file__,
                "--subscriber",
                broker.host,
                str(broker.port),
                username,
                password,
                topic,
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None
        if self.process.stdout.readline().strip() != "ready":
            raise RuntimeError("the subscriber did not start")
        self.arrived: dict[int, float] = {}
        self.changed = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            seq, at = line.split()
            with self.changed:
                self.arrived[int(seq)] = float(at)
                self.changed.notify_all()

    def wait(self, seq: int, timeout: float = 5.0) -> float:
        with self.changed:
            if not self.changed.wait_for(lambda: seq in self.arrived, timeout):
                raise RuntimeError(f"seq {seq} never arrived")
            return self.arrived[seq]

    def close(self) -> None:
        self.process.kill()
        self.process.wait()


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def bare_round_trip(broker: LocalBroker) -> list[float]:
    """Publish ~300-byte JSON at QoS 1 from this process to the display process, one at a time."""
    assert broker.credentials is not None
    topic = Topics("main", "1").events
    display = Display(broker, "dealer", topic)
    username, password = broker.credentials.user("table", "1")
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="bench-bare", protocol=mqtt.MQTTv5)
    client.username_pw_set(username, password)
    client.on_socket_open = lambda c, u, sock: sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    connected = threading.Event()
    client.on_connect = lambda c, u, f, r, p: connected.set()
    client.connect(broker.host, broker.port)
    client.loop_start()
    connected.wait(10)
    filler = "x" * 200
    samples = []
    try:
        for seq in range(1, RTT_SAMPLES + 101):
            payload = json.dumps(
                {
                    "schema": 1,
                    "type": "event",
                    "room": "main",
                    "table": "1",
                    "seq": seq,
                    "ts": time.time(),
                    "text": filler,
                }
            ).encode()
            t0 = time.perf_counter()
            client.publish(topic, payload, qos=1)
            arrived = display.wait(seq)
            if seq > 100:  # the first ones warm up the connections
                samples.append(arrived - t0)
    finally:
        client.disconnect()
        client.loop_stop()
        display.close()
    return samples


def end_to_end(broker: LocalBroker, folder: Path, journal_on: bool = True) -> dict[str, Any]:
    assert broker.credentials is not None
    topics = Topics("main", "1")
    display = Display(broker, "public", topics.view("public"))
    username, password = broker.credentials.user("table", "1")
    publisher = TablePublisher(
        "main",
        "1",
        host=broker.host,
        port=broker.port,
        username=username,
        password=password,
        client_id="bench-table",
    ).start()
    assert publisher.wait_connected(10)
    config = TableConfig(room="main", table="1", seats=9, game="NT", blinds=(50, 100))
    start = seated_table(config, 6)
    controller = Controller.open(
        folder / f"table-{journal_on}.journal",
        config,
        step,
        start,
        snapshot_of=table_snapshot,
        restore=table_restore,
    )
    state = start
    dealer = SimDealer(random.Random(2026))
    samples: list[float] = []
    journal: list[float] = []
    sizes: list[int] = []
    events = 0
    try:
        while len(samples) < CARD_EVENTS:
            event = dealer.next_event(state)
            before = publisher.retained().get(topics.view("public"))
            t0 = time.perf_counter()
            if journal_on:
                effects = controller.handle(event)
                state = controller.state
            else:
                state, effects = step(state, event)
            t1 = time.perf_counter()
            publisher.publish_state(state, effects)
            events += 1
            after = publisher.retained().get(topics.view("public"))
            if after is None or after is before:
                continue  # the public view did not change
            seq = json.loads(after)["seq"]
            arrived = display.wait(seq)
            if isinstance(event, CardDrawn) and events > 50:
                samples.append(arrived - t0)
                journal.append(t1 - t0)
                sizes.append(len(after))
    finally:
        publisher.stop()
        controller.close()
        display.close()
    return {"samples": samples, "journal": journal, "events": events, "sizes": sizes}


def memory_mb() -> tuple[float, float]:
    status = Path("/proc/self/status").read_text()
    values = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    return int(values["VmRSS"].split()[0]) / 1024, int(values["VmHWM"].split()[0]) / 1024


def main() -> None:
    with tempfile.TemporaryDirectory() as folder, LocalBroker(folder=Path(folder) / "broker") as broker:
        bare = bare_round_trip(broker)
        e2e = end_to_end(broker, Path(folder))
        e2e_step = end_to_end(broker, Path(folder), journal_on=False)
    rss, peak = memory_mb()
    rtt_p50, rtt_p99 = percentile(bare, 50) * 1000, percentile(bare, 99) * 1000
    e2e_p50, e2e_p99 = percentile(e2e["samples"], 50) * 1000, percentile(e2e["samples"], 99) * 1000
    step_p50, step_p99 = (
        percentile(e2e_step["samples"], 50) * 1000,
        percentile(e2e_step["samples"], 99) * 1000,
    )
    print(
        json.dumps(
            {
                "broker_rtt_p50_ms": round(rtt_p50, 3),
                "broker_rtt_p99_ms": round(rtt_p99, 3),
                "e2e_p50_ms": round(e2e_p50, 3),
                "e2e_p99_ms": round(e2e_p99, 3),
                "e2e_p50_ratio": round(e2e_p50 / rtt_p50, 2),
                "e2e_p99_ratio": round(e2e_p99 / rtt_p99, 2),
                "journal_p50_ms": round(statistics.median(e2e["journal"]) * 1000, 3),
                "e2e_step_p50_ms": round(step_p50, 3),
                "e2e_step_p99_ms": round(step_p99, 3),
                "e2e_step_p50_ratio": round(step_p50 / rtt_p50, 2),
                "card_events": len(e2e["samples"]),
                "events": e2e["events"],
                "rtt_samples": len(bare),
                "public_snapshot_bytes_p50": int(statistics.median(e2e["sizes"])),
                "rss_mb": round(rss, 1),
                "peak_rss_mb": round(peak, 1),
                "goal_p50_within_3x": e2e_p50 <= 3 * rtt_p50,
                "goal_step_p50_within_3x": step_p50 <= 3 * rtt_p50,
                "goal_p99_under_10ms": e2e_p99 < 10,
                "goal_rss_under_80mb": peak < 80,
                "python": platform.python_version(),
                "machine": platform.machine(),
            }
        )
    )


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--subscriber":
        subscriber(sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5], sys.argv[6])
    else:
        if len(sys.argv) > 2 and sys.argv[1] == "--cards":  # fewer samples (tests/test_benchmarks.py)
            CARD_EVENTS = RTT_SAMPLES = int(sys.argv[2])
        main()
