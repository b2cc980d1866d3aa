"""The card shoe's serial protocol, sans I/O (docs/protocol.md is the specification).

Everything here is pure: bytes and the time come in as arguments, messages and bytes go
out. No clock, no randomness, no threads, no port. The host (:mod:`firmware_bridge.link`)
and the simulated firmware (:mod:`firmware_bridge.simshoe`) run the very same
:class:`ReliableEndpoint`; a real shoe implements the same rules in C.

Layers, bottom up:

* **framing**: COBS-encoded frames between ``0x00`` delimiters (:func:`cobs_encode`,
  :class:`FrameDecoder`); a zero byte never occurs inside a frame, so every ``0x00`` on
  the line is a frame boundary and the receiver resynchronises at the next one whatever
  garbage came before;
* **integrity**: CRC-32C (Castagnoli) over the frame, then a length and field check of
  every message type (:func:`decode_message`): nothing that fails a check is used;
* **reliability**: 8-bit sequence numbers, cumulative acknowledgements carried by every
  frame, a window of 4 frames, go-back-N retransmission on a bounded adaptive timeout, in
  both directions; a session id per boot so that a restarted peer is recognised
  (:class:`ReliableEndpoint`);
* **messages**: typed, frozen dataclasses (:class:`CardRead`, :class:`ShoeState`,
  :class:`ShoeError`, :class:`SetIndicator`, :class:`RequestState`, :class:`Ping`,
  :class:`Pong`).
"""

from __future__ import annotations

import enum
import struct
from collections import deque
from dataclasses import dataclass, fields

# -- constants -----------------------------------------------------------------------------

PROTOCOL_MAJOR = 1
PROTOCOL_MINOR = 0

DELIMITER = 0x00
HEADER_SIZE = 3  # type, seq, ack
CRC_SIZE = 4
MIN_BODY = HEADER_SIZE + CRC_SIZE
MAX_BODY = 64  # header + payload + CRC, before COBS
MAX_PAYLOAD = MAX_BODY - MIN_BODY  # 57
MAX_ENCODED = MAX_BODY + 1  # COBS adds one byte per 254 (frames here are shorter)

MAX_TAG = 32  # bytes of a tag id (4/7/10-byte ISO 14443, 8-byte ISO 15693, 12-byte EPC ...)
MAX_TEXT = 48  # bytes of an ERROR text (UTF-8)
MAX_SERIAL = 24  # bytes of a serial number in HELLO (printable ASCII)

SEQ_MOD = 256
U32 = 0xFFFFFFFF


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


# -- CRC-32C ------------------------------------------------------------------------------

CRC32C_POLY_REFLECTED = 0x82F63B78  # 0x1EDC6F41 reflected
CRC32C_CHECK = 0xE3069283  # crc32c(b"123456789")


def _crc_table() -> tuple[int, ...]:
    table = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ CRC32C_POLY_REFLECTED if crc & 1 else crc >> 1
        table.append(crc)
    return tuple(table)


_CRC_TABLE = _crc_table()


