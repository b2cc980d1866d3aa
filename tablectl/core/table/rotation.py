"""Mixed games at one table (layer 4): the rotation of games, declared as data (HO-13, TRN-12).

A ``Rotation`` is the games a table plays in turn, each with its own stakes (``GameStakes``: a
limit game's small and big bet, a big-bet game's blinds, stud's ante and bring-in), and when the
game changes (HO-13: "mixed games rotate by level or orbit"; notes ST-9):

* ``Change.ORBIT``: after ``orbits`` rounds of the table. In a button game (flop and draw games)
  a round is over when the button would go to a seat that has already had it in this round, so
  a player who leaves mid-round shortens it and a newcomer behind the button does not lengthen
  it. Stud has no button: a round of stud is as many hands as there are players at the deal.
* ``Change.LEVEL``: at each new level (the floor's ``set_blinds``, TBL-2), from the next deal.

During the stud games (no button, bring-in by the up cards) the button is frozen: it stays at
the seat it had on the last flop or draw hand and resumes there when a button game comes back,
moving one seat on as if the stud hands had not been dealt (the 2023 WSOP Players Championship's
hands in ../shared/data/phh/wsop-2023-43 show it: the button of hand 12, Omaha hi/lo, is one seat
after hand 4's, with seven stud hands between them).

The schedule is pure: :func:`advance` says, before a deal, which game it deals and whether the
game changes with it; :func:`record_deal` counts the deal; :func:`upcoming` tells the views what
follows and when. The table (``hands``) chooses the button; this module only reads it.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol

from tablectl.core.game.variants import Structure, UnsupportedVariant, Variant, variant_from_code

# A rotation of at most this many games (the eight-game mix has eight; a structure sheet repeats).
MAX_GAMES = 16
MAX_ORBITS = 20
MAX_NAME = 32


class RotationError(ValueError):
    """A rotation that cannot work; the message starts with the key (``games[2].small_bet: ...``)."""


class Change(enum.Enum):
    """When the game changes (HO-13)."""

    ORBIT = "orbit"  # after a set number of rounds of the table
    LEVEL = "level"  # at each new level (TBL-2, from the next deal)


# Short names for the displays, by PHH game code and structure letter.
_SHORT = {
    "T": "hold'em",
    "O": "Omaha",
    "O/8": "Omaha/8",
    "7S": "stud",
    "7S/8": "stud/8",
    "R": "razz",
    "2L3D": "2-7 triple draw",
    "2L1D": "2-7 single draw",
}
_LETTER = {"N": "NL", "P": "PL", "F": "limit", "S": "spread-limit"}


def game_label(game: str) -> str:
    """A game's short name for the displays: "NL hold'em", "limit Omaha/8", "razz"."""
    variant = variant_from_code(game)
    short = _SHORT.get(variant.game.code, variant.game.name)
    if not variant.game.has_button:
        return short  # stud games are dealt at fixed limit only
    return f"{_LETTER[game[:1]]} {short}"


def stakes_text(
    game: str, blinds: tuple[int, ...], small_bet: int, big_bet: int, ante: int, bring_in: int
) -> str:
    """A game's stakes as a display shows them: "100/200" (a fixed-limit game's bets, else the
    blinds), "50/100 ante 10", "200/400 ante 25 bring-in 50"."""
    if variant_from_code(game).structure is Structure.FIXED_LIMIT:
        text = f"{small_bet:,}/{big_bet:,}"
    else:
        text = "/".join(f"{b:,}" for b in blinds)
    if ante:
        text += f" ante {ante:,}"
    if bring_in:
        text += f" bring-in {bring_in:,}"
    return text


class _Stakes(Protocol):
    """A table's one game (TableConfig) or a rotation's (GameStakes)."""

    @property
    def blinds(self) -> tuple[int, ...]: ...
    @property
    def bring_in(self) -> int: ...
    @property
    def small_bet(self) -> int: ...
    @property
    def has_button(self) -> bool: ...


def amount_step(stakes: _Stakes) -> int:
    """The chips a panel's amount keys step by unless the table's file says: the small blind, or at
    stud (no blinds) the largest step that reaches both the bring-in and the small bet."""
    if stakes.has_button:
        return stakes.blinds[0]
    return math.gcd(stakes.bring_in, stakes.small_bet)


