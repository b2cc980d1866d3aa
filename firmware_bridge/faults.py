"""Line faults for test rigs: what a bad cable, a noisy card room and a busy USB hub do.

:class:`Faults` is the knob set (``--faults drop=0.05,corrupt=0.05,...``);
:class:`FaultInjector` applies it to one frame at a time with a seeded random generator,
so a failing run can be replayed. The simulated shoe uses it on both directions of its
line; the protocol's fuzz test drives two endpoints through it.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, fields


@dataclass
class Faults:
    """Probabilities per frame (0..1), and how long a delayed frame is held."""

    drop: float = 0.0  # the frame never arrives
    corrupt: float = 0.0  # bits flipped, a byte changed, inserted or lost, the frame cut short
    duplicate: float = 0.0  # the frame arrives twice
    delay: float = 0.0  # the line stalls before the frame (later frames wait behind it)
    delay_ms: float = 40.0
    garbage: float = 0.0  # random bytes on the line before the frame

    @classmethod
    def parse(cls, text: str) -> Faults:
        """``"drop=0.05,corrupt=0.05,delay=0.1,delay_ms=80"``; an empty text: no faults."""
        faults = cls()
        names = {f.name for f in fields(cls)}
        for item in filter(None, (part.strip() for part in text.split(","))):
            name, sep, value = item.partition("=")
            name = name.strip().replace("-", "_")
            if not sep or name not in names:
                raise ValueError(
                    f"--faults: {item!r} is not NAME=VALUE with NAME one of {', '.join(sorted(names))} "
                    "(e.g. drop=0.05,corrupt=0.05)"
                )
            try:
                number = float(value)
            except ValueError:
                raise ValueError(f"--faults: {name}={value!r} is not a number") from None
            if name != "delay_ms" and not 0.0 <= number <= 1.0:
                raise ValueError(f"--faults: {name}={number} is a probability: give 0 to 1")
            if name == "delay_ms" and not 0.0 <= number <= 10_000:
                raise ValueError(f"--faults: delay_ms={number}: give 0 to 10000 milliseconds")
            setattr(faults, name, number)
        return faults

    def __str__(self) -> str:
        parts = [f"{f.name}={getattr(self, f.name):g}" for f in fields(self) if f.name != "delay_ms"]
        active = [p for p in parts if not p.endswith("=0")]
        if self.delay:
            active.append(f"delay_ms={self.delay_ms:g}")
        return ",".join(active) or "none"

    @property
    def any(self) -> bool:
        return any((self.drop, self.corrupt, self.duplicate, self.delay, self.garbage))


@dataclass
class FaultCounts:
    frames: int = 0
    dropped: int = 0
    corrupted: int = 0
    duplicated: int = 0
    delayed: int = 0
    garbage_bursts: int = 0


class FaultInjector:
    """Applies :class:`Faults` to whole frames (delimiters included)."""

    def __init__(self, faults: Faults, rng: random.Random) -> None:
        self.faults = faults
        self.rng = rng
        self.counts = FaultCounts()

    def garbage(self, max_len: int = 24) -> bytes:
        rng = self.rng
        return bytes(rng.randrange(256) for _ in range(rng.randint(1, max_len)))

    def corrupt(self, frame: bytes) -> bytes:
        rng = self.rng
        data = bytearray(frame)
        if not data:
            return bytes(data)
        mode = rng.randrange(5)
        if mode == 0:  # one to three bit errors
            for _ in range(rng.randint(1, 3)):
                i = rng.randrange(len(data))
                data[i] ^= 1 << rng.randrange(8)
        elif mode == 1:  # a byte replaced
            data[rng.randrange(len(data))] = rng.randrange(256)
        elif mode == 2:  # a byte lost
            del data[rng.randrange(len(data))]
        elif mode == 3:  # a byte inserted
            data.insert(rng.randrange(len(data) + 1), rng.randrange(256))
        else:  # cut short
            del data[rng.randrange(len(data)) :]
        return bytes(data)

    def apply(self, frame: bytes) -> list[tuple[float, bytes]]:
        """What reaches the line for ``frame``: ``(extra delay in seconds, bytes)`` pieces."""
        f = self.faults
        rng = self.rng
        self.counts.frames += 1
        out: list[tuple[float, bytes]] = []
        if f.garbage and rng.random() < f.garbage:
            self.counts.garbage_bursts += 1
            out.append((0.0, self.garbage()))
        if f.drop and rng.random() < f.drop:
            self.counts.dropped += 1
            return out
        data = frame
        if f.corrupt and rng.random() < f.corrupt:
            self.counts.corrupted += 1
            data = self.corrupt(frame)
        delay = 0.0
        if f.delay and rng.random() < f.delay:
            self.counts.delayed += 1
            delay = f.delay_ms / 1000.0
        out.append((delay, data))
        if f.duplicate and rng.random() < f.duplicate:
            self.counts.duplicated += 1
            out.append((0.0, data))
        return out


def split_frames(buffer: bytearray, data: bytes) -> list[bytes]:
    """Whole frames (``00 ... 00``) found in ``buffer + data``; the partial rest stays in
    ``buffer``. Used to apply faults to the bytes a peer sent, frame by frame."""
    buffer += data
    parts = buffer.split(b"\x00")
    rest = parts.pop()
    buffer[:] = rest
    return [b"\x00" + part + b"\x00" for part in parts if part]
