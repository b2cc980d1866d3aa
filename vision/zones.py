"""The table's cameras and the zones each one watches, as the table's config file gives them.

Pure data and geometry (no OpenCV): the config loader (tablectl/service/tablefile.py) builds these,
the stability filter (vision/stability.py) asks which zone a card lies in, the camera adapter
opens each camera's source, and ``tablectl vision calibrate`` draws the zones on a frame.

A zone is a polygon in the pixels of its camera's frame (a rectangle is written as x, y, width,
height). Its name says what it is: ``shoe`` (the shoe's mouth), ``board``, ``burn``, ``muck`` or
``seat1`` .. ``seatN``. Each zone is watched by one camera, so a card is reported once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

Point = tuple[float, float]

ZONE_KINDS = ("shoe", "board", "burn", "muck", "seat")
SEAT_ZONE = re.compile(r"seat([1-9][0-9]?)")
SOURCE_KINDS = ("device", "picamera", "video", "images")

DEFAULT_AGREE_FRAMES = 4  # about 130 ms at 30 fps: a hand passing over a card takes longer
DEFAULT_RELEASE_FRAMES = 15  # a decision may be made again after half a second without it


@dataclass(frozen=True)
class ZoneArea:
    """One zone of one camera's frame."""

    name: str  # as written in the config: "shoe", "board", "burn", "muck", "seat3"
    points: tuple[Point, ...]  # the polygon, in the frame's pixels

    @property
    def kind(self) -> str:
        return "seat" if SEAT_ZONE.fullmatch(self.name) else self.name

    @property
    def seat(self) -> int | None:
        match = SEAT_ZONE.fullmatch(self.name)
        return int(match.group(1)) if match else None

    def contains(self, point: Point) -> bool:
        """Whether ``point`` lies inside the polygon (even-odd rule; the edge counts as inside)."""
        x, y = point
        inside = False
        points = self.points
        for (x1, y1), (x2, y2) in zip(points, points[1:] + points[:1], strict=True):
            if _on_segment(x, y, x1, y1, x2, y2):
                return True
            if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
                inside = not inside
        return inside

    def area(self) -> float:
        return abs(polygon_area(self.points))

    def bounds(self) -> tuple[float, float, float, float]:
        """The smallest rectangle holding the zone: left, top, right, bottom."""
        xs = [x for x, _ in self.points]
        ys = [y for _, y in self.points]
        return min(xs), min(ys), max(xs), max(ys)


@dataclass(frozen=True)
class CameraSource:
    """Where a camera's frames come from: a V4L2 device (its index or path), a Pi camera
    (picamera2, by its number), a video file or a folder of images (recorded frames)."""

    kind: str  # one of SOURCE_KINDS
    device: int | str | None = None  # "device": 0 or "/dev/video0"; "picamera": its number
    path: Path | None = None  # "video", "images"

    def describe(self) -> str:
        if self.kind == "device":
            return f"/dev/video{self.device}" if isinstance(self.device, int) else str(self.device)
        if self.kind == "picamera":
            return f"Pi camera {self.device or 0}"
        return str(self.path)


@dataclass(frozen=True)
class TablePlane:
    """A rectangle lying flat on the table, as a camera looking across it shows it (vision/view.py)."""

    corners: tuple[Point, ...]  # its four corners in the frame's pixels, clockwise from its first
    size_mm: tuple[float, float]  # its first side's length (corner 1 to 2), then its second's


@dataclass(frozen=True)
class CameraConfig:
    name: str  # the camera's name in the config ([cameras.<name>]), e.g. "mouth"
    source: CameraSource
    size: tuple[int, int]  # width, height of its frames, in pixels
    zones: tuple[ZoneArea, ...]
    plane: TablePlane | None = None  # looking across the table: its frames are read seen from above

    @property
    def device_name(self) -> str:
        """Its name in device statuses and on the dealer's screen: "mouth camera"."""
        return f"{self.name} camera"

    def zone_at(self, point: Point) -> ZoneArea | None:
        """The zone a card centred at ``point`` lies in (the first in the file's order)."""
        return next((zone for zone in self.zones if zone.contains(point)), None)


@dataclass(frozen=True)
class VisionConfig:
    """The [vision] and [cameras.*] sections of a table's config."""

    cameras: tuple[CameraConfig, ...]
    backs: Path | None = None  # the backs learned by `tablectl vision calibrate`, when there are
    agree_frames: int = DEFAULT_AGREE_FRAMES  # consecutive frames that must agree before an event
    release_frames: int = DEFAULT_RELEASE_FRAMES  # frames without it before a decision may recur

    def camera(self, name: str) -> CameraConfig:
        for camera in self.cameras:
            if camera.name == name:
                return camera
        raise KeyError(name)


def rectangle(x: float, y: float, width: float, height: float) -> tuple[Point, ...]:
    """A rectangle's corners, clockwise on the image from its top left."""
    return ((x, y), (x + width, y), (x + width, y + height), (x, y + height))


def polygon_area(points: tuple[Point, ...]) -> float:
    """The signed area (shoelace formula)."""
    total = 0.0
    for (x1, y1), (x2, y2) in zip(points, points[1:] + points[:1], strict=True):
        total += x1 * y2 - x2 * y1
    return total / 2.0


def polygon_is_convex(points: tuple[Point, ...]) -> bool:
    """Whether the polygon turns the same way at every corner."""
    n = len(points)
    turns = []
    for i in range(n):
        (x0, y0), (x1, y1), (x2, y2) = points[i - 1], points[i], points[(i + 1) % n]
        turns.append((x1 - x0) * (y2 - y1) - (y1 - y0) * (x2 - x1))
    return all(t > 0 for t in turns) or all(t < 0 for t in turns)


def polygon_is_simple(points: tuple[Point, ...]) -> bool:
    """No two edges that do not share a corner cross (a bow tie is not a zone)."""
    n = len(points)
    edges = [(points[i], points[(i + 1) % n]) for i in range(n)]
    for i in range(n):
        for j in range(i + 1, n):
            if j == i + 1 or (i == 0 and j == n - 1):
                continue  # neighbours share a corner
            if _segments_cross(*edges[i], *edges[j]):
                return False
    return True


def _on_segment(x: float, y: float, x1: float, y1: float, x2: float, y2: float) -> bool:
    cross = (x2 - x1) * (y - y1) - (y2 - y1) * (x - x1)
    if abs(cross) > 1e-9 * max(1.0, abs(x2 - x1) + abs(y2 - y1)):
        return False
    return min(x1, x2) <= x <= max(x1, x2) and min(y1, y2) <= y <= max(y1, y2)


def _segments_cross(a: Point, b: Point, c: Point, d: Point) -> bool:
    def side(p: Point, q: Point, r: Point) -> float:
        return (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])

    d1, d2 = side(c, d, a), side(c, d, b)
    d3, d4 = side(a, b, c), side(a, b, d)
    return d1 * d2 < 0 and d3 * d4 < 0
