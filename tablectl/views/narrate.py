"""What happened, in the words a dealer uses: one line per action, ruling and pot.

Pure: it reads the states before and after an action and says what changed.
"""

from __future__ import annotations

from collections.abc import Sequence

from tablectl.core import evaluator
from tablectl.core.cards import Card, cards_str
from tablectl.core.game.actions import (
    Action,
    BetRaise,
    BringIn,
    CheckCall,
    DealBoard,
    DealHole,
    Discard,
    Fold,
    Show,
)
from tablectl.core.game.engine import HandState, Phase
from tablectl.core.game.errors import RuleViolation
from tablectl.core.game.variants import Structure
from tablectl.views.showdown import hand_in_words


def position_names(n: int, blinds: int) -> list[str]:
    """SB, BB, STR, UTG, ..., CO, BTN for n players (heads-up: BB then BTN/SB)."""
    if n == 2:
        return ["BB", "BTN/SB"]
    names = ["SB", "BB", "STR"][:blinds] if blinds else []
    rest = n - len(names)
    tail = ["BTN", "CO", "HJ", "LJ"][:rest][::-1]
    middle = [f"UTG+{k}" if k else "UTG" for k in range(rest - len(tail))]
    return names + middle + tail


def with_positions(names: Sequence[str], blinds: int, has_button: bool) -> list[str]:
    """Players' names with their seats' positions ("Ann (SB)") in a button game; stud has no
    button and no positions (the bring-in and the up cards decide, STUD-5): the names alone."""
    if not has_button:
        return list(names)
    labels = position_names(len(names), blinds)
    return [f"{name} ({label})" for name, label in zip(names, labels, strict=True)]


def chips(amount: int) -> str:
    return f"{amount:,}"


def cards_text(cards: Sequence[Card]) -> str:
    return cards_str((c for c in cards if c >= 0), " ") if cards else ""


def describe_hand(state: HandState, player: int) -> str:
    """The player's hand shown, in words: "Pair of jacks", "Flush, ace high; low 8-6-4-2-A",
    razz "Low 7-5-4-2-A"; "" when it cannot be valued."""
    hand = hand_in_words(state, tuple(state.hole[player]))
    if hand is None:
        return ""
    return hand.words + (f"; low {evaluator.describe_low(hand.low)}" if hand.low is not None else "")


