"""Pots: side pots, splitting, odd chips and hi/lo halves (POT-1, POT-2, POT-6, POT-9)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tablectl import evaluator
from tablectl.game.variants import Ranking

if TYPE_CHECKING:
    from tablectl.game.engine import HandState


@dataclass(frozen=True, slots=True)
class Pot:
    amount: int
    eligible: tuple[int, ...]  # positions that may win it (POT-1)


@dataclass(frozen=True, slots=True)
class Award:
    """One pot (or one half of a hi/lo pot) and who received how much of it."""

    pot_index: int  # 0 is the main pot, then the side pots in order
    half: str  # "all", "high" or "low"
    amount: int
    shares: tuple[tuple[int, int], ...]  # (position, chips)
    uncontested: bool = False


def side_pots(contributed: Sequence[int], folded: Sequence[bool], dead: int = 0) -> list[Pot]:
    """Split what each player bet into the main pot and side pots (POT-1).

    Each level is the total of an all-in live player (or of the deepest live
    player); folded players' chips count toward the pots they reached. Antes are
    dead money and go to the main pot, which every live hand may win.
    """
    live_levels = sorted({c for c, f in zip(contributed, folded, strict=True) if not f and c > 0})
    pots: list[Pot] = []
    previous = 0
    for level in live_levels:
        amount = sum(min(c, level) - min(c, previous) for c in contributed)
        eligible = tuple(
            i for i, (c, f) in enumerate(zip(contributed, folded, strict=True)) if not f and c >= level
        )
        if not pots:
            amount += dead
        if amount:
            pots.append(Pot(amount, eligible))
        previous = level
    leftover = sum(c - min(c, previous) for c in contributed)
    if leftover:
        # Dead chips above every live player's level (cannot happen once uncalled bets are
        # returned); they still belong to the deepest pot rather than vanishing.
        if pots:
            pots[-1] = Pot(pots[-1].amount + leftover, pots[-1].eligible)
        else:
            pots.append(Pot(leftover, tuple(i for i, f in enumerate(folded) if not f)))
    if not pots and dead:
        pots.append(Pot(dead, tuple(i for i, f in enumerate(folded) if not f)))
    return pots


def split(amount: int, winners: Sequence[int], unit: int) -> list[tuple[int, int]]:
    """Split a pot among tied winners given in order clockwise from the button (POT-6).

    Each gets an equal share in whole chips; the odd chips go one each to the first
    winners clockwise from the button, so nobody receives more than one.
    """
    n = len(winners)
    each = amount // n // unit * unit
    remainder = amount - each * n
    shares = []
    for k, player in enumerate(winners):
        extra = 0
        if remainder >= unit:
            extra = unit
        elif remainder > 0 and k == 0:
            extra = remainder  # chips smaller than the unit (an odd ante): to the first hand
        remainder -= extra
        shares.append((player, each + extra))
    if remainder:
        player, chips = shares[0]
        shares[0] = (player, chips + remainder)
    return shares


def _hand_values(state: HandState, player: int) -> tuple[int, int | None]:
    game = state.config.variant.game
    hole = state.hole[player]
    board = state.board
    if game.ranking is Ranking.OMAHA:
        high = evaluator.evaluate_omaha_high(hole, board)
        low = evaluator.evaluate_omaha_low8(hole, board) if game.hi_lo else None
    else:
        cards = tuple(hole) + tuple(board)
        high = evaluator.evaluate_high(cards)
        low = evaluator.evaluate_low8(cards) if game.hi_lo else None
    return high, low


def award_pots(state: HandState) -> tuple[Award, ...]:
    """Award every pot: to the last live hand, or to the best shown hands (POT-4, POT-6, POT-9)."""
    unit = state.config.chip_unit
    pots = side_pots(state.contributed, state.folded, state.dead)
    live = state.live
    if len(live) == 1:
        total = sum(p.amount for p in pots)
        return (Award(0, "all", total, ((live[0], total),), uncontested=True),)
    shown = [i for i in live if state.shown[i] is not None]
    values = {i: _hand_values(state, i) for i in shown}
    hi_lo = state.config.variant.game.hi_lo
    awards: list[Award] = []
    for index, pot in enumerate(pots):
        contenders = [i for i in pot.eligible if i in values]
        if not contenders:
            # Nobody eligible showed: the pot goes to the eligible hands not mucked (cards speak for
            # a hand that was never thrown away), or if all were mucked, is split among them.
            standing = [i for i in pot.eligible if not state.mucked[i]] or list(pot.eligible)
            awards.append(Award(index, "all", pot.amount, tuple(split(pot.amount, standing, unit)), True))
            continue
        best_high = max(values[i][0] for i in contenders)
        high_winners = [i for i in contenders if values[i][0] == best_high]
        lows = [values[i][1] for i in contenders if values[i][1] is not None]
        if hi_lo and lows:
            best_low = max(v for v in lows if v is not None)
            low_winners = [i for i in contenders if values[i][1] == best_low]
            low_amount = pot.amount // 2 // unit * unit  # the odd chip goes to the high half
            high_amount = pot.amount - low_amount
            awards.append(Award(index, "high", high_amount, tuple(split(high_amount, high_winners, unit))))
            awards.append(Award(index, "low", low_amount, tuple(split(low_amount, low_winners, unit))))
        else:
            awards.append(Award(index, "all", pot.amount, tuple(split(pot.amount, high_winners, unit))))
    return tuple(awards)
