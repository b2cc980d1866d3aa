"""Benchmark: the cards come first, whatever the floor sends (issue 10, point 5).

The real table service (journal on disk, synchronous=FULL) with the real publisher as its sink,
on a throwaway mosquitto with the shipped configuration; a floor client floods ``cmd/floor``
with QoS 1 commands (each acknowledged by the table only once journaled) while the shoe's reads
come in. The table reads its commands in a process of its own (tablectl.adapters.mqtt.intake);
the sender, which stands for a dashboard on another machine, runs at the lowest priority.
Prints one JSON object:
- card_idle_p50_ms / card_idle_p99_ms: a card read's latency with no command in flight, measured
  from TableService.submit (what the shoe adapter calls when a CARD_READ frame is decoded) to
  its durable callback (the row committed: when the shoe is acknowledged); over --cards reads;
- card_flood_p50_ms / card_flood_p99_ms: the same while --commands floor commands, all from one
  sender, arrive as fast as the broker delivers them, the rate limits off (the worst case: every
  one is journaled); card_flood_p99_ratio: over the idle p99 (goal: within 2x);
- commands_per_s: floor commands journaled and answered ok per second during the flood;
- limited_*: the same flood with the shipped per-sender limits (limited_card_flood_p99_ratio: its
  card p99 over the idle p99, goal within 2x): most are refused before they are read, the first
  refusal each second answered
  with the wait on cmd_result, and never reach the journal;
- dealer_snapshots: dealer snapshots published during the unlimited flood (coalesced).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
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


def flood_child(host: str, port: int, username: str, password: str, count: int) -> None:
    """The floor's dashboard, in its own process (as on its own machine): sends ``count`` commands
    at once, then prints "ok refused first last" (perf_counter times of the first and last answer)."""
    ok = refused = 0
    first = last = 0.0
    done = threading.Event()
    subscribed = threading.Event()

    def on_message(client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        nonlocal ok, refused, first, last
        body = json.loads(message.payload)
        last = time.perf_counter()
        first = first or last
        if body["ok"]:
            ok += 1
        else:
            refused += 1
        if ok + refused >= count:
            done.set()

    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
    client.username_pw_set(username, password)
    client.max_queued_messages_set(0)
    client.on_message = on_message
    client.on_subscribe = lambda *args: subscribed.set()
    client.connect(host, port)
    client.loop_start()
    client.subscribe(TOPICS.cmd_result, qos=1)
    assert subscribed.wait(10)
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    sys.stdin.readline()  # go
    for i in range(count):
        props = Properties(PacketTypes.PUBLISH)
        props.CorrelationData = b"bench-%06d" % i
        command = FloorCommand(FloorKind.DECK_CHECK, by="Floor Ann", amount=52, at=time.time())
        client.publish(
            TOPICS.cmd_floor("floor.ann"), json.dumps(to_json(command)).encode(), qos=1, properties=props
        )
    # Every command answered, or the parent says the table has handled them all (a flood over the
    # limits gets one answer a second, so the answers never add up to the count).
    threading.Thread(target=lambda: (sys.stdin.readline(), done.set()), daemon=True).start()
    done.wait(120)
    sys.stdout.write(f"{ok} {refused} {first} {last}\n")
    sys.stdout.flush()
    client.disconnect()
    client.loop_stop()


class FloorFlood:
    """The flood's sender in a child process; ``done`` is set once every command is answered."""

    def __init__(self, broker: LocalBroker, count: int) -> None:
        assert broker.credentials is not None
        username, password = broker.credentials.user("supervisor", "ann")
        argv = [sys.executable, __file__, "--flood-child", broker.host, str(broker.port), username, password]
        # The sender stands for a dashboard on another machine: at the lowest priority, its own
        # work (which on a real table is another machine's) does not compete with the table's.
        self.child = subprocess.Popen(
            [*argv, str(count)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            preexec_fn=lambda: os.nice(19),
        )
        assert self.child.stdout is not None and self.child.stdin is not None
        assert self.child.stdout.readline().strip() == "ready"
        self.done = threading.Event()
        self.ok = self.refused = 0
        self.first = self.last = 0.0

    def start(self) -> None:
        assert self.child.stdin is not None
        self.child.stdin.write("go\n")
        self.child.stdin.flush()
        threading.Thread(target=self._wait, daemon=True).start()

    def stop(self) -> None:
        """The table has handled every command: the sender stops waiting for answers."""
        assert self.child.stdin is not None
        with contextlib.suppress(BrokenPipeError):  # it may have had every answer already
            self.child.stdin.write("stop\n")
            self.child.stdin.flush()

    def _wait(self) -> None:
        assert self.child.stdout is not None
        ok, refused, first, last = self.child.stdout.readline().split()
        self.ok, self.refused, self.first, self.last = int(ok), int(refused), float(first), float(last)
        self.child.wait()
        self.done.set()


def card_latencies(
    service: TableService, dealer: SimDealer, cards: int, until: Callable[[], bool] | None
) -> list[float]:
    """Feed the dealer's events one at a time (submit, wait for durable); the card reads' latencies.
    With ``until``: as long as it says False (and at least a few reads)."""
    samples: list[float] = []
    durable = threading.Event()
    while len(samples) < cards if until is None else not until() or len(samples) < 20:
        event = dealer.next_event(service.state)
        durable.clear()
        t0 = time.perf_counter()
        service.submit(event, durable=durable.set)
        assert durable.wait(30), f"the service stopped: {service.error!r}, {service.pending()} events waiting"
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
        flood.start()
        stats = publisher.stats
        # The flood is over once the table has taken or refused every command (a flood over the
        # limits is answered once a second, so the sender cannot tell: the table counts).
        busy = card_latencies(
            service, dealer, cards, lambda: stats.commands + stats.commands_rejected >= commands
        )
        handled = stats.commands + stats.commands_rejected
        flood.stop()
        flood.done.wait(10)
        span = flood.last - flood.first
        sent_during = publisher.stats.published - published
    finally:
        service.stop()
        publisher.stop()
    return {
        "idle": idle,
        "flood": busy,
        "ok": flood.ok,
        "refused": flood.refused,
        "handled": handled,
        "commands_per_s": flood.ok / span if span else 0.0,
        "published_during_flood": sent_during,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commands", type=int, default=10000, help="floor commands in the flood")
    parser.add_argument("--cards", type=int, default=500, help="card reads measured while idle")
    parser.add_argument("--flood-child", nargs=4, help=argparse.SUPPRESS)
    args, rest = parser.parse_known_args()
    if args.flood_child:
        host, port, username, password = args.flood_child
        flood_child(host, int(port), username, password, int(rest[0]))
        return
    load_at_start = round(os.getloadavg()[0], 2)  # other work on the machine makes the tail noisy
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
                "card_flood_p90_ms": ms(full["flood"], 90),
                "card_flood_p99_ms": ms(full["flood"], 99),
                "card_flood_p99_ratio": round(ms(full["flood"], 99) / ms(full["idle"], 99), 2),
                "cards_idle": len(full["idle"]),
                "cards_flood": len(full["flood"]),
                "commands": args.commands,
                "commands_ok": full["ok"],
                "commands_per_s": round(full["commands_per_s"], 1),
                "messages_published_during_flood": full["published_during_flood"],
                "limited_card_flood_p99_ms": ms(limited["flood"], 99),
                "limited_card_flood_p99_ratio": round(ms(limited["flood"], 99) / ms(limited["idle"], 99), 2),
                "limited_cards_flood": len(limited["flood"]),
                "limited_commands_handled": limited["handled"],
                "limited_commands_ok": limited["ok"],
                "limited_commands_refused": limited["refused"],
                "card_idle_mean_ms": round(statistics.fmean(full["idle"]) * 1000, 3),
                "load_average_at_start": load_at_start,
            }
        )
    )


if __name__ == "__main__":
    main()
