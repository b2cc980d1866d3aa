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


WHITENESS_LEVELS = (120, 150, 180, 210, 235)


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
        if dark:
            # a dark blob is a card only if it is card-shaped: a quadrilateral that fills its box
            (_, _), (w, h), _ = cv2.minAreaRect(contour)
            ratio = max(w, h) / max(min(w, h), 1.0)
            if area < 0.8 * w * h or not 1.15 < ratio < 1.8:
                continue
        epsilon = 0.012 * cv2.arcLength(contour, True)
        polygon = cv2.approxPolyDP(contour, epsilon, True).reshape(-1, 2).astype(np.float32)
        if len(polygon) >= 3:
            blobs.append(PaperBlob(contour, polygon, dark))
    return blobs


def find_blobs(image: BGRImage) -> list[PaperBlob]:
    h, w = image.shape[:2]
    min_area = 0.4 * MIN_CARD_WIDTH_PX * MIN_CARD_WIDTH_PX * CARD_ASPECT
    min_area = max(min_area, 0.0015 * h * w)
    blobs = [blob for mask in paper_masks(image) for blob in _blobs(mask, min_area, dark=False)]
    blobs += _blobs(dark_card_mask(image), min_area, dark=True)
    return blobs


def _unit(v: np.ndarray) -> np.ndarray:
    n = float(np.hypot(v[0], v[1]))
    return v / n if n > 0 else v


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
    for index, blob in enumerate(blobs):
        poly = blob.polygon
        if _orientation(poly) < 0:
            poly = poly[::-1]
        n = len(poly)
        (_, _), (rw, rh), _ = cv2.minAreaRect(blob.contour)
        blob_width = min(rw, rh)
        blob_is_one_card = n <= 6 and 1.2 < max(rw, rh) / max(blob_width, 1.0) < 1.75
        for i in range(n):
            p, prev, nxt = poly[i], poly[i - 1], poly[(i + 1) % n]
            to_prev, to_next = prev - p, nxt - p
            len_prev, len_next = float(np.hypot(*to_prev)), float(np.hypot(*to_next))
            if min(len_prev, len_next) < 0.35 * MIN_CARD_WIDTH_PX:
                continue
            u_prev, u_next = _unit(to_prev), _unit(to_next)
            # convex on a clockwise outline: the turn from the incoming to the outgoing edge is clockwise
            turn = float((p - prev)[0] * (nxt - p)[1] - (p - prev)[1] * (nxt - p)[0])
            if turn <= 0:
                continue
            angle = math.degrees(math.acos(max(-1.0, min(1.0, float(u_prev @ u_next)))))
            if not CORNER_ANGLE_RANGE[0] <= angle <= CORNER_ANGLE_RANGE[1]:
                continue
            # on a clockwise outline the next edge, then the previous one, turn clockwise
            across, down, len_across, len_down = u_next, u_prev, len_next, len_prev
            if not (2 <= p[0] < w - 2 and 2 <= p[1] < h - 2):
                continue  # a corner on the frame's border is where the picture cuts a card
            widths = {len_across, len_down / CARD_ASPECT}
            if blob_is_one_card:
                widths = {blob_width}
            for width in _distinct(widths):
                if width >= MIN_CARD_WIDTH_PX:
                    frames.append(
                        CornerFrame(
                            (float(p[0]), float(p[1])),
                            (float(across[0]), float(across[1])),
                            (float(down[0]), float(down[1])),
                            width,
                            index,
                        )
                    )
    return _without_repeats(frames)


def _without_repeats(frames: list[CornerFrame]) -> list[CornerFrame]:
    """One frame per corner: the blobs of several whiteness levels find the same corners."""
    kept: list[CornerFrame] = []
    for frame in frames:
        if not any(_same_corner(frame, other) for other in kept):
            kept.append(frame)
    return kept


def _same_corner(one: CornerFrame, other: CornerFrame) -> bool:
    distance = math.hypot(one.point[0] - other.point[0], one.point[1] - other.point[1])
    alignment = one.across[0] * other.across[0] + one.across[1] * other.across[1]
    return (
        distance < 0.06 * other.width
        and alignment > 0.97
        and abs(one.width - other.width) < 0.12 * other.width
    )


def _distinct(widths: set[float]) -> list[float]:
    kept: list[float] = []
    for width in sorted(widths, reverse=True):
        if all(abs(width - other) > 0.12 * other for other in kept):
            kept.append(width)
    return kept
