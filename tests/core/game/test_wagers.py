"""Chips put forward, read into actions (BET-10, BET-12, BET-13)."""

from __future__ import annotations

from tablectl.core.cards import parse_cards
from tablectl.core.game import (
    HOLDEM,
    SEVEN_CARD_STUD,
    BetRaise,
    BringIn,
    CheckCall,
    DealBoard,
    DealHole,
    HandConfig,
    Structure,
    Variant,
    apply,
    start_hand,
)
from tablectl.core.game.wagers import read_wager


def dealt(structure: Structure = Structure.NO_LIMIT, stacks: tuple[int, ...] = (10_000,) * 4):
    state = start_hand(HandConfig(Variant(HOLDEM, structure), stacks, blinds=(100, 200)))
    cards = parse_cards("AcKdQhJsTc9d8h7s")
    for p in range(len(stacks)):
        state = apply(state, DealHole(p, cards[2 * p : 2 * p + 2]))
    return state


def test_single_oversized_chip_facing_a_bet_is_a_call() -> None:
    state = dealt()  # UTG (position 2) faces the 200 big blind
    reading = read_wager(state, 2, 1000, single_chip=True)
    assert reading.action == CheckCall(2) and reading.rule == "BET-12"


def test_single_chip_opening_is_its_full_value() -> None:
    state = dealt()
    for p in (2, 3, 0):
        state = apply(state, CheckCall(p))
    state = apply(state, CheckCall(1))  # the big blind checks its option
    state = apply(state, DealBoard(parse_cards("2c3c4d")))
    reading = read_wager(state, 0, 1000, single_chip=True)
    assert reading.action == BetRaise(0, 1000) and reading.rule is None


def test_declared_raise_below_minimum_is_brought_up_to_the_minimum_only() -> None:
    state = dealt()
    reading = read_wager(state, 2, 300, declared_raise=True)
    assert reading.action == BetRaise(2, 400) and reading.rule == "BET-13"


def test_unclear_wager_half_a_raise_or_more_is_a_raise() -> None:
    state = dealt()  # to call 200; a raise needs 400; 300 is exactly half the raise amount
    assert read_wager(state, 2, 300).action == BetRaise(2, 400)
    assert read_wager(state, 2, 299).action == CheckCall(2)


def test_short_call_is_made_good() -> None:
    state = dealt()
    reading = read_wager(state, 2, 150)
    assert reading.action == CheckCall(2) and reading.rule == "BET-13"


def test_pot_limit_oversize_is_reduced_to_the_pot() -> None:
    state = dealt(Structure.POT_LIMIT)
    # UTG may raise to at most 200 + (100 + 200 + 200) = 700.
    reading = read_wager(state, 2, 5000)
    assert reading.action == BetRaise(2, 700) and reading.rule == "BET-10"


def test_chips_from_the_bring_in_player_read_as_the_bring_in_or_the_completion() -> None:
    # STUD-5, STUD-6 at 4/8 with a bring-in of 2 (the 2 of clubs is the lowest up card).
    config = HandConfig(
        Variant(SEVEN_CARD_STUD, Structure.FIXED_LIMIT), (100, 100), bring_in=2, small_bet=4, big_bet=8
    )
    state = apply(start_hand(config), DealHole(0, parse_cards("AsKd9d")))
    state = apply(state, DealHole(1, parse_cards("AhKh2c")))
    assert read_wager(state, 1, 2).action == BringIn(1) and read_wager(state, 1, 2).rule is None
    assert read_wager(state, 1, 3).action == BringIn(1) and read_wager(state, 1, 3).rule == "STUD-6"
    assert read_wager(state, 1, 1).rule == "BET-13"
    assert read_wager(state, 1, 4).action == BetRaise(1, 4)
    reading = read_wager(state, 1, 6)
    assert reading.action == BetRaise(1, 4) and reading.rule == "STUD-6"
