"""A card's middle as a second opinion on its index: a number card's suit as its own pips show it
(pip_suits), and whether a card read as a court card shows a court's picture (no_court_picture).

The classifier reads the suit from the index, a mark of 5-8 pixels on a card 60-80 pixels wide,
where a club and a spade differ by a few pixels; on decks it never saw it swaps them now and then
(Kennard's seven of clubs read as the seven of spades at 0.915 at both corners). The pips in the
card's middle are two or three times as large, and their shape tells the suits apart by the
notches of their outline (the convexity defects: the gaps between a shape and its convex hull):
a club's three lobes and stem leave four deep ones, a spade's stem two, a heart's top one, a
diamond none. On the training photos' cards read at 0.98 or more (nines and tens, 100 pixels a
card), 204 of 220 club pips are told clubs and 1 spades, 258 of 273 spade pips spades and none
clubs, the rest nothing; every red pip red. A heart's notch and a diamond's blunt corner are a
pixel or two apart at that size (a rendered diamond's corners made notches), so red pips are told
by their colour only: a heart read as a diamond is not caught here.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from vision.backs import rectangle_matrix, warped
from vision.corners import CARD_ASPECT, channels
from vision.faces import edge_pixels, reaching_edge
from vision.types import BGRImage

CARD_WIDTH = 100  # pixels: the card is looked at upright at this width (the pips 12-18 pixels)
PIP_AREA = (0.006, 0.05)  # of the card's area: a pip, not the index's small suit nor a court's picture
PIP_ASPECT = 1.8  # a pip's box is at most this long for its width (a stroke or a line is longer)
INNER = 0.1  # of the card's sides: the paper's level is taken inside this margin
INK_BELOW_PAPER = 60  # grey levels: ink is this much darker than the paper
DEEP_NOTCH = 0.08  # of a pip's size (its area's square root): a notch this deep counts
COLOURED = 0.15  # of the paper's brightness: a red excess (red ink) or a chroma (another ink) this large
NOTCHES_SUIT = {4: "c", 2: "s"}  # a black pip's deep notches: a club's, a spade's
RED = "red"
# a number card's pips, by its rank: the cards asked (an ace's one pip may be drawn ornate, a court
# card has a picture)
PIPS_OF = {rank: number for number, rank in enumerate("23456789T", start=2)}
MOST_PIPS_ALONE = 2  # pips a neighbour's column may put inside a card outlined off its paper
# a court card's picture (no_court_picture)
BARE_MIDDLE = 0.25  # of the card's middle in view, ink or colour: less is a number card's
FAINT_BELOW_PAPER = 40  # grey levels: a picture's pale fills and faint lines count as marked
COURT_LEAST_PIPS = 3
MIDDLE_IN_VIEW = 0.5  # of the card's middle: less, and the rest may be a neighbour's bare paper
# pixels: the card is looked at this wide for its picture (a quarter of the pips' look's pixels:
# shares of the middle need no notch, and the look is asked of every court card acted on)
PICTURE_LOOK_WIDTH = 50
# the marks reaching the look's edge left out of its middle: the cloth round an outline larger
# than its card (no_court_picture), looked for where no more than this share of the edge is paper
LEAVE_OUT_CLOTH = True
CLOTH_EDGE_PAPER = 0.5


@dataclass(frozen=True)
class _CardLook:
    """A card warped upright (``size``: width, height) from its outline ``quad``, its middle
    (inside the INNER margin), its paper's grey level (the middle's) and its ink's marks
    (OpenCV's connected components' labels and stats)."""

    quad: np.ndarray
    size: tuple[int, int]
    card: BGRImage
    gray: np.ndarray
    middle: tuple[slice, slice]
    paper: int
    labels: np.ndarray
    stats: np.ndarray

    def covered(self, others: Sequence[np.ndarray]) -> np.ndarray:
        """Where the cards at ``others`` lie on this one (1)."""
        width, height = self.size
        covered = np.zeros((height, width), np.uint8)
        if len(others):
            # every other card's corners placed at once, and filled in one call: one call each
            # for a frame's ten cards cost more than the warp
            matrix = rectangle_matrix(self.quad, self.size)
            seen = cv2.perspectiveTransform(np.asarray(others, np.float32).reshape(1, -1, 2), matrix)
            cv2.fillPoly(covered, list(np.round(seen[0]).astype(np.int32).reshape(-1, 4, 2)), 1)
        return covered

    def whole_on_card(self) -> np.ndarray:
        """Which marks lie whole on the card (bool per mark): none cut by its edge, where a mark is
        a neighbour's, the felt an outline a little too large takes in, or a pip not seen whole."""
        width, height = self.size
        xs, ys = self.stats[:, cv2.CC_STAT_LEFT], self.stats[:, cv2.CC_STAT_TOP]
        whole: np.ndarray = (xs > 0) & (ys > 0)
        whole &= xs + self.stats[:, cv2.CC_STAT_WIDTH] < width
        whole &= ys + self.stats[:, cv2.CC_STAT_HEIGHT] < height
        return whole

    def pips(self, covered: np.ndarray) -> np.ndarray:
        """Which marks are pip-like (bool per mark): pip-sized, whole on the card, compact, and not
        on another card (``covered``)."""
        width, height = self.size
        stats = self.stats
        xs, ys = stats[:, cv2.CC_STAT_LEFT], stats[:, cv2.CC_STAT_TOP]
        widths, heights = stats[:, cv2.CC_STAT_WIDTH], stats[:, cv2.CC_STAT_HEIGHT]
        areas = stats[:, cv2.CC_STAT_AREA]
        # every mark's box tested at once: paper's grain makes dozens of specks a card
        card_area = width * height
        pips: np.ndarray = (areas >= PIP_AREA[0] * card_area) & (areas <= PIP_AREA[1] * card_area)
        pips &= self.whole_on_card()
        pips &= np.maximum(widths, heights) <= PIP_ASPECT * np.minimum(widths, heights)
        pips &= covered[ys + heights // 2, xs + widths // 2] == 0
        pips[0] = False  # the paper
        return pips


def _look(image: BGRImage, quad: np.ndarray, width: int = CARD_WIDTH) -> _CardLook:
    height = round(width * CARD_ASPECT)
    card = warped(image, quad, (width, height))
    gray = cv2.cvtColor(card, cv2.COLOR_BGR2GRAY)
    middle = (
        slice(round(height * INNER), round(height * (1 - INNER))),
        slice(round(width * INNER), round(width * (1 - INNER))),
    )
    inner = gray[middle]
    # the paper's level: the 90th percentile, as an order statistic of OpenCV's row sort
    paper = int(
        cv2.sort(inner.reshape(1, -1), cv2.SORT_EVERY_ROW | cv2.SORT_ASCENDING)[0, inner.size * 9 // 10]
    )
    ink = (gray < paper - INK_BELOW_PAPER).astype(np.uint8)
    _, labels, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    return _CardLook(quad, (width, height), card, gray, middle, paper, labels, stats)


def pip_suits(
    image: BGRImage, quad: np.ndarray, others: Sequence[np.ndarray] = (), four_colour: bool = False
) -> Iterator[str | None]:
    """What each pip of the card at ``quad`` shows (four corners, clockwise from its index
    corner): 'c' or 's' for a black club or spade, 'red' for red ink, None for another ink (a
    four-colour deck's blue or green) or a black shape of neither. On a deck calibrated as
    ``four_colour`` (vision.calibrate.learn_faces) the ink is the suit: 'h' red, 'd' blue, 'c'
    green, and a black pip is a spade's or a club's by its notches as on any deck. A pip lying on
    one of ``others`` (the frame's other cards' outlines) may be that card's and is left out: a
    card fanned under another has the other's pips inside its outline."""
    look = _look(image, quad)
    white = max(float(look.paper), 40.0)
    for number in np.flatnonzero(look.pips(look.covered(others))).tolist():
        x, y, width, height = (int(v) for v in look.stats[number, :4])
        mark = (look.labels[y : y + height, x : x + width] == number).astype(np.uint8)
        yield _pip_suit(look.card[y : y + height, x : x + width], mark, white, four_colour)


def no_court_picture(image: BGRImage, quad: np.ndarray, others: Sequence[np.ndarray] = ()) -> bool:
    """Whether the card at ``quad`` shows a number card's middle where a court card has its
    picture: no mark larger than a pip, COURT_LEAST_PIPS pip-like marks or more, most of its middle
    in view (not under ``others``: a neighbour's bare paper there says nothing), and that middle
    mostly bare paper (less than BARE_MIDDLE of it ink or colour, faint ink and pale fills
    counted). A court picture fills a third of the middle or more in every deck measured (the
    training photos' court cards, washed out or in shade, 0.32 at least; Kennard's and geaxgx's
    0.38 and more), where a number card's pips leave it mostly paper (the jumbo-index eights and
    sixes read as queens: 0.08-0.2). Asked in that order, cheapest first: a court card's picture
    is mostly one mark larger than a pip. An outline larger than its card all round takes in the
    cloth, which is no picture: the marks reaching its edge are then left out (the marks
    8-connected to it, vision.faces.reaching_edge)."""
    look = _look(image, quad, PICTURE_LOOK_WIDTH)
    # a mark cut by the look's edge is not the card's (a jumbo six outlined past its edge onto the
    # felt, Kennard's decks); a court's picture is framed inside the card
    whole = look.whole_on_card()
    whole[0] = False  # the paper
    if int(look.stats[whole, cv2.CC_STAT_AREA].max(initial=0)) > PIP_AREA[1] * look.gray.size:
        return False
    covered = look.covered(others)
    if int(look.pips(covered).sum()) < COURT_LEAST_PIPS:
        return False
    in_view = covered[look.middle] == 0
    if in_view.mean() < MIDDLE_IN_VIEW:
        return False
    # channel by channel in uint8 (a reduction over numpy's last axis of three is slow)
    blue, green, red = channels(look.card)
    chroma = cv2.subtract(cv2.max(cv2.max(blue, green), red), cv2.min(cv2.min(blue, green), red))
    marked = (look.gray < look.paper - FAINT_BELOW_PAPER) | (chroma > COLOURED * max(look.paper, 40))
    marked_middle = marked[look.middle]
    if float(marked_middle[in_view].mean()) < BARE_MIDDLE:
        return True
    if not LEAVE_OUT_CLOTH or _edge_paper(marked, covered) > CLOTH_EDGE_PAPER:
        return False  # (an outline that hugs its card: paper all along its edge, no cloth)
    # the cloth left out only where MIDDLE_IN_VIEW of the middle stays (a court's picture or a
    # photo's shading can reach an outline that cuts into its card); the cloth is marked, so
    # leaving it out lowers the middle's share, and only a card not held above is asked
    on_paper = in_view & ~reaching_edge(marked, connectivity=8)[look.middle]
    return bool(on_paper.mean() >= MIDDLE_IN_VIEW and marked_middle[on_paper].mean() < BARE_MIDDLE)


def _edge_paper(marked: np.ndarray, covered: np.ndarray) -> float:
    """The share of the look's edge that is paper in view: neither marked nor under another card."""
    return float(edge_pixels(~marked & (covered == 0)).mean())


def _pip_suit(box: BGRImage, mark: np.ndarray, white: float, four_colour: bool) -> str | None:
    """One pip's suit (pip_suits): its ink's colour first, then a black pip's notches. ``box``:
    the card's pixels in the pip's box, ``mark`` the pip's own (1) among them."""
    blue, green, red, _ = cv2.mean(box, mark)
    if red - max(green, blue) > COLOURED * white:
        return "h" if four_colour else RED
    if four_colour and blue - max(green, red) > COLOURED * white:
        return "d"
    if four_colour and green - max(blue, red) > COLOURED * white:
        return "c"
    if max(blue, green, red) - min(blue, green, red) > COLOURED * white:
        return None
    contours, _ = cv2.findContours(mark, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    outline = max(contours, key=cv2.contourArea)
    if len(outline) < 4:
        return None
    try:
        defects = cv2.convexityDefects(outline, cv2.convexHull(outline, returnPoints=False))
    except cv2.error:  # a self-intersecting hull on a ragged mark: no verdict
        return None
    if defects is None:
        return NOTCHES_SUIT.get(0)
    # a defect's depth is in 1/256 pixel
    deep = int((defects[:, 0, 3] / 256.0 > DEEP_NOTCH * math.sqrt(cv2.countNonZero(mark))).sum())
    return NOTCHES_SUIT.get(deep)


def pips_against(card: str, shown: Iterable[str | None], four_colour: bool = False) -> str | None:
    """The suit (or 'red') the pips show against a read of ``card`` ('7c'): all of them alike,
    none of the read's own, and at least half the rank's pips and three. A card outlined a little
    off its paper (a neighbour not found beside it) takes in a column of the neighbour's pips, two
    to four of them: half a seven's or more, with none of its own, is the card's own pips. The
    first pip of its own ends the look (``shown`` is taken lazily: most cards asked are read right).
    ``four_colour``: as pip_suits was given it (each suit its own ink)."""
    rank, suit = card[0], card[1]
    own = RED if suit in "hd" and not four_colour else suit
    told: list[str] = []
    for pip in shown:
        if pip == own:
            return None
        if pip is not None:
            told.append(pip)
    least = max(MOST_PIPS_ALONE + 1, -(-PIPS_OF[rank] // 2))
    if len(told) < least or len(set(told)) != 1:
        return None
    return told[0]
