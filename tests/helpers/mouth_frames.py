"""Frames of the shoe's mouth for the mouth check's tests and bench: a 640x480 view of the shoe
with its mouth where deploy/table.example.toml puts the ``shoe`` zone, a card lying there (a
rendered or photographed face, a rendered casino back, the real black back of backs-cardcounter),
under light that changes (brightness, colour, an uneven spot, sensor noise). The photos are read
from ../shared, never copied."""

from __future__ import annotations

import csv
import functools
import random

import cv2
import numpy as np

from tests.helpers.camera_frames import face, render_back
from tests.helpers.paths import DATA
from vision.backs import Backs, learn
from vision.calibrate import back_samples
from vision.reader import ACT_CONFIDENCE, CardReader
from vision.sighting import Facing
from vision.zones import ZoneArea, rectangle

SIZE = (640, 480)
ZONE = (200, 140, 240, 200)  # deploy/table.example.toml: shoe = [200, 140, 240, 200]
MOUTH = ZoneArea("shoe", rectangle(*ZONE))
BLACK_DECK = DATA / "cards" / "backs-cardcounter" / "images"
TEST_PHOTOS = DATA / "cards" / "photos-tfod-test"
CASINO = {"red": (40, 30, 170), "blue": (150, 60, 20), "green": (50, 120, 30), "black": (30, 30, 30)}
CARD_W, CARD_H = 200, 280  # a card at the mouth: its short side fills the zone's height


def shoe(seed: int = 0) -> np.ndarray:
    """The shoe seen from above: felt around, the shoe's dark grey body, its mouth's slot."""
    return _shoe(seed).copy()


@functools.lru_cache(maxsize=64)
def _shoe(seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    frame = np.zeros((SIZE[1], SIZE[0], 3), np.uint8)
    frame[:] = (40, 110, 30)
    cv2.rectangle(frame, (150, 90), (490, 390), (45, 42, 40), -1)
    cv2.rectangle(frame, (190, 130), (450, 350), (62, 60, 58), -1)  # the mouth, lit
    noise = rng.normal(0, 3, frame.shape)
    return np.clip(frame + noise, 0, 255).astype(np.uint8)


def at_mouth(
    frame: np.ndarray, card: np.ndarray, shift: tuple[float, float] = (0.0, 0.0), angle: float = 0.0
) -> np.ndarray:
    """``frame`` with ``card`` (an upright card image) lying across the mouth: turned a quarter
    (the shoe deals it long side across), its short side the zone's height, moved by ``shift``."""
    upright = cv2.resize(card, (CARD_W, CARD_H), interpolation=cv2.INTER_AREA)
    turned = cv2.rotate(upright, cv2.ROTATE_90_CLOCKWISE)  # 280 x 200
    h, w = turned.shape[:2]
    cx = ZONE[0] + ZONE[2] / 2 + shift[0]
    cy = ZONE[1] + ZONE[3] / 2 + shift[1]
    matrix = cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1.0)
    matrix[:, 2] += (cx - w / 2, cy - h / 2)
    warped = cv2.warpAffine(turned, matrix, SIZE, flags=cv2.INTER_LINEAR)
    mask = cv2.warpAffine(np.full((h, w), 255, np.uint8), matrix, SIZE, flags=cv2.INTER_LINEAR)
    out = frame.copy()
    out[mask > 128] = warped[mask > 128]
    return out


def lit(
    frame: np.ndarray,
    gain: float,
    tint: tuple[float, float, float] = (1.0, 1.0, 1.0),
    spot: float = 0.0,
    noise: float = 2.0,
    seed: int = 0,
) -> np.ndarray:
    """``frame`` under other light: brighter or darker by ``gain``, coloured by ``tint`` (BGR
    factors), a spot of light ``spot`` brighter at one place, sensor noise."""
    image = frame.astype(np.float32) * (np.array(tint, np.float32) * gain)
    if spot:
        image *= _spot(seed, spot)[:, :, None]
    grain = np.empty(image.shape, np.float32)
    cv2.setRNGSeed(seed)
    cv2.randn(grain, 0.0, noise)
    return np.clip(image + grain, 0, 255).astype(np.uint8)


@functools.lru_cache(maxsize=64)
def _spot(seed: int, strength: float) -> np.ndarray:
    rng = np.random.default_rng(seed)
    xs = np.linspace(0.0, 1.0, SIZE[0], dtype=np.float32)
    ys = np.linspace(0.0, 1.0, SIZE[1], dtype=np.float32)
    gx, gy = rng.uniform(0.2, 0.8, 2)
    light = np.exp(-(((xs[None, :] - gx) ** 2) + (ys[:, None] - gy) ** 2) / 0.05)
    return (1.0 + strength * light).astype(np.float32)


