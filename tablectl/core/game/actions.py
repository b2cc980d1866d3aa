"""What can happen in a hand, as the rules core sees it (layer 2).

Players are numbered by position: 0 is the first seat left of the button, the
button is last (the PHH convention). The table layer maps seats to positions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from tablectl.core.cards import Card

# A hole card dealt but not identified (PHH '??'). Final: compiled, a constant where the engine
# reads it, not a lookup in this module's dictionary (tablectl/native.py).
UNKNOWN_CARD: Final[Card] = -1


@dataclass(frozen=True, slots=True)
class DealHole:
    """Cards dealt to one player: hole cards, a stud street's card, a draw's replacements.

    ``up`` says which are face up when the deal differs from the street's declaration (HO-4: a
    down card the dealer exposed plays as an up card); None: as the street declares.
    """

    player: int
    cards: tuple[Card, ...]
    up: tuple[bool, ...] | None = None


@dataclass(frozen=True, slots=True)
class DealBoard:
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class Fold:
    player: int


@dataclass(frozen=True, slots=True)
class CheckCall:
    player: int


@dataclass(frozen=True, slots=True)
class BetRaise:
    """Bet or raise *to* a total for this round (PHH ``cbr``)."""

    player: int
    to: int


@dataclass(frozen=True, slots=True)
class BringIn:
    """Post the bring-in, the forced bet of the lowest (razz: highest) up card (STUD-5, PHH ``pb``);
    the same player may complete instead (BetRaise to the small bet, STUD-6)."""

    player: int


@dataclass(frozen=True, slots=True)
class Discard:
    """Discard cards at a draw to be dealt as many (DRAW-4, PHH ``sd``); none: standing pat."""

    player: int
    cards: tuple[Card, ...] = ()


@dataclass(frozen=True, slots=True)
class Kill:
    """The hand is dead by a ruling (IRR-8, IRR-9, BOARD-6, the floor), whoever's turn it is."""

    player: int
    rule: str = ""


@dataclass(frozen=True, slots=True)
class Show:
    """Show the hand at the showdown; no cards means the hand is mucked (PHH ``sm``)."""

    player: int
    cards: tuple[Card, ...] | None = None

    @property
    def mucks(self) -> bool:
        return not self.cards


Action = DealHole | DealBoard | Fold | CheckCall | BetRaise | BringIn | Discard | Show | Kill
