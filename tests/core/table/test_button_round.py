"""TBL-1: a misplaced button is corrected so that every player gets one chance at each position in
the round, if possible (docs/rules.md, TBL-1).

The properties play random tables through ``step`` and keep their own account of each round by
player name (not by seat: a seat can change hands), written apart from the table's
``TableState.orbit``:

* after the floor reports a misplaced button, no deal of that round gives a player a second big
  blind while another active player has had none (any seat can be made the big blind, so that is
  always possible);
* with the same players through the round, the round ends with every player having had the
  button, the small blind and the big blind, and nobody has a position twice but for the
  repeats the misplaced hand itself made.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import dataclass, field

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tablectl.core.effects import Effect, Ruling, Severity
from tablectl.core.events import (
    CardDrawn,
    DealerInput,
    DealerKey,
    FloorCommand,
    FloorKind,
    from_json,
    to_json,
)
from tablectl.core.game.engine import Phase
from tablectl.core.table import ButtonFix, Positions, TableConfig, TableState, new_table, step
from tablectl.journal.snapshot import dumps, loads, table_restore, table_snapshot
from tests.helpers.paths import ROOT

SETTINGS = settings(
    max_examples=150,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

Named = tuple[str, str, str]  # (button, small blind, big blind) by player name


def refusals(effects: tuple[Effect, ...]) -> list[Ruling]:
    return [e for e in effects if isinstance(e, Ruling) and e.severity is Severity.REFUSED]


def floor(state: TableState, kind: FloorKind, **kw: object) -> tuple[TableState, tuple[Effect, ...]]:
    return step(state, FloorCommand(kind, "Flo", **kw))  # type: ignore[arg-type]


def play_hand(state: TableState) -> TableState:
    """Deal the next hand and fold it round to the last player."""
    state, effects = step(state, DealerInput(DealerKey.NEW_HAND))
    assert state.hand is not None, effects
    cards = iter(range(52))
    while state.hand is not None and state.hand.game.phase is not Phase.BETTING:
        state, effects = step(state, CardDrawn(next(cards)))
        assert not refusals(effects), effects
    while state.hand is not None:
        actor = state.hand.game.actor
        assert actor is not None
        state, effects = step(state, DealerInput(DealerKey.FOLD, seat=state.hand.seat(actor)))
        assert not refusals(effects), effects
    return state


def positions_dealt(seats_in: tuple[int, ...], button: int | None = None) -> tuple[int, int, int]:
    """(button, small, big) of a deal, from its seats in order left of the button (button last),
    or, given ``button``, had the button been there."""
    if button is not None:
        at = seats_in.index(button)
        seats_in = seats_in[at + 1 :] + seats_in[: at + 1]
    if len(seats_in) == 2:
        return seats_in[1], seats_in[1], seats_in[0]
    return seats_in[-1], seats_in[0], seats_in[1]


def active_names(state: TableState) -> set[str]:
    return {s.name for s in state.seats if s is not None and not s.sitting_out and s.stack > 0}


@dataclass
class Round:
    """The test's own account of the round of the button, by player name."""

    seats: int
    hands: list[Named] = field(default_factory=list)
    correcting: bool = False
    closed: list[Named] = field(default_factory=list)  # the hands of the round closed last
    names: dict[int, str] = field(default_factory=dict)  # who sat where at the last deal

    def before_deal(self, state: TableState) -> set[str]:
        """Close the round if it is over; the active players who still owe the big blind."""
        active = active_names(state)
        bigs = {h[2] for h in self.hands}
        if self.hands and (active <= bigs or len(self.hands) >= 2 * self.seats):
            self.closed, self.hands = self.hands, []
            self.correcting = False
        return active - {h[2] for h in self.hands}

    def dealt(self, state: TableState) -> Named:
        hand = state.hand if state.hand is not None else state.last_hand
        assert hand is not None
        self.names = {s: state.seat(s).name for s in hand.seats_in}  # type: ignore[union-attr]
        self.hands.append(self.named(positions_dealt(hand.seats_in)))
        return self.hands[-1]

    def misplaced(self, actual: tuple[int, int, int]) -> None:
        self.hands[-1] = self.named(actual)
        self.correcting = True

    def named(self, seats: tuple[int, int, int]) -> Named:
        return self.names[seats[0]], self.names[seats[1]], self.names[seats[2]]


