"""The STUD, DRAW and HO rules of ../shared/RULES.md that the rules core applies, one focused test
or more per rule. Stud positions: 0 is the dealer's left, the first seat dealt; draw positions
are the button games' (0 left of the button, the button last)."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Sequence

import pytest

from tablectl.core.cards import parse_cards
from tablectl.core.game import (
    DEUCE_TO_SEVEN_SINGLE_DRAW,
    DEUCE_TO_SEVEN_TRIPLE_DRAW,
    RAZZ,
    SEVEN_CARD_STUD,
    STUD_HI_LO,
    Action,
    BetRaise,
    BringIn,
    CheckCall,
    ConfigError,
    DealBoard,
    DealHole,
    Discard,
    Fold,
    HandConfig,
    HandState,
    Kill,
    Phase,
    RuleViolation,
    Show,
    Structure,
    Variant,
    apply,
    house_rules,
    legal,
    show_down_all,
    showdown_order,
    start_hand,
)
from tablectl.core.game.variants import Game
from tablectl.formats.phh import export_phh, parse_phh, replay
from tablectl.sim.players import play_random_hand

FL = Structure.FIXED_LIMIT


def stud(
    game: Game,
    starts: Sequence[str],
    *,
    stacks: int | Sequence[int] = 1000,
    ante: int = 1,
    bring_in: int = 1,
    small: int = 2,
    big: int = 4,
    **options: object,
) -> HandState:
    """A stud hand dealt its third street: each player's two down cards and up card, e.g. 'AsKd5c'."""
    n = len(starts)
    chips = (stacks,) * n if isinstance(stacks, int) else tuple(stacks)
    config = HandConfig(
        Variant(game, FL),
        chips,
        antes=(ante,) * n if ante else (),
        bring_in=bring_in,
        small_bet=small,
        big_bet=big,
        rules=house_rules("tda", **options),
    )
    state = start_hand(config)
    for p, cards in enumerate(starts):
        state = apply(state, DealHole(p, parse_cards(cards)))
    return state


def play(state: HandState, *actions: Action) -> HandState:
    for action in actions:
        state = apply(state, action)
    return state


def street(state: HandState, cards: Sequence[str]) -> HandState:
    """Deal one stud street: a card to each live player, in position order."""
    assert state.phase is Phase.DEALING_HOLE, state.phase
    live = iter(state.live)
    for text in cards:
        state = apply(state, DealHole(next(live), parse_cards(text)))
    return state


def check_round(state: HandState) -> HandState:
    while state.phase is Phase.BETTING:
        options = legal(state)
        assert options is not None
        state = apply(state, BringIn(options.player) if options.bring_in else CheckCall(options.player))
    return state


# -- the bring-in (STUD-5, STUD-6, HO-1) ---------------------------------------------------------


def test_lowest_up_card_brings_in_clubs_lowest() -> None:
    state = stud(SEVEN_CARD_STUD, ["AsKd2d", "AhKh2c", "QsQd5c"])
    options = legal(state)
    assert options is not None and options.player == 1 and options.bring_in == 1  # the 2 of clubs
    assert state.up == (tuple(parse_cards("2d")), tuple(parse_cards("2c")), tuple(parse_cards("5c")))


def test_an_ace_is_high_for_the_stud_bring_in() -> None:
    state = stud(STUD_HI_LO, ["2s3dAc", "2h4h3c"])
    assert state.actor == 1  # the three, not the ace


def test_razz_highest_up_card_brings_in_aces_low_king_of_spades_highest() -> None:
    assert stud(RAZZ, ["2s3dKh", "2h3hKs", "4c5c9d"]).actor == 1  # K♠ over K♥
    assert stud(RAZZ, ["2s3dAs", "4h5h2c"]).actor == 1  # the deuce is higher than the ace


def test_the_bring_in_is_posted_or_completed_never_folded_or_checked() -> None:
    state = stud(SEVEN_CARD_STUD, ["AsKd9d", "AhKh2c", "QsQd5c"])
    options = legal(state)
    assert options is not None
    assert (options.can_fold, options.can_check, options.bring_in) == (False, False, 1)
    assert (options.can_raise, options.min_raise_to, options.max_raise_to) == (True, 2, 2)
    for refused in (CheckCall(1), Fold(1), BringIn(2)):
        with pytest.raises(RuleViolation) as err:
            apply(state, refused)
        assert err.value.rule == "STUD-5"
    posted = apply(state, BringIn(1))
    assert posted.bets == (0, 1, 0) and posted.high_bet == 1 and posted.actor == 2
    completed = apply(state, BetRaise(1, 2))  # STUD-6: the bring-in player may open for a full bet
    assert completed.bets == (0, 2, 0) and completed.wagers == 1


