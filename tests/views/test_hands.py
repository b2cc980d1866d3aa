"""The hands' record for the floor (tablectl.views.hands): a step for every action with the pot
after it as the engine has it, the result, the bounds; and no card that is not face up."""

from __future__ import annotations

import json
import random

from tablectl.adapters.mqtt.outbox import Message, Outbox, OutboxConfig, packet_size
from tablectl.adapters.mqtt.topics import Topics
from tablectl.core.cards import card_str
from tablectl.core.effects import Applied, Ruling, Severity
from tablectl.core.game.actions import DealHole
from tablectl.core.table import TableConfig, TableState, step
from tablectl.sim.dealer import SimDealer, seated_table
from tablectl.views import secrecy
from tablectl.views.hands import (
    HANDS_KEPT,
    HEAD_STEPS,
    MAX_RULINGS,
    MAX_STEPS,
    TEXT_LIMIT,
    HandBook,
    HandRecord,
    hands_view,
    record_hands,
    record_view,
)
from tablectl.views.showdown import result
from tests.helpers.faulty_dealer import Dealer
from tests.helpers.faulty_dealer import seated_table as random_table
from tests.views.test_views import named_cards

SHIPPED_MAX_PACKET = 262_144


def play(state: TableState, sim: SimDealer, book: HandBook, events: int) -> tuple[TableState, HandBook]:
    for index in range(events):
        state, effects = step(state, sim.next_event(state))
        book = record_hands(book, state, effects, float(index))
    return state, book


def test_every_action_is_a_step_with_the_engines_pot_after_it() -> None:
    config = TableConfig(seats=9, game="NT", blinds=(50, 100))
    state = seated_table(config, players=6)
    sim = SimDealer(random.Random(4))
    book = HandBook()
    actions = 0
    for index in range(3000):
        state, effects = step(state, sim.next_event(state))
        book = record_hands(book, state, effects, float(index))
        applied = [e.action for e in effects if isinstance(e, Applied)]
        if not applied:
            continue
        progress = state.hand or state.last_hand
        assert progress is not None
        record = book.hands[-1]
        assert record.number == progress.number
        last = record.steps[-1]
        # The step of this event's last action: the pot and board the engine has after it.
        assert last["pot"] == progress.game.pot
        assert last["board"] == [card_str(c) for c in progress.game.board]
        if not isinstance(applied[-1], DealHole):
            actions += 1
    assert actions > 500
    assert len(book.hands) == HANDS_KEPT + 1
    numbers = [r.number for r in book.hands]
    assert numbers == sorted(numbers) and len(set(numbers)) == len(numbers)


def test_a_hand_played_out_has_its_steps_in_words_and_the_public_views_result() -> None:
    config = TableConfig(seats=9, game="NT", blinds=(50, 100))
    state = seated_table(config, players=4)
    sim = SimDealer(random.Random(2))
    book = HandBook()
    while True:
        before = state.hand
        state, effects = step(state, sim.next_event(state))
        book = record_hands(book, state, effects, 1.0)
        if before is not None and state.hand is None and state.last_hand is not None:
            break
    (record,) = book.hands
    view = record_view(record)
    assert view["end"] == "played" and not view["in_progress"]
    assert view["result"] == result(state)
    steps = view["steps"]
    assert [s["n"] for s in steps] == list(range(1, len(steps) + 1))
    assert steps[0]["kind"] == "start" and steps[0]["text"].startswith("Blinds posted: Seat ")
    assert steps[0]["pot"] == 150
    assert steps[1]["kind"] == "deal" and steps[1]["text"] == "Hole cards dealt"
    names = {s["seat"]: s["name"] for s in view["seats"]}
    for s in steps:
        if s["kind"] == "action":
            assert s["text"].startswith(f"Seat {s['seat']} ({names[s['seat']]}) ")
            assert s["action"] in ("fold", "check", "call", "bet", "raise")
    assert view["stacks"] == {
        str(seat): seat_state.stack
        for seat, seat_state in enumerate(state.seats, 1)
        if seat_state and str(seat) in view["stacks"]
    }
    full = hands_view(book, "7")
    assert full["live"] is None and full["table"] == "7" and full["hands"][0]["hand"] == record.number


