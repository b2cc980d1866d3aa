"""Poker hand evaluation (layer 1): high hands, Omaha, eight-or-better, ace-to-five and
deuce-to-seven lows.

Every evaluator returns a plain ``int`` and **a higher value is always a better hand**, for
lows as well as highs, so callers compare hands the same way whatever the game. Two hands
get equal values exactly when they tie (RULES POT-7: suits never break ties). High values
and low values are on different scales: compare a high with a high and a low with a low.

Inputs are trusted: cards are ints 0..51 (see :mod:`tablectl.core.cards`), all distinct. Check
them once at the boundary with :func:`tablectl.core.cards.check_distinct`; the evaluators do not
re-check on the hot path (a wrong number of cards raises ``ValueError``).

How the high evaluator works (details in docs/evaluator.md). Each card has a precomputed
integer key: the low 16 bits count suits (4 bits per suit), the bits above count ranks
(3 bits per rank; a rank appears at most 4 times). The key of a hand is the sum of its
cards' keys. Adding 3 to every suit count sets bit 3 of a count's nibble exactly when the
count is 5 or more, so ``(key + 0x3333) & 0x8888`` is non-zero exactly when the hand holds
a flush. Otherwise the value is one dict lookup on the rank part ``key >> 16``, which
identifies the multiset of ranks (73,775 multisets of 5, 6 or 7 cards). A flush (3% of
7-card hands) ORs the flush suit's rank bits into a 13-bit mask and looks that up in an
8,192-entry list. With at most 7 cards a flush never coexists with a full house or four of
a kind (either needs too many suits), so the flush value is the best hand.

A high value is ``category << 20`` plus up to five 4-bit rank indices (2 = 0 .. A = 12) in
the order that decides ties, e.g. a full house is ``6 << 20 | trips << 16 | pair << 12``.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations, combinations_with_replacement
from typing import Final

__all__ = [
    "CATEGORY_NAMES",
    "FLUSH",
    "FOUR_OF_A_KIND",
    "FULL_HOUSE",
    "HIGH_CARD",
    "PAIR",
    "STRAIGHT",
    "STRAIGHT_FLUSH",
    "THREE_OF_A_KIND",
    "TWO_PAIR",
    "category_of",
    "describe_high",
    "describe_low",
    "category_of_27",
    "describe_deuce_to_seven",
    "evaluate_high",
    "evaluate_low8",
    "evaluate_low_27",
    "evaluate_low_a5",
    "evaluate_omaha_high",
    "evaluate_omaha_low8",
    "rank_class",
]

# Hand categories, worst to best (the value's bits 20 and up).
HIGH_CARD: Final = 0
PAIR: Final = 1
TWO_PAIR: Final = 2
THREE_OF_A_KIND: Final = 3
STRAIGHT: Final = 4
FLUSH: Final = 5
FULL_HOUSE: Final = 6
FOUR_OF_A_KIND: Final = 7
STRAIGHT_FLUSH: Final = 8

CATEGORY_NAMES: Final[tuple[str, ...]] = (
    "High card",
    "Pair",
    "Two pair",
    "Three of a kind",
    "Straight",
    "Flush",
    "Full house",
    "Four of a kind",
    "Straight flush",
)

_CATEGORY_SHIFT: Final = 20
_SUIT_BITS: Final = 16  # the low 16 bits of a card key count suits
_RANK_WEIGHT: Final[tuple[int, ...]] = tuple(1 << (3 * r) for r in range(13))

# Per card: its key (rank count part << 16 | suit count part) and its rank bit.
_KEY: Final[list[int]] = [(_RANK_WEIGHT[c >> 2] << _SUIT_BITS) | (1 << (4 * (c & 3))) for c in range(52)]
_RANK_BIT: Final[list[int]] = [1 << (c >> 2) for c in range(52)]
_RANK_PART: Final[list[int]] = [k >> _SUIT_BITS for k in _KEY]  # the key without suits
# The flush test's surviving bit -> the flush suit (only one suit can hold 5 of 7 cards).
_FLUSH_SUIT: Final[dict[int, int]] = {0x8 << (4 * s): s for s in range(4)}

# Rank mask of five consecutive ranks -> index of the straight's top card (wheel: the 5).
_STRAIGHT_HIGH: Final[dict[int, int]] = {
    **{0b11111 << low: low + 4 for low in range(9)},
    (1 << 12) | 0b1111: 3,
}

_PATTERN_CATEGORY: Final[dict[tuple[int, ...], int]] = {
    (4, 1): FOUR_OF_A_KIND,
    (3, 2): FULL_HOUSE,
    (3, 1, 1): THREE_OF_A_KIND,
    (2, 2, 1): TWO_PAIR,
    (2, 1, 1, 1): PAIR,
}


def _pack(category: int, ranks: Sequence[int]) -> int:
    value = category
    for r in ranks:
        value = (value << 4) | r
    return value << (4 * (5 - len(ranks)))


def _grouped(ranks: Sequence[int]) -> tuple[tuple[int, ...], list[int]]:
    """Count pattern (largest first) and the distinct ranks in tie-break order."""
    counts: dict[int, int] = {}
    for r in ranks:
        counts[r] = counts.get(r, 0) + 1
    groups = sorted(counts.items(), key=lambda rc: (rc[1], rc[0]), reverse=True)
    return tuple(c for _, c in groups), [r for r, _ in groups]


def _flush_value5(mask: int, straights: dict[int, int] = _STRAIGHT_HIGH) -> int:
    top = straights.get(mask)
    if top is not None:
        return _pack(STRAIGHT_FLUSH, (top,))
    return _pack(FLUSH, [r for r in range(12, -1, -1) if mask >> r & 1])


def _five_card_values(straights: dict[int, int] = _STRAIGHT_HIGH) -> dict[int, int]:
    """Rank-multiset key -> high value for all 6,175 multisets of five ranks, written
    category by category (five distinct ranks are a straight or a high card); ``straights``
    names the rank masks that are straights (deuce-to-seven has no wheel).
    """
    w = _RANK_WEIGHT
    table: dict[int, int] = {}
    for combo in combinations(range(12, -1, -1), 5):  # five distinct ranks, highest first
        mask = 0
        for r in combo:
            mask |= 1 << r
        top = straights.get(mask)
        key = w[combo[0]] + w[combo[1]] + w[combo[2]] + w[combo[3]] + w[combo[4]]
        table[key] = _pack(HIGH_CARD, combo) if top is None else _pack(STRAIGHT, (top,))
    for big in range(13):
        others = [r for r in range(12, -1, -1) if r != big]
        for x in others:
            table[4 * w[big] + w[x]] = _pack(FOUR_OF_A_KIND, (big, x))
            table[3 * w[big] + 2 * w[x]] = _pack(FULL_HOUSE, (big, x))
        for x, y in combinations(others, 2):
            table[3 * w[big] + w[x] + w[y]] = _pack(THREE_OF_A_KIND, (big, x, y))
        for x, y, z in combinations(others, 3):
            table[2 * w[big] + w[x] + w[y] + w[z]] = _pack(PAIR, (big, x, y, z))
    for high, low in combinations(range(12, -1, -1), 2):
        for kicker in range(12, -1, -1):
            if kicker != high and kicker != low:
                table[2 * w[high] + 2 * w[low] + w[kicker]] = _pack(TWO_PAIR, (high, low, kicker))
    return table


def _one_card_more(smaller: dict[int, int]) -> dict[int, int]:
    """Tables for n + 1 cards from the table for n: the best hand in n + 1 cards is the
    best over the n-card multisets left by taking away one card.

    Every (n-card multiset, added rank) pair is written in increasing order of the n-card
    value, so the last write to a key, the one that stays, is the maximum. Adding a fifth
    card of a rank is then undone: an n-card multiset holding four of a rank is valued
    four of a kind of that rank, so that rank is the value's first nibble.
    """
    w = _RANK_WEIGHT
    ordered = sorted(smaller.items(), key=lambda kv: kv[1])
    bigger = dict(
        zip([k + x for k, _ in ordered for x in w], [v for _, v in ordered for _ in w], strict=True)
    )
    for k, v in smaller.items():
        if v >> _CATEGORY_SHIFT == FOUR_OF_A_KIND:
            del bigger[k + w[(v >> 16) & 15]]
    return bigger


def _build_rank_table() -> dict[int, int]:
    """Rank-multiset key -> best high value, for every multiset of 5, 6 or 7 ranks with
    at most four of a rank (6,175 + 18,395 + 49,205 = 73,775 keys)."""
    five = _five_card_values()
    six = _one_card_more(five)
    table = _one_card_more(six)
    table.update(six)
    table.update(five)
    return table


def _build_flush_table() -> list[int]:
    """13-bit mask of the flush suit's ranks (5 to 7 bits) -> best flush value; else 0."""
    table = [0] * 8192
    by_size: dict[int, list[int]] = {5: [], 6: [], 7: []}
    for mask in range(8192):
        n = mask.bit_count()
        if n in by_size:
            by_size[n].append(mask)
    for mask in by_size[5]:
        table[mask] = _flush_value5(mask)
    for size in (6, 7):
        for mask in by_size[size]:
            best = 0
            m = mask
            while m:
                low = m & -m
                m ^= low
                best = max(best, table[mask ^ low])
            table[mask] = best
    return table


