"""The POT rules of ../shared/RULES.md: side pots, uncalled bets, showdown, ties and odd chips,
hand rankings, Omaha and Omaha hi/lo, antes.

Seeds: 000 = BTR rule book (showdown, ties), 001 = hold'em rankings and dictionary
(all-in, main pot, side pot), 002 = betting procedure (uncalled bet).
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Sequence

import pytest

from tablectl.core import evaluator
from tablectl.core.cards import Card, parse_cards
from tablectl.core.game import (
    HOLDEM,
    OMAHA,
    OMAHA_HI_LO,
    Award,
    CheckCall,
    DealBoard,
    DealHole,
    HandConfig,
    HandState,
    Phase,
    Pot,
    RuleViolation,
    Show,
    apply,
    legal,
    show_down_all,
    showdown_order,
    side_pots,
    split,
    start_hand,
)
from tests.helpers.hands import C, F, R, config


class Table:
    """A hand with the hole cards and the board fixed in advance."""

    def __init__(self, cfg: HandConfig, holes: Sequence[str], board: str) -> None:
        self.board = list(parse_cards(board))
        self.state = start_hand(cfg)
        for p, text in enumerate(holes):
            self.state = apply(self.state, DealHole(p, parse_cards(text)))
        assert self.state.phase is Phase.BETTING

    def __call__(self, *actions: object) -> Table:
        for action in actions:
            self.state = apply(self.state, action)  # type: ignore[arg-type]
        return self

    def street(self) -> Table:
        need = self.state.board_needed
        assert need, self.state.phase
        cards, self.board = tuple(self.board[:need]), self.board[need:]
        self.state = apply(self.state, DealBoard(cards))
        return self

    def check_down(self) -> Table:
        """Call or check every bet to the end of the betting; deal the board as it comes."""
        while self.state.phase in (Phase.BETTING, Phase.DEALING_BOARD):
            if self.state.phase is Phase.DEALING_BOARD:
                self.street()
            else:
                options = legal(self.state)
                assert options is not None
                self(CheckCall(options.player))
        return self

    def show_all(self) -> HandState:
        self.check_down()
        self.state = show_down_all(self.state)
        assert self.state.phase is Phase.COMPLETE
        return self.state


def won(state: HandState) -> list[int]:
    totals = [0] * state.n
    for award in state.awards:
        for player, amount in award.shares:
            totals[player] += amount
    return totals


# -- POT-1 side pots ----------------------------------------------------------------------------


def test_pot1_three_all_ins_of_different_sizes_make_a_main_pot_and_two_side_pots() -> None:
    cfg = config([100, 300, 600, 1000])
    t = Table(cfg, ["AsAh", "KsKh", "QsQh", "4c5c"], "2c7d9hJs3s")
    t(R(2, 600), R(3, 1000), C(0), C(1))
    assert t.state.contributed == (100, 300, 600, 600)  # 400 of the 1000 was not called
    pots = side_pots(t.state.contributed, t.state.folded, t.state.dead)
    assert pots == [
        Pot(400, (0, 1, 2, 3)),
        Pot(600, (1, 2, 3)),
        Pot(600, (2, 3)),
    ]
    state = t.show_all()
    assert [(a.pot_index, a.amount, a.shares) for a in state.awards] == [
        (0, 400, ((0, 400),)),
        (1, 600, ((1, 600),)),
        (2, 600, ((2, 600),)),
    ]
    assert state.finishing_stacks == (400, 600, 600, 400)
    assert sum(state.finishing_stacks) == sum(cfg.starting_stacks)


def test_pot1_seed_example_all_in_player_wins_only_what_they_put_in_from_each() -> None:
    # 001 all-in: Albert, Bob and Paul start with 50, 50 and 10; the most Paul can finish
    # with is 30 (his own 10 plus 10 from each of Albert and Bob).
    paul, albert, bob = 0, 1, 2
    cfg = config([10, 50, 50], blinds=(1, 2))
    t = Table(cfg, ["AsAh", "KsKh", "QsQh"], "2c7d9hJs3s")
    t(R(bob, 50), C(paul), C(albert))
    state = t.show_all()
    assert state.finishing_stacks[paul] == 30
    assert state.finishing_stacks[albert] == 80  # the side pot of 40 + 40
    assert state.finishing_stacks[bob] == 0


def test_pot1_folded_chips_stay_in_the_pots_they_reached() -> None:
    pots = side_pots([100, 300, 250, 600], [False, False, True, False])
    # levels are the live players' totals: 100, 300, 600
    assert pots == [
        Pot(400, (0, 1, 3)),
        Pot(200 + 150 + 200, (1, 3)),
        Pot(300, (3,)),
    ]
    assert sum(p.amount for p in pots) == 1250


def test_pot1_side_pots_with_antes_and_no_all_in_is_one_pot() -> None:
    assert side_pots([200, 200, 200], [False, True, False], dead=30) == [Pot(630, (0, 2))]


def test_pot1_equal_all_ins_share_one_level() -> None:
    pots = side_pots([300, 300, 700, 700], [False] * 4)
    assert pots == [Pot(1200, (0, 1, 2, 3)), Pot(800, (2, 3))]


# -- POT-2 uncalled bets ------------------------------------------------------------------------


def test_pot2_a_bet_nobody_calls_wins_the_pot_and_comes_back() -> None:
    cfg = config([1000] * 3)
    t = Table(cfg, ["2c7d", "KsKh", "QsQh"], "AsAhAdAcJs")
    t(C(2), C(0), C(1)).street()
    t(C(0), R(1, 500), F(2), F(0))
    state = t.state
    assert state.phase is Phase.COMPLETE
    assert state.contributed == (100, 100, 100)  # the 500 was never called
    assert len(state.awards) == 1 and state.awards[0].uncontested
    assert state.awards[0].shares == ((1, 300),)
    assert state.finishing_stacks == (900, 1200, 900)


def test_pot2_the_uncalled_part_of_a_bet_goes_back() -> None:
    cfg = config([1000, 1000, 400])
    t = Table(cfg, ["2c7d", "KsKh", "QsQh"], "AsAhAdAcJs")
    t(C(2), C(0), C(1)).street()
    t(R(0, 800), F(1), C(2))  # position 2 is all-in for 300 more
    assert t.state.phase is Phase.DEALING_BOARD
    assert t.state.contributed == (400, 100, 400)
    assert t.state.stacks == (600, 900, 0)
    state = t.show_all()
    assert state.finishing_stacks == (600, 900, 900)


def test_pot2_everyone_folds_to_the_big_blind() -> None:
    t = Table(config([1000] * 4), ["2c7d", "KsKh", "QsQh", "JsJh"], "AsAhAdAcTs")
    t(F(2), F(3), F(0))
    assert t.state.phase is Phase.COMPLETE
    assert t.state.finishing_stacks == (950, 1050, 1000, 1000)


# -- POT-3 showdown order -----------------------------------------------------------------------


def _to_river(bets: bool, stacks: Sequence[int] = (1000, 1000, 1000)) -> Table:
    t = Table(config(stacks), ["AsAh", "KsKh", "QsQh"], "2c7d9hJs3s")
    t(C(2), C(0), C(1)).street()
    t(C(0), C(1), C(2)).street()
    t(C(0), C(1), C(2)).street()
    if bets:
        t(C(0), R(1, 200), R(2, 500), C(0), C(1))
    else:
        t(C(0), C(1), C(2))
    assert t.state.phase is Phase.SHOWDOWN
    return t


def test_pot3_last_aggressor_on_the_final_round_shows_first() -> None:
    t = _to_river(bets=True)
    assert showdown_order(t.state) == (2, 0, 1)


def test_pot3_all_checked_on_the_final_round_first_to_act_shows_first() -> None:
    t = _to_river(bets=False)
    assert showdown_order(t.state) == (0, 1, 2)


def test_pot3_all_checked_first_live_player_left_of_the_button_shows_first() -> None:
    t = Table(config([1000] * 4), ["AsAh", "KsKh", "QsQh", "JsJh"], "2c7d9h8s3s")
    t(C(2), C(3), F(0), C(1))
    t.check_down()
    assert showdown_order(t.state) == (1, 2, 3)


def test_pot3_heads_up_all_checked_big_blind_shows_first() -> None:
    t = Table(config([1000, 1000]), ["AsAh", "KsKh"], "2c7d9hJs3s")
    t.check_down()
    assert showdown_order(t.state) == (0, 1)


def test_pot3_side_pot_players_show_before_the_all_in_for_the_main_pot_only() -> None:
    t = Table(config([100, 1000, 1000]), ["AsAh", "KsKh", "QsQh"], "2c7d9hJs3s")
    t(C(2), C(0), C(1)).street()
    t(R(1, 200), C(2))  # the side pot
    t.check_down()
    order = showdown_order(t.state)
    assert order == (1, 2, 0)  # position 0 would be first to show, but is in the main pot only


def test_pot3_everyone_all_in_first_to_act_shows_first() -> None:
    t = Table(config([500, 500, 500]), ["AsAh", "KsKh", "QsQh"], "2c7d9hJs3s")
    t(R(2, 500), C(0), C(1))
    t.check_down()
    assert showdown_order(t.state) == (0, 1, 2)


# -- POT-4 cards speak; show all cards to win ---------------------------------------------------


def test_pot4_a_mucked_hand_wins_nothing_even_the_best_one() -> None:
    t = Table(config([1000, 1000]), ["AsAh", "2c7d"], "KsQdJh5c3s")
    t.check_down()
    t(Show(0, None))  # the aces are thrown away
    t(Show(1, parse_cards("2c7d")))
    state = t.state
    assert state.phase is Phase.COMPLETE
    assert state.mucked[0]
    assert state.finishing_stacks == (900, 1100)


def test_pot4_a_mucked_hand_wins_no_side_pot_and_no_main_pot() -> None:
    # A cash game (classic): with a player all-in, tda's POT-5 would turn every hand face up.
    t = Table(config([100, 1000, 1000], profile="classic"), ["KsKh", "AsAh", "2c7d"], "QdJh5c3s9d")
    t(C(2), C(0), C(1)).street()
    t(R(1, 300), C(2))
    t.check_down()
    t(Show(1, None), Show(2, parse_cards("2c7d")), Show(0, parse_cards("KsKh")))
    state = t.state
    assert state.phase is Phase.COMPLETE
    assert won(state) == [300, 0, 600]


def test_pot4_a_player_must_show_all_their_cards() -> None:
    t = Table(config([1000, 1000]), ["AsAh", "2c7d"], "KsQdJh5c3s")
    t.check_down()
    before = t.state
    with pytest.raises(RuleViolation) as info:
        apply(t.state, Show(0, parse_cards("As")))
    assert info.value.rule == "POT-4"
    with pytest.raises(RuleViolation) as info:
        apply(t.state, Show(0, parse_cards("AsAd")))  # not the cards dealt
    assert info.value.rule == "IRR-9"
    assert t.state == before


def test_pot4_a_folded_player_has_no_hand_to_show() -> None:
    t = Table(config([1000] * 3), ["AsAh", "2c7d", "3c8d"], "KsQdJh5c4s")
    t(F(2), C(0), C(1))
    t.check_down()
    with pytest.raises(RuleViolation) as info:
        apply(t.state, Show(2, parse_cards("3c8d")))
    assert info.value.rule == "POT-4"


def test_pot4_cards_speak_the_best_hand_wins_whatever_the_order_of_showing() -> None:
    t = Table(config([1000, 1000]), ["2c7d", "AsAh"], "KsQdJh5c3s")
    t.check_down()
    t(Show(0, parse_cards("2c7d")), Show(1, parse_cards("AsAh")))
    assert t.state.finishing_stacks == (900, 1100)


# -- POT-5 tournament: hands face up --------------------------------------------------------------


def test_pot5_tda_hands_face_up_once_a_player_is_all_in_and_betting_is_over() -> None:
    t = Table(config([500, 1000]), ["AsAh", "KsKh"], "2c7d9hJs3s")
    t(R(1, 1000), C(0))
    assert t.state.phase is Phase.DEALING_BOARD
    assert t.state.hands_face_up


def test_pot5_not_face_up_while_others_can_still_bet() -> None:
    t = Table(config([100, 1000, 1000]), ["AsAh", "KsKh", "QsQh"], "2c7d9hJs3s")
    t(C(2), C(0), C(1))
    assert t.state.phase is Phase.DEALING_BOARD
    assert not t.state.hands_face_up  # positions 1 and 2 still have a round of betting
    t.street()
    assert not t.state.hands_face_up


def test_pot5_no_all_in_no_face_up() -> None:
    t = Table(config([1000, 1000]), ["AsAh", "KsKh"], "2c7d9hJs3s")
    t(C(1), C(0))
    assert not t.state.hands_face_up


@pytest.mark.parametrize("profile", ["btr", "classic"])
def test_pot5_not_a_tournament_profile_no_face_up(profile: str) -> None:
    t = Table(config([500, 1000], profile=profile), ["AsAh", "KsKh"], "2c7d9hJs3s")
    t(R(1, 1000), C(0))
    assert not t.state.hands_face_up


def test_pot5_face_up_at_the_showdown_when_a_player_is_all_in() -> None:
    # 000 §7 rule 21: all hands are turned face up whenever a player is all-in and betting
    # action is complete. At the showdown the betting is complete.
    t = Table(config([100, 1000, 1000]), ["AsAh", "KsKh", "QsQh"], "2c7d9hJs3s")
    t(C(2), C(0), C(1))
    t.check_down()
    assert t.state.phase is Phase.SHOWDOWN
    assert t.state.stacks[0] == 0
    assert t.state.hands_face_up


def test_pot5_hands_can_be_shown_before_the_board_is_complete_once_betting_is_over() -> None:
    t = Table(config([500, 1000]), ["AsAh", "KsKh"], "2c7d9hJs3s")
    t(R(1, 1000), C(0))
    t(Show(0, parse_cards("AsAh")), Show(1, parse_cards("KsKh")))
    assert t.state.phase is Phase.DEALING_BOARD
    state = t.show_all()
    assert state.finishing_stacks == (1000, 500)


def test_pot5_a_hand_turned_face_up_cannot_be_mucked() -> None:
    # 000 §7 rule 21: all hands are turned face up whenever a player is all-in and the
    # betting is complete; the aces are on the table and cards speak (POT-4).
    t = Table(config([500, 1000]), ["AsAh", "KsKh"], "2c7d9hJs3s")
    t(R(1, 1000), C(0))
    assert t.state.hands_face_up
    try:
        t(Show(0, None))
    except RuleViolation as err:
        assert err.rule == "POT-5"
        return
    state = t.show_all()
    assert state.finishing_stacks == (1000, 500)


# -- POT-6 ties and odd chips ---------------------------------------------------------------------

ROYAL_BOARD = "AhKhQhJhTh"  # everyone plays the board: every live hand ties


def test_pot6_tie_splits_and_the_odd_chip_goes_first_clockwise_from_the_button() -> None:
    cfg = config([1000] * 3, blinds=(25, 50))
    t = Table(cfg, ["2c3c", "4c5c", "6c7c"], ROYAL_BOARD)
    t(C(2), F(0), C(1))
    state = t.show_all()
    assert state.pot == 125
    assert won(state) == [0, 63, 62]  # position 1 is the first hand left of the button


def test_pot6_heads_up_odd_chip_goes_to_the_big_blind_left_of_the_button() -> None:
    cfg = config([1000, 1000], blinds=(25, 50), antes=(1, 0))
    t = Table(cfg, ["2c3c", "4c5c"], ROYAL_BOARD)
    t(C(1), C(0))
    state = t.show_all()
    assert state.pot == 101
    assert won(state) == [51, 50]


def test_pot6_no_player_receives_more_than_one_odd_chip() -> None:
    cfg = config([1000] * 4, blinds=(25, 50), antes=(1, 0, 0, 0))
    t = Table(cfg, ["2c3c", "4c5c", "6c7c", "8c9c"], ROYAL_BOARD)
    t(C(2), C(3), F(0), C(1))  # pot 176 among three: 58 each and two odd chips
    state = t.show_all()
    assert won(state) == [0, 59, 59, 58]


def test_pot6_each_pot_is_split_separately() -> None:
    # Everyone plays the board. Main pot: 4 x 101 = 404 among the three live hands
    # (135, 135, 134). Side pot: 251 + 251 + 151 from the folded position 3 = 653 between
    # positions 1 and 2 (327, 326). Position 1 gets one odd chip in each pot.
    cfg = config([101, 1000, 1000, 1000], blinds=(1, 2))
    t = Table(cfg, ["2c3c", "4c5c", "6c7c", "8c9c"], ROYAL_BOARD)
    t(R(2, 101), C(3), C(0), C(1)).street()
    t(R(1, 151), C(2), C(3)).street()
    t(R(1, 100), C(2), F(3))
    assert t.state.contributed == (101, 352, 352, 252)
    state = t.show_all()
    pots = [(a.pot_index, a.amount, dict(a.shares)) for a in state.awards]
    assert pots == [
        (0, 404, {0: 135, 1: 135, 2: 134}),
        (1, 653, {1: 327, 2: 326}),
    ]


@pytest.mark.parametrize(
    ("amount", "winners", "expected"),
    [
        (100, [0, 1], [(0, 50), (1, 50)]),
        (101, [0, 1], [(0, 51), (1, 50)]),
        (101, [2, 5], [(2, 51), (5, 50)]),
        (101, [0, 1, 2], [(0, 34), (1, 34), (2, 33)]),
        (7, [1, 3, 4, 6], [(1, 2), (3, 2), (4, 2), (6, 1)]),
    ],
)
def test_pot6_split_whole_chips_odd_ones_first_clockwise(
    amount: int, winners: list[int], expected: list[tuple[int, int]]
) -> None:
    assert split(amount, winners, 1) == expected


def test_pot6_split_with_a_chip_unit_keeps_shares_in_whole_units() -> None:
    assert split(300, [0, 1, 2], 25) == [(0, 100), (1, 100), (2, 100)]
    assert split(325, [0, 1, 2], 25) == [(0, 125), (1, 100), (2, 100)]
    assert split(350, [0, 1, 2], 25) == [(0, 125), (1, 125), (2, 100)]


def test_pot6_split_never_gives_one_player_two_odd_chips_below_the_unit() -> None:
    # 000 ties 1: no player may receive more than one odd chip. 35 in 10-chips and a 5-chip
    # between two: 10 each, then one odd 10-chip and one odd 5-chip, one to each player.
    shares = dict(split(35, [0, 1], 10))
    assert sum(shares.values()) == 35
    assert shares == {0: 20, 1: 15}


def test_pot6_split_property_random() -> None:
    rng = random.Random(6)
    for _ in range(2000):
        k = rng.randint(1, 9)
        winners = sorted(rng.sample(range(9), k))
        unit = rng.choice([1, 1, 5, 25])
        amount = unit * rng.randint(0, 500)
        shares = split(amount, winners, unit)
        assert [p for p, _ in shares] == winners
        assert sum(a for _, a in shares) == amount
        amounts = [a for _, a in shares]
        assert all(a % unit == 0 for a in amounts)
        assert max(amounts) - min(amounts) <= unit  # at most one odd chip each
        assert amounts == sorted(amounts, reverse=True)  # odd chips go first clockwise


# -- POT-7 hand rankings ----------------------------------------------------------------------------


def _winner(holes: Sequence[str], board: str) -> list[int]:
    """Who wins a checked-down hold'em hand (the chips each player wins)."""
    t = Table(config([1000] * len(holes)), holes, board)
    return won(t.show_all())


