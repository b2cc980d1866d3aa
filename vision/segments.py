"""Card corners from straight edges: where two line segments meet at about a right angle.

A card on light ground (a white box, a plate, marble, cream paper, a tiled floor) is as white as
what it lies on: no whiteness level parts it from it, and its edges, broken by the texture, close
no loop (vision/corners.py). Its sides are still straight lines, and two of them meeting at a
corner make an L that OpenCV's line segment detector (LSD, von Gioi et al. 2012, in OpenCV since
4.5.1) finds. Each such L is a corner hypothesis for the index classifier, as a blob's vertex is.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.types import GrayImage

# two arms' ends this near are one corner: a share of the shorter arm (a card's rounded corner ends
# its straight sides about 5 % of its width short of where they meet), at least MEET_FLOOR_PX
MEET = 0.15
MEET_FLOOR_PX = 4.0
RIGHT_ANGLE_COS = 0.3  # |cos| of the angle between the arms: 73-107 degrees
# no refinement: the standard one cost 15 % more on the training photos (9.5 against 10.9 ms at 400 px)
REFINE = cv2.LSD_REFINE_NONE
MIN_ARM = 0.35  # of a card's least width: a side seen shorter is a pip's or a letter's edge


@dataclass(frozen=True)
class LCorner:
    """Two segments meeting near a right angle: the corner where their lines cross, each arm's
    unit direction away from it (``across`` to ``down`` turning clockwise on the image, y down, as
    a CornerFrame's do) and each arm's length."""

    point: tuple[float, float]
    across: tuple[float, float]
    down: tuple[float, float]
    across_length: float
    down_length: float


def segments(gray: GrayImage) -> np.ndarray:
    """The image's line segments (n, 4): x0, y0, x1, y1. A detector of its own each call: one
    shared by every camera's thread would be detecting two frames at once (making one costs
    about a microsecond)."""
    found = cv2.createLineSegmentDetector(REFINE).detect(gray)[0]
    return np.zeros((0, 4), np.float32) if found is None else found.reshape(-1, 4).astype(np.float32)


def l_corners(lines: np.ndarray, min_width: float) -> list[LCorner]:
    """Every pair of ``lines`` (segments, (n, 4)) whose ends meet within MEET of ``min_width`` (a
    card's least width on the image) at 73-107 degrees, each arm at least MIN_ARM of it long: one
    corner each (all pairs at once: a textured photo has hundreds of segments)."""
    lengths = np.hypot(lines[:, 2] - lines[:, 0], lines[:, 3] - lines[:, 1])
    lines = lines[lengths >= MIN_ARM * min_width]
    n = len(lines)
    if n < 2:
        return []
    # each end k of segment k // 2 (k even: its first end), with its direction away from that end
    ends = lines.reshape(n * 2, 2)
    others = lines[:, [2, 3, 0, 1]].reshape(n * 2, 2)
    away = others - ends
    arm = np.hypot(away[:, 0], away[:, 1])
    unit = away / arm[:, None]
    gap = np.hypot(ends[:, None, 0] - ends[None, :, 0], ends[:, None, 1] - ends[None, :, 1])
    cosine = np.abs(unit @ unit.T)
    segment = np.arange(n * 2) // 2
    meet = np.maximum(MEET * np.minimum(arm[:, None], arm[None, :]), MEET_FLOOR_PX)
    i, j = np.nonzero((gap <= meet) & (cosine <= RIGHT_ANGLE_COS) & (segment[:, None] < segment[None, :]))
    corners = []
    for a, b in zip(i.tolist(), j.tolist(), strict=True):
        u, v = unit[a], unit[b]
        # where the two lines cross: ends[a] + s u = ends[b] + t v
        det = u[0] * -v[1] + v[0] * u[1]
        dx, dy = ends[b] - ends[a]
        s = (dx * -v[1] + v[0] * dy) / det
        point = (float(ends[a][0] + s * u[0]), float(ends[a][1] + s * u[1]))
        if u[0] * v[1] - u[1] * v[0] > 0:
            across, down, across_length, down_length = u, v, arm[a], arm[b]
        else:
            across, down, across_length, down_length = v, u, arm[b], arm[a]
        corners.append(
            LCorner(
                point,
                (float(across[0]), float(across[1])),
                (float(down[0]), float(down[1])),
                float(across_length),
                float(down_length),
            )
        )
    return corners
