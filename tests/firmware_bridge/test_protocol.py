"""The shoe's serial protocol, pure: framing, CRC, messages, and the reliable endpoint
driven by a simulated clock through a faulty line (docs/protocol.md)."""

from __future__ import annotations

import random
from collections import deque
from dataclasses import dataclass, field

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge.faults import FaultInjector, Faults
from firmware_bridge.protocol import (
    CRC32C_CHECK,
    MAX_ENCODED,
    CardRead,
    Connected,
    Delivered,
    ErrorCode,
    Face,
    FrameDecoder,
    FrameError,
    Hello,
    Incompatible,
    Led,
    LinkConfig,
    LinkDown,
    LinkEvent,
    LinkState,
    MsgType,
    PeerClock,
    Ping,
    Pong,
    ReliableEndpoint,
    RequestState,
    Role,
    SetIndicator,
    ShoeError,
    ShoeState,
    cobs_decode,
    cobs_encode,
    crc32c,
    decode_message,
    encode,
    encode_frame,
    encode_message,
    frame_body,
    parse_body,
)

# -- CRC and COBS ------------------------------------------------------------------------


def test_crc32c_check_value_and_iscsi_vectors() -> None:
    assert crc32c(b"123456789") == CRC32C_CHECK == 0xE3069283
    # RFC 3720 (iSCSI) appendix B.4
    assert crc32c(bytes(32)) == 0x8A9136AA
    assert crc32c(b"\xff" * 32) == 0x62A8AB43
    assert crc32c(bytes(range(32))) == 0x46DD794E
    assert crc32c(bytes(range(31, -1, -1))) == 0x113FDB5C


def test_cobs_known_vectors() -> None:
    assert cobs_encode(b"") == b"\x01"
    assert cobs_encode(b"\x00") == b"\x01\x01"
    assert cobs_encode(b"\x11\x22\x00\x33") == b"\x03\x11\x22\x02\x33"
    assert cobs_encode(b"\x11\x00\x00\x00") == b"\x02\x11\x01\x01\x01"
    run = bytes(range(1, 255))
    assert cobs_encode(run) == b"\xff" + run + b"\x01"
    for raw in (b"", b"\x00", b"\x11\x22\x00\x33", run, run + b"\x00" + run):
        assert cobs_decode(cobs_encode(raw)) == raw


@given(st.binary(max_size=600))
def test_cobs_round_trip_never_holds_a_zero(data: bytes) -> None:
    encoded = cobs_encode(data)
    assert 0 not in encoded
    assert cobs_decode(encoded) == data
    assert len(encoded) <= len(data) + 1 + len(data) // 254


def test_cobs_decode_rejects_what_no_encoder_makes() -> None:
    for bad in (b"\x05\x11", b"\x00", b"\x03\x11\x00"):
        with pytest.raises(FrameError):
            cobs_decode(bad)


# -- messages -----------------------------------------------------------------------------

u32 = st.integers(0, 0xFFFFFFFF)
cards = st.builds(
    CardRead,
    read_no=st.integers(1, 0xFFFFFFFF),
    tag=st.binary(max_size=32),
    antenna=st.integers(0, 255),
    face=st.sampled_from(Face),
    shoe_ms=u32,
)
states = st.builds(
    ShoeState,
    shoe_ms=u32,
    lid_open=st.booleans(),
    deck_present=st.booleans(),
    jam=st.booleans(),
    dropped_reads=st.integers(0, 0xFFFF),
)
errors = st.builds(ShoeError, shoe_ms=u32, code=st.integers(0, 0xFFFF), text=st.text(max_size=16))
indicators = st.builds(
    SetIndicator, led=st.sampled_from(Led), blink=st.booleans(), buzzer_ms=st.integers(0, 0xFFFF)
)
hellos = st.builds(
    Hello,
    role=st.sampled_from(Role),
    session=st.integers(1, 0xFFFFFFFF),
    peer_session=u32,
    reply_wanted=st.booleans(),
    protocol=st.tuples(st.integers(0, 255), st.integers(0, 255)),
    software=st.tuples(st.integers(0, 255), st.integers(0, 255), st.integers(0, 255)),
    serial=st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=24),
)
messages = st.one_of(
    cards,
    states,
    errors,
    indicators,
    hellos,
    st.just(RequestState()),
    st.builds(Ping, u32),
    st.builds(Pong, u32, u32),
)