def test_a_short_bring_in_posts_what_it_has_and_others_owe_the_whole() -> None:
    # BET-15 with STUD-17: 1 chip left after the ante, bring-in 2: the others still owe 2.
    state = stud(
        SEVEN_CARD_STUD, ["AsKd9d", "AhKh2c", "QsQd5c"], stacks=(100, 2, 100), bring_in=2, small=4, big=8
    )
    state = apply(state, BringIn(1))
    assert state.stacks[1] == 0 and state.bets[1] == 1
    options = legal(state)
    assert options is not None and options.call_amount == 2


def test_a_dead_bring_in_passes_the_bring_in_on_and_a_lone_hand_wins_at_once() -> None:
    state = stud(SEVEN_CARD_STUD, ["AsKd9d", "AhKh2c", "QsQd5c"])
    state = apply(state, Kill(1, "IRR-8"))
    assert state.bringing_in and state.actor == 2  # the five of clubs is now the lowest
    state = check_round(state)
    state = apply(state, DealHole(0, parse_cards("7s")))
    state = apply(state, Kill(2, "IRR-9"))  # the last other hand dies mid-street: no more cards
    assert state.is_complete and state.finishing_stacks == (1003, 999, 998)


def test_everyone_folds_to_the_bring_in() -> None:
    state = play(stud(SEVEN_CARD_STUD, ["AsKd9d", "AhKh2c", "QsQd5c"]), BringIn(1), Fold(2), Fold(0))
    assert state.is_complete
    assert state.finishing_stacks == (999, 1002, 999)  # the antes; the bring-in came back (POT-2)


# -- completion (STUD-7, HO-12) ------------------------------------------------------------------


def test_completion_is_the_first_bet_and_the_raises_follow_it() -> None:
    # $2/$4 with a $1 bring-in completes to $2, raises go to $4, $6 (STUD-7's example).
    state = play(stud(SEVEN_CARD_STUD, ["AsKd9d", "AhKh2c", "QsQd5c", "JsJd7c"]), BringIn(1))
    options = legal(state)
    assert options is not None and (options.call_amount, options.min_raise_to, options.max_raise_to) == (
        1,
        2,
        2,
    )
    state = play(state, BetRaise(2, 2))
    assert state.wagers == 1  # the bring-in and its completion are one bet toward the cap
    options = legal(state)
    assert options is not None and options.min_raise_to == 4
    state = play(state, BetRaise(3, 4), BetRaise(0, 6))
    options = legal(state)
    assert options is not None and options.min_raise_to == 8 and state.wagers == 3


def test_the_cap_counts_the_completion_as_the_bet() -> None:
    state = stud(SEVEN_CARD_STUD, ["AsKd9d", "AhKh2c", "QsQd5c"], limit_cap_bets=4)
    state = play(state, BringIn(1), BetRaise(2, 2), BetRaise(0, 4), BetRaise(1, 6), BetRaise(2, 8))
    options = legal(state)
    assert options is not None and not options.can_raise and options.why_no_raise.startswith("BET-6")


def test_a_completion_reopens_the_betting_even_for_less_than_half_a_bet() -> None:
    # HO-12: at stud the bring-in is always completable; a bring-in of 3 at 4/8 completes by 1, and
    # who called the bring-in may raise after it (STUD-7: the completion reopens the betting).
    state = stud(SEVEN_CARD_STUD, ["AsKd9d", "AhKh2c", "QsQd5c"], bring_in=3, small=4, big=8)
    state = play(state, BringIn(1), CheckCall(2), BetRaise(0, 4))
    options = legal(state)
    assert options is not None and options.player == 1 and options.can_raise and options.min_raise_to == 8
    state = play(state, CheckCall(1))
    options = legal(state)
    assert options is not None and options.player == 2 and options.can_raise


