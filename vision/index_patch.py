"""The index window of a corner, cut and normalised for the classifier.

The window covers the corner of a card where standard decks print the index (rank above suit):
0-25 % of the card's width across and 0-42 % of its width down (about 0-30 % of its height).
It is cut with an affine warp from the corner's frame, so a card at any angle gives the same
upright patch. Training (tools/train_index_classifier.py) cuts its patches with this same code.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from vision.corners import CornerFrame, channels
from vision.types import BGRImage, FloatArray

PATCH_W, PATCH_H = 24, 40
WINDOW_ACROSS, WINDOW_DOWN = 0.25, 0.42  # fractions of the card's width
_ACROSS_STEP = np.float32(WINDOW_ACROSS / PATCH_W)  # of the card's width, one patch pixel across
_DOWN_STEP = np.float32(WINDOW_DOWN / PATCH_H)
PATCH_PIXELS = PATCH_H * PATCH_W
# each pixel of a patch laid out in one row, row by row: its column and its row in the patch
_XS = np.tile(np.arange(PATCH_W, dtype=np.float32), PATCH_H)[None, :]  # (1, PATCH_PIXELS)
_YS = np.repeat(np.arange(PATCH_H, dtype=np.float32), PATCH_W)[None, :]
# the most frames one remap cuts: its maps are a row a frame, and OpenCV refuses maps of 32,767 rows
# or more (a busy frame, wood grain or a large photo of several tables, can propose more corners);
# slices far below that limit let a test cut several of them at a modest size
REMAP_FRAMES = 2048


def cut_patch(image: BGRImage, frame: CornerFrame) -> BGRImage:
    patch: BGRImage = cut_patches(image, [frame])[0]
    return patch


def cut_patches(image: BGRImage, frames: Sequence[CornerFrame], scale: float = 1.0) -> BGRImage:
    """The index windows of ``frames`` (n, PATCH_H, PATCH_W, 3), ``scale`` times the standard
    window (a deck calibrated with a larger index: vision.calibrate.learn_faces). Each patch
    pixel's place on the image is the corner's point plus its share of the window's two edges: the
    places of all the frame's patches, stacked, are one map for one bilinear remap (a warp per
    patch cost twice as much, in calls; OpenCV's affine warp samples bilinearly too, INTER_AREA
    being no warp's)."""
    n = len(frames)
    if n == 0:
        return np.empty((0, PATCH_H, PATCH_W, 3), np.uint8)
    points = np.array([frame.point for frame in frames], np.float32)
    widths = np.array([frame.width * scale for frame in frames], np.float32)[:, None]
    across = np.array([frame.across for frame in frames], np.float32) * (widths * _ACROSS_STEP)
    down = np.array([frame.down for frame in frames], np.float32) * (widths * _DOWN_STEP)
    # maps[k, i] = point_k + x_i * across_k + y_i * down_k, for each coordinate: a frame's patch is
    # one row of the maps (OpenCV's remap costs per row: 40 rows of 24 pixels a patch took half as
    # long again as one of 960, the same pixels)
    xs, ys = (points[:, c, None] + _XS * across[:, c, None] + _YS * down[:, c, None] for c in (0, 1))
    slices = [
        cv2.remap(
            image,
            xs[top : top + REMAP_FRAMES],
            ys[top : top + REMAP_FRAMES],
            cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_REPLICATE,
        )
        for top in range(0, n, REMAP_FRAMES)
    ]
    # one slice on every ordinary frame: used as it is, not copied by a concatenation
    patches: BGRImage = slices[0] if len(slices) == 1 else np.concatenate(slices)
    return patches.reshape(n, PATCH_H, PATCH_W, 3)


def normalise(patch: BGRImage, dark_card: bool, four_colour: bool = False) -> FloatArray:
    """Two planes in 0..1: ink darkness on paper (1 = ink) and redness (red ink), each independent
    of the light's brightness and colour. A dark card's light print is its ink. ``four_colour``: a
    four-colour deck's (vision.calibrate.learn_faces): its blue ink counts as red, so that its blue
    diamonds look to the classifier as a two-colour deck's red ones do (its green clubs are dark
    ink already, as black clubs are)."""
    result: FloatArray = normalise_all(patch[None], np.array([dark_card]), four_colour)[0]
    return result


