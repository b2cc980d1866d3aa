"""One frame in, the cards on it out: where each card is, which way it faces, what it is.

Unsure is always better than wrong. A card is face up only on positive evidence: its index read
(rank and suit) at a confidence, or, with no index read, a single whole card whose inside is
white paper, or a dark card showing light print in a face's few marks (vision/faces.py) with a
rank seen at its corner or, with calibrated backs, print at its index corner and no back matched,
or, with calibrated backs and none matched, a whole dark card with a picture across it and a rank
at its two index corners only (a court card). A read on a dark card is no face where the same
pattern reads as a rank at neighbouring corners (a back's lattice). It is face down when it is
one whole card-shaped region with no index read anywhere on it that matches a back learned by
calibration (vision/backs.py) and shows no face's print; without calibrated backs, when it has
no white inside ('no face showing', which a dark-faced deck can also be). Anything else is
unknown.
"""

from __future__ import annotations

import copy
import math
import statistics
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from tablectl.core.cards import SUITS
from vision.backs import Back, Backs, valid_index_scale, warped
from vision.corners import (
    CARD_ASPECT,
    MIN_CARD_WIDTH_PX,
    CornerFrame,
    PaperBlob,
    clockwise,
    corner_frames,
    find_blobs,
    notched_wholes,
    pieces_within,
    shrunk,
    whiteness,
    whole_pip_corners,
)
from vision.faces import (
    INDEX_PRINT,
    PALE_BACK_VERDICTS,
    PRINT_RISE,
    PrintLook,
    in_frame,
    index_printed,
    light_print,
    pip_groups,
    squash,
    white_face_verdict,
)
from vision.index_patch import PATCH_H, PATCH_W, cut_patches, ink_tints, normalise_all
from vision.index_reader import (
    NONE_RANK,
    NONE_SUIT,
    PATTERN_MODEL_PATH,
    PRINT_MODEL_PATH,
    RANK_LABELS,
    IndexRead,
    IndexReader,
)
from vision.pip_suits import PIPS_OF, no_court_picture, pip_suits, pips_against
from vision.segments import LCorner, l_corners, segments
from vision.sighting import ACT_CONFIDENCE, CardSighting, Facing
from vision.tiling import tiles
from vision.types import BGRImage, GrayImage

__all__ = ["ACT_CONFIDENCE", "CardReader", "CardSighting", "Facing"]

READ_CONFIDENCE = 0.5  # below this an index read is not evidence of anything
# what a card a check holds below acting confidence keeps, at most (_held): its face and name stay,
# unsure (the print check, the larger windows, the pips, the court picture, a slanted outline, ink)
HELD_CONFIDENCE = 0.5
WEAK_CONFIRM = (
    0.25  # but as low as this at a card's opposite index corner, reading it alike: _confirm_weakly (0: off)
)
WHITE_INSIDE_LEVEL = 150  # vision.corners.whiteness of card paper in ordinary light
SECOND_LOOK = (0.9, 1.1)  # card widths, relative to the corner's guess, of the windows read again
# the window read instead of the second look's smaller (first) or larger one, when only that one
# saw no index (on paper): further on the side that agreed
THIRD_WINDOW = (0.8, 1.2)
THIRD_WINDOW_READ = True
# A dark-faced deck's light print is a small part of the classifier's training (a tenth of its
# patches, and no real dark deck), and its colour says nothing of the suit (gold hearts and gold
# spades): reads on a dark card show it face up with its name, below acting confidence.
DARK_CARD_CONFIDENCE = 0.85
FACE_RANK_P = 0.8  # a rank seen this surely at a dark card's corner is a glyph printed there
# a dark card's light print with this many pips alike (vision.faces.alike_pips) is a face, unless
# the outline matches a calibrated back: from a three to a ten (more alike marks are a back's dots)
FACE_PIPS = (3, 10)
PIP_CARD_SIZES = (1.0, 1.25, 1.5)  # of the frame's cards' width: a face outlined round its pips
SEEN_ASPECTS = (1.85, 1.6, CARD_ASPECT, 1.2, 1.05)  # a card's height over width as seen: slanted
# views and photos stretched to a square (backs-cardcounter's) make it anything in this range
# A card cut by the photo's edge shows no end to measure its aspect by, and one lying along the
# line of sight on a slanted, stretched photo is seen at up to 3 (IMG_7816's two of hearts)
CUT_ASPECTS = (2.2, 2.6, 3.0)
# of its blob in view, at least this lies in the outline of a card cut by the frame's edge: the blob
# is that card alone (a keyboard or a screen merged at the frame's edge shows print and a 'rank')
ONE_CARD_BLOB = 0.85
CUT_ALONE = True
CUT_UNMATCHED_UNSURE = True  # a cut card matching no back is no face by that alone
PLAIN_BACKS_UNPRINTED = True
PLAIN_BACK = 0.9  # of a learned back's texture, the flat pattern's share: a plain back
ON_DARK_CARD = 0.85  # of a dark card's outline guessed from a corner, at least this on its blob
BLOB_MASK_STEP = 4  # the blob's mask for that test is made at a quarter of the frame's size
FAR_CORNER = 0.15  # of the width: the opposite corner of the outline is this near the blob's edge
PATTERN_PLACES = 3  # one rank read at this many corners of one dark outline, and at
PATTERN_SHARE = 0.8  # this share of its corners, is a pattern (a face's index is at two of its four)
NEIGHBOUR_NEAR = 0.2  # of the card's width: a frame this near a neighbouring corner's place is at it
CORNER_NEAR = 0.2  # of the card's long side: a frame this near a corner of the card's box is at it
# (a slanted card's corners lie inside its rotated box's)
NARROW_DARK_READS = True  # a dark card's read, too, is no narrower (_unless_narrow_and_dark)
NARROWEST_DARK_FACE = 0.5  # of the median width of the frame's cards found: an unread face is no narrower
SAME_DARK_FACE = 0.0  # two unread dark faces on one blob that overlap at all are one card: two
# cards where there is one would make one exposed card two (MD-b), and unsure beats wrong
# A read's outline (its card_quad) is evidence against the read at its opposite corner only when at
# least this share of it lies on its own blob: a covered card's corner read at too large a width
# guess draws an outline whose opposite corner lands on the next card's index
ON_OWN_BLOB = 0.85
SAME_CORNER_ACROSS = 0.8  # two reads at one point are one corner only if their 'across' agree this well
# of the width guess a card was read at: a read at one of its corners through a window this much
# smaller sees a part of the index (a court card's frame gives a corner half its width), and one
# through a window this much larger (its inverse) sees the index at a fraction of its size among
# the pips: neither is evidence about the card
PART_OF_INDEX = 0.6
UNSURE_READ_ON_A_BACK = True  # a paper card read below acting confidence, a calibrated back's look: unknown
NOTCHED_LATER = True  # a whole card's notched outline's corners read only when its index corners disagree
# Corners from straight edges where light ground is left that no card read explains (_segment_corners)
SEGMENT_CORNERS = True
# a card read at Ls only is kept where the pattern check reads it alike at acting confidence too (a
# jumbo queen of spades named the queen of clubs at 0.97 it read so at 0.56; the training photos'
# cards read at Ls it read at 0.93-1.0)
SEGMENT_CARDS_CONFIRMED = True
# Corners from straight edges on dark blobs of several cards (_dark_card_ls)
DARK_LS = True
DARK_L_CARDS = 1.5  # of a card's area (its box): a dark blob this large may hide corners
DARK_L_WIDTHS = (0.9, 1.1)  # of what each arm says of the card's width: the widths an L is read at
DARK_L_CONTRAST = 40.0  # grey levels: a dark card's corner on light ground is this much darker
DARK_L_SIDE = 320  # pixels: the long side at which line segments are looked for (a dark card's edge is sharp)
DARK_L_STEP_PX = 6  # pixels along the L's diagonal: its outside and its inside looked at there
GROUND_SIDE = 160  # pixels: the long side at which the ground is looked at
WHITENESS_INSIDE_GROUND = 100  # vision.corners.whiteness: light enough to hide a card (its lowest level)
GROUND_STRETCHES = 6  # the largest stretches of such ground looked at, at most
GROUND_CARDS = 0.5  # of a card's area (the frame's cards' width): so much unexplained light ground
SEGMENT_WIDTH_STEP = 1.25  # the widths an L's corner is read at: from its arms' least up, this step apart
SEGMENT_WIDTHS = 8
SEGMENT_MOST_WIDTH = 0.45  # of the frame's shorter side
# of the least and the greatest width of the cards read by name on the frame: an L's corner is read
# no narrower or wider (a box's printed rectangle half a card wide read as a ten of clubs: IMG_2584)
SEGMENT_NARROWEST, SEGMENT_WIDEST = 0.75, 1.5
SEGMENT_SIDE = 640  # pixels: the long side at which line segments are looked for
# of the width of the cards read (or the guess without them): the least card an L's arms are looked
# for on (vision.segments.MIN_ARM of it: shorter segments are a pip's or a letter's edges)
SEGMENT_ARM_WIDTH = 0.5
PRINT_CHECK = True  # a card read at one corner only, shown to the print check before it is acted on
# every card about to be acted on, shown to the pattern check: where it surely sees no index there,
# no face (_unless_a_pattern; 0.97 and 0.99 read the training photos alike, 0.9 cost one card)
PATTERN_CHECK = True
PATTERN_CHECK_SURE = 0.97
# a paper card read below acting confidence is shown to the pattern check too: such a read makes it
# face up, and a back's pattern read so was most of the backs called face up in bench/backs_stress.py
UNSURE_PATTERN_CHECK = True
PART_AT_OPPOSITE = True  # PART_OF_INDEX also at a card's opposite index corner
OUTLINE_BY_FIRST_LOOK = (
    True  # of one corner's agreeing width guesses, the first look's surest outlines the card
)
PIP_CORNERS_LATER = True  # a whole card's pip corners read only when its index corners disagree
# a piece of paper (no whole card's outline) read only where it shows more than the whole cards
# read as one card at both index corners do: more than a rim this share of their width wide
PIECES_LATER = True
PIECE_RIM = 0.1
# Two agreeing reads confirm each other from a card's opposite index corners wherever a slanted
# view puts the far end (its height over its width as seen, in this range; card_quad draws the
# poker aspect): a card seen from the side is shortened (cam_image10's queen at 1.1). Only reads
# of at least SLANTED_CONFIRM_P: a confirmation skips the second look, and a court card's frame
# can make a weak '4' at both corners of a king (the board rows' seed 5, 0.52 and 0.83).
OPPOSITE_SEEN_ASPECTS = True
OPPOSITE_ASPECTS = (1.1, 1.85)
SLANTED_CONFIRM_P = 0.6
SLANTED_WIDTHS = 1.25  # the two corners' width guesses within this factor of each other (_alike_widths)
# Those places also make a read of another card there (at SLANTED_CONFIRM_P or more) disagree with
# the card, and a window far too small there part of its index (PART_AT_OPPOSITE): a blurred nine
# of clubs seen slanted, read as a queen at one corner and a nine at the other (IMG_2672), was a
# queen at acting confidence; unsure is better than wrong
SLANTED_DISAGREES = True
# a card acted on, read again through windows this many times its own (_unless_a_larger_index):
# where this many of them read one other card at LARGER_OTHER_CONFIDENCE or more, its index is
# larger than the window, and the read is held (HELD_CONFIDENCE). A jumbo index on a card
# 60-80 px wide shows its whole rank only at 1.8-2.0 times the window, often at 0.85-0.9 there
# (Kennard's jumbo decks, the second session of 2026-12-04: 2.0 and 0.85 took their wrong reads at
# acting confidence from 27 and 22 in 650 cards to 15 and 8, the white deck's photos and rows as before
# but for one row card in 1,050; 2.2 cost a row card of 450, 0.8 a training photo's card)
LARGER_WINDOWS: tuple[float, ...] = (1.4, 1.6, 1.8, 2.0)
LARGER_WINDOW = 1.6  # read first, for every card acted on; the others only where it reads another card
LARGER_AGREE = 2
LARGER_OTHER_CONFIDENCE = 0.85
CROSS_CORNER = True  # a whole card's read in doubt, confirmed by its opposite corner's second look
# One card alone whose shape is no card's as the corner frames see it (SEEN_ASPECTS): a camera
# looking steeply across the table, or a photo stretched to a square, shortens a card to three or
# four times as long as wide (backs-cardcounter's IMG_7818), or its long side to its short one. Its
# outline is warped to an upright card both ways round and its index corners read there
# (_stretched_cards): a card where one way reads one card at both index corners and the other way
# reads no index at all (a back's pattern reads alike every way).
STRETCHED_CARDS = True
NORMAL_ASPECTS = (1.2, 1.75)  # a lone card's box between these is read by its corner frames
MOST_STRETCHED = 5.0  # a longer blob is a line or an edge, no card
ONE_CARD_FILL = 0.85  # of its rotated box, a lone card's outline fills at least this
ONE_CARD_VERTICES = 8  # and its simplified outline has no more corners than this
_NO_READ = IndexRead(NONE_RANK, NONE_SUIT, 1.0, 1.0)  # a window not read: no index
PATTERN_DARK = True  # dark cards too: a dark back's light lattice fills the window as a pale back's does
PATTERN_WINDOWS = True  # a card read only through windows a pattern fills is no card (_unless_patterned)
PATTERN_GRID = (2, 4)  # columns, rows: the blocks of an index window looked at for ink (dividing it)
assert PATCH_W % PATTERN_GRID[0] == 0 and PATCH_H % PATTERN_GRID[1] == 0
PATTERN_INK = 0.15  # of a block's pixels inked past half: every block so is a pattern, no index
PATTERN_MEAN = 0.2  # or a block's mean ink
# a card read at two opposite index corners of a whole blob is alone there: another read at a
# corner this far inside it (of that read's width guess) is of the card's own print
ONE_CARD_ALONE = True
LONE_CARD_MARGIN = 0.05
PIP_SUITS = True  # a number card read below PIP_SUITS_BELOW is shown its own pips (_unless_pips_disagree)
PIP_SUITS_BELOW = 0.97
# a black read only: the swaps measured are a club and a spade, or red pips read as a club; the
# classifier's redness plane keeps a red read red (half the reads asked, and half the cost, saved)
PIP_SUITS_ASKED = "cs"
_PIPS_SHOWN = {"c": "clubs", "s": "spades", "h": "hearts", "d": "diamonds", "red": "red ink"}
# a card read as a court card about to be acted on is shown its middle: a number card's pips on bare
# paper where the court's picture should be hold it (_unless_no_court_picture)
COURT_PICTURE = True
COURT_RANKS = "JQK"
# a card whose outline is slanted far from square in a frame whose whole cards all lie square (a
# camera looking straight down) is read through a corner of no card's: held (_unless_slanted)
SLANTED_IN_SQUARE_VIEW = True
SQUARE_CARD = 8.0  # degrees: a whole card's every corner within this of a right angle is seen square
SQUARE_CARD_ASPECTS = (1.3, 1.6)  # and its long side over its short between these (poker to bridge)
SLANTED_CORNER = 20.0  # degrees from square: a card's outline so slanted is no card's in a square view
# a club or spade read in blue ink, or a spade in green, is a four-colour deck's diamond or club
# that the classifier, which knows two colours, named by its shape (Kennard's four-colour decks:
# a blue deuce and ace of diamonds read as clubs at 0.99, a green seven of clubs as a spade);
# held, unless the deck was calibrated four-colour (`calibrate --faces`): _unless_four_colour_ink
FOUR_COLOUR_INK = True
BLUE_INK = 80.0  # grey levels of blue over green and red in the index's ink (vision.index_patch.ink_tints)
GREEN_INK = 50.0  # and of green over blue and red
MAX_SIDE = 960  # larger frames are read scaled down: glyphs stay >= ~10 px on a card a tenth as wide
# A frame this many times MAX_SIDE or larger is read at finer levels too (CardReader._read_levels):
# rendered cards 70-120 px wide on 1600x1200-2880x2160 felt, a scratch measure of the second
# session of 2026-12-04, were read 0.35-0.39 whole at MAX_SIDE and 0.96-0.98 with the finer levels
FINER_LEVELS_FROM = 1.5
OWN_SCALE_FROM = 0.75  # a finer level at this share of the frame's own scale or more is read at its own
# a level's tiles: as large as the 640x480 frames the reader is made for (a card 60 px wide is a
# tenth of one), overlapping by this many pixels (a card up to ~180 px wide is whole in one)
LEVEL_TILE_SIDE = 640
LEVEL_TILE_OVERLAP = 256
LEVEL_TILE_EDGE = 4  # pixels: a card this near a tile's inner edge is cut by it
WELL_SEEN_WIDTH = 60  # pixels across a card on a level: read there as well as a finer level would
LEVELS_DISAGREE_CONFIDENCE = 0.5  # two levels naming one card otherwise: each held at this
# (vision/crops.py reads a camera's larger frames zone by zone instead)


