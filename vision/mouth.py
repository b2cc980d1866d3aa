"""The fast shoe-mouth check: one fixed region, every frame, in well under 2 ms.

The shoe's mouth is the one place where a card is always seen at the same spot: the ``shoe`` zone,
drawn on the card as it lies at the mouth (``tablectl vision calibrate`` draws it on a frame). The
full card reader looks for cards anywhere, at any angle, and reads their index; the mouth needs
less, per frame: is there a card, and which side is up. :class:`MouthCheck` looks at the zone
alone and decides

- ``back``: the zone, warped as calibration warps a card, matches a back learned by calibration
  (vision/backs.py: its colour within the learned limit; its texture more loosely, at least
  ``MOUTH_TEXTURE_LIMIT``, because the mouth sees the card at another scale than calibration did);
- ``face``: positive evidence of a face, unlike the backs: no calibrated back matches, and the
  inside of the zone (its central ``INNER``), scaled down to ``SMALL`` pixels, is mostly white
  paper (unsaturated, above a floor, near the brightest of the zone and the frame, and of the
  colour of its brightest part: the scene's white under the table's light) with ink on
  it: black (dark and grey) or red print only, in a few marks (vision.faces.marks_verdict, the
  rule the reader uses for a dark card's light print: not a back's repeated pattern, none
  across the card) printed on the paper (a card's edge, a shadow or the shoe at the side are
  no marks), the paper and the ink together nearly all of it, and more white than any calibrated
  back shows; or, for a dark-faced deck, light print in a face's few marks on a dark card
  (vision.faces.light_print) that matches no calibrated back. Without calibrated backs
  there is nothing to be unlike: paper with ink, or print on a dark card, is then ``unknown``,
  and a face is left to the index read;
- ``empty``: no white paper in the zone and its brightness even (no card; a card shows paper: a
  face, or a casino back's white border);
- ``unknown``: anything else (a card half in view, a hand, too dark, glare, a court card's
  picture, a back not calibrated).

Unsure is better than wrong: a back called a face would rule a false boxed card (IRR-3), so a
back match is decided first, and a face needs every piece of evidence together. An index read by
the full reader is the other evidence of a face: the camera adapter runs the reader on the mouth
when this check says ``face`` (to name the card) or ``unknown``.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

import cv2
import numpy as np

from vision.backs import COLOUR_BINS, GREYS, HUES, Backs, describe
from vision.faces import PRINT_FIELD, blue_or_green, light_print, marks_verdict, reaching_edge
from vision.types import BGRImage
from vision.zones import ZoneArea

SMALL = 64  # the zone is looked at scaled down to this many pixels on its long side
INNER = 0.7  # the part of the zone around its centre that the face test looks at
PAPER_SATURATION = 60  # paper is at most this saturated (warm light makes white cream) ...
PAPER_FLOOR = 80  # ... at least this bright ...
WHITE_CHROMA = 0.025  # ... and of the colour of its brightest part (b, g, r shares this close)
PAPER_RELATIVE = 0.7  # ... and this share of the view's bright level (the zone's 95th percentile,
# the frame's 99th): card paper is the whitest thing in view, the shoe's grey plastic is not
INK_DARK = 0.6  # ink is at most this share of the paper's brightness and at most INK_GREY
INK_GREY = 80  # saturated (black print: a dark green or blue back's field is no ink) ...
INK_SATURATION = 100  # ... or red (a hue within RED_HUES of red) and this saturated: a face is
RED_HUES = 12  # printed in black and red; a back's pattern in another colour is no ink (on a
# four-colour deck, calibrated so, blue and green are ink too: vision.faces.blue_or_green)
FACE_WHITE = 0.5  # a face's inside is at least half white paper ...
FACE_INK = (0.01, 0.45)  # ... with some ink on it, not more than paper ...
FACE_PAPER_AND_INK = 0.85  # ... and the two together nearly all of it (not a coloured back)
INK_ON_PAPER = 0.35  # ... the ink in marks on the paper: this share of it within 2 px of paper
CLIPPED = 250  # paper this bright is clipped by the camera: glare or overexposure, where a back's
CLIPPED_SHARE = 0.5  # light colour turns as white as paper; with this share of the paper clipped a
CLIPPED_INK = (0.02, 0.3)  # face needs ink within these (a back's pattern or its remnants is not)
BACK_WHITE_MARGIN = 0.3  # a face shows this much more white than a calibrated back's inside
EMPTY_WHITE = 0.02  # less white paper than this in the whole zone ...
EMPTY_SPREAD = 50  # ... and its brightness this even (95th less 5th percentile): no card
DARK = 35  # the zone's bright level below this: too dark to tell
MOUTH_TEXTURE_LIMIT = 0.5  # a back's texture is compared at least this loosely at the mouth: the
# mouth sees the card larger than calibration did, and a fine pattern sampled at another scale
# gives other local patterns; its colour is compared within the calibrated limit


_NEAR = np.ones((5, 5), np.uint8)


class MouthState(Enum):
    EMPTY = "empty"
    BACK = "back"
    FACE = "face"
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class MouthLook:
    """What the check saw at the mouth on one frame."""

    state: MouthState
    why: str
    white: float = 0.0  # the share of white paper inside the zone
    ink: float = 0.0  # the share of ink inside the zone
    back: str | None = None  # the calibrated back matched


class MouthCheck:
    """The check of one camera's ``shoe`` zone; ``size`` is the camera's frame size (width,
    height); ``backs`` the backs learned by calibration, if any."""

    def __init__(self, zone: ZoneArea, size: tuple[int, int], backs: Backs | None = None) -> None:
        self.zone = zone
        width, height = size
        left, top, right, bottom = zone.bounds()
        self.box = (
            max(0, int(left)),
            max(0, int(top)),
            min(width, int(np.ceil(right))),
            min(height, int(np.ceil(bottom))),
        )
        x0, y0, x1, y1 = self.box
        if x1 - x0 < 8 or y1 - y0 < 8:
            raise ValueError(f"the {zone.name} zone is too small for the mouth check: {x1 - x0}x{y1 - y0} px")
        scale = min(1.0, SMALL / max(x1 - x0, y1 - y0))
        self.small = (max(8, round((x1 - x0) * scale)), max(8, round((y1 - y0) * scale)))
        sx, sy = self.small[0] / (x1 - x0), self.small[1] / (y1 - y0)
        points = np.array([((x - x0) * sx, (y - y0) * sy) for x, y in zone.points], np.float32)
        whole = np.zeros((self.small[1], self.small[0]), np.uint8)
        cv2.fillPoly(whole, [np.round(points).astype(np.int32)], 1)
        centre = points.mean(axis=0)
        inner = np.zeros_like(whole)
        cv2.fillPoly(inner, [np.round(centre + (points - centre) * INNER).astype(np.int32)], 1)
        self._whole = whole.astype(bool)
        self._inner = inner.astype(bool)
        self._inner_count = max(1, int(self._inner.sum()))
        ys, xs = np.nonzero(self._inner)
        self._inner_size = (int(xs.max() - xs.min() + 1), int(ys.max() - ys.min() + 1)) if len(xs) else (1, 1)
        self._whole_count = max(1, int(self._whole.sum()))
        # the zone as a card's outline for the back's descriptor (vision.backs.describe), in the
        # frame's pixels: warped from the frame as calibration warps a card, so that the back's
        # pattern is sampled alike (the small image has lost a casino back's fine lines)
        zone_points = np.array(zone.points, np.float32)
        self._quad = cv2.boxPoints(cv2.minAreaRect(zone_points)).astype(np.float32)
        self.backs = backs if backs is not None and backs.backs else None
        self._four_colour = backs is not None and backs.four_colour
        # the most white any calibrated back shows inside its border (its unsaturated light bins)
        self._back_white = 0.0
        if self.backs is not None:
            light = [HUES * 2 + level for level in range(GREYS // 2, GREYS)]
            assert max(light) < COLOUR_BINS
            self._back_white = max(sum(back.colour[i] for i in light) for back in self.backs.backs)

    def _back(self, image: BGRImage) -> str | None:
        """The calibrated back at the mouth, if any (the closest of those within their limits)."""
        if self.backs is None:
            return None
        colour, texture = describe(image, self._quad)
        best: tuple[float, str] | None = None
        for back in self.backs.backs:
            c, t = back.distances(colour, texture)
            texture_limit = max(back.texture_limit, MOUTH_TEXTURE_LIMIT)
            if c <= back.colour_limit and t <= texture_limit:
                score = c / back.colour_limit + t / texture_limit
                if best is None or score < best[0]:
                    best = (score, back.name)
        return best[1] if best else None

    def _as_white(self, small: BGRImage, value: np.ndarray, paper: np.ndarray) -> np.ndarray:
        """Of the paper, what has the colour of its brightest part: the scene's white (a face's
        paper, a back's border, a glare) under the table's light, whatever its tint; a back's
        light pattern under warm or bright light is pale, but not that white."""
        found = paper & self._whole
        if int(found.sum()) < 4:
            return paper
        pixels = small[found].astype(np.float32)
        chroma = pixels / (pixels.sum(axis=1, keepdims=True) + 1.0)
        levels = value[found]
        white = chroma[levels >= np.percentile(levels, 90)].mean(axis=0)
        kept = np.zeros_like(paper)
        kept[found] = np.abs(chroma - white).max(axis=1) <= WHITE_CHROMA
        return kept

    def check(self, image: BGRImage) -> MouthLook:
        """The mouth on one frame (the camera's full frame)."""
        x0, y0, x1, y1 = self.box
        small = cv2.resize(image[y0:y1, x0:x1], self.small, interpolation=cv2.INTER_AREA)
        hsv = cv2.cvtColor(small, cv2.COLOR_BGR2HSV)
        saturation, value = hsv[:, :, 1], hsv[:, :, 2]
        dark, bright = (float(v) for v in np.percentile(value[self._whole], (5, 95)))
        back = self._back(image)
        if back is not None:
            return MouthLook(MouthState.BACK, f"the {back} back", back=back)
        if bright < DARK:
            return MouthLook(MouthState.UNKNOWN, "too dark to tell")
        # a dark card (or the empty mouth): a dark-faced deck's face is light print in a face's
        # few marks (the rule of vision.faces that the reader applies to a dark card; the zone is
        # the card's outline, and shows its middle, not its index corners)
        dark_field = float(np.median(value[self._inner])) <= PRINT_FIELD
        if self.backs is not None and dark_field and light_print(image, self._quad).printed:
            return MouthLook(MouthState.FACE, "light print on a dark card, unlike the calibrated backs")
        view = float(np.percentile(image[::8, ::8].max(axis=2), 99))  # the frame's bright level
        paper = (saturation <= PAPER_SATURATION) & (
            value >= max(PAPER_FLOOR, PAPER_RELATIVE * max(bright, view))
        )
        paper = self._as_white(small, value, paper)
        white_all = int((paper & self._whole).sum()) / self._whole_count
        if white_all < EMPTY_WHITE:
            if bright - dark < EMPTY_SPREAD:
                return MouthLook(MouthState.EMPTY, "no card paper at the mouth", white=white_all)
            return MouthLook(MouthState.UNKNOWN, "no white paper, something there", white=white_all)
        inner_paper = paper & self._inner
        white = int(inner_paper.sum()) / self._inner_count
        if white < FACE_WHITE:
            return MouthLook(MouthState.UNKNOWN, "a card, no face showing", white=white)
        paper_value = float(np.median(value[inner_paper]))
        hue = hsv[:, :, 0]
        red = (saturation >= INK_SATURATION) & ((hue <= RED_HUES) | (hue >= 180 - RED_HUES))
        if self._four_colour:  # its diamonds blue, its clubs green: coloured ink as red is
            red |= (saturation >= INK_SATURATION) & blue_or_green(hue)
        black = (value <= INK_DARK * paper_value) & (saturation <= INK_GREY)
        ink_mask = ~paper & self._inner & (black | red)
        ink = int(ink_mask.sum()) / self._inner_count
        if not FACE_INK[0] <= ink <= FACE_INK[1]:
            why = "white without ink" if ink < FACE_INK[0] else "too much ink for a face"
            return MouthLook(MouthState.UNKNOWN, why, white=white, ink=ink)
        near = cv2.dilate(inner_paper.astype(np.uint8), _NEAR).astype(bool)
        on_paper = int((ink_mask & near).sum()) / max(1, int(ink_mask.sum()))
        if on_paper < INK_ON_PAPER:
            return MouthLook(MouthState.UNKNOWN, "dark areas, not ink on paper", white=white, ink=ink)
        if white + ink < FACE_PAPER_AND_INK:
            return MouthLook(MouthState.UNKNOWN, "paper and something else", white=white, ink=ink)
        verdict = marks_verdict(ink_mask, self._inner_size)
        if verdict is not None:
            return MouthLook(MouthState.UNKNOWN, verdict, white=white, ink=ink)
        # a face's marks are printed on its paper: holes in it. The card's edge, a shadow, the shoe
        # at the side, a back's pattern around a glare reach the edge of the zone without crossing
        # paper (the zone's outside counts as not paper)
        not_paper = ~(paper & self._whole)
        holes = not_paper & ~reaching_edge(not_paper, connectivity=4)
        if int((holes & self._whole & (black | red)).sum()) < FACE_INK[0] * self._inner_count:
            return MouthLook(MouthState.UNKNOWN, "no mark printed on the paper", white=white, ink=ink)
        clipped = float((value[inner_paper] >= CLIPPED).mean())
        if clipped >= CLIPPED_SHARE and not CLIPPED_INK[0] <= ink <= CLIPPED_INK[1]:
            why = "overexposed: a back's light colour could be this white"
            return MouthLook(MouthState.UNKNOWN, why, white=white, ink=ink)
        if self.backs is None:
            why = "paper with ink, but no calibrated back to tell a face from"
            return MouthLook(MouthState.UNKNOWN, why, white=white, ink=ink)
        if white < self._back_white + BACK_WHITE_MARGIN:
            return MouthLook(MouthState.UNKNOWN, "no whiter than a calibrated back", white=white, ink=ink)
        return MouthLook(MouthState.FACE, "white paper with ink", white=white, ink=ink)
