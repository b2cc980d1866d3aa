"""Low hands: deuce-to-seven (DRAW-9, HO-10), ace-to-five for razz (STUD-16, DRAW-10) and the
eight-or-better qualifier of stud/8 (STUD-15), each over all 2,598,960 five-card hands."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from itertools import combinations

import pytest

from tablectl.core.cards import card_str, parse_cards
from tablectl.core.evaluator import (
    FLUSH,
    FOUR_OF_A_KIND,
    FULL_HOUSE,
    HIGH_CARD,
    PAIR,
    STRAIGHT,
    STRAIGHT_FLUSH,
    THREE_OF_A_KIND,
    TWO_PAIR,
    category_of_27,
    describe_deuce_to_seven,
    describe_low,
    evaluate_low8,
    evaluate_low_27,
    evaluate_low_a5,
)


def d27(text: str) -> int:
    return evaluate_low_27(parse_cards(text))


def a5(text: str) -> int:
    return evaluate_low_a5(parse_cards(text))


# --- deuce-to-seven ----------------------------------------------------------------------------


def test_deuce_to_seven_house_table() -> None:
    # HO-10: 7-5-4-3-2 offsuit is the best hand, A-2-3-4-5 is ace high (no wheel), straights and
    # flushes count against a hand, any pair is worse than any hand without one.
    best = d27("7c5d4h3s2c")
    assert describe_deuce_to_seven(best) == "7-5-4-3-2"
    assert best == max(map(evaluate_low_27, combinations(range(52), 5)))
    assert best > d27("7c6d4h3s2c") > d27("8c5d4h3s2c") > d27("8c6d5h4s3c")
    assert d27("7c5c4c3c2c") < d27("AcKdQhJs9c")  # a flush is worse than the worst no-pair hand
    assert d27("6c5d4h3s2c") < d27("AcKdQhJs9c")  # so is a straight
    assert describe_deuce_to_seven(d27("6c5d4h3s2c")) == "Straight, six high"
    wheel = d27("Ac5d4h3s2c")
    assert category_of_27(wheel) == HIGH_CARD and describe_deuce_to_seven(wheel) == "A-5-4-3-2"
    assert d27("KcQdJhTs8c") > wheel > d27("AcKdQhJs9c")  # ace high: worse than any king high
    assert describe_deuce_to_seven(d27("AcKdQhJs9c")) == "A-K-Q-J-9"
    assert d27("AcKdQhJs9c") > d27("2c2d3h4s5c")  # the worst no-pair hand beats the best pair
    assert describe_deuce_to_seven(d27("2c2d3h4s5c")) == "Pair of twos"
    assert d27("AcAdKhQsJc") > d27("2c2d3h3s4c")  # any pair beats any two pair
    assert d27("Ah2h3h4h5h") > d27("2h3h4h5h6h")  # a suited wheel is a flush, not a straight flush
    assert describe_deuce_to_seven(d27("Ah2h3h4h5h")) == "Flush, ace high"
    assert d27("7c5d4h3s2c") == d27("7h5s4c3d2h")  # suits never break ties


def test_deuce_to_seven_refuses_other_card_counts() -> None:
    with pytest.raises(ValueError):
        evaluate_low_27(parse_cards("7c5d4h3s2cKd"))
    with pytest.raises(ValueError):
        evaluate_low_27(parse_cards("7c5d4h3s"))
    with pytest.raises(ValueError):
        evaluate_low_27([8, 8, 8, 8, 8])  # one card named five times
    with pytest.raises(ValueError):
        evaluate_low_27([0, 4, 8, 12, 12])  # a suited card named twice
    with pytest.raises(ValueError):
        category_of_27(0)


# The published five-card frequencies by high category; deuce-to-seven moves the four wheel
# straights to high card ... the 1,020 wheels to high card and the four suited wheels to flushes.
HANDS_27 = {
    HIGH_CARD: 1_302_540 + 1_020,
    PAIR: 1_098_240,
    TWO_PAIR: 123_552,
    THREE_OF_A_KIND: 54_912,
    STRAIGHT: 10_200 - 1_020,
    FLUSH: 5_108 + 4,
    FULL_HOUSE: 3_744,
    FOUR_OF_A_KIND: 624,
    STRAIGHT_FLUSH: 40 - 4,
}
DISTINCT_27 = {
    HIGH_CARD: 1_278,
    PAIR: 2_860,
    TWO_PAIR: 858,
    THREE_OF_A_KIND: 858,
    STRAIGHT: 9,
    FLUSH: 1_278,
    FULL_HOUSE: 156,
    FOUR_OF_A_KIND: 156,
    STRAIGHT_FLUSH: 9,
}


def test_all_2598960_five_card_hands_deuce_to_seven() -> None:
    by_value = Counter(map(evaluate_low_27, combinations(range(52), 5)))
    assert sum(by_value.values()) == 2_598_960
    assert len(by_value) == 7_462
    hands: Counter[int] = Counter()
    distinct: Counter[int] = Counter()
    for value, count in by_value.items():
        hands[category_of_27(value)] += count
        distinct[category_of_27(value)] += 1
    assert dict(hands) == HANDS_27
    assert dict(distinct) == DISTINCT_27


def reference_27(cards: Sequence[int]) -> tuple[int, tuple[int, ...]]:
    """An independent deuce-to-seven key, lower is better: the high category (straights only of
    five consecutive ranks with the ace on top) and the ranks spelled biggest group first."""
    ranks = [c >> 2 for c in cards]
    counts = Counter(ranks)
    spelled = tuple(sorted(ranks, key=lambda r: (counts[r], r), reverse=True))
    flush = len({c & 3 for c in cards}) == 1
    straight = len(counts) == 5 and max(ranks) - min(ranks) == 4
    pattern = sorted(counts.values(), reverse=True)
    if straight and flush:
        category = 8
    elif pattern[0] == 4:
        category = 7
    elif pattern == [3, 2]:
        category = 6
    elif flush:
        category = 5
    elif straight:
        category = 4
    else:
        category = {(3, 1, 1): 3, (2, 2, 1): 2, (2, 1, 1, 1): 1}.get(tuple(pattern), 0)
    return category, spelled


def _random_fives(seed: int, count: int) -> list[list[int]]:
    rng = random.Random(seed)
    hands = [rng.sample(range(52), 5) for _ in range(count)]
    # Straights, flushes and pairs are rare in random hands: deal some from few ranks or one suit.
    few_ranks = [c for c in range(52) if c >> 2 in (12, 0, 1, 2, 3, 4, 5)]
    hands += [rng.sample(few_ranks, 5) for _ in range(count // 4)]
    hands += [rng.sample(range(s, 52, 4), 5) for s in range(4) for _ in range(count // 16)]
    return hands


def test_deuce_to_seven_against_reference() -> None:
    hands = _random_fives(27, 4000)
    ours = [evaluate_low_27(h) for h in hands]
    theirs = [reference_27(h) for h in hands]
    for a in range(len(hands) - 1):
        b = a + 1
        assert (ours[a] > ours[b]) == (theirs[a] < theirs[b]), (hands[a], hands[b])
        assert (ours[a] == ours[b]) == (theirs[a] == theirs[b]), (hands[a], hands[b])


def test_lows_agree_with_pokerkit() -> None:
    pokerkit = pytest.importorskip("pokerkit")
    hands = _random_fives(57, 1500)
    rng = random.Random(58)
    sevens = [rng.sample(range(52), 7) for _ in range(800)]

    def pk(cls: type, cards: Sequence[int]) -> object:
        return cls.from_game("".join(card_str(c) for c in cards))

    for a, b in zip(hands, hands[1:], strict=False):
        ours = (evaluate_low_27(a) > evaluate_low_27(b), evaluate_low_27(a) == evaluate_low_27(b))
        x, y = pk(pokerkit.StandardLowHand, a), pk(pokerkit.StandardLowHand, b)
        assert ours == (x > y, x == y), (a, b)
    for a, b in zip(sevens, sevens[1:], strict=False):
        ours = (evaluate_low_a5(a) > evaluate_low_a5(b), evaluate_low_a5(a) == evaluate_low_a5(b))
        x, y = pk(pokerkit.RegularLowHand, a), pk(pokerkit.RegularLowHand, b)
        assert ours == (x > y, x == y), (a, b)


# --- ace-to-five and eight-or-better -----------------------------------------------------------


def test_all_2598960_five_card_hands_ace_to_five() -> None:
    # Every multiset of five ranks is its own value: 1,287 without a pair, 2,860 with one pair, 858
    # two pair, 858 trips, 156 full houses, 156 quads.
    by_value = Counter(map(evaluate_low_a5, combinations(range(52), 5)))
    assert sum(by_value.values()) == 2_598_960
    assert len(by_value) == 6_175
    by_pattern: Counter[tuple[int, ...]] = Counter()
    distinct: Counter[tuple[int, ...]] = Counter()
    for value, count in by_value.items():
        ranks = Counter(describe_low(value).split("-"))
        pattern = tuple(sorted(ranks.values(), reverse=True))
        by_pattern[pattern] += count
        distinct[pattern] += 1
    assert dict(by_pattern) == {
        (1, 1, 1, 1, 1): 1_317_888,
        (2, 1, 1, 1): 1_098_240,
        (2, 2, 1): 123_552,
        (3, 1, 1): 54_912,
        (3, 2): 3_744,
        (4, 1): 624,
    }
    assert dict(distinct) == {
        (1, 1, 1, 1, 1): 1_287,
        (2, 1, 1, 1): 2_860,
        (2, 2, 1): 858,
        (3, 1, 1): 858,
        (3, 2): 156,
        (4, 1): 156,
    }
    assert describe_low(max(by_value)) == "5-4-3-2-A"  # the wheel (STUD-16)
    assert describe_low(min(by_value)) == "K-K-K-K-Q"


def test_all_2598960_five_card_hands_eight_or_better() -> None:
    # STUD-15: five distinct ranks, 8 or lower, aces low: C(8, 5) = 56 lows of 4**5 hands each.
    by_value = Counter(map(evaluate_low8, combinations(range(52), 5)))
    qualifying = {v: n for v, n in by_value.items() if v is not None}
    assert len(qualifying) == 56
    assert set(qualifying.values()) == {1_024}
    assert by_value[None] == 2_598_960 - 57_344
    for value in qualifying:  # a qualifying low is ranked as the same five cards in razz
        assert value == a5(_cards_of(value))
    assert describe_low(min(qualifying)) == "8-7-6-5-4"


def _cards_of(value: int) -> str:
    """Five cards of mixed suits for a low value: '8-6-4-2-A' -> '8c6d4h2sAc'."""
    return "".join(r + "cdhsc"[k] for k, r in enumerate(describe_low(value).split("-")))


def test_ace_to_five_in_six_and_seven_cards_is_the_best_five() -> None:
    rng = random.Random(16)
    for _ in range(3000):
        cards = rng.sample(range(52), rng.choice((6, 7)))
        assert evaluate_low_a5(cards) == max(evaluate_low_a5(five) for five in combinations(cards, 5))


def test_ace_to_five_refuses_five_of_a_rank_and_other_counts() -> None:
    assert a5("AcAdAhAs2c") < a5("2c3d4h5s7c")
    with pytest.raises(ValueError):
        evaluate_low_a5([0, 0, 0, 0, 0])
    with pytest.raises(ValueError):
        evaluate_low_a5(parse_cards("Ac2d3h4s"))