# -- the properties -----------------------------------------------------------------------------


@st.composite
def tables(draw: st.DrawFn) -> tuple[TableState, random.Random]:
    seats = draw(st.integers(2, 10))
    occupied = draw(st.sets(st.integers(1, seats), min_size=2, max_size=seats))
    players = {n: (f"P{n}", 10_000) for n in sorted(occupied)}
    button = draw(st.sampled_from(sorted(occupied)))
    config = TableConfig(seats=seats, game="NT", blinds=(50, 100))
    return new_table(config, players, button), random.Random(draw(st.integers(0, 2**32)))


@SETTINGS
@given(tables())
def test_nobody_pays_a_second_big_blind_while_another_has_none(
    table: tuple[TableState, random.Random],
) -> None:
    state, rng = table
    model = Round(len(state.seats))
    newcomers = 0
    for _ in range(40):
        roll = rng.random()
        if roll < 0.55 and len(active_names(state)) >= 2:
            correcting = model.correcting
            owing = model.before_deal(state)
            state = play_hand(state)
            _, _, big = model.dealt(state)
            assert model.named(state.orbit[-1]) == model.hands[-1]
            assert len(state.orbit) == len(model.hands)
            if correcting and owing:
                assert big in owing, (model.hands, owing)
            continue
        if roll < 0.8 and state.last_hand is not None:
            last = state.last_hand.seats_in
            seat = rng.choice((None, *last))
            state, effects = floor(state, FloorKind.BUTTON_MISPLACED, seat=seat)
            assert not refusals(effects), effects  # about the last hand: even if a player left since
            assert state.button_fix is ButtonFix.REPORTED
            if seat is not None:
                model.misplaced(positions_dealt(last, seat))
            else:
                model.correcting = True
            continue
        seat = rng.randrange(1, len(state.seats) + 1)
        current = state.seat(seat)
        if current is None:
            newcomers += 1
            state, _ = floor(state, FloorKind.SEAT_PLAYER, seat=seat, name=f"N{newcomers}", amount=5_000)
        elif roll < 0.88:
            kind = FloorKind.SIT_IN if current.sitting_out else FloorKind.SIT_OUT
            state, _ = floor(state, kind, seat=seat)
        else:
            state, _ = floor(state, FloorKind.REMOVE_PLAYER, seat=seat)
        if len(active_names(state)) < 2:  # keep the game going: everyone back in
            for number, s in enumerate(state.seats, 1):
                if s is not None and s.sitting_out:
                    state, _ = floor(state, FloorKind.SIT_IN, seat=number)
            if len(active_names(state)) < 2:
                free = next(n for n, s in enumerate(state.seats, 1) if s is None)
                newcomers += 1
                state, _ = floor(state, FloorKind.SEAT_PLAYER, seat=free, name=f"N{newcomers}", amount=5_000)


@SETTINGS
@given(tables(), st.integers(0, 20), st.data())
def test_the_round_ends_with_each_position_once_but_for_the_misplaced_hand(
    table: tuple[TableState, random.Random], normal_hands: int, data: st.DataObject
) -> None:
    state, _ = table
    model = Round(len(state.seats))
    for _ in range(normal_hands + 1):  # hands as the table moves the button; the last misplaced
        model.before_deal(state)
        state = play_hand(state)
        model.dealt(state)
    assert state.last_hand is not None
    last = state.last_hand.seats_in
    seat = data.draw(st.sampled_from(last))
    state, effects = floor(state, FloorKind.BUTTON_MISPLACED, seat=seat)
    assert not refusals(effects)
    model.misplaced(positions_dealt(last, seat))
    before = [Counter(h[k] for h in model.hands) for k in range(3)]
    players = active_names(state)
    while True:
        owing = model.before_deal(state)
        if not model.hands:  # the round is over
            break
        state = play_hand(state)
        assert model.dealt(state)[2] in owing
        assert len(model.hands) <= 2 * len(players)
    assert state.button_fix is not ButtonFix.OFF  # until the deal that starts the next round
    state = play_hand(state)
    assert state.button_fix is ButtonFix.OFF and len(state.orbit) == 1
    # every player had each position; a position twice only where the misplaced hand made it so
    final = [Counter(h[k] for h in model.closed) for k in range(3)]
    for k, name in enumerate(("button", "small blind", "big blind")):
        for player in players:
            assert final[k][player] >= 1, (name, player, final[k])
            if final[k][player] > 1:
                assert before[k][player] == final[k][player], (name, player, before[k], final[k])


