"""Benchmark: the display pages in headless Chromium (issue 11, Benchmarks). Prints one JSON object.

Part 1, ``card``: a card to the dealer's screen. The real table (tablectl.service.serve.start_table
with the bench table file of tests/helpers/bench_table.py: journal on disk, publisher, command
intake, mock GPIO panel) reads a simulated shoe (firmware_bridge.simshoe.SimShoe) on a
pseudo-terminal; the betting and new-hand keys go to the service as the panel's would; the dealer
page (/dealer, logged in as dealer.1) runs in Chromium through ``tablectl web``'s relay.
- card_p50_ms / card_p99_ms: from the card's frame written to the pty (SimShoe's on_write) to a
  MutationObserver in the page seeing the render of the dealer snapshot it caused (wall clocks:
  performance.timeOrigin + now against time.time(), the offset calibrated every 50 cards to within
  half a page.evaluate round trip); cards that change nothing on the dealer's screen (about 1 in
  10: the first two cards of the flop) are counted in cards_not_shown, not timed;
- rtt_p50_ms / rtt_p99_ms: the bare round trip over the same transport, from the same page: a
  second mqtt.js client (admin) publishes a payload the size of the dealer snapshot at QoS 1 and
  receives it back through the relay, interleaved with the cards;
- fsync_p50_ms: the table's journal append (SQLite commit, synchronous=FULL) of the same cards;
- card_p50_ratio: card p50 over (rtt p50 + fsync p50). Goals: p99 < 50 ms, ratio <= 3.
- arrival_*: to the message's arrival in the page (its raw panel written); frame_*: to the start of
  the animation frame after the DOM change, the one that paints it (the screen's own refresh, up
  to 16.7 ms at 60 Hz, is in this figure and not in the goal's).

Part 2, ``floor``: the floor dashboard (/floor, logged in as floor through the relay, 1920x1080)
with a room of --tables tables published by a load generator (admin over TCP, as the tables'
bridged brokers would): retained summary, status and bridge for each table, then
- realistic: 30 hands/hour/table (../shared/notes/displays-research.md 3.1), each hand a summary
  going ``dealing``, about 0.45 alerts (summary ``paused`` with its worst alert, back to
  ``dealing`` 20 s later), two events (a ruling, hand_ended) and a summary ``between hands`` with
  last_hand_at; every table at its own phase;
- burst: every table at once, as after a break, then each at the summary's cap (one a second,
  OutboxConfig.summary_interval) for --burst-seconds, changing state each time (dealing and
  paused, its alert with it): worse than any real break.
Measured in the page: grid_complete_ms (from the page's CONNACK, #connection turning
``connected``, to all tiles filled: state and stakes shown) and grid_from_navigation_ms; per
phase, frames (requestAnimationFrame deltas) over 50 ms, the longest frame, long tasks, the main
thread's share (CDP Performance TaskDuration over wall time) and the latency from a summary
published to its tile's state text changing (MutationObserver). Goals: grid within 1 s of
connecting, no frame over 50 ms at the realistic pace. --cpu-throttle N repeats part 2 with
Chromium's CPU slowed N times (CDP Emulation.setCPUThrottlingRate; a Pi is 3-5x slower).

load_average_at_start: the machine's 1-minute load when the run started (other work makes the
tails noisy: compare it with the core count before reading a p99).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

# The repository, not bench/ (whose serial.py would shadow pyserial), on the path.
sys.path[0] = str(Path(__file__).resolve().parents[1])

import paho.mqtt.client as mqtt  # noqa: E402
from gpiozero import Device  # type: ignore[import-untyped]  # noqa: E402
from gpiozero.pins.mock import MockFactory  # type: ignore[import-untyped]  # noqa: E402
from paho.mqtt.packettypes import PacketTypes  # noqa: E402
from paho.mqtt.properties import Properties  # noqa: E402
from playwright.sync_api import Browser, Page, sync_playwright  # noqa: E402

from bench.transport import start_relay  # noqa: E402
from firmware_bridge.simshoe import SimShoe  # noqa: E402
from tablectl.adapters.mqtt import Topics  # noqa: E402
from tablectl.adapters.mqtt.broker import LocalBroker  # noqa: E402
from tablectl.core.events import CardDrawn, Event, FloorCommand, FloorKind  # noqa: E402
from tablectl.core.table import TableState  # noqa: E402
from tablectl.service.serve import BrokerSettings, RunningTable, start_table  # noqa: E402
from tablectl.service.tablefile import load_table_config  # noqa: E402
from tablectl.sim.dealer import SimDealer  # noqa: E402
from tests.helpers.bench_table import write_bench_table  # noqa: E402

CHROMIUM = Path(os.environ.get("TABLECTL_CHROMIUM", "/usr/bin/chromium"))
ROOM = "main"
TOPICS = Topics(ROOM, "1")
PLAYERS = ("Ann", "Bob", "Cy", "Di", "Ed", "Flo")
CALIBRATE_EVERY = 50  # cards between clock-offset calibrations and round-trip blocks
WAIT_S = 15.0


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))], 2)


def login_url(server_port: int, path: str, user: tuple[str, str], table: str | None) -> str:
    fields = {"user": user[0], "pass": user[1], "room": ROOM, **({"table": table} if table else {})}
    return f"http://127.0.0.1:{server_port}{path}#{urlencode(fields)}"


def clock_offset(page: Page) -> float:
    """The page's wall clock (timeOrigin + now, ms) minus time.time(), in s; the best of 7 tries."""
    best = (float("inf"), 0.0)
    for _ in range(7):
        before = time.time()
        page_ms = page.evaluate("performance.timeOrigin + performance.now()")
        after = time.time()
        best = min(best, (after - before, page_ms / 1000 - (before + after) / 2))
    return best[1]