@given(messages, st.integers(0, 255), st.integers(0, 255))
@settings(max_examples=400)
def test_every_message_round_trips_through_a_frame(message: object, seq: int, ack: int) -> None:
    wire = encode(message, seq, ack)  # type: ignore[arg-type]
    assert wire[0] == 0 and wire[-1] == 0 and 0 not in wire[1:-1]
    assert len(wire) <= MAX_ENCODED + 2
    frames = FrameDecoder().feed(wire)
    assert len(frames) == 1
    raw = frames[0]
    assert (raw.seq, raw.ack) == (seq, ack)
    assert decode_message(raw.type, raw.payload) == message


def test_error_text_is_cut_at_a_character_boundary() -> None:
    text = "é" * 40  # 80 bytes of UTF-8
    decoded = decode_message(MsgType.ERROR, encode_message(ShoeError(1, ErrorCode.READER_FAULT, text)))
    assert isinstance(decoded, ShoeError)
    assert decoded.text == "é" * 24


def test_type_length_and_direction_checks() -> None:
    card = encode_message(CardRead(1, b"\x04\x01\x02\x03", 0, Face.BACK, 5))
    assert isinstance(decode_message(MsgType.CARD, card, Role.HOST), CardRead)
    with pytest.raises(FrameError, match="never sent to the shoe"):
        decode_message(MsgType.CARD, card, Role.SHOE)
    with pytest.raises(FrameError):
        decode_message(MsgType.CARD, card + b"\x00", Role.HOST)  # length disagrees with tag_len
    with pytest.raises(FrameError):
        decode_message(MsgType.CARD, card[:-1], Role.HOST)
    with pytest.raises(FrameError, match="unknown frame type"):
        decode_message(0x7F, b"")
    bad_face = bytearray(card)
    bad_face[9] = 3
    with pytest.raises(FrameError):
        decode_message(MsgType.CARD, bytes(bad_face))
    with pytest.raises(FrameError):
        decode_message(MsgType.SET_INDICATOR, encode_message(SetIndicator(Led.RED)), Role.HOST)
    with pytest.raises(ValueError):
        encode_message(CardRead(1, bytes(33), 0, Face.BACK, 0))


def test_parse_body_checks_crc_and_lengths() -> None:
    body = frame_body(MsgType.HEARTBEAT, 0, 7, b"\x01\x02\x03\x04")
    assert parse_body(body).ack == 7
    with pytest.raises(FrameError, match="CRC"):
        parse_body(body[:-1] + bytes([body[-1] ^ 1]))
    with pytest.raises(FrameError):
        parse_body(body[:5])


# -- the decoder --------------------------------------------------------------------------

CARD_FRAME = encode(CardRead(1, bytes.fromhex("04A224B1C25E80"), 0, Face.BACK, 123456), seq=5, ack=2)


def test_decoder_takes_any_chunking() -> None:
    stream = CARD_FRAME * 3
    for size in (1, 2, 3, 7, len(stream)):
        decoder = FrameDecoder()
        got = []
        for i in range(0, len(stream), size):
            got += decoder.feed(stream[i : i + size])
        assert len(got) == 3
        assert decoder.counters.crc_errors == decoder.counters.framing_errors == 0


def test_decoder_resynchronises_after_garbage() -> None:
    rng = random.Random(1)
    for _ in range(500):
        garbage = bytes(rng.randrange(256) for _ in range(rng.randint(0, 200)))
        decoder = FrameDecoder()
        frames = decoder.feed(garbage + CARD_FRAME)
        assert len(frames) >= 1 and frames[-1].payload == FrameDecoder().feed(CARD_FRAME)[0].payload