@dataclass(frozen=True, slots=True)
class GameStakes:
    """One game of a rotation and its stakes (chips; 0 = none).

    Flop and draw games post ``blinds`` (small first); fixed limit adds ``small_bet`` and
    ``big_bet``, spread limit ``spread_max``. Stud games post an ``ante`` each and a
    ``bring_in`` (smaller than the small bet, STUD-6) and bet ``small_bet`` and ``big_bet``
    (STUD-9); they have no blinds. ``big_blind_ante`` is one ante the big blind posts."""

    game: str  # PHH variant code: NT, PO, FO/8, F7S, F7S/8, FR, F2L3D, N2L1D, ...
    blinds: tuple[int, ...] = ()
    ante: int = 0
    big_blind_ante: int = 0
    small_bet: int = 0
    big_bet: int = 0
    bring_in: int = 0
    spread_max: int = 0

    def __post_init__(self) -> None:
        try:
            variant = variant_from_code(self.game) if isinstance(self.game, str) else None
        except UnsupportedVariant as exc:
            raise RotationError(f"game: {exc}") from None
        if variant is None:
            raise RotationError(f'game: a PHH variant code in quotes, e.g. "NT", not {self.game!r}')
        for key in ("ante", "big_blind_ante", "small_bet", "big_bet", "bring_in", "spread_max"):
            value = getattr(self, key)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise RotationError(f"{key}: whole chips, 0 or more, not {value!r}")
        if any(isinstance(b, bool) or not isinstance(b, int) or b <= 0 for b in self.blinds):
            raise RotationError(
                f"blinds: whole chips > 0, small first, e.g. [50, 100], not {list(self.blinds)}"
            )
        limit = variant.structure is Structure.FIXED_LIMIT
        if limit and not 0 < self.small_bet <= self.big_bet:
            raise RotationError(
                f"small_bet, big_bet: {self.game} is a fixed-limit game: give its small and big bet, "
                "e.g. small_bet = 100 and big_bet = 200"
            )
        if not limit and (self.small_bet or self.big_bet):
            raise RotationError(
                f"small_bet, big_bet: {self.game} is not fixed limit: its stakes are its blinds"
            )
        if variant.structure is Structure.SPREAD_LIMIT and self.spread_max <= 0:
            raise RotationError(f"spread_max: {self.game} is spread limit: give its largest bet")
        if self.ante and self.big_blind_ante:
            raise RotationError("ante, big_blind_ante: one or the other, not both")
        if variant.game.has_button:
            if not self.blinds:
                raise RotationError(
                    f"blinds: {self.game} posts blinds: give them, small first, e.g. [50, 100]"
                )
            if list(self.blinds) != sorted(self.blinds):
                raise RotationError(f"blinds: {list(self.blinds)}: the small blind comes first")
            if self.bring_in:
                raise RotationError(f"bring_in: only stud games have a bring-in; {self.game} posts blinds")
        else:
            if self.blinds or self.big_blind_ante:
                raise RotationError(
                    f"blinds: {self.game} is a stud game: no blinds, an ante and a bring-in instead"
                )
            if not 0 < self.bring_in < self.small_bet:
                raise RotationError(
                    f"bring_in: {self.game} needs a bring-in smaller than its small bet "
                    f"({self.small_bet}), e.g. bring_in = {max(1, self.small_bet // 4)} (STUD-6)"
                )

    @property
    def variant(self) -> Variant:
        return variant_from_code(self.game)

    @property
    def has_button(self) -> bool:
        """Flop and draw games have a button and blinds; stud freezes the button (HO-13)."""
        return self.variant.game.has_button

    @property
    def label(self) -> str:
        """A short name for the displays (:func:`game_label`)."""
        return game_label(self.game)

    @property
    def stakes(self) -> str:
        """The stakes as a display shows them (:func:`stakes_text`)."""
        return stakes_text(
            self.game,
            self.blinds,
            self.small_bet,
            self.big_bet,
            self.ante or self.big_blind_ante,
            self.bring_in,
        )

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"game": self.game}
        for key in ("blinds", "ante", "big_blind_ante", "small_bet", "big_bet", "bring_in", "spread_max"):
            value = getattr(self, key)
            if value:
                out[key] = list(value) if key == "blinds" else value
        return out


GAME_KEYS = ("game", "blinds", "ante", "big_blind_ante", "small_bet", "big_bet", "bring_in", "spread_max")


