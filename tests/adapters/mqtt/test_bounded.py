"""No payload takes a table off the air (issue 10, point 1), pure: the views stay the same size
whatever the journal's length and whatever a command carries, and the outbox never hands paho a
message over the broker's max_packet_size (it alerts the floor instead, once)."""

from __future__ import annotations

import json
import time
from typing import Any

from tablectl.adapters.mqtt.broker import shipped_max_packet_size
from tablectl.adapters.mqtt.commands import CommandRefused, parse_floor_command
from tablectl.adapters.mqtt.outbox import Message, Outbox, OutboxConfig, packet_size
from tablectl.adapters.mqtt.topics import CONTENT_TYPE, Topics
from tablectl.core.effects import Effect
from tablectl.core.events import DealerInput, DealerKey, Event, FloorCommand, FloorKind, to_json
from tablectl.core.table import TableConfig, TableState, new_table, step
from tablectl.sim.dealer import seated_table
from tablectl.views import dealer, floor, private, public
from tests.helpers.paths import ROOT

T = Topics("main", "7")
START = 1_800_000_000.0
CONFIG = TableConfig(room="main", table="7", seats=9, blinds=(50, 100))
LIMIT = shipped_max_packet_size()


def test_the_limit_is_the_one_the_shipped_mosquitto_conf_sets() -> None:
    conf = (ROOT / "deploy" / "mosquitto" / "mosquitto.conf").read_text()
    assert f"\nmax_packet_size {LIMIT}\n" in conf and LIMIT > 0


def wire_size(message: Message) -> int:
    """The PUBLISH packet's size, counted independently of the outbox's own bound."""
    return len(message.payload) + len(message.topic) + len(CONTENT_TYPE) + 40


def sent(box: Outbox, state: TableState, effects: tuple[Effect, ...], now: float) -> list[Message]:
    box.record_effects(effects, state.hand_number or None, now)
    rulings = box.recent_rulings(state.hand_number or None)
    base = public(state)
    dealer_view = dealer(state, rulings, base=base)
    views = {"public": base, "dealer": dealer_view, "floor": floor(state, rulings, base=dealer_view)}
    box.state_changed(views, private(state), state.hand_number if state.hand else None, now)
    return [out.message for out in box.take()]


def test_ten_thousand_hands_of_remedies_and_hostile_commands_never_make_a_message_over_the_limit() -> None:
    """10,000 hands (each dealt and voided by the floor), a transfer between every hand, and every
    100th hand two hostile transfers (by names of 200 KB and 120 KB, each under the broker's
    limit) and a 250 KB player name: folded through the pure step, published through the outbox."""
    box = Outbox(T, "e", now=START, config=OutboxConfig(max_packet_size=LIMIT))
    box.connected(0.0, START)
    box.poll(0.0, START)
    box.take()
    state = seated_table(CONFIG, players=6)
    largest: dict[str, int] = {}
    remedies = refusals = 0
    started = time.perf_counter()

    def apply(event: Event, now: float, publish: bool) -> None:
        nonlocal state
        state, effects = step(state, event)
        if publish:
            for message in sent(box, state, effects, now):
                largest[message.topic] = max(largest.get(message.topic, 0), wire_size(message))

    for hand in range(1, 10_001):
        now = START + hand
        publish = hand % 50 == 0 or hand > 9_990  # the views of every hand cost more than the fold
        apply(DealerInput(DealerKey.NEW_HAND, at=now), now, publish)
        apply(FloorCommand(FloorKind.VOID_HAND, by="Flo", at=now), now, publish)
        apply(
            FloorCommand(
                FloorKind.TRANSFER, by="Flo", seat=1 + hand % 6, to_seat=1 + (hand + 1) % 6, amount=1
            ),
            now,
            publish,
        )
        remedies += 2
        if hand % 100 == 0:
            for by in ("B" * 200_000, "C" * 120_000):
                hostile = FloorCommand(FloorKind.TRANSFER, by=by, seat=1, to_seat=2, amount=1, at=now)
                payload = json.dumps(to_json(hostile)).encode()
                assert len(payload) < LIMIT  # each under the broker's limit, as in the issue
                parsed = parse_floor_command(T, T.cmd_floor("floor.ann"), payload, False, now, 120.0)
                assert isinstance(parsed, CommandRefused) and "at most 40" in parsed.reason
                refusals += 1
                apply(parsed.event, now, True)  # journaled as refused
                apply(hostile, now, True)  # and straight into the step, past the boundary: refused too
            apply(
                FloorCommand(FloorKind.SEAT_PLAYER, by="Flo", seat=9, name="N" * 250_000, amount=10, at=now),
                now,
                True,
            )
    seconds = time.perf_counter() - started
    assert state.hand_number == 10_000 and remedies == 20_000 and refusals == 200
    assert len(state.overrides) <= 32 and {r.hand for r in state.overrides} <= {9_999, 10_000}
    assert state.seat(9) is None  # the 250 KB name never sat down
    assert box.stats.oversize == 0  # nothing even came near: the views are bounded
    assert max(largest.values()) < LIMIT // 8, largest
    print(
        json.dumps({"hands": 10_000, "remedies": remedies, "seconds": round(seconds, 1), "largest": largest})
    )


