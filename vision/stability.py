"""From cards seen on single frames to decisions: a card becomes an event only when several
consecutive frames agree.

Pure: sightings and the frame's time in, decisions out; no clock, no OpenCV. One
:class:`ZoneWatch` follows one camera's zones (vision/zones.py). On every frame each face-up card
is placed in the zone holding its centre, and each zone has a set of *marks*: the cards read
there at acting confidence ("As"), and, for a face-up card at all, the zone's presence mark.

- A mark becomes a decision when it is on ``agree`` consecutive frames (a hand passing over a
  card, a flicker of the reader, is on fewer). A frame that could not be read (:meth:`gap`)
  breaks every run: it is neither agreement nor disagreement.
- A decision is made once. It may be made again only after its zone has shown no face-up card
  for ``release`` frames (an exposed card covered by a hand for a moment is not exposed twice).
- Face down and unknown never raise anything: a camera cannot name a face-down card, and the
  procedure has nothing to rule on a card it cannot name lying face down where it belongs.
- Zones where a face-up card matters even unread (a seat: an exposed card; the shoe's mouth: a
  boxed card; the burn pile: a burn card shown) decide on the presence mark and name the card
  only when it was read at acting confidence on at least half of the agreeing frames, and no
  other card was. The board and the muck decide only on cards read: an unread card there is
  nothing the procedure can check.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from vision.sighting import ACT_CONFIDENCE, CardSighting, Facing
from vision.zones import CameraConfig, ZoneArea

ANONYMOUS_KINDS = frozenset({"seat", "shoe", "burn"})  # a face-up card there matters unread
_PRESENT = ""  # the presence mark: some face-up card is in the zone


@dataclass(frozen=True)
class Seen:
    """A decision: a card face up in a zone, agreed on by ``frames`` consecutive frames."""

    camera: str
    zone: str  # the zone's name: "seat3", "board", "shoe", ...
    kind: str  # "seat", "board", "burn", "muck", "shoe"
    seat: int | None
    card: str | None  # "As", or None when not read at acting confidence
    at: float  # the time of the first of the agreeing frames
    frames: int
    face_up: bool = True


@dataclass
class _ZoneState:
    runs: dict[str, int] = field(default_factory=dict)  # mark -> consecutive frames with it
    since: dict[str, float] = field(default_factory=dict)  # mark -> time of the run's first frame
    reads: dict[str, int] = field(default_factory=dict)  # card -> frames read during the presence run
    decided: set[str] = field(default_factory=set)  # marks decided, until the zone is empty a while
    unnamed: bool = False  # a face-up card was reported here without its name
    empty: int = 0  # consecutive frames with no face-up card in the zone


class ZoneWatch:
    def __init__(
        self,
        camera: CameraConfig,
        agree: int = 4,
        release: int = 15,
        act_confidence: float = ACT_CONFIDENCE,
    ) -> None:
        if agree < 1 or release < 1:
            raise ValueError("agree and release are numbers of frames, 1 or more")
        self.camera = camera
        self.agree = agree
        self.release = release
        self.act_confidence = act_confidence
        self._zones = {zone.name: _ZoneState() for zone in camera.zones}

    def frame(self, sightings: Iterable[CardSighting], at: float) -> list[Seen]:
        """One frame's cards (in the camera's pixels); the decisions this frame completes."""
        marks: dict[str, set[str]] = {name: set() for name in self._zones}
        for sighting in sightings:
            if sighting.facing is not Facing.UP:
                continue  # face down or unknown: never an event
            zone = self.camera.zone_at(sighting.centre)
            if zone is None:
                continue
            marks[zone.name].add(_PRESENT)
            card = sighting.card
            if card is not None and sighting.confidence >= self.act_confidence:
                marks[zone.name].add(card)
        decided: list[Seen] = []
        for zone in self.camera.zones:
            decided += self._zone_frame(zone, self._zones[zone.name], marks[zone.name], at)
        return decided

    def gap(self) -> None:
        """A frame that could not be read: every run starts again (what was decided stays)."""
        for state in self._zones.values():
            state.runs.clear()
            state.since.clear()
            state.reads.clear()

    def _zone_frame(self, zone: ZoneArea, state: _ZoneState, marks: set[str], at: float) -> list[Seen]:
        if not marks:
            state.runs.clear()
            state.since.clear()
            state.reads.clear()
            state.empty += 1
            if state.empty >= self.release:
                state.decided.clear()
                state.unnamed = False
            return []
        state.empty = 0
        for mark in list(state.runs):
            if mark not in marks:
                del state.runs[mark]
                del state.since[mark]
        for mark in marks:
            state.runs[mark] = state.runs.get(mark, 0) + 1
            state.since.setdefault(mark, at)
            if mark != _PRESENT:
                state.reads[mark] = state.reads.get(mark, 0) + 1
        decided: list[Seen] = []
        cards = sorted(mark for mark in marks if mark != _PRESENT)
        for card in cards:
            if state.runs[card] < self.agree or card in state.decided:
                continue
            state.decided.add(card)
            if state.unnamed:
                state.unnamed = False  # the card already reported unread, now read: not a second one
                continue
            decided.append(self._seen(zone, card, state.since[card], state.runs[card]))
        anonymous = zone.kind in ANONYMOUS_KINDS and _PRESENT not in state.decided
        if anonymous and state.runs[_PRESENT] >= self.agree:
            state.decided.add(_PRESENT)
            if not (state.decided - {_PRESENT}):  # no card decided here yet: this is a new one
                named = self._named(state)
                if named is not None:
                    state.decided.add(named)
                else:
                    state.unnamed = True
                decided.append(self._seen(zone, named, state.since[_PRESENT], state.runs[_PRESENT]))
        return decided

    def _named(self, state: _ZoneState) -> str | None:
        """The one card read on at least half of the presence run's frames, if only one was read."""
        run = state.runs[_PRESENT]
        read = [card for card, count in state.reads.items() if count > 0]
        if len(read) != 1 or 2 * state.reads[read[0]] < run:
            return None
        return read[0]

    def _seen(self, zone: ZoneArea, card: str | None, since: float, frames: int) -> Seen:
        return Seen(self.camera.name, zone.name, zone.kind, zone.seat, card, since, frames)
