"""The dealer's own commands (cmd/dealer): confirm as the panel's key, call the floor until a
supervisor answers, clock in and out; hands per hour from the hands' end times."""

from __future__ import annotations

import random

import pytest

from tablectl.core.cards import parse_card
from tablectl.core.effects import HandEnded, Ruling, Severity
from tablectl.core.events import (
    CardDrawn,
    DealerAction,
    DealerCommand,
    DealerInput,
    DealerKey,
    FloorCommand,
    FloorKind,
    from_json,
    to_json,
)
from tablectl.core.table import TableConfig, TableState, step
from tablectl.core.table.state import HOUR, MAX_FLOOR_CALLS
from tablectl.sim.dealer import SimDealer, seated_table
from tablectl.views.operations import hands_per_hour, table_state

CONFIG = TableConfig(table="7", seats=6, game="NT", blinds=(50, 100))


def table() -> TableState:
    return seated_table(CONFIG, players=3)


def rulings(effects: tuple[object, ...]) -> list[Ruling]:
    return [e for e in effects if isinstance(e, Ruling)]


def answer(action: DealerAction, **fields: object) -> DealerCommand:
    return DealerCommand(action, at=fields.pop("at", 1000.0), **fields)  # type: ignore[arg-type]


def test_a_confirm_with_nothing_waiting_is_refused_and_changes_nothing() -> None:
    for state in (table(), step(table(), DealerInput(DealerKey.NEW_HAND))[0]):
        after, effects = step(state, answer(DealerAction.CONFIRM))
        assert after is state
        (ruling,) = rulings(effects)
        assert ruling.severity is Severity.REFUSED and "nothing waits for confirmation" in ruling.text


def test_a_confirm_from_the_screen_does_what_the_panel_key_does() -> None:
    # IRR-2: a second Kh voids the hand once the dealer confirms.
    state, _ = step(table(), DealerInput(DealerKey.NEW_HAND))
    king = parse_card("Kh")
    state, _ = step(state, CardDrawn(king))
    state, _ = step(state, CardDrawn(king))
    assert state.hand is not None and state.hand.pending is not None
    assert table_state(state) == "paused"
    by_key = step(state, DealerInput(DealerKey.CONFIRM, at=1000.0))
    by_screen = step(state, answer(DealerAction.CONFIRM))
    assert by_screen[0] == by_key[0] and by_screen[0].hand is None
    assert [type(e) for e in by_screen[1]] == [type(e) for e in by_key[1]]
    assert any(isinstance(e, HandEnded) and e.voided for e in by_screen[1])


def test_a_call_to_the_floor_is_an_alert_listed_until_a_supervisor_answers_it() -> None:
    state, _ = step(table(), answer(DealerAction.CLOCK_IN, name="Dana", at=900.0))
    state, effects = step(state, answer(DealerAction.CALL_FLOOR, reason="player dispute"))
    (ruling,) = rulings(effects)
    assert ruling.rule == "CALL" and ruling.severity is Severity.FLOOR and ruling.severity.is_alert
    assert ruling.text == "Dana calls the floor to table 7: player dispute."
    assert [(c.by, c.at, c.reason) for c in state.floor_calls] == [("Dana", 1000.0, "player dispute")]
    assert table_state(state) == "paused"
    # A supervisor answers with an override of ruling CALL; the remedy is recorded with who.
    answered = FloorCommand(FloorKind.OVERRIDE, by="Ann", ruling="CALL", decision="accept", user="floor.ann")
    after, effects = step(state, answered)
    assert after.floor_calls == () and table_state(after) == "between_hands"
    assert rulings(effects)[0].text == "The floor (Ann) answers the dealer's call."
    assert after.overrides[-1][1:] == ("Ann", "CALL", "accept", "floor.ann")
    again, effects = step(after, answered)
    assert again is after and "no call to the floor is open" in rulings(effects)[0].text
    wrong = FloorCommand(FloorKind.OVERRIDE, by="Ann", ruling="CALL", decision="reject")
    assert step(state, wrong)[0] is state


