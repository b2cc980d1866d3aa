"""The engine and its log: every action the procedure gives the rules engine passes here.

Each entry is kept in ``HandProgress.log``, so the betting can be reconstructed (RULES TBL-5) and a
board card corrected after the fact by replaying the log from ``HandProgress.start`` (BOARD-3). A
``Refund`` (BOARD-6) is the one entry the engine does not see: the ledger gives the chips back itself.
"""

from __future__ import annotations

from tablectl.core.cards import Card
from tablectl.core.game.actions import DealBoard
from tablectl.core.game.engine import HandState, apply
from tablectl.core.game.errors import RuleViolation
from tablectl.core.procedure.progress import HandProgress, LogEntry, Refund, Refused, _evolve


def _run(game: HandState, entry: LogEntry) -> HandState:
    if isinstance(entry, Refund):
        stacks = list(game.stacks)
        contributed = list(game.contributed)
        stacks[entry.player] += entry.amount
        contributed[entry.player] -= entry.amount
        return game._replace(stacks=tuple(stacks), contributed=tuple(contributed))
    try:
        return apply(game, entry)
    except RuleViolation as exc:  # the procedure only feeds what it checked: a refusal if this fires
        raise Refused(exc.rule, exc.said) from None


def _apply(hand: HandProgress, entry: LogEntry) -> HandProgress:
    return _evolve(hand, game=_run(hand.game, entry), log=hand.log + (entry,))


def _rebuild(hand: HandProgress, log: tuple[LogEntry, ...]) -> HandProgress:
    """The hand with its betting reconstructed from ``log`` (BOARD-3 corrections)."""
    if hand.start is None:
        raise Refused("INPUT", "this hand has no record to reconstruct from")
    game = hand.start
    for entry in log:
        game = _run(game, entry)
    return _evolve(hand, game=game, log=log)


def _board_entry(hand: HandProgress, card: Card) -> int | None:
    for index, entry in enumerate(hand.log):
        if isinstance(entry, DealBoard) and card in entry.cards:
            return index
    return None
