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
import math
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
    DISCARD = "discard"  # at a draw: ``seat`` discards ``amount`` cards (``cards`` if seen; 0: pat)


class DealerAction(enum.Enum):
    """The dealer's own commands from the dealer's screen (``cmd/dealer``)."""

    CONFIRM = "confirm"  # what the panel's confirm key does: a ruling that waits is confirmed
    CALL_FLOOR = "call_floor"  # an alert to the floor: come to this table (``name``, ``reason``)
    CLOCK_IN = "clock_in"  # ``name`` deals here from now on (the room knows who deals where)
    CLOCK_OUT = "clock_out"  # the dealer (``name``, or whoever is clocked in) leaves the table


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
    # The broker user who sent it, e.g. "floor.ann": the last level of its topic
    # cmd/floor/<user>, which the broker's ACL lets only that user write. ``by`` is the name
    # typed; this is the login. "" for commands that came no such way (scenarios, the sim).
    user: str = ""


@dataclass(frozen=True, slots=True)
class DealerCommand:
    """A command the dealer gave on the dealer's screen (topic ``cmd/dealer``, which the broker's
    ACL lets only this table's dealer user write). Checked at the boundary by
    :func:`dealer_command_problem`; ``confirm`` is applied as the panel's confirm key."""

    action: DealerAction
    name: str | None = None  # clock_in, clock_out: the dealer's name; call_floor: who calls
    reason: str | None = None  # call_floor: why, in a few words (optional)
    at: float = 0.0
    user: str = ""  # the broker user it came from (dealer.<table>), "" when none


@dataclass(frozen=True, slots=True)
class DeviceStatus:
    device: str  # "shoe", "reader", "camera", "panel"
    ok: bool
    detail: str = ""
    at: float = 0.0
    # The device says reads are gone for good (the shoe dropped some, or restarted with some
    # unsent): the floor is called, whether or not the device is working now.
    reads_lost: bool = False


@dataclass(frozen=True, slots=True)
class InputRefused:
    """Input the table refused at its boundary (a floor command that is not JSON, of the wrong
    shape, too old, too large...): journaled so that the record shows what was sent, by whom and
    why it was not applied. It changes nothing. Made by :func:`input_refused`, which bounds every
    text: the journal and the displays stay small whatever was sent."""

    source: str  # "floor" or "dealer": where it came from
    what: str  # the command's kind when it could be read, else "?"
    by: str  # the sender's name as written (shortened), "" when unreadable
    reason: str  # what was wrong, as the sender was told
    at: float = 0.0  # when the table received it (its own clock: always a real time)
    user: str = ""  # the broker user it came from (its topic cmd/floor/<user>), "" when unknown


