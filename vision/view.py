"""A camera looking across the table, its frames seen from above.

The reader is made for cards seen from above: a card is a rectangle of the poker aspect, its
corners square, its pips as wide as tall. A camera at a seat's rail or on a stand at the table's
side looks across the cloth, and the cards it sees are squashed along its line of sight: seen
from 50 degrees above the cloth (a squash of 0.75) calibration learned none of the rendered backs'
colours and a fifth of the faces were lost (bench/vision.py's ``rendered_backs`` ``_across``, at
one squash a run; at 0.85 all was as from above). A card room's camera does not
move, so its view is measured once: the installer lays a rectangle of known size flat on the
cloth (a sheet of A4 paper, 210 x 297 mm) and writes its four corners as the frame shows them
(``plane`` and ``plane_mm`` in the camera's config section). Every frame is then warped to the
table seen from above (a homography) before it is read, and the cards found are placed back in
the frame's coordinates, where the zones are.

The warped view is as fine as the frame where the camera's zones see the cloth coarsest (their far
side: nowhere finer than the camera resolves) and holds the zones only, with a margin: the far
side of a steep view would otherwise stretch without end.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import cached_property

import cv2
import numpy as np

from vision.corners import clockwise, whiteness
from vision.zones import CameraConfig, Point, TablePlane, ZoneArea

VIEW_MARGIN = 0.25  # of the zones' box's shorter side (as vision.crops.MARGIN), on every side
MAX_VIEW_SHARE = 4.0  # the view may hold this many times the frame's pixels, no more


class ViewError(ValueError):
    """A table plane that gives no usable view (said at config load, with the fix)."""


def homography(
    source: list[Point] | tuple[Point, ...], target: list[Point] | tuple[Point, ...]
) -> np.ndarray:
    """The 3x3 projective map taking the four ``source`` points to the four ``target`` points (as
    vision.backs.upright makes its own). ViewError where three of ``source`` lie on one line:
    OpenCV then returns a map of nothing, not an error."""
    matrix: np.ndarray = cv2.getPerspectiveTransform(
        np.asarray(source, np.float32), np.asarray(target, np.float32)
    ).astype(np.float64)
    if abs(np.linalg.det(matrix)) < 1e-12:
        raise ViewError("three of the plane's corners lie on one line")
    return matrix


def mapped(matrix: np.ndarray, points: list[Point] | tuple[Point, ...]) -> tuple[Point, ...]:
    """``points`` taken through the projective ``matrix``."""
    out = _homogeneous(points) @ matrix.T
    return tuple((float(x / w), float(y / w)) for x, y, w in out)


def _homogeneous(points: list[Point] | tuple[Point, ...]) -> np.ndarray:
    """``points`` as rows of (x, y, 1)."""
    rows: np.ndarray = np.hstack([np.asarray(points, np.float64).reshape(-1, 2), np.ones((len(points), 1))])
    return rows


@dataclass(frozen=True)
class View:
    """A camera's frames seen from above: ``matrix`` takes the frame's pixels to the view's,
    ``inverse`` back; the view is ``size`` (width, height) pixels."""

    matrix: np.ndarray
    inverse: np.ndarray
    size: tuple[int, int]

    @staticmethod
    def of(plane: TablePlane, frame_size: tuple[int, int], zones: tuple[ZoneArea, ...]) -> View:
        """The view of a camera whose frames are ``frame_size`` and show ``plane``, holding
        ``zones``: as fine as the frame is where its zones see the cloth coarsest (their far side),
        so that nowhere is finer than the camera resolves (a card too small to read there stays
        too small: upsampled, a blurred far nine was read as a five at 0.94), unless that takes
        more than MAX_VIEW_SHARE of the frame's pixels. ViewError where no usable view is: the
        plane's corners on a line, a zone reaching the horizon, or a view so steep that its far
        side would lose half its resolution."""
        width_mm, height_mm = plane.size_mm
        sheet = ((0.0, 0.0), (width_mm, 0.0), (width_mm, height_mm), (0.0, height_mm))
        to_mm = homography(plane.corners, sheet)
        # the side of the horizon the plane lies on: a zone there is on the table, one beyond is sky
        side = np.sign(_depth(to_mm, plane.corners)).sum()
        points = [p for zone in zones for p in zone.points] + [_centre(zone.points) for zone in zones]
        if abs(side) != 4 or (side * _depth(to_mm, points) <= 1e-9).any():
            raise ViewError(
                "a zone reaches the horizon that the plane's corners give: check the corners, or "
                "mark a larger rectangle"
            )
        coarsest = min(_frame_px_per_mm(to_mm, point) for point in points)
        seen = np.array(mapped(to_mm, points))
        left, top = seen.min(axis=0)
        right, bottom = seen.max(axis=0)
        margin = VIEW_MARGIN * min(right - left, bottom - top)
        left, top, right, bottom = left - margin, top - margin, right + margin, bottom + margin
        width, height = frame_size
        frame = ((0.0, 0.0), (float(width), 0.0), (float(width), float(height)), (0.0, float(height)))
        if (side * _depth(to_mm, frame) > 1e-9).all():
            # the whole frame lies on the table's side of the horizon: nothing beyond its edges
            edges = np.array(mapped(to_mm, frame))
            left, top = max(left, edges[:, 0].min()), max(top, edges[:, 1].min())
            right, bottom = min(right, edges[:, 0].max()), min(bottom, edges[:, 1].max())
        scale = coarsest
        most = MAX_VIEW_SHARE * width * height
        if (right - left) * (bottom - top) * scale * scale > most:
            scale = math.sqrt(most / ((right - left) * (bottom - top)))
            if scale < coarsest / 2:
                raise ViewError(
                    "the camera looks too steeply across the table: seen from above, its zones would "
                    f"take more than {MAX_VIEW_SHARE:g} times the frame's pixels at half the far "
                    "side's resolution (or the plane's corners are wrong); move it higher, or watch "
                    "the far zones from another camera"
                )
        to_view = np.array([[scale, 0.0, -left * scale], [0.0, scale, -top * scale], [0.0, 0.0, 1.0]])
        matrix = to_view @ to_mm
        size = (math.ceil((right - left) * scale), math.ceil((bottom - top) * scale))
        return View(matrix, np.linalg.inv(matrix), size)

    @cached_property
    def _maps(self) -> tuple[np.ndarray, np.ndarray]:
        """For each of the view's pixels, where it lies in the frame, in OpenCV's fixed-point
        form: made once, a frame's warp is then a remap (0.8 ms a 640x480 view here, against 1.9
        for warpPerspective, which works each pixel's place out again, to the same result)."""
        width, height = self.size
        ys, xs = np.mgrid[0:height, 0:width].astype(np.float64)
        seen = np.stack([xs, ys, np.ones_like(xs)], axis=-1) @ self.inverse.T
        x = (seen[..., 0] / seen[..., 2]).astype(np.float32)
        y = (seen[..., 1] / seen[..., 2]).astype(np.float32)
        first, second = cv2.convertMaps(x, y, cv2.CV_16SC2)
        return first, second

    def warp(self, image: np.ndarray) -> np.ndarray:
        """``image`` (a frame of the camera) seen from above."""
        first, second = self._maps
        warped: np.ndarray = cv2.remap(image, first, second, cv2.INTER_LINEAR)
        return warped

    def camera_seen_from_above(self, camera: CameraConfig) -> CameraConfig:
        """``camera`` as its view shows it: its frames of ``size``, its zones placed there."""
        zones = tuple(replace(zone, points=mapped(self.matrix, zone.points)) for zone in camera.zones)
        return replace(camera, size=self.size, zones=zones, plane=None)


