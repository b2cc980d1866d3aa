"""Games declared as data (layer 2): streets, who opens, the betting structure.

A variant is a game (what is dealt and how hands are ranked) played with a
betting structure. Stud, razz and draw games fit by adding streets that deal
up-cards or draws and an opener rule; the engine reads only these fields.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Structure(enum.Enum):
    NO_LIMIT = "no-limit"
    POT_LIMIT = "pot-limit"
    FIXED_LIMIT = "fixed-limit"
    SPREAD_LIMIT = "spread-limit"

    @property
    def is_limit(self) -> bool:
        return self in (Structure.FIXED_LIMIT, Structure.SPREAD_LIMIT)


class Ranking(enum.Enum):
    HOLDEM = "holdem"  # best five of hole and board (POT-7)
    OMAHA = "omaha"  # exactly two hole and three board (POT-8)


@dataclass(frozen=True, slots=True)
class Street:
    """One betting round and the cards dealt before it."""

    name: str
    board_cards: int
    big_bet: bool  # fixed-limit: the big bet applies on this round (BET-1)


FLOP_STREETS: tuple[Street, ...] = (
    Street("preflop", 0, False),
    Street("flop", 3, False),
    Street("turn", 1, True),
    Street("river", 1, True),
)


@dataclass(frozen=True, slots=True)
class Game:
    code: str  # PHH game letters: T, O, O/8
    name: str
    hole_cards: int
    streets: tuple[Street, ...]
    ranking: Ranking
    hi_lo: bool  # split with an eight-or-better low (POT-9)

    @property
    def board_after(self) -> tuple[int, ...]:
        """Board cards out once each round's cards are dealt (0, 3, 4, 5 for flop games)."""
        total, out = 0, []
        for street in self.streets:
            total += street.board_cards
            out.append(total)
        return tuple(out)


HOLDEM = Game("T", "Texas hold'em", 2, FLOP_STREETS, Ranking.HOLDEM, False)
OMAHA = Game("O", "Omaha", 4, FLOP_STREETS, Ranking.OMAHA, False)
OMAHA_HI_LO = Game("O/8", "Omaha hi/lo eight or better", 4, FLOP_STREETS, Ranking.OMAHA, True)
GAMES = {g.code: g for g in (HOLDEM, OMAHA, OMAHA_HI_LO)}

STRUCTURE_LETTERS = {
    "N": Structure.NO_LIMIT,
    "P": Structure.POT_LIMIT,
    "F": Structure.FIXED_LIMIT,
    "S": Structure.SPREAD_LIMIT,
}


@dataclass(frozen=True, slots=True)
class Variant:
    game: Game
    structure: Structure

    @property
    def code(self) -> str:
        letter = next(k for k, v in STRUCTURE_LETTERS.items() if v is self.structure)
        return letter + self.game.code

    @property
    def name(self) -> str:
        return f"{self.structure.value} {self.game.name}"


class UnsupportedVariant(ValueError):
    """A variant this controller does not deal yet (stud, razz, draw)."""


def variant_from_code(code: str) -> Variant:
    """Read a PHH variant code: NT, PO, FT, FO/8 (and ST, SO for spread limit)."""
    structure = STRUCTURE_LETTERS.get(code[:1])
    game = GAMES.get(code[1:])
    if structure is None or game is None:
        raise UnsupportedVariant(
            f"variant {code!r} is not supported: the controller deals "
            f"{', '.join(sorted(s + g for s in STRUCTURE_LETTERS for g in GAMES))}"
        )
    return Variant(game, structure)