_RANKS: Final[dict[int, int]] = _build_rank_table()
_FLUSHES: Final[list[int]] = _build_flush_table()


def _bad_hand(cards: Sequence[int]) -> ValueError:
    return ValueError(
        f"cannot evaluate {len(cards)} cards {list(cards)!r}: "
        "expected 5 to 7 distinct cards, each an int 0..51"
    )


def evaluate_high(cards: Sequence[int]) -> int:
    """Value of the best five-card high hand in 5, 6 or 7 cards; higher is better.

    Equal values exactly when the hands tie. Cards must be distinct ints 0..51.
    """
    key = _KEY
    n = len(cards)
    if n == 7:
        a, b, c, d, e, f, g = cards
        k = key[a] + key[b] + key[c] + key[d] + key[e] + key[f] + key[g]
    elif n == 6:
        a, b, c, d, e, f = cards
        k = key[a] + key[b] + key[c] + key[d] + key[e] + key[f]
    elif n == 5:
        a, b, c, d, e = cards
        k = key[a] + key[b] + key[c] + key[d] + key[e]
    else:
        raise _bad_hand(cards)
    flush = (k + 0x3333) & 0x8888  # literals: a constant load is cheaper than a global
    if flush:
        suit = _FLUSH_SUIT[flush]
        rank_bit = _RANK_BIT
        mask = 0
        for card in cards:
            if card & 3 == suit:
                mask |= rank_bit[card]
        value = _FLUSHES[mask]
        if value:
            return value
        raise _bad_hand(cards)  # a card named twice
    try:
        return _RANKS[k >> 16]
    except KeyError:
        raise _bad_hand(cards) from None


