"""Properties of the rules core over random hands (hypothesis).

Random configurations (2 to 9 players, random stacks, blinds, uniform antes, an optional
straddle, every betting structure, hold'em, Omaha and Omaha hi/lo, every house-rule
profile) are played step by step with random legal actions. At every step:

- chips are conserved: behind + in the middle = what the players sat down with;
- what ``legal`` offers is consistent with the stacks (BET-17);
- a random refused action (out of turn, below the minimum, above the maximum, a raise the
  rules forbid, a card already dealt, an action of the wrong phase) raises RuleViolation
  naming a rule and leaves the state equal to before.

At the end: nobody wins more from any single opponent than they themselves put in (POT-1),
every pot goes to eligible players with the best shown hand, ties split with the odd chips
first clockwise from the button (POT-6), and the finishing stacks add up.
"""

from __future__ import annotations

import random
from collections import defaultdict
from fractions import Fraction

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tablectl.core import evaluator
from tablectl.core.cards import Card
from tablectl.core.game import (
    HOLDEM,
    OMAHA,
    OMAHA_HI_LO,
    Action,
    BetRaise,
    CheckCall,
    DealBoard,
    DealHole,
    Fold,
    HandConfig,
    HandState,
    Phase,
    RuleViolation,
    Show,
    Structure,
    Variant,
    apply,
    house_rules,
    legal,
    showdown_order,
    start_hand,
)
from tablectl.core.game.engine import _copy
from tablectl.core.game.pots import Pot, _one_pot, side_pots, unclaimable
from tablectl.core.game.variants import Ranking