def test_floor_calls_are_bounded_and_default_to_the_dealer_clocked_in() -> None:
    state = table()
    for _ in range(MAX_FLOOR_CALLS):
        state, _ = step(state, answer(DealerAction.CALL_FLOOR))
    assert [c.by for c in state.floor_calls] == ["the dealer"] * MAX_FLOOR_CALLS
    after, effects = step(state, answer(DealerAction.CALL_FLOOR, name="Eve"))
    assert after is state and rulings(effects)[0].severity is Severity.REFUSED


def test_clock_in_and_out_by_name() -> None:
    state, effects = step(table(), answer(DealerAction.CLOCK_IN, name=" Dana ", at=1000.0))
    assert state.dealer is not None and state.dealer == ("Dana", 1000.0)
    assert rulings(effects)[0].text == "Dana clocks in at table 7."
    assert step(state, answer(DealerAction.CLOCK_IN, name="Dana"))[0] is state  # already in
    pushed, effects = step(state, answer(DealerAction.CLOCK_IN, name="Eve", at=2800.0))
    assert pushed.dealer == ("Eve", 2800.0) and "(Dana clocks out)" in rulings(effects)[0].text
    assert step(state, answer(DealerAction.CLOCK_OUT, name="Eve"))[0] is state  # not Eve's shift
    out, effects = step(state, answer(DealerAction.CLOCK_OUT, at=2800.0))
    assert out.dealer is None and rulings(effects)[0].text == "Dana clocks out of table 7 after 30 min."
    assert step(out, answer(DealerAction.CLOCK_OUT))[0] is out  # nobody to clock out


@pytest.mark.parametrize(
    ("command", "words"),
    [
        (DealerCommand(DealerAction.CLOCK_IN, name="  "), "give the dealer's name"),
        (DealerCommand(DealerAction.CLOCK_IN), "give the dealer's name"),
        (DealerCommand(DealerAction.CLOCK_IN, name="x" * 41), "at most 40"),
        (DealerCommand(DealerAction.CALL_FLOOR, reason="x" * 81), "at most 80"),
        (DealerCommand(DealerAction.CALL_FLOOR, name=7), "name is a text"),  # type: ignore[arg-type]
        (DealerCommand(DealerAction.CONFIRM, name="Dana"), "confirm takes no name"),
        (DealerCommand(DealerAction.CLOCK_OUT, reason="tired"), "takes no reason"),
    ],
)
def test_bad_fields_are_refused_with_the_reason(command: DealerCommand, words: str) -> None:
    state = table()
    after, effects = step(state, command)
    assert after is state
    (ruling,) = rulings(effects)
    assert ruling.severity is Severity.REFUSED and words in ruling.text


def test_a_dealer_command_reads_back_from_json() -> None:
    command = DealerCommand(DealerAction.CALL_FLOOR, name="Dana", reason="dispute", at=12.5, user="dealer.7")
    data = to_json(command)
    assert data == {
        "type": "dealer_command",
        "v": 1,
        "action": "call_floor",
        "name": "Dana",
        "reason": "dispute",
        "at": 12.5,
        "user": "dealer.7",
    }
    assert from_json(data) == command
    assert from_json(data, journaled=True) == command


def test_hands_per_hour_count_the_hands_played_out_in_the_last_hour() -> None:
    state = table()
    sim = SimDealer(random.Random(4))
    at, ended = 0.0, []
    while len(ended) < 12:
        at += 20.0  # a hand about every few minutes
        event = sim.next_event(state)
        before = state.hand
        state, effects = step(state, type(event)(**{**_fields(event), "at": at}))
        if any(isinstance(e, HandEnded) and not (e.voided or e.misdeal) for e in effects):
            ended.append(at)
        assert before is not None or state.hand_times == tuple(ended[-len(state.hand_times) :] or ())
    assert state.hand_times[-1] == ended[-1]
    assert hands_per_hour(state) == sum(1 for t in ended if ended[-1] - t < HOUR)
    assert hands_per_hour(state, now=ended[-1] + HOUR) == 0
    assert all(ended[-1] - t < HOUR for t in state.hand_times)


def _fields(event: object) -> dict[str, object]:
    return {name: getattr(event, name) for name in event.__dataclass_fields__}  # type: ignore[attr-defined]