def test_a_long_run_without_delimiter_is_dropped_and_memory_stays_bounded() -> None:
    decoder = FrameDecoder()
    for _ in range(100):
        decoder.feed(b"\x55" * 1000)
        assert len(decoder._buf) <= MAX_ENCODED
    frames = decoder.feed(CARD_FRAME)
    assert len(frames) == 1
    assert decoder.counters.framing_errors == 1


def test_a_corrupted_frame_never_swallows_the_next() -> None:
    rng = random.Random(2)
    injector = FaultInjector(Faults(), rng)
    for _ in range(2000):
        bad = injector.corrupt(CARD_FRAME)
        frames = FrameDecoder().feed(bad + CARD_FRAME)
        assert frames and frames[-1] == FrameDecoder().feed(CARD_FRAME)[0]


def test_up_to_five_bit_errors_are_always_caught() -> None:
    """CRC-32C has Hamming distance 6 at these lengths: every 1..5-bit error is detected."""
    body = frame_body(MsgType.CARD, 5, 2, encode_message(CardRead(9, bytes(7), 1, Face.FACE, 99)))
    bits = len(body) * 8
    for i in range(bits):  # every single and double bit error, exhaustively
        for j in range(i, bits):
            bad = bytearray(body)
            bad[i // 8] ^= 1 << (i % 8)
            if j != i:
                bad[j // 8] ^= 1 << (j % 8)
            with pytest.raises(FrameError):
                parse_body(bytes(bad))
    rng = random.Random(3)
    for _ in range(20000):
        bad = bytearray(body)
        for pos in rng.sample(range(bits), rng.randint(3, 5)):
            bad[pos // 8] ^= 1 << (pos % 8)
        with pytest.raises(FrameError):
            parse_body(bytes(bad))


# -- two endpoints on a simulated line ----------------------------------------------------


@dataclass
class Direction:
    injector: FaultInjector
    latency: float
    queue: deque[tuple[float, bytes]] = field(default_factory=deque)
    release: float = 0.0
    cut: bool = False

    def put(self, now: float, frames: list[bytes]) -> None:
        for frame in frames:
            if self.cut:
                continue
            for delay, piece in self.injector.apply(frame):
                self.release = max(self.release, now + self.latency + delay)
                self.queue.append((self.release, piece))

    def take(self, now: float) -> bytes:
        out = bytearray()
        while self.queue and self.queue[0][0] <= now:
            out += self.queue.popleft()[1]
        return bytes(out)


class Net:
    """A host and a shoe endpoint joined by a faulty line, on a simulated clock."""

    def __init__(
        self,
        faults: Faults | None = None,
        seed: int = 0,
        config: LinkConfig | None = None,
        shoe_protocol: tuple[int, int] = (1, 0),
        auto_confirm: bool = True,
    ) -> None:
        self.rng = random.Random(seed)
        self.config = config or LinkConfig()
        self.now = 0.0
        self.host = ReliableEndpoint(Role.HOST, 0x1000_0001, config=self.config, auto_confirm=auto_confirm)
        self.shoe = self.new_shoe(0x5000_0001, shoe_protocol)
        faults = faults or Faults()
        self.to_host = Direction(FaultInjector(faults, random.Random(seed + 1)), 0.002)
        self.to_shoe = Direction(FaultInjector(faults, random.Random(seed + 2)), 0.002)
        self.host_events: list[LinkEvent] = []
        self.shoe_events: list[LinkEvent] = []
        self.host.start(self.now)
        self.shoe.start(self.now)

    def new_shoe(self, session: int, protocol: tuple[int, int] = (1, 0)) -> ReliableEndpoint:
        self.shoe = ReliableEndpoint(
            Role.SHOE, session, config=self.config, serial="SIM-1", software=(1, 0, 0), protocol=protocol
        )
        self.shoe.start(self.now)
        return self.shoe

    def tick(self, dt: float = 0.001) -> None:
        self.now += dt
        h = self.host.step(self.now, self.to_host.take(self.now))
        s = self.shoe.step(self.now, self.to_shoe.take(self.now))
        self.to_shoe.put(self.now, h.frames)
        self.to_host.put(self.now, s.frames)
        self.host_events += h.events
        self.shoe_events += s.events

    def run(self, seconds: float, dt: float = 0.001) -> None:
        end = self.now + seconds
        while self.now < end:
            self.tick(dt)

    def run_until(self, done: object, limit: float = 30.0, dt: float = 0.001) -> None:
        end = self.now + limit
        while not done():  # type: ignore[operator]
            assert self.now < end, "the link did not get there in simulated time"
            self.tick(dt)

    def host_cards(self) -> list[CardRead]:
        return [
            e.message
            for e in self.host_events
            if isinstance(e, Delivered) and isinstance(e.message, CardRead)
        ]

    def shoe_commands(self) -> list[object]:
        return [e.message for e in self.shoe_events if isinstance(e, Delivered) and e.seq is not None]


def card(n: int) -> CardRead:
    return CardRead(n, n.to_bytes(4, "big") + b"\xa5\x5a\x01", n % 3, Face(n % 3), 1000 + n)


def connected(net: Net) -> bool:
    return net.host.state is LinkState.CONNECTED and net.shoe.state is LinkState.CONNECTED


def test_hello_exchange_reports_versions_and_serial() -> None:
    net = Net()
    net.run_until(lambda: connected(net))
    assert net.now < 0.05
    first = [e for e in net.host_events if isinstance(e, Connected)]
    assert len(first) == 1
    peer = first[0].peer
    assert (peer.role, peer.serial, peer.software, peer.protocol) == (Role.SHOE, "SIM-1", (1, 0, 0), (1, 0))
    assert first[0].previous_session is None and not first[0].resumed


def test_cards_arrive_once_in_order_on_a_clean_line() -> None:
    net = Net()
    for n in range(1, 53):
        assert net.shoe.send(card(n), net.now)
    net.run_until(lambda: net.shoe.pending == 0)
    assert net.host_cards() == [card(n) for n in range(1, 53)]
    assert net.host.counters.bad_frames == net.shoe.counters.retransmits == 0


def test_a_lost_card_frame_is_retransmitted_once_and_delivered_once() -> None:
    net = Net()
    net.run_until(lambda: connected(net))
    net.to_host.cut = True
    net.shoe.send(card(1), net.now)
    net.tick()
    net.to_host.cut = False
    net.run_until(lambda: net.shoe.pending == 0)
    assert net.host_cards() == [card(1)]
    assert net.shoe.counters.retransmits >= 1 and net.shoe.counters.timeouts >= 1


def test_a_lost_ack_makes_a_duplicate_that_the_host_drops() -> None:
    net = Net()
    net.run_until(lambda: connected(net))
    net.shoe.send(card(1), net.now)
    net.to_shoe.cut = True  # the host's acknowledgement is lost
    net.run(0.01)
    assert net.host_cards() == [card(1)]
    net.to_shoe.cut = False
    net.run_until(lambda: net.shoe.pending == 0)
    assert net.host_cards() == [card(1)]
    assert net.host.counters.duplicates_dropped >= 1


def test_retransmission_timer_stays_bounded_and_window_small() -> None:
    config = LinkConfig()
    net = Net(config=config)
    net.run_until(lambda: connected(net))
    for n in range(1, 20):
        net.shoe.send(card(n), net.now)
    net.to_host.cut = True
    sends: list[tuple[float, int]] = []
    start = net.now
    while net.now < start + 0.6:  # less than dead_after: the shoe keeps retransmitting
        net.now += 0.001
        step = net.shoe.step(net.now, net.to_shoe.take(net.now))
        for frame in step.frames:
            raw = FrameDecoder().feed(frame)[0]
            if raw.type == MsgType.CARD:
                sends.append((net.now, raw.seq))
        net.to_host.put(net.now, step.frames)
        net.to_shoe.put(net.now, net.host.step(net.now, b"").frames)
    assert {seq for _, seq in sends} == {0, 1, 2, 3}  # never more than the window in flight
    times = sorted({t for t, seq in sends if seq == 0})
    gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
    assert gaps and all(config.rto_min - 1e-9 <= g <= config.rto_max + 0.002 for g in gaps)
    assert gaps[1] > gaps[0]  # backs off


def test_the_ack_waits_for_confirm_without_auto_confirm() -> None:
    net = Net(auto_confirm=False)
    net.run_until(lambda: connected(net))
    net.shoe.send(card(1), net.now)
    net.run(0.3)
    assert net.host_cards() == [card(1)]  # delivered once, though the shoe sent it again
    assert net.shoe.pending == 1 and net.shoe.counters.retransmits >= 1
    delivered = [e for e in net.host_events if isinstance(e, Delivered)][0]
    assert delivered.seq is not None
    net.host.confirm(delivered.seq)
    net.run_until(lambda: net.shoe.pending == 0)
    assert net.host_cards() == [card(1)]


def test_commands_flow_the_other_way_too() -> None:
    net = Net(Faults(drop=0.2, corrupt=0.2, duplicate=0.2), seed=4)
    commands = [SetIndicator(Led.RED, True, 300), RequestState(), SetIndicator(Led.OFF)] * 5
    for command in commands:
        net.host.send(command, net.now)
    net.run_until(lambda: net.host.pending == 0)
    assert net.shoe_commands() == commands
    with pytest.raises(ValueError):
        net.host.send(card(1), net.now)  # type: ignore[arg-type]


def test_a_major_version_mismatch_never_connects_and_says_why() -> None:
    net = Net(shoe_protocol=(2, 0))
    net.shoe.send(card(1), net.now)
    net.run(2.0)
    assert net.host.state is net.shoe.state is LinkState.INCOMPATIBLE
    host_side = [e for e in net.host_events if isinstance(e, Incompatible)]
    assert len(host_side) == 1 and "protocol 2.0, we speak 1.0" in host_side[0].reason
    assert host_side[0].peer.serial == "SIM-1"
    assert net.host_cards() == [] and net.shoe.pending == 1
    assert net.host.counters.hellos_sent < 20  # no HELLO storm


def test_a_minor_version_difference_connects() -> None:
    net = Net(shoe_protocol=(1, 7))
    net.shoe.send(card(1), net.now)
    net.run_until(lambda: net.shoe.pending == 0)
    assert net.host_cards() == [card(1)]


def test_reconnect_resumes_and_the_shoe_resends_what_was_not_acknowledged() -> None:
    net = Net()
    net.run_until(lambda: connected(net))
    net.to_host.cut = net.to_shoe.cut = True  # unplugged
    for n in range(1, 11):
        net.shoe.send(card(n), net.now)
    net.run(1.5)
    assert any(isinstance(e, LinkDown) for e in net.host_events)
    assert any(isinstance(e, LinkDown) for e in net.shoe_events)
    net.to_host.cut = net.to_shoe.cut = False
    net.to_host.queue.clear()
    net.to_shoe.queue.clear()
    net.host.resync(net.now)  # the port was opened again
    net.run_until(lambda: net.shoe.pending == 0)
    assert net.host_cards() == [card(n) for n in range(1, 11)]
    back = [e for e in net.host_events if isinstance(e, Connected)][-1]
    assert back.resumed and back.previous_session == net.shoe.session


def test_a_shoe_restart_is_reported_and_its_new_reads_are_not_taken_as_duplicates() -> None:
    net = Net()
    for n in range(1, 6):
        net.shoe.send(card(n), net.now)
    net.run_until(lambda: net.shoe.pending == 0)
    old = net.shoe.session
    net.new_shoe(0x5000_0002)  # power cycle: sequence numbers start again at 0
    for n in range(1, 4):
        net.shoe.send(card(100 + n), net.now)
    net.run_until(lambda: net.shoe.pending == 0)
    assert net.host_cards() == [card(n) for n in range(1, 6)] + [card(100 + n) for n in range(1, 4)]
    assert any(isinstance(e, LinkDown) for e in net.host_events)
    back = [e for e in net.host_events if isinstance(e, Connected)][-1]
    assert back.previous_session == old and not back.resumed
    assert net.host.counters.peer_restarts == 1


def test_a_host_restart_gets_every_read_not_yet_acknowledged() -> None:
    net = Net()
    net.run_until(lambda: connected(net))
    net.to_shoe.cut = True  # acknowledgements lost, then the host process dies
    for n in range(1, 4):
        net.shoe.send(card(n), net.now)
    net.run(0.05)
    net.host = ReliableEndpoint(Role.HOST, 0x1000_0002, config=net.config)
    net.host.start(net.now)
    net.host_events.clear()
    net.to_shoe.cut = False
    net.run_until(lambda: net.shoe.pending == 0)
    assert net.host_cards() == [card(1), card(2), card(3)]  # again: the journal de-duplicates by key


def test_a_silent_line_takes_the_link_down_within_dead_after() -> None:
    net = Net()
    net.run_until(lambda: connected(net))
    net.to_host.cut = True
    t0 = net.now
    net.run_until(lambda: any(isinstance(e, LinkDown) for e in net.host_events))
    assert net.now - t0 <= net.config.dead_after + 0.01
    net.to_host.cut = False
    net.run_until(lambda: connected(net))
    assert net.now - t0 < 1.5


def test_ping_pong_and_the_peer_clock() -> None:
    net = Net()
    net.run_until(lambda: connected(net))
    net.host.ping(42)
    net.run(0.01)
    pongs = [e.message for e in net.host_events if isinstance(e, Delivered) and isinstance(e.message, Pong)]
    assert pongs and pongs[0].nonce == 42
    net.run(1.0)  # heartbeats carry the shoe's clock
    local = net.host.peer_clock.to_local(int(net.now * 1000) & 0xFFFFFFFF)
    assert local is not None and abs(local - net.now) < 0.01


def test_peer_clock_unwraps_the_32_bit_millisecond_counter() -> None:
    clock = PeerClock()
    clock.sample(0xFFFF_FF00, 100.0)
    clock.sample(0x0000_0100, 100.512)  # wrapped 512 ms later
    back = clock.to_local(0xFFFF_FFF0)
    assert back is not None and abs(back - 100.24) < 1e-6


def test_malformed_frames_with_a_good_crc_are_dropped_and_never_acknowledged() -> None:
    net = Net()
    net.run_until(lambda: connected(net))
    acked_before = net.shoe.counters.acked
    bad = encode_frame(MsgType.CARD, 0, 0, b"\x01\x00")  # a CARD too short, but a valid CRC
    wrong_way = encode_frame(MsgType.SET_INDICATOR, 0, 0, encode_message(SetIndicator(Led.RED)))
    step = net.host.step(net.now, bad + wrong_way + b"\x00\x13\x37\x00")
    assert not [e for e in step.events if isinstance(e, Delivered)]
    assert net.host.counters.malformed == 2 and net.host.counters.bad_frames == 3
    assert net.shoe.counters.acked == acked_before


# -- fuzz ---------------------------------------------------------------------------------


def test_fuzz_random_and_corrupted_frames_invent_no_card() -> None:
    """>= 100,000 random byte strings, random well-formed-looking frames and corrupted
    copies of real CARD frames, mixed with real ones, fed to a connected host: every card
    it delivers was sent, exactly once and in order."""
    net = Net()
    net.run_until(lambda: connected(net))
    host = net.host
    rng = random.Random(7)
    injector = FaultInjector(Faults(), rng)
    sent: list[CardRead] = []
    delivered: list[CardRead] = []
    expected_seq = 0
    fed = 0
    read_no = 0
    while fed < 100_000:
        kind = rng.randrange(10)
        if kind == 0:  # a real card, next in sequence
            read_no += 1
            real = CardRead(
                read_no,
                rng.randbytes(rng.choice((4, 7, 8, 10))),
                rng.randrange(4),
                Face(rng.randrange(3)),
                rng.getrandbits(32),
            )
            sent.append(real)
            data = encode(real, expected_seq, 0)
            expected_seq = (expected_seq + 1) & 0xFF
        elif kind <= 5:  # a corrupted copy of the next card frame, as if noise hit it
            fake = CardRead(read_no + 1, rng.randbytes(7), 0, Face.BACK, rng.getrandbits(32))
            inner = encode(fake, expected_seq, 0)[1:-1]
            damaged = injector.corrupt(inner)
            if inner in damaged.split(b"\x00"):
                continue  # the damage missed the frame (e.g. a zero inserted at its edge)
            data = b"\x00" + damaged
        elif kind <= 7:  # random bytes
            data = rng.randbytes(rng.randint(1, 80))
        else:  # a random frame between delimiters, CRC almost surely wrong
            body = bytes([rng.choice((0x81, 0x82, 0x83, rng.randrange(256))), expected_seq, 0])
            body += rng.randbytes(rng.randint(0, 50)) + rng.randbytes(4)
            data = b"\x00" + cobs_encode(body) + b"\x00"
        fed += 1
        step = host.step(net.now, data + b"\x00")  # a delimiter: no frame bleeds into the next
        for event in step.events:
            if isinstance(event, Delivered) and isinstance(event.message, CardRead):
                assert event.message == sent[len(delivered)]  # sent, once, in order
                delivered.append(event.message)
        net.now += 0.0001
        if rng.random() < 0.01:  # keep the link alive: the shoe's heartbeats
            host.step(net.now, encode_frame(MsgType.HEARTBEAT, 0, 0, b"\x00\x00\x00\x00"))
    assert delivered == sent
    assert host.counters.bad_frames > 50_000
    assert fed >= 100_000


def test_fuzz_two_endpoints_through_a_lossy_corrupting_duplicating_line() -> None:
    """Both directions drop, corrupt, duplicate, delay and add garbage; the line also goes
    dead now and then. Over >= 100,000 frames on the line: the host's cards are always
    exactly a prefix of what the shoe sent (none invented, none twice, none out of order),
    every card the shoe saw acknowledged has been delivered (none lost), and once the
    line heals everything arrives."""
    faults = Faults(drop=0.08, corrupt=0.08, duplicate=0.08, delay=0.02, delay_ms=30, garbage=0.05)
    net = Net(faults, seed=11)
    rng = random.Random(12)
    sent: list[CardRead] = []
    commands: list[SetIndicator] = []
    outage_until = -1.0
    host_cards: list[CardRead] = []

    def line_frames() -> int:
        return net.to_host.injector.counts.frames + net.to_shoe.injector.counts.frames

    while line_frames() < 100_000:
        if net.shoe.queue_space > 0 and rng.random() < 0.5:
            sent.append(card(len(sent) + 1))
            net.shoe.send(sent[-1], net.now)
        if rng.random() < 0.01:
            commands.append(SetIndicator(Led(rng.randrange(4)), rng.random() < 0.5, rng.randrange(500)))
            net.host.send(commands[-1], net.now)
        if outage_until < net.now and rng.random() < 0.0005:
            outage_until = net.now + rng.uniform(0.2, 1.5)
        cut = net.now < outage_until
        net.to_host.cut = net.to_shoe.cut = cut
        before = len(net.host_events)
        net.tick(0.001)
        for event in net.host_events[before:]:
            if isinstance(event, Delivered) and isinstance(event.message, CardRead):
                assert event.message == sent[len(host_cards)]  # never invented, twice or reordered
                host_cards.append(event.message)
        assert len(host_cards) >= net.shoe.counters.acked  # acknowledged means delivered
    net.to_host.cut = net.to_shoe.cut = False
    net.to_host.injector.faults = net.to_shoe.injector.faults = Faults()
    net.run_until(lambda: net.shoe.pending == 0 and net.host.pending == 0, limit=60)
    host_cards = net.host_cards()
    assert host_cards == sent
    assert net.shoe_commands() == commands
    counters = net.host.counters
    assert counters.bad_frames > 1000 and counters.duplicates_dropped > 100
    assert net.shoe.counters.retransmits > 100 and counters.link_downs > 0
    assert len(sent) > 5000