@dataclass
class _Candidate:
    frame: CornerFrame
    read: IndexRead
    quad: np.ndarray
    dark: bool = False  # read on a dark card (light print)
    agreeing: list[IndexRead] = field(default_factory=list)
    disagreeing: int = 0
    # the frames, at this card's read corner at its width guesses, whose outline (card_quad) lies on
    # their blob: only through these is a read at the opposite corner the same card (ON_OWN_BLOB)
    outlines: list[CornerFrame] = field(default_factory=list)
    corners: list[CornerFrame] = field(default_factory=list)  # where the reads that agree were made

    @property
    def weakly_confirmed(self) -> bool:
        """Its other corner agrees below READ_CONFIDENCE only (_confirm_weakly: the merge's agreeing
        reads are all READ_CONFIDENCE or more)."""
        return any(read.confidence < READ_CONFIDENCE for read in self.agreeing)


class _BlobMasks:
    """Each blob filled, at 1 / BLOB_MASK_STEP of the frame's size, made when first asked for."""

    def __init__(self, blobs: list[PaperBlob], size: tuple[int, ...]) -> None:
        self._blobs = blobs
        self._shape = (-(-size[0] // BLOB_MASK_STEP), -(-size[1] // BLOB_MASK_STEP))
        self._masks: dict[int, np.ndarray] = {}

    def __getitem__(self, number: int) -> np.ndarray:
        if number not in self._masks:
            mask = np.zeros(self._shape, np.uint8)
            small = np.round(self._blobs[number].contour / BLOB_MASK_STEP).astype(np.int32)
            cv2.drawContours(mask, [small], -1, 1, -1)
            self._masks[number] = mask
        return self._masks[number]

    def covered(self, number: int, quad: np.ndarray) -> float:
        """The share of blob ``number`` (as far as it is in the frame) that an outline covers."""
        mask = self[number]
        area = cv2.countNonZero(mask)
        filled = _filled_in_box(mask.shape, quad)
        if not area or filled is None:
            return 0.0
        box, outline = filled
        return cv2.countNonZero(cv2.bitwise_and(mask[box], outline)) / area

    def share_on(self, number: int, quad: np.ndarray) -> float:
        """The share of an outline (a quad in the frame's pixels) that lies on blob ``number``."""
        filled = _filled_in_box(self._shape, quad)
        if filled is None:
            return 0.0
        box, outline = filled
        # counted by OpenCV: numpy's boolean indexing and mean cost more than the fill
        inside = cv2.countNonZero(outline)
        on = cv2.countNonZero(cv2.bitwise_and(self[number][box], outline))
        return on / inside if inside else 0.0


def _filled_in_box(shape: tuple[int, ...], quad: np.ndarray) -> tuple[tuple[slice, slice], np.ndarray] | None:
    """A quad (the frame's pixels) filled on the blob masks' grid, over just the part of the grid its
    box covers (the box's slices, the filled patch), or None when none of it is on the grid. The
    same pixels as filling the whole grid: a mask the frame's size, made for every outline tried,
    cost more than the test."""
    points = np.round(quad / BLOB_MASK_STEP).astype(np.int32)
    x, y, width, height = cv2.boundingRect(points)  # one call for the four extremes
    x0, y0 = max(x, 0), max(y, 0)
    x1, y1 = min(x + width, shape[1]), min(y + height, shape[0])
    if x0 >= x1 or y0 >= y1:
        return None
    outline = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillConvexPoly(outline, points - np.array([x0, y0], np.int32), 1)
    return (slice(y0, y1), slice(x0, x1)), outline


class CardReader:
    """``backs``: the backs of the table's decks (vision.backs.load_backs); with them, face down is
    a match to one of them. ``print_check``: the classifier that a card read at one corner only
    is shown again before it is acted on (``_unless_print``); by default, with the committed
    classifier, the one trained with printed matter (PRINT_MODEL_PATH); with another classifier
    given, none unless given too. ``pattern_check``: the classifier that every card about to be
    acted on is shown again (``_unless_a_pattern``); likewise by default the one trained with
    patterned backs (PATTERN_MODEL_PATH). ``index_scale``: the index window's size against the standard
    one, for a deck whose index is larger (a jumbo index); ``four_colour``: the deck's faces are
    four-colour (its blue ink is read as red: vision.index_patch.normalise). By default both are
    the calibrated decks' (vision.calibrate.learn_faces), else a standard two-colour deck's."""

    def __init__(
        self,
        index_reader: IndexReader | None = None,
        backs: Backs | None = None,
        print_check: IndexReader | None = None,
        index_scale: float | None = None,
        four_colour: bool | None = None,
        pattern_check: IndexReader | None = None,
    ) -> None:
        if print_check is None and index_reader is None and PRINT_CHECK:
            print_check = IndexReader(PRINT_MODEL_PATH)
        if pattern_check is None and index_reader is None and PATTERN_CHECK:
            pattern_check = IndexReader(PATTERN_MODEL_PATH)
        self._index = index_reader or IndexReader()
        self._print_check = print_check
        self._pattern_check = pattern_check
        self.index_scale = _index_size(
            index_scale if index_scale is not None else backs.index_scale if backs is not None else 1.0
        )
        self.four_colour = four_colour if four_colour is not None else backs is not None and backs.four_colour
        # the deck's index size given or learned, not the standard one assumed (vision/index_size.py
        # watches an assumed one)
        self.index_size_known = index_scale is not None or (backs is not None and backs.faces_learned)
        self.backs = backs if backs is not None and backs.backs else None
        self.faces_by_pips = True  # a dark card's pips alone show its face (FACE_PIPS)
        self.reads_straight_edges = True  # cards on light ground read at Ls (_with_segment_cards)

    @classmethod
    def with_classifier(cls, index_reader: IndexReader, backs: Backs | None = None) -> CardReader:
        """A reader as the product makes one (its print check and pattern check, as by default)
        but reading with ``index_reader``: what a benchmark or a validation measures of a
        candidate classifier, where the constructor given it would leave both checks out."""
        return cls(
            index_reader,
            backs,
            IndexReader(PRINT_MODEL_PATH) if PRINT_CHECK else None,
            pattern_check=IndexReader(PATTERN_MODEL_PATH) if PATTERN_CHECK else None,
        )

    @property
    def checks_print(self) -> bool:
        """Whether a card read at one corner only is shown to the print check (as the product's
        reader does): a reader given its classifier has none unless given one too."""
        return self._print_check is not None

    @property
    def checks_patterns(self) -> bool:
        """Whether every card about to be acted on is shown to the pattern check (as the
        product's reader does): likewise none unless given, with a classifier given."""
        return self._pattern_check is not None

    def for_calibration(self) -> CardReader:
        """This reader as calibration uses it to find a deck's backs: a dark card whose print
        shows pips but no index is not called face up. A back printed with a few ornaments alike
        (three stars, four corner flourishes) shows what pips show, and must be learnable, so that
        the calibrated backs, matched first, keep it face down."""
        other = copy.copy(self)
        other.faces_by_pips = False
        return other

    def without_straight_edges(self) -> CardReader:
        """This reader as a deck's index size is measured with (vision.calibrate.learn_faces,
        vision/index_size.py): a card read at the corners of straight edges (SEGMENT_CORNERS) is
        read at a ladder of widths whatever its index's size, so it says nothing of that size."""
        other = copy.copy(self)
        other.reads_straight_edges = False
        return other

    @property
    def _print_may_show(self) -> bool:
        """Whether a dark card's print can make it a face here: with calibrated backs to be unlike,
        or by its pips. Calibration's reader has neither: only a rank seen makes a face there."""
        return self.backs is not None or self.faces_by_pips

    def _pips_show_a_face(self, look: PrintLook) -> bool:
        """Whether a dark card's print (light_print) shows a face by its pips alone (FACE_PIPS),
        as this reader decides faces (not calibration's: for_calibration)."""
        return self.faces_by_pips and look.printed and _a_faces_pips(look.pips)

    def for_deck(self, index_scale: float | None = None, four_colour: bool | None = None) -> CardReader:
        """This reader (its classifiers and backs, loaded once) reading another make of deck: its
        index windows ``index_scale`` times the standard one, its faces ``four_colour`` or not
        (each as this reader's where not given; vision.calibrate.learn_faces tries several)."""
        other = copy.copy(self)
        if index_scale is not None:
            other.index_scale = _index_size(index_scale)
            other.index_size_known = True
        if four_colour is not None:
            other.four_colour = four_colour
        return other

    def read(self, image: BGRImage) -> list[CardSighting]:
        """The cards on ``image``. A frame FINER_LEVELS_FROM times MAX_SIDE or more is read at
        finer levels too (_read_levels)."""
        if max(image.shape[:2]) < FINER_LEVELS_FROM * MAX_SIDE:
            return self._read_frame(image)
        return self._read_levels(image)

    def _read_levels(self, image: BGRImage) -> list[CardSighting]:
        """A large frame (a high-resolution photo of a whole table) read whole at MAX_SIDE, then at
        twice that scale and twice again up to its own, each level in overlapping tiles of
        LEVEL_TILE_SIDE: the reader finds a card's outline at a fixed share of the frame it is given
        (vision.corners' FIND_SIDE, a least area), so a card a twentieth of a 3840 px photo's width
        is lost whole and found in a tile. A level's sighting is kept where no coarser level saw a
        card there well (_merged_finer), and a tile's only where it lies clear of the tile's inner
        edges (cut there, it is whole in the next tile). Where two levels name one card otherwise
        at acting confidence, it is held below acting. The camera adapter reads a large camera's
        frames by its zones instead (vision/crops.py), in tiles no larger than MAX_SIDE: this is
        for photos."""
        longest = max(image.shape[:2])
        level = MAX_SIDE / longest
        kept = [(sighting, level) for sighting in self._read_frame(image)]
        while level < 1.0:
            # twice the scale, or the frame's own where that lies near it (0.95 then 1.0 would
            # read a 12-megapixel photo's 80 tiles twice over)
            level = 2.0 * level if 2.0 * level < OWN_SCALE_FROM else 1.0
            kept = _merged_finer(kept, self._read_tiles(image, level), level)
        return [sighting for sighting, _ in kept]

    def _read_tiles(self, image: BGRImage, level: float) -> list[CardSighting]:
        """The cards read on ``image`` scaled to ``level``, tile by tile (LEVEL_TILE_OVERLAP), in
        the frame's coordinates; those cut by a tile's inner edge left out."""
        scaled = (
            image
            if level == 1.0
            else cv2.resize(image, None, fx=level, fy=level, interpolation=cv2.INTER_AREA)
        )
        height, width = scaled.shape[:2]
        found: list[CardSighting] = []
        for left, top, right, bottom in tiles((0, 0, width, height), LEVEL_TILE_SIDE, LEVEL_TILE_OVERLAP):
            inner = (
                left + LEVEL_TILE_EDGE if left > 0 else -math.inf,
                top + LEVEL_TILE_EDGE if top > 0 else -math.inf,
                right - LEVEL_TILE_EDGE if right < width else math.inf,
                bottom - LEVEL_TILE_EDGE if bottom < height else math.inf,
            )
            for sighting in self._read_frame(scaled[top:bottom, left:right]):
                corners = [(x + left, y + top) for x, y in sighting.corners]
                if all(inner[0] <= x <= inner[2] and inner[1] <= y <= inner[3] for x, y in corners):
                    found.append(replace(sighting, corners=tuple((x / level, y / level) for x, y in corners)))
        return found

    def _read_frame(self, image: BGRImage) -> list[CardSighting]:
        scale = min(1.0, MAX_SIDE / max(image.shape[:2]))
        work = (
            image
            if scale == 1.0
            else cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        )
        blobs = find_blobs(work)
        frames = corner_frames(blobs, work.shape)
        patches, first_reads, inked, planes = self._first_look(work, blobs, frames)
        reads = self._second_look(work, blobs, frames, first_reads)
        masks = _BlobMasks(blobs, work.shape)
        cards = [
            card
            for card in self._merge(frames, reads, blobs, masks)
            if not (card.dark and _a_backs_pattern(blobs, card.frame, card.read.rank, frames, first_reads))
        ]
        # each frame's place in ``frames``: its first look's read, window and planes (the cards hold frames)
        number_of = {id(frame): n for n, frame in enumerate(frames)}
        if PATTERN_WINDOWS:
            cards = _unless_patterned(cards, inked, number_of)
        if ONE_CARD_ALONE:
            cards = _unless_inside_a_lone_card(cards, blobs)
        if NARROW_DARK_READS:
            cards = _unless_narrow_and_dark(cards, blobs)
        if OUTLINE_BY_FIRST_LOOK:
            for card in cards:
                card.quad = _outline_by_first_look(
                    card, [first_reads[number_of[id(f)]] for f in card.corners]
                )
        outlined: set[int] = set()  # the whole blobs that are a read card's own outline
        for card in cards:
            quad = _whole_card_outline(blobs[card.frame.blob], card.frame, card.quad)
            if quad is not card.quad:
                outlined.add(card.frame.blob)
            card.quad = quad
        windows = [patches[number_of[id(card.frame)]] for card in cards]  # each card's read window
        seen_as = planes[[number_of[id(card.frame)] for card in cards]]  # and as the classifier saw it
        sightings = [
            _unless_unprinted(self._unless_a_back(self._sighting(card, scale), card, work), card, window)
            for card, window in zip(cards, windows, strict=True)
        ]
        sightings = self._unless_print(cards, sightings, seen_as)
        sightings = self._unless_a_pattern(cards, sightings, seen_as)
        sightings = self._unless_a_larger_index(work, blobs, cards, sightings)
        seen: list[np.ndarray] = [card.quad for card in cards]
        if STRETCHED_CARDS:
            sightings += self._stretched_cards(work, blobs, seen, scale, outlined)
        sightings += self._dark_faces(work, blobs, masks, frames, first_reads, patches, inked, seen, scale)
        sightings += self._pip_faces(work, blobs, masks, seen, scale)
        sightings += self._unread_cards(work, blobs, frames, first_reads, seen, scale, outlined)
        if SEGMENT_CORNERS and self.reads_straight_edges:
            sightings = self._with_segment_cards(work, blobs, frames, sightings, scale)
        if SLANTED_IN_SQUARE_VIEW:
            sightings = _unless_slanted(sightings, blobs)
        if COURT_PICTURE:
            sightings = _unless_no_court_picture(work, sightings, scale)
        if FOUR_COLOUR_INK and not self.four_colour:
            sightings = _unless_four_colour_ink(work, sightings, scale, self.index_scale)
        return _unless_pips_disagree(work, sightings, scale, self.four_colour) if PIP_SUITS else sightings

    def _with_segment_cards(
        self,
        work: BGRImage,
        blobs: list[PaperBlob],
        frames: list[CornerFrame],
        sightings: list[CardSighting],
        scale: float,
    ) -> list[CardSighting]:
        """The frame's cards with those read at corners from straight edges (_segment_corners on
        light ground, _dark_card_ls on dark blobs of several cards), apart from the frame's other
        reads (they change none of them): read, looked at again and
        merged as any corners are, and kept only where named at acting confidence, read as that very
        card by the pattern check too, and lying on no card named at acting confidence nor on a
        card face down. Such a card takes the place of an unread or unsure one it lies on (found
        by its paper, its index not read there). An L is no paper's evidence of a face, and a back's
        pattern (checks, stripes, dots) makes many Ls, which the classifier reads as a king or a
        four (bench/backs_stress.py): a weaker read there is no card at all. A dark card read
        there is kept only where nothing was seen, its name held as any dark card's is."""
        if SEGMENT_CARDS_CONFIRMED and self._pattern_check is None:
            return sightings  # nothing to confirm a card read at Ls with
        extra_blobs, corners = self._segment_corners(work, blobs, frames, sightings, scale) or ([], [])
        if DARK_LS:
            corners = corners + _dark_card_ls(work, blobs)
        if not corners:
            return sightings
        every = blobs + extra_blobs
        patches = cut_patches(work, corners, self.index_scale)
        planes = self._planes(patches, every, corners)
        first = self._index.read(planes)
        cards = self._merge(
            corners, self._second_look(work, every, corners, first), every, _BlobMasks(every, work.shape)
        )
        number_of = {id(frame): n for n, frame in enumerate(corners)}
        quads = [np.array(s.corners, np.float32) * scale for s in sightings]
        settled = [  # named at acting confidence, or face down: not to be read otherwise
            quad
            for s, quad in zip(sightings, quads, strict=True)
            if s.facing is Facing.DOWN or (s.card is not None and s.confidence >= ACT_CONFIDENCE)
        ]
        named = [
            (card, sighting)
            for card in cards
            for sighting in [self._sighting(card, scale)]
            if sighting.card is not None
            and self._read_confidence(card)[0] >= ACT_CONFIDENCE
            # a dark card's only where nothing was seen: its name is never acted on, and a dark
            # back's lattice is read as a rank at many Ls (bench/backs_stress.py's gold lattice)
            and not any(_overlap(card.quad, quad) > 0.3 for quad in (quads if card.dark else settled))
        ]
        if not named:
            return sightings
        if SEGMENT_CARDS_CONFIRMED and self._pattern_check is not None:
            checked = self._pattern_check.read(planes[[number_of[id(card.frame)] for card, _ in named]])
            named = [
                (card, sighting)
                for (card, sighting), read in zip(named, checked, strict=True)
                if (read.rank, read.suit) == (card.read.rank, card.read.suit)
                and read.confidence >= ACT_CONFIDENCE
            ]
        if not named:
            return sightings
        read = self._unless_a_larger_index(work, every, [card for card, _ in named], [s for _, s in named])
        replaced = {k for k, quad in enumerate(quads) for card, _ in named if _overlap(card.quad, quad) > 0.3}
        return [s for k, s in enumerate(sightings) if k not in replaced] + read

    def _segment_corners(
        self,
        work: BGRImage,
        blobs: list[PaperBlob],
        frames: list[CornerFrame],
        sightings: list[CardSighting],
        scale: float,
    ) -> tuple[list[PaperBlob], list[CornerFrame]] | None:
        """Corners of cards that the paper's outlines do not show, from straight edges
        (vision/segments.py), where the frame has light ground no card read by name explains (a card on a
        white box, a plate, marble, cream paper: as white as what it lies on, its edges broken by the
        texture; docs/vision.md): each L of two segments whose index window lies on that ground, as a
        blob of its own (the parallelogram of its arms) with frames at the widths its arms and the
        frame's cards give, less those read at that corner already. None where the frame has no
        such ground (most frames: the line segment detector costs milliseconds)."""
        height, width = work.shape[:2]
        shrink = GROUND_SIDE / max(height, width)
        small = shrunk(work, shrink)
        ground = (whiteness(small) >= WHITENESS_INSIDE_GROUND).astype(np.uint8)
        # a card read by name explains its paper; an unread or unsure one may be read at an L
        named = [s for s in sightings if s.card is not None and s.confidence >= ACT_CONFIDENCE]
        outlines = list(np.round(np.array([s.corners for s in named]) * scale * shrink).astype(np.int32))
        if outlines:
            explained = np.zeros_like(ground)
            cv2.fillPoly(explained, outlines, 1)
            ground[cv2.dilate(explained, np.ones((3, 3), np.uint8)) > 0] = 0
        # each named card's shorter side, in the work image's pixels (all of them in one numpy pass)
        quads = np.array([s.corners for s in named], np.float32).reshape(-1, 4, 2) * scale
        sides = _side_lengths(quads).min(axis=1).tolist()
        card_width = statistics.median(sides) if sides else _guessed_card_width(work.shape)
        least_ground = GROUND_CARDS * card_width**2 * CARD_ASPECT * shrink**2  # in the small image's pixels
        if cv2.countNonZero(ground) < least_ground:
            return None  # (most frames: every card on the cloth read)
        # each stretch of such ground half a card or more, its box with a margin: the detector looks
        # there only (an unread card among read ones is a twentieth of the frame)
        count, _, stats, _ = cv2.connectedComponentsWithStats(ground, connectivity=8)
        boxes = [stats[k, :4] for k in range(1, count) if stats[k, cv2.CC_STAT_AREA] >= least_ground]
        if not boxes:
            return None
        detector = _SegmentsAt(work, SEGMENT_SIDE)
        lines = np.concatenate(
            [
                detector.around((x / shrink, y / shrink, w / shrink, h / shrink), card_width)
                for x, y, w, h in sorted(boxes, key=lambda box: -int(box[2]) * int(box[3]))[:GROUND_STRETCHES]
            ]
        )
        near_ground = cv2.dilate(ground, np.ones((3, 3), np.uint8))
        # only the segments with an end on that ground (a keyboard's or a box's print elsewhere
        # makes hundreds, and every pair of them is looked at)
        ends = np.clip(
            (lines.reshape(-1, 2) * shrink).astype(int),
            0,
            [near_ground.shape[1] - 1, near_ground.shape[0] - 1],
        )
        on_ground = near_ground[ends[:, 1], ends[:, 0]].reshape(-1, 2).any(axis=1)
        whole_widths = [min(cv2.minAreaRect(blob.polygon)[1]) for blob in blobs if blob.whole]
        # the frames proposed already, as arrays: each L is compared with all of them
        proposed_points = np.array([f.point for f in frames], np.float32).reshape(-1, 2)
        proposed_across = np.array([f.across for f in frames], np.float32).reshape(-1, 2)
        proposed_widths = np.array([f.width for f in frames], np.float32)
        extra_blobs: list[PaperBlob] = []
        extra_frames: list[CornerFrame] = []
        for corner in l_corners(lines[on_ground], SEGMENT_ARM_WIDTH * card_width):
            point = np.array(corner.point, np.float32)
            across, down = np.array(corner.across, np.float32), np.array(corner.down, np.float32)
            # the arms are the card's sides or parts of them (broken by the texture, cut by a
            # neighbour): the card is at least as wide as they say, and as wide as the frame's
            # whole cards or any width on the ladder up to half the frame's shorter side
            least = max(MIN_CARD_WIDTH_PX, 0.9 * max(corner.across_length, corner.down_length / CARD_ASPECT))
            ladder = least * SEGMENT_WIDTH_STEP ** np.arange(SEGMENT_WIDTHS)
            most = SEGMENT_MOST_WIDTH * min(height, width)
            if sides:  # the cards read give the size of a card here (one deck, one camera)
                least, most = (
                    max(least, SEGMENT_NARROWEST * min(sides)),
                    min(most, SEGMENT_WIDEST * max(sides)),
                )
            widths = sorted({float(w) for w in [*ladder, *whole_widths] if least <= w <= most})
            if not widths:
                continue
            window = point + 0.12 * widths[0] * across + 0.2 * widths[0] * down
            x, y = (window * shrink).astype(int)
            if not (0 <= x < near_ground.shape[1] and 0 <= y < near_ground.shape[0]) or not near_ground[y, x]:
                continue
            at_corner = proposed_widths[
                (np.hypot(*(proposed_points - point).T) < 0.15 * proposed_widths)
                & (proposed_across @ across > SAME_CORNER_ACROSS)
            ].tolist()
            # a width the frame's first look read at this corner already is not read again
            widths = [
                w for w in _distinct(widths) if all(abs(w - other) > 0.1 * other for other in at_corner)
            ]
            if not widths:
                continue
            arms = np.array(
                [
                    point,
                    point + across * corner.across_length,
                    point + across * corner.across_length + down * corner.down_length,
                    point + down * corner.down_length,
                ],
                np.float32,
            )
            number = len(blobs) + len(extra_blobs)
            extra_blobs.append(PaperBlob(np.round(arms).astype(np.int32).reshape(-1, 1, 2), arms, False))
            extra_frames += [CornerFrame(corner.point, corner.across, corner.down, w, number) for w in widths]
        return (extra_blobs, extra_frames) if extra_frames else None

    def _first_look(
        self, image: BGRImage, blobs: list[PaperBlob], frames: list[CornerFrame]
    ) -> tuple[np.ndarray, list[IndexRead], np.ndarray, np.ndarray]:
        """The index windows of ``frames``, their reads, which are inked all over
        (_inked_all_over, for _unless_patterned) and the windows as the classifier saw them
        (normalise_all's planes: the checks read them again), in place of each other. A whole card's
        pip corners are read only when its two index corners do not read as one card: a card
        covered at one end can be found whole in the shape of its part in view, turned a quarter
        (its index at a 'pip corner'), and so can a group of cards (a third of a ten-card frame's
        windows are at pip corners). So are the corners of its outline found again notched
        (NOTCHED_LATER: a court card's picture notches its paper at a high whiteness level, and
        the card is found whole by its edges; a fifth of a ten-card frame's windows were those),
        and a piece of paper that shows nothing beyond the cards so read but a rim (PIECES_LATER:
        two overlapping cards merged at a low whiteness level, a card's paper parted by its print;
        a third of a median ten-card frame's windows were those). A group of cards found in one
        card's shape is no such card: its two index corners are two cards' (IMG_2648's)."""
        patches = np.zeros((len(frames), PATCH_H, PATCH_W, 3), np.uint8)
        inked = np.zeros(len(frames), bool)
        # (a blank window's planes are zeros too, as normalise_all makes them: a window of one grey
        # level has no ink below its brightest and no red excess, dark card or not)
        planes = np.zeros((len(frames), 2, PATCH_H, PATCH_W), np.float32)
        if not PIP_CORNERS_LATER:
            every = list(range(len(frames)))
            return (
                patches,
                [read for _, read in self._read_frames(image, blobs, frames, every, patches, inked, planes)],
                inked,
                planes,
            )
        # the windows not read are left blank: only a dark card's are looked at again
        later = whole_pip_corners(blobs, frames)
        notched = notched_wholes(blobs) if NOTCHED_LATER else {}
        if notched:
            later |= np.array([frame.blob in notched for frame in frames], bool)
        pieces = (
            [
                n
                for n, blob in enumerate(blobs)
                if not (blob.whole or blob.dark or blob.group) and n not in notched
            ]
            if PIECES_LATER
            else []
        )
        if pieces:
            later |= np.isin([frame.blob for frame in frames], pieces)
        reads: list[IndexRead] = [_NO_READ] * len(frames)
        named: dict[int, list[tuple[int, int]]] = {}  # a whole card's index corners' reads
        for i, read in self._read_frames(
            image, blobs, frames, np.flatnonzero(~later).tolist(), patches, inked, planes
        ):
            reads[i] = read
            if blobs[frames[i].blob].whole:
                sure = read.is_index and read.confidence >= READ_CONFIDENCE
                named.setdefault(frames[i].blob, []).append((read.rank, read.suit) if sure else (-1, -1))
        # read as one card at both index corners: its pip corners have nothing to add
        settled = {
            blob for blob, names in named.items() if len(names) == 2 and names[0] == names[1] != (-1, -1)
        }
        # a piece within them is their paper again, parted at another whiteness level or by
        # their print (each of a median ten-card frame's pieces: 34 -> 23 windows)
        within = pieces_within(blobs, pieces, sorted(settled), PIECE_RIM)
        rest = [
            i
            for i in np.flatnonzero(later).tolist()
            if notched.get(frames[i].blob, frames[i].blob) not in settled and frames[i].blob not in within
        ]
        for i, read in self._read_frames(image, blobs, frames, rest, patches, inked, planes):
            reads[i] = read
        return patches, reads, inked, planes

    def _read_frames(
        self,
        image: BGRImage,
        blobs: list[PaperBlob],
        frames: list[CornerFrame],
        chosen: list[int],
        patches: np.ndarray,
        inked: np.ndarray,
        planes: np.ndarray,
    ) -> list[tuple[int, IndexRead]]:
        """The reads of the ``chosen`` frames, each with its number; their windows cut into
        ``patches``, whether each is inked all over into ``inked``, and the windows as the
        classifier saw them into ``planes``."""
        if not chosen:
            return []
        looked_at = [frames[i] for i in chosen]
        cut = cut_patches(image, looked_at, self.index_scale)
        patches[chosen] = cut
        normalised = self._planes(cut, blobs, looked_at)
        planes[chosen] = normalised
        if PATTERN_WINDOWS:
            inked[chosen] = _inked_all_over(normalised)
        return list(zip(chosen, self._index.read(normalised), strict=True))

    def _read_all(
        self, image: BGRImage, blobs: list[PaperBlob], frames: list[CornerFrame]
    ) -> list[IndexRead]:
        return self._index.read(self._planes(cut_patches(image, frames, self.index_scale), blobs, frames))

    def _planes(self, patches: np.ndarray, blobs: list[PaperBlob], frames: list[CornerFrame]) -> np.ndarray:
        """The windows of ``frames`` as the classifier sees them (vision.index_patch.normalise)."""
        dark = np.array([blobs[frame.blob].dark for frame in frames], bool)
        planes: np.ndarray = normalise_all(patches, dark, self.four_colour)
        return planes

    def _second_look(
        self, image: BGRImage, blobs: list[PaperBlob], frames: list[CornerFrame], reads: list[IndexRead]
    ) -> list[IndexRead]:
        """Read every index again through windows a little smaller and larger: a true index reads
        the same through all three, a fluke of one window rarely does. The read keeps the median
        confidence of the three (a dark card's: the mean), halved when they disagree. A read that
        the card's other index corner confirms (the same card, read at the opposite corner) has had
        that check already: two windows apart agree, and the merge combines them. Not on a dark
        card: a dark back's repeated pattern can look alike at both corners, and only the second
        look tells it from a face."""
        chosen = [i for i, read in enumerate(reads) if read.is_index and read.confidence >= READ_CONFIDENCE]
        on_paper = [i for i in chosen if not blobs[frames[i].blob].dark]
        confirmed = _confirmed_at_opposite_corners(frames, reads, on_paper)
        chosen = [i for i in chosen if i not in confirmed]
        if not chosen:
            return reads
        seen = self._windows_around(image, blobs, frames, chosen)
        if THIRD_WINDOW_READ:
            seen = self._third_window(image, blobs, frames, reads, seen)
        result = list(reads)
        for i in chosen:
            others = seen[i]
            first = reads[i]
            if all((o.rank, o.suit) == (first.rank, first.suit) for o in others):
                looks_at = [first, *others]
                # on paper the middle of the three (one window cut across a court card's frame or
                # a neighbour's edge weakens a true read); on a dark card the mean, as measured on
                # dark decks, where a back's lattice can read alike through all three
                agree = statistics.fmean if blobs[frames[i].blob].dark else statistics.median
                rank_p = agree([r.rank_p for r in looks_at])
                suit_p = agree([r.suit_p for r in looks_at])
                result[i] = IndexRead(first.rank, first.suit, rank_p, suit_p)
            else:
                result[i] = IndexRead(first.rank, first.suit, first.rank_p * 0.5, first.suit_p * 0.5)
        if CROSS_CORNER:
            result = self._cross_corner(image, blobs, frames, reads, seen, result)
        return result

    def _windows_around(
        self, image: BGRImage, blobs: list[PaperBlob], frames: list[CornerFrame], chosen: list[int]
    ) -> dict[int, list[IndexRead]]:
        """The reads of the second look's windows (SECOND_LOOK of each width) at the ``chosen``
        frames, in one batch."""
        if not chosen:
            return {}
        looks = [_wider(frames[i], factor) for i in chosen for factor in SECOND_LOOK]
        again = self._read_all(image, blobs, looks)
        return {i: again[n * len(SECOND_LOOK) : (n + 1) * len(SECOND_LOOK)] for n, i in enumerate(chosen)}

    def _cross_corner(
        self,
        image: BGRImage,
        blobs: list[PaperBlob],
        frames: list[CornerFrame],
        reads: list[IndexRead],
        seen: dict[int, list[IndexRead]],
        result: list[IndexRead],
    ) -> list[IndexRead]:
        """A whole paper card's read that its second look left in doubt, whose opposite index
        corner's first window read otherwise (another name, at any confidence, or nothing) while that
        corner's second look's two windows both read the card's name: that first window was the
        fluke (a court card's frame beside a 'Q' reads as a 'T' through one width, cam_image9), and
        the two corners confirm each other, as two corners reading alike at the first look do
        (their first reads stand; the opposite corner keeps its two windows' mean). The opposite
        corner is looked at for this only when needed, in one batch."""
        pairs: list[tuple[int, int]] = []
        for i, others in seen.items():
            blob = blobs[frames[i].blob]
            name = (reads[i].rank, reads[i].suit)
            if not blob.whole or blob.dark or all((o.rank, o.suit) == name for o in others):
                continue
            j = next(
                (
                    j
                    for j, frame in enumerate(frames)
                    if frame.blob == frames[i].blob
                    and (reads[j].rank, reads[j].suit) != name
                    and _opposite_corners(frames[i], frame)
                ),
                None,
            )
            if j is not None and not any(j == k or i == m for k, m in pairs):
                pairs.append((i, j))  # (two reads each other's opposite: the first pair only)
        if not pairs:
            return result
        windows = dict(seen)
        windows.update(
            self._windows_around(image, blobs, frames, sorted({j for _, j in pairs if j not in seen}))
        )
        for i, j in pairs:
            name = (reads[i].rank, reads[i].suit)
            others = windows[j]
            if all((o.rank, o.suit) == name and o.confidence >= READ_CONFIDENCE for o in others):
                result[i] = reads[i]
                result[j] = IndexRead(
                    name[0],
                    name[1],
                    statistics.fmean(o.rank_p for o in others),
                    statistics.fmean(o.suit_p for o in others),
                )
        return result

    def _third_window(
        self,
        image: BGRImage,
        blobs: list[PaperBlob],
        frames: list[CornerFrame],
        reads: list[IndexRead],
        seen: dict[int, list[IndexRead]],
    ) -> dict[int, list[IndexRead]]:
        """On paper, a read whose second look agrees through one window and sees no index through
        the other is read once more, a step further on the agreeing side (THIRD_WINDOW): a width
        guess a tenth too large (a shadow's edge measured with the card's) shows the next card's
        edge or a court card's frame through the larger window, and a tenth too small cuts the
        index. If that window agrees too, it stands for the one that saw nothing: three windows
        still agree, as for every other read acted on."""
        retry: list[tuple[int, int]] = []  # the read, and which of the second look's windows saw no index
        for i, others in seen.items():
            first = reads[i]
            if blobs[frames[i].blob].dark:
                continue
            agree = [(o.rank, o.suit) == (first.rank, first.suit) for o in others]
            blank = [k for k, o in enumerate(others) if not agree[k] and not o.is_index]
            if len(blank) == 1 and sum(agree) == len(others) - 1:
                retry.append((i, blank[0]))
        if not retry:
            return seen
        looks = [_wider(frames[i], THIRD_WINDOW[1 - blank]) for i, blank in retry]
        third = self._read_all(image, blobs, looks)
        result = dict(seen)
        for (i, blank_at), read in zip(retry, third, strict=True):
            result[i] = [read if k == blank_at else o for k, o in enumerate(seen[i])]
        return result

    def _merge(
        self, frames: list[CornerFrame], reads: list[IndexRead], blobs: list[PaperBlob], masks: _BlobMasks
    ) -> list[_Candidate]:
        """Reads of one card (its two index corners, several width guesses at one corner) become one
        card; reads that disagree about one card make it unsure. A read at a card's opposite corner
        is the same card only through an outline of the card that lies on its own blob, and only
        when the card's corner lies at the opposite corner of the read's outline too."""
        ranked = sorted(
            (
                _Candidate(frame, read, frame.card_quad(), dark=blobs[frame.blob].dark)
                for frame, read in zip(frames, reads, strict=True)
                if read.is_index and read.confidence >= READ_CONFIDENCE
            ),
            key=lambda c: -c.read.confidence,
        )
        cards: list[_Candidate] = []
        for candidate in ranked:
            same = next((card for card in cards if _same_card(card, candidate)), None)
            if same is None:
                # the same card read again through a corner guessed elsewhere on it is still one card
                same = next(
                    (
                        card
                        for card in cards
                        if (card.read.rank, card.read.suit) == (candidate.read.rank, candidate.read.suit)
                        and _overlap(card.quad, candidate.quad) > 0.3
                    ),
                    None,
                )
            if (
                same is None
                and PART_AT_OPPOSITE
                and any(
                    candidate.frame.width < PART_OF_INDEX * frame.width
                    and _at_opposite_corner(frame, candidate.frame, SLANTED_DISAGREES)
                    for card in cards
                    for frame in card.corners
                )
            ):
                continue  # a part of a card's other index, seen through a window far too small
            if same is None and SLANTED_DISAGREES and candidate.read.confidence >= SLANTED_CONFIRM_P:
                same = next(
                    (
                        card
                        for card in cards
                        if (card.read.rank, card.read.suit) != (candidate.read.rank, candidate.read.suit)
                        and _across_the_card(card, candidate, seen_aspects=True)
                    ),
                    None,
                )
            if same is None:
                if masks.share_on(candidate.frame.blob, candidate.quad) >= ON_OWN_BLOB:
                    candidate.outlines.append(candidate.frame)
                candidate.corners.append(candidate.frame)
                cards.append(candidate)
                continue
            corner = next((frame for frame in same.corners if _at_one_corner(frame, candidate.frame)), None)
            if corner is not None and (
                candidate.frame.width < PART_OF_INDEX * corner.width
                or PART_OF_INDEX * candidate.frame.width > corner.width
            ):
                continue  # no evidence either way
            if (same.read.rank, same.read.suit) == (candidate.read.rank, candidate.read.suit):
                same.agreeing.append(candidate.read)
                same.corners.append(candidate.frame)
                same.dark = same.dark and candidate.dark  # read on paper too: not only a dark card
                if _at_one_corner(same.frame, candidate.frame) and (
                    masks.share_on(candidate.frame.blob, candidate.quad) >= ON_OWN_BLOB
                ):
                    same.outlines.append(candidate.frame)
            else:
                same.disagreeing += 1
        if WEAK_CONFIRM:
            _confirm_weakly(cards, frames, reads)
        return cards

    def _sighting(self, card: _Candidate, scale: float) -> CardSighting:
        confidence, why = self._read_confidence(card)
        if card.dark:
            confidence, why = _on_a_dark_card(confidence, why)
        return CardSighting(
            _points(card.quad, scale),
            Facing.UP,
            RANK_LABELS[card.read.rank],
            SUITS[card.read.suit],
            confidence,
            why,
        )

    def _read_confidence(self, card: _Candidate) -> tuple[float, str]:
        """How sure the card's name is by its index reads, and why (a dark card's held below
        acting confidence by _sighting)."""
        read = card.read
        confidence = read.confidence
        why = "index read"
        if card.agreeing:
            # a second index corner agreeing makes a wrong read much less likely (so does, as
            # measured, another width guess at one corner: counting it cost 4 of the training
            # photos' cards, and the why says which it was)
            confidence = _confirmed(confidence, max(r.confidence for r in card.agreeing))
            places = _corners_read(card.corners)
            why = (
                f"index read at {places} corners"
                if places > 1
                else f"index read through {len(card.corners)} windows at one corner"
            )
        if card.disagreeing:
            confidence *= 0.5
            why = "index reads disagree"
        return confidence, why

    def _unless_a_back(self, sighting: CardSighting, card: _Candidate, image: BGRImage) -> CardSighting:
        """A paper card read below acting confidence that looks like a calibrated back is not
        called face up on that read (UNSURE_READ_ON_A_BACK): a fluke of the classifier on a back's
        pattern (a lattice read as a three of clubs at 0.59) against the back's own colour and
        texture. A read acted on stands: a face's index read that surely is no back's. (Not on a
        dark card, whose face can have a plain black back's colour.)"""
        if (
            not UNSURE_READ_ON_A_BACK
            or self.backs is None
            or card.dark
            or sighting.confidence >= ACT_CONFIDENCE
        ):
            return sighting
        back = self.backs.match(image, card.quad)
        if back is None:
            return sighting
        why = f"read as {sighting.card} at {sighting.confidence:.2f}, the {back.name} back's look"
        return CardSighting(sighting.corners, Facing.UNKNOWN, None, None, 0.0, why)

    def _unless_print(
        self, cards: list[_Candidate], sightings: list[CardSighting], seen_as: np.ndarray
    ) -> list[CardSighting]:
        """A card about to be acted on that was read at one corner only (through one window or
        several widths there) is shown to the print check (``print_check``), a classifier trained
        with printed matter as no index: where it surely sees no index, the card keeps its face
        and name, below acting confidence (IMG_2556: a book's print read as a seven of clubs at
        0.904); so is one whose other corner agrees only weakly (_confirm_weakly). A card read
        surely at two corners has that check already; a second opinion that reads
        another index instead is no veto (it reads fewer real cards than the committed one).
        ``seen_as``: each card's read window as its first look showed it to the classifier."""
        chosen = [
            k
            for k, (card, sighting) in enumerate(zip(cards, sightings, strict=True))
            if sighting.confidence >= ACT_CONFIDENCE
            and sighting.card is not None
            and (card.weakly_confirmed or all(_at_one_corner(card.frame, frame) for frame in card.corners))
        ]
        result = list(sightings)
        for k in self._surely_no_index(self._print_check, chosen, seen_as, READ_CONFIDENCE):
            result[k] = _held(sightings[k], "no index to the print check")
        return result

    def _unless_a_pattern(
        self, cards: list[_Candidate], sightings: list[CardSighting], seen_as: np.ndarray
    ) -> list[CardSighting]:
        """Every card about to be acted on is shown to the pattern check (``pattern_check``), a
        classifier trained with backs of patterns that are no lattice as no index: where it surely
        sees no index in the card's read window, the card is no face (unknown, unnamed). The
        committed classifier names a back's pattern at a corner as an index (a red and white
        harlequin as the four of diamonds at 1.00, a cream back's stripes as the queen of clubs),
        at acting confidence: bench/backs_stress.py's rendered backs, 20 named in 672 frames
        without the check, 3 with it, and the training photos' 527 cards read as before (the
        pattern check alone reads 11 fewer of them: it is a veto, not a reader). A paper card
        read below acting confidence is asked too (UNSURE_PATTERN_CHECK): that read alone calls it
        face up, which at a seat is an exposed-card ruling, and such reads of dots and stripes
        were most of the stress's backs called face up (94 of 672 frames' backs before, 32 after;
        the training photos' face-up cards and the facing bench caught as before). A dark card
        read below acting confidence is not asked (a dark deck's faces, read weakly through their
        light print, keep their calls). ``seen_as``: each card's read window as its first look
        showed it to the classifier."""
        chosen = [
            k
            for k, sighting in enumerate(sightings)
            if sighting.card is not None
            and (sighting.confidence >= ACT_CONFIDENCE or (UNSURE_PATTERN_CHECK and not cards[k].dark))
        ]
        result = list(sightings)
        for k in self._surely_no_index(self._pattern_check, chosen, seen_as, PATTERN_CHECK_SURE):
            read_as = f"read as {sightings[k].card} at {sightings[k].confidence:.2f}"
            why = f"{read_as}, a back's pattern to the pattern check"
            result[k] = CardSighting(sightings[k].corners, Facing.UNKNOWN, None, None, 0.0, why)
        return result

    def _surely_no_index(
        self,
        check: IndexReader | None,
        chosen: list[int],
        seen_as: np.ndarray,
        sure: float,
    ) -> list[int]:
        """Of the ``chosen`` cards, those in whose read window (``seen_as``: as the classifier saw
        it) the second classifier ``check`` sees no index at ``sure`` or more (none without a
        check)."""
        if check is None or not chosen:
            return []
        reads = check.read(seen_as[chosen])
        return [
            k for k, read in zip(chosen, reads, strict=True) if read.rank == NONE_RANK and read.rank_p >= sure
        ]

    def _unless_a_larger_index(
        self,
        image: BGRImage,
        blobs: list[PaperBlob],
        cards: list[_Candidate],
        sightings: list[CardSighting],
    ) -> list[CardSighting]:
        """A card about to be acted on is read again at its corner through larger windows: a deck
        whose index is larger than the window (a jumbo index, its rank a fifth of the card's
        height, as card rooms' decks often have) shows the window its rank alone, the suit cut off
        below, and the classifier names it confidently and wrongly, alike at both corners
        (Kennard's jumbo decks: an ace of spades read as the ace of clubs at 0.99). Through a
        larger window such an index is whole, at the size the classifier knows (larger than the
        reader's own window: on a deck calibrated with a larger index, larger than that). Each card is read
        through LARGER_WINDOW first; where that reads another card, also through LARGER_WINDOWS'
        others; where LARGER_AGREE of them read one other card at LARGER_OTHER_CONFIDENCE (a whole
        jumbo index seen through a window twice the normal one reads a little less surely), the read is
        held below acting (the card keeps its face: it is still one). The second step costs a tenth
        of the cards of a normal deck a window or two."""
        chosen = [
            k
            for k, sighting in enumerate(sightings)
            if sighting.confidence >= ACT_CONFIDENCE and sighting.card is not None
        ]
        if not chosen or not LARGER_WINDOWS:
            return sightings
        own = {k: (cards[k].read.rank, cards[k].read.suit) for k in chosen}
        first = self._read_all(image, blobs, [_wider(cards[k].frame, LARGER_WINDOW) for k in chosen])
        doubted = [
            (k, read)
            for k, read in zip(chosen, first, strict=True)
            if read.is_index and read.confidence >= READ_CONFIDENCE and (read.rank, read.suit) != own[k]
        ]
        if not doubted:
            return sightings
        others = [factor for factor in LARGER_WINDOWS if factor != LARGER_WINDOW]
        more = self._read_all(image, blobs, [_wider(cards[k].frame, f) for k, _ in doubted for f in others])
        result = list(sightings)
        for j, (k, read) in enumerate(doubted):
            named = Counter(
                (r.rank, r.suit)
                for r in [read, *more[j * len(others) : (j + 1) * len(others)]]
                if r.is_index and r.confidence >= LARGER_OTHER_CONFIDENCE and (r.rank, r.suit) != own[k]
            )
            if named and named.most_common(1)[0][1] >= LARGER_AGREE:
                result[k] = _held(sightings[k], "another card through larger windows")
        return result

    def _stretched_cards(
        self,
        image: BGRImage,
        blobs: list[PaperBlob],
        seen: list[np.ndarray],
        scale: float,
        outlined: set[int],
    ) -> list[CardSighting]:
        """Lone cards seen too stretched for their corner frames (STRETCHED_CARDS), read on their
        outline warped upright. Appends the cards' outlines to ``seen``."""
        sightings: list[CardSighting] = []
        for number, blob in enumerate(blobs):
            if number in outlined:
                continue
            # its outline's corners not counted: pips near a squeezed card's edge notch it
            box = _lone_card_box(blob, image.shape)
            if box is None:
                continue
            quad, short, long = box
            if NORMAL_ASPECTS[0] < long / short < NORMAL_ASPECTS[1] or long / short > MOST_STRETCHED:
                continue
            if any(_overlap(quad, other) > 0.3 for other in seen):
                continue
            # as wide as its sides show: the shortened one shows less than the card's width
            read = self._read_upright(image, number, blob, quad, max(short, long / CARD_ASPECT))
            if read is None:
                continue
            (rank, suit), confidence = read
            why = "index read at 2 corners of a stretched card"
            if blob.dark:
                confidence, why = _on_a_dark_card(confidence, why)
            seen.append(quad)
            sightings.append(
                CardSighting(_points(quad, scale), Facing.UP, RANK_LABELS[rank], SUITS[suit], confidence, why)
            )
        return sightings

    def _read_upright(
        self, image: BGRImage, number: int, blob: PaperBlob, quad: np.ndarray, card_width: float
    ) -> tuple[tuple[int, int], float] | None:
        """The card at ``quad`` warped upright (``card_width`` wide) both ways round, and its two
        index corners read each way: the card and the two reads' combined confidence where one way
        reads one card at both and the other way no index at either; else None."""
        width, height = math.ceil(card_width), math.ceil(card_width * CARD_ASPECT)
        # the index corners of an upright card: top left, and bottom right turned half round
        corners = [
            CornerFrame((0.0, 0.0), (1.0, 0.0), (0.0, 1.0), width, number),
            CornerFrame((width, height), (-1.0, 0.0), (0.0, -1.0), width, number),
        ]
        faces = [warped(image, np.roll(quad, -turn, axis=0), (width, height)) for turn in (0, 1)]
        patches = np.concatenate([cut_patches(face, corners, self.index_scale) for face in faces])
        reads = self._index.read(
            normalise_all(patches, np.full(len(patches), blob.dark, bool), self.four_colour)
        )
        ways = [reads[:2], reads[2:]]
        for (one, two), other in ((ways[0], ways[1]), (ways[1], ways[0])):
            sure = all(read.is_index and read.confidence >= READ_CONFIDENCE for read in (one, two))
            if sure and (one.rank, one.suit) == (two.rank, two.suit) and not any(r.is_index for r in other):
                return (one.rank, one.suit), _confirmed(one.confidence, two.confidence)
        return None

    def _dark_faces(
        self,
        image: BGRImage,
        blobs: list[PaperBlob],
        masks: _BlobMasks,
        frames: list[CornerFrame],
        reads: list[IndexRead],
        patches: np.ndarray,
        inked: np.ndarray,
        seen: list[np.ndarray],
        scale: float,
    ) -> list[CardSighting]:
        """Dark cards whose name was not read but whose face shows. The card's outline is taken
        from one of its corners (at the seen aspect that keeps it on the dark blob: a slanted view
        or a stretched photo shortens a card) and must show light print in a face's few marks
        (vision/faces.py); and either the classifier saw a rank at that corner (its first look,
        before the second look or the merge halved or dropped it: the name is unsure, the glyph
        is there), or, with calibrated backs, the corner's index window is printed too and the
        outline matches no back, or the print holds three to ten pips alike (FACE_PIPS) and the
        outline matches no calibrated back (without calibration too: a few marks alike in size
        and shape are a face's pips; a back's logo is one or two marks, its pattern many). A
        plain back gives the classifier no rank and has no print. A
        card cut by the photo's edge, its rank seen, is outlined off the frame (``_outline_on``)
        and reported clipped to it. Appends the cards' outlines to ``seen``."""
        sightings: list[CardSighting] = []
        if not any(blob.dark for blob in blobs):
            return sightings  # no dark card (a felt's frames): nothing below applies
        # the cards of one frame are of one deck at about one distance: an unread face much
        # narrower than the cards already found on it is something else (a screen's text)
        width = _cards_width(blobs, seen)
        narrowest = NARROWEST_DARK_FACE * width if width is not None else 0.0
        found: dict[int, list[np.ndarray]] = {}  # the dark faces found, by blob
        on_dark = [i for i, frame in enumerate(frames) if blobs[frame.blob].dark]
        lit = np.zeros(len(frames), bool)
        if on_dark:
            lit[on_dark] = _corners_lit(patches[on_dark])
        for n, (frame, read, corner_lit, window) in enumerate(zip(frames, reads, lit, patches, strict=True)):
            blob = blobs[frame.blob]
            if not blob.dark:
                continue
            # a rank seen where the window shows too little print for an index is a lattice's
            # lines lifted by the classifier's normalising (_unless_unprinted)
            rank_seen = (
                read.rank != NONE_RANK
                and read.rank_p >= FACE_RANK_P
                and index_printed(window)
                and not (PATTERN_DARK and inked[n])
            )
            if not rank_seen and not (corner_lit and self._print_may_show):
                continue  # nothing light at the corner: no index there (most corners of a dark back)
            if (NARROW_DARK_READS or not rank_seen) and frame.width < narrowest:
                continue
            if any(cv2.pointPolygonTest(other, frame.point, False) >= 0 for other in seen):
                continue  # a corner of a card already found
            quad = _outline_on(blob, masks, frame, image.shape, anchored=rank_seen)
            if quad is None:
                continue
            if any(_overlap(quad, other) > 0.3 for other in seen):
                continue
            if any(_overlap(quad, other) > SAME_DARK_FACE for other in found.get(frame.blob, [])):
                continue  # the same card from another of its corners, with another width guess
            look = light_print(image, quad)
            if not look.printed:
                continue
            cut = not in_frame(quad, image.shape)
            why = (
                "light print on a dark card and a rank at its corner, index unread"
                if rank_seen
                else self._print_shows_a_face(image, quad, look, cut)
            )
            if why is None:
                continue
            if cut:
                # its corners beyond the frame moved onto its edge: what is seen of the card
                why += ", cut by the frame's edge"
                quad = np.clip(quad, 0, (image.shape[1] - 1, image.shape[0] - 1)).astype(np.float32)
            seen.append(quad)
            found.setdefault(frame.blob, []).append(quad)
            sightings.append(CardSighting(_points(quad, scale), Facing.UP, None, None, 0.0, why))
        return sightings

    def _print_shows_a_face(
        self, image: BGRImage, quad: np.ndarray, look: PrintLook, cut: bool
    ) -> str | None:
        """Why a dark card's print (``look``), no rank seen at its corner, shows a face, or None:
        three to ten pips alike, or with calibrated backs print at its index corner, either way
        unlike the back it matches (``cut``: the outline runs off the frame)."""
        pips = self._pips_show_a_face(look)
        indexed = look.corner >= INDEX_PRINT and self.backs is not None
        if not indexed and not pips:
            return None
        back = self.backs.match(image, quad) if self.backs is not None else None
        if _a_backs_print(back, look):
            return None  # the print of a calibrated back (a logo)
        if CUT_UNMATCHED_UNSURE and cut and back is None and not pips:
            # the warp's black beyond the frame is in a cut card's colours: matching no back says
            # nothing of it (a black casino back's light lattice at its corner); a plain back
            # matched, or a face's pips, still do
            return None
        if indexed and back is not None:
            return f"light print on a dark card, at its index corner too, unlike the plain {back.name} back"
        if indexed:
            return "light print on a dark card, at its index corner too, unlike the calibrated backs"
        return f"{look.pips} pips alike in light print on a dark card, index unread"

    def _pip_faces(
        self, image: BGRImage, blobs: list[PaperBlob], masks: _BlobMasks, seen: list[np.ndarray], scale: float
    ) -> list[CardSighting]:
        """Dark faces found by their pips alone (vision.faces.pip_groups), where no corner's
        outline took them: a card on one blob with the dark floor beyond the table's edge, or with
        a keyboard, has no corner of its own. A group of FACE_PIPS alike pips, none on a card found
        already, is outlined round them at the frame's cards' width (its long side along the
        group's longer extent: a face's pips run down it), and that outline must lie on the blob,
        overlap no card found, show the same pips to light_print and match no calibrated back.
        Appends the cards' outlines to ``seen``."""
        sightings: list[CardSighting] = []
        if not self.faces_by_pips or not any(blob.dark for blob in blobs):
            return sightings
        width = _cards_width(blobs, seen)
        if width is None:
            return sightings  # no card to size a face by: a lone dark card is _unread_cards'
        for number, blob in enumerate(blobs):
            if not blob.dark or blob.whole:
                continue  # a whole blob is one card, outlined exactly by _unread_cards
            for group in pip_groups(image, blob.contour, width):
                if not _a_faces_pips(len(group)):
                    continue
                centres = np.array([pip.centre for pip in group], np.float32)
                if any(
                    cv2.pointPolygonTest(quad, (float(x), float(y)), False) >= 0
                    for quad in seen
                    for x, y in centres
                ):
                    continue
                found = None
                squashed = squash(group)
                for size in PIP_CARD_SIZES:  # a nearer card is larger than the frame's others
                    quad = _card_round(centres, width * size, squashed)
                    if masks.share_on(number, quad) < ON_DARK_CARD:
                        break  # larger runs further off the blob
                    look = light_print(image, quad)
                    if self._pips_show_a_face(look):
                        found = (quad, look)
                        break
                if found is None:
                    continue
                quad, look = found
                if any(_overlap(quad, other) > 0.2 for other in seen):
                    continue
                if self.backs is not None and self.backs.match(image, quad) is not None:
                    continue
                seen.append(quad)
                why = f"{look.pips} pips alike in light print on a dark card, outlined round them"
                sightings.append(CardSighting(_points(quad, scale), Facing.UP, None, None, 0.0, why))
        return sightings

    def _unread_cards(
        self,
        image: BGRImage,
        blobs: list[PaperBlob],
        frames: list[CornerFrame],
        reads: list[IndexRead],
        seen: list[np.ndarray],
        scale: float,
        outlined: set[int],
    ) -> list[CardSighting]:
        """Whole cards with no index read: face up if their inside is white paper, face down if
        nothing of it is, unknown in between. Appends the cards' outlines to ``seen``. The blobs
        ``outlined`` by a read card (its own four corners, in ``seen``) are that card."""
        sightings: list[CardSighting] = []
        white: np.ndarray | None = None  # made for the first card not read already (most frames: none)
        for number, blob in enumerate(blobs):
            if number in outlined:
                continue
            box = _lone_card_box(blob, image.shape)
            if box is None or len(blob.polygon) > ONE_CARD_VERTICES:
                continue
            quad, short, long = box
            if not NORMAL_ASPECTS[0] < long / short < NORMAL_ASPECTS[1]:
                continue
            if any(_overlap(quad, other) > 0.3 for other in seen):
                continue
            seen.append(quad)
            if white is None:
                white = whiteness(image) >= WHITE_INSIDE_LEVEL
            inside = _white_inside(white, quad)
            pattern = white_face_verdict(image, quad, WHITE_INSIDE_LEVEL) if inside >= 0.6 else None
            # a white card is matched only when it shows no face (a pale back in a bright light)
            compared = inside < 0.6 or pattern is not None
            back: Back | None = self.backs.match(image, quad) if self.backs is not None and compared else None
            look = light_print(image, quad) if blob.dark and inside < 0.6 and self._print_may_show else None
            printed = look is not None and look.printed  # in a face's few marks
            # a court card: its picture is one mark across most of the card, no face's few marks,
            # and the classifier sees its rank at its two index corners and none at the other two
            # (a symmetric back can show that too, seen from the corners' two kinds of frame: a
            # dark lattice is read as a king at its index corners, hence the picture)
            indexed = (
                blob.dark
                and inside < 0.6
                and back is None
                and not (printed and self.backs is not None)  # decided as a face already, below
                and _index_corners_only(quad, number, frames, reads)
                and light_print(image, quad, pictured=True).printed
            )
            # undecided as a pale back leaves it, without a back to match: what calibration learns
            # a back from beside the cards called face down (vision.calibrate.back_samples)
            pale = pattern in PALE_BACK_VERDICTS
            if inside >= 0.6 and pattern is None:
                facing, why = Facing.UP, "white face, index unread"
            elif inside >= 0.6 and back is not None:
                # a pale back in a bright light is as white as paper, and its pattern no face's
                facing, why = Facing.DOWN, f"the {back.name} back"
            elif inside >= 0.6:
                facing, why = Facing.UNKNOWN, f"white, {pattern}"
            elif back is not None and printed and look is not None and not _a_backs_print(back, look):
                facing, why = Facing.UP, f"light print at its index corner, unlike the plain {back.name} back"
            elif back is not None and printed:
                # a mostly black face (an ace) can have the colour of a plain black back
                facing, why = Facing.UNKNOWN, f"the {back.name} back's colour, a face's print"
            elif back is not None:
                facing, why = Facing.DOWN, f"the {back.name} back"
            elif printed and self.backs is not None:
                facing, why = Facing.UP, "light print on a dark card, unlike the calibrated backs"
            elif back is None and look is not None and self._pips_show_a_face(look):
                facing, why = Facing.UP, f"{look.pips} pips alike in light print on a dark card, index unread"
            elif indexed and self.backs is not None:
                facing, why = (
                    Facing.UP,
                    "a rank at a dark card's two index corners only, unlike the calibrated backs",
                )
            elif indexed:
                # no calibrated back to be unlike: a face, or a back whose pattern is not symmetric
                facing, why = (
                    Facing.UNKNOWN,
                    "a rank at a dark card's two index corners only, no calibrated back",
                )
            elif self.backs is not None:
                facing, why = Facing.UNKNOWN, "no face showing, no calibrated back"
            elif inside <= 0.2:
                # a guess that the calibrated backs replace: a dark deck's face shows no white
                # either, and a dark back may carry a logo or a few gold marks, so print without
                # calibrated backs tells nothing (calibrate learns such backs from these cards)
                facing, why = Facing.DOWN, "a whole card, no face showing"
            else:
                facing, why = Facing.UNKNOWN, "card, face not decided"
                pale = True  # partly white: a pale back in a dimmer light
            back_like = facing is Facing.DOWN or (facing is Facing.UNKNOWN and pale)
            sightings.append(CardSighting(_points(quad, scale), facing, None, None, 0.0, why, back_like))
        return sightings


def _held(sighting: CardSighting, reason: str) -> CardSighting:
    """A card kept, face and name, at no more than HELD_CONFIDENCE (below acting confidence),
    with the ``reason`` a check held it for added to its why."""
    return replace(
        sighting, confidence=min(sighting.confidence, HELD_CONFIDENCE), why=f"{sighting.why}, {reason}"
    )


def _a_backs_print(back: Back | None, look: PrintLook) -> bool:
    """Whether the light print ``look`` found on a dark card can be the back ``back``'s (which the
    card matches). A plain back (one flat field when learned: its texture all PLAIN_BACK's
    pattern) has no print, so a face's print at the card's index corner is not its, whatever the
    colours' likeness: a dark deck's face is the back's black with a little gold on it."""
    if back is None:
        return False
    plain = PLAIN_BACKS_UNPRINTED and back.texture[0] >= PLAIN_BACK
    return not (plain and look.printed and look.corner >= INDEX_PRINT)


def _unless_pips_disagree(
    image: BGRImage, sightings: list[CardSighting], scale: float, four_colour: bool = False
) -> list[CardSighting]:
    """A number card of a black suit about to be acted on, read below PIP_SUITS_BELOW, whose own
    pips show another suit (vision.pip_suits.pips_against: three alike at least and half the
    rank's, none its own) keeps its face and name below acting confidence: the index's small suit
    read wrongly (a club as a spade, red pips as a club, on decks never seen). A surer read is not
    asked: the look costs about 0.4 ms a card, and the swaps measured were read at 0.90-0.97.
    ``scale``: the work image's, against the sightings' corners; ``four_colour``: the deck's faces
    are (its green pips are clubs, its blue ones diamonds)."""
    asked = {
        k: card
        for k, sighting in enumerate(sightings)
        if (card := sighting.card) is not None
        and ACT_CONFIDENCE <= sighting.confidence < PIP_SUITS_BELOW
        and sighting.facing is Facing.UP
        and card[0] in PIPS_OF
        and card[1] in PIP_SUITS_ASKED
    }
    if not asked:
        return sightings
    result = list(sightings)
    for k, quad, others in _each_among_others(sightings, asked, scale):
        card = asked[k]
        shown = pips_against(card, pip_suits(image, quad, others, four_colour), four_colour)
        if shown is not None:
            result[k] = _held(sightings[k], f"its pips show {_PIPS_SHOWN[shown]}")
    return result


def _each_among_others(
    sightings: list[CardSighting], asked: Iterable[int], scale: float
) -> Iterator[tuple[int, np.ndarray, list[np.ndarray]]]:
    """For each ``asked`` sighting: its number, its outline and the frame's other cards' outlines,
    on the work image (``scale``: the work image's, against the sightings' corners)."""
    quads = [np.array(sighting.corners, np.float32) * scale for sighting in sightings]
    for k in asked:
        yield k, quads[k], [quad for j, quad in enumerate(quads) if j != k]


# each corner's neighbours in a quadrilateral's (4, 2) points: the one before and the one after
_BEFORE, _AFTER = [3, 0, 1, 2], [1, 2, 3, 0]


def _corner_slants(quads: np.ndarray) -> np.ndarray:
    """Each corner's angle's difference from a right angle, in degrees, of quadrilaterals
    (n, 4, 2): (n, 4). One numpy pass for all of a frame's (a few µs, not a pass a card)."""
    before = quads[:, _BEFORE] - quads
    after = quads[:, _AFTER] - quads
    lengths = np.sqrt(np.sum(before * before, axis=2) * np.sum(after * after, axis=2))
    cosines = np.sum(before * after, axis=2) / np.maximum(lengths, 1e-9)
    slants: np.ndarray = np.abs(np.degrees(np.arccos(np.clip(cosines, -1.0, 1.0))) - 90.0)
    return slants


def _seen_square(blobs: list[PaperBlob]) -> bool:
    """Whether the frame is seen square on: it has whole cards and every one is a rectangle of a
    card's shape. A camera looking across the table squashes the view, and a card turned in it
    then shows corners far from square; one that is not turned keeps its right angles but shows
    a shape no deck's (a poker card squashed to 0.85 is 1.19 or 1.65 times as long as wide). So
    where every whole card is square and card-shaped, the view's squash is 0.84 or more, and no
    card's corner in it is seen more than 10 degrees from square. (Squashed to about half, an
    upright card looks like a sideways one of a card's shape: a few such frames pass as square,
    which costs reads held, never wrong ones; a table's plane config straightens such a view.)"""
    quads = [blob.polygon for blob in blobs if blob.whole and len(blob.polygon) == 4]
    if not quads:
        return False
    points = np.array(quads, np.float64).reshape(-1, 4, 2)
    sides = _side_lengths(points)
    across, along = sides[:, 0] + sides[:, 2], sides[:, 1] + sides[:, 3]
    aspects = np.maximum(across, along) / np.maximum(np.minimum(across, along), 1e-9)
    low, high = SQUARE_CARD_ASPECTS
    return bool(
        (_corner_slants(points).max(axis=1) <= SQUARE_CARD).all()
        and ((aspects >= low) & (aspects <= high)).all()
    )


def _unless_slanted(sightings: list[CardSighting], blobs: list[PaperBlob]) -> list[CardSighting]:
    """In a frame seen square on (_seen_square), a card about to be acted on whose outline has a
    corner more than SLANTED_CORNER from square keeps its face and name below acting confidence:
    its outline was drawn from a corner of no card (two touching cards' union, an index's ink
    run into the card's edge), and its index window cut askew through whatever lies there (a
    jumbo nine sheared into a seven at 0.95, Kennard's decks). The slanted reads are looked for
    first: most frames have none, and then the view is not looked at."""
    acting = [
        k
        for k, sighting in enumerate(sightings)
        if sighting.card is not None and sighting.confidence >= ACT_CONFIDENCE
    ]
    if not acting:
        return sightings
    slants = _corner_slants(np.array([sightings[k].corners for k in acting], np.float64)).max(axis=1)
    slanted = {k for k, slant in zip(acting, slants, strict=True) if slant > SLANTED_CORNER}
    if not slanted or not _seen_square(blobs):
        return sightings
    return [
        _held(sighting, "a slanted outline in a square view") if k in slanted else sighting
        for k, sighting in enumerate(sightings)
    ]


def _unless_no_court_picture(
    image: BGRImage, sightings: list[CardSighting], scale: float
) -> list[CardSighting]:
    """A card read as a jack, queen or king and about to be acted on, whose middle shows a number
    card's pips on bare paper (vision.pip_suits.no_court_picture), keeps its face and name below
    acting confidence: the classifier named a court from an index it never saw the like of (a
    jumbo index's eight or six read as a queen at 0.93-0.99 at both corners, Kennard's decks). The
    picture is what every deck's court cards share, whatever their index. ``scale``: the work
    image's, against the sightings' corners."""
    asked = [
        k
        for k, sighting in enumerate(sightings)
        if sighting.card is not None
        and sighting.card[0] in COURT_RANKS
        and sighting.confidence >= ACT_CONFIDENCE
        and sighting.facing is Facing.UP
    ]
    if not asked:
        return sightings
    result = list(sightings)
    for k, quad, others in _each_among_others(sightings, asked, scale):
        if no_court_picture(image, quad, others):
            result[k] = _held(sightings[k], "no court picture, a number card's pips")
    return result


def _unless_four_colour_ink(
    image: BGRImage, sightings: list[CardSighting], scale: float, index_scale: float
) -> list[CardSighting]:
    """A card about to be acted on, read as a club or a spade in blue ink or as a spade in green
    ink, keeps its face and name below acting confidence: it is a four-colour deck's diamond or
    club, which a reader not calibrated for four colours names by the glyph's shape alone (blue
    diamonds as clubs at 0.99). Its index window is cut again at the read corner (the sighting's
    first) and its ink's colour measured against its paper (vision.index_patch.ink_tints).
    ``scale``: the work image's, against the sightings' corners; ``index_scale``: the deck's."""
    asked = [
        k
        for k, sighting in enumerate(sightings)
        if sighting.suit in ("c", "s")
        and sighting.rank is not None
        and sighting.confidence >= ACT_CONFIDENCE
        and sighting.facing is Facing.UP
    ]
    if not asked:
        return sightings
    frames = []
    for k in asked:
        corners = np.array(sightings[k].corners, np.float64) * scale
        across, down = corners[1] - corners[0], corners[3] - corners[0]
        width, length = max(float(np.hypot(*across)), 1e-9), max(float(np.hypot(*down)), 1e-9)
        point = (float(corners[0][0]), float(corners[0][1]))
        unit_across = (float(across[0]) / width, float(across[1]) / width)
        unit_down = (float(down[0]) / length, float(down[1]) / length)
        frames.append(CornerFrame(point, unit_across, unit_down, width, 0))
    tints = ink_tints(cut_patches(image, frames, index_scale))
    result = list(sightings)
    for k, (blue, green) in zip(asked, tints.tolist(), strict=True):
        if blue > BLUE_INK:
            result[k] = _held(sightings[k], "blue ink, a four-colour deck's diamond")
        elif sightings[k].suit == "s" and green > GREEN_INK:
            result[k] = _held(sightings[k], "green ink, a four-colour deck's club")
    return result


def _unless_patterned(
    cards: list[_Candidate], inked: np.ndarray, number_of: dict[int, int]
) -> list[_Candidate]:
    """The cards less those on paper whose every window read is inked all over (_inked_all_over,
    ``inked`` by frame): a pale back's lattice runs through the whole window, where a face's index
    leaves paper round its glyphs. A face's index beside its court picture or under a neighbour
    can fill one window too (1.6 % of the training photos' windows read): its other corner's read
    keeps the card."""
    return [
        card
        for card in cards
        if (card.dark and not PATTERN_DARK) or not all(inked[number_of[id(frame)]] for frame in card.corners)
    ]


def _unless_narrow_and_dark(cards: list[_Candidate], blobs: list[PaperBlob]) -> list[_Candidate]:
    """The cards less the dark ones read through a window far narrower than the frame's whole cards
    (NARROWEST_DARK_FACE of their median width): the cards of a frame are of one deck at about one
    distance, and a dark back's light lattice seen through a window half a card wide reads as a
    king (a window that narrow comes from a side the frame's edge or another card cut short)."""
    if not any(card.dark for card in cards):
        return cards  # most frames: white cards
    width = _cards_width(blobs, [])
    if width is None:
        return cards
    return [card for card in cards if not (card.dark and card.frame.width < NARROWEST_DARK_FACE * width)]


def _inked_all_over(planes: np.ndarray) -> np.ndarray:
    """For each normalised index window (vision.index_patch.normalise_all), whether every block
    of a PATTERN_GRID over it shows ink: PATTERN_INK of its pixels inked past half, or a mean ink
    of PATTERN_MEAN (a faint lattice). A back's lattice runs through the whole window, a face's
    index leaves paper round its glyphs: of 1,438 windows read at 0.5 or more on the training
    photos, 23 are inked all over (none of them a card the photos lose); of the windows read on
    pale and slanted casino backs, half or more."""
    columns, rows = PATTERN_GRID
    ink = np.ascontiguousarray(planes[:, 0])
    n, height, width = ink.shape
    # each block's mean, for all windows at once: an area resize of the windows stacked is exact
    # where the grid divides the window (the blocks of two windows never mix), and 7 times faster
    # than numpy's mean over a reshaped array's strided axes
    stacked = ink.reshape(n * height, width)
    blocks = (columns, n * rows)
    means = cv2.resize(stacked, blocks, interpolation=cv2.INTER_AREA)
    shares = cv2.resize((stacked > 0.5).astype(np.float32), blocks, interpolation=cv2.INTER_AREA)
    shown = (shares >= PATTERN_INK) | (means >= PATTERN_MEAN)
    inked: np.ndarray = np.asarray(shown.reshape(n, rows * columns).all(axis=1))
    return inked


def _unless_inside_a_lone_card(cards: list[_Candidate], blobs: list[PaperBlob]) -> list[_Candidate]:
    """The cards less those read at a corner inside a lone card of paper read as another card:
    a whole blob (one card filling its box) that one card is read at two opposite index corners
    of is that card alone, and any other corner in it is of its own print. A court card's
    picture frame parts its paper into smaller blobs at a stricter whiteness, whose corners
    inside the card read its pips as an index (IMG_2592's queen of clubs: two sevens of spades
    at acting confidence, each outlined over the cloth or the next card)."""
    alone: list[tuple[int, _Candidate]] = []
    for card in cards:
        blob = blobs[card.frame.blob]
        if blob.whole and any(
            _opposite_corners(one, other)
            for n, one in enumerate(card.corners)
            for other in card.corners[n + 1 :]
        ):
            alone.append((card.frame.blob, card))
    if not alone:
        return cards

    def inside_another(card: _Candidate) -> bool:
        return any(
            number != card.frame.blob
            and (other.read.rank, other.read.suit) != (card.read.rank, card.read.suit)
            and cv2.pointPolygonTest(blobs[number].contour, card.frame.point, True)
            >= LONE_CARD_MARGIN * card.frame.width
            for number, other in alone
        )

    return [card for card in cards if not inside_another(card)]


def _corners_lit(patches: np.ndarray) -> np.ndarray:
    """For each index window (as cut for the classifier), whether anything in it stands PRINT_RISE
    above the window's level: a cheap first look for print (vision.faces.light_print decides)."""
    n = len(patches)
    if n == 0:
        return np.zeros(0, bool)
    planes = patches.reshape(n, -1, 3)
    # channel by channel: a max over a length-3 last axis is numpy's slowest reduction
    values = np.maximum(np.maximum(planes[..., 0], planes[..., 1]), planes[..., 2])
    middle, high = values.shape[1] // 2, values.shape[1] * 49 // 50
    ranked = np.partition(values, (middle, high), axis=1)
    lit: np.ndarray = ranked[:, high].astype(np.int16) - ranked[:, middle] >= PRINT_RISE
    return lit


def _outline_on(
    blob: PaperBlob, masks: _BlobMasks, frame: CornerFrame, size: tuple[int, ...], anchored: bool
) -> np.ndarray | None:
    """The outline of a dark card from one of its corners: of SEEN_ASPECTS, those that stay within
    the frame (of shape ``size``) and on the dark blob (``frame.blob`` of ``masks``), the one whose
    opposite corner lies nearest the blob's edge (a taller one would run over a card the blob has
    merged with). Not ``anchored`` by a read at the corner, an outline in view must have that
    corner on the edge: a wrong width guess would cut a second card out of one. The outline may
    also run off the frame (a card cut by the photo's edge), at CUT_ASPECTS too, with its part in
    view on the blob and the blob that card alone (not ``anchored``, only with CUT_ALONE); one whose
    opposite corner lies beyond the frame is then preferred: the card's end is not in view to be
    nearest to."""
    best: tuple[float, np.ndarray] | None = None
    for aspect in SEEN_ASPECTS + CUT_ASPECTS:
        quad = frame.card_quad(aspect)
        cut = not in_frame(quad, size)
        if aspect in CUT_ASPECTS and not cut:
            continue  # a card seen whole is no longer than SEEN_ASPECTS
        if cut and not anchored and not CUT_ALONE:
            continue  # without a read, a guessed corner's outline must end on the blob, in view
        if cut and masks.covered(frame.blob, quad) < ONE_CARD_BLOB:
            continue  # the blob runs beyond this card: a keyboard or a screen at the frame's edge
        if masks.share_on(frame.blob, quad) < ON_DARK_CARD:
            continue  # the outline runs off the dark card: the print could be another's
        if cut and not in_frame(quad[2:3], size):
            far = 0.0  # the card runs on beyond the frame: its end is not in view
        else:
            far = abs(cv2.pointPolygonTest(blob.contour, (float(quad[2][0]), float(quad[2][1])), True))
        if best is None or far < best[0]:
            best = (far, quad)
    if best is None or (not anchored and best[0] > FAR_CORNER * frame.width):
        return None
    return best[1]


def _a_backs_pattern(
    blobs: list[PaperBlob], read_at: CornerFrame, rank: int, frames: list[CornerFrame], reads: list[IndexRead]
) -> bool:
    """Whether a dark card read as ``rank`` at ``read_at`` shows ranks at two neighbouring corners: the
    classifier read a back's lattice as an index (the second look agrees with a repeated
    pattern). A face's index is at two opposite corners: one rank read at PATTERN_PLACES corners
    of the outline or more, and at PATTERN_SHARE of them, is a pattern. A card lying alone is looked at by its
    box; one merged with others at the corners one width across and one height down from the
    read (at any seen aspect) on its blob, for the same rank (the next card of a row lies one
    width across, its index read there: another rank, most often)."""
    blob = read_at.blob
    places: list[np.ndarray] = []  # the blob's distinct corner places, and where this rank is read
    ranked: list[bool] = []
    for frame, read in zip(frames, reads, strict=True):
        if frame.blob != blob:
            continue
        here = np.array(frame.point)
        same = read.rank == rank and read.rank_p >= READ_CONFIDENCE
        for k, place in enumerate(places):
            if float(np.hypot(*(here - place))) <= NEIGHBOUR_NEAR * frame.width:
                ranked[k] = ranked[k] or same
                break
        else:
            places.append(here)
            ranked.append(same)
    if sum(ranked) >= PATTERN_PLACES and sum(ranked) >= PATTERN_SHARE * len(places):
        return True  # one rank read at most corners of the outline: a pattern, not two index corners
    if blobs[blob].whole:
        box = cv2.boxPoints(cv2.minAreaRect(blobs[blob].contour)).astype(np.float32)
        return _ranks_at_adjacent_corners(box, blob, frames, reads)
    point = np.array(read_at.point)
    across = np.array(read_at.across) * read_at.width
    down = np.array(read_at.down) * read_at.width
    neighbours = [point + across] + [point + down * aspect for aspect in SEEN_ASPECTS]
    near = NEIGHBOUR_NEAR * read_at.width
    for frame, read in zip(frames, reads, strict=True):
        if frame.blob != blob or read.rank != rank or read.rank_p < READ_CONFIDENCE:
            continue
        if any(float(np.hypot(*(np.array(frame.point) - n))) <= near for n in neighbours):
            return True
    return False


def _ranks_by_corner(
    box: np.ndarray, blob: int, frames: list[CornerFrame], reads: list[IndexRead]
) -> tuple[set[int], dict[int, list[IndexRead]]]:
    """The corners of the card ``box`` (its rotated box's four corners in order) on blob number
    ``blob`` that corner frames looked at, and the first looks' rank reads (READ_CONFIDENCE or
    more) at each."""
    length = max(_side_lengths(box))
    looked: set[int] = set()
    ranks: dict[int, list[IndexRead]] = {}
    for frame, read in zip(frames, reads, strict=True):
        if frame.blob != blob:
            continue
        distances = np.hypot(*(box - np.array(frame.point)).T)
        corner = int(np.argmin(distances))
        if distances[corner] > CORNER_NEAR * length:
            continue
        looked.add(corner)
        if read.rank != NONE_RANK and read.rank_p >= READ_CONFIDENCE:
            ranks.setdefault(corner, []).append(read)
    return looked, ranks


def _index_corners_only(
    box: np.ndarray, blob: int, frames: list[CornerFrame], reads: list[IndexRead]
) -> bool:
    """Whether the classifier's first look saw one rank, at FACE_RANK_P or more, at two opposite
    corners of the card ``box`` on blob number ``blob``, and no rank at all (none at
    READ_CONFIDENCE) at the other two, looked at too: a face's index corners and its pip corners.
    A back's pattern is the same at its four corners."""
    looked, ranks = _ranks_by_corner(box, blob, frames, reads)

    def sure(corner: int) -> set[int]:
        return {read.rank for read in ranks.get(corner, []) if read.rank_p >= FACE_RANK_P}

    for index_pair, pip_pair in (((0, 2), (1, 3)), ((1, 3), (0, 2))):
        if (
            sure(index_pair[0]) & sure(index_pair[1])
            and set(pip_pair) <= looked
            and not set(pip_pair) & set(ranks)
        ):
            return True
    return False


def _ranks_at_adjacent_corners(
    box: np.ndarray, blob: int, frames: list[CornerFrame], reads: list[IndexRead]
) -> bool:
    """Whether the first looks read a rank at two neighbouring corners of the card ``box``: a
    face's index is at two opposite corners, and a back's pattern, alike at all four, is what
    shows one at neighbours."""
    _, ranks = _ranks_by_corner(box, blob, frames, reads)
    return any(corner in ranks and (corner + 1) % 4 in ranks for corner in range(4))


def _side_lengths(quad: np.ndarray) -> np.ndarray:
    """Each side's length, from each corner to the next, of a quadrilateral (4, 2) or of a stack of
    them (n, 4, 2): (4,) or (n, 4)."""
    lengths: np.ndarray = np.linalg.norm(quad[..., _AFTER, :] - quad, axis=-1)
    return lengths


def _short_side(quad: np.ndarray) -> float:
    return float(min(_side_lengths(quad)))


def _white_inside(white: np.ndarray, quad: np.ndarray) -> float:
    """The share of white paper in the card's inner 70 %, inside its border."""
    centre = quad.mean(axis=0)
    inner = (centre + (quad - centre) * 0.7).astype(np.int32)
    mask = np.zeros(white.shape, np.uint8)
    cv2.fillConvexPoly(mask, inner, 1)
    count = int(mask.sum())
    return float((white & (mask > 0)).sum()) / count if count else 0.0


def _confirm_weakly(cards: list[_Candidate], frames: list[CornerFrame], reads: list[IndexRead]) -> None:
    """A card read at one index corner only, below acting confidence: its opposite index corner
    read as the same card below READ_CONFIDENCE still agrees (two windows apart reading one rank
    and one suit alike by chance is unlikely), where that is the surest read there."""
    unsure = [
        card
        for card in cards
        if not (card.agreeing or card.disagreeing or card.dark) and card.read.confidence < ACT_CONFIDENCE
    ]
    if not unsure:
        return  # a frame of cards read surely (the ten-card frames): nothing to build
    weak = [
        _Candidate(frame, read, frame.card_quad())
        for frame, read in zip(frames, reads, strict=True)
        if read.is_index and WEAK_CONFIRM <= read.confidence < READ_CONFIDENCE
    ]
    for card in unsure:
        there = [w for w in weak if _across_the_card(card, w)]
        if not there:
            continue
        best = max(there, key=lambda w: w.read.confidence)
        if (best.read.rank, best.read.suit) == (card.read.rank, card.read.suit):
            card.agreeing.append(best.read)
            card.corners.append(best.frame)


def _corners_read(frames: list[CornerFrame]) -> int:
    """How many of a card's corners ``frames`` lie at: two width guesses at one corner are one."""
    return sum(
        not any(_at_one_corner(earlier, frame) for earlier in frames[:n]) for n, frame in enumerate(frames)
    )


def _same_card(card: _Candidate, other: _Candidate) -> bool:
    """Two reads are of one card when they are at one corner (two width guesses; at any corner where
    the card was read alike), or at its two index corners (_across_the_card). Cards of a fan
    overlap, so an overlap of the estimated outlines would merge neighbours."""
    return any(_at_one_corner(frame, other.frame) for frame in card.corners) or _across_the_card(card, other)


def _across_the_card(card: _Candidate, other: _Candidate, seen_aspects: bool = False) -> bool:
    """``other`` at the opposite index corner of one of the card's outlines on its blob, and the
    card at the opposite corner of ``other``'s (two overlapping cards of one deck can put one's
    opposite corner near the other's index corner, not both). ``seen_aspects``: also where a
    slanted view puts them, between frames of about one width (_alike_widths)."""
    return any(
        _opposite_corners(frame, other.frame, seen_aspects and _alike_widths(frame, other.frame))
        for frame in card.outlines
    )


def _opposite_corners(one: CornerFrame, other: CornerFrame, seen_aspects: bool = False) -> bool:
    """Each of two frames at the other's opposite index corner: one card's two index corners."""
    return _at_opposite_corner(one, other, seen_aspects) and _at_opposite_corner(other, one, seen_aspects)


def _at_one_corner(one: CornerFrame, other: CornerFrame) -> bool:
    """Two frames at one corner of one card: about one point, one edge running across (the
    corners of two cards can touch, turned differently)."""
    # plain floats: a frame's merge makes thousands of these tests, and numpy's cost is per call
    (px, py), (qx, qy) = one.point, other.point
    return (
        math.hypot(px - qx, py - qy) < 0.2 * one.width
        and one.across[0] * other.across[0] + one.across[1] * other.across[1] > SAME_CORNER_ACROSS
    )


def _at_opposite_corner(one: CornerFrame, other: CornerFrame, seen_aspects: bool = False) -> bool:
    """``other`` sits at the corner of ``one``'s card opposite ``one``, turned half round: the
    card's other index corner. Where ``one.card_quad()`` puts it (within a quarter of the width);
    with ``seen_aspects`` also anywhere a slanted view puts it (OPPOSITE_ASPECTS)."""
    facing = one.across[0] * other.across[0] + one.across[1] * other.across[1]
    if facing >= -0.8:
        return False
    # card_quad's far corner, in plain floats (the merge asks this thousands of times a frame)
    reach = one.width * CARD_ASPECT
    far_x = one.point[0] + one.across[0] * one.width + one.down[0] * reach
    far_y = one.point[1] + one.across[1] * one.width + one.down[1] * reach
    if math.hypot(far_x - other.point[0], far_y - other.point[1]) < 0.25 * one.width:
        return True
    if not seen_aspects:
        return False
    # a slanted view shortens the card (card_quad draws the poker aspect): the offset is measured
    # in the frame's own sides (a slanted view shears them: cam_image20's queen) or square to its
    # 'across' (where its 'down' is a neighbour's edge: IMG_2672's nine on a ten)
    dx, dy = other.point[0] - one.point[0], other.point[1] - one.point[1]
    (ax, ay), (bx, by) = one.across, one.down
    det = ax * by - ay * bx
    bases = [(ax, ay, -ay, ax)] + ([(ax, ay, bx, by)] if abs(det) > 0.5 else [])
    return any(_slanted_far_corner(dx, dy, basis, one.width) for basis in bases)


def _slanted_far_corner(dx: float, dy: float, basis: tuple[float, float, float, float], width: float) -> bool:
    """Whether the offset (dx, dy) from a card's index corner, in the basis (across x, y, down x,
    y), lands where a card of about ``width`` seen at OPPOSITE_ASPECTS has its other index corner."""
    ax, ay, bx, by = basis
    det = (ax * by - ay * bx) * width
    across = (dx * by - dy * bx) / det
    down = (ax * dy - ay * dx) / det
    low, high = OPPOSITE_ASPECTS
    # the aspect the two corners themselves show (down over across), not the width guess's:
    # a guess too wide makes any rectangle look like a card seen slanted (IMG_2618)
    return abs(across - 1.0) < 0.25 and low <= down / across <= high


def _alike_widths(one: CornerFrame, other: CornerFrame) -> bool:
    """Two frames guess about one card width (within SLANTED_WIDTHS of each other): a card's two
    index corners seen slanted are still one width apart (IMG_2618: a ten's corner read through a
    window half again its width measures the king beside it as a square card)."""
    return max(one.width, other.width) <= SLANTED_WIDTHS * min(one.width, other.width)


def _confirmed_at_opposite_corners(
    frames: list[CornerFrame], reads: list[IndexRead], chosen: list[int]
) -> set[int]:
    """The reads among ``chosen`` that another read of the same card confirms from the card's
    opposite index corner (each confirms the other)."""
    confirmed: set[int] = set()
    for n, i in enumerate(chosen):
        for j in chosen[n + 1 :]:
            if (reads[i].rank, reads[i].suit) != (reads[j].rank, reads[j].suit):
                continue
            loose = (
                OPPOSITE_SEEN_ASPECTS
                and min(reads[i].confidence, reads[j].confidence) >= SLANTED_CONFIRM_P
                and _alike_widths(frames[i], frames[j])
            )
            if _opposite_corners(frames[i], frames[j], loose):
                confirmed.update((i, j))
    return confirmed


def _confirmed(confidence: float, other: float) -> float:
    """A read's confidence with another index corner of the card agreeing (at ``other``): both
    wrong alike is much less likely than one."""
    return 1.0 - (1.0 - confidence) * (1.0 - other)


def _unless_unprinted(sighting: CardSighting, card: _Candidate, window: np.ndarray) -> CardSighting:
    """A dark card read where its index window (``window``, as the first look cut it) shows too
    little light print for an index (vision.faces.index_printed) is no face: a
    dark back's lattice, its faint lines lifted by the classifier's normalising, read as a king at
    0.55-0.85 (casino backs overlapping or seen across the table). Unknown, not face up: a face up
    at a seat is an exposed-card ruling. A paper card's index is dark ink: not looked at here."""
    if not card.dark or sighting.card is None or index_printed(window):
        return sighting
    why = f"read as {sighting.card} at {sighting.confidence:.2f} on a dark card, no print at its index"
    return CardSighting(sighting.corners, Facing.UNKNOWN, None, None, 0.0, why)


def _on_a_dark_card(confidence: float, why: str) -> tuple[float, str]:
    """A card read on a dark card, its confidence held at DARK_CARD_CONFIDENCE: light print on a
    dark card is face up for certain, its name only shown, not acted on."""
    if confidence > DARK_CARD_CONFIDENCE:
        return DARK_CARD_CONFIDENCE, why + ", dark card: not acted on"
    return confidence, why


def _merged_finer(
    kept: list[tuple[CardSighting, float]], finer: list[CardSighting], level: float
) -> list[tuple[CardSighting, float]]:
    """The sightings ``kept`` from coarser levels (each with its level) and those of a finer
    ``level``. A finer sighting on a card a coarser level named WELL_SEEN_WIDTH wide or more, or
    called face down, is that card again or a part of it: left out. Where the coarser card was
    named narrower, the finer read stands for it when surer or naming another card, and two names
    at acting confidence hold the card below it. A coarser sighting neither named nor face down
    (a pile seen as one blob) gives way to the finer cards named on it."""
    result = list(kept)
    for sighting in finer:
        on = [n for n, (other, _) in enumerate(result) if _on_one_another(sighting, other)]
        named = [n for n in on if result[n][0].card is not None]
        if any(
            result[n][0].facing is Facing.DOWN
            or (n in named and _short_side(np.array(result[n][0].corners)) * result[n][1] >= WELL_SEEN_WIDTH)
            for n in on
        ):
            continue
        if named:
            n = max(named, key=lambda k: result[k][0].confidence)
            other = result[n][0]
            if sighting.card is None or (
                sighting.card == other.card and sighting.confidence <= other.confidence
            ):
                continue
            if sighting.card != other.card and min(sighting.confidence, other.confidence) >= ACT_CONFIDENCE:
                held = replace(
                    other,
                    confidence=LEVELS_DISAGREE_CONFIDENCE,
                    why=f"{other.why}, read as {sighting.card} at another scale",
                )
                result[n] = (held, result[n][1])
            else:
                result[n] = (sighting, level)
            continue
        if sighting.card is None and on:
            continue  # an unnamed finer sighting where a coarser level saw a card already
        result = [entry for k, entry in enumerate(result) if k not in on]
        result.append((sighting, level))
    return result


def _on_one_another(one: CardSighting, other: CardSighting) -> bool:
    """Whether either sighting's centre lies on the other's outline."""
    return (
        cv2.pointPolygonTest(np.array(other.corners, np.float32), one.centre, False) >= 0
        or cv2.pointPolygonTest(np.array(one.corners, np.float32), other.centre, False) >= 0
    )


def _lone_card_box(blob: PaperBlob, shape: tuple[int, ...]) -> tuple[np.ndarray, float, float] | None:
    """The rotated box of a blob that fills it as one card alone does (ONE_CARD_FILL), at least a
    readable card wide and clear of the frame's edge (a box cut there is not the card's): its four
    corners, its short side and its long side; else None."""
    rect = cv2.minAreaRect(blob.contour)
    short, long = sorted(rect[1])
    if short < MIN_CARD_WIDTH_PX or cv2.contourArea(blob.contour) <= ONE_CARD_FILL * short * long:
        return None
    quad = cv2.boxPoints(rect).astype(np.float32)
    height, width = shape[:2]
    if (
        quad[:, 0].min() < 2
        or quad[:, 1].min() < 2
        or quad[:, 0].max() > width - 3
        or quad[:, 1].max() > height - 3
    ):
        return None
    return quad, short, long


def _a_faces_pips(count: int) -> bool:
    """Whether ``count`` marks alike are a face's pips: from a three's to a ten's (FACE_PIPS)."""
    return FACE_PIPS[0] <= count <= FACE_PIPS[1]


def _cards_width(blobs: list[PaperBlob], seen: list[np.ndarray]) -> float | None:
    """The median width of the cards found on a frame (``seen``) and of its whole blobs: the
    frame's cards are of one deck at about one distance. None when there is none."""
    widths = [_short_side(quad) for quad in seen] + [
        min(cv2.minAreaRect(blob.contour)[1]) for blob in blobs if blob.whole
    ]
    return float(np.median(widths)) if widths else None


def _card_round(
    centres: np.ndarray, width: float, squashed: tuple[float, tuple[float, float]] | None = None
) -> np.ndarray:
    """A card's outline (short side first) ``width`` wide and CARD_ASPECT long, centred on the
    pips at ``centres``, its long side along their longer extent. ``squashed`` (vision.faces.squash):
    the pips as a slanted view shows them, squashed to that share along that direction; the card
    is outlined on the pips stretched back and then squashed alike (a parallelogram, as a view
    across the table shows a card), ``width`` its width stretched back."""
    if squashed is not None:
        ratio, (ax, ay) = squashed
        axis = np.array([[ax], [ay]])
        stretch = np.eye(2) + (1.0 / ratio - 1.0) * (axis @ axis.T)  # 1/ratio along the axis
        middle = centres.mean(axis=0)
        upright = (centres - middle) @ stretch.T + middle
        quad = _card_round(upright.astype(np.float32), width)
        outline: np.ndarray = ((quad - middle) @ np.linalg.inv(stretch).T + middle).astype(np.float32)
        return outline
    (cx, cy), (w, h), angle = cv2.minAreaRect(centres)
    turn = math.radians(angle if w >= h else angle + 90.0)  # along the longer extent
    down = np.array([math.cos(turn), math.sin(turn)], np.float32)
    across = np.array([-down[1], down[0]], np.float32)
    centre = np.array([cx, cy], np.float32)
    a, d = across * width / 2, down * width * CARD_ASPECT / 2
    return np.array([centre - a - d, centre + a - d, centre + a + d, centre - a + d], np.float32)


def _overlap(one: np.ndarray, other: np.ndarray) -> float:
    """Intersection over the smaller of two convex quadrilaterals."""
    area, _ = cv2.intersectConvexConvex(np.asarray(one, np.float32), np.asarray(other, np.float32))
    smaller = min(abs(cv2.contourArea(one)), abs(cv2.contourArea(other)))
    return float(area) / smaller if smaller > 0 else 0.0


def _outline_by_first_look(card: _Candidate, first_reads: list[IndexRead]) -> np.ndarray:
    """A card read alike through several width guesses at its read corner is outlined at the guess
    whose own window read it most surely at the first look: the window at the card's width shows
    the index as the classifier learned it, and the second look's median can lift a window far too
    wide (IMG_2599's covered king, read at 225 px as surely as at its 162 px width, was outlined
    over the jack lying on it). ``first_reads``: the first look's read at each of the card's corners."""
    at_corner = [
        (read.confidence, n, frame)
        for n, (frame, read) in enumerate(zip(card.corners, first_reads, strict=True))
        if _at_one_corner(card.frame, frame)
    ]
    if len(at_corner) < 2:
        return card.quad
    best = max(at_corner, key=lambda place: (place[0], -place[1]))[2]
    return card.quad if best is card.frame else best.card_quad()


def _whole_card_outline(blob: PaperBlob, frame: CornerFrame, quad: np.ndarray) -> np.ndarray:
    """A card read at a corner of a whole paper card is that card's own four corners (from the
    read corner, clockwise), not the outline its corner's width draws: a slanted view makes the
    card a trapezoid, and the card's far corners are where the blob shows them."""
    if not blob.whole or blob.dark or len(blob.polygon) != 4:
        return quad
    polygon = clockwise(blob.polygon.astype(np.float32))
    distances = np.hypot(*(polygon - np.array(frame.point, np.float32)).T)
    nearest = int(np.argmin(distances))
    if distances[nearest] > 1.0:
        return quad  # read at an edge proposal or another blob's corner: not this card's vertex
    return polygon[[(nearest + k) % 4 for k in range(4)]]


def _distinct(widths: list[float]) -> list[float]:
    """Ascending ``widths`` less those within 10 % of the last one kept."""
    kept: list[float] = []
    for width in widths:
        if not kept or width > 1.1 * kept[-1]:
            kept.append(width)
    return kept


def _wider(frame: CornerFrame, factor: float) -> CornerFrame:
    """The frame's window guessed ``factor`` times as wide."""
    return frame._replace(width=frame.width * factor)


def _index_size(scale: float) -> float:
    if not valid_index_scale(scale):
        raise ValueError(f"index_scale {scale!r}: no index size")
    return scale


def _points(quad: np.ndarray, scale: float) -> tuple[tuple[float, float], ...]:
    return tuple((float(x) / scale, float(y) / scale) for x, y in quad)


def _dark_card_ls(work: BGRImage, blobs: list[PaperBlob]) -> list[CornerFrame]:
    """Corners of dark cards that their blob's outline hides, from straight edges: dark cards on
    light ground that touch or overlap are one dark blob (a queen of spades under a back, both
    black, beside a seven), whose simplified outline keeps few of their corners. Each L of two
    line segments (vision/segments.py) on such a blob, its inside on the blob and its outside
    lighter than the card's edge beyond its corner and both arms (the ground, not another dark
    card nor a back's lattice line), is a corner frame of that blob at the widths its two arms
    say. They are read apart from the blob's own frames (_with_segment_cards: named at acting
    confidence by the index reads and the pattern check alike, only where nothing was seen, the
    name then held below acting confidence as any dark card's). Only on a blob larger than a
    card and not one card alone (most frames have none: the detector costs milliseconds)."""
    merged = [k for k, blob in enumerate(blobs) if blob.dark and not blob.whole]
    if not merged:
        return []
    height, width = work.shape[:2]
    card_width = _cards_width(blobs, []) or _guessed_card_width(work.shape)
    most = SEGMENT_MOST_WIDTH * min(height, width)
    # a blob of one card's size or less: its outline has its corners
    large = [k for k in merged if _box_area(blobs[k]) >= DARK_L_CARDS * card_width**2 * CARD_ASPECT]
    if not large:
        return []
    detector = _SegmentsAt(work, DARK_L_SIDE)
    frames: list[CornerFrame] = []
    for number in large:
        contour = blobs[number].contour
        lines = detector.around(cv2.boundingRect(contour), DARK_L_STEP_PX)
        for corner in l_corners(lines, SEGMENT_ARM_WIDTH * card_width):
            point = np.array(corner.point, np.float32)
            across, down = np.array(corner.across, np.float32), np.array(corner.down, np.float32)
            inside = point + 0.3 * corner.across_length * across + 0.3 * corner.down_length * down
            if cv2.pointPolygonTest(contour, (float(inside[0]), float(inside[1])), False) < 0:
                continue
            if not _light_outside(detector.gray, corner):
                continue
            frames += [
                CornerFrame(corner.point, corner.across, corner.down, float(share * arm), number)
                for arm in (corner.across_length, corner.down_length / CARD_ASPECT)
                for share in DARK_L_WIDTHS
                if MIN_CARD_WIDTH_PX <= share * arm <= most
            ]
    return frames


def _box_area(blob: PaperBlob) -> float:
    """The area of the blob's rotated box (an upright box doubles a card turned 45 degrees)."""
    width, height = cv2.minAreaRect(blob.contour)[1]
    return float(width * height)


def _light_outside(gray: GrayImage, corner: LCorner) -> bool:
    """Whether ``corner`` is a dark card's on light ground: beyond its point and beyond the middle
    of each arm the image is lighter by DARK_L_CONTRAST than just inside. A dark back's lattice makes
    Ls too, each with a light line beyond its point, and dark field beyond its arms."""
    point = np.array(corner.point, np.float32)
    across, down = np.array(corner.across, np.float32), np.array(corner.down, np.float32)
    step = DARK_L_STEP_PX
    places = (
        (point, -step * (across + down)),  # the corner itself, along its diagonal
        (point + 0.5 * corner.across_length * across, -step * down),  # the middle of each arm
        (point + 0.5 * corner.down_length * down, -step * across),
    )
    for place, out in places:
        outside, inside = _mean_level(gray, place + out), _mean_level(gray, place - out)
        if outside is None or inside is None or outside - inside < DARK_L_CONTRAST:
            return False
    return True


def _mean_level(gray: GrayImage, point: np.ndarray) -> float | None:
    """The grey level round ``point`` (5 x 5 pixels), None off the image."""
    x, y = int(point[0]), int(point[1])
    if not (0 <= x < gray.shape[1] and 0 <= y < gray.shape[0]):
        return None
    return float(gray[max(0, y - 2) : y + 3, max(0, x - 2) : x + 3].mean())


def _guessed_card_width(shape: tuple[int, ...]) -> float:
    """A card's width on a frame where no card gives it: an eighth of the frame's shorter side."""
    return max(MIN_CARD_WIDTH_PX, 0.12 * min(shape[:2]))


class _SegmentsAt:
    """The frame's line segments (vision/segments.py), looked for at no more than ``side`` pixels
    on the long side, in the regions asked for; the lines in the frame's own pixels."""

    def __init__(self, work: BGRImage, side: int) -> None:
        self.gray: GrayImage = cv2.cvtColor(work, cv2.COLOR_BGR2GRAY)
        self.scale = min(1.0, side / max(work.shape[:2]))
        self._small: GrayImage = self.gray if self.scale == 1.0 else shrunk(self.gray, self.scale)

    def around(self, box: Sequence[float], margin: float) -> np.ndarray:
        """The segments (n, 4) in ``box`` (x, y, w, h, frame pixels) and ``margin`` pixels round it."""
        s, (height, width) = self.scale, self._small.shape[:2]
        x, y, w, h = box
        x0, y0 = max(0, int((x - margin) * s)), max(0, int((y - margin) * s))
        x1, y1 = min(width, int((x + w + margin) * s) + 1), min(height, int((y + h + margin) * s) + 1)
        found = segments(np.ascontiguousarray(self._small[y0:y1, x0:x1])) + np.array(
            [x0, y0, x0, y0], np.float32
        )
        # pixel centres: a shrunk pixel's centre is half a pixel in from its corner
        return (found + 0.5) / s - 0.5 if s < 1.0 else found