def game_from_json(data: Any) -> GameStakes:
    if not isinstance(data, dict):
        raise RotationError('a game is a mapping: game = "NT" and its stakes')
    unknown = sorted(set(data) - set(GAME_KEYS))
    if unknown:
        raise RotationError(f"{unknown[0]}: unknown key; valid: {', '.join(GAME_KEYS)}")
    if "game" not in data:
        raise RotationError('game: missing: name the game as a PHH variant code, e.g. game = "NT"')
    values = dict(data)
    if "blinds" in values:
        if not isinstance(values["blinds"], (list, tuple)):
            raise RotationError(f"blinds: a list of whole chips, e.g. [50, 100], not {values['blinds']!r}")
        values["blinds"] = tuple(values["blinds"])
    return GameStakes(**values)


@dataclass(frozen=True, slots=True)
class Rotation:
    """The games a table plays in turn (``games``, in order, repeated) and when the game changes."""

    games: tuple[GameStakes, ...]
    change: Change = Change.ORBIT
    orbits: int = 1  # rounds of the table per game (Change.ORBIT)
    name: str = ""  # what the displays call it, e.g. "H.O.R.S.E."

    def __post_init__(self) -> None:
        if not isinstance(self.change, Change):
            raise RotationError(f'change: "orbit" or "level", not {self.change!r}')
        if not 2 <= len(self.games) <= MAX_GAMES:
            raise RotationError(f"games: a rotation has 2 to {MAX_GAMES} games, got {len(self.games)}")
        orbits = self.orbits
        if isinstance(orbits, bool) or not isinstance(orbits, int) or not 1 <= orbits <= MAX_ORBITS:
            raise RotationError(f"orbits: rounds of the table per game, 1 to {MAX_ORBITS}, not {orbits!r}")
        if self.change is Change.LEVEL and orbits != 1:
            raise RotationError(
                'orbits: only with change = "orbit"; by level the game changes at each new level'
            )
        if not isinstance(self.name, str) or len(self.name) > MAX_NAME:
            raise RotationError(f"name: a text of at most {MAX_NAME} characters")
        if all(not g.has_button for g in self.games):
            raise RotationError("games: a rotation of stud games only needs no rotation of the button")

    @property
    def title(self) -> str:
        """The name, or the games' short names joined: "NL hold'em / PL Omaha"."""
        return self.name or " / ".join(g.label for g in self.games)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"change": self.change.value, "games": [g.to_json() for g in self.games]}
        if self.change is Change.ORBIT:
            out["orbits"] = self.orbits
        if self.name:
            out["name"] = self.name
        return out

    @classmethod
    def from_json(cls, data: Any) -> Rotation:
        """Read a rotation; an error names the key, ``games[2].small_bet`` for the second game's."""
        if not isinstance(data, dict):
            raise RotationError("a rotation is a mapping: change, orbits, name and its games")
        valid = ("change", "orbits", "name", "games")
        unknown = sorted(set(data) - set(valid))
        if unknown:
            raise RotationError(f"{unknown[0]}: unknown key; valid: {', '.join(valid)}")
        try:
            change = Change(data.get("change", "orbit"))
        except ValueError:
            raise RotationError(f'change: "orbit" or "level", not {data.get("change")!r}') from None
        games_data = data.get("games")
        if not isinstance(games_data, (list, tuple)) or not games_data:
            raise RotationError("games: the games in the order they are played, each with its stakes")
        games = []
        for number, entry in enumerate(games_data, start=1):
            try:
                games.append(game_from_json(entry))
            except RotationError as exc:
                raise RotationError(f"games[{number}].{exc}") from None
        return cls(tuple(games), change, data.get("orbits", 1), data.get("name", ""))


# -- the rotations card rooms spread, as data ------------------------------------------------------
# The games in order; the stakes are the card room's (a limit stake L: limit games bet L/2L with
# blinds L/4 and L/2 (SD-7), stud antes and bring-in by the structure sheet (SS-9)). 003 names
# H.O.R.S.E. ("Hold'em, Omaha, Razz, Stud and Stud Eight or Better"); its Omaha is hi/lo by usual
# practice (RULES TRN-12). The eight-game mix is in no seed: usual practice, as listed.
HORSE = ("FT", "FO/8", "FR", "F7S", "F7S/8")
EIGHT_GAME = ("F2L3D", "FT", "FO/8", "FR", "F7S", "F7S/8", "NT", "PO")