@pytest.mark.parametrize(
    ("holes", "board", "winners"),
    [
        # the wheel A-2-3-4-5 is a straight (ace low) and beats three of a kind
        (["Ad2c", "9s9h"], "3h4s5d9cKc", {0}),
        # a six-high straight beats the wheel
        (["Ad2c", "6s2d"], "3h4s5dJcKc", {1}),
        # ace high straight beats king high
        (["AdTc", "9s8d"], "KhQsJd2c3c", {0}),
        # no wrap-around straight: Q-K-A-2-3 is ace high only; the pair of threes wins
        (["AdKc", "3s7d"], "Qh2s3d8c9h", {1}),
        # flush beats straight
        (["Ah2h", "Ts9d"], "Jh8h7h6c3s", {0}),
        # full house beats flush
        (["JdJs", "Ah2h"], "Jh8h7h8c3s", {0}),
        # four of a kind beats a full house
        (["8s8d", "JdJs"], "Jh8h7h8c3s", {0}),
        # steel wheel: a five-high straight flush beats four of a kind
        (["Ah2h", "9s9d"], "3h4h5h9h9c", {0}),
        # kickers decide: A-K beats A-Q on an ace-high board
        (["AdKc", "AsQh"], "Ah8s7d4c2s", {0}),
        # two pair: the fifth card (kicker) decides
        (["AdKc", "QsJh"], "8h8s7d7c2s", {0}),
        # suits never break ties: the same straight splits
        (["AdKc", "AhKs"], "QhJdTc4s2s", {0, 1}),
        # the board plays for both: split
        (["2c3d", "2d3c"], "AhKhQhJhTh", {0, 1}),
        # a pair with the better kicker from the board makes no difference: split
        (["AdTc", "AsTh"], "KsQd8c7h2h", {0, 1}),
        # three pair: the best two pairs count, then the kicker
        (["9d9c", "8s8h"], "KsKd7c7h2h", {0}),
    ],
)
def test_pot7_hand_rankings_at_the_showdown(holes: list[str], board: str, winners: set[int]) -> None:
    amounts = _winner(holes, board)
    assert {p for p, a in enumerate(amounts) if a} == winners


