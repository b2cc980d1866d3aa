"""Benchmark: the cards come first, whatever the floor sends (issue 10, point 5).

The real table service (journal on disk, synchronous=FULL) with the real publisher as its sink,
on a throwaway mosquitto with the shipped configuration; a floor client floods ``cmd/floor``
with QoS 1 commands (each acknowledged by the table only once journaled) while the shoe's reads
come in. Prints one JSON object:
- card_idle_p50_ms / card_idle_p99_ms: a card read's latency with no command in flight, measured
  from TableService.submit (what the shoe adapter calls when a CARD_READ frame is decoded) to
  its durable callback (the row committed: when the shoe is acknowledged); over --cards reads;
- card_flood_p50_ms / card_flood_p99_ms: the same while --commands floor commands, all from one
  sender, arrive as fast as the broker delivers them, the rate limits off (the worst case: every
  one is journaled); card_flood_p99_ratio: over the idle p99 (goal: within 2x);
- commands_per_s: floor commands journaled and answered ok per second during the flood;
- limited_*: the same flood with the shipped per-sender limits: most are refused at once,
  with the wait on cmd_result, and never reach the journal;
- dealer_snapshots: dealer snapshots published during the unlimited flood (coalesced).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import paho.mqtt.client as mqtt  # noqa: E402
from paho.mqtt.packettypes import PacketTypes  # noqa: E402
from paho.mqtt.properties import Properties  # noqa: E402

from tablectl.adapters.mqtt import TablePublisher, Topics  # noqa: E402
from tablectl.adapters.mqtt.broker import LocalBroker  # noqa: E402
from tablectl.core.events import CardDrawn, FloorCommand, FloorKind, to_json  # noqa: E402
from tablectl.core.table import TableConfig  # noqa: E402
from tablectl.service.table_service import TableService, open_service  # noqa: E402
from tablectl.sim.dealer import SimDealer, seated_table  # noqa: E402

TOPICS = Topics("main", "1")
CONFIG = TableConfig(room="main", table="1", seats=9, game="NT", blinds=(50, 100))


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q / 100))]


class FloorFlood:
    """A floor client sending ``count`` commands at once and counting the answers."""

    def __init__(self, broker: LocalBroker, count: int) -> None:
        assert broker.credentials is not None
        self.count = count
        self.ok = 0
        self.refused = 0
        self.done = threading.Event()
        self.first: float | None = None
        self.last = 0.0
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
        self.client.username_pw_set(*broker.credentials.user("floor", None))
        self.client.max_queued_messages_set(0)
        self.client.on_message = self._on_message
        subscribed = threading.Event()
        self.client.on_subscribe = lambda *args: subscribed.set()
        self.client.connect(broker.host, broker.port)
        self.client.loop_start()
        self.client.subscribe(TOPICS.cmd_result, qos=1)
        assert subscribed.wait(10)

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        body = json.loads(message.payload)
        now = time.perf_counter()
        self.first = self.first or now
        self.last = now
        if body["ok"]:
            self.ok += 1
        else:
            self.refused += 1
        if self.ok + self.refused >= self.count:
            self.done.set()

    def send(self) -> None:
        for i in range(self.count):
            props = Properties(PacketTypes.PUBLISH)
            props.CorrelationData = b"bench-%06d" % i
            command = FloorCommand(FloorKind.DECK_CHECK, by="Floor Ann", amount=52, at=time.time())
            self.client.publish(
                TOPICS.cmd_floor, json.dumps(to_json(command)).encode(), qos=1, properties=props
            )

    def stop(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def card_latencies(
    service: TableService, dealer: SimDealer, cards: int, until: threading.Event | None
) -> list[float]:
    """Feed the dealer's events one at a time (submit, wait for durable); the card reads' latencies.
    With ``until``: as long as it is not set (and at least a few reads)."""
    samples: list[float] = []
    durable = threading.Event()
    while len(samples) < cards if until is None else not until.is_set() or len(samples) < 20:
        event = dealer.next_event(service.state)
        durable.clear()
        t0 = time.perf_counter()
        service.submit(event, durable=durable.set)
        assert durable.wait(30), "the service stopped"
        if isinstance(event, CardDrawn):
            samples.append(time.perf_counter() - t0)
        time.sleep(0.002)  # a shoe deals a card every second or so: leave the floor its share
    return samples


def run(broker: LocalBroker, folder: Path, commands: int, cards: int, limited: bool) -> dict[str, Any]:
    assert broker.credentials is not None
    username, password = broker.credentials.user("table", "1")
    service = open_service(str(folder / f"table-{limited}.journal"), seated_table(CONFIG, 6))
    options: dict[str, Any] = {} if limited else {"sender_limit": None, "topic_limit": None}

    def on_command(command: FloorCommand, key: str | None, done: Any) -> None:
        service.submit(command, key, durable=done)

    publisher = TablePublisher(
        "main",
        "1",
        host=broker.host,
        port=broker.port,
        username=username,
        password=password,
        client_id=f"bench-table-{limited}",
        on_command=on_command,
        backlog=service.pending,
        **options,
    )
    service.sinks.append(publisher.publish_state)
    publisher.start()
    assert publisher.wait_connected(10)
    service.start()
    assert service.ready.wait(30) and service.error is None, service.error
    dealer = SimDealer(random.Random(2026))
    try:
        idle = card_latencies(service, dealer, cards, None)
        flood = FloorFlood(broker, commands)
        published = publisher.stats.published
        sender = threading.Thread(target=flood.send)
        sender.start()
        busy = card_latencies(service, dealer, cards, flood.done)
        sender.join()
        assert flood.done.wait(60)
        span = (flood.last - flood.first) if flood.first else 0.0
        flood.stop()
        sent_during = publisher.stats.published - published
    finally:
        service.stop()
        publisher.stop()
    return {
        "idle": idle,
        "flood": busy,
        "ok": flood.ok,
        "refused": flood.refused,
        "commands_per_s": flood.ok / span if span else 0.0,
        "published_during_flood": sent_during,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commands", type=int, default=3000, help="floor commands in the flood")
    parser.add_argument("--cards", type=int, default=500, help="card reads measured while idle")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder, LocalBroker(folder=Path(folder) / "broker") as broker:
        full = run(broker, Path(folder), args.commands, args.cards, limited=False)
        limited = run(broker, Path(folder), args.commands, args.cards, limited=True)

    def ms(values: list[float], q: float) -> float:
        return round(percentile(values, q) * 1000, 3)

    print(
        json.dumps(
            {
                "measured": "TableService.submit -> durable callback (the journal row committed)",
                "card_idle_p50_ms": ms(full["idle"], 50),
                "card_idle_p99_ms": ms(full["idle"], 99),
                "card_flood_p50_ms": ms(full["flood"], 50),
                "card_flood_p99_ms": ms(full["flood"], 99),
                "card_flood_p99_ratio": round(ms(full["flood"], 99) / ms(full["idle"], 99), 2),
                "cards_idle": len(full["idle"]),
                "cards_flood": len(full["flood"]),
                "commands": args.commands,
                "commands_ok": full["ok"],
                "commands_per_s": round(full["commands_per_s"], 1),
                "messages_published_during_flood": full["published_during_flood"],
                "limited_card_flood_p99_ms": ms(limited["flood"], 99),
                "limited_commands_ok": limited["ok"],
                "limited_commands_refused": limited["refused"],
                "card_idle_mean_ms": round(statistics.fmean(full["idle"]) * 1000, 3),
            }
        )
    )


if __name__ == "__main__":
    main()