def limit_stakes(code: str, small_bet: int, ante: int = 0, bring_in: int = 0) -> GameStakes:
    """A fixed-limit game at ``small_bet``/2x: flop and draw games with blinds half a small bet and a
    small bet (SD-7); stud with ``ante`` and ``bring_in``."""
    if variant_from_code(code).game.has_button:
        blinds = (small_bet // 2, small_bet)
        return GameStakes(code, blinds=blinds, small_bet=small_bet, big_bet=2 * small_bet)
    return GameStakes(code, ante=ante, bring_in=bring_in, small_bet=small_bet, big_bet=2 * small_bet)


# -- where the rotation stands ---------------------------------------------------------------------


class RotationProgress(NamedTuple):
    """Where a table's rotation stands: the game in play and how much of it has been dealt."""

    game_index: int = 0  # the game in play: Rotation.games[game_index]
    orbits: int = 0  # rounds of the table completed in this game
    hands: int = 0  # hands dealt in this game (a misdeal's redeal is not another)
    buttons: tuple[int, ...] = ()  # button games: the seats that had the button this round
    round_hands: int = 0  # hands dealt in this round (stud: a round is as many as the players)
    level_up: bool = False  # Change.LEVEL: a new level is announced: the next deal changes game


class Advance(NamedTuple):
    """Before a deal: the game it deals and where the rotation stands before the deal is counted."""

    progress: RotationProgress
    changed: bool  # this deal starts a new game of the rotation


def _round_over(game: GameStakes, progress: RotationProgress, button: int | None, players: int) -> bool:
    if not progress.round_hands:
        return False
    if game.has_button:
        return button is not None and button in progress.buttons
    return progress.round_hands >= players


def advance(rotation: Rotation, progress: RotationProgress, button: int | None, players: int) -> Advance:
    """Which game the next deal deals. ``button``: where the button would go on this deal if the
    game in play goes on (a button game's round is over when it returns to a seat that had it);
    ``players``: the players dealt in (a round of stud)."""
    game = rotation.games[progress.game_index]
    if rotation.change is Change.LEVEL:
        if not progress.level_up:
            return Advance(progress, False)
        return Advance(RotationProgress((progress.game_index + 1) % len(rotation.games)), True)
    if not _round_over(game, progress, button, players):
        return Advance(progress, False)
    orbits = progress.orbits + 1
    if orbits < rotation.orbits:
        return Advance(progress._replace(orbits=orbits, buttons=(), round_hands=0), False)
    return Advance(RotationProgress((progress.game_index + 1) % len(rotation.games)), True)


def record_deal(rotation: Rotation, progress: RotationProgress, button: int | None) -> RotationProgress:
    """``progress`` once a hand of its game is dealt with the button at ``button``."""
    game = rotation.games[progress.game_index]
    buttons = progress.buttons
    if game.has_button and button is not None and button not in buttons:
        buttons = (*buttons, button)
    return progress._replace(hands=progress.hands + 1, buttons=buttons, round_hands=progress.round_hands + 1)


def level_announced(progress: RotationProgress) -> RotationProgress:
    return progress._replace(level_up=True)


class Upcoming(NamedTuple):
    """What the views say about the rotation: the game in play, the next, and when it changes."""

    game: GameStakes
    next: GameStakes
    hands_left: int | None  # hands of this game still to deal (None: at the next level)
    button_frozen: bool  # a stud game: the button stays where the last button game left it


def upcoming(rotation: Rotation, progress: RotationProgress, players: int) -> Upcoming:
    """The game in play (the one the last deal dealt, or the first), the next one, and how many
    hands of this game remain with ``players`` at the table (an estimate: players come and go)."""
    game = rotation.games[progress.game_index]
    following = rotation.games[(progress.game_index + 1) % len(rotation.games)]
    if rotation.change is Change.LEVEL:
        left: int | None = 0 if progress.level_up else None
    else:
        players = max(players, 2)
        if game.has_button:
            this_round = max(0, players - len(progress.buttons)) if progress.round_hands else players
        else:
            this_round = max(0, players - progress.round_hands)
        left = this_round + (rotation.orbits - progress.orbits - 1) * players
    return Upcoming(game, following, left, not game.has_button)
