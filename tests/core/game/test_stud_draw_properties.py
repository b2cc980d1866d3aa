"""Properties of the rules core over stud, stud/8, razz, 2-7 triple draw and no-limit 2-7 single
draw (hypothesis), as tests/core/game/test_properties.py does for the flop games.

Random configurations (2 to 7 players at stud, 2 to 6 at draw; random stacks, antes, bring-ins,
blinds; every house-rule profile, the open-pair option) are played with the simulated players'
random legal actions (tablectl.sim.players). At every step chips are conserved and what ``legal``
offers fits the stacks; a random refused action (a bring-in or a discard out of turn or out of
phase, a card to a folded hand, too many replacements, a player's own discard dealt back to him)
raises RuleViolation naming a rule and leaves the state equal to before. At the end nobody wins
more from an opponent than he put in (POT-1) and every pot goes to its best eligible hands.
"""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tablectl.core import evaluator
from tablectl.core.cards import Card
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
    DealBoard,
    DealHole,
    Discard,
    Fold,
    HandConfig,
    HandState,
    Phase,
    Structure,
    Variant,
    apply,
    house_rules,
    legal,
    start_hand,
)
from tablectl.core.game.engine import _copy
from tablectl.core.game.variants import Ranking
from tablectl.sim.players import Style, next_action
from tests.core.game.test_properties import check_pot1_transfers, check_refused

