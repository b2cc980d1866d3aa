"""Positive evidence of a face: print on a card, in a few marks, and not a back's pattern.

A face is printed in a few marks (pips, the index, a court card's picture) on a plain field; a
back is one repeated pattern, or a plain field. Two polarities share that rule:

- ink on white paper (the shoe's mouth, vision/mouth.py: dark or red marks on the paper);
- light print on a dark card (a black deck with gold or silver print, vision/reader.py: light
  strokes on the dark field, found as what stands above the field's local level, so that a
  glare's slow rise across a plain black back is no print).

:func:`marks_verdict` is the rule on the marks that both use; :func:`light_print` finds the
marks of a dark card. Neither calls a card a face on its own: a dark card's print is a face only
where it matches no calibrated back (a dark back may carry a logo), at the mouth and in the
reader, or where the classifier saw a rank at the card's corner; paper with ink at the mouth
also needs the mouth's paper rules.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.backs import upright
from vision.corners import whiteness
from vision.index_patch import WINDOW_ACROSS, WINDOW_DOWN
from vision.types import BGRImage

MAX_MARKS = 20  # a face's print is a few marks (pips, the index): more is a back's repeated pattern
MAX_MARK_SPAN = 0.6  # and none spans this share of the inside's width or height (a lattice, a line)
ACROSS = "a mark across the card, not a face's"
PATTERN = "a repeated pattern, not a face's marks"
COLOURED_FIELD = "a coloured field inside its border"
NO_PRINT = "no print inside, not a face's"
# what white_face_verdict says of a pale back (a court card's frame is a mark across it instead)
PALE_BACK_VERDICTS = frozenset({PATTERN, COLOURED_FIELD, NO_PRINT})

# light print on a dark card, looked at on the card warped upright to PRINT_W x PRINT_H
PRINT_W, PRINT_H = 100, 140
PRINT_BORDER = 8  # pixels of the warped card left out at each side: its edge and what lies beyond
PRINT_FIELD = 90  # the dark card's field (the inside's median brightness) is at most this
PRINT_RISE = 50  # print stands this much above the field's local level (an opening of PRINT_SPOT)
PRINT_SPOT = 15  # pixels: wider than a stroke or a pip's arm, narrower than a glare
PRINT_MARK_AREA = 6  # pixels: smaller specks are the card's grain or sensor noise
PRINT_SHARE = (0.04, 0.45)  # the share of the inside that is print: a face's, not a back's sheen
PRINT_SATURATION = 60  # print is unsaturated (silver, white) ...
GOLD_HUES = (8, 40)  # ... or gold (OpenCV hue, 0-180): a keyboard's blue or green glow is no print
# a four-colour deck's diamonds (blue) and clubs (green): OpenCV hues (0-180) from green to blue; red,
# orange and gold are not
BLUE_OR_GREEN_HUES = (35, 130)
PRINT_COLOURED = 0.7  # of the print's pixels at least this share are silver, white or gold
PICTURE_MARGIN = 10  # pixels of the inside along its edges: a court card's dark margin round its picture
WHITE_MARK_AREA = 4  # pixels of the upright card: smaller specks are grain or noise
# a white unread card whose inside's chromaticity is this far (sum of the three channels' shares'
# differences) from its border band's is a pale back's coloured field, no face: the training
# photos' white faces measure 0.005 and 0.012, pale backs under bright tinted light 0.03-0.16
FIELD_UNLIKE_BORDER = True
FIELD_CHROMA = 0.03
FIELD_BAND = 8  # pixels of the upright card: its border band lies between half this and this
FIELD_BORDER_SHARE = 0.3  # of the band, at least this must be white for a border to compare with
FACE_NEEDS_MARKS = True  # a white unread card with no mark inside is no face
# a white unread card whose inside holds more than MOST_FACE_SPECKS specks of 2 pixels or more,
# none of SPECK_AREA, shows a back's fine dots (bench/backs_stress.py: 17-195 specks of at most
# 8 pixels), no face: a face's inside holds its pips (ten at most) and parts of its index, and a
# pip is larger (the training photos' white faces: a mark of 189 pixels or more; a rendered
# seven of diamonds in pale red, 8 specks of at most 5)
SPECKS_NO_FACE = True
MOST_FACE_SPECKS = 14
SPECK_AREA = 20
# a face's marks are ink, far below paper's whiteness (black ~30, red ~20 against paper's 200 and
# more): a pale field hovering about the white level speckles into noise marks, no print
WHITE_MARK_DEPTH = 40
INDEX_PRINT = 0.04  # of a corner's index window, the share of print that an index makes
# a pip: a compact mark (of the upright card's inside, at least PIP_AREA of it, filling at least
# PIP_SOLIDITY of its hull and PIP_EXTENT of its box, at most PIP_ASPECT times as long as wide);
# a face's pips are alike: areas within PIP_AREA_RATIO, shapes within PIP_SHAPE (cv2.matchShapes'
# first measure, of Hu moments: a pip turned half round, as a face's lower half prints it, matches)
PIP_AREA = 0.008
PIP_SOLIDITY = 0.6
PIP_EXTENT = 0.35
PIP_ASPECT = 2.2
PIP_AREA_RATIO = 1.6
PIP_SHAPE = 0.25
PIP_SPACING = 5.0  # a face's pip lies within this many pip sizes (its area's square root) of another
PIP_LOOK_WIDTH = 70  # pixels: a region is looked at for pips with the frame's cards this wide at most
# pips looked for on a region are as the camera sees them: a view across the table (or a photo
# resized to a square) squashes them, all one way, up to this many times as long as wide; the
# face outlined round them is then warped upright and its pips counted at PIP_ASPECT
PIP_ASPECT_SEEN = 3.2
# a group's pips squashed to this share of their breadth or less (their mean shape's short axis
# over its long one) are a slanted view's: the face round them is outlined squashed alike. Pips
# print 0.75-0.87 as wide as tall or as tall as wide (rendered spades, hearts, clubs), so less is
# a view's; the squash measured is that much short of the view's (0.45 measures 0.5-0.6)
PIP_SQUASHED = 0.7

_SPOT = np.ones((PRINT_SPOT, PRINT_SPOT), np.uint8)
WINDOW_SPOT = 9  # pixels of an index window (24 wide, about a quarter of the card): a stroke is narrower
# of an index window (window_print), the least share of light print that a dark deck's index makes:
# backs-cardcounter's black deck 0.10-0.30; dark lattice backs read as a rank (casino backs
# overlapping or seen across the table, a scratch stress of 1,300 frames) 0-0.065, one 0.39
WINDOW_INDEX_PRINT = 0.08
_WINDOW_SPOT = np.ones((WINDOW_SPOT, WINDOW_SPOT), np.uint8)


def blue_or_green(hue: np.ndarray) -> np.ndarray:
    """Where an HSV image's hue is a four-colour deck's blue or green (its saturation is the
    caller's test)."""
    low, high = BLUE_OR_GREEN_HUES
    mask: np.ndarray = (hue >= low) & (hue <= high)
    return mask


def edge_pixels(values: np.ndarray) -> np.ndarray:
    """An image's values along its four edges, in one row (its corners twice)."""
    return np.concatenate([values[0], values[-1], values[:, 0], values[:, -1]])


def reaching_edge(mask: np.ndarray, connectivity: int) -> np.ndarray:
    """Which pixels of ``mask`` are joined to the image's edge through ``mask`` (4- or
    8-connected): what lies round or across a card's look, where a mark printed on the card is a
    hole in its paper."""
    count, labels = cv2.connectedComponents(mask.astype(np.uint8), connectivity=connectivity)
    reaches = np.zeros(count, bool)  # by label: a table looked up, where np.isin sorts
    reaches[edge_pixels(labels)] = True
    reaches[0] = False  # the pixels outside ``mask``
    reached: np.ndarray = reaches[labels]
    return reached


def marks_verdict(
    marks: np.ndarray, inside: tuple[int, int], min_area: int = 1, max_marks: int = MAX_MARKS
) -> str | None:
    """Why the marks (a boolean mask) are not a face's print, or None when they may be: at most
    ``max_marks`` of them (of ``min_area`` pixels or more), none spanning MAX_MARK_SPAN of the
    inside (``inside``: its width and height in pixels)."""
    _, _, stats, _ = cv2.connectedComponentsWithStats(marks.astype(np.uint8), connectivity=8)
    found = stats[1:]
    found = found[found[:, cv2.CC_STAT_AREA] >= min_area]
    if len(found) > max_marks:
        return PATTERN
    wide = (found[:, cv2.CC_STAT_WIDTH] >= MAX_MARK_SPAN * inside[0]) | (
        found[:, cv2.CC_STAT_HEIGHT] >= MAX_MARK_SPAN * inside[1]
    )
    if wide.any():
        return ACROSS
    return None


@dataclass(frozen=True)
class PrintLook:
    printed: bool  # light print in a face's few marks on a dark field
    why: str
    share: float = 0.0  # of the inside (what of it is in view) that is print
    corner: float = 0.0  # of the index window at the quad's first corner (vision.index_patch's
    # window: WINDOW_ACROSS of the width across, WINDOW_DOWN down), the share that is print
    pips: int = 0  # the most marks alike in size and shape that are pips' shapes (alike_pips)


def light_print(image: BGRImage, quad: np.ndarray, pictured: bool = False) -> PrintLook:
    """Whether the card at ``quad`` (four corners in order around it; its short side first, as a
    corner frame's outline is, vision.corners.CornerFrame.card_quad, for ``corner`` to be its
    first corner's) is a dark card with light print on it in a face's few marks, and how much
    print the index window at its first corner shows. ``pictured``: a court card's picture is
    allowed, light across most of the card: the field is then the dark card's margin around it
    (PICTURE_MARGIN), and a mark across the card is the picture's frame. Of a card cut by the
    frame's edge, only its part in view is looked at: a mark cut by the frame's edge is print on
    the card as far as it is seen (the reader's outline of such a card lies on the card's blob)."""
    card = upright(image, quad, (PRINT_W, PRINT_H))
    b = PRINT_BORDER
    inner = np.ascontiguousarray(card[b : PRINT_H - b, b : PRINT_W - b])
    hsv = cv2.cvtColor(inner, cv2.COLOR_BGR2HSV)
    value = hsv[:, :, 2]
    in_view = _in_view(image.shape, quad)  # None: the whole card is in the frame
    if pictured:
        m = PICTURE_MARGIN
        field = np.concatenate(
            [value[:m].ravel(), value[-m:].ravel(), value[:, :m].ravel(), value[:, -m:].ravel()]
        )
    else:
        field = value[::2, ::2] if in_view is None else value[in_view]
    if field.size == 0 or float(np.median(field)) > PRINT_FIELD:
        return PrintLook(False, "not a dark card")
    rise = _risen(value, _SPOT)
    _, labels, stats, _ = cv2.connectedComponentsWithStats(rise.astype(np.uint8), connectivity=8)
    x, y = stats[:, cv2.CC_STAT_LEFT], stats[:, cv2.CC_STAT_TOP]
    inside = (x > 0) & (y > 0) & (x + stats[:, cv2.CC_STAT_WIDTH] < value.shape[1])
    inside &= y + stats[:, cv2.CC_STAT_HEIGHT] < value.shape[0]
    # print is printed on the card: light reaching the edge of its inside is its edge, a glare
    # or what lies beyond it (the shoe, the cloth, another card)
    kept = (stats[:, cv2.CC_STAT_AREA] >= PRINT_MARK_AREA) & inside
    kept[0] = False  # the background
    marks = kept[labels]
    share = float(marks.mean()) if in_view is None else float(marks.sum()) / int(in_view.sum())
    if not PRINT_SHARE[0] <= share <= PRINT_SHARE[1]:
        why = "no print" if share < PRINT_SHARE[0] else "too much light for print"
        return PrintLook(False, why, share)
    coloured = _print_coloured(hsv[:, :, 0][marks], hsv[:, :, 1][marks])
    if float(coloured.mean()) < PRINT_COLOURED:
        return PrintLook(False, "light of another colour than print", share)
    across, down = round(WINDOW_ACROSS * PRINT_W) - b, round(WINDOW_DOWN * PRINT_W) - b
    corner = float(marks[:down, :across].mean())
    if pictured:
        # the picture's frame (or the figure itself) is one mark across most of the card, the
        # detail inside it many marks: no mark across, and this is no court card's picture
        if marks_verdict(marks, (inner.shape[1], inner.shape[0]), max_marks=len(marks.ravel())) != ACROSS:
            return PrintLook(False, "no picture across the card", share, corner)
        return PrintLook(True, "a picture on a dark card", share, corner)
    verdict = marks_verdict(marks, (inner.shape[1], inner.shape[0]))
    if verdict is not None:
        return PrintLook(False, verdict, share, corner)
    return PrintLook(True, "light print on a dark card", share, corner, alike_pips(marks))


def window_print(window: BGRImage) -> float:
    """The share of an index window (as cut for the classifier, vision.index_patch) that is light
    print: standing PRINT_RISE above the window's local level (an opening by WINDOW_SPOT, about
    light_print's PRINT_SPOT at the window's scale). A dark deck's index is a tenth to a third of
    its window (WINDOW_INDEX_PRINT); a dark back's lattice, whose faint lines the classifier's
    normalising can lift into a 'king', stands out hardly anywhere."""
    value = cv2.cvtColor(window, cv2.COLOR_BGR2HSV)[:, :, 2]
    return float(_risen(value, _WINDOW_SPOT).mean())


def index_printed(window: BGRImage) -> bool:
    """Whether an index window of a dark card shows light print enough for an index
    (WINDOW_INDEX_PRINT): what a rank read or seen there needs to be a face's."""
    return window_print(window) >= WINDOW_INDEX_PRINT


def _risen(value: np.ndarray, spot: np.ndarray) -> np.ndarray:
    """Where ``value`` (an HSV image's brightness) stands PRINT_RISE above its local level (its
    opening by ``spot``, wider than a stroke or a pip's arm, narrower than a glare)."""
    level = cv2.morphologyEx(value, cv2.MORPH_OPEN, spot)
    risen: np.ndarray = value.astype(np.int16) - level.astype(np.int16) >= PRINT_RISE
    return risen


def _print_coloured(hue: np.ndarray, saturation: np.ndarray) -> np.ndarray:
    """Where light is of print's colour: unsaturated (silver, white) or gold."""
    coloured: np.ndarray = (saturation < PRINT_SATURATION) | ((hue >= GOLD_HUES[0]) & (hue <= GOLD_HUES[1]))
    return coloured


@dataclass(frozen=True)
class Pip:
    area: int
    contour: np.ndarray  # in its mark's own box
    centre: tuple[float, float]


def _pips(marks: np.ndarray, smallest: float, aspect: float = PIP_ASPECT) -> list[Pip]:
    """The compact marks of ``marks`` (a boolean mask) of ``smallest`` pixels or more: a pip's
    shape (PIP_SOLIDITY, PIP_EXTENT, at most ``aspect`` times as long as wide), not a stroke, a
    ring or a line."""
    _, labels, stats, centres = cv2.connectedComponentsWithStats(marks.astype(np.uint8), connectivity=8)
    widths, heights = stats[:, cv2.CC_STAT_WIDTH], stats[:, cv2.CC_STAT_HEIGHT]
    areas = stats[:, cv2.CC_STAT_AREA]
    # the box's tests for every mark at once: a large region's print is thousands of specks
    boxed = (areas >= smallest) & (np.maximum(widths, heights) <= aspect * np.minimum(widths, heights))
    boxed &= areas >= PIP_EXTENT * widths * heights
    boxed[0] = False  # the background
    pips: list[Pip] = []
    for number in np.flatnonzero(boxed).tolist():
        x, y, width, height, area = (int(v) for v in stats[number])
        mark = (labels[y : y + height, x : x + width] == number).astype(np.uint8)
        contours, _ = cv2.findContours(mark, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
        contour = max(contours, key=cv2.contourArea)
        if area < PIP_SOLIDITY * max(cv2.contourArea(cv2.convexHull(contour)), 1.0):
            continue
        pips.append(Pip(area, contour, (float(centres[number][0]), float(centres[number][1]))))
    return pips


def _alike(one: Pip, other: Pip) -> bool:
    """Two marks of one suit's pips: areas within PIP_AREA_RATIO, shapes within PIP_SHAPE."""
    return (
        max(one.area, other.area) <= PIP_AREA_RATIO * min(one.area, other.area)
        and cv2.matchShapes(one.contour, other.contour, cv2.CONTOURS_MATCH_I1, 0.0) < PIP_SHAPE
    )


def alike_pips(marks: np.ndarray) -> int:
    """The largest number of ``marks`` (a boolean mask of a card's inside) that could be one
    suit's pips: compact marks (PIP_*) alike in area and shape. A face's pips are several of one
    shape; a back's few marks (a logo, an ornament at each end) are rarely three alike, and its
    repeated pattern is too many marks to get here (marks_verdict)."""
    pips = _pips(marks, PIP_AREA * marks.size)
    return max((sum(1 for other in pips if _alike(pip, other)) for pip in pips), default=0)


def pip_groups(image: BGRImage, region: np.ndarray, card_width: float) -> list[list[Pip]]:
    """Light marks on a dark ``region`` (a contour on ``image``) grouped as one face's pips:
    compact marks alike, each within PIP_SPACING of its size from another of the group (centres
    in the image's pixels). ``card_width``: the width of the frame's cards, which sizes the
    print's local level (as light_print's PRINT_SPOT does on its warp) and the smallest pip. For a
    dark card no corner of which gives an outline (one blob with the floor or a keyboard): its
    pips still show where it lies. The pips are as the camera sees them, squashed by a slanted
    view up to PIP_ASPECT_SEEN (``squash`` measures it)."""
    x, y, width, height = cv2.boundingRect(region)
    # looked at with the card PIP_LOOK_WIDTH wide at most: a pip is then still some 80 pixels,
    # and a frame's large dark regions (the floor, a keyboard) cost a quarter as much
    shrink = min(1.0, PIP_LOOK_WIDTH / card_width)
    size = (max(1, round(width * shrink)), max(1, round(height * shrink)))
    filled = np.zeros((size[1], size[0]), np.uint8)
    cv2.drawContours(filled, [np.round((region - (x, y)) * shrink).astype(np.int32)], -1, 1, -1)
    # light at the region's edge is the card's edge or what lies beyond it, as in light_print
    inside = cv2.erode(filled, np.ones((5, 5), np.uint8))
    crop = image[y : y + height, x : x + width]
    if shrink < 1.0:
        crop = cv2.resize(crop, size, interpolation=cv2.INTER_AREA)
    hsv = cv2.cvtColor(crop, cv2.COLOR_BGR2HSV)
    card_width *= shrink
    spot = max(3, round(card_width * PRINT_SPOT / PRINT_W) | 1)
    rise = _risen(hsv[:, :, 2], np.ones((spot, spot), np.uint8))
    coloured = _print_coloured(hsv[:, :, 0], hsv[:, :, 1])
    inner_area = (PRINT_W - 2 * PRINT_BORDER) * (PRINT_H - 2 * PRINT_BORDER) * (card_width / PRINT_W) ** 2
    pips = [
        Pip(pip.area, pip.contour, (pip.centre[0] / shrink + x, pip.centre[1] / shrink + y))
        for pip in _pips(rise & coloured & (inside > 0), PIP_AREA * inner_area, PIP_ASPECT_SEEN)
    ]
    group = list(range(len(pips)))  # union-find: each pip's group

    def root(n: int) -> int:
        while group[n] != n:
            group[n] = group[group[n]]
            n = group[n]
        return n

    for i, one in enumerate(pips):
        for j in range(i + 1, len(pips)):
            other = pips[j]
            near = (
                PIP_SPACING * np.sqrt((one.area + other.area) / 2) / shrink
            )  # centres in the image's pixels
            if np.hypot(one.centre[0] - other.centre[0], one.centre[1] - other.centre[1]) <= near and _alike(
                one, other
            ):
                group[root(i)] = root(j)
    groups: dict[int, list[Pip]] = {}
    for n, pip in enumerate(pips):
        groups.setdefault(root(n), []).append(pip)
    return list(groups.values())


def squash(group: list[Pip]) -> tuple[float, tuple[float, float]] | None:
    """How a slanted view squashes a group of pips: their mean shape's short axis over its long
    one, and the short axis's direction (a unit vector in the image), where that is PIP_SQUASHED
    or less; None for pips seen about as printed. Each pip's second moments are scaled by its
    area, so every pip counts alike whatever its size."""
    spread = np.zeros((2, 2))
    for pip in group:
        moments = cv2.moments(pip.contour)
        if moments["m00"] <= 0:
            continue
        spread += np.array([[moments["mu20"], moments["mu11"]], [moments["mu11"], moments["mu02"]]]) / (
            moments["m00"] ** 2
        )
    values, vectors = np.linalg.eigh(spread)
    if values[1] <= 0:
        return None
    ratio = float(np.sqrt(max(values[0], 0.0) / values[1]))
    if ratio > PIP_SQUASHED:
        return None
    return ratio, (float(vectors[0, 0]), float(vectors[1, 0]))


def white_face_verdict(image: BGRImage, quad: np.ndarray, level: int) -> str | None:
    """Why the whole card at ``quad``, white inside (vision.corners.whiteness at ``level`` or more),
    shows no face's print, or None when it may: what is not white in its inner 70 % (the card
    warped upright to PRINT_W x PRINT_H) is a face's few marks (marks_verdict), not a light back's
    repeated pattern on white (a lattice of small diamonds, thin lines)."""
    card = upright(image, quad, (PRINT_W, PRINT_H))
    mx, my = round(0.15 * PRINT_W), round(0.15 * PRINT_H)
    inner = np.ascontiguousarray(card[my : PRINT_H - my, mx : PRINT_W - mx])
    if FIELD_UNLIKE_BORDER and _field_unlike_border(card, inner, level):
        return COLOURED_FIELD
    marks = whiteness(inner) < level - WHITE_MARK_DEPTH
    _, _, stats, _ = cv2.connectedComponentsWithStats(marks.astype(np.uint8), connectivity=8)
    areas = stats[1:, cv2.CC_STAT_AREA]  # each mark's, in pixels
    if FACE_NEEDS_MARKS and not (areas >= WHITE_MARK_AREA).any():
        # every face prints inside its inner 70 % (an ace its pip): white all over is a pale
        # back's field and its lattice in a bright light, a blank card or paper, not a face
        return NO_PRINT
    if SPECKS_NO_FACE and _only_specks(areas):
        return PATTERN
    return marks_verdict(marks, (inner.shape[1], inner.shape[0]), min_area=WHITE_MARK_AREA)


def _only_specks(areas: np.ndarray) -> bool:
    """Whether marks of these ``areas`` are more specks than a face's print makes
    (MOST_FACE_SPECKS), none of them a pip's size (SPECK_AREA): a back's fine dots, each smaller
    than WHITE_MARK_AREA once warped upright, which that limit leaves out, so that a few specks
    of them made a face."""
    return bool(areas.size and areas.max() < SPECK_AREA and (areas >= 2).sum() > MOST_FACE_SPECKS)


def _field_unlike_border(card: BGRImage, inner: BGRImage, level: int) -> bool:
    """Whether the inside of an upright card is of another colour than its border band: a pale
    back's field (pink, lavender) inside its white border, which a bright light makes as 'white'
    as paper. A face's inside is mostly the paper of its border. Compared as chromaticity (each
    channel's share of the sum), the light's brightness and tint fall out: both lie under one
    light. Of the band, only its white pixels (``level``) are the border: an outline a few pixels
    too large puts the cloth in the band of a small card."""
    b = FIELD_BAND
    band = np.concatenate(
        [
            card[b // 2 : b, b:-b].reshape(-1, 3),
            card[-b : -b // 2, b:-b].reshape(-1, 3),
            card[b:-b, b // 2 : b].reshape(-1, 3),
            card[b:-b, -b : -b // 2].reshape(-1, 3),
        ]
    )
    white = whiteness(band.reshape(-1, 1, 3)).reshape(-1) >= level
    if white.sum() < FIELD_BORDER_SHARE * len(band):
        return False  # too little of a white border to tell a field from
    border = np.median(band[white], axis=0)
    field = np.median(inner.reshape(-1, 3), axis=0)
    distance = np.abs(border / max(float(border.sum()), 1.0) - field / max(float(field.sum()), 1.0)).sum()
    return bool(distance > FIELD_CHROMA)


def _in_view(shape: tuple[int, ...], quad: np.ndarray) -> np.ndarray | None:
    """Of the inside of the card at ``quad`` as light_print warps it, what lies within the frame
    (of ``shape``); None when all of the card does (most cards: no mask made)."""
    if in_frame(quad, shape):
        return None
    frame = np.full(shape[:2], 255, np.uint8)
    b = PRINT_BORDER
    seen: np.ndarray = upright(frame, quad, (PRINT_W, PRINT_H))[b : PRINT_H - b, b : PRINT_W - b] == 255
    return seen


def in_frame(points: np.ndarray, shape: tuple[int, ...]) -> bool:
    """Whether all ``points`` (n, 2: x, y) lie within a frame of ``shape``."""
    height, width = shape[:2]
    return bool(
        points[:, 0].min() >= 0
        and points[:, 1].min() >= 0
        and points[:, 0].max() < width
        and points[:, 1].max() < height
    )