def _reference_value(five: Sequence[Card]) -> tuple[int, tuple[int, ...]]:
    """A slow, plain ranking of five cards written from 001's table: category, then ranks."""
    ranks = sorted((c >> 2 for c in five), reverse=True)
    suits = {c & 3 for c in five}
    counts = Counter(ranks)
    order = tuple(sorted(counts, key=lambda r: (counts[r], r), reverse=True))
    shape = sorted(counts.values(), reverse=True)
    distinct = sorted(set(ranks), reverse=True)
    straight_top = None
    if len(distinct) == 5:
        if distinct[0] - distinct[4] == 4:
            straight_top = distinct[0]
        elif distinct == [12, 3, 2, 1, 0]:
            straight_top = 3  # the wheel is five high
    flush = len(suits) == 1
    if straight_top is not None and flush:
        return 8, (straight_top,)
    if shape == [4, 1]:
        return 7, order
    if shape == [3, 2]:
        return 6, order
    if flush:
        return 5, tuple(ranks)
    if straight_top is not None:
        return 4, (straight_top,)
    if shape == [3, 1, 1]:
        return 3, order
    if shape == [2, 2, 1]:
        return 2, order
    if shape == [2, 1, 1, 1]:
        return 1, order
    return 0, tuple(ranks)


def _reference_best(cards: Sequence[Card]) -> tuple[int, tuple[int, ...]]:
    return max(_reference_value(five) for five in itertools.combinations(cards, 5))


