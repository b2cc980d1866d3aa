"""The events: what the adapters saw happen at the table (DESIGN.md, Contracts).

Devices report what they physically saw (a card drawn from the shoe, a card
seen in a zone, a button pressed); the procedure decides what it means. Every
event carries the time its adapter saw it (``at``, seconds since the epoch):
the pure core never reads a clock. Events serialise to JSON with a type name
and a schema version for the journal and for the wire.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tablectl.core.cards import Card, card_str, parse_card

SCHEMA_VERSION = 1


class Zone(enum.Enum):
    SEAT = "seat"
    BOARD = "board"
    BURN = "burn"
    MUCK = "muck"


class DealerKey(enum.Enum):
    """The dealer panel's inputs."""

    FOLD = "fold"
    CHECK = "check"
    CALL = "call"
    BET = "bet"  # bet or raise to ``amount``
    ALL_IN = "all_in"
    NEW_HAND = "new_hand"
    CONFIRM = "confirm"
    MISDEAL = "misdeal"  # the dealer calls a misdeal (``cause``: an MD letter)
    CARD_FLASHED = "card_flashed"  # a card was exposed (``seat``; ``cause``: "dealer" or "player")
    SHOW = "show"
    MUCK = "muck"


class FloorKind(enum.Enum):
    OVERRIDE = "override"  # a ruling decided otherwise (``ruling``, ``decision``)
    VOID_HAND = "void_hand"  # every chip back to who put it in
    SET_BLINDS = "set_blinds"  # ``blinds`` (and ``ante``) from the next deal (TBL-2)
    SEAT_PLAYER = "seat_player"  # ``seat``, ``name``, ``amount`` chips
    REMOVE_PLAYER = "remove_player"
    ADD_CHIPS = "add_chips"  # between hands only (BET-17)
    SIT_OUT = "sit_out"
    SIT_IN = "sit_in"
    MOVE_BUTTON = "move_button"  # ``seat``: where the button goes (TBL-1, the floor's manual override)
    # TBL-1: the last hand's button was misplaced; ``seat``: where it really was (the blinds were
    # posted by the players after it), or none if the table's record of that hand stands. The next
    # deals compute the fair button until the round is over.
    BUTTON_MISPLACED = "button_misplaced"
    KILL_HAND = "kill_hand"  # ``seat``'s hand is dead by a ruling (IRR-8, IRR-9, BOARD-6)
    DECK_CHECK = "deck_check"  # ``amount`` cards counted in the deck after the hand (IRR-4)
    TRANSFER = "transfer"  # ``amount`` chips from ``seat`` to ``to_seat``: a pot re-settled (TBL-5)


@dataclass(frozen=True, slots=True)
class CardDrawn:
    """A card left the shoe. ``card`` is None when the reader could not identify it;
    ``face_up`` is what the shoe's optical sensor saw (a face-up card in the deck is boxed);
    ``foreign`` is the deck registry's word that the tag belongs to no active deck here."""

    card: Card | None
    face_up: bool = False
    foreign: bool = False
    at: float = 0.0


# Seats in events are the numbers on the felt: 1 is the first seat; the procedure converts.


@dataclass(frozen=True, slots=True)
class CardSeen:
    """A camera saw a card arrive in a zone (``seat`` for seat zones)."""

    zone: Zone
    card: Card | None = None
    face_up: bool = False
    seat: int | None = None
    at: float = 0.0


@dataclass(frozen=True, slots=True)
class DealerInput:
    key: DealerKey
    seat: int | None = None
    amount: int | None = None
    cause: str | None = None
    cards: tuple[Card, ...] = ()
    at: float = 0.0


@dataclass(frozen=True, slots=True)
class FloorCommand:
    kind: FloorKind
    by: str  # the supervisor's name: overrides are journaled with who made them
    seat: int | None = None
    amount: int | None = None
    name: str | None = None
    ruling: str | None = None
    decision: str | None = None
    blinds: tuple[int, ...] = ()
    ante: int = 0
    to_seat: int | None = None
    at: float = 0.0


