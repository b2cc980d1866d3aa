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
from tablectl.core.game.actions import UNKNOWN_CARD, BetRaise, BringIn, CheckCall, DealHole, Fold
from tablectl.core.game.engine import Phase, legal, showdown_order
from tablectl.core.procedure import HandProgress
from tablectl.core.table import TableConfig, TableState, new_table, step
from tablectl.sim.players import Style, choose_action


@dataclass
class SimDealer:
    rng: random.Random
    style: Style = field(default_factory=Style)
    buy_in: int = 10_000
    deck: list[int] = field(default_factory=list)
    thrown: dict[int, set[int]] = field(default_factory=dict)  # each seat's discards this hand

    def next_event(self, state: TableState) -> Event:
        hand = state.hand
        if hand is None:
            for number in range(1, len(state.seats) + 1):
                occupant = state.seat(number)
                if occupant is not None and occupant.stack == 0:
                    return FloorCommand(FloorKind.ADD_CHIPS, "sim", seat=number, amount=self.buy_in)
            self.deck = list(range(52))
            self.rng.shuffle(self.deck)
            self.thrown = {}
            return DealerInput(DealerKey.NEW_HAND)
        if hand.pending is not None:
            if hand.pending.kind == "reshuffle":
                self.deck = [c for c in range(52) if c not in hand.dealt]
                self.rng.shuffle(self.deck)
            return DealerInput(DealerKey.CONFIRM)
        game = hand.game
        if game.phase is Phase.BETTING and (hand.hole_dealt >= hand.n * game.config.variant.game.hole_cards):
            action = choose_action(game, self.rng, self.style)
            assert isinstance(action, (Fold, CheckCall, BetRaise, BringIn))
            seat = hand.seat(action.player)
            if isinstance(action, BringIn):
                return DealerInput(DealerKey.CALL, seat=seat)  # the call key posts the bring-in
            if isinstance(action, Fold):
                return DealerInput(DealerKey.FOLD, seat=seat)
            if isinstance(action, CheckCall):
                options = legal(game)
                key = DealerKey.CALL if options and options.call_amount else DealerKey.CHECK
                return DealerInput(key, seat=seat)
            return DealerInput(DealerKey.BET, seat=seat, amount=action.to)
        drawing = game.phase is Phase.DRAWING and not any(owed > 0 for owed in game.to_draw)
        if drawing and game.next_to_draw is not None:
            return self._discard(hand, game.next_to_draw)
        if game.phase is Phase.SHOWDOWN:
            for position in showdown_order(game):
                if game.shown[position] is None and not game.mucked[position]:
                    return DealerInput(
                        DealerKey.SHOW, seat=hand.seat(position), cards=self._held(hand, position)
                    )
        return CardDrawn(self.deck.pop())

    def _discard(self, hand: HandProgress, position: int) -> Event:
        """0 to 3 cards, as many as the deck can replace after a burn (the bottom card stays);
        keyed as a count (the dealer sees how many, the sim remembers which), or with the cards
        named as a camera would see them."""
        seat = hand.seat(position)
        held = self._real_hand(hand, position)
        most = max(0, min(3, len(held), len(self.deck) - 2))
        thrown = tuple(self.rng.sample(held, self.rng.randint(0, most)))
        self.thrown.setdefault(seat, set()).update(thrown)
        if self.rng.random() < 0.5 or UNKNOWN_CARD in hand.game.hole[position]:
            return DealerInput(DealerKey.DISCARD, seat=seat, amount=len(thrown))
        return DealerInput(DealerKey.DISCARD, seat=seat, cards=thrown)

    def _real_hand(self, hand: HandProgress, position: int) -> tuple[int, ...]:
        """Every card dealt to ``position`` but those it threw: what the player really holds."""
        thrown = self.thrown.get(hand.seat(position), set())
        dealt = list(hand.hole[position]) + [
            c for e in hand.log if isinstance(e, DealHole) and e.player == position for c in e.cards
        ]
        return tuple(c for c in dict.fromkeys(dealt) if c not in thrown)

    def _held(self, hand: HandProgress, position: int) -> tuple[int, ...]:
        """The cards to key at the showdown: none when the controller knows them, else the real
        hand (a count-only discard left the cards kept unknown)."""
        if UNKNOWN_CARD not in hand.game.hole[position]:
            return ()
        return self._real_hand(hand, position)


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
