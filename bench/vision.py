"""The camera pipeline on real photographs: prints one JSON object.

accuracy           labelled cards of ../shared/data/cards/photos-tfod-test (143) read with rank and suit
                   right at a confidence the pipeline acts on (vision.reader.ACT_CONFIDENCE); a label is
                   matched to the read card whose outline overlaps its box most
accuracy_any       the same at any confidence (what an 'unsure' display would show)
wrong_confident    labelled cards read wrongly at an acting confidence (goal 0)
phantom_confident  cards read at an acting confidence that match no labelled box and are none of the
                   photo's labelled cards: a card where there is none, or one outlined and named wrongly
                   (wrong_confident counts only the reads matched to a label); unmatched_confident
                   also counts those whose card is in the photo (outlined too far off its box to match)
face_down_called_up  on ../shared/data/cards/backs-cardcounter (per-image counts, no boxes): cards called
                   face up beyond the number of the image's face-up cards (an upper bound)
face_up_called_down  the same for cards called face down beyond the image's face-down cards
backs_wrong_confident  cards read there at an acting confidence that are not among the image's face-up cards
face_up_recall     of those images' 43 face-up cards, how many were called face up (at most the image's
                   count per image: a card called twice is caught once)
..._calibrated     the same four as a card room runs it, with its deck's back calibrated: for each
                   image the black back is learned (vision.calibrate.back_samples, vision.backs.learn)
                   from the face-down cards that the uncalibrated reader finds on the OTHER 21 images,
                   never on the image scored (leave one image out)
rendered_backs_called_up  of 1,200 casino backs rendered in eight field colours (four dark, four pale) on
                   40 tables, each with its cloth, two colours and its light, the backs called face up
                   (goal 0); ..._calibrated with the table's two backs learned from a frame of each
                   (rendered_back_colours_not_learned: the colours that could not be); and of six rendered
                   faces on each table, rendered_faces_up_recall and rendered_faces_called_down (and
                   ..._calibrated: read with the table's backs calibrated)
board_rows_read    of 90 five-card boards rendered in a row on felt (geaxgx's MIT faces 60-80 px wide,
                   overlapping by up to 4 px, touching or up to 4 px apart), the cards read right at
                   acting confidence; board_rows_wrong_confident: the cards read wrongly at it
frame_ms           median ms per 640x480 frame with ten cards (rendered from geaxgx's MIT faces);
frame_ms_best      the median over those frames of each frame's fastest read of the repeats: the
                   code's own cost, where frame_ms also holds what a shared machine's neighbours
                   took (on the VMs measured, two runs a minute apart differ by up to a quarter)
reference_ms       median ms of a fixed OpenCV workload run on the same frame after each of those reads
                   (after the classic Pi detector's first stage: grey, blur, threshold, contours); and
                   frame_ms_over_reference, frame_ms over it: the machine's speed at that moment
                   divided out (the VMs measured differ by up to twice, and move by half within minutes)
stream_ms          median ms per frame of a camera's stream at a table (the ten-card frames, each held five
                   seconds at 30 frames a second under sensor noise, a hand passing between them) through
                   the camera adapter's path: once the frames after a change have been read as many times
                   as the zone watch counts, frames showing the last one read again are not read
                   (vision/change.py); stream_ms_mean the mean (what a Pi's core carries), and
                   stream_read_share the share of frames read. frame_ms is every frame read.
frame_ms_photos    the same over the test photos scaled to 640x480
frame_ms_backs_calibrated  median ms per backs-cardcounter photo (640x640) with its black back calibrated
unseen_decks       with --unseen-decks DIR (npm's @heruka_urgyen/react-playing-cards 0.5.0 unpacked: DIR/lib/
                   TcN.js ...; needs the [train] extra's resvg-py): Adrian Kennard's four CC0 decks, which the
                   committed classifier never trained on (two and four colours, normal and jumbo index),
                   each as the board rows above (90 rows) and as ten-card spreads turned up to 40 degrees
                   (20 frames): per deck, the cards read right and wrongly at acting confidence;
                   ..._calibrated the same with the deck's index size (..._index_scale_learned) and
                   colours (..._four_colour_learned) learned from three other spreads as
                   `tablectl vision calibrate --faces` learns them
mouth_ms           median ms per 640x480 frame of the fast shoe-mouth check alone (vision/mouth.py), the
                   shoe zone of deploy/table.example.toml ([200, 140, 240, 200]), calibrated casino backs
                   and faces passing the mouth under varied light (tests/helpers/mouth_frames.py)
frame_instructions_m  with --instructions (needs valgrind): millions of machine instructions per ten-card
                   frame read, counted by valgrind's cachegrind in two child runs of this script (the
                   twenty frames read once and four times; the difference over sixty reads). Not a
                   speed, but the code's own work, which the machine's neighbours do not move (three
                   runs of one code within 1.6 %, where frame_ms moved by a quarter): what a change
                   saved, when the VM's speed moves more than the change does (--only instructions:
                   this figure alone)
vision_compiled    whether the pipeline's hot modules ran compiled with mypyc (`tablectl native build`,
                   as ./run builds them; TABLECTL_PURE=vision runs their source), the reads the same
The timings are CPU time of this process (one thread: OpenCV's and the classifier's), so that another
process on a shared machine slows them less than it would the wall clock.
The reference EdjeElectronics OpenCV-Playing-Card-Detector reads 4.9 % of photos-tfod-test (issue 12).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tablectl.native import PURE_ENV, VISION, running_native  # noqa: E402
from vision.backs import Backs, learn  # noqa: E402
from vision.calibrate import back_samples  # noqa: E402
from vision.change import ChangeGate  # noqa: E402
from vision.crops import Reader, ViewReader, camera_reader  # noqa: E402
from vision.index_reader import MODEL_PATH, IndexReader  # noqa: E402
from vision.reader import ACT_CONFIDENCE, CardReader, CardSighting, Facing  # noqa: E402
from vision.sources import Frame, read_image  # noqa: E402
from vision.view import View  # noqa: E402
from vision.zones import (  # noqa: E402
    DEFAULT_AGREE_FRAMES,
    DEFAULT_RELEASE_FRAMES,
    CameraConfig,
    CameraSource,
    TablePlane,
    ZoneArea,
    rectangle,
)

# the source or the build, as the caller asked, read before any figure imports the test helpers
# (counted_env)
ASKED_PURE = os.environ.get(PURE_ENV)
CARDS = ROOT.parent / "shared" / "data" / "cards"
TEST = CARDS / "photos-tfod-test"
BACKS = CARDS / "backs-cardcounter"
FACES = CARDS / "geaxgx" / "synthetic_renders"


def _box_overlap(sighting: CardSighting, box: tuple[int, int, int, int]) -> float:
    """How well a read card matches a labelled box: 0 unless the corner it was read at lies in
    the box (a card's estimated outline can spill over its neighbours in a fan), else the IoU of
    the outline's bounding box with the label's."""
    x0, y0, x1, y1 = box
    margin = 0.05 * max(x1 - x0, y1 - y0)
    cx, cy = sighting.corners[0]
    if not (x0 - margin <= cx <= x1 + margin and y0 - margin <= cy <= y1 + margin):
        return 0.0
    xs = [x for x, _ in sighting.corners]
    ys = [y for _, y in sighting.corners]
    ix = max(0.0, min(x1, max(xs)) - max(x0, min(xs)))
    iy = max(0.0, min(y1, max(ys)) - max(y0, min(ys)))
    inter = ix * iy
    union = (x1 - x0) * (y1 - y0) + (max(xs) - min(xs)) * (max(ys) - min(ys)) - inter
    return inter / union if union > 0 else 0.0


def match_reads(boxes: list[tuple[int, int, int, int]], read: list[CardSighting]) -> list[tuple[int, int]]:
    """Each labelled box paired with at most one card read, and each read with one box: the
    best overlaps first, none under 0.25. Returns (box index, read index) pairs."""
    pairs = sorted(
        ((_box_overlap(s, box), i, j) for i, box in enumerate(boxes) for j, s in enumerate(read)),
        reverse=True,
    )
    boxes_taken: set[int] = set()
    reads_taken: set[int] = set()
    matches: list[tuple[int, int]] = []
    for overlap, i, j in pairs:
        if overlap < 0.25 or i in boxes_taken or j in reads_taken:
            continue
        boxes_taken.add(i)
        reads_taken.add(j)
        matches.append((i, j))
    return matches


def test_set(reader: CardReader, limit: int | None) -> dict[str, object]:
    labels: dict[str, list[tuple[str, tuple[int, int, int, int]]]] = {}
    with open(TEST / "labels.csv", newline="") as handle:
        for row in csv.DictReader(handle):
            rank = "T" if row["rank"] == "10" else row["rank"]
            box = (int(row["xmin"]), int(row["ymin"]), int(row["xmax"]), int(row["ymax"]))
            labels.setdefault(row["file"], []).append((rank + row["suit"].lower(), box))
    files = sorted(labels)[:limit]
    right = right_any = wrong_confident = unread = total = phantom = unmatched = 0
    for name in files:
        frame = read_image(TEST / name)
        assert isinstance(frame, Frame), frame
        read = [s for s in reader.read(frame.image) if s.card is not None]
        matches = match_reads([box for _, box in labels[name]], read)
        for i, j in matches:
            card, sighting = labels[name][i][0], read[j]
            acting = sighting.confidence >= ACT_CONFIDENCE
            right_any += sighting.card == card
            right += sighting.card == card and acting
            wrong_confident += sighting.card != card and acting
        matched = {j for _, j in matches}
        present = {card for card, _ in labels[name]}
        for j, sighting in enumerate(read):
            if j not in matched and sighting.confidence >= ACT_CONFIDENCE:
                unmatched += 1
                phantom += sighting.card not in present
        total += len(labels[name])
        unread += len(labels[name]) - len(matches)
    return {
        "accuracy": round(right / total, 4),
        "accuracy_any": round(right_any / total, 4),
        "wrong_confident": wrong_confident,
        "phantom_confident": phantom,
        "unmatched_confident": unmatched,
        "unread": unread,
        "labelled_cards": total,
    }


def _backs_labels() -> tuple[dict[str, Counter[str]], Counter[str]]:
    """backs-cardcounter's labels: per image, its face-up cards, and how many are face down."""
    up: dict[str, Counter[str]] = {}
    down: Counter[str] = Counter()
    with open(BACKS / "labels.csv", newline="") as handle:
        for row in csv.DictReader(handle):
            up.setdefault(row["file"], Counter())
            if row["face"] == "up":
                up[row["file"]][
                    row["card"].replace("10", "T").lower()[:-1].upper() + row["card"][-1].lower()
                ] += 1
            else:
                down[row["file"]] += 1
    return up, down


def backs_set(reader: CardReader, limit: int | None, calibrated: bool = False) -> dict[str, object]:
    """Facing on backs-cardcounter. ``calibrated``: as a card room runs it, with the deck's back
    learned (vision.calibrate.back_samples, vision.backs.learn) from the face-down cards the
    uncalibrated reader finds on the OTHER images (leave one image out: never on the image
    scored); the fields then end in ``_calibrated``."""
    up, down = _backs_labels()
    every = {}
    for name in sorted(up):
        frame = read_image(BACKS / name)
        assert isinstance(frame, Frame), frame
        every[name] = frame.image
    images = {name: every[name] for name in sorted(up)[:limit]}  # scored; --limit: the first few
    if calibrated:  # the backs are learned from all the other images, scored or not
        samples = {name: back_samples([image], reader) for name, image in every.items()}
    called_up_wrongly = called_down_wrongly = wrong_cards = caught = face_up = face_down = 0
    for name, image in images.items():
        scorer = reader
        if calibrated:
            others = [sample for other, found in samples.items() if other != name for sample in found]
            back, _ = learn("black", others)
            scorer = measured_reader(Backs((back,)))
        sightings = scorer.read(image)
        called = [s for s in sightings if s.facing is Facing.UP]
        present = +up[name]
        n_up = sum(present.values())
        called_up_wrongly += max(len(called) - n_up, 0)
        called_down_wrongly += max(sum(s.facing is Facing.DOWN for s in sightings) - down[name], 0)
        wrong_cards += sum(
            1
            for s in called
            if s.card is not None and present[s.card] == 0 and s.confidence >= ACT_CONFIDENCE
        )
        caught += min(len(called), n_up)
        face_up += n_up
        face_down += down[name]
    suffix = "_calibrated" if calibrated else ""
    report: dict[str, object] = {
        "face_down_called_up" + suffix: called_up_wrongly,
        "face_up_called_down" + suffix: called_down_wrongly,
        "face_up_recall" + suffix: round(caught / face_up, 4) if face_up else None,
        "backs_wrong_confident" + suffix: wrong_cards,
    }
    if not calibrated:
        report.update(face_down_cards=face_down, face_up_cards=face_up)
    return report


def ten_card_frames(count: int) -> list[np.ndarray]:
    """640x480 frames with ten cards dealt at random angles on a felt-green cloth."""
    rng = random.Random(12)
    faces = [f.image for f in map(read_image, sorted(FACES.glob("*.png"))) if isinstance(f, Frame)]
    masks = [_face_mask(face) for face in faces]
    frames = []
    for _ in range(count):
        frame = np.full((480, 640, 3), (40, 110, 30), np.uint8)
        for slot in range(10):
            which = rng.randrange(len(faces))
            face = faces[which]
            w = 70
            centre = (
                70 + (slot % 5) * 125 + rng.uniform(-8, 8),
                120 + (slot // 5) * 240 + rng.uniform(-8, 8),
            )
            matrix = cv2.getRotationMatrix2D(
                (face.shape[1] / 2, face.shape[0] / 2), rng.uniform(-40, 40), w / face.shape[1]
            )
            matrix[:, 2] += np.array(centre) - np.array([face.shape[1] / 2, face.shape[0] / 2])
            warped = cv2.warpAffine(face, matrix, (640, 480))
            mask = cv2.warpAffine(masks[which], matrix, (640, 480))
            frame[mask > 0] = warped[mask > 0]
        frames.append(frame)
    return frames


def board_rows(
    reader: CardReader,
    rows: int,
    seeds: Sequence[int] = (1, 2, 3),
    faces: dict[str, np.ndarray] | None = None,
) -> dict[str, object]:
    """Five-card boards dealt in a row on felt (geaxgx's faces 60-80 px wide, each turned up to 3
    degrees and moved up to 3 px, gaps of -4 to 4 px: overlapping, touching or apart), ``rows``
    of them on each seed (the report's figure: seeds 1-3; --row-seeds for a wider stress): the
    cards read right at acting confidence, and those read wrongly at it. ``faces``: another
    deck's upright faces by card ('Tc'), in place of geaxgx's."""
    from tests.helpers.camera_frames import FELT, face, laid, sized

    def card_face(card: str, width: int) -> np.ndarray:
        return face(card, width) if faces is None else sized(faces[card], width)

    deck = [rank + suit for rank in "23456789TJQKA" for suit in "cdhs"]
    right = wrong = total = 0
    for seed in seeds:
        rng = random.Random(seed)
        for row in range(rows):
            frame = np.full((480, 640, 3), FELT, np.uint8)
            width = rng.choice([60, 70, 80])
            gap = rng.choice([-4, -2, 0, 1, 2, 4])
            cards = rng.sample(deck, 5)
            x, y = 320 - 2 * (width + gap), 240 + rng.randint(-40, 40)
            for card in cards:
                frame = laid(
                    frame, card_face(card, width), (int(x), y + rng.randint(-3, 3)), rng.uniform(-3, 3)
                )
                x += width + gap
            noise = np.random.default_rng(row).normal(0, 4, frame.shape)
            frame = np.clip(frame + noise, 0, 255).astype(np.uint8)
            named, other = _scored(reader, frame, cards)
            right, wrong = right + named, wrong + other
            total += len(cards)
    return {
        "board_rows_read": round(right / total, 4),
        "board_rows_wrong_confident": wrong,
        "board_row_cards": total,
    }


# casino backs' field colours (BGR): four dark, and pale ones that a bright light makes as white as paper
BACK_COLOURS = (
    (150, 30, 20),
    (30, 30, 160),
    (30, 90, 30),
    (20, 20, 20),
    (160, 120, 200),
    (200, 180, 150),
    (170, 200, 230),
    (180, 180, 180),
)
FELTS = ((40, 100, 30), (120, 60, 20), (30, 30, 110))  # green, blue and red cloth (BGR)


def _scored(reader: CardReader, frame: np.ndarray, cards: Sequence[str]) -> tuple[int, int]:
    """Of the cards read on ``frame`` at acting confidence, those among ``cards`` and the others."""
    read = {s.card for s in reader.read(frame) if s.card and s.confidence >= ACT_CONFIDENCE}
    return len(read & set(cards)), len(read - set(cards))


# the index classifier measured (--model), for the readers the figures make for themselves
index_model = MODEL_PATH


def measured_reader(backs: Backs | None = None) -> CardReader:
    """A card reader as `tablectl serve` makes one, with the classifier measured (both checks)."""
    return CardReader.with_classifier(IndexReader(index_model), backs)


KENNARD_DECKS = ("TcN", "TcB", "FcN", "FcB")  # two or four colours; normal or jumbo ('big') index


def _spreads(faces: dict[str, np.ndarray], seed: int, count: int) -> list[tuple[np.ndarray, list[str]]]:
    """``count`` frames of ten of ``faces`` 70 px wide in two rows on felt, turned up to 40
    degrees, with sensor noise: each with its cards."""
    from tests.helpers.camera_frames import laid, sized

    rng = random.Random(seed)
    frames = []
    for _ in range(count):
        frame = np.full((480, 640, 3), (40, 110, 30), np.uint8)
        cards = rng.sample(sorted(faces), 10)
        for slot, card in enumerate(cards):
            centre = (
                int(70 + (slot % 5) * 125 + rng.uniform(-8, 8)),
                int(120 + (slot // 5) * 240 + rng.uniform(-8, 8)),
            )
            frame = laid(frame, sized(faces[card], 70), centre, rng.uniform(-40, 40))
        noise = np.random.default_rng(rng.randrange(10**6)).normal(0, 4, frame.shape)
        frames.append((np.clip(frame + noise, 0, 255).astype(np.uint8), cards))
    return frames


def unseen_decks(reader: CardReader, package: Path) -> dict[str, object]:
    """Kennard's decks (never trained on) as board rows and as ten-card spreads: per deck, the
    cards read right and wrongly at acting confidence; then again with the deck's index size
    learned as `tablectl vision calibrate --faces` learns it, from three other spreads."""
    import tempfile

    from tools.train_index_classifier import RANK_LABELS, kennard_bundle_faces
    from vision.calibrate import learn_faces

    report: dict[str, object] = {}
    for name in KENNARD_DECKS:
        faces = {
            RANK_LABELS[rank] + "cdhs"[suit]: image
            for image, rank, suit in kennard_bundle_faces(package / "lib" / f"{name}.js")
        }
        with tempfile.TemporaryDirectory() as folder:
            calibration = [Frame(f"spread {n}", image) for n, (image, _) in enumerate(_spreads(faces, 99, 3))]
            learned = learn_faces(calibration, Path(folder) / "backs.json", reader)
        calibrated = reader.for_deck(learned.index_scale, learned.four_colour)
        for label, deck_reader in (("", reader), ("_calibrated", calibrated)):
            rows = board_rows(deck_reader, 30, (1, 2, 3), faces)
            right = wrong = 0
            for frame, cards in _spreads(faces, 12, 20):
                named, other = _scored(deck_reader, frame, cards)
                right, wrong = right + named, wrong + other
            report[f"unseen_{name}{label}_rows_read"] = rows["board_rows_read"]
            report[f"unseen_{name}{label}_rows_wrong_confident"] = rows["board_rows_wrong_confident"]
            report[f"unseen_{name}{label}_spreads_read"] = round(right / 200, 4)
            report[f"unseen_{name}{label}_spreads_wrong_confident"] = wrong
        report[f"unseen_{name}_index_scale_learned"] = learned.index_scale
        report[f"unseen_{name}_four_colour_learned"] = learned.four_colour
    return report


def _tabled(
    rng: random.Random, felt: tuple[int, int, int], cards: list[np.ndarray], lamp: np.ndarray
) -> np.ndarray:
    """Six cards on ``felt`` in two rows, each turned up to 60 degrees, under the table's ``lamp``
    (a gain per channel), +-5 % a frame, with sensor noise."""
    from tests.helpers.camera_frames import laid

    frame = np.full((480, 640, 3), felt, np.uint8)
    for slot, card in enumerate(cards):
        centre = (
            int(130 + (slot % 3) * 190 + rng.uniform(-30, 30)),
            int(130 + (slot // 3) * 220 + rng.uniform(-20, 20)),
        )
        frame = laid(frame, card, centre, rng.uniform(-60, 60))
    lit = frame * lamp * rng.uniform(0.95, 1.05) + np.random.default_rng(rng.randrange(10**6)).normal(
        0, 4, frame.shape
    )
    return np.clip(lit, 0, 255).astype(np.uint8)


def rendered_backs(
    reader: CardReader, tables: int, across: bool = False, plane: bool = False
) -> dict[str, object]:
    """Casino backs rendered faithfully (one repeated pattern in one field colour, a white border:
    tests/helpers/camera_frames.py's two styles) in BACK_COLOURS, on ``tables`` tables of seed
    1..``tables``: each a cloth, two back colours and one light (gain 0.55-1.3, tint +-15 %, the
    same for calibration and play); each colour calibrated from one frame of six of its backs
    (vision.calibrate.back_samples, vision.backs.learn; a colour that cannot be learned plays
    uncalibrated), then five frames of six backs of the two. Counted: backs called face up,
    without and with calibration, and the colours calibration could not learn. And six rendered
    faces on each table under its light: the share called face up, and those called face down,
    without and with the table's backs calibrated. ``across``: each table seen by a camera looking
    across it, every frame (calibration's too) squashed to 0.5-0.8 of its height (a table's own
    squash, drawn apart from the tables' other draws: the same tables as square on); the fields
    then end in ``_across``. ``plane``: those views read as the camera adapter reads a camera whose
    config gives its table plane (vision/view.py: the frame's corners, a rectangle on the table),
    calibration too; the fields then end in ``_across_plane``."""
    from tests.helpers.camera_frames import face, render_back, white_lattice_back
    from vision.backs import BacksError

    deck = [rank + suit for rank in "23456789TJQKA" for suit in "cdhs"]
    up = up_calibrated = not_learned = backs = faces_up = faces_down = faces = 0
    faces_up_calibrated = faces_down_calibrated = 0
    for table in range(1, tables + 1):
        rng = random.Random(table)
        felt = rng.choice(FELTS)
        colours = rng.sample(BACK_COLOURS, 2)
        lamp = rng.uniform(0.55, 1.3) * np.array([rng.uniform(0.85, 1.15) for _ in range(3)])
        lattice = rng.random() < 0.5
        squash = random.Random(-table).uniform(0.5, 0.8) if across else 1.0

        def view(frame: np.ndarray, squash: float = squash) -> np.ndarray:
            if squash == 1.0:
                return frame
            height = round(frame.shape[0] * squash)
            return cv2.resize(frame, (frame.shape[1], height), interpolation=cv2.INTER_AREA)

        camera = _across_the_table(squash) if plane else None

        def seen(reader: CardReader, camera: CameraConfig | None = camera) -> Reader:
            return camera_reader(reader, camera) if camera is not None else reader

        plain = seen(reader)
        above = plain.view if isinstance(plain, ViewReader) else None

        def learnable(frame: np.ndarray, above: View | None = above) -> np.ndarray:
            return above.warp(frame) if above is not None else frame  # calibration sees what is read

        styles = {
            colour: white_lattice_back(random.Random(table), colour) if lattice else render_back(colour, 90)
            for colour in colours
        }
        learned = []
        for colour in colours:
            calibration = learnable(view(_tabled(rng, felt, [styles[colour]] * 6, lamp)))
            try:
                learned.append(learn(str(colour), back_samples([calibration], reader))[0])
            except BacksError:
                not_learned += 1
        calibrated = seen(measured_reader(Backs(tuple(learned))))
        for _ in range(5):
            frame = view(_tabled(rng, felt, [styles[rng.choice(colours)] for _ in range(6)], lamp))
            up += sum(s.facing is Facing.UP for s in plain.read(frame))
            up_calibrated += sum(s.facing is Facing.UP for s in calibrated.read(frame))
            backs += 6
        shown = [face(card, rng.choice([70, 90, 110])) for card in rng.sample(deck, 6)]
        table_faces = view(_tabled(rng, felt, shown, lamp))
        sightings = plain.read(table_faces)
        faces_up += min(sum(s.facing is Facing.UP for s in sightings), 6)
        faces_down += sum(s.facing is Facing.DOWN for s in sightings)
        sightings = calibrated.read(table_faces)
        faces_up_calibrated += min(sum(s.facing is Facing.UP for s in sightings), 6)
        faces_down_calibrated += sum(s.facing is Facing.DOWN for s in sightings)
        faces += 6
    report: dict[str, object] = {
        "rendered_backs_called_up": up,
        "rendered_backs_called_up_calibrated": up_calibrated,
        "rendered_backs": backs,
        "rendered_back_colours_not_learned": not_learned,
        "rendered_faces_up_recall": round(faces_up / faces, 4),
        "rendered_faces_called_down": faces_down,
        "rendered_faces_up_recall_calibrated": round(faces_up_calibrated / faces, 4),
        "rendered_faces_called_down_calibrated": faces_down_calibrated,
    }
    suffix = "_across_plane" if plane else "_across" if across else ""
    return {key + suffix: value for key, value in report.items()}


def _across_the_table(squash: float) -> CameraConfig:
    """A 640x480 camera's view squashed to ``squash`` of its height, its table plane the frame's
    own corners (a 640 x 480 rectangle on the table) and one zone over all of it."""
    height = round(480 * squash)
    whole = rectangle(0, 0, 640, height)
    return CameraConfig(
        "table",
        CameraSource("images", path=Path(".")),
        (640, height),
        (ZoneArea("board", whole),),
        TablePlane(whole, (640.0, 480.0)),
    )


def _face_mask(face: np.ndarray) -> np.ndarray:
    """The renders' rounded corners are black: the card is what the corners' fill does not reach."""
    h, w = face.shape[:2]
    mask = np.zeros((h + 2, w + 2), np.uint8)
    for x, y in ((0, 0), (w - 1, 0), (0, h - 1), (w - 1, h - 1)):
        cv2.floodFill(face.copy(), mask, (x, y), (0, 0, 0), (8, 8, 8), (8, 8, 8), cv2.FLOODFILL_MASK_ONLY)
    return np.where(mask[1:-1, 1:-1] > 0, 0, 255).astype(np.uint8)


def median_ms(reader: Reader, frames: list[np.ndarray], repeats: int) -> float:
    return _frame_figures(reader, frames, repeats, with_reference=False)["frame_ms"]


def reference_work(image: np.ndarray) -> None:
    """A fixed OpenCV workload on a frame, after the manner of the classic contour detector made for
    a Raspberry Pi (issue 12's reference, EdjeElectronics' OpenCV-Playing-Card-Detector; not its
    code, nor exactly its steps): grey, a 5x5 Gaussian blur, a threshold, the outer contours and
    their polygons. Timed after each read, it measures the machine at that moment, not the reader."""
    blurred = cv2.GaussianBlur(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), (5, 5), 0)
    _, mask = cv2.threshold(blurred, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    for contour in contours:
        cv2.approxPolyDP(contour, 0.01 * cv2.arcLength(contour, True), True)


def _frame_figures(
    reader: Reader, frames: list[np.ndarray], repeats: int, with_reference: bool = True
) -> dict[str, float]:
    """frame_ms and frame_ms_best; with the reference, also reference_ms (reference_work's median
    ms, run on the same frame after each read) and frame_ms_over_reference: a VM's speed moves by
    half within minutes, and the two, paired read by read, move together."""
    times: list[list[float]] = [[] for _ in frames]
    reference: list[float] = []
    for _ in range(repeats):
        for n, image in enumerate(frames):
            started = time.process_time()
            reader.read(image)
            read = time.process_time()
            times[n].append((read - started) * 1000)
            if with_reference:
                reference_work(image)
                reference.append((time.process_time() - read) * 1000)
    frame = statistics.median(t for each in times for t in each)
    figures = {
        "frame_ms": round(frame, 2),
        "frame_ms_best": round(statistics.median(min(each) for each in times), 2),
    }
    if reference:
        figures["reference_ms"] = round(statistics.median(reference), 3)
        figures["frame_ms_over_reference"] = round(frame / statistics.median(reference), 2)
    return figures


def stream_times(reader: Reader, layouts: list[np.ndarray], hold: int = 150) -> dict[str, float]:
    """A camera's stream at a table: each layout held ``hold`` frames (five seconds at 30 frames
    a second: a player's decision) under fresh sensor noise, a hand passing over the cloth for two
    frames between layouts; each frame through the camera adapter's path (vision/change.py's gate
    as the adapter sets it, settling for the zone watch's default agree and release frames; the
    reader where it says so). The median and mean CPU ms a frame and the share of frames read."""
    rng = np.random.default_rng(30)
    gate = ChangeGate.for_zone_watch(DEFAULT_AGREE_FRAMES, DEFAULT_RELEASE_FRAMES)
    times: list[float] = []
    reads = 0
    for layout in layouts:
        hand = layout.copy()
        cv2.ellipse(hand, (int(rng.integers(100, 540)), 240), (80, 50), 30.0, 0, 360, (120, 160, 205), -1)
        for image in [hand] * 2 + [layout] * hold:
            frame = np.clip(image + rng.normal(0, 3.0, image.shape), 0, 255).astype(np.uint8)
            started = time.process_time()
            if gate.must_read(frame):
                reader.read(frame)
                reads += 1
            times.append((time.process_time() - started) * 1000)
    return {
        "stream_ms": round(statistics.median(times), 3),
        "stream_ms_mean": round(statistics.fmean(times), 2),
        "stream_read_share": round(reads / len(times), 3),
    }


COUNTED_PASSES = (1, 4)  # the child runs' passes over the ten-card frames: their difference is counted


def frame_instructions(model: Path, frames: int = 20) -> float:
    """Millions of instructions per ten-card frame read (frame_instructions_m): this script run
    under valgrind's cachegrind as a child (--count-reads) reading the frames COUNTED_PASSES times,
    the two runs at once; the difference divided by the reads between them (what the children
    share, Python's start, the imports, the model's load, the frames' rendering, cancels out)."""
    command = [sys.executable, str(Path(__file__).resolve()), "--model", str(model), "--frames", str(frames)]
    runs = [
        subprocess.Popen(
            ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null"]
            + command
            + ["--count-reads", str(passes)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env=counted_env(),
        )
        for passes in COUNTED_PASSES
    ]
    counts = []
    try:
        for run in runs:
            _, stderr = run.communicate()
            if run.returncode != 0:
                raise RuntimeError(f"the counted run failed (rc {run.returncode}): {stderr[-2000:]}")
            counts.append(counted_instructions(stderr))
    finally:  # one run failed, or the bench was stopped: the other is not left running for minutes
        for run in runs:
            if run.poll() is None:
                run.kill()
                run.wait()
    reads = (COUNTED_PASSES[1] - COUNTED_PASSES[0]) * frames
    return round((counts[1] - counts[0]) / reads / 1e6, 2)


def counted_env() -> dict[str, str]:
    """The counted children's environment: this one's, with the source or the build as the caller
    asked for it (ASKED_PURE: the test helpers' import asks for the vision source, and a full run
    imports them before the count, which then counted the source, about a tenth more), one order
    of sets and dicts of strings, and no BLAS thread spinning beside the reader (valgrind counts
    its waits, as many as the scheduling makes): the count repeats."""
    env = {name: value for name, value in os.environ.items() if name != PURE_ENV}
    if ASKED_PURE is not None:
        env[PURE_ENV] = ASKED_PURE
    return {**env, "PYTHONHASHSEED": "0", "OPENBLAS_NUM_THREADS": "1"}


def counted_instructions(valgrind_output: str) -> int:
    """The instructions cachegrind counted ('I   refs:      85,012,345' in its summary)."""
    found = re.search(r"I\s+refs:\s+([\d,]+)", valgrind_output)
    if found is None:
        raise ValueError(f"no instruction count in valgrind's output: {valgrind_output[-500:]}")
    return int(found.group(1).replace(",", ""))


def count_reads(reader: CardReader, frames: int, passes: int) -> None:
    """The child of frame_instructions: the ten-card frames rendered and one read (as the timed
    runs warm up), then all of them read ``passes`` times."""
    ten = ten_card_frames(frames)
    reader.read(ten[0])
    for _ in range(passes):
        for image in ten:
            reader.read(image)


def mouth_ms(reader: CardReader, repeats: int) -> float:
    """The fast shoe-mouth check alone, per 640x480 frame: backs learned at the mouth camera, then
    frames of backs, faces and the empty mouth under varied light."""
    from tests.helpers.mouth_frames import (
        CASINO,
        MOUTH,
        SIZE,
        at_mouth,
        casino_back,
        lights,
        lit,
        mouth_backs,
        rendered_faces,
        shoe,
    )
    from vision.mouth import MouthCheck

    check = MouthCheck(MOUTH, SIZE, mouth_backs(reader, *CASINO))
    cards = [casino_back(colour) for colour in CASINO] + [i for _, i in rendered_faces(["Ah", "7c", "Kd"])]
    frames = []
    for n, light in enumerate(lights(8)):
        frames.append(lit(shoe(n), **light))  # type: ignore[arg-type]
        frames += [lit(at_mouth(shoe(n), card), **light) for card in cards]  # type: ignore[arg-type]
    times = []
    for _ in range(max(1, repeats) * 4):
        for image in frames:
            started = time.process_time()
            check.check(image)
            times.append((time.process_time() - started) * 1000)
    return round(statistics.median(times), 3)


def backs_calibrated_ms(reader: CardReader, repeats: int) -> float:
    """Median ms per backs-cardcounter photo (640x640) read by a reader calibrated to its black back
    (learned from all its images: a timing, not a score): the corners of dark backs are tested for
    a face's print there."""
    images = []
    for path in sorted((BACKS / "images").glob("*.jpg")):
        frame = read_image(path)
        if isinstance(frame, Frame):
            images.append(frame.image)
    back, _ = learn("black", [sample for image in images for sample in back_samples([image], reader)])
    return median_ms(measured_reader(Backs((back,))), images, repeats)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="photos per set (the suit's tiny run)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument(
        "--only",
        choices=("facing", "rows", "speed", "unseen", "instructions"),
        help="facing: backs-cardcounter's figures alone, both ways; rows: the rendered board rows "
        "alone; speed: frame_ms, mouth_ms and frame_ms_backs_calibrated alone; unseen: the unseen "
        "decks' alone, with --unseen-decks; instructions: frame_instructions_m alone, as "
        "--instructions counts it (none of these reads photos-tfod-test, the test set)",
    )
    parser.add_argument(
        "--row-seeds",
        type=int,
        nargs="+",
        default=[1, 2, 3],
        help="the board rows' seeds (default 1 2 3, the figure compared across sessions)",
    )
    parser.add_argument(
        "--unseen-decks",
        type=Path,
        metavar="DIR",
        help="npm's @heruka_urgyen/react-playing-cards 0.5.0 unpacked (its package/ folder): adds "
        "the unseen_* figures (needs the [train] extra)",
    )
    parser.add_argument(
        "--model",
        type=Path,
        default=MODEL_PATH,
        help="the index classifier to measure (default: the committed one; a candidate's figures "
        "beside the committed model's, never its test-photo figure to choose by)",
    )
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="add frame_instructions_m, the instructions per ten-card frame counted by valgrind "
        "(a figure the machine's neighbours do not move; two or three minutes more), to whatever "
        "else is measured",
    )
    parser.add_argument("--count-reads", type=int, metavar="PASSES", help=argparse.SUPPRESS)
    parser.add_argument("--frames", type=int, default=20, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.only == "unseen" and args.unseen_decks is None:
        parser.error("--only unseen needs --unseen-decks DIR")
    args.instructions = args.instructions or args.only == "instructions"
    if args.instructions and shutil.which("valgrind") is None:
        parser.error("--instructions needs valgrind (apt-get install valgrind)")
    cv2.setNumThreads(1)  # a Pi's cores are the table's: measure one
    global index_model
    index_model = args.model
    reader = measured_reader()
    if args.count_reads is not None:
        count_reads(reader, args.frames, args.count_reads)
        return 0
    report: dict[str, object] = {}
    if args.only is None:
        report.update(test_set(reader, args.limit))
    if args.only in (None, "facing"):
        report.update(backs_set(reader, args.limit))
        report.update(backs_set(reader, args.limit, calibrated=True))
        report.update(rendered_backs(reader, 4 if args.limit else 40))
        report.update(rendered_backs(reader, 4 if args.limit else 40, across=True))
        report.update(rendered_backs(reader, 4 if args.limit else 40, across=True, plane=True))
    if args.only in (None, "rows"):
        report.update(board_rows(reader, 4 if args.limit else 30, args.row_seeds))
    if args.unseen_decks is not None:
        report.update(unseen_decks(reader, args.unseen_decks))
    if args.only in (None, "speed"):
        ten = ten_card_frames(4 if args.limit else 20)
        median_ms(reader, ten[:1], 2)  # warm up
        report.update(_frame_figures(reader, ten, args.repeats))
        # the same frames from a camera looking across the table (squashed to 0.7), read through
        # its plane: seen from above (vision/view.py), the warp counted
        across = _across_the_table(0.7)
        squashed = [cv2.resize(frame, across.size, interpolation=cv2.INTER_AREA) for frame in ten]
        report["frame_ms_across_plane"] = median_ms(camera_reader(reader, across), squashed, args.repeats)
        report.update(stream_times(reader, ten))
    if args.only is None:
        photos = []
        for name in sorted(p.name for p in TEST.glob("*.[jJ][pP]*[gG]"))[: args.limit or None]:
            frame = read_image(TEST / name)
            if isinstance(frame, Frame):
                photos.append(cv2.resize(frame.image, (640, 480), interpolation=cv2.INTER_AREA))
        report["frame_ms_photos"] = median_ms(reader, photos, args.repeats)
    if args.only in (None, "speed"):
        report["frame_ms_backs_calibrated"] = backs_calibrated_ms(reader, args.repeats)
        report["mouth_ms"] = mouth_ms(reader, args.repeats)
    if args.instructions:
        report["frame_instructions_m"] = frame_instructions(args.model)
    report["act_confidence"] = ACT_CONFIDENCE
    report["reference_edje_accuracy"] = 0.049
    # whether the pipeline's hot modules ran compiled (tablectl native build) or as their source
    report["vision_compiled"] = running_native(VISION)
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
