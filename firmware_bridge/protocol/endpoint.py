"""The shoe protocol's reliability (docs/protocol.md): :class:`ReliableEndpoint`, both ends' rules.

8-bit sequence numbers, cumulative acknowledgements carried by every frame, a window of
frames in flight, go-back-N retransmission on a bounded adaptive timeout, in both
directions; a session id per boot so that a restarted peer is recognised. Bytes and the
time come in as arguments; :class:`Step` (link events and frames to write) comes out.
"""

from __future__ import annotations

import enum
from collections import deque
from dataclasses import dataclass, fields

from firmware_bridge.protocol.clock import PeerClock
from firmware_bridge.protocol.framing import U32, FrameDecoder, FrameError, RawFrame, encode_frame
from firmware_bridge.protocol.messages import (
    _SENT_BY,
    PROTOCOL_MAJOR,
    PROTOCOL_MINOR,
    SEQUENCED_BIT,
    SEQUENCED_TYPES,
    CardRead,
    Heartbeat,
    Hello,
    Message,
    MsgType,
    Ping,
    Pong,
    Role,
    Sequenced,
    ShoeError,
    ShoeState,
    decode_message,
    encode_message,
    message_type,
)

SEQ_MOD = 256


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