def test_half_a_bet_bring_in_is_completable() -> None:
    state = play(stud(STUD_HI_LO, ["AsKd9d", "AhKh2c"], bring_in=1, small=2, big=4), BringIn(1))
    options = legal(state)
    assert options is not None and options.min_raise_to == 2  # completed, not raised to 3


# -- later streets: who opens, the bet sizes (STUD-8, STUD-9, HO-2) -------------------------------


def _to_fourth(game: Game, starts: Sequence[str], **options: object) -> HandState:
    state = check_round(stud(game, starts, **options))
    assert state.phase is Phase.DEALING_HOLE and state.street == 1
    return state


def test_the_best_hand_showing_opens_from_fourth_street() -> None:
    state = _to_fourth(SEVEN_CARD_STUD, ["2s3dAc", "2h3h5c", "4c4d9d"])
    state = street(state, ["Kd", "5d", "8s"])  # A-K, 5-5, 9-8: the open pair opens
    assert state.phase is Phase.BETTING and state.actor == 1 and state.opener == 1


def test_ties_showing_go_to_the_player_nearest_the_dealers_left() -> None:
    # HO-2: A-K against A-K, suits do not count; straights and flushes never count on the board.
    state = _to_fourth(SEVEN_CARD_STUD, ["2s3dAc", "2h3hAd", "4c4dQs"])
    state = street(state, ["Kc", "Kd", "Js"])
    assert state.actor == 0
    state = _to_fourth(SEVEN_CARD_STUD, ["2s3d9h", "2h3hTh", "4c4dQs"])
    state = street(state, ["8h", "Jh", "Ks"])  # suited and connected: only K-Q high counts
    assert state.actor == 2


def test_razz_lowest_hand_showing_opens_a_pair_counts_against_it() -> None:
    state = _to_fourth(RAZZ, ["Ks3dAc", "KhQh5c", "QcJd7d"])
    state = street(state, ["Ad", "6d", "2s"])  # A-A, 6-5, 7-2: 6-5 is lowest, the pair worst
    assert state.actor == 1


def test_the_opener_from_the_up_card_table_is_the_one_by_the_showing_keys() -> None:
    # STUD-8, HO-2: the engine looks up each hand showing in a table of up-card rank multisets
    # (engine._SHOWING_PLACE); it must pick the player the keys themselves pick, tie-breaks
    # included, for stud and razz, with folded hands, unknown cards and more than four up cards.
    from tablectl.core.game.engine import (
        Opener,
        _best_showing,
        _best_showing_by_keys,
        _has_pair,
        _pair_showing,
    )

    rng = random.Random(2027)
    base = stud(SEVEN_CARD_STUD, ["2s3dAc", "2h3h5c", "4c4d9d", "5s6s7s", "8h9hTh", "JcQcKc"])
    for _ in range(3000):
        deck = rng.sample(range(52), 52)
        size = rng.choice((1, 2, 3, 4, 4, 5))
        up = tuple(tuple(deck[6 * k + j] for j in range(size)) for k in range(6))
        if rng.random() < 0.1:
            up = (up[0][:-1] + (-1,), *up[1:])  # a hand history's unknown card
        folded = tuple(rng.random() < 0.3 for _ in range(6))
        state = dataclasses.replace(base, up=up, folded=folded)
        for rule in (Opener.HIGH_HAND, Opener.LOW_HAND):
            assert _best_showing(state, rule) == _best_showing_by_keys(state, rule is Opener.LOW_HAND)
        live = [up[i] for i in range(6) if not folded[i]]
        assert _pair_showing(state) == any(_has_pair(cards) for cards in live)


def test_seventh_street_opens_with_the_same_player_as_sixth() -> None:
    state = _to_fourth(SEVEN_CARD_STUD, ["2s3dAc", "2h3h5c"])
    for cards in (["Kd", "5d"], ["7c", "8c"]):
        state = check_round(street(state, cards))
    state = street(state, ["9c", "Td"])  # sixth: 5-5 still opens
    sixth = state.actor
    state = check_round(state)
    state = street(state, ["As", "Ah"])  # seventh street is down: nothing new shows
    assert state.actor == sixth == 1 and state.up[0] == tuple(parse_cards("AcKd7c9c"))