# -- part 1: a card to the dealer's screen ---------------------------------------------------------

DEALER_PROBE = """
window.__bench = { rendered: [], arrived: [], framed: [], lastSeq: 0, lastArrived: 0 };
document.addEventListener("DOMContentLoaded", () => {
  const b = window.__bench;
  const raw = document.getElementById("messages");
  // The raw panel is written as a message arrives; the screen is drawn in the same task (a dealer
  // snapshot) or in the next animation frame (the rest). The newest dealer seq in the raw panel is
  // what arrived, or what a change outside it shows; the animation frame after that change is the
  // one that paints it.
  new MutationObserver((records) => {
    const at = performance.timeOrigin + performance.now();
    const section = raw.querySelector('section.message[data-topic$="/dealer"]');
    const seq = Number(((section && section.dataset.seq) || "").match(/seq (\\d+)/)?.[1] ?? 0);
    const inRaw = records.some((r) => raw.contains(r.target));
    const outside = records.some((r) => !raw.contains(r.target));
    if (inRaw && seq > b.lastArrived) { b.lastArrived = seq; b.arrived.push([seq, at]); }
    if (outside && seq > b.lastSeq) {
      b.lastSeq = seq;
      b.rendered.push([seq, at]);
      requestAnimationFrame(() => b.framed.push([seq, performance.timeOrigin + performance.now()]));
    }
  }).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
});
"""

RTT_SETUP = """async ([user, pass, topic, size]) => {
  const client = mqtt.connect(`ws://${location.host}/mqtt`, {
    protocolVersion: 5, clean: true, username: user, password: pass, reconnectPeriod: 0,
    clientId: `bench-rtt-${Math.random().toString(16).slice(2)}`,
  });
  await new Promise((ok, fail) => { client.once("connect", ok); client.once("error", fail); });
  await new Promise((ok, fail) => client.subscribe(topic, { qos: 1 }, (e) => (e ? fail(e) : ok())));
  window.__rtt = { client, topic, payload: "x".repeat(size), waiting: null };
  client.on("message", () => { const w = window.__rtt.waiting; window.__rtt.waiting = null; if (w) w(); });
}"""

RTT_BLOCK = """async (count) => {
  const rtt = window.__rtt;
  const samples = [];
  for (let i = 0; i < count; i++) {
    const arrived = new Promise((ok) => { rtt.waiting = ok; });
    const t0 = performance.now();
    rtt.client.publish(rtt.topic, rtt.payload, { qos: 1 });
    await arrived;
    samples.push(performance.now() - t0);
  }
  return samples;
}"""


