"""The backs of the decks in use, learned from a few frames, and the match of a card to them.

A card room deals known decks: once their backs are learned (``tablectl vision calibrate
--backs``), "face down" is a match to one of them, not merely "no face showing". A back is
described inside its white border (the card's inner 70 %, warped upright so its angle does not
matter) by

- its colour: a histogram of hue x saturation (12 x 2 bins) for the coloured pixels
  and of 4 grey levels for the others (dark or unsaturated pixels, whose hue is noise), compared
  by the Bhattacharyya distance (0 the same, 1 nothing in common);
- its texture: a histogram of local binary patterns (8 neighbours, uniform patterns, with a
  small contrast threshold so that a plain back is one pattern and not noise), compared by half
  the L1 distance (0 to 1). The pattern of a back (lines, a lattice, a plain field) changes it;
  the light's colour and brightness hardly do.

Learning takes the median of the samples' histograms, leaves out the samples far from it (a face
among the backs: said, and never learned), and keeps the largest distances the others had from
their mean. A card matches a back when both distances are within twice those, neither tighter
than a floor nor looser than a ceiling: what the calibration frames showed, with room for the
table's light. The file is JSON.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

from vision.types import BGRImage, FloatArray

FORMAT = "tablectl-backs"
VERSION = 1
CARD_W, CARD_H = 50, 70  # the warped card, in pixels (poker size, 63.5 x 88.9 mm)
INNER = 0.15  # the part of each side left out: the white border of a casino back
HUES = 12  # of the coloured pixels, each in 2 saturations (no values: the light changes them)
GREYS = 4  # levels of the dark or unsaturated pixels
COLOUR_BINS = HUES * 2 + GREYS
COLOURED = 60  # saturation and value both at least this: the hue means something
TEXTURE_BINS = 10
LBP_THRESHOLD = 6  # grey levels: a neighbour brighter by less is not brighter
COLOUR_FLOOR, TEXTURE_FLOOR = 0.25, 0.15  # a learned limit is never tighter ...
COLOUR_CEILING, TEXTURE_CEILING = 0.6, 0.35  # ... nor looser
OUTLIER_COLOUR, OUTLIER_TEXTURE = 0.6, 0.2  # a sample this far from the median is not this back
MIN_SAMPLES = 3


class BacksError(ValueError):
    """A backs file that cannot be used, or a calibration that found too little: says why."""


@dataclass(frozen=True)
class Back:
    name: str  # the operator's name for the deck, e.g. "red"
    colour: tuple[float, ...]
    texture: tuple[float, ...]
    colour_limit: float
    texture_limit: float
    samples: int

    def distances(self, colour: FloatArray, texture: FloatArray) -> tuple[float, float]:
        return _colour_distance(np.array(self.colour, np.float32), colour), _texture_distance(
            np.array(self.texture, np.float32), texture
        )

    def as_json(self) -> dict[str, object]:
        return {
            "name": self.name,
            "colour": list(self.colour),
            "texture": list(self.texture),
            "colour_limit": self.colour_limit,
            "texture_limit": self.texture_limit,
            "samples": self.samples,
        }


MIN_INDEX_SCALE, MAX_INDEX_SCALE = 0.5, 3.0  # an index window this many times the standard one


def valid_index_scale(scale: float) -> bool:
    return math.isfinite(scale) and MIN_INDEX_SCALE <= scale <= MAX_INDEX_SCALE


@dataclass(frozen=True)
class Backs:
    """The table's decks as calibration learned them: their backs, the size of their faces' index
    against the standard window (1 for a normal index, more for a jumbo one), and whether their
    faces are four-colour (blue diamonds, green clubs): vision.calibrate.learn_faces. All the
    table's decks are of one make."""

    backs: tuple[Back, ...]
    index_scale: float = 1.0
    four_colour: bool = False
    # the faces were learned (index_scale and four_colour are the deck's, not the defaults): a
    # reader whose deck's index size is unknown watches for a jumbo index (vision/index_size.py)
    faces_learned: bool = False

    def __post_init__(self) -> None:
        if not valid_index_scale(self.index_scale):
            raise BacksError(f"index_scale {self.index_scale!r} is no index size")

    def match(self, image: BGRImage, quad: np.ndarray) -> Back | None:
        """The calibrated back the card at ``quad`` shows, if any (the closest of those within
        their limits)."""
        colour, texture = describe(image, quad)
        best: tuple[float, Back] | None = None
        for back in self.backs:
            c, t = back.distances(colour, texture)
            if c <= back.colour_limit and t <= back.texture_limit:
                score = c / back.colour_limit + t / back.texture_limit
                if best is None or score < best[0]:
                    best = (score, back)
        return best[1] if best else None

    def with_back(self, back: Back) -> Backs:
        """These backs with ``back`` added, or replacing the one of its name."""
        return replace(self, backs=tuple(b for b in self.backs if b.name != back.name) + (back,))


