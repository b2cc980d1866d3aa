"""A simulated dealer and shoe: the events a real table would produce, hand after hand.

It reads the table's state to decide what happens next (the way a dealer reads the
display) and produces the same events the shoe, the panel and the floor produce.
Randomness comes from the caller's ``random.Random``. Used by benchmarks, test rigs
and the simulated shoe.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, field

from tablectl.core.events import CardDrawn, DealerInput, DealerKey, Event, FloorCommand, FloorKind
from tablectl.core.game.actions import BetRaise, CheckCall, Fold
from tablectl.core.game.engine import Phase, legal, showdown_order
from tablectl.core.table import TableConfig, TableState, new_table, step
from tablectl.sim.players import Style, choose_action


@dataclass
class SimDealer:
    rng: random.Random
    style: Style = field(default_factory=Style)
    buy_in: int = 10_000
    deck: list[int] = field(default_factory=list)

    def next_event(self, state: TableState) -> Event:
        hand = state.hand
        if hand is None:
            for number in range(1, len(state.seats) + 1):
                occupant = state.seat(number)
                if occupant is not None and occupant.stack == 0:
                    return FloorCommand(FloorKind.ADD_CHIPS, "sim", seat=number, amount=self.buy_in)
            self.deck = list(range(52))
            self.rng.shuffle(self.deck)
            return DealerInput(DealerKey.NEW_HAND)
        if hand.pending is not None:
            if hand.pending.kind == "reshuffle":
                self.deck = [c for c in range(52) if c not in hand.dealt]
                self.rng.shuffle(self.deck)
            return DealerInput(DealerKey.CONFIRM)
        game = hand.game
        if game.phase is Phase.BETTING and (hand.hole_dealt >= hand.n * game.config.variant.game.hole_cards):
            action = choose_action(game, self.rng, self.style)
            assert isinstance(action, (Fold, CheckCall, BetRaise))
            seat = hand.seat(action.player)
            if isinstance(action, Fold):
                return DealerInput(DealerKey.FOLD, seat=seat)
            if isinstance(action, CheckCall):
                options = legal(game)
                key = DealerKey.CALL if options and options.call_amount else DealerKey.CHECK
                return DealerInput(key, seat=seat)
            return DealerInput(DealerKey.BET, seat=seat, amount=action.to)
        if game.phase is Phase.SHOWDOWN:
            for position in showdown_order(game):
                if game.shown[position] is None and not game.mucked[position]:
                    return DealerInput(DealerKey.SHOW, seat=hand.seat(position))
        return CardDrawn(self.deck.pop())


def seated_table(config: TableConfig, players: int, stack: int = 10_000) -> TableState:
    names = ["Ann", "Bob", "Cy", "Di", "Ed", "Flo", "Gus", "Hal", "Ida", "Jo"]
    return new_table(config, {k + 1: (names[k], stack) for k in range(players)}, button=players)


def simulate(state: TableState, dealer: SimDealer, hands: int) -> Iterator[tuple[Event, TableState]]:
    """Events for ``hands`` complete hands, each with the state after it."""
    done = 0
    while done < hands:
        event = dealer.next_event(state)
        before_hand = state.hand
        state, _ = step(state, event)
        yield event, state
        if before_hand is not None and state.hand is None:
            done += 1
