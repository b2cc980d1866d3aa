"""The views: no hole card reaches any view but private before it is shown at the showdown;
burn cards and folded or mucked hands never do."""

from __future__ import annotations

import json
import random

from tablectl.core.cards import card_str
from tablectl.core.game.actions import UNKNOWN_CARD
from tablectl.core.table import TableConfig, step
from tablectl.sim.dealer import SimDealer, seated_table
from tablectl.views.audiences import dealer, floor, private, public


def secret_cards(state) -> set[str]:  # noqa: ANN001
    """Cards no non-private view may hold now: unshown hole cards and burns."""
    hand = state.hand
    if hand is None:
        return set()
    secret = {card_str(c) for c in hand.burns}
    for position, cards in enumerate(hand.hole):
        if hand.game.shown[position] is None:
            secret |= {card_str(c) for c in cards if c != UNKNOWN_CARD}
    return secret


def test_no_view_but_private_leaks_a_hole_card_over_many_hands() -> None:
    rng = random.Random(5)
    for game in ("NT", "PO", "FO/8"):
        config = TableConfig(seats=9, game=game, blinds=(50, 100), small_bet=100, big_bet=200)
        state = seated_table(config, players=6)
        sim = SimDealer(rng)
        hands = checked = 0
        while hands < 150:
            before = state.hand
            state, _ = step(state, sim.next_event(state))
            if before is not None and state.hand is None:
                hands += 1
            secret = secret_cards(state)
            for view in (public(state), dealer(state), floor(state)):
                text = json.dumps(view)
                leaked = {c for c in secret if f'"{c}"' in text}
                assert not leaked, (view["view"], leaked)
                checked += 1
            if state.hand is not None:
                hole = private(state)["hole"]
                assert sum(len(c) for c in hole.values()) == sum(len(h) for h in state.hand.hole)
        assert checked > 1000


def test_public_view_shows_the_board_pot_and_shown_hands() -> None:
    config = TableConfig(seats=6, game="NT", blinds=(50, 100))
    state = seated_table(config, players=3)
    sim = SimDealer(random.Random(2))
    saw_board = saw_shown = False
    for _ in range(2000):
        state, _ = step(state, sim.next_event(state))
        view = public(state)
        if state.hand is not None:
            assert view["pot"] == state.hand.game.pot
            saw_board |= bool(view["board"])
            saw_shown |= any(s.get("shown") for s in view["seats"])
    assert saw_board and saw_shown
