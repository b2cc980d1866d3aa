"""Card outlines and their corners on one frame, with no knowledge of what is printed on them.

A card is found as a blob of paper (white faces, or a dark card on a light cloth) whose outline
has convex corners of about 90 degrees. Overlapping and fanned cards merge into one blob, but each
card's index corner stays a convex right-angled vertex of the union, so the reader works on
corners, not on whole cards: every corner becomes a frame (its point, the card's short and long
edge directions, a card width) from which the index window is cut.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import NamedTuple

import cv2
import numpy as np

from vision.types import BGRImage, GrayImage

CARD_ASPECT = 88.9 / 63.5  # poker size, 3.5 x 2.5 in; bridge size (3.5 x 2.25) is read as well
MIN_CARD_WIDTH_PX = 24  # below this a rank glyph is under ~8 px high: unreadable (docs/vision.md)
FIND_SIDE = 400  # pixels: the long side at which outlines are looked for
CORNER_ANGLE_RANGE = (62.0, 118.0)  # degrees: a card corner seen with some perspective
# Dark outlines on backs-cardcounter's photos (taken along the table, stretched to a square) show
# corners from 45 to 135 degrees; their corners are many fewer than paper's, and the dark-face
# rules (vision/reader.py) decide what a corner is, not its angle
DARK_CORNER_ANGLE_RANGE = (45.0, 135.0)


class CornerFrame(NamedTuple):
    """A hypothesis: a card's corner at ``point``, its short edge along ``across`` (unit vector)
    and its long edge along ``down``; ``across`` to ``down`` turns clockwise on the image (y down),
    which is what makes the index of a top-left or bottom-right corner read upright. (A named
    tuple, immutable as a frozen dataclass is, made in a quarter of its time: a frame makes ~110.)"""

    point: tuple[float, float]
    across: tuple[float, float]
    down: tuple[float, float]
    width: float  # the card's short side, in pixels
    blob: int  # which paper blob it came from

    def card_quad(self, aspect: float = CARD_ASPECT) -> np.ndarray:
        """The card's four corners if it were whole: from this corner, clockwise; ``aspect``: its
        height over its width as seen (a slanted view or a stretched photo shortens one)."""
        # plain floats: a frame asks for ~40 of these, and numpy's cost on arrays this small is per call
        (px, py), width = self.point, self.width
        ax, ay = self.across[0] * width, self.across[1] * width
        dx, dy = self.down[0] * width * aspect, self.down[1] * width * aspect
        return np.array(
            [[px, py], [px + ax, py + ay], [px + ax + dx, py + ay + dy], [px + dx, py + dy]], dtype=np.float32
        )


@dataclass(frozen=True)
class PaperBlob:
    contour: np.ndarray  # (n, 1, 2) int32, as cv2 gives it
    polygon: np.ndarray  # (m, 2) float32, the simplified outline
    dark: bool  # a dark card on a light surface (its face, or its back)
    whole: bool = False  # one card alone, filling its rotated rectangle: its corners are that rectangle's
    group: bool = False  # card-shaped but several cards: a whole card of it lies against its edge

    def unscaled(self, scale: float) -> PaperBlob:
        """The blob found on an image ``scale`` times the frame's size, in the frame's pixels, every
        other field kept (built directly: dataclasses.replace cost 6 us a blob, 30 blobs a frame)."""
        return PaperBlob(
            (self.contour / scale).astype(np.int32), self.polygon / scale, self.dark, self.whole, self.group
        )


DARK_MERGED = True
CHAMFERS = True
CHAMFER_SHARE = 0.3
NOTCH_CORNERS = True
CUT_SIDES_NO_WIDTH = True
BORDER_PX = 2  # a vertex this near the frame's border lies on it
WIDTH_SPREAD = 1.3  # of the widest whole card's width: the widest a card's corner is tried at
DARK_WIDTH_SPREAD = 1.6  # the same on a dark blob
WHOLE_CORNERS_FIRST = True
WHOLE_PIP_WIDTHS = True  # a whole blob's pip corners at a covered card's and a group's card width
NOTCH_ANGLES = (20.0, 160.0)  # degrees: a straighter notch is one side simplified, a sharper one a slit
EDGE_PROPOSALS = True
GROUP_EDGES = True  # a card-shaped blob known to be several cards (_groups_not_whole) is proposed along too
EDGE_STEP = 0.1  # card widths between frames proposed along a spread's edge
EDGE_MIN_CARDS = 0.6
# of the frame's short side: a larger blob is not a spread of cards (a cloth, a wall); a fan of
# three photographed close fills over half of it (IMG_2656's; 0.5 before: training photos 490 -> 491)
EDGE_MAX_SHORT_SIDE = 0.7
EDGE_MAX_VERTICES = 16
# edge proposals in one frame at most: a row of five cards takes about 100, a spread photographed
# close more (128, evenly thinned, lost IMG_2505's ten: training photos 491 -> 492, validation 84 -> 85;
# the test photos at 640x480 take 15-20 % longer, the ten-card and board-row frames the same)
EDGE_BUDGET = 256
EDGE_AT_CARD_WIDTH = True  # along a spread's edges, the width of the frame's whole cards alone
DARK_SLIT_DEPTH = 0.2  # of its box's short side: a dent this deep makes a dark blob more than one card
DARK_MERGED_EPSILON = 4.0  # pixels at FIND_SIDE: the outline of merged dark blobs simplified this finely
# Paper found by its edges (_canny_blobs): Canny's two levels on the grey image; how much
# of its hull a region's outline fills; the least whiteness of paper, and how much whiter than
# what it lies on paper in shade (below the second whiteness level) must be
CANNY_BLOBS = True
GROUPS_NOT_WHOLE = True
GROUP_CORNER_NEAR = 0.05  # of the group's short side: a card's corner this near its outline lies on it
GROUP_SHARE = (0.2, 0.8)  # of the group's area, a card of it found whole
CANNY_LOOPS = True  # whole cards also from loops of edges, whatever the print inside parts
FOUND_TOLERANCE = 0.1  # of a box's size: a region's or loop's box this near a whole card's is that card
SAME_BLOB_TOLERANCE = 0.03  # of a box's size: a blob at another whiteness level this near is that blob
LOOP_TAILS = True
LOOP_BORDER = 0.15  # of its box's short side: the band inside a loop that is a card's border
LOOP_TAIL = 7  # pixels at FIND_SIDE: a line running on from a loop is narrower (edges dilated to 3)
_TAIL = np.ones((LOOP_TAIL, LOOP_TAIL), np.uint8)
CANNY_PIECE_VERTICES = 16  # a region with more is a texture's, not a piece of a few cards
CANNY_LEVELS = (50, 150)
CANNY_OUTLINE_FILL = 0.75
CARD_FILL = 0.9  # of its rotated box: a region's hull this full is card-shaped
# a loop of edges' hull, less full: a line running on from it is trimmed by an opening, which cuts
# the tips of a turned card's corners too (IMG_2507's king in shade: 0.8975)
LOOP_FILL = 0.88
CANNY_MIN_WHITE = 40  # cam_image44's nine of spades in deep shade on brown card: 46, its ground 0
CANNY_SHADE_RISE = 25
WHITENESS_LEVELS = (100, 130, 170, 210, 235)
# A covered card's edges are cut short by the card on top, so the widths guessed from them are too
# small, never too large: its corner is also read at this much more (tools/vision_validate.py)
COVERED_WIDTH_FACTOR = 1.25
# of a whole card's shorter side: a corner's paper this near where its sides meet is its corner
ROUNDED_CORNER = 0.08


OPENING = np.ones((3, 3), np.uint8)  # a mask's specks and one-pixel bridges are opened away


def whiteness(image: BGRImage) -> GrayImage:
    """Bright and unsaturated scores high: card paper, under any light that is roughly white.
    HSV's value minus its saturation, 0 where negative (OpenCV's uint8 subtraction saturates),
    computed from the channels' max and min: the hue that the HSV conversion also works out
    took half of its time (saturation rounded otherwise on under 1 % of pixels, by one level)."""
    blue, green, red = channels(image)[:3]  # (a BGRA image: its alpha is no colour)
    value = cv2.max(cv2.max(blue, green), red)
    saturation = cv2.divide(cv2.subtract(value, cv2.min(cv2.min(blue, green), red)), value, scale=255)
    score: GrayImage = cv2.subtract(value, saturation)
    return score


def channels(image: np.ndarray) -> list[np.ndarray]:
    """cv2.split's planes, written into planes made here: the planes OpenCV's Python binding makes
    for itself cost far more than the split (0.07-0.25 ms against 0.01 for a 400x300 frame's
    three)."""
    height, width = image.shape[:2]
    planes = [np.empty((height, width), image.dtype) for _ in range(image.shape[2])]
    cv2.split(image, planes)
    return planes


def shrunk(image: np.ndarray, factor: float) -> np.ndarray:
    """``image`` scaled by ``factor`` (< 1) with area resampling. By a power of two, on an image
    that many halvings divide exactly, it is halved that many times: OpenCV's area resampling by
    exactly two is a fast path, by four a general one (0.5 ms for a 640x480 frame to 160x120, 0.13
    halved twice; the same means, rounded at each halving, so within a level). Any other factor
    is one resampling, as before (halving first would weigh the pixels otherwise)."""
    halvings = round(-math.log2(factor)) if 0.0 < factor < 1.0 else 0
    height, width = image.shape[:2]
    if (
        halvings
        and factor == 0.5**halvings
        and height % (1 << halvings) == 0
        and width % (1 << halvings) == 0
    ):
        for _ in range(halvings):
            image = cv2.resize(
                image, (image.shape[1] // 2, image.shape[0] // 2), interpolation=cv2.INTER_AREA
            )
        return image
    return cv2.resize(image, None, fx=factor, fy=factor, interpolation=cv2.INTER_AREA)


def _paper_blobs(score: GrayImage, min_area: float) -> list[PaperBlob]:
    """White paper's blobs at several levels of whiteness (``score``), opened: a card on a light
    cloth separates from it only at a high level, a card in shadow appears only at a low one (no
    single cut-off fits both). A flat opening commutes with a threshold, so the score is opened
    once for all levels. Each level's mask lies inside the one below it, so whatever a higher
    level finds inside a whole card kept already is that card again or a piece of it, covered by
    it (_covered: its box's centre lies in the card's box): the card is blanked from the score
    before the next level is cut. The blanking is its outline filled, which is exactly its blob
    and its holes; no other blob of that level touches it (they would be one blob), so every other
    outline of the levels above is found as before. The blobs are the same as every level
    searched in full, and no level above one that leaves nothing is searched: the levels above the
    lowest see only the paper no whole card explains (on the ten-card frames, a card or two whose
    print notches or parts their paper at the lowest level: 10 of 20 frames), and the outlines
    cost about half as much. Whole cards come first, in the order found; then the others (pieces
    of cards, cards merged), each kept unless a blob kept covers it."""
    opened: GrayImage = cv2.morphologyEx(score, cv2.MORPH_OPEN, OPENING)
    kept = _KeptBlobs()
    others: list[np.ndarray] = []  # the outlines of no whole card, at every level, in order
    for level in WHITENESS_LEVELS:
        mask: GrayImage = cv2.threshold(opened, level - 1, 255, cv2.THRESH_BINARY)[1]
        if not cv2.countNonZero(mask):
            break  # (the levels above lie inside this one: nothing there either)
        found_whole: list[np.ndarray] = []
        for contour, whole in _outlines(mask, min_area, dark=False):
            if not whole:
                others.append(contour)
            elif kept.keep(contour, True):
                found_whole.append(contour)
        if found_whole:
            cv2.drawContours(opened, found_whole, -1, 0, cv2.FILLED)
    for contour in others:
        kept.keep(contour, False)
    return kept.blobs


class _KeptBlobs:
    """The paper blobs kept so far, each with its box and whether it is whole (for _covered)."""

    def __init__(self) -> None:
        self.blobs: list[PaperBlob] = []
        self.boxes: list[tuple[Sequence[int], bool]] = []

    def keep(self, contour: np.ndarray, whole: bool) -> bool:
        """Keeps the outline's blob, simplified, unless a blob kept covers it or it is too thin to
        be one: whether it was kept."""
        box = cv2.boundingRect(contour)
        if _covered(box, self.boxes):
            return False
        blob = _simplified(contour, False, whole)
        if blob is None:
            return False
        self.blobs.append(blob)
        self.boxes.append((box, whole))
        return True


def _covered(box: Sequence[int], kept: list[tuple[Sequence[int], bool]]) -> bool:
    """Whether a blob kept already covers the blob of ``box``: it is that blob again (_same_box, to
    SAME_BLOB_TOLERANCE), or a whole card whose box holds the centre of ``box`` (a piece of that
    card, or a card found inside it)."""
    x, y, w, h = box
    cx, cy = x + w / 2, y + h / 2
    for (kx, ky, kw, kh), whole in kept:
        if _same_box(box, (kx, ky, kw, kh), SAME_BLOB_TOLERANCE, 1):
            return True
        if whole and kx <= cx <= kx + kw and ky <= cy <= ky + kh:
            return True
    return False


def _same_box(box: Sequence[int], other: Sequence[int], share: float, size_slack: int) -> bool:
    """Whether ``other`` is the box ``box`` again: its corner within ``share`` of the larger side
    of ``box`` (2 pixels at least), its width and height within ``size_slack`` times that."""
    x, y, w, h = box
    ox, oy, ow, oh = other
    tolerance = max(2, int(share * max(w, h)))
    return (
        abs(x - ox) <= tolerance
        and abs(y - oy) <= tolerance
        and abs(w - ow) <= size_slack * tolerance
        and abs(h - oh) <= size_slack * tolerance
    )


def dark_card_mask(gray: GrayImage) -> GrayImage:
    """A dark card on a light surface (``gray``, the frame in grey): the inverse polarity, kept only
    when the surface is light."""
    otsu, mask = cv2.threshold(gray, 0, 255, cv2.THRESH_BINARY_INV + cv2.THRESH_OTSU)
    if otsu > 140:
        return np.zeros_like(gray)
    light_median = _median_above(gray, int(otsu))
    if light_median is None or light_median < 150:
        return np.zeros_like(gray)
    return mask


def _median_above(gray: GrayImage, level: int) -> float | None:
    """The median of the grey levels above ``level`` (np.median's, the two middle values' mean
    for an even count), from the image's histogram: the pixels picked out and partitioned cost a
    millisecond of a frame of bare cloth, which Otsu parts at its noise."""
    counts = cv2.calcHist([gray], [0], None, [256], [0, 256]).ravel().astype(np.int64)[level + 1 :]
    total = int(counts.sum())
    if total == 0:
        return None
    running = np.cumsum(counts)
    lower = int(np.searchsorted(running, (total - 1) // 2 + 1))  # the value at rank (total - 1) // 2
    upper = int(np.searchsorted(running, total // 2 + 1))
    return level + 1 + (lower + upper) / 2.0


def _outlines(mask: GrayImage, min_area: float, dark: bool) -> list[tuple[np.ndarray, bool]]:
    """The outlines of an opened mask's (_paper_blobs) card-sized blobs, each with whether it is one
    whole card: not yet simplified (many of a frame's are a card found at another level)."""
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    outlines: list[tuple[np.ndarray, bool]] = []
    max_area = 0.6 * mask.shape[0] * mask.shape[1]  # the table itself, not a card
    for contour in contours:
        area = cv2.contourArea(contour)
        if not min_area <= area <= max_area:
            continue
        (_, _), (w, h), _ = cv2.minAreaRect(contour)
        ratio = max(w, h) / max(min(w, h), 1.0)
        whole = area >= 0.88 * w * h and 1.2 < ratio < 1.75
        if dark and whole and _deepest_dent(contour) > DARK_SLIT_DEPTH * min(w, h):
            whole = False  # dark cards lying side by side fill a card-shaped box: the slit between them
        # a dark blob is a card only if it is card-shaped: a quadrilateral that fills its box
        if dark and not DARK_MERGED and (area < 0.8 * w * h or not 1.15 < ratio < 1.8):
            continue
        outlines.append((contour, whole))
    return outlines


def _card_quad(contour: np.ndarray) -> np.ndarray | None:
    """A whole card's four corners, where its four sides' lines meet: its hull's four longest
    edges are its sides (a corner that the print notches or cuts off is a short edge between
    them, and a slanted view makes the card a trapezoid, which its rotated box is not). None if
    the hull has no four sides a card's. (Plain floats: a frame has a dozen whole cards, and on
    arrays this small numpy's cost is per call.)"""
    hull = cv2.convexHull(contour)
    perimeter = cv2.arcLength(hull, True)
    polygon = cv2.approxPolyDP(hull, 0.01 * perimeter, True).reshape(-1, 2).astype(np.float64).tolist()
    n = len(polygon)
    if n < 4:
        return None
    edges = [
        (polygon[(i + 1) % n][0] - polygon[i][0], polygon[(i + 1) % n][1] - polygon[i][1]) for i in range(n)
    ]
    lengths = [math.hypot(dx, dy) for dx, dy in edges]
    sides = sorted(sorted(range(n), key=lambda i: -lengths[i])[:4])  # in the outline's order
    shortest = min(lengths[i] for i in sides)
    if shortest < 0.12 * perimeter:
        return None
    quad = []
    for k in range(4):
        i, j = sides[k - 1], sides[k]  # the side before the corner, and the side after it
        (ux, uy), (vx, vy) = edges[i], edges[j]
        det = ux * -vy + vx * uy
        if abs(det) < 0.3 * lengths[i] * lengths[j]:
            return None  # two sides nearly parallel: no corner between them
        dx, dy = polygon[j][0] - polygon[i][0], polygon[j][1] - polygon[i][1]
        t = (dx * -vy + vx * dy) / det
        quad.append([polygon[i][0] + t * ux, polygon[i][1] + t * uy])
    # A rounded corner lies a pixel or two inside where its sides meet, and that is where every
    # other corner is found (and the classifier trained): keep the paper's own corner unless the
    # print cut it off
    corners = np.array(quad)
    hull_points = hull.reshape(-1, 2).astype(np.float64)
    distances = np.hypot(*(hull_points[None, :, :] - corners[:, None, :]).transpose(2, 0, 1))
    nearest = distances.argmin(axis=1)
    own = distances[np.arange(4), nearest] < ROUNDED_CORNER * shortest
    corners[own] = hull_points[nearest[own]]
    return corners.astype(np.float32)


def _simplified(contour: np.ndarray, dark: bool, whole: bool) -> PaperBlob | None:
    """The blob of an outline, simplified to its polygon; None for an outline too thin for one.
    A whole paper card's polygon is its four corners: simplifying its outline keeps the notches
    that the print near its edge cuts at a high whiteness level (an index's ink comes nearest the
    edge at the very corners that are read), and a notched corner is no right angle."""
    if whole and not dark:
        quad = _card_quad(contour)
        if quad is not None:
            return PaperBlob(contour, quad, dark, whole)
    epsilon = 0.012 * cv2.arcLength(contour, True)
    if dark and not whole:
        # dark cards merge with each other and with a dark keyboard, a mat or a shaded floor
        # into one long outline, which the share of its length would simplify past their corners
        epsilon = min(epsilon, DARK_MERGED_EPSILON)
    polygon = cv2.approxPolyDP(contour, epsilon, True).reshape(-1, 2).astype(np.float32)
    return PaperBlob(contour, polygon, dark, whole) if len(polygon) >= 3 else None


def _canny_blobs(
    gray: GrayImage, score: GrayImage, min_area: float, found: list[PaperBlob]
) -> list[PaperBlob]:
    """Paper found by its edges where whiteness cannot part it from what it lies on (a white
    board, a lamp's glare at one end of a card and shade at the other, cards touching each other or
    a light cloth): each region that the image's edges close all round and that no whiteness level
    found whole already. A card-shaped one (its hull fills its rotated box, at a card's aspect; a
    court card's is the white frame round its picture) is a whole card, of paper or of paper in
    shade whiter than what it lies on; any other region of paper is a piece of one or more cards
    whose corners are proposed as a blob's (the part of a covered card that shows, a card with a
    corner under another). ``gray``: the frame in grey; ``score``: its whiteness."""
    edges: GrayImage = cv2.dilate(cv2.Canny(gray, *CANNY_LEVELS), OPENING)
    regions: GrayImage = cv2.bitwise_not(edges)
    contours, hierarchy = cv2.findContours(regions, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    if hierarchy is None:
        return []
    h, w = score.shape
    # a whole card found already, by the box of its outline (a region notched as its outline is)
    # or of its corners (a loop of edges round it)
    found_boxes = [
        cv2.boundingRect(shape) for blob in found if blob.whole for shape in (blob.contour, blob.polygon)
    ]
    kept: list[PaperBlob] = []
    # each region's outer outline (not its holes'), and each loop of edges' outer outline: a card
    # whose print (pips in a row, touching through the dilated edges) parts its paper into several
    # regions is still one loop of edges all round (and a loop touching the frame's edge is no
    # region's hole)
    outer = [contours[int(i)] for i in np.flatnonzero(hierarchy[0][:, 3] < 0) if len(contours[int(i)]) >= 4]
    loops = (
        [
            loop
            for loop in cv2.findContours(edges, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)[0]
            if len(loop) >= 4
        ]
        if CANNY_LOOPS
        else []
    )
    shapes = outer + loops
    boxes = _boxes(shapes)
    sizes = boxes[:, 2] * boxes[:, 3]
    # too small or too large for a card (most of the regions: a pip's, a glyph's)
    for n in np.flatnonzero((sizes >= min_area) & (sizes <= 0.5 * h * w)).tolist():
        contour, loop = shapes[n], n >= len(outer)
        x, y, bw, bh = boxes[n].tolist()
        if _found_already((x, y, bw, bh), found_boxes):
            continue  # a card the whiteness levels (or its region) found whole
        if loop:
            # an open line's outline runs along both its sides: it closes round no card's area
            if cv2.contourArea(contour) < min_area:
                continue
            if LOOP_TAILS:
                trimmed = _without_tails(contour, x, y, bw, bh)
                if trimmed is None:
                    continue
                contour = trimmed
                x, y, bw, bh = cv2.boundingRect(contour)
                if _found_already((x, y, bw, bh), found_boxes):
                    continue
        # by the frame's edge (a loop of edges is closed: a card that the frame's edge cuts leaves
        # an open one, whose outline is the thin line's own, no card-sized area)
        cut = not loop and (x <= 1 or y <= 1 or x + bw >= w - 1 or y + bh >= h - 1)
        hull = cv2.convexHull(contour)
        (_, _), (rw, rh), _ = cv2.minAreaRect(hull)
        ratio = max(rw, rh) / max(min(rw, rh), 1.0)
        fill = LOOP_FILL if loop else CARD_FILL
        card_shaped = (
            not cut
            and 1.2 < ratio < 1.75
            and cv2.contourArea(hull) >= fill * rw * rh
            and CARD_FILL * rw * rh >= min_area
        )
        if loop and not card_shaped:
            continue
        if card_shaped and cv2.contourArea(contour) < CANNY_OUTLINE_FILL * cv2.contourArea(hull):
            continue  # a ragged outline: a texture's region, not a card's edge
        mask: GrayImage = np.zeros((bh, bw), np.uint8)
        cv2.drawContours(mask, [contour], 0, 255, cv2.FILLED, offset=(-x, -y))
        if loop and LOOP_BORDER:
            # a loop's paper is the card's border, inside its outline: its picture (a court card's)
            # is no paper, and in shade would take the mean below paper's
            k = max(3, round(LOOP_BORDER * min(bw, bh)))
            mask = cv2.subtract(mask, cv2.erode(mask, np.ones((k, k), np.uint8)))
        region = cv2.bitwise_and(mask, regions[y : y + bh, x : x + bw])
        paper = cv2.mean(score[y : y + bh, x : x + bw], region)[0]
        if not card_shaped:
            if paper >= WHITENESS_LEVELS[0]:  # a piece is paper the lowest whiteness level sees
                piece = _simplified(contour, False, False)
                if piece is not None and len(piece.polygon) <= CANNY_PIECE_VERTICES:
                    kept.append(piece)
            continue
        if paper < CANNY_MIN_WHITE:
            continue  # not paper: a dark card is the dark outlines' (below), a dark region nobody's
        if (
            paper < WHITENESS_LEVELS[1]
            and paper < _ring_whiteness(score, hull, x, y, bw, bh) + CANNY_SHADE_RISE
        ):
            continue  # neither paper nor paper in shade, whiter than what it lies on
        quad = _card_quad(hull)
        if quad is None:
            continue
        # the region lies inside the edges, which are dilated: the card's sides lie about a pixel
        # and a half out (the short sides' half-width grown by that much; the long ones' a little
        # more); a loop's outline lies outside them, and the sides about a pixel in
        centre = quad.mean(axis=0)
        quad = centre + (quad - centre) * (1 + (-2.0 if loop else 3.0) / max(1.0, min(rw, rh)))
        outline = np.round(quad).astype(np.int32).reshape(-1, 1, 2)
        kept.append(PaperBlob(outline, quad.astype(np.float32), False, True))
        found_boxes.append(cv2.boundingRect(outline))  # its loop of edges, after its region: one card
    return kept


def _boxes(contours: Sequence[np.ndarray]) -> np.ndarray:
    """Each contour's upright box (x, y, width, height), as cv2.boundingRect gives it, all at once
    (n, 4): a Canny pass has a hundred regions or more, and a call each cost more than the rest
    of their test."""
    if not contours:
        return np.zeros((0, 4), np.int32)
    points = np.concatenate(contours).reshape(-1, 2)
    starts = np.cumsum([0] + [len(contour) for contour in contours[:-1]])
    low = np.minimum.reduceat(points, starts)
    boxes: np.ndarray = np.hstack([low, np.maximum.reduceat(points, starts) - low + 1])
    return boxes


def _found_already(box: Sequence[int], found: Sequence[Sequence[int]]) -> bool:
    """Whether a region's or a loop's box is that of a card found whole already (to FOUND_TOLERANCE
    of its size, its width and height to twice that: a card's Canny outline and its whiteness
    outline differ by a few pixels)."""
    return any(_same_box(box, other, FOUND_TOLERANCE, 2) for other in found)


def _without_tails(contour: np.ndarray, x: int, y: int, bw: int, bh: int) -> np.ndarray | None:
    """A loop of edges filled, without the lines that run on from it (a shadow's edge, the table's,
    a neighbour's side touching the card's): opened by LOOP_TAIL pixels, its largest part's outline;
    None when nothing that wide is left."""
    filled = np.zeros((bh, bw), np.uint8)
    cv2.drawContours(filled, [contour], 0, 255, cv2.FILLED, offset=(-x, -y))
    opened: GrayImage = cv2.morphologyEx(filled, cv2.MORPH_OPEN, _TAIL)
    parts, _ = cv2.findContours(opened, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE, offset=(x, y))
    return max(parts, key=cv2.contourArea) if parts else None


def _ring_whiteness(score: GrayImage, hull: np.ndarray, x: int, y: int, bw: int, bh: int) -> float:
    """The mean whiteness of a ring round a region (its hull, its box), 0.15 of its box's shorter
    side wide: what the region lies on."""
    h, w = score.shape
    m = max(2, int(0.15 * min(bw, bh)))
    x0, y0, x1, y1 = max(0, x - m), max(0, y - m), min(w, x + bw + m), min(h, y + bh + m)
    ring = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.drawContours(ring, [hull], 0, 255, thickness=2 * m, offset=(-x0, -y0))
    cv2.drawContours(ring, [hull], 0, 0, cv2.FILLED, offset=(-x0, -y0))
    return float(cv2.mean(score[y0:y1, x0:x1], ring)[0])


def _deepest_dent(contour: np.ndarray) -> float:
    """How far, in pixels, the outline's deepest dent lies inside its convex hull."""
    hull = cv2.convexHull(contour, returnPoints=False)
    if len(hull) < 4:
        return 0.0
    try:
        defects = cv2.convexityDefects(contour, hull)
    except cv2.error:  # a self-touching outline, which OpenCV refuses: no dent measured
        return 0.0
    return 0.0 if defects is None else float(defects[:, 0, 3].max()) / 256.0


def find_blobs(image: BGRImage) -> list[PaperBlob]:
    """Outlines are found at no more than FIND_SIDE pixels (a card's corner moves by under a pixel
    of the full frame) and returned in the full frame's coordinates, where the index is cut."""
    scale = min(1.0, FIND_SIDE / max(image.shape[:2]))
    # Bilinear for a mild step down (640 to 400), area below: OpenCV's area resampling at 640/400
    # took 1 ms of a 10 ms frame, and bilinear reads the training photos as well
    # (tools/vision_validate.py); from a zone crop of 710 px it lost a card (tests/vision/test_crops.py).
    interpolation = cv2.INTER_LINEAR if scale >= 0.6 else cv2.INTER_AREA
    small = (
        image if scale == 1.0 else cv2.resize(image, None, fx=scale, fy=scale, interpolation=interpolation)
    )
    h, w = small.shape[:2]
    min_width = MIN_CARD_WIDTH_PX * scale
    min_area = max(0.4 * min_width * min_width * CARD_ASPECT, 0.0015 * h * w)
    score = whiteness(small)
    gray = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)  # the edges' and the dark cards'
    blobs = _paper_blobs(score, min_area)
    if CANNY_BLOBS:
        blobs.extend(_canny_blobs(gray, score, min_area, blobs))
    if GROUPS_NOT_WHOLE:
        blobs = _groups_not_whole(blobs)
    dark_mask = dark_card_mask(gray)
    if cv2.countNonZero(dark_mask):  # (most frames: no light surface for dark cards to lie on)
        for contour, whole in _outlines(
            cv2.morphologyEx(dark_mask, cv2.MORPH_OPEN, OPENING), min_area, dark=True
        ):
            blob = _simplified(contour, True, whole)
            if blob is not None:
                blobs.append(blob)
    if scale == 1.0:
        return blobs
    return [blob.unscaled(scale) for blob in blobs]


def _groups_not_whole(blobs: list[PaperBlob]) -> list[PaperBlob]:
    """A card-shaped paper blob is no whole card when a smaller whole card lies in it against its
    edge (two of the smaller card's corners on its outline): two cards side by side with a gap the
    whiteness levels close (a landscape card's shape of two portrait ones), a fan or a squared
    pile, one card of it found on its own. (A court card's picture frame, found whole inside its
    card, touches no edge of it.) The group keeps its outline, simplified as any other blob's,
    and its corners are tried at every width guess."""
    wholes = [
        (i, blob.polygon, abs(cv2.contourArea(blob.polygon))) for i, blob in enumerate(blobs) if blob.whole
    ]
    if len(wholes) < 2:
        return blobs
    result = list(blobs)
    for i, outer, area in wholes:
        if len(outer) != 4:
            continue
        outline = outer.reshape(-1, 1, 2)
        for j, inner, inner_area in wholes:
            if j == i or not GROUP_SHARE[0] * area <= inner_area <= GROUP_SHARE[1] * area:
                continue
            centre = inner.mean(axis=0)
            if cv2.pointPolygonTest(outline, (float(centre[0]), float(centre[1])), False) <= 0:
                continue
            near = GROUP_CORNER_NEAR * float(min(np.hypot(*(outer[[1, 2, 3, 0]] - outer).T)))
            on_edge = sum(
                abs(cv2.pointPolygonTest(outline, (float(x), float(y)), True)) <= near for x, y in inner
            )
            if on_edge >= 2:
                group = _simplified(blobs[i].contour, False, False)
                if group is not None:
                    result[i] = replace(group, group=True)
                break
    return result


def _orientation(polygon: np.ndarray) -> float:
    """Positive when the polygon runs clockwise on the image (y down): its signed area, as OpenCV
    gives it in one call (numpy's shoelace on a dozen points cost several)."""
    return float(cv2.contourArea(np.asarray(polygon, np.float32), oriented=True))


def clockwise(polygon: np.ndarray) -> np.ndarray:
    """The polygon run clockwise on the image (y down)."""
    return polygon[::-1] if _orientation(polygon) < 0 else polygon


def corner_frames(blobs: list[PaperBlob], image_shape: tuple[int, ...]) -> list[CornerFrame]:
    """Every convex right-angled vertex of every blob, as one or more corner frames (one per
    plausible card width: the edges that meet at a corner of overlapping cards are often cut short
    by the card on top, so a vertex of a blob that is not one card is also tried at a quarter more
    than its edges say and at the width of the frame's whole cards)."""
    if not blobs:
        return []
    h, w = image_shape[:2]
    boxes = [cv2.minAreaRect(blob.contour)[1] for blob in blobs]  # (w, h) of each rotated box
    # the cards of one frame are of one deck at about one distance: the cards lying alone give the
    # width of the covered ones
    whole_widths = [min(box) for blob, box in zip(blobs, boxes, strict=True) if blob.whole]
    whole_width = float(statistics.median(whole_widths)) if whole_widths else None  # numpy's costs 20 us
    # the widest a card's corner is tried at: a spread past the widest card lying whole (a speck
    # of paper is no card: whole or not, it is under a card's least width)
    card_widths = [width for width in whole_widths if width >= MIN_CARD_WIDTH_PX]
    card_width = float(statistics.median(card_widths)) if card_widths else None
    darks = np.array([blob.dark for blob in blobs])
    # a dark deck's faces are found whole less often (their outlines run onto each other and onto
    # the table), and a photo of one stretched or slanted: its corners keep a wider spread
    widest = (
        max(card_widths) * np.where(darks, DARK_WIDTH_SPREAD, WIDTH_SPREAD)
        if card_widths and WIDTH_SPREAD
        else None
    )
    # All blobs' vertices at once (a frame's blobs have ~10 vertices each: numpy's cost is per call)
    outline = _Outlines(blobs)
    owner, poly, nxt = outline.owner, outline.poly, outline.nxt
    to_prev, to_next = outline.to_prev, outline.to_next
    len_prev, len_next = outline.len_prev, outline.len_next
    u_prev, u_next = outline.u_prev, outline.u_next
    dark = darks[owner]
    wholes = np.array([blob.whole for blob in blobs])
    whole = wholes[owner]
    paper_range = [math.cos(math.radians(a)) for a in CORNER_ANGLE_RANGE]
    dark_range = [math.cos(math.radians(a)) for a in DARK_CORNER_ANGLE_RANGE]
    low = np.where(dark, dark_range[0], paper_range[0])
    high = np.where(dark, dark_range[1], paper_range[1])
    cosine = np.sum(u_prev * u_next, axis=1)
    # convex on a clockwise outline: from the incoming edge (-to_prev) to the outgoing one turns clockwise
    turn = -to_prev[:, 0] * to_next[:, 1] + to_prev[:, 1] * to_next[:, 0]
    short_edge = 0.35 * MIN_CARD_WIDTH_PX
    keep = (turn > 0) & (cosine <= low) & (cosine >= high)
    keep &= (len_prev >= short_edge) & (len_next >= short_edge)
    # the corners of each blob, in order: its kept vertices, its chamfers, its edge proposals
    side_next, side_prev = len_next, len_prev
    if CUT_SIDES_NO_WIDTH and darks.any():
        # a dark card's side that ends on the frame's border runs on beyond it: its length is no
        # card's width or height (a window that narrow on a dark back's lattice reads a king; a
        # white card's cut side, read at its length, still names IMG_2611's jack)
        def on_border(points: np.ndarray) -> np.ndarray:
            x, y = points[:, 0], points[:, 1]
            return (x <= BORDER_PX) | (x >= w - 1 - BORDER_PX) | (y <= BORDER_PX) | (y >= h - 1 - BORDER_PX)

        side_next = np.where(dark & on_border(poly + to_next), 0.0, len_next)
        side_prev = np.where(dark & on_border(poly + to_prev), 0.0, len_prev)
    groups = [_Corners(owner[keep], poly[keep], u_next[keep], u_prev[keep], side_next[keep], side_prev[keep])]
    if CHAMFERS:
        # a rounded or shaded corner simplified into two vertices of ~135 degrees with a short
        # edge between them: the corner is where the two long edges' lines meet
        after = u_next[nxt]  # the edge leaving the chamfer's second vertex
        chamfer_cos = np.sum(u_prev * after, axis=1)
        chamfer_turn = u_prev[:, 0] * after[:, 1] - u_prev[:, 1] * after[:, 0]
        chamfer = (
            ~whole
            & (len_next < CHAMFER_SHARE * np.minimum(len_prev, len_next[nxt]))
            & (turn > 0)
            & (turn[nxt] > 0)
            & (chamfer_turn < 0)
            & (chamfer_cos <= low)
            & (chamfer_cos >= high)
            & (len_prev >= short_edge)
            & (len_next[nxt] >= short_edge)
        )
        if chamfer.any():
            # poly[i] - s * u_prev[i] = poly[i+1] + t * after[i]: solve for s
            d = poly[nxt] - poly
            det = u_prev[:, 0] * after[:, 1] - after[:, 0] * u_prev[:, 1]
            s_along = (d[:, 0] * (-after[:, 1]) + after[:, 0] * d[:, 1]) / np.where(
                np.abs(det) < 1e-9, 1e-9, det
            )
            corner = poly - s_along[:, None] * u_prev
            # the long edges, measured from the corner to their far ends
            far_next = (poly[nxt] + to_next[nxt] - corner)[chamfer]
            far_prev = (poly + to_prev - corner)[chamfer]
            groups.append(
                _Corners(
                    owner[chamfer],
                    corner[chamfer],
                    after[chamfer],
                    u_prev[chamfer],
                    np.hypot(far_next[:, 0], far_next[:, 1]),
                    np.hypot(far_prev[:, 0], far_prev[:, 1]),
                )
            )
    if NOTCH_CORNERS:
        # two cards touching, one's corner against the other's side: the outline's notch there is
        # no corner of either, but one of its two edges is still the first card's own side; its
        # corner is tried with either edge as that side and the square to it as the other (at the
        # width that side gives: the notch's other edge is the other card's)
        notch = (
            ~whole
            & ~dark
            & (turn < 0)
            & (cosine <= math.cos(math.radians(NOTCH_ANGLES[0])))
            & (cosine >= math.cos(math.radians(NOTCH_ANGLES[1])))
            & (len_prev >= short_edge)
            & (len_next >= short_edge)
        )
        if notch.any():
            down_prev = u_prev[notch]
            across_next = u_next[notch]
            groups.append(
                _Corners(
                    owner[notch],
                    poly[notch],
                    -_down_from(down_prev),
                    down_prev,
                    len_prev[notch] / CARD_ASPECT,
                    len_prev[notch],
                    at_vertex=False,
                )
            )
            groups.append(
                _Corners(
                    owner[notch],
                    poly[notch],
                    across_next,
                    _down_from(across_next),
                    len_next[notch],
                    len_next[notch] * CARD_ASPECT,
                    at_vertex=False,
                )
            )
    budget = EDGE_BUDGET
    for index, blob in enumerate(blobs):
        rw, rh = boxes[index]
        blob_width = min(rw, rh)
        if not EDGE_PROPOSALS or blob.whole or blob.dark:
            continue
        vertices = outline.of(index)
        # the box's short side is a card's width (cards spread downwards) or its height
        # (spread across); the long side of a card seen in part is its height
        guesses = _distinct([blob_width, blob_width / CARD_ASPECT, max(rw, rh) / CARD_ASPECT])
        ratio = max(rw, rh) / max(min(rw, rh), 1.0)
        card_shaped = 1.2 < ratio < 1.75 and not (GROUP_EDGES and blob.group)
        if card_shaped or rw * rh < blob_width * blob_width * CARD_ASPECT:
            # a card-shaped box (one card, or a card's white frame around its picture) or a
            # piece of one card: its corners are its vertices. (Proposals along these bought
            # nothing on the training photos and cost 50 % more patches on the ten-card frames.)
            # A group is several cards (_groups_not_whole): a spread's covered index corner lies on
            # its edge (IMG_2649's jack of hearts: training photos 492 -> 493, frame times as before)
            guesses = []
        if blob_width > EDGE_MAX_SHORT_SIDE * min(h, w) or vertices.stop - vertices.start > EDGE_MAX_VERTICES:
            guesses = []  # the cloth, a wall, a jagged outline: not a spread of cards
        if widest is not None:
            guesses = [guess for guess in guesses if guess <= widest[index]]
        if guesses and card_width is not None and EDGE_AT_CARD_WIDTH:
            # the cards lying whole give the deck's width at this distance, better than the spread's
            # box can (its short side is a card's height or width, or neither where cards are
            # staggered); the frames along its edges share one budget, so that width alone
            guesses = [card_width]
        for guess in guesses:
            extra = _along_edges(poly[vertices], u_next[vertices], len_next[vertices], guess)
            if extra is None or budget <= 0:
                continue
            if len(extra[0]) > budget:  # evenly thinned: a frame's patches are its time
                chosen = np.linspace(0, len(extra[0]) - 1, budget).astype(int)
                extra = (extra[0][chosen], extra[1][chosen], extra[2][chosen], extra[3][chosen])
            budget -= len(extra[0])
            owners = np.full(len(extra[0]), index)
            groups.append(_Corners(owners, *extra, extra[3] * CARD_ASPECT, at_vertex=False))
    corners = _Corners.joined(groups)
    points = corners.points
    inside = (points[:, 0] >= 2) & (points[:, 0] < w - 2) & (points[:, 1] >= 2) & (points[:, 1] < h - 2)
    corners = corners.where(inside)
    if WHOLE_CORNERS_FIRST:
        # a whole card's corners are its own (its hull's), a notched outline's vertex a pixel or
        # three off: of two frames at one corner, the whole card's is the one kept
        corners = corners.where(np.argsort(~wholes[corners.owner], kind="stable"))
    widths = _frame_widths(
        corners,
        wholes[corners.owner],
        boxes,
        whole_width,
        None if widest is None else widest[corners.owner],
        darks[corners.owner],
    )
    return _without_repeats(corners, widths)


@dataclass(frozen=True)
class _Corners:
    """Corner hypotheses before their widths: the blob of each, its point, its across and down
    directions, and the lengths of its two edges (next: across, previous: down)."""

    owner: np.ndarray
    points: np.ndarray
    across: np.ndarray
    down: np.ndarray
    long_next: np.ndarray
    long_prev: np.ndarray
    at_vertex: np.ndarray | bool = True  # a vertex of the outline (or a chamfer), not along an edge

    @staticmethod
    def joined(groups: list[_Corners]) -> _Corners:
        """The groups' corners ordered by blob, then group, then their order in the group."""
        owner = np.concatenate([g.owner for g in groups])
        order = np.lexsort(
            (
                np.arange(len(owner)),
                np.concatenate([np.full(len(g.owner), k) for k, g in enumerate(groups)]),
                owner,
            )
        )
        at_vertex = np.concatenate([np.broadcast_to(np.asarray(g.at_vertex), len(g.owner)) for g in groups])

        def column(name: str) -> np.ndarray:
            return np.concatenate([getattr(g, name) for g in groups])[order]

        return _Corners(
            owner[order],
            column("points").reshape(-1, 2),
            column("across").reshape(-1, 2),
            column("down").reshape(-1, 2),
            column("long_next"),
            column("long_prev"),
            at_vertex[order],
        )

    def where(self, chosen: np.ndarray) -> _Corners:
        at_vertex = np.broadcast_to(np.asarray(self.at_vertex), len(self.owner))[chosen]
        return _Corners(
            self.owner[chosen],
            self.points[chosen],
            self.across[chosen],
            self.down[chosen],
            self.long_next[chosen],
            self.long_prev[chosen],
            at_vertex,
        )


class _Outlines:
    """Every blob's polygon, run clockwise, as one array of vertices with each vertex's blob, its
    neighbours and its two edges."""

    def __init__(self, blobs: list[PaperBlob]) -> None:
        polygons = []
        for blob in blobs:
            polygons.append(clockwise(blob.polygon.astype(np.float64)))
        sizes = np.array([len(p) for p in polygons])
        self.starts = np.cumsum(sizes) - sizes
        self.owner = np.repeat(np.arange(len(blobs)), sizes)
        self.poly = np.concatenate(polygons)
        number = np.arange(len(self.poly))
        first, last = self.starts[self.owner], self.starts[self.owner] + sizes[self.owner] - 1
        self.nxt = np.where(number == last, first, number + 1)
        prv = np.where(number == first, last, number - 1)
        self.to_prev = self.poly[prv] - self.poly
        self.to_next = self.poly[self.nxt] - self.poly
        self.len_prev = np.hypot(self.to_prev[:, 0], self.to_prev[:, 1])
        self.len_next = np.hypot(self.to_next[:, 0], self.to_next[:, 1])
        self.u_prev = self.to_prev / np.maximum(self.len_prev, 1e-9)[:, None]
        self.u_next = self.to_next / np.maximum(self.len_next, 1e-9)[:, None]
        self._sizes = sizes

    def of(self, blob: int) -> slice:
        """Where a blob's vertices are."""
        return slice(int(self.starts[blob]), int(self.starts[blob] + self._sizes[blob]))


def whole_pip_corners(blobs: list[PaperBlob], frames: Sequence[CornerFrame]) -> np.ndarray:
    """Which frames are at a whole paper card's pip corners: those whose 'across' runs along the
    card's long side, where a window as wide as its short side is no card's index (clockwise
    frames put both index corners' 'across' along the short side)."""
    result = np.zeros(len(frames), bool)
    long_sides: dict[int, tuple[float, float] | None] = {}  # each blob's longest side, as a unit vector
    for n, frame in enumerate(frames):
        if frame.blob not in long_sides:
            long_sides[frame.blob] = _longest_side(blobs[frame.blob])
        side = long_sides[frame.blob]
        if side is not None:
            result[n] = abs(side[0] * frame.across[0] + side[1] * frame.across[1]) > 0.7
    return result


def pieces_within(
    blobs: list[PaperBlob], pieces: Sequence[int], wholes: Sequence[int], rim: float
) -> set[int]:
    """Of the ``pieces`` (blobs' numbers), those whose paper lies within the ``wholes`` (whole
    cards' blobs) but for a rim: what of it lies outside their outlines, opened by ``rim`` of the
    whole cards' median width, is nothing (an index corner in view is wider than that)."""
    if not pieces or not wholes:
        return set()
    outlines = [np.round(blobs[i].polygon).astype(np.int32) for i in wholes]
    width = statistics.median(min(cv2.minAreaRect(blobs[i].contour)[1]) for i in wholes)
    size = max(3, round(rim * width))
    # a disc: a strip narrower than the rim goes at any angle (a square's diagonal is wider)
    opening = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size))
    within = set()
    for i in pieces:
        # in the piece's box only (a frame-sized mask cost more than the pieces' own work), with a
        # margin of nothing round it: OpenCV's erosion takes what lies past a mask's edge as set,
        # and a strip along the box's edge would be eroded from one side only
        x, y, bw, bh = cv2.boundingRect(blobs[i].contour)
        x, y = x - size, y - size
        outside = np.zeros((bh + 2 * size, bw + 2 * size), np.uint8)
        cv2.drawContours(outside, [blobs[i].contour], 0, 255, cv2.FILLED, offset=(-x, -y))
        for outline in outlines:  # one at a time: fillPoly fills where several overlap even-odd
            cv2.fillPoly(outside, [outline], 0, offset=(-x, -y))
        if not cv2.countNonZero(cv2.morphologyEx(outside, cv2.MORPH_OPEN, opening)):
            within.add(i)
    return within