class Narrator:
    def __init__(self, names: Sequence[str]) -> None:
        self.names = list(names)

    def who(self, player: int) -> str:
        return self.names[player]

    def opening(self, state: HandState) -> list[str]:
        cfg = state.config
        lines = []
        if cfg.variant.structure is Structure.FIXED_LIMIT:
            stakes = f"{chips(cfg.small_bet)}/{chips(cfg.big_bet)}"
        else:
            stakes = "/".join(chips(b) for b in cfg.blinds)
        if cfg.bring_in:  # stud: an ante each, no blinds
            ante = max(cfg.antes, default=0)
            stakes += (f", ante {chips(ante)}" if ante else "") + f", bring-in {chips(cfg.bring_in)}"
        name = cfg.variant.name
        lines.append(f"{name[:1].upper()}{name[1:]}, {stakes}, {state.n} players")
        for p in range(state.n):
            lines.append(f"  {self.who(p)}: {chips(cfg.starting_stacks[p])}")
        if state.dead:
            lines.append(f"  Antes: {chips(state.dead)}")
        for k, _blind in enumerate(cfg.blinds):
            p = cfg.forced_position(k)
            kind = ("small blind", "big blind", "straddle")[min(k, 2)]
            posted = state.bets[p]
            short = ", all-in" if state.stacks[p] == 0 else ""
            lines.append(f"  {self.who(p)} posts the {kind} {chips(posted)}{short}")
        return lines

    def refused(self, error: RuleViolation) -> str:
        return f"  RULING {error.rule}: refused: {error.message}"

    def holding(self, state: HandState, player: int) -> str:
        """A player's cards: stud's down cards in brackets before the up cards."""
        if not state.up:
            return cards_text(state.hole[player])
        up = state.up[player]
        down = [c for c in state.hole[player] if c not in up]
        return f"[{cards_text(down)}] {cards_text(up)}".strip()

    def step(self, before: HandState, action: Action, after: HandState) -> list[str]:
        lines: list[str] = []
        game = before.config.variant.game
        if isinstance(action, DealHole):
            dealt_in = before.phase in (Phase.DEALING_HOLE, Phase.DRAWING)
            if dealt_in and after.phase is not before.phase:
                # The first deal, a stud street or a draw's replacements are all out.
                players = [p for p in range(after.n) if not after.folded[p]]
                dealt = ", ".join(f"{self.who(p)} {self.holding(after, p)}" for p in players)
                if game.has_draws and before.phase is Phase.DRAWING:
                    title = f"After the {game.streets[before.street].name}"
                elif game.has_button:
                    title = "Hole cards"
                else:
                    title = game.streets[before.street].name.capitalize()
                lines.append(f"{title}: {dealt}")
        elif isinstance(action, Discard):
            count = len(action.cards)
            thrown = cards_text(action.cards)
            lines.append(
                f"  {self.who(action.player)} "
                + (f"discards {count}" + (f" ({thrown})" if thrown else "") if count else "stands pat")
            )
        elif isinstance(action, BringIn):
            paid = after.bets[action.player] - before.bets[action.player]
            lines.append(f"  {self.who(action.player)} brings in {chips(paid)}   (pot {chips(after.pot)})")
        elif isinstance(action, DealBoard):
            if not after.board_needed:
                street = before.config.variant.game.streets[before.street].name.capitalize()
                lines.append(f"{street}: {cards_text(after.board)}   (pot {chips(after.pot)})")
        elif isinstance(action, (Fold, CheckCall, BetRaise)):
            lines.append("  " + self._betting(before, action, after))
        elif isinstance(action, Show):
            if action.mucks:
                lines.append(f"  {self.who(action.player)} mucks")
            else:
                hand = describe_hand(after, action.player)
                lines.append(
                    f"  {self.who(action.player)} shows {cards_text(action.cards or ())}"
                    + (f": {hand}" if hand else "")
                )
        lines.extend(self._returned(before, after))
        if after.phase is Phase.COMPLETE and before.phase is not Phase.COMPLETE:
            lines.extend(self.result(after))
        return lines

    def _betting(self, before: HandState, action: Fold | CheckCall | BetRaise, after: HandState) -> str:
        p = action.player
        who = self.who(p)
        all_in = " and is all-in" if after.stacks[p] == 0 and before.stacks[p] > 0 else ""
        if isinstance(action, Fold):
            return f"{who} folds"
        if isinstance(action, CheckCall):
            paid = (
                before.stacks[p] - after.stacks[p]
                if after.phase is Phase.BETTING
                else (before.high_bet - before.bets[p])
            )
            if before.high_bet == before.bets[p]:
                return f"{who} checks"
            return f"{who} calls {chips(min(paid, before.stacks[p]))}{all_in}   (pot {chips(after.pot)})"
        if before.bringing_in or 0 < before.high_bet <= before.config.bring_in:
            verb = "completes to"  # STUD-6: the bring-in made a full bet, not a raise
        else:
            verb = "raises to" if before.high_bet else "bets"
        return f"{who} {verb} {chips(action.to)}{all_in}   (pot {chips(after.pot)})"

    def _returned(self, before: HandState, after: HandState) -> list[str]:
        lines = []
        for p in range(before.n):
            back = before.contributed[p] - after.contributed[p]
            if back > 0:
                lines.append(f"  Uncalled bet of {chips(back)} returned to {self.who(p)} (POT-2)")
        return lines

    def result(self, state: HandState) -> list[str]:
        lines = []
        pots = {a.pot_index for a in state.awards if a.pot_index >= 0}
        for award in state.awards:
            if award.half == "returned":
                ((player, amount),) = award.shares
                who = self.who(player)
                lines.append(f"  {chips(amount)} returned to {who}: no live hand could win it (POT-1)")
                continue
            name = (
                "the pot"
                if len(pots) == 1
                else ("the main pot" if award.pot_index == 0 else f"side pot {award.pot_index}")
            )
            half = {"high": " (high half)", "low": " (low half)"}.get(award.half, "")
            winners = " and ".join(f"{self.who(p)} {chips(c)}" for p, c in award.shares)
            how = " uncontested" if award.uncontested else ""
            split_note = " split (POT-6)" if len(award.shares) > 1 else ""
            lines.append(f"  {name.capitalize()}{half} {chips(award.amount)}{split_note}: {winners}{how}")
        stacks = ", ".join(f"{self.who(p)} {chips(s)}" for p, s in enumerate(state.finishing_stacks))
        lines.append(f"  Stacks: {stacks}")
        return lines