PROPERTY_SETTINGS = settings(
    max_examples=500,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@st.composite
def configs(draw: st.DrawFn) -> HandConfig:
    n = draw(st.integers(2, 9))
    structure = draw(st.sampled_from(list(Structure)))
    game = draw(st.sampled_from([HOLDEM, OMAHA, OMAHA_HI_LO]))
    sb = draw(st.integers(1, 50))
    bb = draw(st.integers(sb, 3 * sb))
    blinds: tuple[int, ...] = (sb, bb)
    if n >= 3 and draw(st.booleans()):
        blinds = (sb, bb, 2 * bb)  # BET-9: one live straddle, twice the big blind
    ante = draw(st.sampled_from([0, 0, 0, 1, max(1, bb // 10), bb // 2 or 1]))
    antes = (ante,) * n if ante else ()
    # Every stack covers its ante: a player all-in for the ante alone wins nothing in the
    # engine (an xfail in test_pots.py), kept out of here so this property finds other things.
    short = st.integers(ante + 1, ante + 3 * bb)
    deep = st.integers(ante + 1, ante + 300 * bb)
    stacks = tuple(draw(st.one_of(short, deep, deep)) for _ in range(n))
    if len(blinds) == 3 and stacks[2] < ante + blinds[2]:
        # A straddle posted short of both blinds breaks POT-1 in the engine (the folded
        # blinds' excess goes to the straddler): see test_pots.py, kept out of here so this
        # property keeps finding other things.
        stacks = stacks[:2] + (ante + blinds[2] + stacks[2],) + stacks[3:]
    kw: dict[str, int] = {}
    if structure is Structure.FIXED_LIMIT:
        kw = {"small_bet": bb, "big_bet": 2 * bb}
    elif structure is Structure.SPREAD_LIMIT:
        kw = {"min_bet": bb, "spread_max": draw(st.integers(max(blinds), 6 * bb))}
    elif draw(st.booleans()):
        kw = {"min_bet": draw(st.integers(1, 2 * bb))}
    options: dict[str, object] = {"limit_no_cap_heads_up": draw(st.booleans())}
    if structure is Structure.POT_LIMIT:
        options["pot_limit_small_blind_as_big"] = draw(st.booleans())
        options["pot_limit_round_to"] = draw(st.sampled_from([0, 0, 1, sb, bb]))
    profile = draw(st.sampled_from(["btr", "classic", "tda"]))
    return HandConfig(
        Variant(game, structure),
        stacks,
        blinds=blinds,
        antes=antes,
        rules=house_rules(profile, **options),
        **kw,  # type: ignore[arg-type]
    )


# -- invariants at every step --------------------------------------------------------------------


def check_step(state: HandState) -> None:
    cfg = state.config
    total = sum(cfg.starting_stacks)
    assert all(s >= 0 for s in state.stacks)
    assert sum(state.stacks) + state.pot == total
    assert all(0 <= b <= c for b, c in zip(state.bets, state.contributed, strict=True))
    assert state.dead == total - sum(state.stacks) - sum(state.contributed)
    held = [c for hand in state.hole for c in hand if c >= 0] + list(state.board)
    assert state.in_play == sum(1 << c for c in set(held))  # the bits IRR-2's check tests
    assert _copy(state) == state  # the copy every action starts from takes every field, in order
    options = legal(state)
    if options is None:
        assert state.phase is not Phase.BETTING
        return
    i = options.player
    assert state.phase is Phase.BETTING and i == state.actor
    assert not state.folded[i] and state.stacks[i] > 0
    assert 0 <= options.call_amount <= state.stacks[i]
    assert options.call_amount == min(state.high_bet - state.bets[i], state.stacks[i])
    assert options.can_check == (options.call_amount == 0)
    if options.can_raise:
        assert options.min_raise_to <= options.max_raise_to <= state.bets[i] + state.stacks[i]
        assert options.min_raise_to > state.high_bet
    else:
        assert options.why_no_raise.split(":")[0] in {"BET-2", "BET-5", "BET-6", "BET-17"}


def check_end(state: HandState) -> None:
    cfg = state.config
    assert state.phase is Phase.COMPLETE
    finishing = state.finishing_stacks
    assert sum(finishing) == sum(cfg.starting_stacks)
    assert sum(a.amount for a in state.awards) == state.pot
    for award in state.awards:
        assert sum(amount for _, amount in award.shares) == award.amount
    check_pot1_transfers(state)
    check_winners(state)


def _my_pots(state: HandState) -> list[tuple[int, list[int], dict[int, int]]]:
    """Main and side pots rebuilt from the contributions (POT-1): (level, eligible, parts)."""
    contributed = state.contributed
    live = [i for i in range(state.n) if not state.folded[i]]
    levels = sorted({contributed[i] for i in live})
    assert all(contributed[i] > 0 for i in live)
    pots = []
    previous = 0
    for level in levels:
        parts = {o: min(c, level) - min(c, previous) for o, c in enumerate(contributed)}
        eligible = [i for i in live if contributed[i] >= level]
        pots.append((level, eligible, parts))
        previous = level
    # POT-2: uncalled chips went back, so no folded player is deeper than every live one
    assert all(c <= levels[-1] for c in contributed)
    return pots


def check_pot1_transfers(state: HandState) -> None:
    """Nobody wins more from any one opponent than they put in themselves (POT-1)."""
    cfg = state.config
    put_in = [s0 - s for s0, s in zip(cfg.starting_stacks, state.stacks, strict=True)]
    # Chips put in but not in ``contributed``: a big-blind ante, dead money for the main pot.
    ante_paid = [p - c for p, c in zip(put_in, state.contributed, strict=True)]
    assert sum(ante_paid) == state.dead and all(a >= 0 for a in ante_paid)
    received: dict[tuple[int, int], Fraction] = defaultdict(Fraction)  # (winner, from) -> chips
    if len(state.live) == 1:
        (winner,) = state.live
        assert len(state.awards) == 1 and state.awards[0].uncontested
        for o in range(state.n):
            received[winner, o] += put_in[o]
    else:
        pots = _my_pots(state)
        by_index: dict[int, list[tuple[int, int]]] = defaultdict(list)
        for award in state.awards:
            by_index[award.pot_index].extend(award.shares)
        assert sorted(by_index) == list(range(len(pots)))
        for k, (_level, eligible, parts) in enumerate(pots):
            if k == 0:
                parts = {o: p + ante_paid[o] for o, p in parts.items()}
            amount = sum(parts.values())
            shares = by_index[k]
            assert sum(a for _, a in shares) == amount
            for winner, share in shares:
                assert winner in eligible, (k, winner, eligible)
                for o, part in parts.items():
                    received[winner, o] += Fraction(share * part, amount)
    for (winner, o), chips in received.items():
        if o != winner:
            assert chips <= put_in[winner], (winner, o, chips, put_in)


def _values(state: HandState, player: int) -> tuple[int, int | None]:
    game = state.config.variant.game
    hole, board = state.hole[player], state.board
    if game.ranking is Ranking.OMAHA:
        low = evaluator.evaluate_omaha_low8(hole, board) if game.hi_lo else None
        return evaluator.evaluate_omaha_high(hole, board), low
    low = evaluator.evaluate_low8(tuple(hole) + tuple(board)) if game.hi_lo else None
    return evaluator.evaluate_high(tuple(hole) + tuple(board)), low


def check_winners(state: HandState) -> None:
    """Each pot goes to the best shown eligible hands; odd chips first clockwise (POT-6)."""
    if len(state.live) == 1:
        return
    pots = _my_pots(state)
    shown = {i for i in state.live if state.shown[i] is not None}
    for award in state.awards:
        amounts = [a for _, a in award.shares]
        players = [p for p, _ in award.shares]
        assert players == sorted(players)  # clockwise from the button
        assert amounts == sorted(amounts, reverse=True)  # odd chips to the first ones
        assert max(amounts) - min(amounts) <= state.config.chip_unit
        eligible = [i for i in pots[award.pot_index][1] if i in shown]
        if not eligible:
            continue  # nobody eligible showed (every eligible hand mucked)
        assert set(players) <= set(eligible)  # POT-4: a mucked hand wins nothing
        values = {i: _values(state, i) for i in eligible}
        if award.half == "low":
            best = max(v[1] for v in values.values() if v[1] is not None)
            assert all(values[p][1] == best for p in players)
            assert {i for i in eligible if values[i][1] == best} == set(players)
        else:
            best_high = max(v[0] for v in values.values())
            assert {i for i in eligible if values[i][0] == best_high} == set(players)
            if award.half == "all" and state.config.variant.game.hi_lo:
                assert all(v[1] is None for v in values.values())  # no qualifying low


# -- random play ---------------------------------------------------------------------------------


def choose(state: HandState, deck: list[Card], rng: random.Random) -> Action:
    """A random legal action; the deck is consumed as cards go out (burns included)."""
    if state.phase is Phase.DEALING_HOLE:
        want = state.config.variant.game.hole_cards
        player = min(range(state.n), key=lambda p: (len(state.hole[p]), p))  # DEAL-1
        assert len(state.hole[player]) < want
        return DealHole(player, (deck.pop(),))
    if state.phase is Phase.DEALING_BOARD:
        deck.pop()  # burn (DEAL-2)
        return DealBoard(tuple(deck.pop() for _ in range(state.board_needed)))
    if state.phase is Phase.SHOWDOWN:
        waiting = [p for p in showdown_order(state) if state.shown[p] is None and not state.mucked[p]]
        player = waiting[0]
        if rng.random() < 0.2 and not state.hands_face_up:  # POT-5: face-up hands stay up
            return Show(player, None)
        return Show(player, state.hole[player])
    options = legal(state)
    assert options is not None
    roll = rng.random()
    if roll < 0.15 and options.call_amount or roll < 0.03:
        return Fold(options.player)  # rarely even when a check is free
    if options.can_raise and roll > 0.65:
        low, high = options.min_raise_to, options.max_raise_to
        to = rng.choice([low, high, low + int((high - low) * rng.random() ** 3)])
        return BetRaise(options.player, to)
    return CheckCall(options.player)


def bad_actions(state: HandState, deck: list[Card], rng: random.Random) -> list[tuple[Action, set[str]]]:
    """Actions that must be refused now, each with the rules that may be named."""
    n = state.n
    dealt = [c for hand in state.hole for c in hand] + list(state.board)
    spare = deck[0] if deck else None
    bad: list[tuple[Action, set[str]]] = []
    if state.phase is Phase.BETTING:
        options = legal(state)
        assert options is not None
        i = options.player
        others = [p for p in range(n) if p != i]
        bad.append((CheckCall(rng.choice(others)), {"BET-14"}))
        bad.append((Fold(rng.choice(others)), {"BET-14"}))
        bad.append((BetRaise(rng.choice(others), state.high_bet + 1000), {"BET-14"}))
        if options.can_raise:
            below = rng.randint(0, options.min_raise_to - 1)
            deepest = max(state.bets[p] + state.stacks[p] for p in state.live if p != i)
            if below == deepest and state.high_bet:
                below = state.high_bet  # all the deepest opponent can call stands as a raise (POT-2)
            bad.append((BetRaise(i, below), {"BET-3", "BET-4"}))
            bad.append(
                (BetRaise(i, options.max_raise_to + rng.randint(1, 1000)), {"BET-1", "BET-10", "BET-17"})
            )
        else:
            rule = options.why_no_raise.split(":")[0]
            bad.append((BetRaise(i, state.high_bet + state.stacks[i]), {rule}))
        if spare is not None:
            bad.append((DealBoard((spare,)), {"BOARD-4"}))
            bad.append((DealHole(i, (spare,)), {"DEAL-1"}))
        bad.append((Show(i, state.hole[i]), {"POT-4"}))
        bad.append((CheckCall(n + 3), {"INPUT"}))
    elif state.phase is Phase.DEALING_HOLE:
        want = state.config.variant.game.hole_cards
        short = [p for p in range(n) if len(state.hole[p]) < want]
        p = short[0]
        if dealt:
            bad.append((DealHole(p, (rng.choice(dealt),)), {"IRR-2"}))
        if spare is not None:
            bad.append((DealHole(p, (spare, spare)), {"IRR-2", "MD-d"}))
        if len(deck) > want:
            bad.append((DealHole(p, tuple(deck[: want + 1])), {"MD-d"}))
            bad.append((DealBoard(tuple(deck[:3])), {"DEAL-2"}))
        bad.append((CheckCall(p), {"BET-14"}))
        bad.append((BetRaise(p, 10**6), {"BET-14"}))
    elif state.phase is Phase.DEALING_BOARD:
        bad.append((DealBoard((rng.choice(dealt),)), {"IRR-2"}))
        bad.append((DealBoard(tuple(deck[: state.board_needed + 1])), {"BOARD-1"}))
        bad.append((CheckCall(rng.randrange(n)), {"BET-14"}))
        bad.append((DealHole(0, (deck[0],)), {"DEAL-1"}))
    elif state.phase is Phase.SHOWDOWN:
        waiting = [p for p in state.live if state.shown[p] is None and not state.mucked[p]]
        p = waiting[0]
        bad.append((CheckCall(p), {"BET-14"}))
        bad.append((BetRaise(p, 10**6), {"BET-14"}))
        if deck:
            fake = (deck[0],) + tuple(state.hole[p][1:])
            bad.append((Show(p, fake), {"IRR-9"}))
        if len(state.hole[p]) > 1:
            bad.append((Show(p, state.hole[p][:-1]), {"POT-4"}))
        folded = [q for q in range(n) if state.folded[q]]
        if folded:
            bad.append((Show(folded[0], state.hole[folded[0]]), {"POT-4"}))
        bad.append((DealBoard((deck[0],)), {"DEAL-2"}))
    return bad


def check_refused(state: HandState, candidates: list[tuple[Action, set[str]]], rng: random.Random) -> None:
    """One of the actions that must be refused: it names one of its rules and changes nothing."""
    action, rules = rng.choice(candidates)
    before = state
    try:
        apply(state, action)
    except RuleViolation as err:
        assert err.rule in rules, (action, str(err), rules)
        assert err.message
    else:
        raise AssertionError(f"{action!r} was accepted in phase {state.phase.value}")
    assert state == before


def play(config: HandConfig, rng: random.Random, refusals: bool) -> HandState:
    deck = list(range(52))
    rng.shuffle(deck)
    state = start_hand(config)
    check_step(state)
    for _step in range(500):
        if state.phase is Phase.COMPLETE:
            break
        if refusals and rng.random() < 0.3:
            check_refused(state, bad_actions(state, deck, rng), rng)
        state = apply(state, choose(state, deck, rng))
        check_step(state)
    else:
        raise AssertionError("the hand did not end in 500 actions")
    check_end(state)
    return state


@PROPERTY_SETTINGS
@given(configs(), st.randoms(use_true_random=False))
def test_random_hands_conserve_chips_and_respect_pot1(config: HandConfig, rng: random.Random) -> None:
    play(config, rng, refusals=False)


@PROPERTY_SETTINGS
@given(configs(), st.randoms(use_true_random=False))
def test_refused_actions_name_a_rule_and_leave_the_state_unchanged(
    config: HandConfig, rng: random.Random
) -> None:
    play(config, rng, refusals=True)


@settings(max_examples=60, deadline=None, database=None)
@given(st.integers(2, 9), st.randoms(use_true_random=False))
def test_all_in_every_hand_everyone_all_in_preflop(n: int, rng: random.Random) -> None:
    """Everyone shoves: many side pots, each split by POT-1 and POT-6."""
    ante = 1 if rng.random() < 0.5 else 0
    stacks = tuple(ante + rng.choice([rng.randint(1, 30), rng.randint(1, 5000)]) for _ in range(n))
    cfg = HandConfig(
        Variant(HOLDEM, Structure.NO_LIMIT), stacks, blinds=(1, 2), antes=(ante,) * n if ante else ()
    )
    deck = list(range(52))
    rng.shuffle(deck)
    state = start_hand(cfg)
    while state.phase is not Phase.COMPLETE:
        if state.phase is Phase.BETTING:
            options = legal(state)
            assert options is not None
            if options.can_raise:
                action: Action = BetRaise(options.player, options.max_raise_to)
            else:
                action = CheckCall(options.player)
            state = apply(state, action)
        else:
            state = apply(state, choose(state, deck, random.Random(0)))
        check_step(state)
    check_end(state)


# A few amounts, so that live hands often put in the same (the one-pot case) and often not.
_seat = st.tuples(st.sampled_from([0, 20, 100, 250]), st.booleans(), st.sampled_from([0, 500]))


@settings(max_examples=400, deadline=None, database=None)
@given(st.lists(_seat, min_size=2, max_size=9), st.sampled_from([0, 30]))
def test_the_one_pot_shortcut_makes_what_side_pots_and_unclaimable_make(
    seats: list[tuple[int, bool, int]], dead: int
) -> None:
    """award_pots takes one pot without side_pots and unclaimable when _one_pot says it may."""
    contributed = tuple(c for c, _, _ in seats)
    folded = tuple(f for _, f, _ in seats)
    stacks = tuple(s for _, _, s in seats)
    live = tuple(i for i, f in enumerate(folded) if not f)
    total = _one_pot(contributed, folded)
    if total < 0 or not live:
        return
    assert total == sum(contributed)
    assert side_pots(contributed, folded, dead) == [Pot(total + dead, live)]
    assert not any(unclaimable(contributed, folded, stacks))


def test_the_one_pot_shortcut_is_taken_only_without_side_pots_or_chips_to_return() -> None:
    assert _one_pot((100, 100, 20), (False, False, True)) == 220  # a folded blind: one pot
    assert _one_pot((100, 50, 100), (False, False, False)) == -1  # all-in for less: a side pot
    assert _one_pot((100, 250, 100), (False, True, False)) == -1  # a folded hand above: returned
    assert _one_pot((0, 0), (False, False)) == -1  # nothing put in (only dead antes)