def _check_omaha(hole: Sequence[int], board: Sequence[int]) -> None:
    if not 4 <= len(hole) <= 6:
        raise ValueError(f"an Omaha hand has 4 to 6 hole cards, not {len(hole)}")
    if not 3 <= len(board) <= 5:
        raise ValueError(f"an Omaha board has 3 to 5 cards, not {len(board)}")


def evaluate_omaha_high(hole: Sequence[int], board: Sequence[int]) -> int:
    """Best high hand using exactly two hole cards and exactly three board cards (POT-8)."""
    _check_omaha(hole, board)
    rank_part = _RANK_PART
    # Every two-plus-three rank multiset (duplicates dropped) in one C-level max.
    pairs = {rank_part[a] + rank_part[b] for a, b in combinations(hole, 2)}
    triples = {rank_part[x] + rank_part[y] + rank_part[z] for x, y, z in combinations(board, 3)}
    best = max(map(_RANKS.__getitem__, [p + t for p in pairs for t in triples]))
    # Flushes: three board cards and two hole cards of one suit.
    by_suit: dict[int, list[int]] = {}
    for card in board:
        by_suit.setdefault(card & 3, []).append(card)
    for suit, suited_board in by_suit.items():
        if len(suited_board) < 3:
            continue
        suited_hole = [_RANK_BIT[c] for c in hole if c & 3 == suit]
        if len(suited_hole) < 2:
            continue
        two = [x | y for x, y in combinations(suited_hole, 2)]
        three = [_RANK_BIT[x] | _RANK_BIT[y] | _RANK_BIT[z] for x, y, z in combinations(suited_board, 3)]
        best = max(best, *[_FLUSHES[p | t] for p in two for t in three])
    return best


# ---------------------------------------------------------------------------------------
# Ace-to-five lows. A low value is _LOW_TOP minus the hand's "badness": the high-style
# packing of the five cards with aces low (A = 0, 2 = 1 .. K = 12) and no straights or
# flushes, so a higher low value is a better low, as for highs.