@dataclass
class TableWatch:
    """A service sink after the publisher's: how many events were handled, and the dealer
    snapshot's seq after each (the publisher has queued it by then)."""

    running: RunningTable
    handled: int = 0
    dealer_seq: list[int] = field(default_factory=list)
    changed: threading.Condition = field(default_factory=threading.Condition)

    def __call__(self, state: TableState, effects: tuple[Any, ...]) -> None:
        payload = self.running.publisher.retained().get(TOPICS.view("dealer"))
        seq = json.loads(payload)["seq"] if payload else 0
        with self.changed:
            self.handled += 1
            self.dealer_seq.append(seq)
            self.changed.notify_all()

    def submit_and_wait(self, submit: Callable[[], None]) -> tuple[int, int]:
        """Run ``submit`` (which hands the service one event), wait until it is handled; returns the
        dealer seq before and after."""
        with self.changed:
            before_count = self.handled
            before = self.dealer_seq[-1] if self.dealer_seq else 0
        submit()
        with self.changed:
            if not self.changed.wait_for(lambda: self.handled > before_count, WAIT_S):
                raise RuntimeError("the table did not handle the event")
            return before, self.dealer_seq[before_count]


def timed_journal(running: RunningTable, samples: list[float]) -> None:
    """Time the service's journal appends (the SQLite commit is the fsync) from now on."""
    journal = running.service.controller.journal
    append = journal.append

    def timed(*args: Any, **kwargs: Any) -> int:
        t0 = time.perf_counter()
        try:
            return append(*args, **kwargs)
        finally:
            samples.append((time.perf_counter() - t0) * 1000)

    journal.append = timed  # an instance attribute: this service's journal only