def test_pot7_evaluator_orders_random_hands_like_a_plain_reference() -> None:
    rng = random.Random(7)
    for _ in range(1500):
        cards = rng.sample(range(52), 14)
        a, b = cards[:7], cards[7:]
        ours = evaluator.evaluate_high(a), evaluator.evaluate_high(b)
        ref = _reference_best(a), _reference_best(b)
        assert (ours[0] > ours[1]) == (ref[0] > ref[1]), (a, b)
        assert (ours[0] == ours[1]) == (ref[0] == ref[1]), (a, b)


def test_pot7_evaluator_agrees_with_the_reference_on_every_category() -> None:
    # one hand of each category, shuffled, 5 to 7 cards
    samples = [
        "AsKsQsJsTs",
        "5d4d3d2dAd9c",
        "9c9d9h9s2c",
        "KcKdKh2s2c7d",
        "2h7h9hJhKh3c",
        "6c5d4h3s2c",
        "AcAdAh7s2c",
        "JcJd4h4s2c",
        "QcQd7h4s2c",
        "AcJd9h6s3c",
    ]
    values = []
    for text in samples:
        cards = parse_cards(text)
        values.append(evaluator.evaluate_high(cards))
        assert evaluator.category_of(values[-1]) == _reference_best(cards)[0]
    assert values == sorted(values, reverse=True)


