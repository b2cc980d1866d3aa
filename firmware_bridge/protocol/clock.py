"""The peer's clock as the local clock sees it (docs/protocol.md): :class:`PeerClock`."""

from __future__ import annotations

from collections import deque

from firmware_bridge.protocol.framing import U32


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