def test_fixed_limit_small_bet_on_third_and_fourth_big_bet_after() -> None:
    state = _to_fourth(SEVEN_CARD_STUD, ["2s3dAc", "2h3h5c"])
    state = street(state, ["Kd", "9d"])
    options = legal(state)
    assert options is not None and (options.min_raise_to, options.max_raise_to) == (2, 2)
    state = street(check_round(state), ["7c", "8c"])
    options = legal(state)
    assert options is not None and (options.min_raise_to, options.max_raise_to) == (4, 4)


def test_california_option_small_bet_on_three_rounds() -> None:
    state = _to_fourth(SEVEN_CARD_STUD, ["2s3dAc", "2h3h5c"], stud_small_bet_rounds=3)
    state = street(check_round(street(state, ["Kd", "9d"])), ["7c", "8c"])  # fifth street
    options = legal(state)
    assert options is not None and options.min_raise_to == 2
    state = street(check_round(state), ["9c", "Td"])  # sixth street: the big bet
    options = legal(state)
    assert options is not None and options.min_raise_to == 4
    with pytest.raises(ValueError, match="2 or 3"):
        house_rules("tda", stud_small_bet_rounds=4)


def test_a_down_card_dealt_face_up_plays_as_an_up_card() -> None:
    # HO-4 (the engine's part): the dealer exposes a hole card, the third card goes down and the
    # exposed card is the up card: it decides the bring-in.
    config = HandConfig(Variant(SEVEN_CARD_STUD, FL), (100, 100), bring_in=1, small_bet=2, big_bet=4)
    state = start_hand(config)
    state = apply(state, DealHole(0, parse_cards("2cKdQd"), up=(True, False, False)))
    state = apply(state, DealHole(1, parse_cards("AsKh3c")))
    assert state.up == (tuple(parse_cards("2c")), tuple(parse_cards("3c")))
    assert state.actor == 0 and state.bringing_in
    with pytest.raises(RuleViolation):
        apply(start_hand(config), DealHole(0, parse_cards("2cKd"), up=(True,)))


def test_stud_and_draw_hands_export_to_phh_and_replay() -> None:
    rng = random.Random(13)
    for game, structure in (
        (SEVEN_CARD_STUD, FL),
        (STUD_HI_LO, FL),
        (RAZZ, FL),
        (DEUCE_TO_SEVEN_TRIPLE_DRAW, FL),
        (DEUCE_TO_SEVEN_SINGLE_DRAW, Structure.NO_LIMIT),
    ):
        for _ in range(40):
            n = rng.randint(2, 6)
            stacks = tuple(rng.randint(10, 300) for _ in range(n))
            if game.has_button:
                config = HandConfig(Variant(game, structure), stacks, blinds=(1, 2), small_bet=2, big_bet=4)
            else:
                config = HandConfig(
                    Variant(game, structure), stacks, antes=(1,) * n, bring_in=1, small_bet=2, big_bet=4
                )
            final, actions = play_random_hand(config, rng)
            text = export_phh(config, actions, final.finishing_stacks)
            again = replay(parse_phh(text)).state
            assert again.finishing_stacks == final.finishing_stacks, text


def test_open_pair_option_allows_the_big_bet_on_fourth_street() -> None:
    # STUD-9 option (SS-3): with an open pair, the small or the big bet; once big, raises are big.
    state = _to_fourth(SEVEN_CARD_STUD, ["2s3dAc", "2h3h5c", "4c7d9d"], stud_open_pair_big_bet=True)
    state = street(state, ["Kd", "5d", "8s"])
    options = legal(state)
    assert options is not None and (options.min_raise_to, options.max_raise_to) == (2, 4)
    with pytest.raises(RuleViolation) as err:
        apply(state, BetRaise(1, 3))
    assert err.value.rule == "STUD-9"
    state = apply(state, BetRaise(1, 4))
    options = legal(state)
    assert options is not None and (options.min_raise_to, options.max_raise_to) == (8, 8)
    # Without the option, or without an open pair, only the small bet.
    plain = street(_to_fourth(SEVEN_CARD_STUD, ["2s3dAc", "2h3h5c", "4c7d9d"]), ["Kd", "5d", "8s"])
    options = legal(plain)
    assert options is not None and (options.min_raise_to, options.max_raise_to) == (2, 2)