_LOW_TOP: Final = 1 << 24
_LOW_INDEX: Final[list[int]] = [((c >> 2) + 1) % 13 for c in range(52)]  # A=0, 2=1 .. K=12
_LOW_WEIGHT: Final[list[int]] = [_RANK_WEIGHT[i] for i in _LOW_INDEX]
# Eight-or-better: bit i for ace-low index i <= 7 (A..8); higher cards contribute nothing.
_LOW8_BIT: Final[list[int]] = [(1 << i) if i <= 7 else 0 for i in _LOW_INDEX]


def _low_badness5(low_ranks: Sequence[int]) -> int:
    pattern, order = _grouped(low_ranks)
    if len(pattern) == 5:
        return _pack(HIGH_CARD, order)
    return _pack(_PATTERN_CATEGORY[pattern], order)


def _build_low8_table() -> list[int | None]:
    """Mask of the A..8 ranks present -> value of the best qualifying low, or None."""
    table: list[int | None] = [None] * 256
    for mask in range(256):
        if mask.bit_count() >= 5:
            m = mask
            while m.bit_count() > 5:
                m &= ~(1 << (m.bit_length() - 1))  # drop the highest rank
            table[mask] = _LOW_TOP - _low_badness5([i for i in range(8) if m >> i & 1])
    return table


_LOW8: Final[list[int | None]] = _build_low8_table()
# Pairs/triples of A..8 ranks for Omaha low: mask -> value for the 5-rank union.
_LOW8_FIVE: Final[dict[int, int]] = {
    m: v for m, v in enumerate(_LOW8) if v is not None and m.bit_count() == 5
}
_A5: dict[int, int] = {}  # ace-low rank-multiset key -> best ace-to-five low; built on first use


def evaluate_low8(cards: Sequence[int]) -> int | None:
    """Best eight-or-better ace-to-five low in 5 to 7 cards, or None when none qualifies.

    A qualifying low is five distinct ranks, all 8 or lower, aces low; straights and
    flushes do not count against it. Higher is better; same scale as :func:`evaluate_low_a5`.
    """
    if not 5 <= len(cards) <= 7:
        raise _bad_hand(cards)
    bit = _LOW8_BIT
    mask = 0
    for card in cards:
        mask |= bit[card]
    return _LOW8[mask]


def evaluate_omaha_low8(hole: Sequence[int], board: Sequence[int]) -> int | None:
    """Best eight-or-better low using exactly two hole and three board cards, or None."""
    _check_omaha(hole, board)
    bit = _LOW8_BIT
    pairs = {bit[a] | bit[b] for a, b in combinations(hole, 2)}
    triples = {bit[x] | bit[y] | bit[z] for x, y, z in combinations(board, 3)}
    # Only two distinct A..8 hole ranks and three distinct board ones, none shared, qualify.
    pairs = {p for p in pairs if p.bit_count() == 2}
    triples = {t for t in triples if t.bit_count() == 3}
    best: int | None = None
    five = _LOW8_FIVE
    for p in pairs:
        for t in triples:
            v = five.get(p | t)
            if v is not None and (best is None or v > best):
                best = v
    return best


def _build_a5_table() -> dict[int, int]:
    """Ace-low rank-multiset key -> best ace-to-five low, for every multiset of 5, 6 or 7 ranks
    with at most four of a rank (73,775 keys, as for highs).

    Five-rank multisets are valued directly; n + 1 ranks take the best of the n-rank multisets
    left by removing one card, by writing every (smaller multiset, added rank) pair in increasing
    order of value so that the last write to a key, the one kept, is the maximum (as
    _one_card_more does for highs). A rank already held four times is not added.
    """
    w = _RANK_WEIGHT
    smaller: dict[int, int] = {}
    for ranks in combinations_with_replacement(range(13), 5):
        if ranks[0] != ranks[4]:  # sorted: five of one rank is no hand
            smaller[sum(w[r] for r in ranks)] = _LOW_TOP - _low_badness5(ranks)
    table = dict(smaller)
    for _ in (6, 7):
        ordered = sorted(smaller.items(), key=lambda kv: kv[1])
        smaller = dict([(k + wx, v) for k, v in ordered for x, wx in enumerate(w) if (k >> (3 * x)) & 7 < 4])
        table.update(smaller)
    return table