def upright(image: BGRImage, quad: np.ndarray, size: tuple[int, int] = (CARD_W, CARD_H)) -> BGRImage:
    """The card at ``quad`` (four corners in order around it) warped to ``size`` (width, height),
    its long side down, whichever corner the quad starts at (a quad whose first side is short
    starts the warp there)."""
    points = np.asarray(quad, np.float32).reshape(4, 2)
    if np.hypot(*(points[1] - points[0])) > np.hypot(*(points[2] - points[1])):
        points = np.roll(points, -1, axis=0)  # the first side is a short one
    return warped(image, points, size)


def warped(image: BGRImage, quad: np.ndarray, size: tuple[int, int]) -> BGRImage:
    """The quadrilateral ``quad`` (four corners, the first side along the top) warped to a
    rectangle of ``size`` (width, height), as given: ``upright`` first turns a card long side down."""
    card: BGRImage = cv2.warpPerspective(image, rectangle_matrix(quad, size), size, flags=cv2.INTER_AREA)
    return card


def rectangle_matrix(quad: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """The perspective transform that ``warped`` takes ``quad`` to a rectangle of ``size`` with:
    for other points (another card's corners) to be placed on the warped card."""
    width, height = size
    target = np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float32)
    matrix: np.ndarray = cv2.getPerspectiveTransform(np.asarray(quad, np.float32).reshape(4, 2), target)
    return matrix