def test_stud_allows_only_fixed_limit_and_no_blinds() -> None:
    with pytest.raises(ConfigError, match="blinds"):
        HandConfig(
            Variant(SEVEN_CARD_STUD, FL), (100, 100), blinds=(1, 2), bring_in=1, small_bet=2, big_bet=4
        )
    with pytest.raises(ConfigError, match="bring_in"):
        HandConfig(Variant(RAZZ, FL), (100, 100), bring_in=2, small_bet=2, big_bet=4)
    with pytest.raises(ConfigError, match="fixed limit"):
        HandConfig(Variant(RAZZ, Structure.NO_LIMIT), (100, 100), bring_in=1, min_bet=2)


# -- showdowns (STUD-15, STUD-16, POT-3, HO-5, HO-3) ---------------------------------------------


def _to_showdown(state: HandState, streets: Sequence[Sequence[str]]) -> HandState:
    state = check_round(state)
    for cards in streets:
        state = check_round(street(state, cards))
    assert state.phase is Phase.SHOWDOWN
    return state


def test_stud_hi_lo_splits_and_high_scoops_without_a_qualifying_low() -> None:
    starts = ["As2d3c", "KsKdQc"]
    rest = [["4h", "Kh"], ["7s", "Jd"], ["Qh", "9c"], ["Td", "Tc"]]
    state = show_down_all(_to_showdown(stud(STUD_HI_LO, starts), rest))
    # A-2-3-4-7 low for position 0, kings full for position 1: the pot of 2 antes + 2 calls = 4.
    assert {(a.half, a.shares) for a in state.awards} == {("high", ((1, 2),)), ("low", ((0, 2),))}
    starts = ["AsJd3c", "KsKdQc"]
    state = show_down_all(
        _to_showdown(stud(STUD_HI_LO, starts), [["9h", "Kh"], ["7s", "Jh"], ["Qh", "9c"], ["Td", "Tc"]])
    )
    assert [(a.half, a.shares) for a in state.awards] == [("all", ((1, 4),))]


def test_razz_lowest_hand_wins_pairs_count_against() -> None:
    starts = ["As2d3c", "4s5d6c"]
    rest = [["Ah", "7h"], ["2s", "8d"], ["3h", "Ks"], ["Kd", "Qc"]]
    state = show_down_all(_to_showdown(stud(RAZZ, starts), rest))
    # Position 0 holds A-A-2-2-3-3-K: its best low is K-3-2-A with a pair; position 1 has 8-7-6-5-4.
    assert state.finishing_stacks == (998, 1002)


def test_showdown_order_when_all_checked_starts_with_the_last_rounds_opener() -> None:
    # POT-3: nobody bet on seventh street: the first to act shows first, here the open pair.
    starts = ["2s3dAc", "2h3h5c", "4c7d9d"]
    rest = [["Kd", "5d", "8s"], ["7c", "8c", "Ts"], ["9c", "Td", "Js"], ["Qh", "Qd", "Qc"]]
    state = _to_showdown(stud(SEVEN_CARD_STUD, starts), rest)
    assert state.opener == 1 and showdown_order(state)[0] == 1


def test_odd_chip_goes_to_the_high_card_showing() -> None:
    # HO-5: no button: a split pot's odd chip to the high card by suit showing. Two 9-high
    # straights tie; the third player brings in and folds to a bet: 3 antes + 3 x 2 + 2 x 4 = 17.
    starts = ["5c6dKh", "5d6hKs", "2c3cJc"]
    state = stud(SEVEN_CARD_STUD, starts, bring_in=2, small=4, big=8)
    state = play(state, BringIn(2), CheckCall(0), CheckCall(1))
    state = street(state, ["7h", "7s", "2d"])
    assert state.actor == 0  # K-7 against K-7: the tie goes to the dealer's left (HO-2)
    state = play(state, BetRaise(0, 4), CheckCall(1), Fold(2))
    for cards in (["8s", "8c"], ["9c", "9d"], ["Ad", "Ah"]):
        state = check_round(street(state, cards))
    state = show_down_all(state)
    # Both show K-9-8-7; the king of spades is the high card: position 1 gets the odd chip
    # (POT-6's first clockwise from a button would be position 0).
    assert state.finishing_stacks == (1001, 1002, 997)


