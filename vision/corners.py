"""Card outlines and their corners on one frame, with no knowledge of what is printed on them.

A card is found as a blob of paper (white faces, or a dark card on a light cloth) whose outline
has convex corners of about 90 degrees. Overlapping and fanned cards merge into one blob, but each
card's index corner stays a convex right-angled vertex of the union, so the reader works on
corners, not on whole cards: every corner becomes a frame (its point, the card's short and long
edge directions, a card width) from which the index window is cut.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.types import BGRImage, GrayImage

CARD_ASPECT = 88.9 / 63.5  # poker size, 3.5 x 2.5 in; bridge size (3.5 x 2.25) is read as well
MIN_CARD_WIDTH_PX = 24  # below this a rank glyph is under ~8 px high: unreadable (docs/vision.md)
FIND_SIDE = 400  # pixels: the long side at which outlines are looked for
CORNER_ANGLE_RANGE = (62.0, 118.0)  # degrees: a card corner seen with some perspective


@dataclass(frozen=True)
class CornerFrame:
    """A hypothesis: a card's corner at ``point``, its short edge along ``across`` (unit vector)
    and its long edge along ``down``; ``across`` to ``down`` turns clockwise on the image (y down),
    which is what makes the index of a top-left or bottom-right corner read upright."""

    point: tuple[float, float]
    across: tuple[float, float]
    down: tuple[float, float]
    width: float  # the card's short side, in pixels
    blob: int  # which paper blob it came from

    def card_quad(self) -> np.ndarray:
        """The card's four corners if it were whole: from this corner, clockwise."""
        p = np.array(self.point)
        a = np.array(self.across) * self.width
        d = np.array(self.down) * self.width * CARD_ASPECT
        return np.array([p, p + a, p + a + d, p + d], dtype=np.float32)


@dataclass(frozen=True)
class PaperBlob:
    contour: np.ndarray  # (n, 1, 2) int32, as cv2 gives it
    polygon: np.ndarray  # (m, 2) float32, the simplified outline
    dark: bool  # a dark card on a light surface (its face, or its back)
    whole: bool = False  # one card alone, filling its rotated rectangle: its corners are that rectangle's


WHITENESS_LEVELS = (100, 130, 170, 210, 235)


def whiteness(image: BGRImage) -> GrayImage:
    """Bright and unsaturated scores high: card paper, under any light that is roughly white."""
    hsv = cv2.cvtColor(image, cv2.COLOR_BGR2HSV)
    score = hsv[:, :, 2].astype(np.int16) - hsv[:, :, 1].astype(np.int16)
    return np.clip(score, 0, 255).astype(np.uint8)


def paper_masks(image: BGRImage) -> list[GrayImage]:
    """White paper at several levels of whiteness: a card on a light cloth separates from it only
    at a high level, a card in shadow appears only at a low one (no single cut-off fits both)."""
    score = whiteness(image)
    return [(score >= level).astype(np.uint8) * 255 for level in WHITENESS_LEVELS]


def dark_card_mask(image: BGRImage) -> GrayImage:
    """A dark card on a light surface: the inverse polarity, kept only when the surface is light."""
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    otsu, mask = cv2.threshold(gray, 0, 255, cv2.THRESH_BINARY_INV + cv2.THRESH_OTSU)
    light = gray[mask == 0]
    if light.size == 0 or float(np.median(light)) < 150 or otsu > 140:
        return np.zeros_like(gray)
    return mask


def _blobs(mask: GrayImage, min_area: float, dark: bool) -> list[PaperBlob]:
    kernel = np.ones((3, 3), np.uint8)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, kernel)
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    blobs: list[PaperBlob] = []
    max_area = 0.6 * mask.shape[0] * mask.shape[1]  # the table itself, not a card
    for contour in contours:
        area = cv2.contourArea(contour)
        if not min_area <= area <= max_area:
            continue
        (_, _), (w, h), _ = cv2.minAreaRect(contour)
        ratio = max(w, h) / max(min(w, h), 1.0)
        whole = area >= 0.88 * w * h and 1.2 < ratio < 1.75
        # a dark blob is a card only if it is card-shaped: a quadrilateral that fills its box
        if dark and (area < 0.8 * w * h or not 1.15 < ratio < 1.8):
            continue
        epsilon = 0.012 * cv2.arcLength(contour, True)
        polygon = cv2.approxPolyDP(contour, epsilon, True).reshape(-1, 2).astype(np.float32)
        if len(polygon) >= 3:
            blobs.append(PaperBlob(contour, polygon, dark, whole))
    return blobs


def find_blobs(image: BGRImage) -> list[PaperBlob]:
    """Outlines are found at no more than FIND_SIDE pixels (a card's corner moves by under a pixel
    of the full frame) and returned in the full frame's coordinates, where the index is cut."""
    scale = min(1.0, FIND_SIDE / max(image.shape[:2]))
    small = (
        image if scale == 1.0 else cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    )
    h, w = small.shape[:2]
    min_width = MIN_CARD_WIDTH_PX * scale
    min_area = max(0.4 * min_width * min_width * CARD_ASPECT, 0.0015 * h * w)
    blobs = _without_same_blobs(
        [blob for mask in paper_masks(small) for blob in _blobs(mask, min_area, dark=False)]
    )
    blobs += _blobs(dark_card_mask(small), min_area, dark=True)
    if scale == 1.0:
        return blobs
    return [
        PaperBlob((blob.contour / scale).astype(np.int32), blob.polygon / scale, blob.dark, blob.whole)
        for blob in blobs
    ]