def test_a_message_over_the_limit_is_not_sent_and_the_floor_is_told_once() -> None:
    box = Outbox(T, "e", now=START, config=OutboxConfig(max_packet_size=LIMIT))
    box.connected(0.0, START)
    box.poll(0.0, START)
    box.take()
    huge: dict[str, Any] = {"hand": 3, "blob": "x" * LIMIT}
    for n in range(3):  # three huge floor snapshots in a row: one alert, one notice
        box.state_changed({"floor": {**huge, "n": n}}, {"hand": None}, None, START + n)
    out = [o.message for o in box.take()]
    assert all(packet_size(m) <= LIMIT for m in out)
    assert T.view("floor") not in [m.topic for m in out]
    alerts = [json.loads(m.payload) for m in out if m.topic == T.alerts]
    assert len(alerts) == 1 and alerts[0]["ruling"]["severity"] == "floor" and alerts[0]["hand"] == 3
    assert "over the broker's limit of 262,144" in alerts[0]["ruling"]["text"]
    notices = box.notices()
    assert len(notices) == 1 and "deploy/mosquitto/mosquitto.conf" in notices[0] and box.notices() == []
    assert box.stats.oversize == 3
    assert T.view("floor") not in box.retained()  # a reconnection sends nothing too big either
    # One that fits goes out again; one too big after it is told again.
    box.state_changed({"floor": {"hand": 3, "n": 9}}, {"hand": None}, None, START + 9)
    assert T.view("floor") in [o.message.topic for o in box.take()]
    box.state_changed({"floor": {**huge, "n": 10}}, {"hand": None}, None, START + 10)
    assert [o.message.topic for o in box.take()] == [T.alerts] and len(box.notices()) == 1


def test_the_bound_of_a_packet_counts_every_part() -> None:
    message = Message(T.view("floor"), b"x" * 1000, True, 3600, 1, "snapshot", correlation=b"\x01" * 16)
    assert packet_size(message) >= 1000 + len(T.view("floor")) + len(CONTENT_TYPE) + 16 + 2 + 2 + 2
    assert packet_size(message) <= 1000 + len(T.view("floor")) + len(CONTENT_TYPE) + 16 + 40


def test_a_table_made_with_huge_texts_is_still_published_within_the_limit() -> None:
    """Even a state with texts no command can carry now (an old journal's): nothing over the limit."""
    state = new_table(CONFIG, {1: ("A" * 300_000, 100), 2: ("Bob", 100)})
    box = Outbox(T, "e", now=START, config=OutboxConfig(max_packet_size=LIMIT))
    box.connected(0.0, START)
    box.poll(0.0, START)
    messages = sent(box, state, (), START)
    assert messages and all(packet_size(m) <= LIMIT for m in messages)
    assert box.stats.oversize == 3  # public, dealer, floor: each refused, one alert each
