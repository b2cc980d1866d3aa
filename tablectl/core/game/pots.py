"""Pots: side pots, splitting, odd chips and hi/lo halves (POT-1, POT-2, POT-6, POT-9, HO-5)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

from tablectl.core import evaluator
from tablectl.core.game.variants import Game, Ranking

if TYPE_CHECKING:
    from tablectl.core.game.engine import HandState


class Pot(NamedTuple):
    amount: int
    eligible: tuple[int, ...]  # positions that may win it (POT-1)


class Award(NamedTuple):
    """One pot (or one half of a hi/lo pot) and who received how much of it."""

    pot_index: int  # 0 is the main pot, then the side pots in order; -1 chips returned
    half: str  # "all", "high", "low", or "returned" (chips no live hand could win, POT-1)
    amount: int
    shares: tuple[tuple[int, int], ...]  # (position, chips)
    uncontested: bool = False


def side_pots(contributed: Sequence[int], folded: Sequence[bool], dead: int = 0) -> list[Pot]:
    """Split what each player bet into the main pot and side pots (POT-1).

    Each level is the total of an all-in live player (or of the deepest live
    player); folded players' chips count toward the pots they reached. Antes are
    dead money and go to the main pot, which every live hand may win.
    """
    live = tuple([i for i, f in enumerate(folded) if not f])
    live_levels = sorted({contributed[i] for i in live})
    pots: list[Pot] = []
    if dead and live_levels[0] == 0:
        # A player all-in for the ante alone still plays for the antes.
        pots.append(Pot(dead, live))
        dead = 0
    previous = 0
    for level in live_levels:
        if level == 0:
            continue
        # What each player put in between the previous level and this one (min() is slower).
        if previous:
            amount = sum(
                [(c if c < level else level) - (c if c < previous else previous) for c in contributed]
            )
        else:
            amount = sum([c if c < level else level for c in contributed])
        amount += dead
        # Every live hand reached the lowest level; the others, those who put in as much.
        eligible = live if level == live_levels[0] else tuple([i for i in live if contributed[i] >= level])
        dead = 0
        pots.append(Pot(amount, eligible))
        previous = level
    above = sum([c - previous for c in contributed if c > previous])
    if above:
        # A dead hand's chips above every live hand's total stay in the pot (000 misdeals 2).
        if pots:
            pots[-1] = Pot(pots[-1].amount + above, pots[-1].eligible)
        else:
            pots.append(Pot(above, live))
    return pots


def unclaimable(contributed: Sequence[int], folded: Sequence[bool], stacks: Sequence[int]) -> list[int]:
    """Chips each player put in above the deepest live player's total when every live player is
    all-in: no live hand can win them (POT-1: an all-in player wins from each opponent only what
    they put in), so they go back to who put them in (a folded blind facing a short straddle).
    With a live player who still has chips, dead chips stay in the pot (a fouled hand's chips)."""
    live = [i for i, f in enumerate(folded) if not f]
    for i in live:
        if stacks[i] > 0:
            return [0] * len(contributed)
    top = max([contributed[i] for i in live], default=0)
    return [max(0, c - top) for c in contributed]


def split(amount: int, winners: Sequence[int], unit: int) -> list[tuple[int, int]]:
    """Split a pot among tied winners given in order clockwise from the button (POT-6).

    Each gets an equal share in whole chips; the odd chips go one each to the first
    winners clockwise from the button, so nobody receives more than one.
    """
    n = len(winners)
    each = amount // n // unit * unit
    remainder = amount - each * n  # less than one unit per winner
    shares = []
    for player in winners:
        # One odd chip each, in order; an amount below the unit (odd antes) to the next in line.
        extra = min(unit, remainder)
        remainder -= extra
        shares.append((player, each + extra))
    return shares


_OMAHA, _ACE_TO_FIVE, _DEUCE_TO_SEVEN = Ranking.OMAHA, Ranking.ACE_TO_FIVE, Ranking.DEUCE_TO_SEVEN


def hand_values(game: Game, hole: Sequence[int], board: Sequence[int]) -> tuple[int, int | None]:
    """A hand's value by its game's ranking, higher better, and its eight-or-better low (None: none,
    or not a hi/lo game): deuce-to-seven (DRAW-9) and razz (STUD-16) are lows valued as the one half."""
    ranking = game.ranking
    if ranking is _DEUCE_TO_SEVEN:  # DRAW-9
        return evaluator.evaluate_low_27(tuple(hole) + tuple(board)), None
    if ranking is _OMAHA:
        high = evaluator.evaluate_omaha_high(hole, board)
        low = evaluator.evaluate_omaha_low8(hole, board) if game.hi_lo else None
    elif ranking is _ACE_TO_FIVE:  # razz: the best low takes the pot (STUD-16)
        high, low = evaluator.evaluate_low_a5(tuple(hole) + tuple(board)), None
    else:
        cards = tuple(hole) + tuple(board)
        high = evaluator.evaluate_high(cards)
        low = evaluator.evaluate_low8(cards) if game.hi_lo else None
    return high, low


def _high_card_showing(up: Sequence[int], ace_low: bool) -> int:
    """The highest up card by rank then suit (clubs lowest), aces low in razz (HO-1, HO-5)."""
    if ace_low:
        return max(((c >> 2) + 1) % 13 * 4 + (c & 3) for c in up) if up else -1
    return max(up, default=-1)


def _one_pot(contributed: tuple[int, ...], folded: tuple[bool, ...]) -> int:
    """The chips put in, when they make one pot that every live hand may win (each live hand put in
    the same, more than nothing, and nobody put in more): what side_pots and unclaimable would
    work out, without them. Otherwise -1: side pots, or chips to return."""
    level = -1
    total = 0
    for j in range(len(contributed)):
        chips = contributed[j]
        total += chips
        if not folded[j]:
            if level < 0:
                level = chips
            elif chips != level:
                return -1
    if level <= 0:
        return -1
    for chips in contributed:
        if chips > level:
            return -1
    return total


def award_pots(state: HandState) -> tuple[Award, ...]:
    """Award every pot: to the last live hand, or to the best shown hands (POT-4, POT-6, POT-9)."""
    config = state.config
    unit = config.chip_unit
    game = config.variant.game
    folded = state.folded
    live = [i for i, out in enumerate(folded) if not out]
    refunds: tuple[Award, ...] = ()
    one_pot = _one_pot(state.contributed, folded)
    pots: list[tuple[int, tuple[int, ...]]]  # (amount, eligible): Pots, or the one pot as a pair
    if one_pot >= 0:
        # The usual pot (nobody all-in for less): one, with the antes posted for the table.
        amount = one_pot + state.dead
        if len(live) == 1:
            return (Award(0, "all", amount, ((live[0], amount),), uncontested=True),)
        pots = [(amount, tuple(live))]
    else:
        returned = unclaimable(state.contributed, folded, state.stacks)
        contributed: Sequence[int] = state.contributed
        if any(returned):
            contributed = [c - r for c, r in zip(state.contributed, returned, strict=True)]
            refunds = tuple(Award(-1, "returned", r, ((p, r),), True) for p, r in enumerate(returned) if r)
        side = side_pots(contributed, folded, state.dead)
        if len(live) == 1:
            total = sum([p.amount for p in side])
            return (Award(0, "all", total, ((live[0], total),), uncontested=True), *refunds)
        pots = list(side)
    shown = state.shown
    board = state.board
    values = {i: hand_values(game, state.hole[i], board) for i in live if shown[i] is not None}
    hi_lo = game.hi_lo
    awards: list[Award] = []
    for index, (amount, eligible) in enumerate(pots):
        contenders = [i for i in eligible if i in values]
        if not contenders:
            # Nobody eligible showed: the pot goes to the eligible hands not mucked (cards speak for
            # a hand that was never thrown away), or if all were mucked, is split among them.
            standing = [i for i in eligible if not state.mucked[i]] or list(eligible)
            awards.append(Award(index, "all", amount, tuple(split(amount, standing, unit)), True))
            continue
        # The best high and who holds it: loops (max() and zip(strict=True) are generic calls,
        # compiled; these are not).
        best_high = values[contenders[0]][0]
        for i in contenders:
            if values[i][0] > best_high:
                best_high = values[i][0]
        high_winners = [i for i in contenders if values[i][0] == best_high]
        if not game.has_button and len(high_winners) > 1:
            high_winners = _by_high_card_showing(high_winners, state, live)
        lows = [low for i in contenders if (low := values[i][1]) is not None] if hi_lo else []
        if lows:
            best_low = max(lows)
            low_winners = [i for i in contenders if values[i][1] == best_low]
            if not game.has_button and len(low_winners) > 1:
                low_winners = _by_high_card_showing(low_winners, state, live)
            low_amount = amount // 2 // unit * unit  # the odd chip goes to the high half
            high_amount = amount - low_amount
            awards.append(Award(index, "high", high_amount, tuple(split(high_amount, high_winners, unit))))
            awards.append(Award(index, "low", low_amount, tuple(split(low_amount, low_winners, unit))))
        else:
            awards.append(Award(index, "all", amount, tuple(split(amount, high_winners, unit))))
    return (*awards, *refunds)


def _by_high_card_showing(winners: list[int], state: HandState, live: list[int]) -> list[int]:
    """HO-5: without a button the odd chip goes to the high card by suit showing: the tied
    winners in the order of the live hands' highest up cards."""
    ace_low = state.config.variant.game.ranking is Ranking.ACE_TO_FIVE
    order = sorted(live, key=lambda p: _high_card_showing(state.up[p], ace_low), reverse=True)
    rank_of_player = {p: k for k, p in enumerate(order)}
    return sorted(winners, key=rank_of_player.__getitem__)
