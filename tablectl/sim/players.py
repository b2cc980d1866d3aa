"""Random legal play: simulated tables, benchmarks and property tests.

Randomness comes in from the caller (a ``random.Random``), never from inside
the rules core, so a seed reproduces a hand exactly.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from tablectl.core.game.actions import Action, BetRaise, CheckCall, DealBoard, DealHole, Fold, Show
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
    if options.call_amount and roll < style.fold:
        return Fold(options.player)
    if options.can_raise and roll > 1 - style.raise_:
        if rng.random() < style.all_in:
            return BetRaise(options.player, options.max_raise_to)
        low, high = options.min_raise_to, options.max_raise_to
        # Most real bets are small against the stack: favour the low end.
        span = high - low
        return BetRaise(options.player, low + int(span * rng.random() ** 3))
    return CheckCall(options.player)


def next_action(
    state: HandState, deck: list[int], rng: random.Random, style: Style = Style()
) -> Action | None:
    """The next thing that happens at a simulated table, dealing from ``deck`` (consumed)."""
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
