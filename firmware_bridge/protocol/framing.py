"""The shoe protocol's framing and integrity (docs/protocol.md): CRC-32C, COBS, frames.

COBS-encoded frames between ``0x00`` delimiters (:func:`cobs_encode`, :class:`FrameDecoder`);
a zero byte never occurs inside a frame, so every ``0x00`` on the line is a frame boundary
and the receiver resynchronises at the next one whatever garbage came before. Each frame
carries a CRC-32C (Castagnoli) over its header and payload; nothing that fails it is used.
"""

from __future__ import annotations

from dataclasses import dataclass

DELIMITER = 0x00
HEADER_SIZE = 3  # type, seq, ack
CRC_SIZE = 4
MIN_BODY = HEADER_SIZE + CRC_SIZE
MAX_BODY = 64  # header + payload + CRC, before COBS
MAX_PAYLOAD = MAX_BODY - MIN_BODY  # 57
MAX_ENCODED = MAX_BODY + 1  # COBS adds one byte per 254 (frames here are shorter)

U32 = 0xFFFFFFFF


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