@dataclass(frozen=True, slots=True)
class DeviceStatus:
    device: str  # "shoe", "reader", "camera", "panel"
    ok: bool
    detail: str = ""
    at: float = 0.0
    # The device says reads are gone for good (the shoe dropped some, or restarted with some
    # unsent): the floor is called, whether or not the device is working now.
    reads_lost: bool = False


Event = CardDrawn | CardSeen | DealerInput | FloorCommand | DeviceStatus
EVENT_TYPES: dict[str, type[Any]] = {
    "card_drawn": CardDrawn,
    "card_seen": CardSeen,
    "dealer": DealerInput,
    "floor": FloorCommand,
    "device": DeviceStatus,
}
_TYPE_NAMES = {cls: name for name, cls in EVENT_TYPES.items()}


class EventError(ValueError):
    """An event that cannot be read; the message names the field."""


def _encode(value: Any) -> Any:
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, tuple):
        return [_encode(v) for v in value]
    return value


def to_json(event: Event) -> dict[str, Any]:
    """The event as a JSON-ready dict; cards are written as text ("As")."""
    out: dict[str, Any] = {"type": _TYPE_NAMES[type(event)], "v": SCHEMA_VERSION}
    for f in dataclasses.fields(event):
        value = getattr(event, f.name)
        if f.name == "card" and value is not None:
            value = card_str(value)
        elif f.name == "cards":
            value = [card_str(c) for c in value]
        if value != f.default:
            out[f.name] = _encode(value)
    return out


def from_json(data: dict[str, Any], journaled: bool = False) -> Event:
    """Read an event written by :func:`to_json`; refuses unknown types, fields and versions.

    ``journaled``: the event comes back from a journal, where an earlier version may have let
    through what new input may not carry (see _JOURNAL_LENIENT): it is read as written, and the
    step decides what it does, as it did then."""
    if not isinstance(data, dict):
        raise EventError(f"an event is a JSON object, got {type(data).__name__}")
    kind = data.get("type")
    cls = EVENT_TYPES.get(str(kind))
    if cls is None:
        raise EventError(f"unknown event type {kind!r}; known: {', '.join(EVENT_TYPES)}")
    version = data.get("v", SCHEMA_VERSION)
    if version != SCHEMA_VERSION:
        raise EventError(f"event schema version {version!r} is not {SCHEMA_VERSION}")
    names = _FIELD_NAMES[cls]
    kwargs: dict[str, Any] = {}
    for key, value in data.items():
        if key == "type" or key == "v":
            continue
        if key not in names:
            raise EventError(f"{kind} events have no field {key!r}; fields: {', '.join(names)}")
        decode = _DECODERS.get(key)
        if decode is None or (journaled and key in _JOURNAL_LENIENT):
            kwargs[key] = value
            continue
        try:
            kwargs[key] = decode(value)
        except (ValueError, TypeError) as exc:
            raise EventError(f"{kind}.{key}: {exc}") from None
    try:
        return cls(**kwargs)  # type: ignore[no-any-return]
    except TypeError as exc:
        raise EventError(f"{kind}: {exc}") from None


# A journal is read back event by event on every restart and replay: the field names and the
# readers of each field are looked up once, here. A journal any earlier version wrote must stay
# readable: a check added later is made on new input only (_JOURNAL_LENIENT).
_FIELD_NAMES = {cls: tuple(f.name for f in dataclasses.fields(cls)) for cls in EVENT_TYPES.values()}


def _whole_number(value: Any) -> int | None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
        raise TypeError(f"expected a whole number, got {value!r}")
    return value


def _true_or_false(value: Any) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"expected true or false, got {value!r}")
    return value


# Fields that readers before 0.x+7ab88cc passed through unchecked: journals may hold anything there.
_JOURNAL_LENIENT = frozenset({"to_seat"})

_DECODERS: dict[str, Callable[[Any], Any]] = {
    "card": lambda value: None if value is None else parse_card(str(value)),
    "cards": lambda value: tuple(parse_card(str(v)) for v in value),
    "zone": Zone,
    "key": DealerKey,
    "kind": FloorKind,
    "blinds": lambda value: tuple(int(v) for v in value),
    "seat": _whole_number,
    "amount": _whole_number,
    "to_seat": _whole_number,
    "face_up": _true_or_false,
    "foreign": _true_or_false,
    "ok": _true_or_false,
    "at": float,
}