def test_a_misdeal_or_void_hand_is_a_hand_of_its_own_with_its_ruling() -> None:
    rng = random.Random(3)
    state = random_table(rng)
    sim = Dealer(random.Random(4), fault_rate=0.3)
    book = HandBook()
    ended: dict[str, int] = {}
    for index in range(4000):
        state, effects = step(state, sim.next_event(state))
        book = record_hands(book, state, effects, float(index))
        record = book.hands[-1] if book.hands else None
        if record is None or record.tail is None or record.tail["end"] == "played" or state.hand is not None:
            continue
        view = record_view(record)
        assert view["result"] is None and view["stacks"]
        # Its own rulings: a command refused between hands (citing MD-2 after a void, say) is not one.
        rules = [r["rule"] for s in view["steps"] for r in s["rulings"] if r["severity"] != "refused"]
        assert ("MD-2" in rules) == (view["end"] == "misdeal"), rules
        ended[view["end"]] = ended.get(view["end"], 0) + 1
    assert ended.get("misdeal", 0) >= 3 and ended.get("void", 0) >= 1, ended


def test_no_record_names_a_card_that_was_not_face_up_whatever_goes_wrong() -> None:
    # The hand in progress names only the cards face up now (the floor view's rule); a finished
    # hand only the cards that were face up in it when it ended: never a hole card not shown, a
    # burn, a folded or mucked hand.
    hands = named = blanked = 0
    for seed in range(40):
        rng = random.Random(seed)
        state = random_table(rng)
        sim = Dealer(random.Random(seed + 1), fault_rate=0.3 if seed % 2 else 0.12)
        book = HandBook()
        up_at_end: dict[int, frozenset[int]] = {}
        hidden_at_end: dict[int, frozenset[int]] = {}
        for index in range(700):  # stud and draw hands take more events than hold'em's
            before = state.hand
            state, effects = step(state, sim.next_event(state))
            book = record_hands(book, state, effects, float(index))
            if before is not None and state.hand is None:
                hands += 1
                up_at_end[before.number] = secrecy.face_up(state)
                hidden_at_end[before.number] = secrecy.secret_cards(state)
            up = secrecy.face_up(state)
            # The hand in progress at every event; a finished hand once, as it ended.
            fresh = [r for r in book.hands[-1:] if not r.ended or (before is not None and state.hand is None)]
            for record in map(record_view, fresh):
                cards = named_cards(record)
                if record["in_progress"]:
                    assert cards <= up, (seed, record["hand"], sorted(card_str(c) for c in cards - up))
                else:
                    number = record["hand"]
                    assert cards <= up_at_end[number], (seed, number, cards - up_at_end[number])
                    assert not cards & hidden_at_end[number]
                named += len(cards)
                blanked += json.dumps(record).count(secrecy.HIDDEN_CARD)
    assert hands >= 900
    assert named > 1000 and blanked > 50  # the check saw both: cards named, and cards kept back


def test_a_long_hand_keeps_its_first_steps_and_the_newest() -> None:
    config = TableConfig(seats=9, game="NT", blinds=(50, 100))
    state = seated_table(config, players=6)
    sim = SimDealer(random.Random(1))
    book = HandBook()
    while state.hand is None or len(state.hand.log) < 6:
        state, effects = step(state, sim.next_event(state))
        book = record_hands(book, state, effects, 0.0)
    assert state.hand is not None
    # The same event's effects again and again: each gives a ruling step.
    ruling = Ruling("INPUT", "Seat 4: not your turn", Severity.REFUSED)
    for _ in range(MAX_STEPS * 2):
        book = record_hands(book, state, (ruling,), 1.0)
    record = book.hands[-1]
    assert len(record.steps) == MAX_STEPS
    numbers = [s["n"] for s in record.steps]
    assert numbers[:HEAD_STEPS] == list(range(1, HEAD_STEPS + 1))
    assert numbers[-1] == record.counted and numbers == sorted(numbers)
    view = record_view(record)
    assert view["steps_omitted"] == record.counted - MAX_STEPS
    assert sum(len(s["rulings"]) for s in view["steps"]) <= MAX_RULINGS
    assert view["rulings_omitted"] == record.rulings - MAX_RULINGS > 0