def notched_wholes(blobs: list[PaperBlob]) -> dict[int, int]:
    """The paper blobs that are a whole card's outline again, notched (by a court card's picture
    at a high whiteness level, the card itself found whole by its edges): each such blob's number,
    to the whole card's. Its box is the whole card's, to FOUND_TOLERANCE."""
    wholes = [
        (i, cv2.boundingRect(blob.contour)) for i, blob in enumerate(blobs) if blob.whole and not blob.dark
    ]
    if not wholes:
        return {}
    result: dict[int, int] = {}
    for i, blob in enumerate(blobs):
        if blob.whole or blob.dark:
            continue
        box = cv2.boundingRect(blob.contour)
        same = next((j for j, whole in wholes if _found_already(box, [whole])), None)
        if same is not None:
            result[i] = same
    return result


def _longest_side(blob: PaperBlob) -> tuple[float, float] | None:
    """A whole paper card's longest side's direction; None for any other blob. (Plain floats: on
    four points numpy's cost is per call.)"""
    if not blob.whole or blob.dark or len(blob.polygon) != 4:
        return None
    points = blob.polygon.tolist()
    sides = [(points[(k + 1) % 4][0] - points[k][0], points[(k + 1) % 4][1] - points[k][1]) for k in range(4)]
    dx, dy = max(sides, key=lambda side: side[0] * side[0] + side[1] * side[1])
    length = max(math.hypot(dx, dy), 1e-9)
    return dx / length, dy / length


