"""The shoe protocol's messages (docs/protocol.md): their types and their bytes.

Typed, frozen dataclasses (:class:`CardRead`, :class:`ShoeState`, :class:`ShoeError`,
:class:`SetIndicator`, :class:`RequestState`, :class:`Ping`, :class:`Pong`, and the link's
own :class:`Heartbeat` and :class:`Hello`); :func:`encode_message` and :func:`decode_message`
turn them into a frame's payload and back, with a length and field check of every type.
"""

from __future__ import annotations

import enum
import struct
from dataclasses import dataclass

from firmware_bridge.protocol.framing import U32, FrameError, encode_frame

PROTOCOL_MAJOR = 1
PROTOCOL_MINOR = 0

MAX_TAG = 32  # bytes of a tag id (4/7/10-byte ISO 14443, 8-byte ISO 15693, 12-byte EPC ...)
MAX_TEXT = 48  # bytes of an ERROR text (UTF-8)
MAX_SERIAL = 24  # bytes of a serial number in HELLO (printable ASCII)


class MsgType(enum.IntEnum):
    """Frame types. Bit 7 set: sequenced (acknowledged, retransmitted, de-duplicated)."""

    HELLO = 0x01
    HEARTBEAT = 0x02
    PING = 0x03
    PONG = 0x04
    CARD = 0x81
    SHOE_STATE = 0x82
    ERROR = 0x83
    SET_INDICATOR = 0xC1
    REQUEST_STATE = 0xC2


SEQUENCED_BIT = 0x80


class Role(enum.Enum):
    HOST = "host"
    SHOE = "shoe"


# Which sequenced types each role sends (the other role receives them).
_SENT_BY: dict[MsgType, Role] = {
    MsgType.CARD: Role.SHOE,
    MsgType.SHOE_STATE: Role.SHOE,
    MsgType.ERROR: Role.SHOE,
    MsgType.SET_INDICATOR: Role.HOST,
    MsgType.REQUEST_STATE: Role.HOST,
}


class Face(enum.IntEnum):
    """What the shoe's optical sensor saw of a card as it left the shoe."""

    UNKNOWN = 0  # the sensor could not tell
    BACK = 1  # the back: the card came out face down, as it should
    FACE = 2  # the face: the card was face up in the deck (a boxed card)

    @property
    def face_up(self) -> bool:
        return self is Face.FACE


class Led(enum.IntEnum):
    OFF = 0
    GREEN = 1
    AMBER = 2
    RED = 3


class ErrorCode(enum.IntEnum):
    """ERROR codes the shoe may send (0x8000 and up: the firmware's own)."""

    READER_FAULT = 1  # the RFID reader does not answer
    ANTENNA_FAULT = 2  # one antenna is open or shorted (text: which)
    OPTICAL_FAULT = 3  # the face sensor is blocked or dirty
    QUEUE_OVERFLOW = 4  # reads were dropped: the host was away too long (text: how many)
    BAD_COMMAND = 5  # a host command the shoe cannot carry out
    WATCHDOG_RESET = 6  # the firmware restarted on its watchdog


# -- messages -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CardRead:
    """CARD: a card left the shoe. ``tag`` is empty when the optical sensor saw a card go
    but the reader got no tag from it. ``read_no`` counts reads since the shoe booted
    (1, 2, ...): a jump means the shoe dropped reads. ``shoe_ms``: the shoe's clock."""

    read_no: int
    tag: bytes
    antenna: int
    face: Face
    shoe_ms: int


@dataclass(frozen=True, slots=True)
class ShoeState:
    """SHOE_STATE: sent on every change, after connecting, and on REQUEST_STATE."""

    shoe_ms: int
    lid_open: bool
    deck_present: bool
    jam: bool
    dropped_reads: int = 0  # reads the shoe had to drop since it booted (queue full)


@dataclass(frozen=True, slots=True)
class ShoeError:
    shoe_ms: int
    code: int
    text: str


@dataclass(frozen=True, slots=True)
class SetIndicator:
    """Host -> shoe: the shoe's LED and buzzer (e.g. red and a beep on a ruling)."""

    led: Led
    blink: bool = False
    buzzer_ms: int = 0


@dataclass(frozen=True, slots=True)
class RequestState:
    """Host -> shoe: answer with a SHOE_STATE."""


@dataclass(frozen=True, slots=True)
class Ping:
    nonce: int


@dataclass(frozen=True, slots=True)
class Pong:
    nonce: int
    ms: int  # the sender's clock when it answered


@dataclass(frozen=True, slots=True)
class Heartbeat:
    ms: int


@dataclass(frozen=True, slots=True)
class Hello:
    """HELLO: versions, identity and where each side's sequence numbers stand."""

    role: Role
    session: int
    peer_session: int  # the session of the peer the sender last synchronised with; 0: none
    reply_wanted: bool
    protocol: tuple[int, int] = (PROTOCOL_MAJOR, PROTOCOL_MINOR)
    software: tuple[int, int, int] = (0, 0, 0)
    serial: str = ""