def evaluate_low_a5(cards: Sequence[int]) -> int:
    """Best ace-to-five low (razz) in 5 to 7 cards: aces low, straights and flushes ignored,
    pairs count against. No qualifier. Higher is better.

    One dict lookup on the sum of the cards' ace-low rank weights, like a high hand without
    a flush; the table is built on the first call (about 0.1 s), so importing pays nothing.
    """
    weight = _LOW_WEIGHT
    n = len(cards)
    if n == 7:
        a, b, c, d, e, f, g = cards
        k = weight[a] + weight[b] + weight[c] + weight[d] + weight[e] + weight[f] + weight[g]
    elif n == 6:
        a, b, c, d, e, f = cards
        k = weight[a] + weight[b] + weight[c] + weight[d] + weight[e] + weight[f]
    elif n == 5:
        a, b, c, d, e = cards
        k = weight[a] + weight[b] + weight[c] + weight[d] + weight[e]
    else:
        raise _bad_hand(cards)
    try:
        return _A5[k]
    except KeyError:
        if _A5:
            raise _bad_hand(cards) from None  # five of a rank: a card named twice
    _A5.update(_build_a5_table())
    return evaluate_low_a5(cards)


# ---------------------------------------------------------------------------------------
# Deuce-to-seven lows (DRAW-9, HO-10): the high ranking turned upside down, with aces high
# only: A-5-4-3-2 is ace high (no wheel) and straights and flushes count against a hand, so
# 7-5-4-3-2 offsuit is the best hand and A-K-Q-J-9 the worst without a pair. A value is
# _LOW27_TOP minus the high-style value of the hand ranked that way; the tables are the high
# evaluator's five-card tables built without the wheel, one dict lookup or one list index.

_STRAIGHT_HIGH_27: Final[dict[int, int]] = {m: top for m, top in _STRAIGHT_HIGH.items() if top != 3}
_LOW27_TOP: Final = (STRAIGHT_FLUSH + 1) << _CATEGORY_SHIFT


def _build_27_tables() -> tuple[dict[int, int], list[int]]:
    """(rank-multiset key -> value, 13-bit flush mask -> value) for five deuce-to-seven cards."""
    ranks = {k: _LOW27_TOP - v for k, v in _five_card_values(_STRAIGHT_HIGH_27).items()}
    flushes = [0] * 8192
    for mask in range(8192):
        if mask.bit_count() == 5:
            flushes[mask] = _LOW27_TOP - _flush_value5(mask, _STRAIGHT_HIGH_27)
    return ranks, flushes


# Final (each name on its own: an unpacked pair cannot be): compiled, C globals rather than
# lookups in the module's dictionary at every hand.
_TABLES_27 = _build_27_tables()
_RANKS_27: Final = _TABLES_27[0]
_FLUSHES_27: Final = _TABLES_27[1]


def evaluate_low_27(cards: Sequence[int]) -> int:
    """Deuce-to-seven low of exactly five cards (a draw hand); higher is better.

    Equal values exactly when the hands tie (suits never break ties). Same scale as no other
    evaluator: compare deuce-to-seven values with each other only.
    """
    if len(cards) != 5:
        raise ValueError(f"a deuce-to-seven hand is five cards, not {len(cards)}: {list(cards)!r}")
    a, b, c, d, e = cards
    key = _KEY
    k = key[a] + key[b] + key[c] + key[d] + key[e]
    if (k + 0x3333) & 0x8888:  # five cards of one suit
        rank_bit = _RANK_BIT
        value = _FLUSHES_27[rank_bit[a] | rank_bit[b] | rank_bit[c] | rank_bit[d] | rank_bit[e]]
        if value:
            return value
        raise _bad_hand(cards)  # a card named twice
    try:
        return _RANKS_27[k >> 16]
    except KeyError:
        raise _bad_hand(cards) from None


def category_of_27(value: int) -> int:
    """The high category a deuce-to-seven value counts as: HIGH_CARD (no pair, no straight, no
    flush: a real low) .. STRAIGHT_FLUSH."""
    if not 0 < value <= _LOW27_TOP:
        raise ValueError(f"{value!r} is not a deuce-to-seven value")
    return category_of(_LOW27_TOP - value)