def describe(image: BGRImage, quad: np.ndarray) -> tuple[FloatArray, FloatArray]:
    """The colour and texture histograms of the inside of the card at ``quad``."""
    card = upright(image, quad)
    dx, dy = round(CARD_W * INNER), round(CARD_H * INNER)
    inner = np.ascontiguousarray(card[dy : CARD_H - dy, dx : CARD_W - dx])
    hsv = cv2.cvtColor(inner, cv2.COLOR_BGR2HSV).reshape(-1, 3).astype(np.int32)
    hue, saturation, value = hsv[:, 0], hsv[:, 1], hsv[:, 2]
    coloured = (saturation >= COLOURED) & (value >= COLOURED)
    bins = np.where(
        coloured,
        (hue * HUES // 180) * 2 + (saturation >= 150),
        HUES * 2 + np.minimum(value * GREYS // 256, GREYS - 1),
    )
    counts = np.bincount(bins, minlength=COLOUR_BINS).astype(np.float32)
    colour_hist: FloatArray = counts / max(float(counts.sum()), 1.0)
    gray = cv2.GaussianBlur(cv2.cvtColor(inner, cv2.COLOR_BGR2GRAY), (3, 3), 0)
    return colour_hist, _lbp_histogram(gray)


def _lbp_histogram(gray: np.ndarray) -> FloatArray:
    """Uniform local binary patterns: 0..8 ones in one run, 9 for the rest; as fractions."""
    g = gray.astype(np.int16)
    centre = g[1:-1, 1:-1]
    h, w = g.shape
    offsets = ((0, 0), (0, 1), (0, 2), (1, 2), (2, 2), (2, 1), (2, 0), (1, 0))  # around, in order
    bits = np.stack([g[y : h - 2 + y, x : w - 2 + x] >= centre + LBP_THRESHOLD for y, x in offsets])
    ones = bits.sum(axis=0)
    transitions = (bits != np.roll(bits, 1, axis=0)).sum(axis=0)
    labels = np.where(transitions <= 2, ones, 9)
    counts = np.bincount(labels.ravel(), minlength=TEXTURE_BINS).astype(np.float32)
    result: FloatArray = counts / max(float(counts.sum()), 1.0)
    return result


def _colour_distance(one: FloatArray, other: FloatArray) -> float:
    return float(cv2.compareHist(one, other, cv2.HISTCMP_BHATTACHARYYA))


def _texture_distance(one: FloatArray, other: FloatArray) -> float:
    return float(np.abs(one - other).sum() / 2.0)


def learn(name: str, samples: Sequence[tuple[BGRImage, np.ndarray]]) -> tuple[Back, int]:
    """A back from cards showing it, (frame, the card's four corners) each; and how many of the
    samples were left out as unlike the others (a face among the backs)."""
    described = [describe(image, quad) for image, quad in samples]
    if described:
        colour_median = np.median(np.array([c for c, _ in described]), axis=0).astype(np.float32)
        colour_median /= max(float(colour_median.sum()), 1e-9)
        texture_median = np.median(np.array([t for _, t in described]), axis=0).astype(np.float32)
        texture_median /= max(float(texture_median.sum()), 1e-9)
        kept = [
            (c, t)
            for c, t in described
            if _colour_distance(colour_median, c) <= OUTLIER_COLOUR
            and _texture_distance(texture_median, t) <= OUTLIER_TEXTURE
        ]
    else:
        kept = []
    if len(kept) < MIN_SAMPLES:
        unlike = (
            f" ({len(described) - len(kept)} unlike the others left out)"
            if len(kept) < len(described)
            else ""
        )
        raise BacksError(
            f"{len(kept)} face-down card(s) of one back found{unlike}: give frames with at least "
            f"{MIN_SAMPLES} cards of the {name} deck face down, whole and apart, and no other card"
        )
    colours = np.array([c for c, _ in kept])
    textures = np.array([t for _, t in kept])
    colour, texture = colours.mean(axis=0).astype(np.float32), textures.mean(axis=0).astype(np.float32)
    colour_spread = max(_colour_distance(colour, c) for c in colours)
    texture_spread = max(_texture_distance(texture, t) for t in textures)
    back = Back(
        name,
        tuple(float(v) for v in colour),
        tuple(float(v) for v in texture),
        min(COLOUR_CEILING, max(COLOUR_FLOOR, 2.0 * colour_spread)),
        min(TEXTURE_CEILING, max(TEXTURE_FLOOR, 2.0 * texture_spread)),
        len(kept),
    )
    return back, len(described) - len(kept)


def save_backs(backs: Backs, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(
        {
            "format": FORMAT,
            "version": VERSION,
            "backs": [b.as_json() for b in backs.backs],
            "index_scale": backs.index_scale,
            "four_colour": backs.four_colour,
            "faces_learned": backs.faces_learned,
        },
        indent=1,
    )
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(text + "\n", encoding="utf-8")
    temporary.replace(path)  # a reader never sees half a file


def load_backs(path: Path) -> Backs:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BacksError(
            f"{path}: no such file: learn the backs with tablectl vision calibrate --backs"
        ) from None
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise BacksError(f"{path}: not a backs file ({error}): learn the backs again") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("version") != VERSION:
        raise BacksError(f"{path}: not a {FORMAT} file of version {VERSION}: learn the backs again")
    backs = []
    for entry in data.get("backs", []):
        try:
            back = Back(
                str(entry["name"]),
                _numbers(entry["colour"], COLOUR_BINS),
                _numbers(entry["texture"], TEXTURE_BINS),
                float(entry["colour_limit"]),
                float(entry["texture_limit"]),
                int(entry["samples"]),
            )
        except (KeyError, TypeError, ValueError) as error:
            raise BacksError(f"{path}: a back is damaged ({error}): learn the backs again") from None
        backs.append(back)
    # absent from files written before faces were calibrated: the standard index
    scale = data.get("index_scale", 1.0)
    if not isinstance(scale, (int, float)) or isinstance(scale, bool) or not valid_index_scale(scale):
        raise BacksError(
            f"{path}: index_scale {scale!r} is no index size ({MIN_INDEX_SCALE:g}-{MAX_INDEX_SCALE:g}): "
            "set it to 1 (a normal index), then learn the faces again with tablectl vision calibrate --faces"
        )
    four_colour = data.get("four_colour", False)  # absent likewise: two colours
    if not isinstance(four_colour, bool):
        raise BacksError(
            f"{path}: four_colour {four_colour!r} is neither true nor false: set it to false (true "
            "for a deck with blue diamonds and green clubs)"
        )
    # absent likewise; a file that gives an index size other than 1 had its faces learned
    faces_learned = data.get("faces_learned", scale != 1)
    if not isinstance(faces_learned, bool):
        raise BacksError(
            f"{path}: faces_learned {faces_learned!r} is neither true nor false: learn the faces again "
            "with tablectl vision calibrate --faces"
        )
    return Backs(tuple(backs), float(scale), four_colour, faces_learned)


def _numbers(values: Iterable[object], count: int) -> tuple[float, ...]:
    numbers = tuple(float(v) for v in values)  # type: ignore[arg-type]
    if len(numbers) != count or not all(math.isfinite(v) for v in numbers):
        raise ValueError(f"expected {count} numbers")
    return numbers
