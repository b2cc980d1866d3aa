"""Benchmark: the shoe's serial link. Prints one JSON object:

- decoder_frames_per_s: CARD frames through the pure decoder (COBS, CRC-32C, field checks)
  fed in 4 KiB reads, as a reader thread gets them; endpoint_frames_per_s: the same frames
  through the whole ReliableEndpoint (sequence checks, acknowledgements written back);
- line_frames_per_s_115200: the most CARD frames a 115200-baud line can carry (the
  reference measured in the same run is the line itself): *_headroom is how many times
  faster than the line the host decodes;
- latency_p50_ms / latency_p99_ms / latency_max_ms: from the moment a CARD frame is written
  to the pseudo-terminal by the simulated shoe to the moment ShoeLink's on_message callback
  runs (pyserial, the reader thread, the endpoint), over ``--cards`` cards (default 2,000),
  each dealt when the previous one has arrived, as a shoe deals.
Goal: latency_p99_ms under 2 ms here (the Pi is 3-5x slower: still far under the 100 ms a
dealer would notice).
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

# This file is named serial.py and Python puts its folder first on sys.path, where it
# would hide pyserial's ``serial`` package: take the folder out, put the project in.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]
sys.path.insert(0, str(_HERE.parent))

from firmware_bridge.link import ShoeLink, ShoeMessage  # noqa: E402
from firmware_bridge.protocol import (  # noqa: E402
    CardRead,
    Face,
    FrameDecoder,
    Hello,
    MsgType,
    ReliableEndpoint,
    Role,
    decode_message,
    encode,
    encode_frame,
    encode_message,
)
from firmware_bridge.simshoe import SimShoe  # noqa: E402

BAUD_BYTES_PER_S = 115200 / 10  # 8N1: ten bits a byte


def card_frames(n: int) -> list[bytes]:
    return [
        encode(CardRead(i + 1, bytes([4, i & 0xFF, 2, 3, 4, 5, 6]), i % 2, Face.BACK, 1000 + i), seq=i & 0xFF)
        for i in range(n)
    ]


def decoder_rate(frames: list[bytes]) -> float:
    stream = b"".join(frames)
    chunks = [stream[i : i + 4096] for i in range(0, len(stream), 4096)]
    best = 0.0
    for _ in range(3):
        decoder = FrameDecoder()
        count = 0
        t0 = time.perf_counter()
        for chunk in chunks:
            for raw in decoder.feed(chunk):
                decode_message(raw.type, raw.payload, Role.HOST)
                count += 1
        elapsed = time.perf_counter() - t0
        assert count == len(frames)
        best = max(best, count / elapsed)
    return best


def endpoint_rate(frames: list[bytes]) -> float:
    """Frames through a connected host endpoint (it writes acknowledgements back)."""
    best = 0.0
    for _ in range(3):
        host = ReliableEndpoint(Role.HOST, 1)
        host.start(0.0)
        # the shoe's HELLO (session 2, it knows the host's session 1): connected at once
        host.step(0.0, encode_frame(MsgType.HELLO, 0, 0, encode_message(Hello(Role.SHOE, 2, 1, False))))
        stream = b"".join(frames)
        chunks = [stream[i : i + 4096] for i in range(0, len(stream), 4096)]
        delivered = 0
        now = 0.0
        t0 = time.perf_counter()
        for chunk in chunks:
            now += 0.001
            delivered += len(host.step(now, chunk).events)
        elapsed = time.perf_counter() - t0
        assert delivered == len(frames), delivered
        best = max(best, delivered / elapsed)
    return best


def latency(cards: int) -> dict[str, float]:
    written: dict[int, float] = {}
    arrived: dict[int, float] = {}
    got = threading.Event()
    tap = FrameDecoder()

    def on_write(data: bytes, t: float) -> None:
        # t: the simulator's clock (perf_counter here) just before os.write: an upper bound
        # on the latency, never an optimistic one if the writer is preempted after writing.
        for raw in tap.feed(data):
            if raw.type == MsgType.CARD:
                read = decode_message(raw.type, raw.payload)
                assert isinstance(read, CardRead)
                written.setdefault(read.read_no, t)

    def on_message(message: ShoeMessage) -> None:
        if isinstance(message.message, CardRead):
            arrived[message.message.read_no] = time.perf_counter()
            got.set()

    with tempfile.TemporaryDirectory() as tmp:
        link_path = str(Path(tmp) / "tablectl-shoe")
        with (
            SimShoe("bench", seed=1, link=link_path, on_write=on_write, clock=time.perf_counter) as shoe,
            ShoeLink(link_path, on_message) as link,
        ):
            if not link.wait_connected(5):
                raise SystemExit(f"bench: no link: {link.stats()}")
            for _ in range(cards):
                got.clear()
                shoe.deal_next()
                if not got.wait(2):
                    raise SystemExit(f"bench: a card did not arrive: {link.stats()}")
            stats = link.stats()
    lat = sorted((arrived[n] - written[n]) * 1000 for n in arrived if n in written)
    assert len(lat) == cards and stats["retransmits"] == 0 and stats["bad_frames"] == 0
    return {
        "latency_p50_ms": round(statistics.median(lat), 3),
        "latency_p99_ms": round(lat[int(len(lat) * 0.99) - 1], 3),
        "latency_max_ms": round(lat[-1], 3),
        "latency_mean_ms": round(statistics.fmean(lat), 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--cards", type=int, default=2000, help="cards for the latency figures (default 2000)"
    )
    parser.add_argument("--frames", type=int, default=50_000, help="frames for the decoder figures")
    args = parser.parse_args()
    frames = card_frames(args.frames)
    frame_bytes = statistics.fmean(len(f) for f in frames)
    line_rate = BAUD_BYTES_PER_S / frame_bytes
    dec = decoder_rate(frames)
    end = endpoint_rate(frames)
    result = {
        "benchmark": "serial",
        "decoder_frames_per_s": round(dec),
        "endpoint_frames_per_s": round(end),
        "card_frame_bytes": round(frame_bytes, 1),
        "line_frames_per_s_115200": round(line_rate),
        "decoder_headroom": round(dec / line_rate, 1),
        "endpoint_headroom": round(end / line_rate, 1),
        "cards": args.cards,
        **latency(args.cards),
        "goal_latency_p99_ms": 2.0,
        "python": platform.python_version(),
        "machine": platform.machine(),
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
