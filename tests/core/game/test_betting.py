"""The BET rules of ../shared/RULES.md (and DEAL-4), one focused test or more per rule.

Seeds: 000 = BTR rule book, 001 = hold'em irregularities and dictionary, 002 = betting
procedure, 004 = no-limit and pot-limit rules. Positions: 0 is the first seat left of the
button (the small blind with 3+ players), the button is last; heads-up the button
(position 1) posts the small blind.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from tablectl.core.cards import parse_card, parse_cards
from tablectl.core.game import (
    DealBoard,
    DealHole,
    HandConfig,
    Legal,
    Phase,
    RuleViolation,
    Show,
    Structure,
    apply,
    legal,
    start_hand,
)
from tests.helpers.hands import C, F, R, config

PL = Structure.POT_LIMIT
FL = Structure.FIXED_LIMIT
SL = Structure.SPREAD_LIMIT


# -- helpers ----------------------------------------------------------------------------------


class Table:
    """A hand in progress with a fixed deck: hole cards first, then the board."""

    def __init__(self, cfg: HandConfig) -> None:
        self.deck = list(range(52))
        self.state = start_hand(cfg)
        for p in range(cfg.players):
            cards = tuple(self.deck.pop() for _ in range(cfg.variant.game.hole_cards))
            self.state = apply(self.state, DealHole(p, cards))
        assert self.state.phase is Phase.BETTING

    def __call__(self, *actions: object) -> Table:
        for action in actions:
            self.state = apply(self.state, action)  # type: ignore[arg-type]
        return self

    def street(self) -> Table:
        assert self.state.phase is Phase.DEALING_BOARD, self.state.phase
        self.deck.pop()  # burn
        cards = tuple(self.deck.pop() for _ in range(self.state.board_needed))
        self.state = apply(self.state, DealBoard(cards))
        return self

    @property
    def legal(self) -> Legal:
        options = legal(self.state)
        assert options is not None
        return options

    def refused(self, action: object, rule: str) -> RuleViolation:
        """The action is refused naming ``rule`` and the state is unchanged."""
        before = self.state
        with pytest.raises(RuleViolation) as info:
            apply(self.state, action)  # type: ignore[arg-type]
        assert info.value.rule == rule, str(info.value)
        assert self.state == before
        return info.value


def limp_to_flop(t: Table) -> Table:
    """Everyone calls the big blind, the big blind checks, the flop comes."""
    while t.state.phase is Phase.BETTING:
        t(C(t.legal.player))
    return t.street()


# -- order of play ------------------------------------------------------------------------------


def test_order_of_play_three_or_more_players() -> None:
    t = Table(config([1000] * 4))
    assert t.state.bets == (50, 100, 0, 0)
    assert t.state.actor == 2  # left of the big blind
    t(C(2), C(3), C(0))
    assert t.state.actor == 1  # the big blind last
    t(C(1)).street()
    assert t.state.actor == 0  # after the flop: first live seat left of the button


def test_deal4_heads_up_button_posts_small_blind_and_acts_first_preflop_only() -> None:
    t = Table(config([1000, 1000]))
    assert t.state.bets == (100, 50)  # position 1 is the button and posts the small blind
    assert t.state.actor == 1
    t.refused(C(0), "BET-14")
    t(C(1))
    assert t.state.actor == 0  # the big blind has the option
    assert t.legal.can_check and t.legal.can_raise
    t(C(0)).street()
    assert t.state.actor == 0  # after the flop the big blind acts first
    t(C(0))
    assert t.state.actor == 1


# -- BET-1 structures ---------------------------------------------------------------------------


def test_bet1_no_limit_allows_any_amount_up_to_the_stack() -> None:
    t = Table(config([1000, 5000, 3000]))
    assert t.legal.player == 2
    assert (t.legal.min_raise_to, t.legal.max_raise_to) == (200, 3000)
    t(R(2, 3000))
    assert t.state.stacks[2] == 0


def test_bet1_fixed_limit_small_bet_on_first_two_rounds_big_bet_on_last_two() -> None:
    t = Table(config([1000] * 3, blinds=(5, 10), structure=FL, small_bet=10, big_bet=20))
    sizes = []
    # preflop: a raise adds one small bet to the big blind
    assert (t.legal.min_raise_to, t.legal.max_raise_to) == (20, 20)
    t.refused(R(2, 25), "BET-1")
    t.refused(R(2, 15), "BET-4")
    t(R(2, 20))
    assert (t.legal.min_raise_to, t.legal.max_raise_to) == (30, 30)
    t(C(0), C(1)).street()
    for _street in ("flop", "turn", "river"):
        options = t.legal
        assert options.min_raise_to == options.max_raise_to
        sizes.append(options.min_raise_to)
        t(R(0, options.min_raise_to))
        raise_to = t.legal.min_raise_to
        assert t.legal.max_raise_to == raise_to == 2 * options.min_raise_to
        t(C(1), C(2))
        if t.state.phase is Phase.DEALING_BOARD:
            t.street()
    assert sizes == [10, 20, 20]
    assert t.state.phase is Phase.SHOWDOWN


def test_bet1_fixed_limit_refuses_the_lower_limit_on_an_upper_limit_round() -> None:
    # 000 betting 9: betting the lower limit on an upper limit round is improperly low.
    t = Table(config([1000] * 3, blinds=(5, 10), structure=FL, small_bet=10, big_bet=20))
    limp_to_flop(t)
    t(C(0), C(1), C(2)).street()  # the turn
    t.refused(R(0, 10), "BET-3")
    t(R(0, 20))


def test_bet1_spread_limit_seed_example() -> None:
    # 001 spread-limit: at $2-10 the opener bets anything from 2 to 10; after an open of 5 a
    # raise must be at least 5 more and at most 10 more ("Larry cannot raise by $2 to $7").
    t = Table(config([1000] * 3, blinds=(1, 2), structure=SL, min_bet=2, spread_max=10))
    limp_to_flop(t)
    assert (t.legal.min_raise_to, t.legal.max_raise_to) == (2, 10)
    t.refused(R(0, 1), "BET-3")
    t.refused(R(0, 11), "BET-1")
    t(R(0, 5))
    assert (t.legal.min_raise_to, t.legal.max_raise_to) == (10, 15)
    t.refused(R(1, 7), "BET-4")
    t.refused(R(1, 16), "BET-1")
    t(R(1, 15))
    assert (t.legal.min_raise_to, t.legal.max_raise_to) == (25, 25)


def test_bet1_spread_limit_raise_range_is_never_empty() -> None:
    from tablectl.core.game import ConfigError

    try:
        cfg = config([1000] * 4, blinds=(2, 4, 8), structure=SL, min_bet=4, spread_max=6)
    except ConfigError:
        return  # refusing the configuration is a fine answer too
    t = Table(cfg)
    options = t.legal
    if options.can_raise:
        assert options.min_raise_to <= options.max_raise_to
        t(R(options.player, options.min_raise_to))


# -- BET-2 raise count at big-bet poker -----------------------------------------------------------


def test_bet2_btr_allows_three_raises_at_most_in_a_round() -> None:
    t = Table(config([100_000] * 4, profile="btr"))
    limp_to_flop(t)
    t(R(0, 100), R(1, 200), R(2, 400), R(3, 800))  # a bet and three raises
    options = t.legal
    assert options.player == 0
    assert not options.can_raise
    assert options.why_no_raise.startswith("BET-2")
    assert options.call_amount == 700
    t.refused(R(0, 1600), "BET-2")
    t.refused(R(0, 100_000), "BET-2")  # not even all-in
    t(C(0))


def test_bet2_btr_three_raises_preflop_count_the_big_blind_as_the_bet() -> None:
    t = Table(config([100_000] * 4, profile="btr"))
    t(R(2, 300), R(3, 900), R(0, 2700))
    assert not t.legal.can_raise
    assert t.legal.why_no_raise.startswith("BET-2")


@pytest.mark.parametrize("profile", ["classic", "tda"])
def test_bet2_classic_and_tda_raises_are_unlimited(profile: str) -> None:
    t = Table(config([10**9] * 3, profile=profile))
    limp_to_flop(t)
    to = 100
    t(R(0, to))
    for k in range(12):
        to *= 3  # well above half the pot, so the whipsaw rule of classic never binds
        t(R((k + 1) % 3, to))
    assert t.legal.can_raise


# -- BET-3 minimum bet ----------------------------------------------------------------------------


def test_bet3_a_bet_is_at_least_the_big_blind_unless_all_in() -> None:
    t = Table(config([1000, 1000, 160]))
    limp_to_flop(t)
    assert t.legal.min_raise_to == 100
    t.refused(R(0, 99), "BET-3")
    t.refused(R(0, 1), "BET-3")
    t(C(0), C(1))
    # position 2 has 60 left: a bet smaller than the big blind is allowed all-in only
    assert (t.legal.min_raise_to, t.legal.max_raise_to) == (60, 60)
    t(R(2, 60))
    assert t.state.stacks[2] == 0


def test_bet3_min_bet_setting_overrides_the_big_blind() -> None:
    t = Table(config([10_000] * 3, min_bet=200))
    assert t.legal.min_raise_to == 300  # 100 + a raise of at least the minimum bet 200
    limp_to_flop(t)
    assert t.legal.min_raise_to == 200
    t.refused(R(0, 150), "BET-3")


def test_bet3_a_straddle_sets_a_new_minimum_bring_in() -> None:
    # 004 rule 2: a straddle sets a new minimum bring-in and is not a raise.
    t = Table(config([10_000] * 5, blinds=(50, 100, 200)))
    assert t.state.bets == (50, 100, 200, 0, 0)
    assert t.legal.player == 3
    assert t.legal.call_amount == 200
    assert t.legal.min_raise_to == 400
    t.refused(R(3, 300), "BET-4")
    t(R(3, 400))


# -- BET-4 minimum raise --------------------------------------------------------------------------


def test_bet4_seed_example_bet_100_all_in_140_raise_to_at_least_240() -> None:
    # 004 rule 4: completing a bet is limit only; a raise must make it at least 240.
    t = Table(config([1000, 240, 1000, 1000]))
    limp_to_flop(t)
    t(R(0, 100), R(1, 140))
    assert t.state.stacks[1] == 0
    assert t.legal.player == 2
    assert t.legal.min_raise_to == 240
    t.refused(R(2, 239), "BET-4")
    t.refused(R(2, 200), "BET-4")  # "completing" the 140 to 200: not at big-bet poker
    t(R(2, 240))


def test_bet4_raise_is_at_least_the_previous_bet_or_raise() -> None:
    t = Table(config([10_000] * 4))
    limp_to_flop(t)
    t(R(0, 100))
    assert t.legal.min_raise_to == 200
    t(R(1, 350))  # a raise of 250
    assert t.legal.min_raise_to == 600
    t.refused(R(2, 599), "BET-4")
    t.refused(R(2, 350), "BET-4")  # that is a call, not a raise
    t(R(2, 600))
    assert t.legal.min_raise_to == 850


def test_bet4_an_all_in_smaller_than_a_raise_is_allowed() -> None:
    t = Table(config([10_000, 10_000, 470]))
    limp_to_flop(t)
    t(R(0, 300))
    t(C(1))
    options = t.legal
    assert options.player == 2
    assert options.can_raise
    assert options.min_raise_to == options.max_raise_to == 370  # all-in only
    t(R(2, 370))


# -- BET-5 incomplete all-in raises ----------------------------------------------------------------


def test_bet5_seed_example_short_all_in_does_not_reopen_for_the_raiser() -> None:
    # 000 §6 rule 3: A bets 200, B raises to 400, C all-in for less than 600, A calls:
    # B may not raise again (A could have raised, because B raised).
    a, b, c = 0, 1, 2
    t = Table(config([5000, 5000, 650]))
    limp_to_flop(t)
    t(R(a, 200), R(b, 400), R(c, 550))
    assert t.state.stacks[c] == 0
    options = t.legal
    assert options.player == a
    assert options.can_raise and options.min_raise_to == 750
    t(C(a))
    options = t.legal
    assert options.player == b
    assert not options.can_raise
    assert options.why_no_raise.startswith("BET-5")
    assert options.call_amount == 150
    t.refused(R(b, 750), "BET-5")
    t.refused(R(b, 4900), "BET-5")  # not all-in either
    t(C(b))
    assert t.state.phase is Phase.DEALING_BOARD


def test_bet5_short_all_in_does_not_reopen_for_a_player_who_checked() -> None:
    # 002: at big-bet poker a wager of less than the minimum bet does not reopen the
    # betting to a player who checked on that round.
    t = Table(config([5000, 5000, 140]))
    limp_to_flop(t)
    t(C(0), C(1), R(2, 40))
    assert t.legal.player == 0
    assert not t.legal.can_raise and t.legal.why_no_raise.startswith("BET-5")
    t.refused(R(0, 200), "BET-5")


def test_bet5_several_short_all_ins_adding_up_to_a_full_raise_reopen_the_betting() -> None:
    # 004 rule 5: all-ins each too small to be a raise still reopen the betting if the
    # resulting wager to a player qualifies as a raise.
    t = Table(config([5000, 400, 510, 5000]))
    limp_to_flop(t)
    t(R(0, 200), R(1, 300), R(2, 410))  # +100 and +110: neither is a full raise of 200
    t(C(3))
    options = t.legal
    assert options.player == 0
    assert options.can_raise  # facing 210 more than its own 200: a full raise
    assert options.min_raise_to == 610
    t(R(0, 610))


def test_bet5_short_all_ins_adding_up_to_less_than_a_full_raise_do_not_reopen() -> None:
    t = Table(config([5000, 400, 490, 5000]))
    limp_to_flop(t)
    t(R(0, 200), R(1, 300), R(2, 390))  # 190 in all: short of a full raise of 200
    t(C(3))
    assert t.legal.player == 0
    assert not t.legal.can_raise and t.legal.why_no_raise.startswith("BET-5")


def test_bet5_player_who_has_not_acted_may_raise_a_short_all_in() -> None:
    t = Table(config([5000, 5000, 650, 5000]))
    limp_to_flop(t)
    t(R(0, 200), R(1, 400), R(2, 550))
    assert t.legal.player == 3
    assert t.legal.can_raise and t.legal.min_raise_to == 750


def _limit_table(short: int) -> Table:
    """Fixed limit 10/20; position 1 has ``short`` chips left after the flop comes."""
    t = Table(config([1000, 10 + short, 1000], blinds=(5, 10), structure=FL, small_bet=10, big_bet=20))
    return limp_to_flop(t)


def test_bet5_limit_half_bet_rule_all_in_of_half_a_bet_reopens() -> None:
    # 002 / RULES BET-5: at limit an all-in of at least half a bet reopens the betting.
    t = _limit_table(short=15)
    t(R(0, 10), R(1, 15), C(2))  # all-in raise of 5: half the 10 bet
    options = t.legal
    assert options.player == 0
    assert options.can_raise


def test_bet5_limit_all_in_below_half_a_bet_does_not_reopen_and_is_completed() -> None:
    t = _limit_table(short=14)
    t(R(0, 10), R(1, 14))  # all-in raise of 4: less than half a bet
    options = t.legal
    assert options.player == 2
    # the next raise brings the bet to one full raise over 10, not over 14 (002 completing)
    assert options.min_raise_to == options.max_raise_to == 20
    t(C(2))
    options = t.legal
    assert options.player == 0
    assert not options.can_raise
    assert options.why_no_raise.startswith("BET-5")
    t.refused(R(0, 20), "BET-5")
    assert options.call_amount == 4


def test_bet5_limit_all_in_opening_below_half_a_bet_is_completed_not_raised() -> None:
    # 002: bringing a wager of less than half a bet up to a full bet is completing it.
    t = _limit_table(short=4)
    t(C(0), R(1, 4))
    options = t.legal
    assert options.player == 2
    assert options.call_amount == 4
    assert options.min_raise_to == options.max_raise_to == 10
    t(R(2, 10))
    assert t.legal.player == 0 and t.legal.can_raise  # checked before: faces a full bet
    assert t.legal.min_raise_to == 20


# -- BET-6 limit cap -------------------------------------------------------------------------------


def _cap_table(profile: str, stacks: Sequence[int] = (1000, 1000, 1000, 1000), **options: object) -> Table:
    return Table(
        config(
            stacks,
            blinds=(5, 10),
            structure=FL,
            profile=profile,
            options=dict(options),
            small_bet=10,
            big_bet=20,
        )
    )


@pytest.mark.parametrize(("profile", "bets"), [("btr", 4), ("classic", 5), ("tda", 5)])
def test_bet6_a_bet_and_three_or_four_raises_cap_the_round(profile: str, bets: int) -> None:
    t = _cap_table(profile)
    limp_to_flop(t)
    to = 0
    for k in range(bets):
        to += 10
        t(R(k % 4, to))
    options = t.legal
    assert not options.can_raise
    assert options.why_no_raise.startswith("BET-6")
    t.refused(R(options.player, to + 10), "BET-6")
    t(C(options.player))


def test_bet6_the_blind_counts_as_the_first_bet_preflop() -> None:
    t = _cap_table("tda")
    t(R(2, 20), R(3, 30), R(0, 40), R(1, 50))  # big blind + four raises
    assert not t.legal.can_raise and t.legal.why_no_raise.startswith("BET-6")


def test_bet6_an_all_in_cannot_raise_a_capped_round() -> None:
    # 002: once capped no wager that increases the total bet is allowed, not even all-in.
    t = _cap_table("tda", stacks=(1000, 1000, 1000, 65))
    limp_to_flop(t)
    t(R(0, 10), R(1, 20), R(2, 30), C(3), R(0, 40), R(1, 50), C(2))
    options = t.legal
    assert options.player == 3 and t.state.bets[3] + t.state.stacks[3] == 55
    assert not options.can_raise and options.why_no_raise.startswith("BET-6")
    t.refused(R(3, 55), "BET-6")  # all-in for 55 would raise the capped 50
    t(C(3))


def test_bet6_dropping_to_heads_up_does_not_uncap() -> None:
    t = _cap_table("tda", limit_no_cap_heads_up=True)
    limp_to_flop(t)
    t(R(0, 10), F(1), F(2), R(3, 20), R(0, 30), R(3, 40), R(0, 50))
    assert t.legal.player == 3
    assert not t.legal.can_raise and t.legal.why_no_raise.startswith("BET-6")


def test_bet6_house_option_no_cap_when_the_round_starts_heads_up() -> None:
    def heads_up_after_flop(option: bool) -> Table:
        t = _cap_table("tda", limit_no_cap_heads_up=option)
        t(F(2), F(3))
        limp_to_flop(t)
        t(R(0, 10), R(1, 20), R(0, 30), R(1, 40), R(0, 50))
        return t

    assert heads_up_after_flop(True).legal.can_raise
    capped = heads_up_after_flop(False).legal
    assert not capped.can_raise and capped.why_no_raise.startswith("BET-6")


# -- BET-8 whipsaw ------------------------------------------------------------------------------


def _whipsaw(profile: str, stacks: Sequence[int] = (10_000,) * 4) -> Table:
    t = Table(config(stacks, blinds=(1, 2), profile=profile))
    limp_to_flop(t)  # pot 8
    t(R(0, 2), R(1, 4), R(2, 6), R(3, 8), R(0, 10))  # a bet and four raises
    return t


def test_bet8_classic_after_a_bet_and_four_raises_a_raise_is_at_least_half_the_pot() -> None:
    t = _whipsaw("classic")
    assert t.state.pot == 8 + 10 + 4 + 6 + 8
    options = t.legal
    assert options.player == 1 and options.can_raise
    increment = options.min_raise_to - t.state.high_bet
    # half the pot, counted as it stands (18) or after the raiser's call (21)
    assert 18 <= increment <= 21
    t.refused(R(1, 12), "BET-4")
    t(R(1, options.min_raise_to))


def test_bet8_whipsaw_rule_does_not_stop_an_all_in() -> None:
    t = _whipsaw("classic", stacks=(10_000, 22, 10_000, 10_000))
    options = t.legal
    assert options.player == 1
    assert options.can_raise and options.min_raise_to == options.max_raise_to == 20
    t(R(1, 20))


def test_bet8_tda_has_no_whipsaw_rule() -> None:
    t = _whipsaw("tda")
    assert t.legal.min_raise_to == 12


# -- BET-9 straddle -------------------------------------------------------------------------------


def test_bet9_straddler_acts_last_preflop_and_may_raise() -> None:
    t = Table(config([10_000] * 4, blinds=(50, 100, 200)))
    order = []
    for _ in range(3):
        order.append(t.legal.player)
        t(C(t.legal.player))
    assert order == [3, 0, 1]
    options = t.legal
    assert options.player == 2  # the straddler
    assert options.can_check and options.can_raise and options.min_raise_to == 400
    t(R(2, 600))
    assert t.legal.player == 3  # everyone acts again
    t(C(3), C(0), C(1))
    assert t.state.phase is Phase.DEALING_BOARD


def test_bet9_three_handed_straddle_on_the_button_acts_last() -> None:
    t = Table(config([10_000] * 3, blinds=(50, 100, 200)))
    assert t.legal.player == 0
    t(C(0), C(1))
    assert t.legal.player == 2 and t.legal.can_check and t.legal.can_raise


# -- BET-10 pot limit -----------------------------------------------------------------------------


def test_bet10_pot_limit_opens_for_three_and_a_half_big_blinds_without_the_option() -> None:
    t = Table(config([10_000] * 3, blinds=(5, 10), structure=PL))
    assert t.legal.player == 2
    assert t.legal.max_raise_to == 35  # call 10, pot is then 25: raise 25
    t.refused(R(2, 36), "BET-10")


def test_bet10_seed_example_5_10_opens_for_at_most_40_with_the_option() -> None:
    # 004 pot-limit rule 5: the small blind counts as a big blind; 5/10 opens for at most 40.
    t = Table(
        config([10_000] * 3, blinds=(5, 10), structure=PL, options={"pot_limit_small_blind_as_big": True})
    )
    assert (t.legal.min_raise_to, t.legal.max_raise_to) == (20, 40)
    t.refused(R(2, 45), "BET-10")
    t(R(2, 40))


def test_bet10_pot_limit_option_holds_for_later_players_until_the_big_blind_acted() -> None:
    t = Table(
        config([10_000] * 4, blinds=(5, 10), structure=PL, options={"pot_limit_small_blind_as_big": True})
    )
    t(C(2))  # pot 5 + 10 + 10, counted as 30
    assert t.legal.player == 3
    assert t.legal.max_raise_to == 10 + (30 + 10)
    t(C(3), F(0))
    options = t.legal
    assert options.player == 1  # the folded small blind still counts as 10
    assert options.max_raise_to == 10 + 40
    t(C(1)).street()
    assert t.legal.max_raise_to == 35  # the option ends with the first round


def _sb_as_big_table() -> Table:
    options = {"pot_limit_small_blind_as_big": True}
    t = Table(config([10_000] * 3, blinds=(5, 10), structure=PL, options=options))
    t(C(2))  # the button calls 10
    return t


def test_bet10_pot_limit_option_does_not_count_a_completed_small_blind_twice() -> None:
    # 004 pot-limit rule 5 treats the $5 as $10. Once the small blind has put in its other
    # $5 there is no $5 left to treat: the pot holds 10 + 10 + 10 = 30 and the big blind's
    # pot raise is to 10 + 30 = 40.
    t = _sb_as_big_table()
    t(C(0))
    assert t.state.pot == 30
    assert t.legal.player == 1
    assert t.legal.max_raise_to == 40


def test_bet10_pot_limit_option_small_blind_acting_raises_to_40() -> None:
    # The small blind calls 5 (its blind is then 10, as the option counts it): the pot is
    # 10 + 10 + 10 = 30 and a pot raise is to 40.
    t = _sb_as_big_table()
    assert t.legal.player == 0 and t.legal.call_amount == 5
    assert t.legal.max_raise_to == 40


def test_bet10_seed_example_pot_limit_arithmetic() -> None:
    # 001 pot-limit: pot 2, Paul bets 2; Larry may raise to 8 (calls 2, raises the pot of 6).
    # The dictionary goes on to 28 and 96, which count each caller's earlier bet twice; the
    # pot after calling gives 26 (8 + 18) and then 80 (26 + 54).
    paul, larry = 1, 0
    t = Table(config([1000, 1000], blinds=(), antes=(1, 1), min_bet=1, structure=PL))
    assert t.state.pot == 2
    assert t.legal.player == paul and t.legal.max_raise_to == 2
    t(R(paul, 2))
    assert t.legal.max_raise_to == 8
    t(R(larry, 8))
    assert t.legal.max_raise_to == 26
    t(R(paul, 26))
    assert t.legal.max_raise_to == 80
    t.refused(R(larry, 81), "BET-10")


def test_bet10_pot_limit_bet_and_raise_after_the_flop() -> None:
    t = Table(config([10_000] * 3, blinds=(5, 10), structure=PL))
    limp_to_flop(t)
    assert t.state.pot == 30
    assert (t.legal.min_raise_to, t.legal.max_raise_to) == (10, 30)
    t.refused(R(0, 31), "BET-10")
    t(R(0, 30))
    assert t.legal.max_raise_to == 30 + (60 + 30)
    t(R(1, 120))
    assert t.legal.max_raise_to == 120 + (180 + 120)


def test_bet10_pot_limit_round_the_pot_up_to_the_unit() -> None:
    # 004 pot-limit rule 4: with $25 units a pot of 80 is treated as 100.
    t = Table(config([10_000] * 2, blinds=(20, 40), structure=PL, options={"pot_limit_round_to": 25}))
    limp_to_flop(t)
    assert t.state.pot == 80
    assert t.legal.max_raise_to == 100


def test_bet10_pot_limit_all_in_for_less_than_the_pot() -> None:
    t = Table(config([10_000, 10_000, 25], blinds=(5, 10), structure=PL))
    limp_to_flop(t)
    t(C(0), C(1))
    assert (t.legal.min_raise_to, t.legal.max_raise_to) == (10, 15)  # pot 30, 15 left
    t = Table(config([10_000, 10_000, 15], blinds=(5, 10), structure=PL))
    limp_to_flop(t)
    t(C(0), C(1))
    assert (t.legal.min_raise_to, t.legal.max_raise_to) == (5, 5)  # all-in below the minimum


# -- BET-11 big blind option ----------------------------------------------------------------------


def test_bet11_big_blind_has_the_option_when_the_action_is_only_called() -> None:
    t = Table(config([10_000] * 4))
    t(C(2), C(3), C(0))
    options = t.legal
    assert options.player == 1
    assert options.can_check and options.call_amount == 0
    assert options.can_raise and options.min_raise_to == 200
    t(R(1, 300))
    assert t.state.phase is Phase.BETTING and t.legal.player == 2


def test_bet11_big_blind_checking_its_option_closes_the_round() -> None:
    t = Table(config([10_000] * 3))
    t(C(2), C(0), C(1))
    assert t.state.phase is Phase.DEALING_BOARD
    assert t.state.pot == 300


def test_bet11_big_blind_facing_a_raise_calls_the_difference() -> None:
    t = Table(config([10_000] * 3))
    t(R(2, 300), F(0))
    assert t.legal.player == 1 and t.legal.call_amount == 200


# -- BET-14 action out of turn --------------------------------------------------------------------


@pytest.mark.parametrize("action", [C(0), F(1), R(3, 500), C(3), F(0)])
def test_bet14_action_out_of_turn_is_refused_and_changes_nothing(action: object) -> None:
    t = Table(config([10_000] * 4))
    assert t.state.actor == 2
    err = t.refused(action, "BET-14")
    assert "out of turn" in err.message


def test_bet14_betting_while_cards_are_being_dealt_is_refused() -> None:
    state = start_hand(config([10_000] * 3))
    before = state
    for action in (C(2), F(2), R(2, 300)):
        with pytest.raises(RuleViolation) as info:
            apply(state, action)
        assert info.value.rule == "BET-14"
        assert state == before
    t = Table(config([10_000] * 3))
    t(C(2), C(0), C(1))
    assert t.state.phase is Phase.DEALING_BOARD
    t.refused(C(0), "BET-14")


# -- BET-15 short blinds --------------------------------------------------------------------------


def test_bet15_short_small_blind_posts_what_it_has_others_owe_the_full_blind() -> None:
    t = Table(config([30, 10_000, 10_000]))
    assert t.state.bets == (30, 100, 0)
    assert t.state.stacks[0] == 0
    assert t.legal.call_amount == 100


def test_bet15_short_big_blind_others_still_owe_the_full_big_blind() -> None:
    # 002 insufficient bet: all other players must still put in the full blind to call.
    t = Table(config([10_000, 60, 10_000, 10_000]))
    assert t.state.bets == (50, 60, 0, 0)
    assert t.legal.player == 2
    assert t.legal.call_amount == 100
    assert t.legal.min_raise_to == 200
    t(C(2), C(3), C(0))
    assert t.state.phase is Phase.DEALING_BOARD  # the all-in big blind has no action
    assert t.state.contributed == (100, 60, 100, 100)


def test_bet15_short_blind_gets_action_on_what_is_left() -> None:
    t = Table(config([10_000, 130, 10_000]))
    t(C(2), C(0))
    options = t.legal
    assert options.player == 1
    assert options.can_raise and options.min_raise_to == options.max_raise_to == 130


def test_bet15_heads_up_short_big_blind_the_uncalled_part_goes_back() -> None:
    t = Table(config([60, 10_000]))
    assert t.state.bets == (60, 50)
    assert t.legal.player == 1 and t.legal.call_amount == 50
    t(C(1))
    assert t.state.phase is Phase.DEALING_BOARD
    assert t.state.contributed == (60, 60)  # 40 of the button's 100 came back
    assert t.state.stacks == (0, 9_940)


# -- BET-17 table stakes --------------------------------------------------------------------------


def test_bet17_cannot_bet_more_than_the_chips_in_front() -> None:
    t = Table(config([10_000, 10_000, 700]))
    assert t.legal.max_raise_to == 700
    err = t.refused(R(2, 701), "BET-17")
    assert "700" in err.message
    t(R(2, 700))
    assert t.state.stacks[2] == 0


def test_bet17_a_call_for_more_than_the_stack_puts_the_player_all_in() -> None:
    t = Table(config([10_000, 10_000, 300]))
    t(F(2), R(0, 5000))
    assert t.legal.call_amount == 4900
    t = Table(config([10_000, 250, 10_000]))
    t(R(2, 5000), F(0))
    assert t.legal.player == 1 and t.legal.call_amount == 150
    assert not t.legal.can_raise and t.legal.why_no_raise.startswith("BET-17")
    t.refused(R(1, 5000), "BET-17")
    t(C(1))
    assert t.state.stacks[1] == 0
    assert t.state.contributed == (50, 250, 250)  # the uncalled 4750 went back


def test_bet17_stacks_never_go_negative_and_never_grow_during_a_hand() -> None:
    cfg = config([150, 300, 10_000, 80])
    t = Table(cfg)
    t(R(2, 10_000), C(3), C(0), C(1))
    assert all(s >= 0 for s in t.state.stacks)
    assert all(s <= s0 for s, s0 in zip(t.state.stacks, cfg.starting_stacks, strict=True))
    assert t.state.contributed == (150, 300, 300, 80)


# -- refused actions leave the state as it was ----------------------------------------------------


def _refusals() -> list[tuple[str, object, str]]:
    return [
        ("out of turn", C(0), "BET-14"),
        ("raise below the minimum", R(2, 150), "BET-4"),
        ("raise that is a call", R(2, 100), "BET-4"),
        ("raise beyond the stack", R(2, 10_001), "BET-17"),
        ("board card during betting", DealBoard(parse_cards("2c3c4c")), "BOARD-4"),
        ("hole card during betting", DealHole(2, parse_cards("2c")), "DEAL-1"),
        ("show during betting", Show(2, parse_cards("2c3c")), "POT-4"),
        ("no such player", C(7), "INPUT"),
    ]


@pytest.mark.parametrize(("what", "action", "rule"), _refusals(), ids=[r[0] for r in _refusals()])
def test_every_refused_action_leaves_the_state_equal_and_names_the_rule(
    what: str, action: object, rule: str
) -> None:
    t = Table(config([10_000] * 3))
    err = t.refused(action, rule)
    assert str(err).startswith(f"{rule}: ")
    assert err.message


def test_refusals_while_dealing_leave_the_state_equal() -> None:
    state = start_hand(config([10_000] * 3))
    state = apply(state, DealHole(0, parse_cards("AsKs")))
    before = state
    for action, rule in [
        (DealHole(1, parse_cards("As2c")), "IRR-2"),  # a card already dealt
        (DealHole(1, (parse_card("2c"), parse_card("2c"))), "IRR-2"),
        (DealHole(0, parse_cards("2c")), "MD-d"),  # a third hole card in hold'em
        (DealHole(1, parse_cards("2c3c4c")), "MD-d"),
        (DealBoard(parse_cards("2c3c4c")), "DEAL-2"),
        (Show(0, parse_cards("AsKs")), "POT-4"),
    ]:
        with pytest.raises(RuleViolation) as info:
            apply(state, action)  # type: ignore[arg-type]
        assert info.value.rule == rule, (action, str(info.value))
        assert state == before


def test_a_refused_raise_changes_nothing_then_a_legal_one_goes_through() -> None:
    t = Table(config([10_000] * 3))
    snapshot = (t.state.stacks, t.state.bets, t.state.contributed, t.state.actor, t.state.high_bet)
    t.refused(R(2, 150), "BET-4")
    assert (t.state.stacks, t.state.bets, t.state.contributed, t.state.actor, t.state.high_bet) == snapshot
    t(R(2, 200))
    assert t.state.bets == (50, 100, 200)
