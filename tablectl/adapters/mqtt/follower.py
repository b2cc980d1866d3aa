"""The displays' side of the table's feed: drop the repeats, notice the gaps (docs/mqtt.md).

A display hands each message it receives to :meth:`Follower.accept` and shows what it answers
``new`` or ``gap``; after a gap it reads the retained dealer or floor snapshot and shows
:meth:`Follower.rulings_missed`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Follower:
    """What a display does with the table's messages: drop repeats, notice gaps.

    ``accept(topic, payload)`` answers ``"new"`` (show it), ``"repeat"`` (seen: QoS 1 may deliver
    twice, and the table republishes its snapshots on reconnection), ``"stale"`` (an older
    snapshot than the one shown) or ``"gap"`` (an event or alert after a missed one: show it,
    and re-read the retained snapshot, whose recent rulings list the missed ones). A new epoch
    (the table restarted) starts afresh.
    """

    epoch: str | None = None
    last: dict[str, int] = field(default_factory=dict)
    seen_events: set[int] = field(default_factory=set)

    def accept(self, topic: str, payload: Mapping[str, Any]) -> str:
        epoch = payload.get("epoch")
        seq = int(payload.get("seq", 0))
        if epoch != self.epoch:
            self.epoch = epoch if isinstance(epoch, str) else None
            self.last.clear()
            self.seen_events.clear()
        kind = payload.get("type")
        if kind in ("event", "alert"):
            if seq in self.seen_events:
                return "repeat"
            self.seen_events.add(seq)
            expected = self.last.get(topic)
            self.last[topic] = max(seq, expected or 0)
            prev = int(payload.get("prev", 0))
            if expected is not None and prev > expected:
                return "gap"
            return "new"
        last = self.last.get(topic)
        if last is not None and seq < last:
            return "stale"
        if last is not None and seq == last:
            return "repeat"
        self.last[topic] = seq
        return "new"

    def rulings_missed(self, snapshot: Mapping[str, Any]) -> list[dict[str, Any]]:
        """The rulings of a dealer or floor snapshot that this display has not shown yet."""
        state = snapshot.get("state") or {}
        missed = []
        for ruling in state.get("rulings") or ():
            seq = ruling.get("seq")
            if isinstance(seq, int) and seq not in self.seen_events:
                self.seen_events.add(seq)
                missed.append(dict(ruling))
        return missed
