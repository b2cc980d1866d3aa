"""Properties of the controller's one step function under random event streams.

A simulated dealer deals real hands through ``tablectl.core.table.step`` (cards drawn from a
shuffled shoe, betting actions from the panel, showdowns, confirmations) and, at random
moments, makes the mistakes and the noise a live table makes: boxed, foreign, duplicate and
unread cards, extra and premature cards, camera sightings in every zone (right and wrong),
dealer keys at the wrong moment or for the wrong seat, misdeal calls, floor commands, devices
lost. Whatever happens:

* chips are conserved at the table at every step (only seating and adding chips change them);
* an event that is refused leaves the state equal to what it was;
* the table never wedges: from any state, a floor ``void_hand`` returns every chip of the hand
  in progress and a ``new hand`` starts the next one;
* ``step`` is deterministic: folding the same events again gives equal states and effects.

Seeded random streams (no hypothesis database): a failure names its seed and step.
"""

from __future__ import annotations

import random

import pytest

from tablectl.core.effects import Effect, HandEnded, Ruling, Severity
from tablectl.core.events import DealerInput, DealerKey, Event, FloorCommand, FloorKind
from tablectl.core.table import TableState, step
from tests.helpers.faulty_dealer import SEATS, Dealer, seated_table


def table_chips(state: TableState) -> int:
    """Every chip at the table: in front of the players and, during a hand, in the pot."""
    hand = state.hand
    seats_in = set(hand.seats_in) if hand is not None else set()
    total = sum(s.stack for n, s in enumerate(state.seats, 1) if s is not None and n not in seats_in)
    if hand is not None:
        total += sum(hand.game.stacks) + hand.game.pot
    return total


def refused(effects: tuple[Effect, ...]) -> bool:
    return any(isinstance(e, Ruling) and e.severity is Severity.REFUSED for e in effects)


def expected_change(before: TableState, event: Event, after: TableState) -> int:
    """Chips the floor brought to or took from the table with this event (0 for all else)."""
    if not isinstance(event, FloorCommand) or event.seat is None or not 1 <= event.seat <= SEATS:
        return 0
    was, now = before.seat(event.seat), after.seat(event.seat)
    if event.kind is FloorKind.ADD_CHIPS and was is not None and now is not None:
        assert now.stack - was.stack in (0, event.amount)
        return now.stack - was.stack
    if event.kind is FloorKind.SEAT_PLAYER and was is None and now is not None:
        assert now.stack == event.amount
        return now.stack
    if event.kind is FloorKind.REMOVE_PLAYER and was is not None and now is None:
        return -was.stack
    return 0


def can_always_restart(state: TableState) -> None:
    """From any state: the floor voids the hand (every chip back), and a new hand starts."""
    if state.hand is not None:
        hand = state.hand
        voided, effects = step(state, FloorCommand(FloorKind.VOID_HAND, "check"))
        assert voided.hand is None, effects
        for position, seat in enumerate(hand.seats_in):
            assert voided.seat(seat).stack == hand.game.config.starting_stacks[position]  # type: ignore[union-attr]
        ended = [e for e in effects if isinstance(e, HandEnded)]
        assert ended and ended[-1].voided
        state = voided
    active = [
        n
        for n in range(1, SEATS + 1)
        if (s := state.seat(n)) is not None and s.stack > 0 and not s.sitting_out
    ]
    started, effects = step(state, DealerInput(DealerKey.NEW_HAND))
    if len(active) >= 2:
        assert not refused(effects), effects
        assert started.hand is not None or started.button_draw is not None
    else:
        assert refused(effects) and started == state


def run_stream(seed: int, length: int, fault_rate: float) -> tuple[list[Event], TableState, list[Effect]]:
    rng = random.Random(seed)
    state = seated_table(rng)
    dealer = Dealer(random.Random(seed + 1), fault_rate)
    events: list[Event] = []
    everything: list[Effect] = []
    total = table_chips(state)
    for index in range(length):
        event = dealer.next_event(state)
        before = state
        state, effects = step(state, event)
        events.append(event)
        everything.extend(effects)
        where = f"seed {seed}, event {index}: {event}"
        if refused(effects):
            assert state == before, where
        total += expected_change(before, event, state)
        assert table_chips(state) == total, where
        for ended in (e for e in effects if isinstance(e, HandEnded)):
            assert all(chips >= 0 for chips in ended.stacks.values()), where
        if index % 25 == 24:
            can_always_restart(state)
    return events, state, everything


@pytest.mark.parametrize("block", range(8))
def test_random_streams_conserve_chips_refuse_cleanly_and_never_wedge(block: int) -> None:
    for seed in range(block * 100, block * 100 + 100):
        run_stream(seed, 200, fault_rate=0.25 if seed % 3 else 0.6)


def test_clean_streams_play_many_hands_and_never_refuse() -> None:
    """Without faults the simulated dealer plays hand after hand to the end: at every moment
    the proper next step is accepted (the table never waits for something it cannot get)."""
    hands = 0
    for seed in range(40):
        _, _, effects = run_stream(10_000 + seed, 300, fault_rate=0.0)
        assert not refused(tuple(effects)), [e for e in effects if isinstance(e, Ruling)]
        hands += sum(1 for e in effects if isinstance(e, HandEnded) and not (e.voided or e.misdeal))
    assert hands >= 200


@pytest.mark.parametrize("seed", range(20))
def test_step_is_deterministic(seed: int) -> None:
    events, final, effects = run_stream(50_000 + seed, 200, fault_rate=0.3)
    rng = random.Random(50_000 + seed)
    state = seated_table(rng)
    again: list[Effect] = []
    for event in events:
        state, said = step(state, event)
        again.extend(said)
    assert state == final
    assert again == effects
