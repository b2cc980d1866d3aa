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

One module per concern: :mod:`~firmware_bridge.protocol.framing` (CRC-32C, COBS, frames,
the decoder), :mod:`~firmware_bridge.protocol.messages` (message types and their bytes),
:mod:`~firmware_bridge.protocol.clock` (the peer's clock),
:mod:`~firmware_bridge.protocol.endpoint` (:class:`LinkConfig`, :class:`ReliableEndpoint`
and what it reports). Every name is also here, as ``firmware_bridge.protocol.NAME``.
"""

from __future__ import annotations

from firmware_bridge.protocol.clock import PeerClock
from firmware_bridge.protocol.endpoint import (
    SEQ_MOD,
    Connected,
    Counters,
    Delivered,
    Incompatible,
    LinkConfig,
    LinkDown,
    LinkEvent,
    LinkState,
    PeerInfo,
    ReliableEndpoint,
    Step,
)
from firmware_bridge.protocol.framing import (
    CRC32C_CHECK,
    CRC32C_POLY_REFLECTED,
    CRC_SIZE,
    DELIMITER,
    HEADER_SIZE,
    MAX_BODY,
    MAX_ENCODED,
    MAX_PAYLOAD,
    MIN_BODY,
    U32,
    DecoderCounters,
    FrameDecoder,
    FrameError,
    RawFrame,
    cobs_decode,
    cobs_encode,
    crc32c,
    encode_frame,
    frame_body,
    parse_body,
)
from firmware_bridge.protocol.messages import (
    HELLO_FROM_SHOE,
    HELLO_REPLY_WANTED,
    MAX_SERIAL,
    MAX_TAG,
    MAX_TEXT,
    PROTOCOL_MAJOR,
    PROTOCOL_MINOR,
    SEQUENCED_BIT,
    SEQUENCED_TYPES,
    STATE_DECK_PRESENT,
    STATE_JAM,
    STATE_LID_OPEN,
    CardRead,
    ErrorCode,
    Face,
    Heartbeat,
    Hello,
    Led,
    Message,
    MsgType,
    Ping,
    Pong,
    RequestState,
    Role,
    Sequenced,
    SetIndicator,
    ShoeError,
    ShoeState,
    decode_message,
    encode,
    encode_message,
    message_type,
)

__all__ = [
    "PROTOCOL_MAJOR",
    "PROTOCOL_MINOR",
    "DELIMITER",
    "HEADER_SIZE",
    "CRC_SIZE",
    "MIN_BODY",
    "MAX_BODY",
    "MAX_PAYLOAD",
    "MAX_ENCODED",
    "MAX_TAG",
    "MAX_TEXT",
    "MAX_SERIAL",
    "SEQ_MOD",
    "U32",
    "MsgType",
    "SEQUENCED_BIT",
    "Role",
    "Face",
    "Led",
    "ErrorCode",
    "CRC32C_POLY_REFLECTED",
    "CRC32C_CHECK",
    "crc32c",
    "FrameError",
    "cobs_encode",
    "cobs_decode",
    "RawFrame",
    "frame_body",
    "encode_frame",
    "parse_body",
    "DecoderCounters",
    "FrameDecoder",
    "CardRead",
    "ShoeState",
    "ShoeError",
    "SetIndicator",
    "RequestState",
    "Ping",
    "Pong",
    "Heartbeat",
    "Hello",
    "Message",
    "Sequenced",
    "SEQUENCED_TYPES",
    "HELLO_REPLY_WANTED",
    "HELLO_FROM_SHOE",
    "STATE_LID_OPEN",
    "STATE_DECK_PRESENT",
    "STATE_JAM",
    "message_type",
    "encode_message",
    "decode_message",
    "encode",
    "PeerClock",
    "LinkConfig",
    "LinkState",
    "PeerInfo",
    "Delivered",
    "Connected",
    "LinkDown",
    "Incompatible",
    "LinkEvent",
    "Step",
    "Counters",
    "ReliableEndpoint",
]