def lights(count: int, seed: int = 1) -> list[dict[str, object]]:
    """``count`` varied lights for :func:`lit`: dim to glaring, warm to cold, spots."""
    rng = random.Random(seed)
    out: list[dict[str, object]] = [{"gain": 1.0}]
    for n in range(count - 1):
        warm = rng.uniform(-0.12, 0.12)  # what a camera's white balance leaves
        out.append(
            {
                "gain": rng.choice([0.35, 0.5, 0.7, 0.9, 1.2, 1.5, 1.9, 2.4]),
                "tint": (1.0 - warm, 1.0, 1.0 + warm),
                "spot": rng.choice([0.0, 0.0, 0.6, 1.2]),
                "noise": rng.uniform(1.0, 6.0),
                "seed": n,
            }
        )
    return out


def casino_back(colour: str) -> np.ndarray:
    return render_back(CASINO[colour], CARD_W)


def black_backs(calibrated: CardReader) -> list[np.ndarray]:
    """The real black backs of backs-cardcounter, each warped upright from its photo: the cards
    a reader calibrated with the black back (:func:`black_back_calibration`) calls that back (the
    uncalibrated reader also calls two of the deck's black faces face down)."""
    backs = []
    for n in (7800, 7801, 7810, 7812, 7814):
        image = cv2.imread(str(BLACK_DECK / f"IMG_{n}.jpg"))
        assert image is not None, n
        for card in calibrated.read(image):
            if card.facing is Facing.DOWN and card.why == "the black back":
                backs.append(_upright(image, np.array(card.corners, np.float32)))
    return backs


def black_back_calibration(reader: CardReader) -> Backs:
    """The black back learned as `tablectl vision calibrate --backs` learns it, from 3 photos."""
    images = [cv2.imread(str(BLACK_DECK / f"IMG_{n}.jpg")) for n in (7800, 7801, 7810)]
    back, _ = learn("black", back_samples(images, reader))
    return Backs((back,))


def real_faces(reader: CardReader, limit: int = 12) -> list[tuple[str, np.ndarray]]:
    """Face-up cards of photos-tfod-test read by name at acting confidence where labelled so,
    warped upright from the photo by the corners the reader found (a card, not its background)."""
    labels: dict[str, set[str]] = {}
    with open(TEST_PHOTOS / "labels.csv", newline="") as handle:
        for row in csv.DictReader(handle):
            rank = "T" if row["rank"] == "10" else row["rank"]
            labels.setdefault(row["file"], set()).add(rank + row["suit"].lower())
    faces: list[tuple[str, np.ndarray]] = []
    for name in sorted(labels):
        image = cv2.imread(str(TEST_PHOTOS / name))
        assert image is not None, name
        for card in reader.read(image):
            if card.facing is Facing.UP and card.card in labels[name] and card.confidence >= ACT_CONFIDENCE:
                faces.append((card.card, _upright(image, np.array(card.corners, np.float32))))
        if len(faces) >= limit:
            break
    return faces[:limit]


# face-up cards of backs-cardcounter's black deck, their corners picked by eye on the photos
# (clockwise from the index corner): silver and gold print on black
DARK_FACES = {
    "6c": ("IMG_7723", ((96, 216), (393, 187), (443, 535), (145, 563))),
    "7h": ("IMG_7719", ((475, 260), (635, 288), (609, 419), (449, 391))),
}


def dark_faces() -> list[tuple[str, np.ndarray]]:
    """The black deck's faces of DARK_FACES, each warped upright from its photo."""
    faces = []
    for card, (name, corners) in DARK_FACES.items():
        image = cv2.imread(str(BLACK_DECK / f"{name}.jpg"))
        assert image is not None, name
        faces.append((card, _upright(image, np.array(corners, np.float32))))
    return faces


def rendered_faces(cards: list[str]) -> list[tuple[str, np.ndarray]]:
    return [(card, face(card, CARD_W)) for card in cards]


def _upright(image: np.ndarray, quad: np.ndarray) -> np.ndarray:
    points = quad.reshape(4, 2).astype(np.float32)
    if np.hypot(*(points[1] - points[0])) > np.hypot(*(points[2] - points[1])):
        points = np.roll(points, -1, axis=0)
    target = np.array([[0, 0], [CARD_W, 0], [CARD_W, CARD_H], [0, CARD_H]], np.float32)
    matrix = cv2.getPerspectiveTransform(points, target)
    return cv2.warpPerspective(image, matrix, (CARD_W, CARD_H), flags=cv2.INTER_AREA)