def test_community_card_when_the_deck_runs_short() -> None:
    # HO-3: one card face up in the centre plays for everyone, instead of this street's cards.
    state = _to_fourth(SEVEN_CARD_STUD, ["2s3dAc", "2h3h5c"])
    for cards in (["Kd", "5d"], ["7c", "8c"], ["9c", "Td"]):
        state = check_round(street(state, cards))
    refused = apply(state, DealHole(0, parse_cards("As")))
    with pytest.raises(RuleViolation) as err:
        apply(refused, DealBoard(parse_cards("Ah")))  # too late: this street is being dealt
    assert err.value.rule == "HO-3"
    state = apply(state, DealBoard(parse_cards("Ah")))
    assert state.phase is Phase.BETTING and state.board == tuple(parse_cards("Ah"))
    state = show_down_all(check_round(state))
    assert state.is_complete  # each hand is its six cards and the community card


def _raise_to_the_last_opponents_all_in() -> HandState:
    """85.phh in small: razz at 4/8, sixth street: position 0 bets 8 with 4 behind, position 1
    raises "to 12", all position 0 can call, below the full raise to 16."""
    state = stud(RAZZ, ["8c2h4c", "4h3d8d"], stacks=(29, 100), ante=1, bring_in=1, small=4, big=8)
    state = play(state, BringIn(1), BetRaise(0, 4), CheckCall(1))
    state = play(street(state, ["Ad", "2s"]), BetRaise(0, 4), CheckCall(1))
    state = play(street(state, ["Qd", "Td"]), BetRaise(1, 8), CheckCall(0))
    state = street(state, ["3c", "Ks"])
    assert state.actor == 0 and state.stacks[0] == 12
    state = play(state, BetRaise(0, 8))
    options = legal(state)
    assert options is not None and options.min_raise_to == 16
    return play(state, BetRaise(1, 12))


def test_a_raise_to_all_the_last_opponent_can_call_stands() -> None:
    # POT-2: the rest of the full raise could never be called; PokerKit 0.7.7 refuses it.
    state = _raise_to_the_last_opponents_all_in()
    assert state.bets == (8, 12) and state.high_bet == 12
    with pytest.raises(RuleViolation):
        apply(state, BetRaise(0, 11))  # a raise below the minimum is still refused otherwise
    state = apply(state, CheckCall(0))
    assert state.stacks[0] == 0 and state.phase is Phase.DEALING_HOLE


def test_hands_shown_in_an_all_in_run_out_are_shown_again_with_their_new_cards() -> None:
    # POT-5 at stud (85.phh): all-in on sixth street, both hands are shown with six cards; once
    # the seventh card is dealt each hand is shown again, as seven.
    state = apply(_raise_to_the_last_opponents_all_in(), CheckCall(0))
    assert state.is_running_out and state.hands_face_up
    state = play(state, Show(1, state.hole[1]), Show(0, state.hole[0]))
    assert state.shown[0] is not None and state.phase is Phase.DEALING_HOLE
    state = street(state, ["Kh", "7h"])
    assert state.phase is Phase.SHOWDOWN and state.shown == (None, None)
    state = play(state, Show(1, state.hole[1]), Show(0, state.hole[0]))
    assert state.is_complete
    assert state.finishing_stacks == (58, 71)  # 8-4-3-2-A beats 8-7-4-3-2: all 29 of each


# -- draw games (DRAW-2, DRAW-3, DRAW-4, DRAW-12, HO-7, HO-9) -------------------------------------


def draw_hand(
    game: Game, holes: Sequence[str], structure: Structure = FL, blinds: tuple[int, ...] = (1, 2)
) -> HandState:
    n = len(holes)
    config = HandConfig(
        Variant(game, structure), (1000,) * n, blinds=blinds, small_bet=2, big_bet=4, rules=house_rules("tda")
    )
    state = start_hand(config)
    for p, cards in enumerate(holes):
        state = apply(state, DealHole(p, parse_cards(cards)))
    return state


HOLES = ["7c5d4h3s2c", "KsKd4s4c2s", "QhQcJd8c3h", "AhAdQs9h4d"]


def test_draw_betting_order_left_of_the_big_blind_then_left_of_the_button() -> None:
    state = draw_hand(DEUCE_TO_SEVEN_TRIPLE_DRAW, HOLES)
    assert state.actor == 2  # DRAW-3: left of the big blind; nobody may check (the blind is a bet)
    options = legal(state)
    assert options is not None and not options.can_check
    state = play(state, CheckCall(2), CheckCall(3), CheckCall(0), CheckCall(1))
    assert state.phase is Phase.DRAWING and state.next_to_draw == 0  # HO-7: left of the button first
    state = play(state, Discard(0), Discard(1, parse_cards("KsKd4s")), Discard(2, parse_cards("QhQc")))
    state = play(state, Discard(3, parse_cards("AhAd")))
    for p, cards in ((1, "7s7d5c"), (2, "6h6d"), (3, "9c8d")):
        state = apply(state, DealHole(p, parse_cards(cards)))
    assert state.phase is Phase.BETTING and state.actor == 0  # the first player still in, left of the button
    assert state.hole[1] == tuple(parse_cards("4c2s7s7d5c"))