def _frame_widths(
    corners: _Corners,
    whole: np.ndarray,
    boxes: Sequence[Sequence[float]],
    whole_width: float | None,
    widest: np.ndarray | None,
    dark: np.ndarray,
) -> np.ndarray:
    """The card widths each corner is tried at, (n, 5), largest first, NaN where none: a whole
    card's short side (at a paper one's pip corners also its long side and its short side over a
    card's aspect, WHOLE_PIP_WIDTHS); else its two edges' widths, and at a vertex also a quarter
    more of each and the width of the frame's whole cards; each at least MIN_CARD_WIDTH_PX and
    12 % from a larger."""
    n = len(corners.owner)
    blob_widths = np.array([min(box) for box in boxes])[corners.owner]
    candidates = np.full((n, 5), -np.inf)
    candidates[:, 0] = corners.long_next
    candidates[:, 1] = corners.long_prev / CARD_ASPECT
    at_vertex = np.asarray(corners.at_vertex)
    candidates[:, 2] = np.where(at_vertex, candidates[:, 0] * COVERED_WIDTH_FACTOR, -np.inf)
    candidates[:, 3] = np.where(at_vertex, candidates[:, 1] * COVERED_WIDTH_FACTOR, -np.inf)
    if whole_width is not None:
        candidates[:, 4] = np.where(at_vertex, whole_width, -np.inf)
    candidates[whole] = -np.inf
    candidates[whole, 0] = blob_widths[whole]
    if WHOLE_PIP_WIDTHS:
        # at a whole blob's pip corner (its 'across' along the long side) a window as wide as the
        # short side reads no card: the card there is a card covered at one end, its part in view
        # card-shaped turned a quarter (as wide as the long side), or the end of a group of cards
        # side by side whose box is card-shaped (the short side is their height). Not on a dark
        # blob: a dark back's lattice reads as an index through such windows
        pip = whole & ~dark & (corners.long_next > corners.long_prev)
        candidates[pip, 1] = corners.long_next[pip]
        candidates[pip, 2] = corners.long_prev[pip] / CARD_ASPECT
    candidates = -np.sort(-candidates, axis=1)  # largest first
    chosen = np.zeros((n, 5), bool)
    for k in range(5):
        width = candidates[:, k : k + 1]
        with np.errstate(invalid="ignore"):  # no width minus no width: NaN, never apart, never chosen
            apart = ~chosen[:, :k] | (np.abs(width - candidates[:, :k]) > 0.12 * candidates[:, :k])
        chosen[:, k] = np.isfinite(candidates[:, k]) & apart.all(axis=1)
    # distinct first, then big enough: a small width is not read, but still hides its near repeats
    usable = chosen & (candidates >= MIN_CARD_WIDTH_PX)
    if widest is not None:
        # the cards of one frame are of one deck at about one distance: a guess far wider than the
        # cards lying whole is a group's side or a spread's box, and a window that wide reads the
        # pips and the neighbours as an index (a whole card keeps its own, measured width; the
        # widths its pip corners are also tried at are guesses like any other corner's)
        with np.errstate(invalid="ignore"):
            usable &= (whole[:, None] & (candidates == blob_widths[:, None])) | (
                candidates <= widest[:, None]
            )
    return np.where(usable, candidates, np.nan)