Event = CardDrawn | CardSeen | DealerInput | FloorCommand | DealerCommand | DeviceStatus | InputRefused
EVENT_TYPES: dict[str, type[Any]] = {
    "card_drawn": CardDrawn,
    "card_seen": CardSeen,
    "dealer": DealerInput,
    "floor": FloorCommand,
    "dealer_command": DealerCommand,
    "device": DeviceStatus,
    "refused": InputRefused,
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
        decode = _DECODERS.get(key) if journaled else _STRICT.get(key, _DECODERS.get(key))
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


def _user_name(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected a broker user name, got {value!r}")
    return value


def _real_time(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise TypeError(f"expected a time in seconds since the epoch, got {value!r:.40}")
    if value < 0:
        raise ValueError(f"a time is not negative, got {value!r:.40}")
    return float(value)


def _whole_numbers(value: Any) -> tuple[int, ...]:
    if not isinstance(value, list) or any(isinstance(v, bool) or not isinstance(v, int) for v in value):
        raise TypeError(f"expected a list of whole numbers, got {value!r:.60}")
    return tuple(value)


def _strict_whole(value: Any) -> int:
    number = _whole_number(value)
    if number is None:
        raise TypeError("expected a whole number, got null")
    return number


# Fields that readers before 0.x+7ab88cc passed through unchecked: journals may hold anything there.
_JOURNAL_LENIENT = frozenset({"to_seat"})

_DECODERS: dict[str, Callable[[Any], Any]] = {
    "card": lambda value: None if value is None else parse_card(str(value)),
    "cards": lambda value: tuple(parse_card(str(v)) for v in value),
    "zone": Zone,
    "key": DealerKey,
    "kind": FloorKind,
    "action": DealerAction,
    "blinds": lambda value: tuple(int(v) for v in value),
    "seat": _whole_number,
    "amount": _whole_number,
    "to_seat": _whole_number,
    "face_up": _true_or_false,
    "foreign": _true_or_false,
    "ok": _true_or_false,
    "at": float,
    "user": _user_name,
}
# New input (not a journal) is read strictly: a time is a real number of seconds, a list of
# chips holds whole numbers (not true, 100.7 or "100"). A journal is read as it was written: an
# older version let these through, and the fold must give the state it gave then.
_STRICT: dict[str, Callable[[Any], Any]] = {
    "at": _real_time,
    "blinds": _whole_numbers,
    "ante": _strict_whole,
}


# -- the bounds of a floor command (docs/schemas/cmd-floor.json says the same; a test holds them
# together) -------------------------------------------------------------------------------------

# Texts, in characters. A name is shown on a seat plate and in sentences on every display: 40 is
# more than any plate holds. ``by`` is a person's name or login, likewise. ``ruling`` is a RULES
# id (the longest is seven characters). ``decision`` is one word of a short list ("accept",
# "reject", "make_good", "dead"): 40 leaves room for a new one. Every text lands in the journal
# and in the retained snapshots: bounded here, no text can make either grow without limit.
TEXT_LIMITS: dict[str, int] = {"by": 40, "name": 40, "ruling": 16, "decision": 40}
# Chips: one fixed cap on any amount, blind, ante and stack, so that every stack and pot is exact
# in a JavaScript display (whose numbers are exact to 2**53, about 9 * 10**15) with room to spare.
MAX_CHIPS = 10**12
MAX_SEAT = 10  # the most seats a table has (TableConfig); the table's own count is checked too
MAX_BLINDS = 3  # small, big and a straddle
REASON_LIMIT = 300  # characters of a refusal's reason (journaled, on cmd_result)


def shorten(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, an ellipsis marking the cut."""
    return text if len(text) <= limit else text[: max(limit - 1, 0)] + "\u2026"


def input_refused(
    source: str, what: object, by: object, reason: str, at: float, user: str = ""
) -> InputRefused:
    """The journal's record of refused input: texts shortened, anything not a string written
    as its type, so that it stays small and readable whatever was sent."""

    def text(value: object, limit: int) -> str:
        if isinstance(value, str):
            return shorten(value, limit)
        return "" if value is None else f"<{type(value).__name__}>"

    return InputRefused(
        text(source, 16),
        text(what, 24) or "?",
        text(by, TEXT_LIMITS["by"]),
        shorten(reason, REASON_LIMIT),
        at,
        text(user, TEXT_LIMITS["by"]),
    )


# Word for word as the step said it before this check (journals record it as their outcome).
NO_SUPERVISOR = "a floor command names the supervisor who gives it"


def _whole(value: object) -> bool:
    return type(value) is int


# The fields each kind of command reads (``by`` aside: every kind).
FLOOR_FIELDS: dict[FloorKind, frozenset[str]] = {
    FloorKind.OVERRIDE: frozenset({"ruling", "decision", "seat", "amount"}),
    FloorKind.VOID_HAND: frozenset(),
    FloorKind.SET_BLINDS: frozenset({"blinds", "ante"}),
    FloorKind.SEAT_PLAYER: frozenset({"seat", "name", "amount"}),
    FloorKind.REMOVE_PLAYER: frozenset({"seat"}),
    FloorKind.ADD_CHIPS: frozenset({"seat", "amount"}),
    FloorKind.SIT_OUT: frozenset({"seat"}),
    FloorKind.SIT_IN: frozenset({"seat"}),
    FloorKind.MOVE_BUTTON: frozenset({"seat"}),
    FloorKind.BUTTON_MISPLACED: frozenset({"seat"}),
    FloorKind.KILL_HAND: frozenset({"seat", "ruling", "amount"}),
    FloorKind.DECK_CHECK: frozenset({"amount"}),
    FloorKind.TRANSFER: frozenset({"seat", "to_seat", "amount"}),
}
_ALL_FIELDS = frozenset({"name", "ruling", "decision", "seat", "to_seat", "amount", "ante", "blinds"})


def floor_command_problem(
    command: FloorCommand, seats: int = MAX_SEAT, fields: frozenset[str] = _ALL_FIELDS
) -> str | None:
    """What is wrong with ``command`` at a table of ``seats`` seats (None: nothing), in words for
    the supervisor: each of ``fields`` (and ``by``) checked for its type and its bounds. New
    input is checked whole (every field: a command is taken whole or not at all); the step
    checks the fields the command's kind reads (FLOOR_FIELDS), since a journal an older version
    wrote may carry anything in the others. What depends on the table's moment (a seat that is
    taken, a stack too small) is the step's to say; ``at`` is the boundary's
    (tablectl.adapters.mqtt.commands): a time is no rule of the table."""
    for key, limit in TEXT_LIMITS.items():
        if key != "by" and key not in fields:
            continue
        value = getattr(command, key)
        if value is None and key != "by":
            continue
        if not isinstance(value, str):
            return f"{key} is a text, not {type(value).__name__}"
        if len(value) > limit:
            return f"{key} is {len(value):,} characters long: at most {limit}"
    if not command.by.strip():
        return NO_SUPERVISOR
    for key in ("seat", "to_seat"):
        value = getattr(command, key)
        if value is None or key not in fields:
            continue
        if not _whole(value):
            return f"{key} is a seat number, not {value!r:.40}"
        if not 1 <= value <= seats:
            return f"there is no seat {value} at this table: seats are 1 to {seats}"
    if command.amount is not None and "amount" in fields:
        if not _whole(command.amount):
            return f"amount is a whole number of chips, not {command.amount!r:.40}"
        if not 0 <= command.amount <= MAX_CHIPS:
            return f"amount {command.amount!r:.40} is out of bounds: 0 to {MAX_CHIPS:,} chips"
    if "ante" in fields and (not _whole(command.ante) or not 0 <= command.ante <= MAX_CHIPS):
        return f"ante is a whole number of chips from 0 to {MAX_CHIPS:,}, not {command.ante!r:.40}"
    blinds = command.blinds
    if "blinds" not in fields:
        return None
    if not isinstance(blinds, tuple) or len(blinds) > MAX_BLINDS:
        return f"blinds are at most {MAX_BLINDS} whole numbers of chips, e.g. [100, 200]"
    if blinds:
        if not all(_whole(b) and 1 <= b <= MAX_CHIPS for b in blinds):
            return f"blinds are whole numbers of chips from 1 to {MAX_CHIPS:,}, e.g. [100, 200]"
        if list(blinds) != sorted(blinds):
            return f"blinds go from the small to the big, e.g. [100, 200], not {list(blinds)}"
    return None


# -- the bounds of a dealer's command (docs/schemas/cmd-dealer.json says the same) -----------------

# Texts, in characters: a name as on a seat plate (40), a reason the floor reads on a tile (80).
DEALER_TEXT_LIMITS: dict[str, int] = {"name": 40, "reason": 80}
# The fields each action reads; any other field given is refused (it would be ignored).
DEALER_FIELDS: dict[DealerAction, frozenset[str]] = {
    DealerAction.CONFIRM: frozenset(),
    DealerAction.CALL_FLOOR: frozenset({"name", "reason"}),
    DealerAction.CLOCK_IN: frozenset({"name"}),
    DealerAction.CLOCK_OUT: frozenset({"name"}),
}


def dealer_command_problem(command: DealerCommand) -> str | None:
    """What is wrong with the dealer's ``command`` (None: nothing), in words for the dealer: each
    text's type and length, the fields its action reads, a name to clock in. What depends on
    the table's moment (nothing waits for a confirm, another dealer clocked in) is the step's."""
    fields = DEALER_FIELDS[command.action]
    for key, limit in DEALER_TEXT_LIMITS.items():
        value = getattr(command, key)
        if value is None:
            continue
        if key not in fields:
            return f"{command.action.value} takes no {key}"
        if not isinstance(value, str):
            return f"{key} is a text, not {type(value).__name__}"
        if len(value) > limit:
            return f"{key} is {len(value):,} characters long: at most {limit}"
    if command.action is DealerAction.CLOCK_IN and not (command.name or "").strip():
        return "give the dealer's name"
    return None