# -- examples -----------------------------------------------------------------------------------


def four_handed(button: int = 4) -> TableState:
    config = TableConfig(seats=6, game="NT", blinds=(50, 100))
    players = {n: (name, 1_000) for n, name in ((1, "Ann"), (2, "Bob"), (3, "Cy"), (4, "Dee"))}
    return new_table(config, players, button)


def test_the_round_is_kept_hand_by_hand_and_survives_a_snapshot() -> None:
    state = play_hand(play_hand(four_handed()))
    assert state.orbit == (Positions(4, 1, 2), Positions(1, 2, 3))
    state, effects = floor(state, FloorKind.BUTTON_MISPLACED, seat=2)
    assert [e.text for e in effects if isinstance(e, Ruling)] == [
        "The button was at seat 2 on hand 2: the next deal corrects it."
    ]
    assert state.orbit == (Positions(4, 1, 2), Positions(2, 3, 4))
    assert state.button == 2 and state.button_fix is ButtonFix.REPORTED
    assert state.overrides[-1][1:] == ("Flo", "TBL-1", "button misplaced: seat 2", "")
    assert loads(dumps(state)) == state
    snapshot = table_snapshot(state)
    assert snapshot is not None and table_restore(snapshot) == state
    assert step(table_restore(snapshot), DealerInput(DealerKey.NEW_HAND)) == step(
        state, DealerInput(DealerKey.NEW_HAND)
    )


def test_without_a_seat_the_record_stands_and_the_next_deals_are_fair() -> None:
    # The floor put the button two seats on by hand (a wrong move_button); the hand was played so.
    state = play_hand(four_handed())
    state, _ = floor(state, FloorKind.MOVE_BUTTON, seat=2)
    state = play_hand(state)
    assert state.orbit == (Positions(4, 1, 2), Positions(2, 3, 4))
    state, effects = floor(state, FloorKind.BUTTON_MISPLACED)
    assert "misplaced on hand 2" in effects[0].text  # type: ignore[union-attr]
    state = play_hand(state)  # button 3: seat 1 has the big blind
    state = play_hand(state)  # seat 3 owes it: button 1, not 4
    assert state.orbit[2:] == (Positions(3, 4, 1), Positions(1, 2, 3))


def test_a_player_who_leaves_takes_their_positions_along() -> None:
    state = play_hand(play_hand(four_handed()))
    state, _ = floor(state, FloorKind.REMOVE_PLAYER, seat=2)
    assert state.orbit == (Positions(4, 1, 0), Positions(1, 0, 3))
    state, _ = floor(state, FloorKind.SEAT_PLAYER, seat=2, name="Eve", amount=1_000)
    state, _ = floor(state, FloorKind.BUTTON_MISPLACED, seat=1)
    # Eve (seat 2) owes every position; seats 1 and 4 owe the big blind: the usual move from
    # seat 1 gives it to seat 4, and nobody a second one.
    state = play_hand(state)
    assert state.orbit[-1] == Positions(2, 3, 4)


def test_a_new_round_ends_the_correction() -> None:
    state = four_handed()
    for _ in range(4):
        state = play_hand(state)
    state, _ = floor(state, FloorKind.BUTTON_MISPLACED)  # the round's last hand: it stands
    state, effects = step(state, DealerInput(DealerKey.NEW_HAND))
    assert state.orbit == (Positions(4, 1, 2),) and state.button_fix is ButtonFix.OFF
    assert any(isinstance(e, Ruling) and e.rule == "TBL-1" for e in effects)


