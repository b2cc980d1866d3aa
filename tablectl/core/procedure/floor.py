"""The floor's rulings on a hand in play: a hand ruled dead (IRR-8, IRR-9), a call short of what
was due when the next round was dealt (BOARD-6).
"""

from __future__ import annotations

from tablectl.core.effects import Applied, Effect, Severity
from tablectl.core.game.actions import Kill
from tablectl.core.game.engine import Phase
from tablectl.core.procedure.flow import _after_game_change, _kill
from tablectl.core.procedure.ledger import _apply
from tablectl.core.procedure.progress import HandProgress, Refund, Refused, _actions_on
from tablectl.core.procedure.rulings import _ruling


def kill_hand(hand: HandProgress, seat: int, rule: str, by: str) -> tuple[HandProgress, tuple[Effect, ...]]:
    """A floor ruling: the hand at ``seat`` is dead."""
    position = hand.position(seat)
    if hand.game.folded[position]:
        raise Refused("INPUT", f"seat {seat} has no live hand")
    if hand.game.phase is Phase.DEALING_HOLE:
        raise Refused("INPUT", f"the deal is not complete: seat {seat}'s hand cannot be killed yet")
    return _kill(hand, position, rule, f"Seat {seat}'s hand is dead by the floor ({by}).")


def short_call(
    hand: HandProgress, seat: int, amount: int, decision: str, by: str
) -> tuple[HandProgress, tuple[Effect, ...]]:
    """BOARD-6, a floor ruling: seat put in ``amount`` too little and let the next round be dealt.

    ``decision`` "make_good": they plainly meant to call, so they put in what is short; the
    controller already counted the call, so its ledger does not change. "dead": they did not call;
    once action is taken on the new round their hand is dead, and the chips they never put in
    are theirs again (the ledger had them in the pot).
    """
    position = hand.position(seat)
    game = hand.game
    if game.folded[position]:
        raise Refused("INPUT", f"seat {seat} has no live hand")
    if game.phase in (Phase.DEALING_HOLE, Phase.COMPLETE) or game.street == 0:
        raise Refused("BOARD-6", "BOARD-6 is about a bet not called before the next round was dealt")
    earlier = game.contributed[position] - game.bets[position]
    if amount <= 0 or amount > earlier:
        raise Refused(
            "BOARD-6",
            f"seat {seat} put {earlier:,} in on earlier rounds: the amount short is 1 to {earlier:,}",
        )
    if decision == "make_good":
        text = (
            f"Seat {seat} plainly meant to call: they put in the {amount:,} short and the hand "
            f"is live (floor: {by})."
        )
        return hand, (_ruling("BOARD-6", text, Severity.CORRECT),)
    if decision != "dead":
        raise Refused("INPUT", "a BOARD-6 ruling decides 'make_good' or 'dead'")
    if not any(_actions_on(hand, s) for s in range(1, game.street + 1)):
        raise Refused(
            "BOARD-6",
            f"no action yet on the new round: seat {seat} may still call the {amount:,} short",
        )
    hand = _apply(hand, Refund(position, amount))
    action = Kill(position, "BOARD-6")
    hand = _apply(hand, action)
    text = (
        f"Seat {seat} did not call and let the next round be dealt: the hand is dead; the {amount:,} "
        f"never put in stays with them (floor: {by})."
    )
    return _after_game_change(hand, [_ruling("BOARD-6", text, Severity.CORRECT), Applied(action)])