def card_part(browser: Browser, cards: int, rtt_per_block: int) -> dict[str, Any]:
    Device.pin_factory = MockFactory()  # the bench table file has a panel
    writes: list[float] = []  # wall time of each write to the pty, just before it
    with (
        tempfile.TemporaryDirectory() as scratch,
        LocalBroker(folder=Path(scratch) / "broker", tables=("1",), supervisors=()) as broker,
    ):
        folder = Path(scratch)
        assert broker.credentials is not None
        shoe = SimShoe(seed=11, on_write=lambda data, at: writes.append(time.time())).start()
        running = start_table(
            load_table_config(write_bench_table(folder, shoe.path)),
            folder / "table.journal",
            BrokerSettings(broker.host, broker.port, *broker.credentials.user("table", "1")),
        )
        relay, relay_port = start_relay(broker)
        context = browser.new_context(viewport={"width": 800, "height": 480})
        try:
            assert running.publisher.wait_connected(10) and shoe.wait_connected(10)
            watch = TableWatch(running)
            running.service.sinks.append(watch)
            fsync: list[float] = []
            timed_journal(running, fsync)
            service = running.service
            for seat, name in enumerate(PLAYERS, 1):
                command = FloorCommand(FloorKind.SEAT_PLAYER, "bench", seat=seat, name=name, amount=10_000)
                watch.submit_and_wait(lambda c=command: service.submit(c))  # type: ignore[misc]
            watch.submit_and_wait(
                lambda: service.submit(FloorCommand(FloorKind.MOVE_BUTTON, "bench", seat=len(PLAYERS)))
            )
            page = context.new_page()
            page.add_init_script(DEALER_PROBE)
            page.goto(login_url(relay_port, "/dealer", broker.credentials.user("dealer", "1"), "1"))
            snapshot = running.publisher.retained()[TOPICS.view("dealer")]
            page.wait_for_function("s => window.__bench.lastSeq >= s", arg=json.loads(snapshot)["seq"])
            page.evaluate(
                RTT_SETUP,
                [*broker.credentials.user("admin"), f"cardroom/{ROOM}/table/bench-rtt/events", len(snapshot)],
            )
            dealer = SimDealer(random.Random(2026))
            timed: list[tuple[int, float, float]] = []  # (dealer seq, frame written, page clock offset)
            rtt: list[float] = []
            not_shown = 0
            offset = clock_offset(page)
            events = 0
            fsync_of_cards: list[float] = []
            while len(timed) < cards:
                event: Event = dealer.next_event(service.state)
                events += 1
                if isinstance(event, CardDrawn):
                    assert event.card is not None
                    card = int(event.card)
                    mark = len(writes)
                    dealt_at = time.time()
                    journaled = len(fsync)
                    before, after = watch.submit_and_wait(lambda: shoe.deal(card))  # noqa: B023
                    fsync_of_cards += fsync[journaled : journaled + 1]
                    if after == before:
                        not_shown += 1
                        continue
                    frame_at = writes[mark] if len(writes) > mark else dealt_at
                    timed.append((after, frame_at, offset))
                    if len(timed) % CALIBRATE_EVERY == 0:
                        page.wait_for_function("s => window.__bench.lastSeq >= s", arg=after)
                        rtt += page.evaluate(RTT_BLOCK, rtt_per_block)
                        offset = clock_offset(page)
                else:
                    before, after = watch.submit_and_wait(lambda: service.submit(event))  # noqa: B023
                # One thing at a time on the screen: the next card starts on a rendered page.
                if after != before:
                    page.wait_for_function("s => window.__bench.lastSeq >= s", arg=after)
            if len(rtt) < rtt_per_block:
                rtt += page.evaluate(RTT_BLOCK, rtt_per_block)
            rendered = dict((int(s), t) for s, t in page.evaluate("window.__bench.rendered"))
            arrived = dict((int(s), t) for s, t in page.evaluate("window.__bench.arrived"))
            framed = dict((int(s), t) for s, t in page.evaluate("window.__bench.framed"))
            errors = page.evaluate("document.querySelectorAll('.open-alert').length")
        finally:
            context.close()
            relay.terminate()
            relay.wait(10)
            running.stop()
            shoe.stop()
    latencies = [rendered[seq] - (frame_at + off) * 1000 for seq, frame_at, off in timed if seq in rendered]
    to_page = [arrived[seq] - (frame_at + off) * 1000 for seq, frame_at, off in timed if seq in arrived]
    to_frame = [framed[seq] - (frame_at + off) * 1000 for seq, frame_at, off in timed if seq in framed]
    card_p50, rtt_p50, fsync_p50 = (
        percentile(latencies, 50),
        percentile(rtt, 50),
        percentile(fsync_of_cards, 50),
    )
    reference = (rtt_p50 or 0) + (fsync_p50 or 0)
    card_p99 = percentile(latencies, 99)
    arrival_p50 = percentile(to_page, 50)
    return {
        "measured": "shoe frame written to the pty -> the dealer page's DOM (MutationObserver) in Chromium",
        "cards": len(latencies),
        "cards_not_shown": not_shown,
        "events": events,
        "card_p50_ms": card_p50,
        "card_p90_ms": percentile(latencies, 90),
        "card_p99_ms": card_p99,
        "card_max_ms": round(max(latencies), 2) if latencies else None,
        "arrival_p50_ms": percentile(to_page, 50),
        "arrival_p99_ms": percentile(to_page, 99),
        "arrival_p50_ratio": round(arrival_p50 / reference, 2) if arrival_p50 and reference else None,
        "frame_p50_ms": percentile(to_frame, 50),
        "frame_p99_ms": percentile(to_frame, 99),
        "rtt_samples": len(rtt),
        "rtt_payload_bytes": len(snapshot),
        "rtt_p50_ms": rtt_p50,
        "rtt_p99_ms": percentile(rtt, 99),
        "fsync_p50_ms": fsync_p50,
        "fsync_p99_ms": percentile(fsync_of_cards, 99),
        "card_p50_ratio": round(card_p50 / reference, 2) if card_p50 and reference else None,
        "goal_p99_under_50ms": card_p99 is not None and card_p99 < 50,
        "goal_p50_within_3x": bool(card_p50 and reference and card_p50 <= 3 * reference),
        "open_alerts_at_end": errors,
    }


# -- part 2: the floor dashboard with a room of tables -----------------------------------------------