# -- POT-8 Omaha: exactly two hole cards and three board cards ---------------------------------------


def test_pot8_omaha_uses_exactly_two_hole_cards_no_playing_the_board() -> None:
    # With Th the hold'em hand would be a royal flush; in Omaha it needs two hole hearts.
    holes = ["Th3s5d6d", "9c9d8s7s"]
    board = "AhKhQhJh2c"
    t = Table(config([1000, 1000], game=OMAHA), holes, board)
    assert won(t.show_all()) == [0, 200]
    t = Table(config([1000, 1000], game=HOLDEM), ["Th3s", "9c9d"], board)
    assert won(t.show_all()) == [200, 0]


def test_pot8_omaha_one_heart_in_the_hand_is_no_flush() -> None:
    board = "9h7h4h2hKc"  # four hearts on the board
    # Omaha: the ace of hearts alone makes no flush; A-Q-J-T has ace high, 3-3 a pair
    t = Table(config([1000, 1000], game=OMAHA), ["AhQcJsTd", "3c3d5s6s"], board)
    assert won(t.show_all()) == [0, 200]
    # hold'em: the same ace of hearts makes a flush
    t = Table(config([1000, 1000], game=HOLDEM), ["AhQc", "3c3d"], board)
    assert won(t.show_all()) == [200, 0]