def normalise_all(patches: BGRImage, dark_cards: np.ndarray, four_colour: bool = False) -> FloatArray:
    """normalise() for a stack of patches (n, h, w, 3) at once: one pass of OpenCV and numpy for a
    frame (percentiles as order statistics of each patch's sorted values: OpenCV sorts a row of
    uint8 in a tenth of numpy's partition's time, and np.percentile per patch costs more than the
    classifier)."""
    n = len(patches)
    if n == 0:
        return np.zeros((0, 2, PATCH_H, PATCH_W), np.float32)
    stacked = _one_row_each(patches)
    gray = cv2.cvtColor(stacked, cv2.COLOR_BGR2GRAY)
    if dark_cards.any():
        gray = np.where(dark_cards[:, None], 255 - gray, gray)
    size = PATCH_PIXELS
    k_low, k_high = int(0.03 * size), int(0.97 * size)
    ordered = _sorted_rows(gray)
    low = ordered[:, k_low].astype(np.float32)
    high = ordered[:, k_high].astype(np.float32)
    span = np.maximum(high - low, 40.0)  # a blank patch stays blank instead of noise stretched to ink
    # computed in place: a temporary of this size is fresh memory, and its page faults cost more
    # than the arithmetic
    planes = np.empty((n, 2, size), np.float32)  # ink, redness
    ink, redness = planes[:, 0], planes[:, 1]
    np.subtract(high[:, None], gray, out=ink)
    np.divide(ink, span[:, None], out=ink)
    np.clip(ink, 0.0, 1.0, out=ink)
    # Channel by channel (split by OpenCV into contiguous planes), in uint8 until the subtraction:
    # a max over a length-3 last axis is numpy's slowest reduction, and it was most of this
    # function's time.
    blue, green, red = channels(stacked)
    green_or_blue = np.maximum(green, blue)
    brightest = _sorted_rows(np.maximum(green_or_blue, red))[:, k_high]
    white = np.maximum(brightest.astype(np.float32), 40.0)
    np.subtract(red, green_or_blue, out=redness, dtype=np.float32)  # red excess: negative is none
    if four_colour:
        np.maximum(redness, np.subtract(blue, np.maximum(green, red), dtype=np.float32), out=redness)
    np.divide(redness, white[:, None], out=redness)
    np.multiply(redness, 2.0, out=redness)
    np.clip(redness, 0.0, 1.0, out=redness)
    return planes.reshape(n, 2, PATCH_H, PATCH_W)


def _one_row_each(patches: BGRImage) -> BGRImage:
    """A stack of patches (n, h, w, 3) as an image of one row a patch (n, h * w, 3): OpenCV's
    pixelwise operations cost per row (a frame's 35 patches to grey: 33 us as 40 rows of 24 pixels
    each, 8 as one row of 960)."""
    n = len(patches)
    return np.ascontiguousarray(patches.reshape(n, PATCH_PIXELS, 3))


def _sorted_rows(values: np.ndarray) -> np.ndarray:
    """Each row of a (n, m) uint8 array in ascending order."""
    ordered: np.ndarray = cv2.sort(np.ascontiguousarray(values), cv2.SORT_EVERY_ROW | cv2.SORT_ASCENDING)
    return ordered


def ink_tints(patches: BGRImage) -> FloatArray:
    """Each index window's ink colour (n, 2): how far its blue and its green stand above the
    other two channels, in grey levels, the window's paper taken as white (a warm or a cool light
    tints ink and paper alike); the mean over the ink's pixels. Black ink is about 0 on both; a
    four-colour deck's blue diamonds and green clubs stand far above (docs/vision.md has the
    figures). The ink is the window's darker part (as far below the paper as 0.4 of the span to
    its darkest, or 16 grey levels); a window with no ink is 0, 0. (One pass of OpenCV and numpy
    for all of a frame's windows: a percentile or a median per window cost a millisecond.)"""
    n = len(patches)
    if n == 0:
        return np.zeros((0, 2), np.float32)
    size = PATCH_PIXELS
    stacked = _one_row_each(patches)
    gray = cv2.cvtColor(stacked, cv2.COLOR_BGR2GRAY)
    ordered = _sorted_rows(gray).astype(np.float32)
    darkest, paper_at, paper_level = (ordered[:, int(share * size)] for share in (0.03, 0.8, 0.9))
    on_paper = (gray >= paper_at[:, None]).astype(np.float32)
    papers = np.maximum(on_paper.sum(axis=1), 1.0)
    # channel by channel (split by OpenCV into contiguous planes): numpy's arithmetic on a
    # channel's strided view of the pixels took most of this function's time
    blue, green, red = (
        plane * (255.0 / np.maximum(np.einsum("np,np->n", on_paper, plane) / papers, 1.0))[:, None]
        for plane in (channel.astype(np.float32) for channel in channels(stacked))
    )
    ink = (gray <= (paper_level - 0.4 * np.maximum(paper_level - darkest, 40.0))[:, None]).astype(np.float32)
    count = ink.sum(axis=1)
    tints = (
        np.stack(
            [
                np.einsum("np,np->n", ink, blue - np.maximum(green, red)),
                np.einsum("np,np->n", ink, green - np.maximum(blue, red)),
            ],
            axis=1,
        )
        / np.maximum(count, 1.0)[:, None]
    )
    tints[count < 5] = 0.0
    result: FloatArray = tints.astype(np.float32)
    return result