Message = CardRead | ShoeState | ShoeError | SetIndicator | RequestState | Ping | Pong | Heartbeat | Hello
Sequenced = CardRead | ShoeState | ShoeError | SetIndicator | RequestState
SEQUENCED_TYPES: tuple[type, ...] = (CardRead, ShoeState, ShoeError, SetIndicator, RequestState)

_CARD_HEAD = struct.Struct("<IIBBB")  # read_no, shoe_ms, antenna, face, tag_len
_STATE = struct.Struct("<IBH")  # shoe_ms, flags, dropped
_ERROR_HEAD = struct.Struct("<IHB")  # shoe_ms, code, text_len
_INDICATOR = struct.Struct("<BBH")  # led, blink, buzzer_ms
_HELLO_HEAD = struct.Struct("<BBBII3BB")  # major, minor, flags, session, peer, sw x3, serial_len
_U32 = struct.Struct("<I")
_PONG = struct.Struct("<II")

HELLO_REPLY_WANTED = 0x01
HELLO_FROM_SHOE = 0x02
STATE_LID_OPEN = 0x01
STATE_DECK_PRESENT = 0x02
STATE_JAM = 0x04


def message_type(message: Message) -> MsgType:
    return _TYPE_OF[type(message)]


_TYPE_OF: dict[type, MsgType] = {
    Hello: MsgType.HELLO,
    Heartbeat: MsgType.HEARTBEAT,
    Ping: MsgType.PING,
    Pong: MsgType.PONG,
    CardRead: MsgType.CARD,
    ShoeState: MsgType.SHOE_STATE,
    ShoeError: MsgType.ERROR,
    SetIndicator: MsgType.SET_INDICATOR,
    RequestState: MsgType.REQUEST_STATE,
}


def _u32(value: int, name: str) -> int:
    if not 0 <= value <= U32:
        raise ValueError(f"{name} {value} does not fit in 32 bits")
    return value


def encode_message(message: Message) -> bytes:
    """The payload of ``message``; raises ValueError for a field out of range."""
    if isinstance(message, CardRead):
        if len(message.tag) > MAX_TAG:
            raise ValueError(f"tag of {len(message.tag)} bytes; at most {MAX_TAG}")
        if not 0 <= message.antenna <= 255:
            raise ValueError(f"antenna {message.antenna} is not 0..255")
        return (
            _CARD_HEAD.pack(
                _u32(message.read_no, "read_no"),
                _u32(message.shoe_ms, "shoe_ms"),
                message.antenna,
                int(Face(message.face)),
                len(message.tag),
            )
            + message.tag
        )
    if isinstance(message, ShoeState):
        flags = (
            (STATE_LID_OPEN if message.lid_open else 0)
            | (STATE_DECK_PRESENT if message.deck_present else 0)
            | (STATE_JAM if message.jam else 0)
        )
        return _STATE.pack(_u32(message.shoe_ms, "shoe_ms"), flags, min(message.dropped_reads, 0xFFFF))
    if isinstance(message, ShoeError):
        text = message.text.encode("utf-8")[:MAX_TEXT]
        text = text.decode("utf-8", "ignore").encode("utf-8")  # never cut a character in two
        if not 0 <= message.code <= 0xFFFF:
            raise ValueError(f"error code {message.code} is not 0..65535")
        return _ERROR_HEAD.pack(_u32(message.shoe_ms, "shoe_ms"), message.code, len(text)) + text
    if isinstance(message, SetIndicator):
        if not 0 <= message.buzzer_ms <= 0xFFFF:
            raise ValueError(f"buzzer_ms {message.buzzer_ms} is not 0..65535")
        return _INDICATOR.pack(int(Led(message.led)), 1 if message.blink else 0, message.buzzer_ms)
    if isinstance(message, RequestState):
        return b""
    if isinstance(message, Ping):
        return _U32.pack(_u32(message.nonce, "nonce"))
    if isinstance(message, Pong):
        return _PONG.pack(_u32(message.nonce, "nonce"), _u32(message.ms, "ms"))
    if isinstance(message, Heartbeat):
        return _U32.pack(_u32(message.ms, "ms"))
    serial = message.serial.encode("ascii")
    if len(serial) > MAX_SERIAL:
        raise ValueError(f"serial number of {len(serial)} characters; at most {MAX_SERIAL}")
    flags = (HELLO_REPLY_WANTED if message.reply_wanted else 0) | (
        HELLO_FROM_SHOE if message.role is Role.SHOE else 0
    )
    return (
        _HELLO_HEAD.pack(
            message.protocol[0],
            message.protocol[1],
            flags,
            _u32(message.session, "session"),
            _u32(message.peer_session, "peer_session"),
            *message.software,
            len(serial),
        )
        + serial
    )