def mouth_calibration_frames(back: np.ndarray) -> list[np.ndarray]:
    """Frames for `tablectl vision calibrate --backs --camera mouth`: cards of one back laid
    whole in the mouth camera's view, at the size they have at the mouth, in the table's light."""
    from tests.helpers.camera_frames import laid

    card = cv2.resize(back, (CARD_W // 2 * 2 * 3 // 4, CARD_H * 3 // 4), interpolation=cv2.INTER_AREA)
    frames = []
    for n, (gain, angles) in enumerate(((1.0, (0.0, 20.0)), (0.8, (90.0, -15.0)))):
        frame = np.zeros((SIZE[1], SIZE[0], 3), np.uint8)
        frame[:] = (40, 110, 30)
        frame = laid(laid(frame, card, (165, 240), angles[0]), card, (475, 240), angles[1])
        frames.append(lit(frame, gain, noise=3.0, seed=100 + n))
    return frames


def mouth_backs(reader: CardReader, *colours: str) -> Backs:
    """Casino backs learned from the mouth camera's calibration frames, as the command learns them."""
    learned = []
    for colour in colours:
        back, _ = learn(colour, back_samples(mouth_calibration_frames(casino_back(colour)), reader))
        learned.append(back)
    return Backs(tuple(learned))


def mouth_backs_of(reader: CardReader, back: np.ndarray, name: str = "house") -> Backs:
    """The back ``back`` (an upright card image) learned from the mouth camera's frames of it."""
    learned, _ = learn(name, back_samples(mouth_calibration_frames(back), reader))
    return Backs((learned,))


def random_back(rng: random.Random) -> np.ndarray:
    """A casino-style back of a random colour and pattern (a lattice, dots, lines, diamonds or
    none; thin or thick, the pattern's colour lighter than the field, up to white), a white border."""
    hsv = np.uint8([[[rng.randrange(180), rng.randrange(80, 256), rng.randrange(40, 230)]]])
    colour = tuple(int(c) for c in cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0])
    back = np.full((CARD_H, CARD_W, 3), 248, np.uint8)
    border = rng.randrange(6, 20)
    inner = back[border : CARD_H - border, border : CARD_W - border]
    inner[:] = colour
    h, w = inner.shape[:2]
    light = tuple(min(255, c + rng.randrange(40, 140)) for c in colour)
    step, thick = rng.randrange(5, 25), rng.randrange(1, 4)
    kind = rng.choice(["lattice", "dots", "plain", "lines", "diamonds"])
    if kind == "lattice":
        for k in range(-h, w + h, step):
            cv2.line(inner, (k, 0), (k + h, h), light, thick)
            cv2.line(inner, (k, h), (k + h, 0), light, thick)
    elif kind == "dots":
        for y in range(0, h, step):
            for x in range(0, w, step):
                cv2.circle(inner, (x, y), thick + 1, light, -1)
    elif kind == "lines":
        for y in range(0, h, step):
            cv2.line(inner, (0, y), (w, y), light, thick)
    elif kind == "diamonds":
        for y in range(0, h, step * 2):
            for x in range(0, w, step * 2):
                diamond = np.array([[x, y - step], [x + step, y], [x, y + step], [x - step, y]], np.int32)
                cv2.fillPoly(inner, [diamond], light)
    return back


def random_light(frame: np.ndarray, rng: random.Random, seed: int) -> np.ndarray:
    """``frame`` under a random light: dim to glaring, tinted, a spot, noise, and half the time a
    glare (a blurred bright ellipse) on the mouth."""
    if rng.random() < 0.5:
        glare = np.zeros(frame.shape[:2], np.float32)
        centre = (rng.randrange(200, 440), rng.randrange(140, 340))
        axes = (rng.randrange(20, 140), rng.randrange(20, 100))
        cv2.ellipse(glare, centre, axes, rng.randrange(180), 0, 360, 1.0, -1)
        glare = cv2.GaussianBlur(glare, (0, 0), rng.uniform(3, 25))
        frame = np.clip(frame + glare[:, :, None] * rng.uniform(80, 255), 0, 255).astype(np.uint8)
    tint = (1 + rng.uniform(-0.15, 0.15), 1.0, 1 + rng.uniform(-0.15, 0.15))
    gain = rng.choice([0.35, 0.5, 0.7, 1.0, 1.3, 1.7, 2.2, 2.8])
    return lit(frame, gain, tint, rng.choice([0.0, 0.6, 1.5]), rng.uniform(1, 8), seed)
