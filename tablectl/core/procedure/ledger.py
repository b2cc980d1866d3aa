"""The engine and its log: every action the procedure gives the rules engine passes here.

Each entry is kept in ``HandProgress.log``, so the betting can be reconstructed (RULES TBL-5) and a
board card corrected after the fact by replaying the log from ``HandProgress.start`` (BOARD-3). A
``Refund`` (BOARD-6), ``Forfeit`` (DRAW-6) and ``FirstToAct`` (STUD-10) are the entries the engine
does not see: the ledger moves the chips, or the turn, itself.
"""

from __future__ import annotations

from dataclasses import replace

from tablectl.core.cards import Card
from tablectl.core.game.actions import BetRaise, BringIn, CheckCall, DealBoard, Fold, Kill
from tablectl.core.game.engine import HandState, apply, call_cost
from tablectl.core.game.errors import RuleViolation
from tablectl.core.procedure.progress import (
    FirstToAct,
    Forfeit,
    HandProgress,
    LastAction,
    LogEntry,
    Refund,
    Refused,
    _evolve,
)


def run_entry(game: HandState, entry: LogEntry) -> HandState:
    """One log entry onto the engine's state: an action through the engine, and the entries it never
    sees (FirstToAct, Refund, Forfeit) as the ledger applies them (for a replay that must agree)."""
    if isinstance(entry, FirstToAct):
        return replace(game, actor=entry.player, opener=entry.player)
    if isinstance(entry, (Refund, Forfeit)):
        back = entry.amount if isinstance(entry, Refund) else -entry.amount
        stacks = list(game.stacks)
        contributed = list(game.contributed)
        stacks[entry.player] += back
        contributed[entry.player] -= back
        return replace(game, stacks=tuple(stacks), contributed=tuple(contributed))
    return apply(game, entry)


def _run(game: HandState, entry: LogEntry) -> HandState:
    try:
        return run_entry(game, entry)
    except RuleViolation as exc:  # the procedure only feeds what it checked: a refusal if this fires
        raise Refused(exc.rule, exc.said) from None


def _apply(hand: HandProgress, entry: LogEntry) -> HandProgress:
    game = _run(hand.game, entry)
    last = _last_action(hand.game, game, entry)
    if last is None:
        return _evolve(hand, game=game, log=hand.log + (entry,))
    return _evolve(hand, game=game, log=hand.log + (entry,), last_action=last)


def _apply_bet(hand: HandProgress, action: BetRaise | CheckCall | Fold | BringIn) -> HandProgress:
    """A betting action in turn given to the engine. A bring-in is a forced bet like a blind (HO-6);
    any other counts toward the misdeal cut-off (MD-1) and the street's actions (BOARD-3, BOARD-6)."""
    game = hand.game
    position = action.player
    call_amount = call_cost(game, position)
    after = _run(game, action)
    if isinstance(action, BringIn):
        return _evolve(hand, game=after, log=hand.log + (action,))
    chips_in = after.stacks[position] < game.stacks[position] or (
        isinstance(action, CheckCall) and call_amount > 0
    )
    hand = _counted(hand, game.street, position, chips_in)
    return _evolve(hand, game=after, log=hand.log + (action,), last_action=_last_action(game, after, action))


def _counted(hand: HandProgress, street: int, position: int, chips_in: bool) -> HandProgress:
    """One voluntary action by ``position`` on ``street``: toward the misdeal cut-off (MD-1; a draw
    declared counts, DRAW-6) and the street's actions (BOARD-3, BOARD-6, STUD-13, DRAW-7)."""
    street_actions = list(hand.street_actions)
    street_actions[street] += 1
    return _evolve(
        hand,
        actions=hand.actions + 1,
        chip_actions=hand.chip_actions + (1 if chips_in else 0),
        acted=hand.acted if position in hand.acted else hand.acted + (position,),
        street_actions=tuple(street_actions),
    )


def _last_action(before: HandState, after: HandState, entry: LogEntry) -> LastAction | None:
    """What ``entry`` was, in the words of a display (None: not a betting action)."""
    if isinstance(entry, Fold):
        return LastAction(entry.player, "fold")
    if isinstance(entry, Kill):
        return LastAction(entry.player, "dead")
    if isinstance(entry, CheckCall):
        player = entry.player
        if before.bets[player] >= before.high_bet:
            return LastAction(player, "check")
        amount = min(before.high_bet, before.bets[player] + before.stacks[player])
        return LastAction(player, "call", amount, after.stacks[player] == 0)
    if isinstance(entry, BetRaise):
        verb = "raise" if before.high_bet > 0 else "bet"
        return LastAction(entry.player, verb, entry.to, after.stacks[entry.player] == 0)
    return None


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