FLOOR_PROBE = """
window.__bench = { frames: [], longtasks: [], states: [], filled: new Set(), completeAt: null,
  connectedAt: null, firstTileAt: null, expected: %d };
(function frame(t) { window.__bench.frames.push(t); requestAnimationFrame(frame); })(0);
try {
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.__bench.longtasks.push([e.startTime, e.duration]);
  }).observe({ type: "longtask", buffered: true });
} catch (e) {}
document.addEventListener("DOMContentLoaded", () => {
  const b = window.__bench;
  const connection = document.getElementById("connection");
  new MutationObserver(() => {
    if (b.connectedAt === null && connection.dataset.state === "connected") b.connectedAt = performance.now();
  }).observe(connection, { attributes: true });
  new MutationObserver((records) => {
    const at = performance.timeOrigin + performance.now();
    if (b.firstTileAt === null) b.firstTileAt = performance.now();
    for (const r of records) {
      const node = r.target.nodeType === 1 ? r.target : r.target.parentElement;
      const tile = node && node.closest(".tile");
      if (!tile) continue;
      if (node.classList.contains("state")) b.states.push([tile.dataset.table, node.textContent, at]);
      if (b.completeAt === null && !b.filled.has(tile.dataset.table)) {
        const stakes = tile.querySelector(".stakes");
        if (stakes && stakes.textContent && tile.dataset.state !== "unknown") {
          b.filled.add(tile.dataset.table);
          if (b.filled.size >= b.expected) b.completeAt = performance.now();
        }
      }
    }
  }).observe(document.getElementById("grid"),
    { subtree: true, childList: true, characterData: true, attributes: true });
});
"""

STATE_WORDS = {"dealing": "dealing", "between_hands": "between hands", "paused": "PAUSED"}
GAMES = (("NT", "50/100"), ("NT", "100/200"), ("PO", "25/50"), ("NT", "200/400 ante 50"), ("FT", "100/200"))
DEALERS = ("Rosa", "Marek", "Ines", "Tom", "Aiko", "Lars", "Nadia", "Ben")
WORST = (
    ("misdeal", "MD-c", "Misdeal: two boxed cards. Confirm, then reshuffle: the button stays."),
    ("floor", "CALL", "Rosa calls the floor: player dispute"),
    ("floor", "INPUT", "The shoe is lost: reads may be missed."),
    ("void", "IRR-1", "A card with a different back: the hand is void."),
)
HAND_S = 120.0  # 30 hands an hour
ALERTS_PER_HAND = 0.45  # tablectl audit: 58 floor alerts over 100 hands
PAUSE_S = 20.0


@dataclass
class SimTable:
    name: str
    game: tuple[str, str]
    seats: int
    dealer: str
    hand: int
    state: str = "between_hands"
    seq: int = 0
    prev_event: int = 0
    prev_alert: int = 0
    last_hand_at: float = 0.0
    worst: tuple[str, str, str] | None = None


