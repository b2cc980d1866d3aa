"""Rendered camera frames for the camera adapter's tests: a felt-green 640x480 frame with card
faces (geaxgx's synthetic renders, MIT, ../shared/data/cards/geaxgx) laid in a zone, written to a
folder of images the adapter reads as a recording. The photos are read, never copied."""

from __future__ import annotations

import random
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


# every card, by rank then suit (tablectl.core.cards notation)
DECK = [rank + suit for rank in "23456789TJQKA" for suit in "cdhs"]


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
    small = face(card, width)
    height = small.shape[0]
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
    delivering without ending (a camera whose driver hangs in a read) until ``end`` is set.
    ``live_until_hung``: after ``after``, it goes on delivering its last frame, as a live camera
    does (one every LIVE_FRAME_S), until ``hang`` is set: a test can look at the camera back
    before it hangs again (else its watchdog may call it lost again first, on a loaded machine)."""

    LIVE_FRAME_S = 0.05

    def __init__(
        self, before: list[np.ndarray], after: list[np.ndarray], live_until_hung: bool = False
    ) -> None:
        self.before = before
        self.after = after
        self.go = threading.Event()
        self.hang = threading.Event()
        if not live_until_hung:
            self.hang.set()
        self.end = threading.Event()
        self.delivered = threading.Event()  # every frame has been given

    def frames(self) -> Iterator[Frame | Skipped]:
        for number, image in enumerate(self.before):
            yield Frame(f"frame {number}", image)
        self.go.wait(30.0)
        for number, image in enumerate(self.after, start=len(self.before)):
            yield Frame(f"frame {number}", image)
        number = len(self.before) + len(self.after)
        while not self.hang.wait(self.LIVE_FRAME_S):  # the camera's frame interval, or the hang
            yield Frame(f"frame {number}", self.after[-1])
            number += 1
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


def render_back(colour: tuple[int, int, int], width: int = 90) -> np.ndarray:
    """A casino-style back: one colour with a lighter lattice of thin lines, a white border."""
    height = round(width * 88.9 / 63.5)
    back = np.full((height, width, 3), 250, np.uint8)
    border = max(3, width // 14)
    inner = back[border : height - border, border : width - border]
    inner[:] = colour
    light = tuple(min(255, c + 90) for c in colour)
    inner_h, inner_w = inner.shape[:2]
    for k in range(-inner_h, inner_w + inner_h, max(6, width // 9)):
        cv2.line(inner, (k, 0), (k + inner_h, inner_h), light, 1)
        cv2.line(inner, (k, inner_h), (k + inner_h, 0), light, 1)
    return back


def white_lattice_back(rng: random.Random, colour: tuple[int, int, int]) -> np.ndarray:
    """A casino back 100 x 140 px: one colour crossed by a lattice of white lines (their spacing
    drawn from ``rng``), with a white border."""
    back = np.full((140, 100, 3), 240, np.uint8)
    inner = np.full((124, 84, 3), colour, np.uint8)
    step = rng.randint(5, 10)
    for k in range(-140, 240, step):
        cv2.line(inner, (k, 0), (k + 124, 124), (235, 235, 235), 1)
        cv2.line(inner, (k, 124), (k + 124, 0), (235, 235, 235), 1)
    back[8:-8, 8:-8] = inner
    return back


def gold_lattice_back(field: tuple[int, int, int], width: int = 90, step: int = 9) -> np.ndarray:
    """A dark deck's back with no border: a dark ``field`` crossed edge to edge by a lattice of
    thin gold lines ``step`` pixels apart (a black-and-gold deck's back)."""
    height = round(width * 1.4)
    back = np.full((height, width, 3), field, np.uint8)
    gold = (40, 170, 210)  # BGR
    for k in range(-height, width + height, step):
        cv2.line(back, (k, 0), (k + height, height), gold, 1)
        cv2.line(back, (k, height), (k + height, 0), gold, 1)
    return back


def laid(frame: np.ndarray, card: np.ndarray, centre: tuple[int, int], angle: float = 0.0) -> np.ndarray:
    """``frame`` with ``card`` (an image of a card) laid centred at ``centre``, turned ``angle`` degrees."""
    h, w = card.shape[:2]
    size = int(np.hypot(h, w)) + 2
    canvas = np.zeros((size, size, 3), np.uint8)
    mask = np.zeros((size, size), np.uint8)
    y0, x0 = (size - h) // 2, (size - w) // 2
    canvas[y0 : y0 + h, x0 : x0 + w] = card
    mask[y0 : y0 + h, x0 : x0 + w] = 255
    turn = cv2.getRotationMatrix2D((size / 2, size / 2), angle, 1.0)
    canvas = cv2.warpAffine(canvas, turn, (size, size), flags=cv2.INTER_LINEAR)
    mask = cv2.warpAffine(mask, turn, (size, size), flags=cv2.INTER_LINEAR)
    out = frame.copy()
    x, y = centre[0] - size // 2, centre[1] - size // 2
    region = out[y : y + size, x : x + size]
    region[mask > 128] = canvas[mask > 128]
    return out


def jumbo_face(card: str, width: int = 90, factor: float = 1.8) -> np.ndarray:
    """``card``'s face with its two index corners printed ``factor`` times larger (over the pips),
    as a jumbo-index deck prints them: the region the reader's index window covers, enlarged."""
    image = face(card, width)
    h, w = image.shape[:2]
    inset = round(0.04 * w)  # inside the rounded corner, whose outside is no face
    corner = image[inset : round(0.42 * w), inset : round(0.25 * w)]
    big = cv2.resize(corner, None, fx=factor, fy=factor, interpolation=cv2.INTER_CUBIC)
    bh, bw = big.shape[:2]
    image[inset : inset + bh, inset : inset + bw] = big
    image[h - inset - bh : h - inset, w - inset - bw : w - inset] = cv2.rotate(big, cv2.ROTATE_180)
    return image


def four_colour_face(card: str, width: int = 90) -> np.ndarray:
    """``card``'s face printed as a four-colour deck prints it: a diamond's red ink blue, a club's
    black ink green (a court card's picture with it, as a simple stand-in)."""
    image = face(card, width)
    b, g, r = (image[..., k].astype(np.int16) for k in range(3))
    if card[1] == "d":
        red = r - np.maximum(g, b) > 60
        image[red] = image[red][:, ::-1]  # red ink's channels swapped: as blue
    elif card[1] == "c":
        image[np.maximum(np.maximum(b, g), r) < 120] = (30, 140, 30)
    return image


def spread_of(faces: list[np.ndarray]) -> np.ndarray:
    """Up to eight faces apart on the felt in two rows, turned -30 to 40 degrees."""
    frame = felt()
    for n, image in enumerate(faces[:8]):
        frame = laid(frame, image, (100 + (n % 4) * 145, 125 + (n // 4) * 230), 10.0 * n - 30)
    return frame


def face(card: str, width: int = 90) -> np.ndarray:
    image = cv2.imread(str(RENDERS / render_name(card)))
    assert image is not None, card
    return sized(image, width)


def sized(image: np.ndarray, width: int) -> np.ndarray:
    """``image`` scaled to ``width`` pixels wide, its shape kept."""
    height = round(width * image.shape[0] / image.shape[1])
    return cv2.resize(image, (width, height), interpolation=cv2.INTER_AREA)