def _depth(matrix: np.ndarray, points: list[Point] | tuple[Point, ...]) -> np.ndarray:
    """The projective depth of ``points`` under ``matrix``: its sign says which side of the
    horizon a point lies on."""
    depth: np.ndarray = _homogeneous(points) @ matrix[2]
    return depth


def _centre(points: tuple[Point, ...]) -> Point:
    return (sum(x for x, _ in points) / len(points), sum(y for _, y in points) / len(points))


def _frame_px_per_mm(to_mm: np.ndarray, point: Point) -> float:
    """How many of the frame's pixels a mm of the cloth takes at ``point``, along the frame's
    finer axis there."""
    x, y = point
    here, right, down = mapped(to_mm, [(x, y), (x + 1.0, y), (x, y + 1.0)])
    step = min(math.dist(here, right), math.dist(here, down))  # mm a frame pixel covers
    return 1.0 / max(step, 1e-9)


SHEET_MIN_SHARE = 0.002  # of the frame's area: a sheet smaller than this is too few pixels to measure by
SHEET_LEVELS = (210, 170, 130, 100)  # vision.corners.whiteness of paper, bright light to dim


def find_sheet(image: np.ndarray) -> tuple[Point, ...] | None:
    """The corners of the largest sheet of white paper lying on the cloth in ``image``, clockwise
    as the frame shows them from its top left (the corner nearest the frame's top left); None
    where no white four-sided shape of SHEET_MIN_SHARE of the frame or more is seen. Its shape is
    the rectangle that ``plane`` gives: the installer lays a sheet of A4 on the cleared cloth for
    ``tablectl vision calibrate --plane`` (a card is a white four-sided shape too, and of the
    sheet's proportions: the cloth is cleared, and the drawing shows what was found)."""
    score = whiteness(image)
    least = SHEET_MIN_SHARE * image.shape[0] * image.shape[1]
    best = None
    for level in SHEET_LEVELS:  # the brightest level that shows a sheet: a dim room's is lower
        white = cv2.threshold(score, level - 1, 255, cv2.THRESH_BINARY)[1]
        best = _largest_quadrilateral(
            cv2.morphologyEx(white, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8)), least
        )
        if best is not None:
            break
    if best is None:
        return None
    ring = clockwise(best)  # a hull's corners, in its order: clockwise, then from the top left
    ring = np.roll(ring, -int(np.argmin(ring.sum(axis=1))), axis=0)
    return tuple((float(x), float(y)) for x, y in ring)


def _largest_quadrilateral(mask: np.ndarray, least: float) -> np.ndarray | None:
    """The corners of the largest shape of ``mask`` of ``least`` pixels or more that is four-sided
    (its hull simplified to four corners and filled by it); None where there is none."""
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    for contour in sorted(contours, key=cv2.contourArea, reverse=True):
        area = cv2.contourArea(contour)
        if area < least:
            return None
        hull = cv2.convexHull(contour)
        quad = cv2.approxPolyDP(hull, 0.02 * cv2.arcLength(hull, True), True).reshape(-1, 2)
        if len(quad) == 4 and area >= 0.9 * cv2.contourArea(quad.astype(np.float32)):
            corners: np.ndarray = quad.astype(np.float64)
            return corners
    return None
