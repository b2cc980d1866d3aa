"""A simulated dealer who deals properly, mostly, and now and then makes every mistake and noise a live
table makes: boxed, foreign, duplicate and unread cards, extra and premature cards, camera sightings
in every zone (right and wrong), dealer keys at the wrong moment or for the wrong seat, misdeal
calls, floor commands, devices lost. Shared by the properties of the step (tests/core/table) and of
the views' secrecy (tests/views)."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

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
from tablectl.core.procedure.progress import drawing_position
from tablectl.core.table import TableConfig, TableState, new_table

SEATS = 6
PROFILES = ("tda", "btr", "classic")
GAMES = ("NT", "NT", "NT", "PO", "PT", "F7S", "FR", "F7S/8", "F2L3D", "N2L1D")
STUD = ("F7S", "FR", "F7S/8")


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
            key = DealerKey.CALL if options.call_amount or options.bring_in else DealerKey.CHECK
            return DealerInput(key, seat=seat)
        if game.phase is Phase.DRAWING and game.next_to_draw is not None and drawing_position(hand) is None:
            held = len(game.hole[game.next_to_draw])
            count = rng.randint(0, max(0, min(3, held, hand.stub - 2)))
            return DealerInput(DealerKey.DISCARD, seat=hand.seat(game.next_to_draw), amount=count)
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
    limits = {"small_bet": 100, "big_bet": 200, "bring_in": 25 if game in STUD else 0}
    config = TableConfig(seats=SEATS, game=game, blinds=(50, 100), profile=rng.choice(PROFILES), **limits)
    players = {n: (f"P{n}", rng.choice((300, 1000, 5000))) for n in range(1, SEATS + 1) if rng.random() < 0.7}
    while len(players) < 2:
        n = rng.randrange(1, SEATS + 1)
        players[n] = (f"P{n}", 1000)
    button = rng.choice((None, *players))
    return new_table(config, players, button)