def test_at_the_bounds_the_message_fits_the_brokers_max_packet_size() -> None:
    # The worst the bounds allow: eleven hands of MAX_STEPS steps, every text at TEXT_LIMIT, ten
    # seats with long names, a full board and the most rulings; the view leaves out old hands
    # rather than go over its budget, and the message fits the shipped max_packet_size.
    long = "x" * TEXT_LIMIT
    board = ["Ah", "Kd", "2c", "7s", "Tc"]
    ruling = {"rule": "BOARD-3", "text": long, "severity": "correct"}

    def step_at(n: int, rulings: int) -> dict[str, object]:
        return {
            "n": n, "kind": "action", "seat": 10, "name": long, "action": "raise", "amount": 10**12,
            "all_in": True, "text": long, "street": "river", "board": board, "pot": 10**13,
            "at": 1769681700.123456, "rulings": [ruling] * rulings,
        }  # fmt: skip

    steps = tuple(step_at(n, 1 if n <= MAX_RULINGS else 0) for n in range(1, MAX_STEPS + 1))
    head = {
        "hand": 1, "started_at": 1769681700.123456, "game": "FO/8", "blinds": [10**12, 10**12, 10**12],
        "ante": 10**12, "button": 10,
        "seats": [{"seat": s, "name": long, "stack": 10**12} for s in range(1, 11)],
    }  # fmt: skip
    awards = [
        {
            "pot": i,
            "pot_name": f"side pot {i}",
            "half": "high",
            "amount": 10**12,
            "seats": list(range(1, 11)),
            "hand": long,
        }
        for i in range(10)
    ]
    shown = {str(s): ["Ah", "Kd", "2c", "7s"] for s in range(1, 11)}
    pushed = [{"seat": s, "chips": 10**12} for s in range(1, 11)]
    tail = {
        "ended_at": 1769681800.0,
        "end": "played",
        "result": {"hand": 1, "board": board, "shown": shown, "awards": awards, "pushed": pushed},
        "stacks": {str(s): 10**12 for s in range(1, 11)},
    }
    records = []
    for number in range(1, HANDS_KEPT + 2):
        record = HandRecord(number, {**head, "hand": number}, steps, counted=500, rulings=99, tail=tail)
        if number <= HANDS_KEPT:
            size = len(json.dumps(record_view(record), separators=(",", ":")).encode())
            records.append(record._replace(size=size))
        else:
            records.append(record._replace(tail=None))  # the hand in progress
    book = HandBook(tuple(records))
    view = hands_view(book, "x" * 32)
    assert view["hands"][0]["in_progress"] and view["hands_left_out"] > 0
    name = "x" * 32  # the longest room and table names
    box = Outbox(
        Topics(name, name), "e" * 22, now=0.0, config=OutboxConfig(max_packet_size=SHIPPED_MAX_PACKET)
    )
    assert box.state_changed({"hands": view}, {"view": "private"}, None, 0.0) == 2  # hands and hole
    sent = [o.message for o in box.stop(0.0) if o.message.topic.endswith("/hands")]
    assert len(sent) == 1 and box.stats.oversize == 0
    message: Message = sent[0]
    print("hands message at the bounds:", packet_size(message), "bytes")
    assert 150_000 < packet_size(message) <= SHIPPED_MAX_PACKET, packet_size(message)
    # A realistic long session stays whole: eleven hands of sixty steps fit without leaving any out.
    typical = tuple(
        step_at(n, 0) | {"name": "Ann", "text": "Seat 10 (Ann) raises to 1,200"} for n in range(1, 61)
    )
    seats = [{"seat": s, "name": "Ann", "stack": 10_000} for s in range(1, 11)]
    ended = {**tail, "result": None}
    full = HandBook(
        tuple(
            r._replace(steps=typical, size=0, head={**r.head, "seats": seats}, tail=ended if r.tail else None)
            for r in records
        )
    )
    assert hands_view(full)["hands_left_out"] == 0
