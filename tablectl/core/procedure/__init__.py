"""The dealing procedure (layer 3): physical card movements onto the game, with rulings.

``step_hand(hand, event, rules)`` follows the deal card by card: which seat gets
the next card, when a burn is due, when the board may come. It detects the
irregularities and misdeals of RULES DEAL, MD, IRR and BOARD and answers with
rulings that cite their id and tell the dealer what to do now. Pure: no clock,
no I/O; a refused event raises :class:`Refused` and the caller keeps the hand it had.

Two devices tell the procedure what happens. The shoe says which card left it, in
order: the procedure assumes the proper sequence (the next hole card to the next
seat, a burn before each board round) and assigns every card accordingly. The
camera says where a card landed (a seat, the board, the burn pile, the muck): where
that contradicts the assumed sequence, the procedure rules (a card to the wrong
seat, a missed or a second burn, too many cards on the flop) and, where the rules
keep the hand going, corrects its own picture to the cards as they lie. A dealer's
screen may send the same ``CardSeen`` events by hand when no camera watches.

Every action given to the rules engine is kept in ``HandProgress.log``, so that the
betting can be reconstructed (RULES TBL-5) and a board card corrected after the
fact (BOARD-3) by replaying the log from ``HandProgress.start``.

Positions are the engine's (0 = first seat left of the button); events name
seats as numbered on the felt (1..N); ``HandProgress.seats_in`` maps one to the other.

The package follows the procedure's parts, each module knowing only those before it:
``progress`` (the hand and where the deal stands), ``prompts``, ``ledger`` (the engine
and its log), ``rulings``, ``flow`` (after the game changes), then one module for each
source of events: ``drawn`` (the shoe), ``seen`` (the camera), ``keyed`` (the dealer's
panel), and ``floor`` (the floor's rulings). This module dispatches on the event.
"""

from __future__ import annotations

from tablectl.core.effects import Effect
from tablectl.core.events import CardDrawn, CardSeen, DealerInput, DealerKey
from tablectl.core.game.profiles import HouseRules
from tablectl.core.procedure.drawn import _card_drawn
from tablectl.core.procedure.floor import kill_hand, short_call
from tablectl.core.procedure.keyed import _dealer_input
from tablectl.core.procedure.progress import (
    HandProgress,
    LogEntry,
    Pending,
    Refund,
    Refused,
    deal_complete,
    hole_cards_wanted,
    misdeal_allowed,
    new_hand,
    next_hole_position,
    showing,
)
from tablectl.core.procedure.prompts import prompt_for
from tablectl.core.procedure.seen import _card_seen
from tablectl.core.sentences import sentence

__all__ = [
    "HandProgress",
    "LogEntry",
    "Pending",
    "Refund",
    "Refused",
    "deal_complete",
    "hole_cards_wanted",
    "kill_hand",
    "misdeal_allowed",
    "new_hand",
    "next_hole_position",
    "prompt_for",
    "short_call",
    "showing",
    "step_hand",
]


def step_hand(
    hand: HandProgress, event: CardDrawn | CardSeen | DealerInput, rules: HouseRules
) -> tuple[HandProgress, tuple[Effect, ...]]:
    """Apply one physical event to the hand. Raises :class:`Refused` for input that makes no sense."""
    if hand.pending is not None and not (isinstance(event, DealerInput) and event.key is DealerKey.CONFIRM):
        if isinstance(event, CardSeen):
            return hand, ()  # the camera sees the cards being gathered: nothing to rule on
        if isinstance(event, CardDrawn) and hand.pending.kind == "reshuffle":
            raise Refused(hand.pending.rule, sentence("confirm the reshuffle first: ", hand.pending.said))
        raise Refused(hand.pending.rule, sentence("waiting for confirm: ", hand.pending.said))
    if isinstance(event, CardDrawn):
        return _card_drawn(hand, event, rules)
    if isinstance(event, CardSeen):
        return _card_seen(hand, event, rules)
    return _dealer_input(hand, event, rules)