class RoomLoad:
    """The room's tables as an admin client publishes them (the shapes of docs/schemas), and the
    time each summary went out with the state word its tile should then show."""

    def __init__(self, broker: LocalBroker, count: int, seed: int = 5) -> None:
        assert broker.credentials is not None
        self.rng = random.Random(seed)
        self.client = mqtt.Client(
            mqtt.CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5, client_id="bench-room"
        )
        self.client.username_pw_set(*broker.credentials.user("admin"))
        self.client.max_queued_messages_set(0)
        self.client.connect(broker.host, broker.port)
        self.client.loop_start()
        self.epoch = "20260129T101500Z-bench"
        self.now = time.time()
        self.tables = []
        for number in range(1, count + 1):
            game = self.rng.choice(GAMES)
            self.tables.append(
                SimTable(
                    f"f{number}",
                    game,
                    6 if game[0] == "PO" else 9,
                    self.rng.choice(DEALERS),
                    self.rng.randint(1, 300),
                    last_hand_at=self.now - self.rng.uniform(5, 120),
                )
            )
        self.sent: list[tuple[str, str, float]] = []  # (table, state word, time.time())
        self.published = 0
        self.lock = threading.Lock()

    def _send(self, table: SimTable, leaf: str, kind: str, body: dict[str, Any], retain: bool = False) -> int:
        table.seq += 1
        payload = {
            "schema": 1,
            "type": kind,
            "room": ROOM,
            "table": table.name,
            "epoch": self.epoch,
            "seq": table.seq,
            "ts": time.time(),
            **body,
        }
        props = Properties(PacketTypes.PUBLISH)
        props.ContentType = "application/json"
        props.MessageExpiryInterval = 3600
        self.client.publish(
            f"cardroom/{ROOM}/table/{table.name}/{leaf}", json.dumps(payload), 1, retain, props
        )
        self.published += 1
        return table.seq

    def summary(self, table: SimTable, state: str) -> None:
        table.state = state
        worst = table.worst
        view = {
            "view": "summary",
            "game": table.game[0],
            "stakes": table.game[1],
            "seats_taken": self.rng.randint(max(2, table.seats - 3), table.seats),
            "seats": table.seats,
            "dealer": table.dealer,
            "dealer_since": self.now - 600,
            "hands_per_hour": self.rng.randint(26, 34),
            "last_hand_at": table.last_hand_at,
            "table_state": state,
            "hand": table.hand,
            "alerts": 1 if worst else 0,
            "worst": {"severity": worst[0], "rule": worst[1], "text": worst[2]} if worst else None,
        }
        with self.lock:
            self.sent.append((table.name, STATE_WORDS[state], time.time()))
            self._send(table, "summary", "snapshot", {"view": "summary", "state": view}, retain=True)

    def event(self, table: SimTable, body: dict[str, Any]) -> None:
        table.prev_event = self._send(
            table, "events", "event", {"prev": table.prev_event, "hand": table.hand, **body}
        )

    def alert(self, table: SimTable) -> None:
        severity, rule, text = table.worst or WORST[0]
        ruling = {"rule": rule, "text": text, "severity": severity, "needs_confirm": severity == "misdeal"}
        body = {"prev": table.prev_alert, "hand": table.hand, "kind": "ruling", "ruling": ruling}
        table.prev_alert = self._send(table, "alerts", "alert", body)

    def seed_retained(self) -> None:
        for table in self.tables:
            self._send(
                table,
                "status",
                "status",
                {"state": "online", "reason": "connected", "since": self.now - 900},
                True,
            )
            self.client.publish(f"cardroom/{ROOM}/table/{table.name}/bridge", "1", 1, True)
            self.summary(table, self.rng.choice(("dealing", "dealing", "between_hands")))
        self.flush()

    def flush(self) -> None:
        info = self.client.publish(f"cardroom/{ROOM}/table/bench-flush/events", "{}", 1)
        info.wait_for_publish(30)  # QoS 1 in order: everything before it has reached the broker

    # The paces. Each returns once its window is over; sleeping is the pace, not a synchronisation.
    def run_schedule(self, schedule: list[tuple[float, Callable[[], None]]]) -> None:
        start = time.perf_counter()
        for at, action in sorted(schedule, key=lambda item: item[0]):
            delay = start + at - time.perf_counter()
            if delay > 0:
                time.sleep(delay)
            action()
        self.flush()

    def realistic(self, seconds: float) -> None:
        schedule: list[tuple[float, Callable[[], None]]] = []
        for table in self.tables:
            start = -self.rng.uniform(0, HAND_S)  # every table at its own point of its hand
            while start < seconds:
                self._plan_hand(table, start, schedule, seconds)
                start += HAND_S * self.rng.uniform(0.8, 1.2)
        self.run_schedule(schedule)

    def _plan_hand(
        self, table: SimTable, start: float, plan: list[tuple[float, Callable[[], None]]], end: float
    ) -> None:
        def at(when: float, action: Callable[[], None]) -> None:
            if 0 <= when < end:
                plan.append((when, action))

        def begin() -> None:
            table.hand += 1
            self.summary(table, "dealing")

        def pause() -> None:
            table.worst = self.rng.choice(WORST)
            self.alert(table)
            self.summary(table, "paused")

        def resume() -> None:
            table.worst = None
            self.summary(table, "dealing")

        def ruling() -> None:
            self.event(
                table,
                {
                    "kind": "ruling",
                    "ruling": {
                        "rule": "DL-3",
                        "text": "Burn a card first.",
                        "severity": "correct",
                        "needs_confirm": False,
                    },
                },
            )

        def ended() -> None:
            table.last_hand_at = time.time()
            self.event(
                table,
                {
                    "kind": "hand_ended",
                    "hand_ended": {
                        "hand": table.hand,
                        "stacks": {"1": 9800, "2": 10200},
                        "voided": False,
                        "misdeal": False,
                    },
                },
            )
            self.summary(table, "between_hands")

        length = HAND_S * 0.9
        at(start, begin)
        at(start + length * self.rng.uniform(0.2, 0.8), ruling)
        if self.rng.random() < ALERTS_PER_HAND:
            paused = start + length * self.rng.uniform(0.1, 0.6)
            at(paused, pause)
            at(paused + PAUSE_S, resume)
        at(start + length, ended)

    def burst(self, seconds: float) -> None:
        """Every table dealing at once, then each at the summary's cap, changing state each second."""
        schedule: list[tuple[float, Callable[[], None]]] = []
        for table in self.tables:
            first = self.rng.uniform(0, 0.5)
            for tick in range(max(1, int(seconds))):
                schedule.append((first + tick, lambda t=table, n=tick: self._burst_step(t, n)))  # type: ignore[misc]
        self.run_schedule(schedule)

    def _burst_step(self, table: SimTable, tick: int) -> None:
        if tick == 0:
            table.hand += 1
            table.dealer = self.rng.choice(DEALERS)  # the dealers rotate at a break
            table.worst = None
            self.event(
                table,
                {
                    "kind": "ruling",
                    "ruling": {
                        "rule": "DL-1",
                        "text": "New hand.",
                        "severity": "info",
                        "needs_confirm": False,
                    },
                },
            )
            self.summary(table, "dealing" if table.state != "dealing" else "paused")
            return
        if table.state == "paused":
            table.worst = None
            self.summary(table, "dealing")
        else:
            table.worst = self.rng.choice(WORST)
            if self.rng.random() < 0.1:
                self.alert(table)
            self.summary(table, "paused")

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


