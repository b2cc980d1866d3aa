"""The table's state (layer 4): seats, the button and blinds, the hand in progress.

``TableState`` holds what the journal's fold rebuilds: who sits where with how many chips
(TBL-3), the button and the current round of the button (TBL-1, DEAL-5), the blinds and the
next level (TBL-2), the hand in progress and the last hand played (TBL-5), a pending redeal
(MD-2) and the floor's overrides; at a table of mixed games, where its rotation stands (HO-13).
``_evolve`` is the one way the table's code copies it.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import NamedTuple

from tablectl.core.procedure import HandProgress
from tablectl.core.records import copier
from tablectl.core.table.config import TableConfig
from tablectl.core.table.rotation import GameStakes, RotationProgress


@dataclass(frozen=True, slots=True)
class Seat:
    name: str
    stack: int
    sitting_out: bool = False


class Positions(NamedTuple):
    """Who had the button and the blinds on one hand (felt seat numbers; heads-up the button is
    also the small blind; 0: a player who has since left the table)."""

    button: int
    small: int
    big: int


class Remedy(NamedTuple):
    """A floor remedy as the floor view lists it: on which hand, who gave it, the rule, what."""

    hand: int
    by: str  # the name the supervisor typed
    rule: str
    decision: str
    user: str = ""  # the broker login that sent it (cmd/floor/<user>), "" when none


class DealerShift(NamedTuple):
    """The dealer clocked in at the table (the dealer's screen, ``clock_in``), and since when."""

    name: str
    since: float  # the clock-in's time (seconds since the epoch)


class FloorCall(NamedTuple):
    """The dealer called the floor (``call_floor``): listed until a supervisor answers it."""

    at: float  # when the dealer called
    by: str  # who called: the name given, else the dealer clocked in, else "the dealer"
    reason: str  # why, in the dealer's words ("" when none was given)
    hand: int  # the hand number at the time (0: before the first hand)


# Open floor calls the state keeps: a call beyond this is refused (the floor is already coming).
MAX_FLOOR_CALLS = 3
# Hands per hour count the hands that ended within this many seconds.
HOUR = 3600.0
# The hand-ended times the state keeps (within HOUR of the newest): far above any dealer's pace.
MAX_HAND_TIMES = 400


# The remedies the state keeps: those of the current hand and the last one, at most this many
# (the newest). The journal keeps every one for good (``tablectl replay``); the state and the
# floor snapshot stay the same size whatever the journal's length.
MAX_REMEDIES = 32


class ButtonFix(enum.Enum):
    """TBL-1: where the correction of a misplaced button stands."""

    OFF = "off"  # the button moves one seat each hand
    REPORTED = "reported"  # the floor reported a misplaced button: the next deal corrects it
    ROUND = "round"  # corrected: each deal keeps every position once until the round is over


class TableState(NamedTuple):
    """The table. A NamedTuple so that the copy made for every event is cheap."""

    config: TableConfig
    seats: tuple[Seat | None, ...]  # index 0 is seat 1
    button: int | None = None  # felt seat number of the button
    blinds: tuple[int, ...] = ()
    ante: int = 0
    big_blind_ante: int = 0
    next_level: tuple[tuple[int, ...], int] | None = None  # TBL-2: from the next deal
    hand_number: int = 0
    hand: HandProgress | None = None
    # TBL-5: the hand last played, kept (with its log of actions) until the next deal starts, so
    # that a ruling on its pot can still be made and its betting reconstructed.
    last_hand: HandProgress | None = None
    redeal: bool = False  # MD-2: after a misdeal (or a void hand) the button and blinds stay
    keep_button: bool = False  # the button was just placed (DEAL-5, TBL-1 correction)
    button_draw: tuple[int, ...] | None = None  # DEAL-5: seats still to draw for the button
    devices: tuple[tuple[str, bool], ...] = ()
    overrides: tuple[Remedy, ...] = ()  # the floor's remedies of this hand and the last (MAX_REMEDIES)
    # TBL-1: the hands of the current round of the button (the round is over once every active
    # player has had the big blind), and the correction of a misplaced button.
    orbit: tuple[Positions, ...] = ()
    button_fix: ButtonFix = ButtonFix.OFF
    vacated: tuple[int, ...] = ()  # seats whose player left since the last deal
    # The room's operational record (the floor's grid): who deals here, the dealer's open calls
    # to the floor, the times (from the events) the hands played out ended within the last hour.
    dealer: DealerShift | None = None
    floor_calls: tuple[FloorCall, ...] = ()
    hand_times: tuple[float, ...] = ()
    # HO-13: the game in play of the table's rotation and how much of it is dealt (None: one game).
    rotation: RotationProgress | None = None
    # STUD-18: the seat holding the action button (it posts a completion on the next stud/8 deal).
    action_button: int | None = None

    def seat(self, number: int) -> Seat | None:
        if not 1 <= number <= len(self.seats):
            return None
        return self.seats[number - 1]


def new_table(
    config: TableConfig, players: dict[int, tuple[str, int]] | None = None, button: int | None = None
) -> TableState:
    """A table with players seated (seat number -> (name, chips)) and, if known, the button."""
    seats: list[Seat | None] = [None] * config.seats
    for number, (name, stack) in (players or {}).items():
        seats[number - 1] = Seat(name, stack)
    # A table of mixed games posts its first game's stakes until the first deal.
    stakes = config.rotation.games[0] if config.rotation is not None else config
    return TableState(
        config=config,
        seats=tuple(seats),
        button=button,
        blinds=stakes.blinds,
        ante=stakes.ante,
        big_blind_ante=stakes.big_blind_ante,
        keep_button=button is not None,
        rotation=RotationProgress() if config.rotation is not None else None,
    )


def game_in_play(state: TableState) -> GameStakes | None:
    """The rotation's game in play: the one the hand in progress (or the last deal) is dealt in,
    else the first; None at a table of one game (its game is ``config.game``)."""
    rotation = state.config.rotation
    if rotation is None or state.rotation is None:
        return None
    return rotation.games[state.rotation.game_index]


def game_code(state: TableState) -> str:
    """The PHH code of the game in play (the hand in progress's, else the rotation's or the table's)."""
    if state.hand is not None:
        return state.hand.game.config.variant.code
    entry = game_in_play(state)
    return entry.game if entry is not None else state.config.game


_evolve = copier(TableState)  # once per event


def _hand_times(times: tuple[float, ...], at: float) -> tuple[float, ...]:
    """``times`` with a hand ended at ``at``: only those within HOUR of the newest, at most
    MAX_HAND_TIMES (the state stays the same size whatever the day's length)."""
    newest = max((at, *times))
    return tuple(t for t in (*times, at) if newest - t < HOUR)[-MAX_HAND_TIMES:]


def _kept_remedies(remedies: tuple[Remedy, ...], hand_number: int) -> tuple[Remedy, ...]:
    """The remedies of hand ``hand_number`` and the one before, at most MAX_REMEDIES."""
    return tuple(r for r in remedies if r.hand >= hand_number - 1)[-MAX_REMEDIES:]


def _remedied(state: TableState, by: str, rule: str, decision: str, user: str = "") -> tuple[Remedy, ...]:
    """``state.overrides`` with one more remedy, given now."""
    return _kept_remedies(
        (*state.overrides, Remedy(state.hand_number, by, rule, decision, user)), state.hand_number
    )


def _active_seats(state: TableState) -> list[int]:
    return [
        number
        for number in range(1, len(state.seats) + 1)
        if (s := state.seat(number)) is not None and not s.sitting_out and s.stack > 0
    ]