def describe_deuce_to_seven(value: int) -> str:
    """A deuce-to-seven hand: '7-5-4-3-2' for a hand with no pair, straight or flush (every
    card counts, highest first), else its high name: 'Pair of nines', 'Straight, six high'."""
    high = _LOW27_TOP - value
    if category_of_27(value) != HIGH_CARD:
        return describe_high(high)
    return "-".join(_HIGH_SYMBOLS[r] for r in _nibbles(high))


# ---------------------------------------------------------------------------------------
# Reading values.

_RANK_NAMES: Final[tuple[str, ...]] = (
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "jack",
    "queen",
    "king",
    "ace",
)
_LOW_SYMBOLS: Final = "A23456789TJQK"
_HIGH_SYMBOLS: Final = "23456789TJQKA"


def _plural(rank: int) -> str:
    name = _RANK_NAMES[rank]
    return name + "es" if name == "six" else name + "s"


def category_of(value: int) -> int:
    """Category of a high value: 0 high card .. 8 straight flush (see CATEGORY_NAMES)."""
    category = value >> _CATEGORY_SHIFT
    if not 0 <= category <= STRAIGHT_FLUSH:
        raise ValueError(f"{value!r} is not a high hand value")
    return category


def _nibbles(value: int) -> list[int]:
    return [(value >> shift) & 15 for shift in (16, 12, 8, 4, 0)]


def describe_high(value: int, full: str = "full of") -> str:
    """What a dealer says: 'Full house, kings full of nines', 'Straight, five high'; ``full``
    is the word between a full house's ranks ("over" for a display: 'nines over kings')."""
    category = category_of(value)
    r = _nibbles(value)
    name = CATEGORY_NAMES[category]
    if category == STRAIGHT_FLUSH:
        return "Royal flush" if r[0] == 12 else f"{name}, {_RANK_NAMES[r[0]]} high"
    if category == FOUR_OF_A_KIND:
        return f"{name}, {_plural(r[0])}"
    if category == FULL_HOUSE:
        return f"{name}, {_plural(r[0])} {full} {_plural(r[1])}"
    if category in (FLUSH, STRAIGHT, HIGH_CARD):
        return f"{name}, {_RANK_NAMES[r[0]]} high"
    if category == THREE_OF_A_KIND:
        return f"{name}, {_plural(r[0])}"
    if category == TWO_PAIR:
        return f"{name}, {_plural(r[0])} and {_plural(r[1])}"
    return f"{name} of {_plural(r[0])}"


def describe_low(value: int) -> str:
    """A low value (from evaluate_low8 or evaluate_low_a5) as its five ranks, highest
    first: '8-6-4-2-A', or for razz hands with pairs e.g. '9-9-5-3-A'.
    """
    badness = _LOW_TOP - value
    category = badness >> _CATEGORY_SHIFT
    r = _nibbles(badness)
    repeat = {
        HIGH_CARD: (1, 1, 1, 1, 1),
        PAIR: (2, 1, 1, 1),
        TWO_PAIR: (2, 2, 1),
        THREE_OF_A_KIND: (3, 1, 1),
        FULL_HOUSE: (3, 2),
        FOUR_OF_A_KIND: (4, 1),
    }.get(category)
    if repeat is None or badness < 0:
        raise ValueError(f"{value!r} is not a low hand value")
    ranks: list[int] = []
    for rank, times in zip(r, repeat, strict=False):
        ranks.extend([rank] * times)
    ranks.sort(reverse=True)
    return "-".join(_LOW_SYMBOLS[i] for i in ranks)


def name_low(value: int) -> str:
    """A low as a dealer calls it, by its two highest cards: 'eight-six' for 8-6-4-2-A,
    'five-four' for the wheel."""
    top = describe_low(value).split("-")[:2]
    return "-".join("ace" if s == "A" else _RANK_NAMES[_LOW_SYMBOLS.index(s) - 1] for s in top)


_CLASS_OF: dict[int, int] = {}


def rank_class(value: int) -> int:
    """Position of a high value among the 7,462 distinct five-card hands: 1 is a royal
    flush, 7,462 is 7-5-4-3-2 offsuit (the numbering treys and Cactus Kev use).
    """
    if not _CLASS_OF:
        distinct = set(_RANKS.values())
        distinct.update(v for v in _FLUSHES if v)
        for position, v in enumerate(sorted(distinct, reverse=True), start=1):
            _CLASS_OF[v] = position
    try:
        return _CLASS_OF[value]
    except KeyError:
        raise ValueError(f"{value!r} is not a high hand value") from None