def test_triple_draw_has_three_draws_and_bets_1_1_2_2() -> None:
    state = draw_hand(DEUCE_TO_SEVEN_TRIPLE_DRAW, HOLES[:2])
    sizes = []
    for _ in range(4):
        options = legal(state)
        assert options is not None
        sizes.append(options.min_raise_to - state.high_bet if state.high_bet else options.min_raise_to)
        state = check_round(state)
        if state.phase is Phase.DRAWING:
            state = play(state, Discard(0), Discard(1))
    assert sizes == [2, 2, 4, 4]
    assert state.phase is Phase.SHOWDOWN


def test_draw_in_turn_only_cards_held_and_never_ones_own_discards() -> None:
    state = play(
        draw_hand(DEUCE_TO_SEVEN_SINGLE_DRAW, HOLES[:3], Structure.NO_LIMIT),
        CheckCall(2),
        CheckCall(0),
        CheckCall(1),
    )
    for refused, rule in (
        (Discard(1), "HO-7"),
        (Discard(0, parse_cards("Ks")), "DRAW-4"),
        (CheckCall(0), "BET-14"),
        (DealHole(0, parse_cards("9s")), "HO-7"),
    ):
        with pytest.raises(RuleViolation) as err:
            apply(state, refused)
        assert err.value.rule == rule
    state = apply(state, Discard(0, parse_cards("7c5d")))
    for refused, rule in (
        (DealHole(0, parse_cards("7c")), "HO-9"),  # HO-9: never the player's own discards
        (DealHole(0, parse_cards("9s9d8d")), "DRAW-4"),
    ):
        with pytest.raises(RuleViolation) as err:
            apply(state, refused)
        assert err.value.rule == rule
    state = apply(state, DealHole(0, parse_cards("9s8d")))  # HO-7: dealt before the next draws
    assert state.next_to_draw == 1 and state.cards_due(0) == 0


def test_no_limit_single_draw_uses_the_big_bet_rules() -> None:
    state = draw_hand(DEUCE_TO_SEVEN_SINGLE_DRAW, HOLES[:3], Structure.NO_LIMIT, blinds=(50, 100))
    options = legal(state)
    assert options is not None and (options.min_raise_to, options.max_raise_to) == (200, 1000)
    state = play(state, BetRaise(2, 350))
    options = legal(state)
    assert options is not None and options.min_raise_to == 600  # BET-4: the last raise, 250, again


def test_all_in_draw_hands_stay_down_until_the_last_draw() -> None:
    # POT-5 with ST-7: a tournament turns all-in hands up, but at draw only at the showdown.
    config = HandConfig(
        Variant(DEUCE_TO_SEVEN_SINGLE_DRAW, Structure.NO_LIMIT),
        (1000, 300),
        blinds=(1, 2),
        rules=house_rules("tda"),
    )
    state = start_hand(config)
    for p, cards in enumerate(HOLES[:2]):
        state = apply(state, DealHole(p, parse_cards(cards)))
    state = play(state, BetRaise(1, 300), CheckCall(0))
    assert state.phase is Phase.DRAWING and state.is_running_out and not state.hands_face_up
    state = play(state, Discard(0), Discard(1, parse_cards("KsKd")), DealHole(1, parse_cards("9c8d")))
    assert state.phase is Phase.SHOWDOWN and state.hands_face_up


def test_deuce_to_seven_showdown_best_low_wins() -> None:
    state = play(
        draw_hand(DEUCE_TO_SEVEN_SINGLE_DRAW, HOLES[:2], Structure.NO_LIMIT), CheckCall(1), CheckCall(0)
    )
    state = play(state, Discard(0), Discard(1))
    state = show_down_all(check_round(state))
    assert state.finishing_stacks == (1002, 998)  # 7-5-4-3-2 beats two pair
