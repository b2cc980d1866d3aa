"""The showdown as the table display tells it: the hands shown, each pot's winner, the winning hand
named in words, the chips pushed to each winner; and the last betting action.

Only cards face up are read: the board and the hands shown at the showdown (a pot won without
a showdown names no hand), so nothing here can name a hole card that was not shown.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from tablectl.core import evaluator
from tablectl.core.cards import card_str
from tablectl.core.game.actions import UNKNOWN_CARD
from tablectl.core.game.engine import HandState, Phase
from tablectl.core.game.pots import Award, hand_values
from tablectl.core.game.variants import Ranking
from tablectl.core.procedure import HandProgress
from tablectl.core.table import TableState

_POT_NAMES = ("the main pot",)


def _pot_name(index: int) -> str:
    if index < 0:
        return "chips returned"
    return _POT_NAMES[index] if index < len(_POT_NAMES) else f"side pot {index}"


class HandInWords(NamedTuple):
    """A hand shown, for the displays and the narration: its (high, or only) hand in words and,
    in a hi/lo game, its eight-or-better low's value (None: no low)."""

    words: str
    low: int | None


def hand_in_words(game: HandState, cards: tuple[int, ...], full: str = "full of") -> HandInWords | None:
    """``cards`` with the board as the game ranks them: "Full house, nines over kings" (``full``
    between a full house's ranks), razz "Low 7-5-4-2-A", deuce-to-seven "7-5-4-3-2" or "Pair of
    nines"; None when it cannot be valued (a card unknown, too few cards)."""
    board = tuple(game.board)
    if UNKNOWN_CARD in cards or UNKNOWN_CARD in board:
        return None
    variant = game.config.variant.game
    try:
        value, low = hand_values(variant, cards, board)  # as the pots are awarded
    except ValueError:
        return None
    if variant.ranking is Ranking.ACE_TO_FIVE:
        return HandInWords(f"Low {evaluator.describe_low(value)}", None)
    if variant.ranking is Ranking.DEUCE_TO_SEVEN:
        return HandInWords(evaluator.describe_deuce_to_seven(value), None)
    return HandInWords(evaluator.describe_high(value, full=full), low)


def winning_hand(game: HandState, award: Award) -> str | None:
    """The hand that won ``award`` in words ("Full house, nines over kings"; "Low: eight-six"),
    from its winner's cards shown; None when no hand was shown for it."""
    if award.uncontested or award.half == "returned" or not award.shares:
        return None
    shown = game.shown[award.shares[0][0]]
    if shown is None:
        return None
    hand = hand_in_words(game, tuple(shown), full="over")
    if hand is None:
        return None
    if award.half == "low":
        return f"Low: {evaluator.name_low(hand.low)}" if hand.low is not None else None
    return hand.words


def result(state: TableState) -> dict[str, Any] | None:
    """Between hands: how the hand just played out ended, for the table display (None when
    no hand was played to its end since the last deal: a misdeal or void hand has no result)."""
    hand = state.last_hand
    if state.hand is not None or hand is None or hand.game.phase is not Phase.COMPLETE:
        return None
    return hand_result(hand)


def hand_result(hand: HandProgress) -> dict[str, Any]:
    game = hand.game
    awards = []
    pushed: dict[int, int] = {}
    for award in game.awards:
        if award.half == "returned":
            continue  # chips no hand could win, back to who bet them (POT-1): no pot, no winner
        seats = [hand.seat(position) for position, _ in award.shares]
        for position, chips in award.shares:
            pushed[hand.seat(position)] = pushed.get(hand.seat(position), 0) + chips
        awards.append(
            {
                "pot": award.pot_index,
                "pot_name": _pot_name(award.pot_index),
                "half": award.half,
                "amount": award.amount,
                "seats": seats,
                "hand": winning_hand(game, award),
            }
        )
    shown = {
        str(hand.seat(position)): [card_str(c) for c in cards if c != UNKNOWN_CARD]
        for position, cards in enumerate(game.shown)
        if cards is not None
    }
    return {
        "hand": hand.number,
        "board": [card_str(c) for c in game.board if c != UNKNOWN_CARD],
        "shown": shown,
        "awards": awards,
        "pushed": [{"seat": seat, "chips": chips} for seat, chips in sorted(pushed.items())],
    }


def last_action(hand: HandProgress | None, names: dict[int, str]) -> dict[str, Any] | None:
    """The hand's last betting action: seat, verb, amount, all in, and a line to show."""
    if hand is None or hand.last_action is None:
        return None
    last = hand.last_action
    seat = hand.seat(last.player)
    who = f"Seat {seat}" + (f" ({names[seat]})" if seat in names else "")
    words = {
        "fold": "folds",
        "check": "checks",
        "call": "calls",
        "bet": "bets",
        "raise": "raises to",
        "dead": "has a dead hand",
    }[last.verb]
    text = f"{who} {words}" + (f" {last.amount:,}" if last.verb in ("call", "bet", "raise") else "")
    if last.all_in:
        text += ", all in"
    return {"seat": seat, "action": last.verb, "amount": last.amount, "all_in": last.all_in, "text": text}