def _without_same_blobs(blobs: list[PaperBlob]) -> list[PaperBlob]:
    """A card alone on the cloth is the same blob at every whiteness level: keep it once."""
    kept: list[PaperBlob] = []
    boxes: list[tuple[int, ...]] = []
    # a whole card found at one level is not looked for again inside itself at the others
    for blob in sorted(blobs, key=lambda b: not b.whole):
        box = tuple(cv2.boundingRect(blob.contour))
        tolerance = max(2, int(0.03 * max(box[2], box[3])))
        if any(all(abs(a - b) <= tolerance for a, b in zip(box, other, strict=True)) for other in boxes):
            continue
        centre = (box[0] + box[2] / 2, box[1] + box[3] / 2)
        if any(
            k.whole and o[0] <= centre[0] <= o[0] + o[2] and o[1] <= centre[1] <= o[1] + o[3]
            for k, o in zip(kept, boxes, strict=True)
        ):
            continue
        kept.append(blob)
        boxes.append(box)
    return kept


def _orientation(polygon: np.ndarray) -> float:
    """Positive when the polygon runs clockwise on the image (y down)."""
    x, y = polygon[:, 0], polygon[:, 1]
    return float(np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y))


def corner_frames(blobs: list[PaperBlob], image_shape: tuple[int, ...]) -> list[CornerFrame]:
    """Every convex right-angled vertex of every blob, as one or more corner frames (one per
    plausible card width: the edges that meet at a corner of overlapping cards are often cut short
    by the card on top)."""
    frames: list[CornerFrame] = []
    h, w = image_shape[:2]
    low, high = (math.cos(math.radians(a)) for a in CORNER_ANGLE_RANGE)
    for index, blob in enumerate(blobs):
        poly = blob.polygon.astype(np.float64)
        if _orientation(poly) < 0:
            poly = poly[::-1]
        to_prev = np.roll(poly, 1, axis=0) - poly
        to_next = np.roll(poly, -1, axis=0) - poly
        len_prev = np.hypot(to_prev[:, 0], to_prev[:, 1])
        len_next = np.hypot(to_next[:, 0], to_next[:, 1])
        u_prev = to_prev / np.maximum(len_prev, 1e-9)[:, None]
        u_next = to_next / np.maximum(len_next, 1e-9)[:, None]
        cosine = np.sum(u_prev * u_next, axis=1)
        # convex on a clockwise outline: from the incoming edge (-to_prev) to the outgoing one turns clockwise
        turn = -to_prev[:, 0] * to_next[:, 1] + to_prev[:, 1] * to_next[:, 0]
        inside = (poly[:, 0] >= 2) & (poly[:, 0] < w - 2) & (poly[:, 1] >= 2) & (poly[:, 1] < h - 2)
        short_edge = 0.35 * MIN_CARD_WIDTH_PX
        keep = (turn > 0) & (cosine <= low) & (cosine >= high) & inside
        keep &= (len_prev >= short_edge) & (len_next >= short_edge)
        if not keep.any():
            continue
        (_, _), (rw, rh), _ = cv2.minAreaRect(blob.contour)
        blob_width = min(rw, rh)
        blob_is_one_card = blob.whole
        for i in np.flatnonzero(keep):
            # on a clockwise outline the next edge, then the previous one, turn clockwise: the next
            # edge runs across the card's top (short side) at an index corner
            widths = [blob_width] if blob_is_one_card else [len_next[i], len_prev[i] / CARD_ASPECT]
            for width in _distinct(widths):
                if width >= MIN_CARD_WIDTH_PX:
                    frames.append(
                        CornerFrame(
                            (float(poly[i, 0]), float(poly[i, 1])),
                            (float(u_next[i, 0]), float(u_next[i, 1])),
                            (float(u_prev[i, 0]), float(u_prev[i, 1])),
                            float(width),
                            index,
                        )
                    )
    return _without_repeats(frames)


def _without_repeats(frames: list[CornerFrame]) -> list[CornerFrame]:
    """One frame per corner: the blobs of several whiteness levels find the same corners. In
    order, a frame is dropped when a frame kept before it is at the same point, along the same
    edge, with about the same width (all pairs at once: a frame has ~50 of them)."""
    if not frames:
        return frames
    points = np.array([f.point for f in frames])
    across = np.array([f.across for f in frames])
    widths = np.array([f.width for f in frames])
    # repeats[k, i]: frame i repeats frame k (the tolerances are k's)
    distance = np.hypot(*(points[:, None, :] - points[None, :, :]).transpose(2, 0, 1))
    repeats = (
        (distance < 0.06 * widths[:, None])
        & (across @ across.T > 0.97)
        & (np.abs(widths[:, None] - widths[None, :]) < 0.12 * widths[:, None])
    )
    dropped = np.zeros(len(frames), bool)
    kept: list[int] = []
    for i in range(len(frames)):
        if dropped[i]:
            continue
        kept.append(i)
        dropped |= repeats[i]
    return [frames[i] for i in kept]


def _distinct(widths: list[float]) -> list[float]:
    kept: list[float] = []
    for width in sorted(widths, reverse=True):
        if all(abs(width - other) > 0.12 * other for other in kept):
            kept.append(width)
    return kept
