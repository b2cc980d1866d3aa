"""Random legal play: simulated tables, benchmarks and property tests.

Randomness comes in from the caller (a ``random.Random``), never from inside
the rules core, so a seed reproduces a hand exactly.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from tablectl.core.game.actions import (
    Action,
    BetRaise,
    BringIn,
    CheckCall,
    DealBoard,
    DealHole,
    Discard,
    Fold,
    Show,
)
from tablectl.core.game.engine import HandConfig, HandState, Phase, apply, legal, showdown_order, start_hand


@dataclass(frozen=True, slots=True)
class Style:
    """How the simulated players act: probabilities of folding and raising when they may."""

    fold: float = 0.25
    raise_: float = 0.25
    all_in: float = 0.1
    muck_losers: float = 0.2


def choose_action(state: HandState, rng: random.Random, style: Style = Style()) -> Action:
    options = legal(state)
    assert options is not None, "nobody is to act"
    roll = rng.random()
    if options.bring_in:
        # STUD-6: the bring-in player posts it, or completes at once.
        if options.can_raise and roll > 1 - style.raise_ / 2:
            return BetRaise(options.player, options.min_raise_to)
        return BringIn(options.player)
    if options.call_amount and roll < style.fold:
        return Fold(options.player)
    if options.can_raise and roll > 1 - style.raise_:
        if rng.random() < style.all_in:
            return BetRaise(options.player, options.max_raise_to)
        low, high = options.min_raise_to, options.max_raise_to
        # Most real bets are small against the stack: favour the low end.
        span = high - low
        to = low + int(span * rng.random() ** 3)
        if state.bet_unit_option and to != high:
            to = low  # STUD-9 open pair: the small or the big bet, nothing between
        return BetRaise(options.player, to)
    return CheckCall(options.player)


def next_action(
    state: HandState, deck: list[int], rng: random.Random, style: Style = Style()
) -> Action | None:
    """The next thing that happens at a simulated table, dealing from ``deck`` (consumed)."""
    if state.phase is Phase.DEALING_HOLE and state.street:
        return _deal_street(state, deck)
    if state.phase is Phase.DRAWING:
        return _draw(state, deck, rng)
    if state.phase is Phase.DEALING_HOLE:
        want = state.config.variant.game.hole_cards
        # DEAL-1: one card at a time clockwise from the left of the button.
        dealt = [len(h) for h in state.hole]
        player = min(range(state.n), key=lambda p: (dealt[p], p))
        assert dealt[player] < want
        return DealHole(player, (deck.pop(),))
    if state.phase is Phase.BETTING:
        return choose_action(state, rng, style)
    if state.phase is Phase.DEALING_BOARD:
        deck.pop()  # DEAL-2: burn before every board round
        return DealBoard(tuple(deck.pop() for _ in range(state.board_needed)))
    if state.phase is Phase.SHOWDOWN:
        order = [p for p in showdown_order(state) if state.shown[p] is None and not state.mucked[p]]
        player = order[0]
        shown_any = any(s is not None for s in state.shown)
        if shown_any and not state.hands_face_up and rng.random() < style.muck_losers:
            return Show(player, None)
        return Show(player, state.hole[player])
    return None


def _deal_street(state: HandState, deck: list[int]) -> Action:
    """A stud street: a burn (STUD-4), then one card to each player still in from the dealer's
    left; with too few cards for all of them, one community card (HO-3)."""
    due = [p for p in range(state.n) if state.cards_due(p)]
    if len(due) == len(state.live):  # the first card of the street
        if len(deck) < len(due) + 1:
            return DealBoard((deck.pop(),))
        deck.pop()
    return DealHole(due[0], (deck.pop(),))


def _draw(state: HandState, deck: list[int], rng: random.Random) -> Action:
    """A draw, as hand histories write it: every player in turn discards 0 to 3 cards at random
    (HO-7), then the replacements go out after one burn (DRAW-5). A short deck is made up from
    the dead cards, never the player's own discards (HO-9; the burns go in too, for simplicity)."""
    drawer = state.next_to_draw
    if drawer is not None:
        hole = list(state.hole[drawer])
        return Discard(drawer, tuple(rng.sample(hole, rng.randint(0, min(3, len(hole))))))
    p = next(q for q in range(state.n) if state.cards_due(q))
    if deck and all(state.cards_due(q) == len(state.discards[q]) for q in range(state.n)):
        deck.pop()  # the burn, before the first replacement of this draw
    need = state.cards_due(p)
    if len(deck) < need:
        # Not the discards of anyone still to be served at this draw: each gets none of his own.
        kept = {c for q in range(state.n) if state.cards_due(q) for c in state.discards[q]}
        kept.update(c for hand in state.hole for c in hand)
        dead = [c for c in range(52) if c not in kept and c not in deck]
        rng.shuffle(dead)
        deck[:0] = dead
    return DealHole(p, tuple(deck.pop() for _ in range(need)))


def play_random_hand(
    config: HandConfig, rng: random.Random, style: Style = Style()
) -> tuple[HandState, list[Action]]:
    """Deal and play one complete hand with random legal actions."""
    deck = list(range(52))
    rng.shuffle(deck)
    state = start_hand(config)
    actions: list[Action] = []
    while True:
        action = next_action(state, deck, rng, style)
        if action is None:
            return state, actions
        state = apply(state, action)
        actions.append(action)
