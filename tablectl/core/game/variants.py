"""Games declared as data (layer 2): streets, who opens, the betting structure.

A variant is a game (what is dealt and how hands are ranked) played with a
betting structure. Stud and razz are streets that deal cards up or down to each
player with an opener rule (the bring-in, then the best hand showing); draw games
are streets with a draw before them; the engine reads only these fields.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field


class Structure(enum.Enum):
    NO_LIMIT = "no-limit"
    POT_LIMIT = "pot-limit"
    FIXED_LIMIT = "fixed-limit"
    SPREAD_LIMIT = "spread-limit"

    @property
    def is_limit(self) -> bool:
        return self in (Structure.FIXED_LIMIT, Structure.SPREAD_LIMIT)


class Ranking(enum.Enum):
    HOLDEM = "holdem"  # best five of all the player's cards and the board (POT-7): hold'em, stud
    OMAHA = "omaha"  # exactly two hole and three board (POT-8)
    ACE_TO_FIVE = "ace-to-five"  # lowest five, aces low, straights and flushes ignored (STUD-16)
    DEUCE_TO_SEVEN = "deuce-to-seven"  # lowest five, aces high, straights and flushes count (DRAW-9)


class Opener(enum.Enum):
    """Who opens a betting round."""

    BLINDS = "blinds"  # left of the last blind on the first round, then left of the button (DRAW-3)
    LOW_CARD = "low card"  # the bring-in: lowest up card, aces high, clubs lowest (STUD-5, HO-1)
    HIGH_CARD = "high card"  # razz bring-in: highest up card, aces low, the king of spades highest
    HIGH_HAND = "high hand"  # best poker hand showing, pairs and better only (STUD-8, HO-2)
    LOW_HAND = "low hand"  # lowest ace-to-five hand showing, a pair counts against it (razz)


@dataclass(frozen=True, slots=True)
class Street:
    """One betting round and the cards dealt before it: board cards, cards to each player
    (``cards_up``: one flag per card, face up or down; stud) or a draw (DRAW-4)."""

    name: str
    board_cards: int
    big_bet: bool  # fixed-limit: the big bet applies on this round (BET-1)
    cards_up: tuple[bool, ...] = ()  # after the first street: cards each player still in is dealt
    draw: bool = False  # each player still in discards and is dealt as many before this round
    opener: Opener = Opener.BLINDS


FLOP_STREETS: tuple[Street, ...] = (
    Street("preflop", 0, False),
    Street("flop", 3, False),
    Street("turn", 1, True),
    Street("river", 1, True),
)


def _stud_streets(bring_in: Opener, showing: Opener) -> tuple[Street, ...]:
    """STUD-1, STUD-2: two down and one up, three up, one down; the small bet on third and
    fourth street, the big bet after (STUD-9; five rounds, so not BET-1's two and two: X-2)."""
    down, up = False, True
    return (
        Street("third street", 0, False, (down, down, up), opener=bring_in),
        Street("fourth street", 0, False, (up,), opener=showing),
        Street("fifth street", 0, True, (up,), opener=showing),
        Street("sixth street", 0, True, (up,), opener=showing),
        Street("seventh street", 0, True, (down,), opener=showing),
    )


STUD_STREETS = _stud_streets(Opener.LOW_CARD, Opener.HIGH_HAND)
RAZZ_STREETS = _stud_streets(Opener.HIGH_CARD, Opener.LOW_HAND)
# DRAW-2, DRAW-11: triple draw bets 1-1-2-2; single draw is a round, the draw, a round.
TRIPLE_DRAW_STREETS: tuple[Street, ...] = (
    Street("before the draw", 0, False),
    Street("first draw", 0, False, draw=True),
    Street("second draw", 0, True, draw=True),
    Street("third draw", 0, True, draw=True),
)
SINGLE_DRAW_STREETS: tuple[Street, ...] = (
    Street("before the draw", 0, False),
    Street("after the draw", 0, True, draw=True),
)


@dataclass(frozen=True, slots=True)
class Game:
    code: str  # PHH game letters: T, O, O/8, 7S, 7S/8, R, 2L3D, 2L1D
    name: str
    hole_cards: int  # cards each player is dealt before the first round
    streets: tuple[Street, ...]
    ranking: Ranking
    hi_lo: bool  # split with an eight-or-better low (POT-9, STUD-15)
    open_pair: bool = False  # STUD-9 option: the big bet on fourth street with an open pair
    # Worked out once from the streets (the engine reads them on every card; a game is hashed
    # by its declared fields only):
    board_after: tuple[int, ...] = field(init=False, repr=False, compare=False)
    """Board cards out once each round's cards are dealt (0, 3, 4, 5 for flop games)."""
    hole_after: tuple[int, ...] = field(init=False, repr=False, compare=False)
    """Cards each live player holds once each round's cards are dealt (3 to 7 in stud)."""
    cards_up_in_order: tuple[bool, ...] = field(init=False, repr=False, compare=False)
    """Face up or down, for each of a player's cards in the order dealt (stud); () if none up."""
    has_button: bool = field(init=False, repr=False, compare=False)
    """Blinds and a button (flop and draw games); stud has neither (bring-in, up cards)."""
    has_draws: bool = field(init=False, repr=False, compare=False)
    last_street_down: bool = field(init=False, repr=False, compare=False)
    """The last street is one card dealt down (seventh street): the one premature card a player
    keeps once he may have seen it (STUD-12)."""

    def __post_init__(self) -> None:
        board, holding, board_after, hole_after = 0, self.hole_cards, [], []
        for k, street in enumerate(self.streets):
            board += street.board_cards
            holding += len(street.cards_up) if k else 0
            board_after.append(board)
            hole_after.append(holding)
        flags = tuple(flag for street in self.streets for flag in street.cards_up)
        derived = {
            "board_after": tuple(board_after),
            "hole_after": tuple(hole_after),
            "cards_up_in_order": flags if any(flags) else (),
            "has_button": self.streets[0].opener is Opener.BLINDS,
            "has_draws": any(street.draw for street in self.streets),
            "last_street_down": self.streets[-1].cards_up == (False,),
        }
        for name, value in derived.items():
            object.__setattr__(self, name, value)


HOLDEM = Game("T", "Texas hold'em", 2, FLOP_STREETS, Ranking.HOLDEM, False)
OMAHA = Game("O", "Omaha", 4, FLOP_STREETS, Ranking.OMAHA, False)
OMAHA_HI_LO = Game("O/8", "Omaha hi/lo eight or better", 4, FLOP_STREETS, Ranking.OMAHA, True)
SEVEN_CARD_STUD = Game("7S", "seven-card stud", 3, STUD_STREETS, Ranking.HOLDEM, False, open_pair=True)
STUD_HI_LO = Game("7S/8", "seven-card stud hi/lo eight or better", 3, STUD_STREETS, Ranking.HOLDEM, True)
RAZZ = Game("R", "razz", 3, RAZZ_STREETS, Ranking.ACE_TO_FIVE, False)
DEUCE_TO_SEVEN_TRIPLE_DRAW = Game(
    "2L3D", "deuce-to-seven triple draw", 5, TRIPLE_DRAW_STREETS, Ranking.DEUCE_TO_SEVEN, False
)
DEUCE_TO_SEVEN_SINGLE_DRAW = Game(
    "2L1D", "deuce-to-seven single draw", 5, SINGLE_DRAW_STREETS, Ranking.DEUCE_TO_SEVEN, False
)
GAMES = {
    g.code: g
    for g in (
        HOLDEM,
        OMAHA,
        OMAHA_HI_LO,
        SEVEN_CARD_STUD,
        STUD_HI_LO,
        RAZZ,
        DEUCE_TO_SEVEN_TRIPLE_DRAW,
        DEUCE_TO_SEVEN_SINGLE_DRAW,
    )
}

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
    """A variant this controller does not deal (badugi, stud at big-bet structures, ...)."""


def variant_from_code(code: str) -> Variant:
    """Read a PHH variant code: NT, PO, FT, FO/8, F7S, F7S/8, FR, F2L3D, N2L1D (and ST, SO for
    spread limit)."""
    structure = STRUCTURE_LETTERS.get(code[:1])
    game = GAMES.get(code[1:])
    if game is not None and not game.has_button and structure is not Structure.FIXED_LIMIT:
        # The bring-in and its completion are limit wagers (STUD-6, STUD-7; 004 rule 4).
        raise UnsupportedVariant(f"variant {code!r} is not supported: stud and razz are dealt at fixed limit")
    if structure is None or game is None:
        raise UnsupportedVariant(
            f"variant {code!r} is not supported: the controller deals "
            f"{', '.join(sorted(s + g for s in STRUCTURE_LETTERS for g in GAMES if GAMES[g].has_button))}"
            f" and at fixed limit {', '.join('F' + g for g in GAMES if not GAMES[g].has_button)}"
        )
    return Variant(game, structure)
