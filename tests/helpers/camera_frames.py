"""Rendered camera frames for the camera adapter's tests: a felt-green 640x480 frame with card
faces (geaxgx's synthetic renders, MIT, ../shared/data/cards/geaxgx) laid in a zone, written to a
folder of images the adapter reads as a recording. The photos are read, never copied."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import cv2
import numpy as np

from tablectl.core.effects import Effect, Ruling
from tablectl.core.table import TableState
from tests.helpers.paths import DATA
from vision.sources import Frame, Skipped
from vision.zones import CameraConfig, CameraSource, ZoneArea, rectangle

RENDERS = DATA / "cards" / "geaxgx" / "synthetic_renders"
FELT = (40, 110, 30)  # BGR
SIZE = (640, 480)


def table_camera(source: CameraSource, seats: int = 3) -> CameraConfig:
    """One camera over a small table: the board above, one zone a seat along the bottom."""
    width = SIZE[0] // seats
    zones = [ZoneArea("board", rectangle(100, 0, 440, 200))]
    zones += [ZoneArea(f"seat{n}", rectangle((n - 1) * width, 240, width, 240)) for n in range(1, seats + 1)]
    return CameraConfig("table", source, SIZE, tuple(zones))


def render_name(card: str) -> str:
    """geaxgx's file name of a card in tablectl's notation ("Th" -> "10h.png")."""
    rank = "10" if card[0] == "T" else card[0]
    return f"{rank}{card[1]}.png"


def felt() -> np.ndarray:
    frame = np.zeros((SIZE[1], SIZE[0], 3), np.uint8)
    frame[:] = FELT
    return frame


def with_card(frame: np.ndarray, card: str, centre: tuple[int, int], width: int = 90) -> np.ndarray:
    """``frame`` with ``card``'s face laid upright, centred at ``centre``."""
    face = cv2.imread(str(RENDERS / render_name(card)))
    assert face is not None, card
    height = round(width * face.shape[0] / face.shape[1])
    small = cv2.resize(face, (width, height), interpolation=cv2.INTER_AREA)
    x, y = centre[0] - width // 2, centre[1] - height // 2
    out = frame.copy()
    out[y : y + height, x : x + width] = small
    return out


def seat_centre(camera: CameraConfig, seat: int) -> tuple[int, int]:
    zone = next(z for z in camera.zones if z.seat == seat)
    left, top, right, bottom = zone.bounds()
    return round((left + right) / 2), round((top + bottom) / 2)


def write_frames(folder: Path, frames: list[np.ndarray]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for number, frame in enumerate(frames):
        assert cv2.imwrite(str(folder / f"frame-{number:04d}.png"), frame)
    return folder


class GatedFrames:
    """A camera that delivers ``before`` at once, then ``after`` when ``go`` is set, then stops
    delivering without ending (a camera whose driver hangs in a read) until ``end`` is set."""

    def __init__(self, before: list[np.ndarray], after: list[np.ndarray]) -> None:
        self.before = before
        self.after = after
        self.go = threading.Event()
        self.end = threading.Event()
        self.delivered = threading.Event()  # every frame has been given

    def frames(self) -> Iterator[Frame | Skipped]:
        for number, image in enumerate(self.before):
            yield Frame(f"frame {number}", image)
        self.go.wait(30.0)
        for number, image in enumerate(self.after, start=len(self.before)):
            yield Frame(f"frame {number}", image)
        self.delivered.set()
        self.end.wait(30.0)

    def close(self) -> None:
        self.end.set()


class Sink:
    """The service's states and rulings as a sink sees them, with waits on conditions."""

    def __init__(self) -> None:
        self.state: TableState | None = None
        self.rulings: list[Ruling] = []
        self.changed = threading.Condition()

    def __call__(self, state: TableState, effects: tuple[Effect, ...]) -> None:
        with self.changed:
            self.state = state
            self.rulings += [e for e in effects if isinstance(e, Ruling)]
            self.changed.notify_all()

    def wait(self, condition: Callable[[], bool], timeout: float = 20.0) -> bool:
        with self.changed:
            return self.changed.wait_for(condition, timeout)

    def dealt(self, count: int) -> Callable[[], bool]:
        def done() -> bool:
            hand = self.state.hand if self.state is not None else None
            return hand is not None and hand.hole_dealt == count

        return done

    def ruled(self, rule: str) -> list[Ruling]:
        return [r for r in self.rulings if r.rule == rule]