def page_window(page: Page, cdp: Any, run: Callable[[], None]) -> dict[str, Any]:
    """Run ``run`` (a phase of the load) and measure the page meanwhile."""

    def metrics() -> dict[str, float]:
        return {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}

    start_ms = page.evaluate("performance.now()")
    before, wall = metrics(), time.perf_counter()
    run()
    page.evaluate("new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok)))")
    after, wall = metrics(), time.perf_counter() - wall
    end_ms = page.evaluate("performance.now()")
    frames = page.evaluate("(s) => window.__bench.frames.filter((t) => t >= s)", start_ms)
    gaps = [b - a for a, b in zip(frames, frames[1:], strict=False)]
    longtasks = [d for s, d in page.evaluate("window.__bench.longtasks") if start_ms <= s <= end_ms]
    return {
        "seconds": round(wall, 2),
        "frames": len(gaps),
        "fps": round(len(gaps) / ((end_ms - start_ms) / 1000), 1) if end_ms > start_ms else None,
        "frames_over_50ms": sum(1 for g in gaps if g > 50),
        "longest_frame_ms": round(max(gaps), 1) if gaps else None,
        "longtasks": len(longtasks),
        "longest_task_ms": round(max(longtasks), 1) if longtasks else 0,
        "main_thread_share": round((after["TaskDuration"] - before["TaskDuration"]) / wall, 3),
        # ThreadTime is the main thread's CPU time: unlike TaskDuration, not inflated by other
        # processes taking the cores.
        "main_thread_cpu_share": round((after["ThreadTime"] - before["ThreadTime"]) / wall, 3),
        "layouts": int(after["LayoutCount"] - before["LayoutCount"]),
        "style_recalcs": int(after["RecalcStyleCount"] - before["RecalcStyleCount"]),
        "script_share": round((after["ScriptDuration"] - before["ScriptDuration"]) / wall, 3),
        "layout_style_share": round(
            (
                after["LayoutDuration"]
                - before["LayoutDuration"]
                + after["RecalcStyleDuration"]
                - before["RecalcStyleDuration"]
            )
            / wall,
            3,
        ),
    }


def tile_latencies(sent: list[tuple[str, str, float]], shown: list[list[Any]], offset: float) -> list[float]:
    """For each summary sent, the first time after it that its tile's state text showed its word."""
    by_table: dict[str, list[tuple[float, str]]] = {}
    for table, text, at in shown:
        by_table.setdefault(table, []).append((at / 1000 - offset, text))
    latencies = []
    for table, word, sent_at in sent:
        for at, text in by_table.get(table, ()):
            if at >= sent_at - 0.001 and text == word:
                latencies.append((at - sent_at) * 1000)
                break
    return latencies