def test_pot8_omaha_evaluator_matches_brute_force_over_two_plus_three() -> None:
    rng = random.Random(8)
    for _ in range(300):
        cards = rng.sample(range(52), 9)
        hole, board = cards[:4], cards[4:]
        best = max(
            evaluator.evaluate_high(list(h) + list(b))
            for h in itertools.combinations(hole, 2)
            for b in itertools.combinations(board, 3)
        )
        assert evaluator.evaluate_omaha_high(hole, board) == best


# -- POT-9 Omaha hi/lo -------------------------------------------------------------------------------


def test_pot9_hi_lo_split_odd_chip_to_the_high_half() -> None:
    cfg = config([1000] * 3, blinds=(25, 50), game=OMAHA_HI_LO)
    t = Table(cfg, ["QcJcTs9s", "Ad2d9c9h", "KhKdQdJd"], "3c5d8hKcKs")
    t(C(2), F(0), C(1))
    state = t.show_all()
    assert state.pot == 125
    halves = {a.half: (a.amount, a.shares) for a in state.awards}
    assert halves == {"high": (63, ((2, 63),)), "low": (62, ((1, 62),))}


def test_pot9_no_qualifying_low_the_high_hand_wins_the_whole_pot() -> None:
    cfg = config([1000] * 3, blinds=(25, 50), game=OMAHA_HI_LO)
    t = Table(cfg, ["2c3c4d5d", "Ad2d8c8h", "KhKdQdJd"], "Kc9d9sJhTc")
    t(C(2), F(0), C(1))
    state = t.show_all()
    assert [(a.half, a.amount, a.shares) for a in state.awards] == [("all", 125, ((2, 125),))]


