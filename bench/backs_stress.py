"""Card backs called face up: a stress of rendered backs of many designs, prints one JSON object.

A face-down card called face up at a seat during the deal is a false exposed-card ruling, and
one named at acting confidence (vision.reader.ACT_CONFIDENCE) is a card the hand never had. The
bench of real photos holds one plain black back and the rendered casino backs (bench/vision.py);
this one draws backs of other designs, lays them as a table shows them and reads each frame with
the reader alone and with the reader calibrated on that back (vision.calibrate.back_samples from
frames of it lying whole and apart, under the same kind of light).

Families (each design drawn at random from its family, by a seeded generator):
  harlequin     checks turned half a right angle, a colour on white or white on a colour
                (a casino's diamond back), with a white border or without
  checks        square checks, likewise
  dots          a grid of dots, likewise
  stripes       slanted stripes, likewise
  pale_lines    a pale field with darker fine lines (a lattice or stripes), border or none
  gold_lattice  a dark field with a gold lattice edge to edge (a black-and-gold deck)
  dark_logo     a dark field with a gold ring and letters in the middle
Placements: apart (six lying whole), fanned (a dealer's spread), stacked (a loose pile), edges
(four running off the frame's edges, two whole); cloths: felt, wood, a light desk; light: gain
0.6-1.35, a tint of up to 10 % a channel, a glare on half the frames, noise, JPEG 60-95.

Fields, per family and in all: frames; backs_up (cards called face up, every frame holding
backs only), backs_named (of those, named at acting confidence), and the same with _calibrated
(frames of the designs whose back could be learned; designs_calibrated says how many).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vision.backs import Backs, BacksError, learn  # noqa: E402
from vision.calibrate import back_samples  # noqa: E402
from vision.index_reader import MODEL_PATH, IndexReader  # noqa: E402
from vision.reader import ACT_CONFIDENCE, CardReader  # noqa: E402
from vision.sighting import Facing  # noqa: E402

CARD_ASPECT = 1.4
GOLD = (40, 170, 210)  # BGR
CLOTHS = {"felt": (40, 110, 30), "wood": (40, 80, 130), "desk": (222, 226, 228)}
PLACEMENTS = ("apart", "fanned", "stacked", "edges")
PAD = 200  # pixels round the frame where cards running off its edges are laid


def _two_colours(rng: random.Random) -> tuple[list[int], list[int]]:
    """A field and an ink: a colour (dark or pale) and white, either way round."""
    low, high = (10, 90) if rng.random() < 0.6 else (130, 220)
    colour = [rng.randint(low, high) for _ in range(3)]
    white = [rng.randint(225, 250)] * 3
    return (colour, white) if rng.random() < 0.5 else (white, colour)


def _bordered(rng: random.Random, back: np.ndarray, share: float = 0.6) -> np.ndarray:
    if rng.random() >= share:
        return back
    width = back.shape[1]
    border = max(2, round(width * rng.uniform(0.04, 0.09)))
    framed = np.full_like(back, 246)
    framed[border:-border, border:-border] = back[border:-border, border:-border]
    return framed


def _tiled(rng: random.Random, width: int, kind: str) -> np.ndarray:
    height = round(width * CARD_ASPECT)
    field, ink = _two_colours(rng)
    back = np.full((height, width, 3), field, np.uint8)
    cell = max(3, round(width * rng.uniform(0.05, 0.14)))
    ys, xs = np.mgrid[0:height, 0:width]
    if kind == "harlequin":
        inked = ((xs + ys) // cell + (xs - ys + 10 * height) // cell) % 2 == 1
    elif kind == "checks":
        inked = (xs // cell + ys // cell) % 2 == 1
    elif kind == "dots":
        half = cell / 2
        inked = (xs % cell - half) ** 2 + (ys % cell - half) ** 2 <= (cell * rng.uniform(0.2, 0.4)) ** 2
    else:  # stripes
        inked = ((xs + ys * rng.choice((-1, 1))) % cell) < max(1, cell // rng.randint(2, 4))
    back[inked] = ink
    return _bordered(rng, back)


def _pale_lines(rng: random.Random, width: int) -> np.ndarray:
    height = round(width * CARD_ASPECT)
    field = tuple(rng.randint(185, 235) for _ in range(3))
    ink = tuple(int(c * rng.uniform(0.55, 0.8)) for c in field)
    back = np.full((height, width, 3), field, np.uint8)
    step = max(3, round(width * rng.uniform(0.04, 0.1)))
    both = rng.random() < 0.5
    for k in range(-height, width + height, step):
        cv2.line(back, (k, 0), (k + height, height), ink, 1, cv2.LINE_AA)
        if both:
            cv2.line(back, (k, height), (k + height, 0), ink, 1, cv2.LINE_AA)
    return _bordered(rng, back)


def _gold_lattice(rng: random.Random, width: int) -> np.ndarray:
    height = round(width * CARD_ASPECT)
    back = np.full((height, width, 3), [rng.randint(10, 45) for _ in range(3)], np.uint8)
    step = max(4, round(width * rng.uniform(0.07, 0.14)))
    for k in range(-height, width + height, step):
        cv2.line(back, (k, 0), (k + height, height), GOLD, 1)
        cv2.line(back, (k, height), (k + height, 0), GOLD, 1)
    return back


def _dark_logo(rng: random.Random, width: int) -> np.ndarray:
    height = round(width * CARD_ASPECT)
    back = np.full((height, width, 3), [rng.randint(10, 45) for _ in range(3)], np.uint8)
    centre = (width // 2, height // 2)
    cv2.circle(back, centre, round(width * 0.22), GOLD, max(1, width // 40))
    letters = "".join(rng.choice("ACEKLNORSV") for _ in range(rng.randint(1, 4)))
    scale = width / 220
    (w, h), _ = cv2.getTextSize(letters, cv2.FONT_HERSHEY_SIMPLEX, scale, 1)
    cv2.putText(
        back, letters, (centre[0] - w // 2, centre[1] + h // 2), cv2.FONT_HERSHEY_SIMPLEX, scale, GOLD, 1
    )
    return back


FAMILIES = {
    "harlequin": lambda rng, width: _tiled(rng, width, "harlequin"),
    "checks": lambda rng, width: _tiled(rng, width, "checks"),
    "dots": lambda rng, width: _tiled(rng, width, "dots"),
    "stripes": lambda rng, width: _tiled(rng, width, "stripes"),
    "pale_lines": _pale_lines,
    "gold_lattice": _gold_lattice,
    "dark_logo": _dark_logo,
}


def _laid(canvas: np.ndarray, card: np.ndarray, centre: tuple[float, float], angle: float) -> None:
    """``card`` laid on ``canvas`` (in place) centred at ``centre``, turned ``angle`` degrees."""
    h, w = card.shape[:2]
    turn = cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1.0)
    turn[:, 2] += np.array(centre) - (w / 2, h / 2)
    size = (canvas.shape[1], canvas.shape[0])
    warped = cv2.warpAffine(card, turn, size, flags=cv2.INTER_LINEAR)
    mask = cv2.warpAffine(np.full((h, w), 255, np.uint8), turn, size, flags=cv2.INTER_LINEAR) > 128
    canvas[mask] = warped[mask]


def _places(rng: random.Random, placement: str, width: int) -> list[tuple[float, float, float]]:
    """(x, y, angle) of each card on the frame (coordinates may lie beyond it)."""
    if placement == "apart":
        return [
            (110 + 210 * (k % 3) + rng.uniform(-15, 15), 130 + 220 * (k // 3), rng.uniform(0, 180))
            for k in range(6)
        ]
    if placement == "fanned":
        x, y, turn = rng.uniform(200, 440), rng.uniform(200, 280), rng.uniform(-30, 30)
        return [(x + k * width * 0.3, y + k * 3, turn + k * rng.uniform(4, 9)) for k in range(-3, 3)]
    if placement == "stacked":
        x, y = rng.uniform(230, 410), rng.uniform(190, 290)
        return [(x + rng.uniform(-60, 60), y + rng.uniform(-45, 45), rng.uniform(0, 180)) for _ in range(7)]
    edges = [(0.0, rng.uniform(100, 380)), (640.0, rng.uniform(100, 380)), (rng.uniform(100, 540), 0.0)]
    edges += [(rng.uniform(100, 540), 480.0), (200.0, 150.0), (440.0, 330.0)]
    return [
        (
            x + (rng.uniform(-30, 30) if k < 4 else 0.0),
            y + (rng.uniform(-30, 30) if k < 4 else 0.0),
            rng.uniform(0, 180),
        )
        for k, (x, y) in enumerate(edges)
    ]


def _lit(rng: random.Random, frame: np.ndarray) -> np.ndarray:
    light = (
        frame.astype(np.float32)
        * rng.uniform(0.6, 1.35)
        * np.array([rng.uniform(0.9, 1.1) for _ in range(3)])
    )
    if rng.random() < 0.5:
        ys, xs = np.mgrid[0 : frame.shape[0], 0 : frame.shape[1]]
        cx, cy, spread = rng.uniform(0, 640), rng.uniform(0, 480), rng.uniform(40, 150)
        glare = rng.uniform(30, 110) * np.exp(-((xs - cx) ** 2 + (ys - cy) ** 2) / (2 * spread**2))
        light += glare[..., None]
    light += np.random.default_rng(rng.randrange(1 << 30)).normal(0.0, 3.0, light.shape)
    ok, encoded = cv2.imencode(
        ".jpg", np.clip(light, 0, 255).astype(np.uint8), [cv2.IMWRITE_JPEG_QUALITY, rng.randint(60, 95)]
    )
    assert ok
    decoded: np.ndarray = cv2.imdecode(encoded, cv2.IMREAD_COLOR)
    return decoded


def frame_of(rng: random.Random, back: np.ndarray, cloth: str, placement: str) -> np.ndarray:
    """A 640x480 frame of ``back`` laid as ``placement`` on ``cloth``, under a random light."""
    canvas = np.full((480 + 2 * PAD, 640 + 2 * PAD, 3), CLOTHS[cloth], np.uint8)
    for x, y, angle in _places(rng, placement, back.shape[1]):
        _laid(canvas, back, (x + PAD, y + PAD), angle)
    return _lit(rng, canvas[PAD : PAD + 480, PAD : PAD + 640])


def calibrated_reader(
    rng: random.Random, back: np.ndarray, cloth: str, reader: CardReader, index: IndexReader
) -> CardReader | None:
    """A reader with ``back`` learned from two frames of it lying whole and apart, or None where
    fewer than three of it are found (nothing to learn)."""
    frames = [frame_of(rng, back, cloth, "apart") for _ in range(2)]
    try:
        learned, _ = learn("house", back_samples(frames, reader))
    except BacksError:
        return None
    return CardReader.with_classifier(index, Backs((learned,)))


def run(designs: int, frames_each: int, seed: int, model: Path = MODEL_PATH) -> dict[str, object]:
    index = IndexReader(model)
    reader = CardReader.with_classifier(index)
    report: dict[str, object] = {}
    totals = {"frames": 0, "backs_up": 0, "backs_named": 0, "frames_calibrated": 0}
    totals |= {"backs_up_calibrated": 0, "backs_named_calibrated": 0}
    for family, draw in FAMILIES.items():
        counts = dict.fromkeys(totals, 0) | {"designs_calibrated": 0}
        for design in range(designs):
            rng = random.Random(f"{seed}-{family}-{design}")
            width = rng.choice([70, 90, 110])
            back = draw(rng, width)
            cloth = rng.choice(list(CLOTHS))
            calibrated = calibrated_reader(rng, back, cloth, reader, index)
            counts["designs_calibrated"] += calibrated is not None
            for k in range(frames_each):
                frame = frame_of(rng, back, cloth, PLACEMENTS[k % len(PLACEMENTS)])
                for suffix, one in (("", reader), ("_calibrated", calibrated)):
                    if one is None:
                        continue
                    up = [s for s in one.read(frame) if s.facing is Facing.UP]
                    counts["frames" if not suffix else "frames_calibrated"] += 1
                    counts["backs_up" + suffix] += len(up)
                    counts["backs_named" + suffix] += sum(s.confidence >= ACT_CONFIDENCE for s in up)
        for key in totals:
            totals[key] += counts[key]
        report[family] = counts
    report["all"] = totals
    return report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--designs", type=int, default=12, help="designs a family")
    parser.add_argument("--frames", type=int, default=8, help="frames a design (placements in turn)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--model", type=Path, default=MODEL_PATH, help="the index classifier to measure")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    print(json.dumps(run(args.designs, args.frames, args.seed, args.model)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
