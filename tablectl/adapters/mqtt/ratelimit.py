"""Floor commands per sender, pure: token buckets that say how long a sender must wait.

A floor supervisor's real work comes in small bursts (seating a table, a round of rebuys) and
then a few commands a minute; a script or a stuck dashboard sends thousands. A bucket holds
``burst`` commands and refills at ``per_second``: the first kind never notices it, the second
is refused, cheaply, with the wait on ``cmd_result``. No clock here: the caller passes the time.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Limit:
    """At most ``burst`` commands at once, then ``per_second`` on average."""

    burst: int
    per_second: float

    def __post_init__(self) -> None:
        if self.burst < 1 or not self.per_second > 0:
            raise ValueError("a command limit is a burst >= 1 and a rate > 0 per second")

    def describe(self) -> str:
        return f"{self.burst} at once, then {self.per_second:g} a second"


class RateLimiter:
    """One bucket per key. Buckets that are full again are forgotten once more than
    ``max_keys`` are kept, so that a stream of invented sender names cannot grow it."""

    def __init__(self, limit: Limit, max_keys: int = 1024) -> None:
        self.limit = limit
        self.max_keys = max_keys
        self._buckets: dict[str, tuple[float, float]] = {}  # key -> (tokens, at)

    def _tokens(self, key: str, now: float) -> float:
        tokens, at = self._buckets.get(key, (float(self.limit.burst), now))
        # A clock that steps back refills nothing rather than draining the bucket.
        return min(float(self.limit.burst), tokens + max(0.0, now - at) * self.limit.per_second)

    def wait(self, key: str, now: float) -> float:
        """Seconds until ``key`` may send one more command (0: now). Takes nothing."""
        tokens = self._tokens(key, now)
        return 0.0 if tokens >= 1.0 else (1.0 - tokens) / self.limit.per_second

    def take(self, key: str, now: float) -> None:
        """Count one command from ``key`` (after :meth:`wait` said 0)."""
        self._buckets[key] = (self._tokens(key, now) - 1.0, now)
        if len(self._buckets) > self.max_keys:
            full = [k for k in self._buckets if self._tokens(k, now) >= self.limit.burst]
            for k in full:
                del self._buckets[k]
            while len(self._buckets) > self.max_keys:  # still too many: the longest quiet goes
                del self._buckets[min(self._buckets, key=lambda k: self._buckets[k][1])]


def seconds_to_say(wait: float) -> int:
    """A wait as a sender is told it: whole seconds, at least 1."""
    return max(1, math.ceil(wait))