def test_pot9_low_uses_exactly_two_hole_cards_and_eight_or_better() -> None:
    # A-2 in the hand and 3-4-9 on the board: an 8-or-better low needs three board cards of
    # eight or less: 3, 4 and one more; 9 and K do not qualify, so no low.
    assert evaluator.evaluate_omaha_low8(parse_cards("Ad2d9c9h"), parse_cards("3c4d9sKhKc")) is None
    low = evaluator.evaluate_omaha_low8(parse_cards("Ad2d9c9h"), parse_cards("3c4d8sKhKc"))
    assert low is not None
    # a wheel low beats an 8-low
    wheel = evaluator.evaluate_omaha_low8(parse_cards("Ad2d9c9h"), parse_cards("3c4d5sKhKc"))
    assert wheel is not None and wheel > low


def test_pot9_split_low_is_quartered_and_high_gets_the_odd_chips() -> None:
    cfg = config([1000] * 3, blinds=(25, 50), game=OMAHA_HI_LO)
    t = Table(cfg, ["Ad2dQcJc", "Ah2hTs9s", "KhKdQdJd"], "3c5d8hKcKs")
    t(C(2), C(0), C(1))
    state = t.show_all()
    assert state.pot == 150
    halves = {a.half: dict(a.shares) for a in state.awards}
    assert halves == {"high": {2: 75}, "low": {0: 38, 1: 37}}