def crc32c(data: bytes | bytearray | memoryview) -> int:
    """CRC-32C (Castagnoli): refin, refout, init and xorout 0xFFFFFFFF; check 0xE3069283."""
    crc = U32
    table = _CRC_TABLE
    for byte in data:
        crc = table[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ U32


# -- COBS ---------------------------------------------------------------------------------


class FrameError(ValueError):
    """Bytes that are not a valid frame (bad COBS, CRC, length, type or field)."""


def cobs_encode(data: bytes) -> bytes:
    """Consistent Overhead Byte Stuffing: the result holds no zero byte."""
    out = bytearray()
    for part in data.split(b"\x00"):
        while len(part) >= 254:
            out.append(0xFF)
            out += part[:254]
            part = part[254:]
        out.append(len(part) + 1)
        out += part
    return bytes(out)


def cobs_decode(data: bytes | bytearray) -> bytes:
    """Undo :func:`cobs_encode`; raises :class:`FrameError` for bytes no encoder makes."""
    out = bytearray()
    i = 0
    n = len(data)
    while i < n:
        code = data[i]
        if code == 0:
            raise FrameError("zero byte inside a COBS frame")
        end = i + code
        if end > n:
            raise FrameError("COBS block runs past the end of the frame")
        block = data[i + 1 : end]
        if 0 in block:
            raise FrameError("zero byte inside a COBS frame")
        out += block
        i = end
        if code != 0xFF and i < n:
            out.append(0)
    return bytes(out)


# -- frames -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RawFrame:
    """A frame whose COBS and CRC are good; its payload is not checked yet."""

    type: int
    seq: int
    ack: int
    payload: bytes


def frame_body(type_: int, seq: int, ack: int, payload: bytes) -> bytes:
    """Header, payload and CRC: the bytes before COBS."""
    if len(payload) > MAX_PAYLOAD:
        raise FrameError(f"payload of {len(payload)} bytes; at most {MAX_PAYLOAD}")
    head = bytes((type_ & 0xFF, seq & 0xFF, ack & 0xFF)) + payload
    return head + crc32c(head).to_bytes(4, "little")


def encode_frame(type_: int, seq: int, ack: int, payload: bytes = b"") -> bytes:
    """A whole frame as it goes on the line: ``00``, COBS(header payload CRC), ``00``."""
    return b"\x00" + cobs_encode(frame_body(type_, seq, ack, payload)) + b"\x00"


def parse_body(body: bytes) -> RawFrame:
    """Check the CRC and split the header; raises :class:`FrameError`."""
    if len(body) < MIN_BODY:
        raise FrameError(f"frame of {len(body)} bytes; at least {MIN_BODY}")
    if len(body) > MAX_BODY:
        raise FrameError(f"frame of {len(body)} bytes; at most {MAX_BODY}")
    if crc32c(body[:-CRC_SIZE]) != int.from_bytes(body[-CRC_SIZE:], "little"):
        raise FrameError("CRC mismatch")
    return RawFrame(body[0], body[1], body[2], bytes(body[HEADER_SIZE:-CRC_SIZE]))


@dataclass(slots=True)
class DecoderCounters:
    frames: int = 0  # frames with good COBS and CRC
    bytes: int = 0
    framing_errors: int = 0  # bad COBS, too short, too long (counted once per bad stretch)
    crc_errors: int = 0


class FrameDecoder:
    """Bytes in, CRC-checked frames out. Splits the stream at every ``0x00``; a stretch
    without a delimiter longer than any frame is dropped (one framing error) up to the
    next delimiter, so memory stays bounded whatever the line carries."""

    def __init__(self) -> None:
        self._buf = bytearray()
        self._discarding = False
        self.counters = DecoderCounters()

    def reset(self) -> None:
        """Forget a partial frame (the port was reopened)."""
        self._buf.clear()
        self._discarding = False

    def feed(self, data: bytes | bytearray) -> list[RawFrame]:
        self.counters.bytes += len(data)
        if DELIMITER not in data:
            if not self._discarding:
                self._buf += data
                if len(self._buf) > MAX_ENCODED:
                    self._buf.clear()
                    self._discarding = True
                    self.counters.framing_errors += 1
            return []
        self._buf += data
        parts = self._buf.split(b"\x00")
        self._buf = bytearray(parts[-1])
        frames: list[RawFrame] = []
        first = True
        for part in parts[:-1]:
            if first and self._discarding:
                self._discarding = False
                first = False
                continue
            first = False
            if not part:
                continue
            frame = self._frame(part)
            if frame is not None:
                frames.append(frame)
        if len(self._buf) > MAX_ENCODED:
            self._buf.clear()
            self._discarding = True
            self.counters.framing_errors += 1
        return frames

    def _frame(self, encoded: bytes | bytearray) -> RawFrame | None:
        if len(encoded) > MAX_ENCODED:
            self.counters.framing_errors += 1
            return None
        try:
            body = cobs_decode(encoded)
        except FrameError:
            self.counters.framing_errors += 1
            return None
        if not MIN_BODY <= len(body) <= MAX_BODY:
            self.counters.framing_errors += 1
            return None
        if crc32c(body[:-CRC_SIZE]) != int.from_bytes(body[-CRC_SIZE:], "little"):
            self.counters.crc_errors += 1
            return None
        self.counters.frames += 1
        return RawFrame(body[0], body[1], body[2], body[HEADER_SIZE:-CRC_SIZE])


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


# -- the peer's clock ---------------------------------------------------------------------


class PeerClock:
    """Maps the peer's millisecond clock (u32, wraps after 49.7 days) to local time.

    Each sample (peer ms, local time it arrived) bounds the offset from above by the
    transit delay; the least offset over a sliding window is the best estimate and
    follows the crystals' slow drift. Stale samples (a retransmitted read) only give
    larger offsets, so they never spoil it."""

    def __init__(self, window: float = 30.0) -> None:
        self.window = window
        self._last_raw: int | None = None
        self._last: int = 0
        self._mins: deque[tuple[float, float]] = deque()

    def reset(self) -> None:
        self._last_raw = None
        self._mins.clear()

    def _unwrap(self, ms: int, update: bool) -> int:
        if self._last_raw is None:
            if update:
                self._last_raw, self._last = ms, ms
            return ms
        delta = (ms - self._last_raw) & U32
        if delta >= 1 << 31:
            delta -= 1 << 32
        value = self._last + delta
        if update and delta > 0:
            self._last_raw, self._last = ms, value
        return value

    def sample(self, ms: int, local: float) -> None:
        offset = local - self._unwrap(ms, True) / 1000.0
        mins = self._mins
        while mins and mins[-1][1] >= offset:
            mins.pop()
        mins.append((local, offset))
        while mins[0][0] < local - self.window and len(mins) > 1:
            mins.popleft()

    def to_local(self, ms: int) -> float | None:
        """The local time at which the peer's clock read ``ms``; None before any sample."""
        if not self._mins:
            return None
        return self._unwrap(ms, False) / 1000.0 + self._mins[0][1]


# -- the reliable endpoint ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LinkConfig:
    """Timers in seconds. The defaults suit 115200 baud over a USB serial adapter."""

    window: int = 4  # sequenced frames in flight (the MCU keeps a copy of each)
    rto_initial: float = 0.100
    rto_min: float = 0.030
    rto_max: float = 0.500
    heartbeat: float = 0.200  # send a HEARTBEAT after this long without sending anything
    dead_after: float = 0.800  # no valid frame for this long: the link is down
    hello_interval: float = 0.250  # while synchronising
    max_queue: int = 256  # sequenced messages waiting for the window (a shoe: what its RAM holds)

    def __post_init__(self) -> None:
        if not 1 <= self.window <= 16:
            raise ValueError("window must be 1..16 frames")
        if not 0 < self.rto_min <= self.rto_initial <= self.rto_max:
            raise ValueError("need 0 < rto_min <= rto_initial <= rto_max")
        if self.dead_after <= self.heartbeat:
            raise ValueError("dead_after must be longer than the heartbeat interval")


class LinkState(enum.Enum):
    SYNCING = "syncing"  # exchanging HELLOs; no data is sent, received data is ignored
    CONNECTED = "connected"
    INCOMPATIBLE = "incompatible"  # the peer speaks another major protocol version


@dataclass(frozen=True, slots=True)
class PeerInfo:
    role: Role
    session: int
    protocol: tuple[int, int]
    software: tuple[int, int, int]
    serial: str

    @staticmethod
    def of(hello: Hello) -> PeerInfo:
        return PeerInfo(hello.role, hello.session, hello.protocol, hello.software, hello.serial)


@dataclass(frozen=True, slots=True)
class Delivered:
    """A message from the peer, delivered once, in the order it was sent."""

    message: Message
    session: int  # the peer's session id (changes when the peer restarts)
    seq: int | None  # the sequence number of a sequenced message, else None


@dataclass(frozen=True, slots=True)
class Connected:
    """The HELLO exchange is done. ``previous_session`` is the peer's session before (None
    at first contact); ``resumed``: the same session, so nothing it sent is lost."""

    peer: PeerInfo
    previous_session: int | None
    resumed: bool


@dataclass(frozen=True, slots=True)
class LinkDown:
    reason: str
    silent_for: float  # seconds since the last valid frame from the peer


@dataclass(frozen=True, slots=True)
class Incompatible:
    peer: PeerInfo
    reason: str


LinkEvent = Delivered | Connected | LinkDown | Incompatible


@dataclass(frozen=True, slots=True)
class Step:
    events: list[LinkEvent]
    frames: list[bytes]  # whole frames to write, in order

    @property
    def data(self) -> bytes:
        return b"".join(self.frames)


@dataclass(slots=True)
class Counters:
    frames_sent: int = 0
    frames_received: int = 0  # valid frames (COBS, CRC and fields good)
    bad_frames: int = 0  # framing errors + CRC errors + malformed
    framing_errors: int = 0
    crc_errors: int = 0
    malformed: int = 0  # CRC good but type, direction, length or a field wrong
    retransmits: int = 0  # sequenced frames sent again
    timeouts: int = 0  # retransmission timer expiries
    duplicates_dropped: int = 0  # sequenced frames already delivered
    out_of_order_dropped: int = 0  # sequenced frames after a gap (go-back-N resends them)
    ignored_while_syncing: int = 0
    delivered: int = 0  # sequenced messages delivered
    acked: int = 0  # own sequenced messages acknowledged by the peer
    bad_acks: int = 0  # acknowledgements of frames never sent (ignored)
    hellos_sent: int = 0
    hellos_received: int = 0
    link_downs: int = 0
    peer_restarts: int = 0
    protocol_errors: int = 0

    def as_dict(self) -> dict[str, int]:
        return {f.name: int(getattr(self, f.name)) for f in fields(self)}


@dataclass(slots=True)
class _InFlight:
    seq: int
    frame_type: int
    payload: bytes
    sent_at: float
    retransmitted: bool = False


def _seq_diff(a: int, b: int) -> int:
    """``a - b`` modulo 256, as -128..127."""
    d = (a - b) & 0xFF
    return d - SEQ_MOD if d >= 128 else d


class ReliableEndpoint:
    """One end of the link: bytes and time in; messages, link events and bytes out.

    Used the same way by the host and by a (simulated) shoe::

        ep = ReliableEndpoint(Role.HOST, session=random_nonzero_u32)
        ep.start(now)
        while True:
            step = ep.step(now, bytes_read)      # events to act on, frames to write
            ...
            ep.send(SetIndicator(Led.RED), now)  # queued; goes out in the next step
            wait until data arrives or ep.next_deadline()

    ``session`` must be a different non-zero number every time the program or firmware
    starts: it is how the peer tells a restart from a reconnection.

    With ``auto_confirm`` (the default) a sequenced message is acknowledged as soon as it
    is delivered. Without it, the acknowledgement waits for :meth:`confirm` (e.g. once the
    card is in the journal): the shoe then keeps the read until the host has stored it.
    """

    def __init__(
        self,
        role: Role,
        session: int,
        *,
        config: LinkConfig | None = None,
        software: tuple[int, int, int] = (0, 0, 0),
        serial: str = "",
        protocol: tuple[int, int] = (PROTOCOL_MAJOR, PROTOCOL_MINOR),
        auto_confirm: bool = True,
    ) -> None:
        if not 0 < session <= U32:
            raise ValueError("session must be a non-zero 32-bit number, different at every start")
        self.role = role
        self.session = session
        self.config = config or LinkConfig()
        self.software = software
        self.serial = serial
        self.protocol = protocol
        self.auto_confirm = auto_confirm
        self.counters = Counters()
        self.state = LinkState.SYNCING
        self.peer: PeerInfo | None = None
        self.peer_clock = PeerClock()
        self._decoder = FrameDecoder()
        # transmit side
        self._tx_base = 0  # oldest unacknowledged sequence number
        self._tx_next = 0  # next sequence number to assign
        self._in_flight: deque[_InFlight] = deque()
        self._queue: deque[Sequenced] = deque()
        self._resend_from = -1  # index into _in_flight to resend from; -1: nothing
        self._unsequenced: list[tuple[int, bytes]] = []
        self._srtt: float | None = None
        self._rttvar = 0.0
        self._rto = self.config.rto_initial
        self._backoff = 1.0
        self._rtx_deadline: float | None = None
        # receive side
        self._rx_session: int | None = None
        self._rx_next = 0  # next sequence number to deliver
        self._rx_confirmed = 0  # what we acknowledge (== _rx_next with auto_confirm)
        self._ack_due = False
        # link
        self._last_rx: float | None = None
        self._last_tx = float("-inf")
        self._hello_due: float | None = None
        self._hello_reply_due = False
        self._incompatible_seen: tuple[int, tuple[int, int]] | None = None
        self._connected_session: int | None = None  # the peer's session when last connected
        self._restart_pending = False  # the peer restarted since we were last connected
        self._decoder_seen = (0, 0)

    # -- the caller's side ----------------------------------------------------------------

    def start(self, now: float) -> None:
        """Begin (or begin again, after the port was reopened) the HELLO exchange."""
        self.resync(now)

    def resync(self, now: float) -> None:
        """Synchronise again: the line was interrupted. Nothing queued or unacknowledged is
        dropped; it goes out once the peer has answered."""
        self.state = LinkState.SYNCING
        self._hello_due = now
        self._decoder.reset()
        self._last_rx = None

    def send(self, message: Sequenced, now: float) -> bool:
        """Queue a sequenced message; False (and nothing queued) when the queue is full."""
        if not isinstance(message, SEQUENCED_TYPES):
            raise TypeError(f"{type(message).__name__} is not a sequenced message")
        kind = message_type(message)
        if _SENT_BY[kind] is not self.role:
            raise ValueError(f"a {self.role.value} does not send {kind.name}")
        encode_message(message)  # raises now, in the caller, for a field out of range
        if len(self._queue) >= self.config.max_queue:
            return False
        self._queue.append(message)
        return True

    def ping(self, nonce: int) -> None:
        """Send a PING (answered by a PONG, delivered as a :class:`Delivered`); PINGs asked
        for while not connected wait, at most 8 of them."""
        if len(self._unsequenced) < 8:
            self._unsequenced.append((MsgType.PING, encode_message(Ping(nonce & U32))))

    def confirm(self, seq: int) -> None:
        """Acknowledge sequenced messages up to and including ``seq`` (without auto_confirm)."""
        d = _seq_diff(seq + 1, self._rx_confirmed)
        if 0 < d <= _seq_diff(self._rx_next, self._rx_confirmed):
            self._rx_confirmed = (seq + 1) & 0xFF
            self._ack_due = True

    @property
    def pending(self) -> int:
        """Sequenced messages not yet acknowledged by the peer (in flight and queued)."""
        return len(self._in_flight) + len(self._queue)

    @property
    def queue_space(self) -> int:
        return self.config.max_queue - len(self._queue)

    @property
    def rto(self) -> float:
        return min(self._rto * self._backoff, self.config.rto_max)

    def next_deadline(self) -> float:
        """When :meth:`step` must next be called even if no byte arrives."""
        c = self.config
        times: list[float] = []
        if self.state is LinkState.CONNECTED:
            if self._rtx_deadline is not None:
                times.append(self._rtx_deadline)
            times.append(self._last_tx + c.heartbeat)
            if self._last_rx is not None:
                times.append(self._last_rx + c.dead_after)
            if self._ack_due or self._unsequenced or self._hello_reply_due:
                times.append(float("-inf"))
            if self._queue and len(self._in_flight) < c.window:
                times.append(float("-inf"))
        elif self._hello_due is not None:
            times.append(self._hello_due)
        if self._hello_reply_due:
            times.append(float("-inf"))
        return min(times) if times else float("inf")

    def step(self, now: float, data: bytes = b"") -> Step:
        """Take the bytes read (possibly none) at time ``now``; return what happened and the
        frames to write."""
        events: list[LinkEvent] = []
        if data:
            for raw in self._decoder.feed(data):
                self._handle(raw, now, events)
            self._sync_decoder_counters()
        self._timers(now, events)
        return Step(events, self._transmit(now))

    # -- receiving ------------------------------------------------------------------------

    def _sync_decoder_counters(self) -> None:
        dc = self._decoder.counters
        framing, crc = dc.framing_errors - self._decoder_seen[0], dc.crc_errors - self._decoder_seen[1]
        if framing or crc:
            self._decoder_seen = (dc.framing_errors, dc.crc_errors)
            self.counters.framing_errors += framing
            self.counters.crc_errors += crc
            self.counters.bad_frames += framing + crc

    def _handle(self, raw: RawFrame, now: float, events: list[LinkEvent]) -> None:
        try:
            message = decode_message(raw.type, raw.payload, self.role)
        except FrameError:
            self.counters.malformed += 1
            self.counters.bad_frames += 1
            return
        self.counters.frames_received += 1
        self._last_rx = now
        if isinstance(message, Hello):
            self._on_hello(message, raw, now, events)
            return
        if self.state is not LinkState.CONNECTED:
            self.counters.ignored_while_syncing += 1
            return
        self._on_ack(raw.ack, now)
        if raw.type & SEQUENCED_BIT:
            self._on_sequenced(message, raw.seq, now, events)
        elif isinstance(message, Heartbeat):
            self.peer_clock.sample(message.ms, now)
        elif isinstance(message, Ping):
            self._unsequenced.append((MsgType.PONG, encode_message(Pong(message.nonce, self._ms(now)))))
        elif isinstance(message, Pong):
            self.peer_clock.sample(message.ms, now)
            assert self._rx_session is not None
            events.append(Delivered(message, self._rx_session, None))

    def _on_sequenced(self, message: Message, seq: int, now: float, events: list[LinkEvent]) -> None:
        self._ack_due = True
        d = _seq_diff(seq, self._rx_next)
        if d < 0:
            self.counters.duplicates_dropped += 1
            return
        if d > 0:
            self.counters.out_of_order_dropped += 1
            return
        self._rx_next = (self._rx_next + 1) & 0xFF
        if self.auto_confirm:
            self._rx_confirmed = self._rx_next
        self.counters.delivered += 1
        if isinstance(message, (CardRead, ShoeState, ShoeError)):
            self.peer_clock.sample(message.shoe_ms, now)
        assert self._rx_session is not None
        events.append(Delivered(message, self._rx_session, seq))

    def _on_ack(self, ack: int, now: float) -> None:
        n = (ack - self._tx_base) & 0xFF
        if n == 0:
            return
        if n > len(self._in_flight):
            self.counters.bad_acks += 1
            return
        newest: _InFlight | None = None
        for _ in range(n):
            newest = self._in_flight.popleft()
        assert newest is not None
        self._tx_base = ack
        self.counters.acked += n
        if self._resend_from >= 0:
            self._resend_from = max(0, self._resend_from - n)
            if self._resend_from >= len(self._in_flight):
                self._resend_from = -1
        if not newest.retransmitted:  # Karn: no RTT sample from a frame sent twice
            self._rtt_sample(now - newest.sent_at)
        self._backoff = 1.0
        self._rtx_deadline = now + self.rto if self._in_flight else None

    def _rtt_sample(self, rtt: float) -> None:
        if self._srtt is None:
            self._srtt, self._rttvar = rtt, rtt / 2
        else:
            self._rttvar = 0.75 * self._rttvar + 0.25 * abs(self._srtt - rtt)
            self._srtt = 0.875 * self._srtt + 0.125 * rtt
        c = self.config
        self._rto = min(max(self._srtt + 4 * self._rttvar, c.rto_min), c.rto_max)

    def _on_hello(self, hello: Hello, raw: RawFrame, now: float, events: list[LinkEvent]) -> None:
        self.counters.hellos_received += 1
        if hello.protocol[0] != self.protocol[0]:
            self._on_incompatible(hello, events)
            return
        self._incompatible_seen = None
        if self.state is LinkState.INCOMPATIBLE:
            self.state = LinkState.SYNCING
        previous = self._rx_session
        tx_base = raw.seq
        restarted = previous is not None and previous != hello.session
        if previous == hello.session:
            behind = _seq_diff(self._rx_next, tx_base)  # frames we have that the peer still holds
            if not 0 <= behind <= self.config.window:
                # The peer's numbers cannot follow from ours: it restarted with the same
                # session id (a firmware bug). Start over rather than drop or invent reads.
                self.counters.protocol_errors += 1
                restarted = True
        if previous is None or restarted:
            self._rx_session = hello.session
            self._rx_next = tx_base
            self._rx_confirmed = tx_base
            self.peer_clock.reset()
        if restarted:
            self.counters.peer_restarts += 1
            self._restart_pending = True
        self.peer = PeerInfo.of(hello)
        knows_us = hello.peer_session == self.session
        if self.state is LinkState.CONNECTED and (restarted or not knows_us):
            self.counters.link_downs += 1
            events.append(LinkDown("the peer restarted", 0.0))
            self.state = LinkState.SYNCING
        if knows_us:
            self._on_ack(raw.ack, now)
            if self._in_flight and hello.reply_wanted:
                # The peer was synchronising (its port reopened, or it lost us): it ignored
                # what we sent meanwhile. Go back N at once rather than on the timer.
                self._resend_from = 0
                self._rtx_deadline = now
            if self.state is not LinkState.CONNECTED:
                self.state = LinkState.CONNECTED
                self._hello_due = None
                before = self._connected_session
                resumed = before == hello.session and not self._restart_pending
                self._connected_session = hello.session
                self._restart_pending = False
                events.append(Connected(self.peer, before, resumed))
        else:
            self.state = LinkState.SYNCING
            if self._hello_due is None:
                self._hello_due = now + self.config.hello_interval
        if hello.reply_wanted or not knows_us:
            self._hello_reply_due = True

    def _on_incompatible(self, hello: Hello, events: list[LinkEvent]) -> None:
        key = (hello.session, hello.protocol)
        if self._incompatible_seen != key:
            self._incompatible_seen = key
            mine = f"{self.protocol[0]}.{self.protocol[1]}"
            theirs = f"{hello.protocol[0]}.{hello.protocol[1]}"
            events.append(
                Incompatible(PeerInfo.of(hello), f"the peer speaks protocol {theirs}, we speak {mine}")
            )
        if self.state is LinkState.CONNECTED:
            self.counters.link_downs += 1
            events.append(LinkDown("the peer speaks another protocol version", 0.0))
        self.state = LinkState.INCOMPATIBLE
        if self._hello_due is None:
            self._hello_due = 0.0
        self.peer = PeerInfo.of(hello)
        if hello.reply_wanted:
            self._hello_reply_due = True

    # -- timers and sending ---------------------------------------------------------------

    def _timers(self, now: float, events: list[LinkEvent]) -> None:
        if self.state is not LinkState.CONNECTED:
            return
        c = self.config
        if self._last_rx is not None and now - self._last_rx >= c.dead_after:
            self.state = LinkState.SYNCING
            self._hello_due = now
            self.counters.link_downs += 1
            events.append(LinkDown("no frame from the peer", now - self._last_rx))
            return
        if self._rtx_deadline is not None and now >= self._rtx_deadline and self._in_flight:
            if self._resend_from != 0:
                self.counters.timeouts += 1
                self._backoff = min(self._backoff * 2, 64.0)
            self._resend_from = 0

    def _ms(self, now: float) -> int:
        return int(now * 1000) & U32

    def _frame(self, type_: int, seq: int, payload: bytes, now: float, out: list[bytes]) -> None:
        ack = self._rx_confirmed if self._rx_session is not None else 0
        out.append(encode_frame(type_, seq, ack, payload))
        self.counters.frames_sent += 1
        self._last_tx = now
        self._ack_due = False

    def _hello(self, now: float, out: list[bytes]) -> None:
        # A reply is wanted only while synchronising: a connected endpoint has nothing to
        # learn, and two incompatible ones would answer each other for ever.
        hello = Hello(
            self.role,
            self.session,
            self._rx_session or 0,
            self.state is LinkState.SYNCING,
            self.protocol,
            self.software,
            self.serial,
        )
        self._frame(MsgType.HELLO, self._tx_base, encode_message(hello), now, out)
        self.counters.hellos_sent += 1

    def _transmit(self, now: float) -> list[bytes]:
        out: list[bytes] = []
        c = self.config
        if self._hello_reply_due:
            self._hello_reply_due = False
            self._hello(now, out)
            if self.state is not LinkState.CONNECTED and self._hello_due is not None:
                self._hello_due = now + c.hello_interval
        if self.state is not LinkState.CONNECTED:
            if self._hello_due is not None and now >= self._hello_due:
                self._hello(now, out)
                interval = c.hello_interval * (4 if self.state is LinkState.INCOMPATIBLE else 1)
                self._hello_due = now + interval
            return out
        # go-back-N resends
        if self._resend_from >= 0:
            for item in list(self._in_flight)[self._resend_from :]:
                item.sent_at = now
                item.retransmitted = True
                self.counters.retransmits += 1
                self._frame(item.frame_type, item.seq, item.payload, now, out)
            self._resend_from = -1
            self._rtx_deadline = now + self.rto
        # new messages into the window
        while self._queue and len(self._in_flight) < c.window:
            message = self._queue.popleft()
            kind = message_type(message)
            item = _InFlight(self._tx_next, kind, encode_message(message), now)
            self._tx_next = (self._tx_next + 1) & 0xFF
            self._in_flight.append(item)
            self._frame(kind, item.seq, item.payload, now, out)
            if self._rtx_deadline is None:
                self._rtx_deadline = now + self.rto
        for frame_type, payload in self._unsequenced:
            self._frame(frame_type, 0, payload, now, out)
        self._unsequenced.clear()
        if self._ack_due or now - self._last_tx >= c.heartbeat:
            self._frame(MsgType.HEARTBEAT, 0, encode_message(Heartbeat(self._ms(now))), now, out)
        return out