def _along_edges(
    poly: np.ndarray, u_next: np.ndarray, len_next: np.ndarray, width: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """Corners of cards covered by their neighbours in a spread: each such card's index corner
    lies on a long edge of the union (where the card's top begins), not at a vertex of it. Along
    every edge longer than a card is wide, frames are proposed every EDGE_STEP of the card's
    width, the edge running across the card and its inside (the right of a clockwise outline) down
    it; ``width`` is the card's width guessed from the blob's box."""
    if width < MIN_CARD_WIDTH_PX:
        return None
    long = np.flatnonzero(len_next > EDGE_MIN_CARDS * width)
    if len(long) == 0:
        return None
    step = EDGE_STEP * width
    starts, dirs = [], []
    for i in long:
        offsets = np.arange(0.0, max(len_next[i] - 0.5 * width, step), step)
        starts.append(poly[i] + offsets[:, None] * u_next[i])
        dirs.append(np.repeat(u_next[i][None], len(offsets), axis=0))
    points = np.concatenate(starts)
    across = np.concatenate(dirs)
    return points, across, _down_from(across), np.full(len(points), width)


def _down_from(across: np.ndarray) -> np.ndarray:
    """The 'down' of corner frames whose 'across' (n, 2) is given: turned a quarter clockwise on the
    image (y down), as CornerFrame has it. Its negative turns a 'down' back to its 'across'."""
    return np.stack([-across[:, 1], across[:, 0]], axis=1)


def _without_repeats(corners: _Corners, widths: np.ndarray) -> list[CornerFrame]:
    """One frame per corner, from each corner at each of its widths (in order): the blobs of
    several whiteness levels find the same corners. In order, a frame is dropped when a frame kept
    before it is at the same point, along the same edge, with about the same width (all pairs at
    once: a frame has ~50 of them)."""
    row, column = np.nonzero(~np.isnan(widths))
    if len(row) == 0:
        return []
    points, across = corners.points[row], corners.across[row]
    sizes = widths[row, column]
    # repeats[k, i]: frame i repeats frame k (the tolerances are k's); squared distances, each
    # axis apart: a photo has hundreds of frames, and the pairs' hypot was most of this
    dx = points[:, 0, None] - points[None, :, 0]
    dy = points[:, 1, None] - points[None, :, 1]
    reach = 0.06 * sizes[:, None]
    repeats = (
        (dx * dx + dy * dy < reach * reach)
        & (across @ across.T > 0.97)
        & (np.abs(sizes[:, None] - sizes[None, :]) < 0.12 * sizes[:, None])
    )
    dropped = np.zeros(len(row), bool)
    kept: list[int] = []
    for i in range(len(row)):
        if dropped[i]:
            continue
        kept.append(i)
        dropped |= repeats[i]
    down = corners.down[row]
    return [
        CornerFrame(tuple(p), tuple(a), tuple(d), size, blob)
        for p, a, d, size, blob in zip(
            points[kept].tolist(),
            across[kept].tolist(),
            down[kept].tolist(),
            sizes[kept].tolist(),
            corners.owner[row[kept]].tolist(),
            strict=True,
        )
    ]


def _distinct(widths: list[float]) -> list[float]:
    kept: list[float] = []
    for width in sorted(widths, reverse=True):
        if all(abs(width - other) > 0.12 * other for other in kept):
            kept.append(width)
    return kept