# -- antes: dead money in the main pot ---------------------------------------------------------------


def test_antes_every_player_posts_are_their_own_contribution() -> None:
    cfg = config([60, 1000, 1000], antes=(10, 10, 10))
    t = Table(cfg, ["AsAh", "KsKh", "QsQh"], "2c7d9hJs3s")
    assert t.state.dead == 0 and t.state.pot == 30 + 50 + 100
    assert t.state.contributed == (60, 110, 10)  # each player's own ante counts for POT-1
    assert t.state.bets == (50, 100, 0)  # but antes are not bets
    t(C(2), C(1))
    pots = side_pots(t.state.contributed, t.state.folded, t.state.dead)
    assert pots == [Pot(180, (0, 1, 2)), Pot(100, (1, 2))]
    state = t.show_all()
    # position 0 put in 60 and wins 60 from each: 180
    assert state.finishing_stacks == (180, 1000 - 110 + 100, 890)


def test_antes_all_fold_the_antes_and_blinds_go_to_the_last_hand() -> None:
    cfg = config([1000] * 3, antes=(10, 10, 10))
    t = Table(cfg, ["AsAh", "KsKh", "QsQh"], "2c7d9hJs3s")
    t(F(2), F(0))
    assert t.state.finishing_stacks == (940, 1070, 990)  # 30 antes + 50 + its own 100


def test_antes_big_blind_ante_goes_to_the_main_pot() -> None:
    cfg = config([1000] * 3, antes=(0, 100, 0))
    t = Table(cfg, ["AsAh", "KsKh", "QsQh"], "2c7d9hJs3s")
    assert t.state.stacks == (950, 800, 1000)
    t(C(2), C(0), C(1))
    state = t.show_all()
    assert state.finishing_stacks == (950 - 50 + 400, 800, 900)


def test_pot1_a_player_all_in_for_the_ante_can_win_the_antes() -> None:
    # POT-1: an all-in player wins from each opponent what they put in: 10 from each.
    cfg = config([10, 1000, 1000], antes=(10, 10, 10))
    t = Table(cfg, ["AsAh", "2c7d", "3c8d"], "Ks9d4cJhQh")
    assert t.state.stacks[0] == 0
    t(C(2), C(1))
    state = t.show_all()
    assert state.finishing_stacks[0] == 30
    assert sum(state.finishing_stacks) == 2010


def test_pot1_short_all_in_straddle_wins_only_its_own_level_from_each_blind() -> None:
    # Blinds 50/100, straddle 200 posted all-in for 40 (BET-15); everyone folds. POT-1: the
    # straddler wins 40 from each blind (120 in all); POT-2: the rest goes back.
    cfg = config([1000, 1000, 40, 1000], blinds=(50, 100, 200))
    t = Table(cfg, ["2c3c", "4c5c", "6c7c", "8c9c"], ROYAL_BOARD)
    assert t.state.bets == (50, 100, 40, 0)
    t(F(3), F(0), F(1))
    assert t.state.phase is Phase.COMPLETE
    assert t.state.finishing_stacks == (960, 960, 120, 1000)


def test_awards_conserve_chips_and_name_each_pot() -> None:
    cfg = config([100, 300, 600, 1000], antes=(5, 5, 5, 5))
    t = Table(cfg, ["QsQh", "AsAh", "KsKh", "4c5c"], "2c7d9hJs3s")
    t(R(2, 595), C(3), C(0), C(1))
    state = t.show_all()
    assert sum(state.finishing_stacks) == sum(cfg.starting_stacks)
    assert all(isinstance(a, Award) for a in state.awards)
    assert sorted({a.pot_index for a in state.awards}) == list(range(3))
    total = sum(a.amount for a in state.awards)
    assert total == state.pot


def test_dead_hands_chips_stay_in_the_pot_when_no_live_hand_put_any_in() -> None:
    # Two blinds ruled dead before the flop (000 misdeals 2): the last live hand takes their chips.
    from tablectl.core.game import Kill

    t = Table(config([1000, 1000, 1000]), ["AsAh", "KsKh", "QsQh"], "2c7d9hJs3s")
    t(Kill(0), Kill(1))
    assert t.state.finishing_stacks == (950, 900, 1150)