def decode_message(type_: int, payload: bytes, receiver: Role | None = None) -> Message:
    """The message in a frame's payload. Raises :class:`FrameError` for an unknown type, a
    type the ``receiver`` never receives, a wrong length or a field out of range."""
    try:
        kind = MsgType(type_)
    except ValueError:
        raise FrameError(f"unknown frame type 0x{type_:02X}") from None
    sender = _SENT_BY.get(kind)
    if sender is not None and receiver is not None and sender is receiver:
        raise FrameError(f"{kind.name} is never sent to the {receiver.value}")
    n = len(payload)
    if kind is MsgType.CARD:
        if n < _CARD_HEAD.size:
            raise FrameError(f"CARD of {n} bytes")
        read_no, shoe_ms, antenna, face, tag_len = _CARD_HEAD.unpack_from(payload)
        if tag_len > MAX_TAG or n != _CARD_HEAD.size + tag_len:
            raise FrameError(f"CARD of {n} bytes with a {tag_len}-byte tag")
        if face > Face.FACE:
            raise FrameError(f"CARD face {face}")
        if read_no == 0:
            raise FrameError("CARD read number 0")
        return CardRead(read_no, bytes(payload[_CARD_HEAD.size :]), antenna, Face(face), shoe_ms)
    if kind is MsgType.SHOE_STATE:
        if n != _STATE.size:
            raise FrameError(f"SHOE_STATE of {n} bytes")
        shoe_ms, flags, dropped = _STATE.unpack(payload)
        if flags & ~(STATE_LID_OPEN | STATE_DECK_PRESENT | STATE_JAM):
            raise FrameError(f"SHOE_STATE flags 0x{flags:02X}")
        return ShoeState(
            shoe_ms,
            bool(flags & STATE_LID_OPEN),
            bool(flags & STATE_DECK_PRESENT),
            bool(flags & STATE_JAM),
            dropped,
        )
    if kind is MsgType.ERROR:
        if n < _ERROR_HEAD.size:
            raise FrameError(f"ERROR of {n} bytes")
        shoe_ms, code, text_len = _ERROR_HEAD.unpack_from(payload)
        if text_len > MAX_TEXT or n != _ERROR_HEAD.size + text_len:
            raise FrameError(f"ERROR of {n} bytes with {text_len} bytes of text")
        try:
            text = bytes(payload[_ERROR_HEAD.size :]).decode("utf-8")
        except UnicodeDecodeError:
            raise FrameError("ERROR text is not UTF-8") from None
        return ShoeError(shoe_ms, code, text)
    if kind is MsgType.SET_INDICATOR:
        if n != _INDICATOR.size:
            raise FrameError(f"SET_INDICATOR of {n} bytes")
        led, blink, buzzer_ms = _INDICATOR.unpack(payload)
        if led > Led.RED or blink > 1:
            raise FrameError(f"SET_INDICATOR led {led} blink {blink}")
        return SetIndicator(Led(led), bool(blink), buzzer_ms)
    if kind is MsgType.REQUEST_STATE:
        if n != 0:
            raise FrameError(f"REQUEST_STATE of {n} bytes")
        return RequestState()
    if kind is MsgType.PING:
        if n != _U32.size:
            raise FrameError(f"PING of {n} bytes")
        return Ping(_U32.unpack(payload)[0])
    if kind is MsgType.PONG:
        if n != _PONG.size:
            raise FrameError(f"PONG of {n} bytes")
        nonce, ms = _PONG.unpack(payload)
        return Pong(nonce, ms)
    if kind is MsgType.HEARTBEAT:
        if n != _U32.size:
            raise FrameError(f"HEARTBEAT of {n} bytes")
        return Heartbeat(_U32.unpack(payload)[0])
    # HELLO
    if n < _HELLO_HEAD.size:
        raise FrameError(f"HELLO of {n} bytes")
    major, minor, flags, session, peer, sw1, sw2, sw3, serial_len = _HELLO_HEAD.unpack_from(payload)
    if serial_len > MAX_SERIAL or n != _HELLO_HEAD.size + serial_len:
        raise FrameError(f"HELLO of {n} bytes with a {serial_len}-byte serial number")
    if flags & ~(HELLO_REPLY_WANTED | HELLO_FROM_SHOE) or session == 0:
        raise FrameError(f"HELLO flags 0x{flags:02X} session {session}")
    serial_bytes = bytes(payload[_HELLO_HEAD.size :])
    if any(not 0x20 <= b < 0x7F for b in serial_bytes):
        raise FrameError("HELLO serial number is not printable ASCII")
    role = Role.SHOE if flags & HELLO_FROM_SHOE else Role.HOST
    if receiver is not None and role is receiver:
        raise FrameError(f"HELLO from a {role.value} to a {receiver.value}")
    return Hello(
        role,
        session,
        peer,
        bool(flags & HELLO_REPLY_WANTED),
        (major, minor),
        (sw1, sw2, sw3),
        serial_bytes.decode("ascii"),
    )


def encode(message: Message, seq: int = 0, ack: int = 0) -> bytes:
    """``message`` as a whole frame on the line (tests, tools, the worked example)."""
    return encode_frame(message_type(message), seq, ack, encode_message(message))
