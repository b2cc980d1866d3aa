"""What the reader says of one card on one frame, with no OpenCV: the stability filter, the camera
adapter and the tests use it without loading the pipeline."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from tablectl.core.cards import RANKS, SUITS

ACT_CONFIDENCE = 0.9  # a card read at or above this may become an event; below it is only shown


class Facing(Enum):
    UP = "up"
    DOWN = "down"
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class CardSighting:
    corners: tuple[tuple[float, float], ...]  # four points, clockwise from the read index corner
    facing: Facing
    rank: str | None  # tablectl.core.cards notation ("T" for ten), None when unread
    suit: str | None
    confidence: float  # of the rank and suit together (0 when unread); of the facing otherwise
    why: str = ""
    # a whole card with no face showing, or left undecided as a pale back is: what calibration
    # learns a deck's back from (vision.calibrate.back_samples)
    back_like: bool = False

    def __post_init__(self) -> None:
        # (one character: "in" on a string also finds "", "23" or "TJ")
        if self.rank is not None and (len(self.rank) != 1 or self.rank not in RANKS):
            raise ValueError(f"{self.rank!r} is no rank (one of {RANKS})")
        if self.suit is not None and (len(self.suit) != 1 or self.suit not in SUITS):
            raise ValueError(f"{self.suit!r} is no suit (one of {SUITS})")

    @property
    def card(self) -> str | None:
        """The card in tablectl.core.cards' notation ("Ah"): its rank and suit, checked when made
        (a frame asks a sighting's card about a hundred times, and the core's functions check the
        card each time)."""
        if self.rank is None or self.suit is None:
            return None
        return self.rank + self.suit

    @property
    def centre(self) -> tuple[float, float]:
        xs = [x for x, _ in self.corners]
        ys = [y for _, y in self.corners]
        return sum(xs) / len(xs), sum(ys) / len(ys)

    def as_json(self) -> dict[str, object]:
        return {
            "card": self.card,
            "rank": self.rank,
            "suit": self.suit,
            "facing": self.facing.value,
            "corners": [[round(x, 1), round(y, 1)] for x, y in self.corners],
            "confidence": round(self.confidence, 3),
            "why": self.why,
        }
