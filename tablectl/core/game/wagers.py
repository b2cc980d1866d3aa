"""Reading chips put forward into an action (BET-10, BET-12, BET-13).

The dealer's panel reports what the player put in (and whether it was one
chip, and what they said); the rules say what that means. Pure.
"""

from __future__ import annotations

from dataclasses import dataclass

from tablectl.core.game.actions import BetRaise, BringIn, CheckCall
from tablectl.core.game.engine import HandState, legal
from tablectl.core.game.errors import RuleViolation
from tablectl.core.game.variants import Structure


@dataclass(frozen=True, slots=True)
class Reading:
    action: CheckCall | BetRaise | BringIn
    rule: str | None = None  # the rule that changed what the chips alone would say
    note: str = ""  # one sentence for the dealer


def read_wager(
    state: HandState,
    player: int,
    chips_in: int,
    single_chip: bool = False,
    declared_raise: bool = False,
) -> Reading:
    """What ``chips_in`` (the player's total for this round) means as an action."""
    options = legal(state)
    if options is None or options.player != player:
        raise RuleViolation("BET-14", f"it is not position {player}'s turn to act")
    if chips_in < 0:
        raise RuleViolation("INPUT", "chips put in cannot be negative")
    if options.bring_in:
        return _read_bring_in(
            player, chips_in, options.bring_in, options.min_raise_to if options.can_raise else 0
        )
    bet = state.bets[player]
    all_in_to = bet + state.stacks[player]
    to = min(chips_in, all_in_to)
    call_to = bet + options.call_amount
    if to < call_to:
        return Reading(
            CheckCall(player), "BET-13", f"Short call: bring it up to {call_to:,} (a call must be made good)."
        )
    if to == call_to or not options.can_raise:
        if to > call_to:
            # The engine's reason, for the dealer to say why (BET-5, BET-6, BET-17, STUD-12 ...).
            rule, _, why = options.why_no_raise.partition(":")
            because = f" ({why.strip()})" if why.strip() else ""
            what = "call" if options.call_amount else "check"
            note = f"No raise is allowed now{because}: it is a {what}; return the excess."
            return Reading(CheckCall(player), rule, note)
        return Reading(CheckCall(player))
    facing_bet = state.high_bet > bet
    if single_chip and not declared_raise and facing_bet:
        return Reading(
            CheckCall(player), "BET-12", "One oversized chip without comment is a call; give change."
        )
    pot_limit = state.config.variant.structure is Structure.POT_LIMIT
    if single_chip and not declared_raise and pot_limit and to > options.max_raise_to:
        pot_bet = options.max_raise_to
        return Reading(
            BetRaise(player, pot_bet),
            "BET-10",
            f"A chip larger than the pot is a pot-sized bet: {pot_bet:,}.",
        )
    deepest = max(
        (state.bets[j] + state.stacks[j] for j in range(state.n) if j != player and not state.folded[j]),
        default=0,
    )
    if state.high_bet and state.high_bet < to == deepest < options.min_raise_to:
        # POT-2: raising to all the deepest opponent can call stands for the full raise (the engine's
        # reading too); it is not a short raise to be read as a call.
        return Reading(BetRaise(player, to))
    if to < options.min_raise_to and to < all_in_to:
        if declared_raise or state.high_bet == 0:
            return Reading(
                BetRaise(player, options.min_raise_to),
                "BET-13",
                f"Below the minimum: the wager is brought up to {options.min_raise_to:,}, no more.",
            )
        # 002 unclear bet: half or more of the raise needed makes it a raise, less is a call.
        needed = options.min_raise_to - state.high_bet
        excess = to - state.high_bet
        if 2 * excess >= needed and not (2 * excess == needed and excess <= state.config.chip_unit):
            return Reading(
                BetRaise(player, options.min_raise_to),
                "BET-13",
                f"Half a raise or more: it is a raise, made up to {options.min_raise_to:,}.",
            )
        return Reading(
            CheckCall(player), "BET-13", "Less than half a raise: it is a call; return the excess."
        )
    if to > options.max_raise_to:
        return Reading(
            BetRaise(player, options.max_raise_to),
            "BET-10",
            f"Over the limit: the wager is reduced to {options.max_raise_to:,}.",
        )
    return Reading(BetRaise(player, to))


def _read_bring_in(player: int, chips_in: int, owed: int, complete: int) -> Reading:
    """STUD-5, STUD-6: the bring-in player puts in the bring-in or a full small bet; anything
    else is brought up or down to the nearer of the two it reaches (BET-13)."""
    if complete and chips_in >= complete:
        if chips_in > complete:
            return Reading(
                BetRaise(player, complete), "STUD-6", f"A completion is to {complete:,}: return the excess."
            )
        return Reading(BetRaise(player, complete))
    if chips_in < owed:
        return Reading(BringIn(player), "BET-13", f"Short bring-in: bring it up to {owed:,}.")
    if chips_in > owed:
        return Reading(
            BringIn(player), "STUD-6", f"Less than a full bet is the bring-in of {owed:,}: return the excess."
        )
    return Reading(BringIn(player))