SETTINGS = settings(
    max_examples=300,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
STUD = (SEVEN_CARD_STUD, STUD_HI_LO, RAZZ)


@st.composite
def configs(draw: st.DrawFn) -> HandConfig:
    game = draw(st.sampled_from([*STUD, DEUCE_TO_SEVEN_TRIPLE_DRAW, DEUCE_TO_SEVEN_SINGLE_DRAW]))
    profile = draw(st.sampled_from(["btr", "classic", "tda"]))
    rules = house_rules(profile, stud_open_pair_big_bet=draw(st.booleans()))
    small = draw(st.integers(2, 60))
    if game in STUD:
        n = draw(st.integers(2, 7))
        ante = draw(st.integers(0, small // 2))
        bring_in = draw(st.integers(1, small - 1))
        stacks = tuple(draw(st.integers(ante + 1, ante + 60 * small)) for _ in range(n))
        return HandConfig(
            Variant(game, Structure.FIXED_LIMIT),
            stacks,
            antes=(ante,) * n if ante else (),
            bring_in=bring_in,
            small_bet=small,
            big_bet=2 * small,
            rules=rules,
        )
    n = draw(st.integers(2, 6))
    blinds = (max(1, small // 2), small)
    stacks = tuple(draw(st.integers(1, 60 * small)) for _ in range(n))
    structure = Structure.FIXED_LIMIT if game is DEUCE_TO_SEVEN_TRIPLE_DRAW else Structure.NO_LIMIT
    return HandConfig(
        Variant(game, structure), stacks, blinds=blinds, small_bet=small, big_bet=2 * small, rules=rules
    )


def check_step(state: HandState) -> None:
    total = sum(state.config.starting_stacks)
    assert all(s >= 0 for s in state.stacks)
    assert sum(state.stacks) + state.pot == total
    held = [c for hand in state.hole for c in hand if c >= 0] + list(state.board)
    assert len(held) == len(set(held))  # no card in two places (IRR-2)
    assert state.in_play == sum(1 << c for c in held)  # the bits IRR-2's check tests
    assert _copy(state) == state  # the copy every action starts from takes every field, in order
    options = legal(state)
    if options is None:
        assert state.phase is not Phase.BETTING
        return
    i = options.player
    assert state.phase is Phase.BETTING and not state.folded[i] and state.stacks[i] > 0
    if options.bring_in:
        assert state.bringing_in and not options.can_fold and not options.can_check
        assert options.bring_in == min(state.config.bring_in, state.stacks[i])
    else:
        assert options.call_amount == min(state.high_bet - state.bets[i], state.stacks[i])
    if options.can_raise:
        assert options.min_raise_to <= options.max_raise_to <= state.bets[i] + state.stacks[i]
        assert options.min_raise_to > state.high_bet
    if state.config.variant.game.ranking is not Ranking.DEUCE_TO_SEVEN or state.phase is Phase.BETTING:
        for p in state.live:
            assert len(state.hole[p]) <= 7


def check_winners(state: HandState) -> None:
    """Every contested pot goes to the best shown hands among its eligible players."""
    game = state.config.variant.game
    values: dict[int, tuple[int, int | None]] = {}
    for p in state.live:
        if state.shown[p] is None:
            continue
        cards = tuple(state.hole[p]) + tuple(state.board)
        if game.ranking is Ranking.ACE_TO_FIVE:
            values[p] = (evaluator.evaluate_low_a5(cards), None)
        elif game.ranking is Ranking.DEUCE_TO_SEVEN:
            values[p] = (evaluator.evaluate_low_27(cards), None)
        else:
            values[p] = (
                evaluator.evaluate_high(cards),
                evaluator.evaluate_low8(cards) if game.hi_lo else None,
            )
    for award in state.awards:
        if award.uncontested or award.pot_index < 0:
            continue
        winners = {p for p, _ in award.shares}
        assert winners <= set(values)
        slot = 1 if award.half == "low" else 0
        # Everyone in as deep as the shallowest winner was eligible for this pot (POT-1).
        level = min(state.contributed[p] for p in winners)
        best = max(v[slot] or 0 for p, v in values.items() if state.contributed[p] >= level)
        assert all(values[p][slot] == best for p in winners)


def bad_actions(state: HandState, deck: list[Card], rng: random.Random) -> list[tuple[Action, set[str]]]:
    """Actions that must be refused now, each with the rules that may be named."""
    n = state.n
    dealt = [c for hand in state.hole for c in hand if c >= 0] + list(state.board)
    bad: list[tuple[Action, set[str]]] = []
    live = state.live
    if state.phase is Phase.BETTING:
        options = legal(state)
        assert options is not None
        i = options.player
        other = rng.choice([p for p in range(n) if p != i])
        bad.append((BringIn(other), {"STUD-5"}))
        bad.append((Discard(i, ()), {"DRAW-4"}))
        if state.bringing_in:
            bad.append((CheckCall(i), {"STUD-5"}))
            bad.append((Fold(i), {"STUD-5"}))
        else:
            bad.append((BringIn(i), {"STUD-5"}))
            bad.append((CheckCall(other), {"BET-14"}))
        if options.can_raise and options.max_raise_to - options.min_raise_to >= 2:
            middle = (options.min_raise_to + options.max_raise_to) // 2
            if state.bet_unit_option and middle < state.bets[i] + state.stacks[i]:
                bad.append((BetRaise(i, middle), {"STUD-9"}))
        if options.can_raise:
            bad.append((BetRaise(i, options.max_raise_to + 1), {"BET-1", "BET-17"}))
    elif state.phase is Phase.DEALING_HOLE and state.street:
        folded = [p for p in range(n) if state.folded[p]]
        due = [p for p in live if state.cards_due(p)]
        if folded and deck:
            bad.append((DealHole(folded[0], (deck[-1],)), {"MD-i"}))
        if len(deck) >= 2:
            bad.append((DealHole(due[0], (deck[-1], deck[-2])), {"MD-e"}))
        bad.append((DealHole(due[0], (rng.choice(dealt),)), {"IRR-2", "MD-e"}))
        bad.append((CheckCall(due[0]), {"BET-14"}))
        bad.append((Discard(due[0], ()), {"DRAW-4"}))
    elif state.phase is Phase.DRAWING:
        drawer = state.next_to_draw
        if drawer is not None:
            later = [p for p in live if p != drawer and state.to_draw[p] < 0]
            if later:
                bad.append((Discard(later[0], ()), {"HO-7"}))
                if deck:
                    bad.append((DealHole(later[0], (deck[-1],)), {"HO-7"}))
            outside = [c for c in range(52) if c not in state.hole[drawer]]
            bad.append((Discard(drawer, (rng.choice(outside),)), {"DRAW-4"}))
        owed = [p for p in live if state.cards_due(p)]
        if owed and len(deck) > state.cards_due(owed[0]):
            p = owed[0]
            too_many = tuple(deck[-state.cards_due(p) - 1 :])
            bad.append((DealHole(p, too_many), {"DRAW-4"}))
            bad.append((DealHole(p, (state.discards[p][0],)), {"HO-9"}))
        bad.append((CheckCall(live[0]), {"BET-14"}))
        bad.append((BringIn(live[0]), {"STUD-5"}))
    elif state.phase is Phase.SHOWDOWN:
        bad.append((BringIn(live[0]), {"STUD-5"}))
        bad.append((Discard(live[0], ()), {"DRAW-4"}))
        if deck:
            bad.append((DealBoard((deck[-1],)), {"DEAL-2"}))
    return bad


def play(config: HandConfig, rng: random.Random, refusals: bool) -> HandState:
    deck = list(range(52))
    rng.shuffle(deck)
    style = Style(fold=rng.uniform(0.05, 0.4), raise_=rng.uniform(0.1, 0.6), all_in=0.1, muck_losers=0.2)
    state = start_hand(config)
    check_step(state)
    for _step in range(600):
        if state.phase is Phase.COMPLETE:
            break
        candidates = bad_actions(state, deck, rng) if refusals and rng.random() < 0.4 else []
        if candidates:
            check_refused(state, candidates, rng)
        action = next_action(state, deck, rng, style)
        assert action is not None
        state = apply(state, action)
        check_step(state)
    else:
        raise AssertionError("the hand did not end in 600 actions")
    assert sum(state.finishing_stacks) == sum(config.starting_stacks)
    assert sum(a.amount for a in state.awards) == state.pot
    check_pot1_transfers(state)
    check_winners(state)
    return state


@SETTINGS
@given(configs(), st.randoms(use_true_random=False))
def test_stud_and_draw_hands_conserve_chips_and_respect_pot1(config: HandConfig, rng: random.Random) -> None:
    play(config, rng, refusals=False)


@SETTINGS
@given(configs(), st.randoms(use_true_random=False))
def test_stud_and_draw_refused_actions_name_a_rule_and_change_nothing(
    config: HandConfig, rng: random.Random
) -> None:
    play(config, rng, refusals=True)
