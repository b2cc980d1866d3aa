"""Hands for the engine's tests, written once: the hand config and the C/F/R shorthands of the rule
tests (tests/core/game/test_betting.py, test_pots.py), and the random hand that the PokerKit
comparison (tests/core/game/test_pokerkit_diff.py) and bench/engine.py replay.

Plain functions over tablectl.core.game, no pytest: bench/engine.py imports this module too.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from tablectl.core.game import (
    HOLDEM,
    Action,
    BetRaise,
    CheckCall,
    Fold,
    HandConfig,
    HandState,
    Phase,
    Show,
    Structure,
    Variant,
    apply,
    house_rules,
    showdown_order,
    start_hand,
)
from tablectl.core.game.variants import Game
from tablectl.sim.players import Style, next_action


def config(
    stacks: Sequence[int],
    blinds: tuple[int, ...] = (50, 100),
    *,
    game: Game = HOLDEM,
    structure: Structure = Structure.NO_LIMIT,
    profile: str = "tda",
    options: dict[str, object] | None = None,
    **kw: object,
) -> HandConfig:
    """A hand config: no-limit hold'em at 50/100 under the ``tda`` house rules unless told;
    ``options`` are house-rule options, ``kw`` the other HandConfig fields (antes, min_bet, ...)."""
    return HandConfig(
        Variant(game, structure),
        tuple(stacks),
        blinds=blinds,
        rules=house_rules(profile, **(options or {})),
        **kw,  # type: ignore[arg-type]
    )


def C(p: int) -> CheckCall:
    return CheckCall(p)


def F(p: int) -> Fold:
    return Fold(p)


def R(p: int, to: int) -> BetRaise:
    return BetRaise(p, to)


Adjust = Callable[[HandState, Action], Action]


def random_hand(
    config: HandConfig, rng: random.Random, style: Style, adjust: Adjust | None = None
) -> tuple[list[tuple[HandState, Action]], HandState]:
    """One hand played with random legal actions (tablectl.sim.players): each action with the state
    it was applied to, and the final state. After an all-in run-out every hand is shown (POT-5, the
    ``tda`` profile's tournament rule): PokerKit holds that showdown before the rest of the board,
    where a muck would be a different decision from ours. ``adjust`` may replace an action before it
    is applied (bench/engine.py plays a raise nobody can call as a call)."""
    deck = list(range(52))
    rng.shuffle(deck)
    state = start_hand(config)
    steps: list[tuple[HandState, Action]] = []
    ran_out = False
    while True:
        if state.is_running_out:
            ran_out = True
        action: Action | None
        if state.phase is Phase.SHOWDOWN and ran_out:
            player = next(p for p in showdown_order(state) if state.shown[p] is None and not state.mucked[p])
            action = Show(player, state.hole[player])
        else:
            action = next_action(state, deck, rng, style)
        if action is None:
            return steps, state
        if adjust is not None:
            action = adjust(state, action)
        steps.append((state, action))
        state = apply(state, action)
