"""Watching for a jumbo index where the deck's index size was never learned.

The reader cuts each index window at a standard index's size unless calibration learned the
deck's (``tablectl vision calibrate --faces``: vision.calibrate.learn_faces). A jumbo index, as
many card rooms' decks print it, fills that window with its rank, its suit cut off below, and the
classifier names some of those cards wrongly at acting confidence (Kennard's jumbo decks: a
large '8' read as a queen of diamonds at 0.99; docs/vision.md, Calibration). An installer can
forget the faces. So a camera whose reader assumes the standard size reads a frame now and then
through windows LARGER_INDEX times as large too (the first FIRST_LOOKS frames that name a card,
then one frame in PROBE_EVERY): over the last LOOKS_KEPT different looks, a deck of which the
larger windows name far more cards than the standard ones (LARGER_SHARE times as many different
cards, and LARGER_CARDS at least) has a larger index than the reader assumes. The camera then
withholds its cards' names (their faces still count: an exposed card is still seen) and says why
(tablectl/adapters/camera.py), until the standard windows name as many more (another deck) or
the faces are calibrated.

Measured (scratch scripts, issue 12's sixth session of 2026-12-05; docs/vision.md, The camera
adapter): the training photos' normal index, 496 cards named through the standard windows and
157 through windows 1.75 times as large; Kennard's normal decks 92 and 0, 88 and 1; his jumbo
decks 22 and 100, 17 and 100. Watched frame by frame, no normal deck's frames make it say so,
and the jumbo decks' do within their first few frames.
"""

from __future__ import annotations

from collections import deque

from vision.crops import Reader
from vision.sighting import ACT_CONFIDENCE, CardSighting
from vision.types import BGRImage

LARGER_INDEX = 1.75  # the windows looked through as well: what calibration learns for a jumbo index
PROBE_EVERY = 15  # frames read between two looks (half a second at 30 frames a second)...
FIRST_LOOKS = 10  # ...once this many frames naming a card have all been looked at
LOOKS_KEPT = 40  # different looks, the verdict's evidence
LARGER_SHARE = 2.0  # the larger windows name this many times as many different cards...
LARGER_CARDS = 8  # ...and this many different cards at least, over the looks kept (the same
# both ways: a verdict is left only on evidence as strong the other way)


def named(sightings: list[CardSighting]) -> frozenset[str]:
    """The cards named at acting confidence."""
    return frozenset(s.card for s in sightings if s.card is not None and s.confidence >= ACT_CONFIDENCE)


def withheld(sighting: CardSighting) -> CardSighting:
    """``sighting`` without its name: face up or down as it was seen."""
    if sighting.card is None:
        return sighting
    why = f"{sighting.why}; named {sighting.card}, withheld: the deck's index is larger than the window"
    return CardSighting(sighting.corners, sighting.facing, None, None, 0.0, why, sighting.back_like)


class IndexSizeWatch:
    """``larger``: the camera's reader with windows LARGER_INDEX times the standard size (read as
    the camera's frames are, by zones or seen from above: vision.crops.camera_reader). ``every``:
    one frame in so many is looked at once the first ``first`` frames naming a card have been.
    ``standard``: the camera's reader as an index size is measured with (both without the cards
    read at straight edges, which are read at a ladder of widths whatever the index's size:
    CardReader.without_straight_edges), reading the frames looked at; without it, the camera's
    own sightings count."""

    def __init__(
        self,
        larger: Reader,
        every: int = PROBE_EVERY,
        first: int = FIRST_LOOKS,
        kept: int = LOOKS_KEPT,
        standard: Reader | None = None,
    ) -> None:
        self._larger = larger
        self._standard = standard
        self.every = every
        self.first = first
        self._frames = 0
        self._first_looks = 0
        # the cards each look named through the standard windows and through the larger ones; a
        # look like the last one (a table that stays as it is) is not kept again
        self._looks: deque[tuple[frozenset[str], frozenset[str]]] = deque(maxlen=kept)
        self.index_larger = False  # the verdict: names are withheld while it holds

    def frame(self, image: BGRImage, sightings: list[CardSighting]) -> bool | None:
        """A frame the camera's reader read (``sightings``, through the standard windows): the new
        verdict when this frame changes it, else None."""
        self._frames += 1
        standard = named(sightings)
        # the first frames naming a card all looked at, so that a jumbo deck dealt many cards at
        # once is found within a frame or two; then one frame in ``every``
        if self._frames % self.every and (not standard or self._first_looks >= self.first):
            return None
        if standard:
            self._first_looks += 1
        if self._standard is not None:
            standard = named(self._standard.read(image))
        larger = named(self._larger.read(image))
        if not standard and not larger:
            return None  # no card named either way: no evidence
        if self._looks and self._looks[-1] == (standard, larger):
            return None  # the table as it was: nothing new
        self._looks.append((standard, larger))
        # different cards, not looks: a normal deck's scene where the larger windows name 2 cards
        # to the standard windows' 1 (11 of the 296 training photos) must not add up to a jumbo
        # index, however often it is seen; a few cards a hand (a board, a seat) add up over hands
        standard_cards = len(frozenset().union(*(look[0] for look in self._looks)))
        larger_cards = len(frozenset().union(*(look[1] for look in self._looks)))
        if self.index_larger:  # left on evidence as strong the other way, not on a card or two
            verdict = not (standard_cards >= LARGER_CARDS and standard_cards >= LARGER_SHARE * larger_cards)
        else:
            verdict = larger_cards >= LARGER_CARDS and larger_cards >= LARGER_SHARE * standard_cards
        if verdict == self.index_larger:
            return None
        self.index_larger = verdict
        return verdict
