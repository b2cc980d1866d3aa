"""Benchmark: how a display's MQTT reaches it: over TCP, over mosquitto's own websockets
listener, and over websockets through tablectl web's relay (to the same broker's TCP listener).

A floor dashboard that connects to a room of N tables first receives 2N retained messages (each
table's floor snapshot and status); then the tables' traffic arrives at a steady rate. For each
transport in turn, a fresh subscriber (the floor role, QoS 1, as a dashboard) connects while a
background publisher sends ``--rate`` messages a second over TCP the whole time, and:

- burst_s: from the SUBSCRIBE sent to the last of the 2N retained messages (burst_complete
  false: not all within ``--timeout``);
- live_p50_ms / live_p99_ms: publish to receipt of the steady messages published from
  ``--settle`` s after the burst ended, for ``--seconds`` s (a backlog left by the burst shows
  here);
- *_ratio: against TCP, the reference measured in the same run.

Also mosquitto_ws_listens_on: the addresses mosquitto's websockets listener bound (the shipped
configuration asks the test broker for 127.0.0.1). Prints one JSON object. The broker is a
throwaway mosquitto with the shipped configuration; the relay is ``tablectl web`` in its own
process, as deployed; payloads are JSON padded to ``--payload`` bytes (a floor snapshot is about
4.9 KB). Everything listens on 127.0.0.1.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import paho.mqtt.client as mqtt  # noqa: E402

from tablectl.adapters.mqtt.broker import LocalBroker, free_port  # noqa: E402

ROOM = "main"
LIVE_TABLE = "bench-live"  # the steady traffic's table, apart from the retained ones


def padded(data: dict[str, Any], size: int) -> bytes:
    text = json.dumps(data)
    return json.dumps({**data, "pad": "x" * max(0, size - len(text) - 10)}).encode()


def client(name: str, user: tuple[str, str], transport: str) -> mqtt.Client:
    made = mqtt.Client(
        mqtt.CallbackAPIVersion.VERSION2,
        client_id=f"bench-{name}-{time.monotonic_ns()}",
        protocol=mqtt.MQTTv5,
        transport="websockets" if transport != "tcp" else "tcp",
    )
    if transport != "tcp":
        made.ws_set_options(path="/mqtt")  # paho offers subprotocol "mqtt", as mqtt.js does
    made.username_pw_set(*user)
    return made


@dataclass
class Steady:
    """The background publisher: ``rate`` messages a second over TCP until stopped."""

    broker: LocalBroker
    user: tuple[str, str]
    rate: float
    size: int
    stop: threading.Event = field(default_factory=threading.Event)

    def start(self) -> Steady:
        self.thread = threading.Thread(target=self._run, daemon=True)
        if self.rate <= 0:
            return self  # an idle room: the burst alone
        self.publisher = client("steady", self.user, "tcp")
        self.publisher.connect(self.broker.host, self.broker.port)
        self.publisher.loop_start()
        self.thread.start()
        return self

    def _run(self) -> None:
        topic = f"cardroom/{ROOM}/table/{LIVE_TABLE}/floor"
        interval, due, number = 1.0 / self.rate, time.perf_counter(), 0
        while not self.stop.is_set():
            number += 1
            self.publisher.publish(topic, padded({"n": number, "sent": time.perf_counter()}, self.size), 1)
            due += interval
            # Pacing the publisher (not synchronising anything): sleep to the next send time.
            time.sleep(max(0.0, due - time.perf_counter()))

    def close(self) -> None:
        self.stop.set()
        if not self.thread.is_alive():
            return
        self.thread.join(5)
        self.publisher.disconnect()
        self.publisher.loop_stop()


@dataclass
class Measured:
    expected: int
    subscribed_at: float = 0.0
    retained: int = 0
    burst_end: float = 0.0
    live: list[tuple[float, float]] = field(default_factory=list)  # (sent, received)
    done: threading.Event = field(default_factory=threading.Event)


def measure(
    broker: LocalBroker,
    user: tuple[str, str],
    transport: str,
    port: int,
    tables: int,
    settle: float,
    seconds: float,
    timeout: float,
) -> dict[str, Any]:
    result = Measured(expected=2 * tables)
    subscriber = client(transport, user, transport)

    def on_connect(c: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        result.subscribed_at = time.perf_counter()
        c.subscribe([(f"cardroom/{ROOM}/table/+/floor", 1), (f"cardroom/{ROOM}/table/+/status", 1)])

    def on_message(c: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        now = time.perf_counter()
        if message.retain and not message.topic.startswith(f"cardroom/{ROOM}/table/{LIVE_TABLE}/"):
            result.retained += 1
            if result.retained == result.expected:
                result.burst_end = now
                result.done.set()
        elif not message.retain:
            result.live.append((json.loads(message.payload)["sent"], now))

    subscriber.on_connect = on_connect
    subscriber.on_message = on_message
    started = time.perf_counter()
    subscriber.connect(broker.host, port)
    subscriber.loop_start()
    complete = result.done.wait(timeout)
    burst_end = result.burst_end if complete else time.perf_counter()
    # Waiting out the measuring window (the steady publisher keeps sending meanwhile).
    time.sleep(settle + seconds + 0.5)
    subscriber.disconnect()
    subscriber.loop_stop()
    window = [
        (received - sent) * 1000
        for sent, received in result.live
        if burst_end + settle <= sent <= burst_end + settle + seconds
    ]
    latencies = sorted(window)
    return {
        "connect_to_burst_end_s": round(burst_end - started, 4),
        "burst_s": round(burst_end - result.subscribed_at, 4) if result.subscribed_at else None,
        "burst_complete": complete,
        "retained_received": result.retained,
        "live_samples": len(latencies),
        "live_p50_ms": round(statistics.median(latencies), 2) if latencies else None,
        "live_p99_ms": round(latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))], 2)
        if latencies
        else None,
    }


def listening_addresses(port: int) -> list[str]:
    """The local addresses with a listening TCP socket on ``port`` (from /proc/net/tcp and tcp6)."""
    found = []
    for table, family in (("/proc/net/tcp", 4), ("/proc/net/tcp6", 6)):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            local, state = line.split()[1], line.split()[3]
            address, hex_port = local.split(":")
            if state != "0A" or int(hex_port, 16) != port:  # 0A: LISTEN
                continue
            if family == 4:
                found.append(".".join(str(int(address[i : i + 2], 16)) for i in (6, 4, 2, 0)))
            else:
                found.append("::" if int(address, 16) == 0 else address)
    return sorted(set(found))


def start_relay(broker: LocalBroker) -> tuple[subprocess.Popen[str], int]:
    port = free_port()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tablectl.cli",
            "web",
            "--listen",
            f"127.0.0.1:{port}",
            "--broker",
            f"{broker.host}:{broker.port}",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert process.stdout is not None
    line = process.stdout.readline()  # printed once it listens
    if not line.startswith("tablectl web:"):
        process.kill()
        raise SystemExit(f"tablectl web did not start: {line!r}")
    return process, port


def ratio(value: float | None, reference: float | None) -> float | None:
    if value is None or not reference:
        return None
    return round(value / reference, 2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=200, help="tables in the room (2 retained each)")
    parser.add_argument("--payload", type=int, default=4900, help="bytes per floor snapshot")
    parser.add_argument("--rate", type=float, default=60.0, help="steady messages per second (0: none)")
    parser.add_argument("--settle", type=float, default=1.0, help="s after the burst before measuring")
    parser.add_argument("--seconds", type=float, default=5.0, help="s of steady traffic measured")
    parser.add_argument("--timeout", type=float, default=60.0, help="s to wait for the burst")
    parser.add_argument(
        "--transports", default="tcp,relay,mosquitto_ws", help="which to measure, TCP (the reference) first"
    )
    args = parser.parse_args()

    with LocalBroker(room=ROOM, tables=("1",), supervisors=(), persistence=False) as broker:
        assert broker.credentials is not None
        admin, floor = broker.credentials.user("admin"), broker.credentials.user("floor")
        seeder = client("seed", admin, "tcp")
        seeder.connect(broker.host, broker.port)
        seeder.loop_start()
        for number in range(args.tables):
            prefix = f"cardroom/{ROOM}/table/t{number}/"
            snapshot = padded({"type": "snapshot", "table": f"t{number}", "view": "floor"}, args.payload)
            seeder.publish(prefix + "floor", snapshot, 1, retain=True)
            info = seeder.publish(prefix + "status", json.dumps({"state": "online"}), 1, retain=True)
        info.wait_for_publish(30)
        seeder.disconnect()
        seeder.loop_stop()

        relay, relay_port = start_relay(broker)
        steady = Steady(broker, admin, args.rate, args.payload).start()
        ports = {"tcp": broker.port, "relay": relay_port, "mosquitto_ws": broker.ws_port}
        report: dict[str, Any] = {
            "tables": args.tables,
            "retained_messages": 2 * args.tables,
            "payload_bytes": args.payload,
            "rate_msg_s": args.rate,
            "machine": platform.machine(),
            "mosquitto_ws_listens_on": listening_addresses(broker.ws_port),
        }
        try:
            for transport in args.transports.split(","):
                report[transport] = measure(
                    broker,
                    floor,
                    transport,
                    ports[transport],
                    args.tables,
                    args.settle,
                    args.seconds,
                    args.timeout,
                )
        finally:
            steady.close()
            relay.terminate()
            relay.wait(10)
    reference = report.get("tcp", {})
    for transport in ("relay", "mosquitto_ws"):
        if transport in report:
            measured = report[transport]
            report[f"{transport}_burst_ratio"] = ratio(measured["burst_s"], reference.get("burst_s"))
            live = ratio(measured["live_p50_ms"], reference.get("live_p50_ms"))
            report[f"{transport}_live_p50_ratio"] = live
    print(json.dumps(report))


if __name__ == "__main__":
    main()