def floor_part(
    browser: Browser, tables: int, realistic_s: float, burst_s: float, throttle: float
) -> dict[str, Any]:
    with (
        tempfile.TemporaryDirectory() as scratch,
        LocalBroker(folder=Path(scratch) / "broker", tables=("1",), supervisors=()) as broker,
    ):
        assert broker.credentials is not None
        room = RoomLoad(broker, tables)
        relay, relay_port = start_relay(broker)
        context = browser.new_context(viewport={"width": 1920, "height": 1080})
        try:
            room.seed_retained()
            page = context.new_page()
            cdp = context.new_cdp_session(page)
            cdp.send("Performance.enable")
            if throttle > 1:
                cdp.send("Emulation.setCPUThrottlingRate", {"rate": throttle})
            page.add_init_script(FLOOR_PROBE % tables)
            page.goto(login_url(relay_port, "/floor", broker.credentials.user("floor"), None))
            page.wait_for_function("() => window.__bench.completeAt !== null", timeout=60_000)
            connected, first_tile, complete = page.evaluate(
                "[window.__bench.connectedAt, window.__bench.firstTileAt, window.__bench.completeAt]"
            )
            offset = clock_offset(page)
            mark = len(room.sent)
            realistic = page_window(page, cdp, lambda: room.realistic(realistic_s))
            realistic["published"] = len(room.sent) - mark
            offset_after = clock_offset(page)
            shown = page.evaluate("window.__bench.states")
            realistic_lat = tile_latencies(room.sent[mark:], shown, (offset + offset_after) / 2)
            mark, published = len(room.sent), room.published
            burst = page_window(page, cdp, lambda: room.burst(burst_s))
            burst["summaries"] = len(room.sent) - mark
            burst["messages"] = room.published - published
            offset_burst = clock_offset(page)
            shown = page.evaluate("window.__bench.states")
            burst_lat = tile_latencies(room.sent[mark:], shown, (offset_after + offset_burst) / 2)
            tiles = page.evaluate("document.querySelectorAll('#grid .tile').length")
            heap = page.evaluate("performance.memory ? performance.memory.usedJSHeapSize : 0")
        finally:
            context.close()
            relay.terminate()
            relay.wait(10)
            room.close()
    for window, latencies in ((realistic, realistic_lat), (burst, burst_lat)):
        window["tile_samples"] = len(latencies)
        window["tile_latency_p50_ms"] = percentile(latencies, 50)
        window["tile_latency_p99_ms"] = percentile(latencies, 99)
        window["tile_latency_max_ms"] = round(max(latencies), 1) if latencies else None
    grid_ms = round(complete - connected, 1)
    return {
        "tables": tables,
        "cpu_throttle": throttle,
        "retained_messages": 3 * tables,
        "tiles": tiles,
        "grid_complete_ms": grid_ms,
        "first_tile_ms": round(first_tile - connected, 1),
        "grid_from_navigation_ms": round(complete, 1),
        "connected_from_navigation_ms": round(connected, 1),
        "realistic": realistic,
        "burst": burst,
        "js_heap_mb": round(heap / 2**20, 1),
        "goal_grid_within_1s": grid_ms <= 1000,
        "goal_no_frame_over_50ms_realistic": realistic["frames_over_50ms"] == 0,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cards", type=int, default=500, help="cards timed to the dealer's screen")
    parser.add_argument("--rtt", type=int, default=50, help="page round trips per block of 50 cards")
    parser.add_argument("--tables", type=int, default=200, help="tables on the floor dashboard")
    parser.add_argument("--realistic-seconds", type=float, default=30.0, help="s at 30 hands/hour/table")
    parser.add_argument("--burst-seconds", type=float, default=10.0, help="s of every table at the cap")
    parser.add_argument("--cpu-throttle", type=float, default=0, help="also part 2 with the CPU slowed so")
    parser.add_argument("--parts", default="card,floor", help="which parts to run")
    args = parser.parse_args()
    load = os.getloadavg()
    report: dict[str, Any] = {
        "load_average_at_start": [round(v, 2) for v in load],
        "cores": os.cpu_count(),
        "machine": platform.machine(),
    }
    parts = args.parts.split(",")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True)
        report["chromium"] = browser.version
        try:
            if "card" in parts:
                report["card"] = card_part(browser, args.cards, args.rtt)
            if "floor" in parts:
                report["floor"] = floor_part(
                    browser, args.tables, args.realistic_seconds, args.burst_seconds, 1
                )
                if args.cpu_throttle > 1:
                    report["floor_throttled"] = floor_part(
                        browser, args.tables, args.realistic_seconds, args.burst_seconds, args.cpu_throttle
                    )
        finally:
            browser.close()
    report["load_average_at_end"] = [round(v, 2) for v in os.getloadavg()]
    print(json.dumps(report))


if __name__ == "__main__":
    main()
