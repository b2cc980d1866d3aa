"""What the three displays read: the showdown named in words, the last action, the open alerts,
the floor's pace and the summary tile; every view as the schemas say, and none naming a card
that is not face up, whatever goes wrong at the table."""

from __future__ import annotations

import dataclasses
import json
import random
from typing import Any

from tablectl.adapters.mqtt.topics import dumps, envelope
from tablectl.core import evaluator
from tablectl.core.cards import parse_cards
from tablectl.core.events import DealerAction, DealerCommand, DeviceStatus
from tablectl.core.table import TableConfig, step
from tablectl.sim.dealer import SimDealer, seated_table
from tablectl.views import dealer, floor, public, secrecy, summary
from tests.helpers.brokers import schemas
from tests.helpers.faulty_dealer import Dealer
from tests.helpers.faulty_dealer import seated_table as random_table
from tests.views.test_views import named_cards


def high(text: str) -> int:
    return evaluator.evaluate_high(parse_cards(text))


def test_winning_hands_are_named_as_a_dealer_says_them() -> None:
    assert evaluator.describe_high(high("9s 9h 9d Kc Kh"), full="over") == "Full house, nines over kings"
    assert evaluator.describe_high(high("9s 9h 9d Kc Kh")) == "Full house, nines full of kings"
    assert evaluator.describe_high(high("As Ah 4d 4c 7h"), full="over") == "Two pair, aces and fours"
    low = evaluator.evaluate_low8(parse_cards("8s 6h 4d 2c Ah Kd Qs"))
    assert low is not None and evaluator.name_low(low) == "eight-six"
    wheel = evaluator.evaluate_low8(parse_cards("5s 4h 3d 2c Ah"))
    assert wheel is not None and evaluator.name_low(wheel) == "five-four"


def test_the_showdown_names_both_halves_and_the_chips_pushed() -> None:
    config = TableConfig(seats=9, game="FO/8", blinds=(50, 100), small_bet=100, big_bet=200)
    state = seated_table(config, players=6)
    sim = SimDealer(random.Random(8))
    halves: set[str] = set()
    for _ in range(20_000):
        before = state.hand
        state, _ = step(state, sim.next_event(state))
        view = public(state)
        if before is None or state.hand is not None:
            assert view["result"] is None or state.hand is None
            continue
        result = view["result"]
        assert result is not None and result["hand"] == before.number
        won = sum(a["amount"] for a in result["awards"])
        assert sum(p["chips"] for p in result["pushed"]) == won
        for award in result["awards"]:
            if award["hand"] is not None:
                assert all(str(seat) in result["shown"] for seat in award["seats"])
                halves.add(award["half"])
                if award["half"] == "low":
                    assert award["hand"].startswith("Low: ")
        if {"high", "low"} <= halves:
            break
    assert {"high", "low"} <= halves


def test_the_last_action_is_told_in_words() -> None:
    state = seated_table(TableConfig(seats=6, game="NT", blinds=(50, 100)), players=3)
    sim = SimDealer(random.Random(1))
    verbs: set[str] = set()
    for _ in range(3000):
        state, _ = step(state, sim.next_event(state))
        last = public(state)["last_action"]
        if last is not None:
            verbs.add(last["action"])
            assert last["text"].startswith(f"Seat {last['seat']} (")
    assert {"fold", "call", "raise"} <= verbs


def snapshot(view: dict[str, Any], name: str) -> dict[str, Any]:
    return {**envelope("snapshot", "main", "7", "e1", 1, 1.0), "view": name, "state": view}


def test_every_view_matches_its_schema_and_names_only_face_up_cards() -> None:
    validate = schemas()
    biggest = 0
    for seed in range(4):
        rng = random.Random(seed)
        state = random_table(rng)
        sim = Dealer(random.Random(seed + 1), fault_rate=0.25)
        at = 1_800_000_000.0
        for index in range(400):
            at += 5.0
            event = sim.next_event(state)
            if index % 97 == 0:
                event = DealerCommand(DealerAction.CALL_FLOOR, name="Dana " + "x" * 35, reason="y" * 80)
            elif index % 89 == 0:
                event = DeviceStatus("shoe", ok=rng.random() < 0.5)
            elif index % 131 == 0:
                event = DealerCommand(DealerAction.CLOCK_IN, name=f"Dealer {index}")
            state, _ = step(state, dataclasses.replace(event, at=at))  # type: ignore[type-var]
            up = secrecy.face_up(state)
            say = secrecy.speaker(state)
            views = {"public": public(state)}
            views["dealer"] = dealer(state, base=views["public"])
            views["floor"] = floor(state, base=views["dealer"], now=at)
            views["summary"] = summary(state, say, at)
            for name, view in views.items():
                validate(f"snapshot-{name}", snapshot(view, name))
                assert named_cards(view) <= up, (seed, name)
            assert views["summary"]["alerts"] == len(views["dealer"]["open_alerts"])
            biggest = max(biggest, len(dumps(snapshot(views["summary"], "summary"))))
    assert biggest < 600  # the tile stays small whatever was typed (names, reasons at their bounds)


def test_the_floor_and_summary_carry_the_room_s_operational_fields() -> None:
    state = seated_table(TableConfig(table="7", seats=9, game="NT", blinds=(50, 100)), players=6)
    state, _ = step(state, DealerCommand(DealerAction.CLOCK_IN, name="Dana", at=100.0))
    state, _ = step(state, DeviceStatus("camera", ok=False, at=101.0))
    state, _ = step(state, DealerCommand(DealerAction.CALL_FLOOR, reason="dispute", at=102.0))
    view = floor(state, now=200.0)
    assert view["dealer"] == {"name": "Dana", "since": 100.0}
    assert view["table_state"] == "paused" and view["hands_per_hour"] == 0 and view["last_hand_at"] is None
    assert view["alert_counts"] == {"floor": 2}
    assert [a["kind"] for a in view["open_alerts"]] == ["floor_call", "device"]
    assert view["open_alerts"][0]["since"] == 102.0
    tile = summary(state, secrecy.speaker(state), 200.0)
    assert tile == {
        "view": "summary",
        "game": "NT",
        "stakes": "50/100",
        "rotation": None,
        "seats_taken": 6,
        "seats": 9,
        "dealer": "Dana",
        "dealer_since": 100.0,
        "hands_per_hour": 0,
        "last_hand_at": None,
        "table_state": "paused",
        "hand": None,
        "alerts": 2,
        "worst": {"severity": "floor", "rule": "CALL", "text": "Dana calls the floor: dispute"},
    }
    assert json.loads(json.dumps(tile)) == tile