@pytest.mark.parametrize(
    ("when", "seat", "rule", "why"),
    [
        ("before any hand", 2, "TBL-1", "no hand has been dealt yet"),
        ("during a hand", 2, "TBL-1", "between hands"),
        ("after a hand", 5, "INPUT", "seat 5 is empty"),
        ("after a newcomer", 5, "INPUT", "seat 5 was not dealt in last hand"),
        ("after a misdeal", 2, "MD-2", "redealt with the same button"),
    ],
)
def test_refused_reports_say_why_and_change_nothing(when: str, seat: int, rule: str, why: str) -> None:
    state = four_handed()
    if when != "before any hand":
        state, _ = step(state, DealerInput(DealerKey.NEW_HAND))
    if when in ("after a hand", "after a newcomer"):
        state = play_hand(four_handed())
    if when == "after a newcomer":
        state, _ = floor(state, FloorKind.SEAT_PLAYER, seat=5, name="Eve", amount=1_000)
    if when == "after a misdeal":
        state, _ = step(state, DealerInput(DealerKey.MISDEAL, cause="a"))
        state, _ = step(state, DealerInput(DealerKey.CONFIRM))
        assert state.redeal
    after, effects = floor(state, FloorKind.BUTTON_MISPLACED, seat=seat)
    assert after == state
    assert [(r.rule, why in r.text) for r in refusals(effects)] == [(rule, True)]


def test_the_command_reads_and_writes_as_json() -> None:
    command = FloorCommand(FloorKind.BUTTON_MISPLACED, "Flo", seat=3, at=1.5)
    data = to_json(command)
    assert data == {"type": "floor", "v": 1, "kind": "button_misplaced", "by": "Flo", "seat": 3, "at": 1.5}
    assert from_json(json.loads(json.dumps(data))) == command


def test_every_floor_kind_is_listed_wherever_the_kinds_are_listed() -> None:
    kinds = {kind.value for kind in FloorKind}
    schema = json.loads((ROOT / "docs/schemas/cmd-floor.json").read_text(encoding="utf-8"))
    assert set(schema["properties"]["kind"]["enum"]) == kinds
    for doc in ("docs/mqtt.md", "docs/rules.md", "docs/operating.md"):
        text = (ROOT / doc).read_text(encoding="utf-8")
        assert all(kind in text for kind in kinds), (doc, sorted(k for k in kinds if k not in text))


def test_a_report_about_a_player_who_has_since_left() -> None:
    # Seat 2 had the big blind last hand and has left; Eve sits there before the floor reports
    # the button at seat 4 (seat 1 small, seat 2 big): the big blind was the leaver's, not Eve's.
    state = play_hand(four_handed(button=3))
    assert state.orbit == (Positions(3, 4, 1),)
    state, _ = floor(state, FloorKind.REMOVE_PLAYER, seat=2)
    state, _ = floor(state, FloorKind.SEAT_PLAYER, seat=2, name="Eve", amount=1_000)
    state, effects = floor(state, FloorKind.BUTTON_MISPLACED, seat=4)
    assert not refusals(effects)
    assert state.orbit == (Positions(4, 1, 0),)
    state, effects = floor(state, FloorKind.BUTTON_MISPLACED, seat=2)  # the leaver had the button
    assert not refusals(effects) and state.orbit == (Positions(0, 3, 4),)


def test_the_floor_view_shows_the_round_and_the_correction() -> None:
    from tablectl.views.audiences import floor as floor_view

    state = play_hand(four_handed(button=4))
    view = floor_view(state)
    assert view["button_correction"] == "off"
    assert view["button_round"] == [{"button": 4, "small": 1, "big": 2}]
    state, _ = floor(state, FloorKind.BUTTON_MISPLACED, seat=2)
    assert floor_view(state)["button_correction"] == "reported"
    state = play_hand(state)
    view = floor_view(state)
    assert view["button_correction"] == "round" and len(view["button_round"]) == 2
    assert view["button_round"][0] == {"button": 2, "small": 3, "big": 4}  # the record, corrected
