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
from dataclasses import dataclass, field

import pytest

from tablectl.core.effects import Effect, HandEnded, Ruling, Severity
from tablectl.core.events import (
    CardDrawn,
    CardSeen,
    DealerInput,
    DealerKey,
    DeviceStatus,
    Event,
    FloorCommand,
    FloorKind,
    Zone,
)
from tablectl.core.game.actions import UNKNOWN_CARD
from tablectl.core.game.engine import Phase, legal
from tablectl.core.procedure import deal_complete
from tablectl.core.table import TableConfig, TableState, new_table, step

SEATS = 6
PROFILES = ("tda", "btr", "classic")
GAMES = ("NT", "NT", "NT", "PO", "PT")


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


@dataclass
class Dealer:
    """Deals properly, mostly; ``fault_rate`` of the time it does something wrong or odd."""

    rng: random.Random
    fault_rate: float
    deck: list[int] = field(default_factory=list)
    hand_number: int = -1
    missed: list[int] = field(default_factory=list)  # cards the reader did not identify

    def _shuffle(self, state: TableState) -> None:
        out = state.hand.dealt if state.hand is not None else frozenset()
        self.deck = [c for c in range(52) if c not in out]
        self.rng.shuffle(self.deck)

    def draw(self, state: TableState) -> CardDrawn:
        if not self.deck:
            self._shuffle(state)
        card = self.deck.pop() if self.deck else self.rng.randrange(52)
        if self.rng.random() < 0.03:
            self.missed.append(card)
            return CardDrawn(None)  # the reader missed it
        return CardDrawn(card)

    def next_event(self, state: TableState) -> Event:
        hand = state.hand
        number = hand.number if hand is not None else -1
        if number != self.hand_number:
            self.hand_number = number
            self._shuffle(state)
        if self.rng.random() < self.fault_rate:
            return self.fault(state)
        return self.proper(state)

    # -- what a good dealer does ------------------------------------------------------------
    def proper(self, state: TableState) -> Event:
        rng = self.rng
        hand = state.hand
        if hand is None:
            if state.button_draw is not None:
                return self.draw(state)
            for number, seat in enumerate(state.seats, 1):
                if seat is not None and seat.stack == 0:
                    return FloorCommand(
                        FloorKind.ADD_CHIPS, "sim", seat=number, amount=rng.choice((500, 2000))
                    )
            return DealerInput(DealerKey.NEW_HAND)
        if hand.pending is not None:
            if hand.pending.kind == "reshuffle":
                self._shuffle(state)
            return DealerInput(DealerKey.CONFIRM)
        game = hand.game
        if not deal_complete(hand) or hand.to_replace:
            return self.draw(state)
        if game.phase is Phase.BETTING and game.actor is not None:
            options = legal(game)
            assert options is not None
            seat = hand.seat(options.player)
            roll = rng.random()
            if options.call_amount and roll < 0.2:
                return DealerInput(DealerKey.FOLD, seat=seat)
            if options.can_raise and roll < 0.45:
                to = rng.randint(options.min_raise_to, options.max_raise_to)
                return DealerInput(DealerKey.BET, seat=seat, amount=to)
            if options.can_raise and roll < 0.5:
                return DealerInput(DealerKey.ALL_IN, seat=seat)
            key = DealerKey.CALL if options.call_amount else DealerKey.CHECK
            return DealerInput(key, seat=seat)
        unread = UNKNOWN_CARD in hand.board_pending and len(hand.board_pending) >= game.board_needed
        if game.phase is Phase.DEALING_BOARD and unread and self.missed:
            return CardSeen(Zone.BOARD, self.missed[-1])  # the camera names the unread card
        if game.phase is Phase.SHOWDOWN:
            for position in range(hand.n):
                if game.folded[position] or game.shown[position] is not None or game.mucked[position]:
                    continue
                seat = hand.seat(position)
                if UNKNOWN_CARD in game.hole[position]:
                    if not game.hands_face_up:
                        return DealerInput(DealerKey.MUCK, seat=seat)
                    return FloorCommand(FloorKind.KILL_HAND, "sim", seat=seat, ruling="IRR-8")
                return DealerInput(DealerKey.SHOW, seat=seat)
        return self.draw(state)

    # -- and what goes wrong ----------------------------------------------------------------
    def _seat(self) -> int | None:
        return self.rng.choice((None, -1, 0, *range(1, SEATS + 1), *range(1, SEATS + 1), SEATS + 1))

    def _card(self, state: TableState) -> int | None:
        rng = self.rng
        dealt = sorted(state.hand.dealt) if state.hand is not None else []
        if dealt and rng.random() < 0.6:
            return rng.choice(dealt)
        return rng.choice((None, rng.randrange(52)))

    def fault(self, state: TableState) -> Event:
        rng = self.rng
        kind = rng.randrange(12)
        if kind == 0:  # boxed card
            event = self.draw(state)
            return CardDrawn(event.card, face_up=True)
        if kind == 1:  # foreign or duplicate card
            return CardDrawn(self._card(state), foreign=rng.random() < 0.3)
        if kind in (2, 3):  # a card out of turn: extra, premature, at the showdown, between hands
            return self.draw(state)
        if kind in (4, 5, 6):  # the camera, right or wrong
            zone = rng.choice(list(Zone))
            seat = self._seat() if zone is Zone.SEAT else None
            return CardSeen(zone, self._card(state), rng.random() < 0.3, seat)
        if kind in (7, 8):  # a dealer key at the wrong moment or for the wrong seat
            key = rng.choice(list(DealerKey))
            cause = rng.choice(
                (None, "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "z", "player", "dealer")
            )
            cards = tuple(c for c in (self._card(state),) if c is not None and rng.random() < 0.5)
            amount = rng.choice((None, -5, 0, 1, 50, 100, 250, 1000, 99999))
            return DealerInput(key, seat=self._seat(), amount=amount, cause=cause, cards=cards)
        if kind in (9, 10):
            floor = rng.choice(list(FloorKind))
            return FloorCommand(
                floor,
                rng.choice(("Flo", "Flo", "")),
                seat=self._seat(),
                amount=rng.choice((None, -1, 0, 1, 20, 50, 200, 1000)),
                name=rng.choice((None, "Newcomer")),
                ruling=rng.choice((None, "IRR-8", "IRR-9", "BOARD-6", "MD-c")),
                decision=rng.choice((None, "accept", "reject", "make_good", "dead")),
                blinds=rng.choice(
                    ((), (0,), (50, 100), (100, 200), (25, 50, 100), (5, 10, 20, 40, 80, 160, 320))
                ),
                ante=rng.choice((0, 0, 10)),
            )
        return DeviceStatus(rng.choice(("shoe", "camera", "panel")), rng.random() < 0.5)


def seated_table(rng: random.Random) -> TableState:
    game = rng.choice(GAMES)
    config = TableConfig(seats=SEATS, game=game, blinds=(50, 100), profile=rng.choice(PROFILES))
    players = {n: (f"P{n}", rng.choice((300, 1000, 5000))) for n in range(1, SEATS + 1) if rng.random() < 0.7}
    while len(players) < 2:
        n = rng.randrange(1, SEATS + 1)
        players[n] = (f"P{n}", 1000)
    button = rng.choice((None, *players))
    return new_table(config, players, button)


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
