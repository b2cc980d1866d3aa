"""Corners from straight edges (vision/segments.py) and the reader's pass over light ground that no
card read explains (vision/reader.py _segment_corners)."""

from __future__ import annotations

import math
import random
import runpy

import cv2
import numpy as np
import pytest

import vision.reader as reader_module
from tests.helpers.camera_frames import face, laid, spread_of
from tests.helpers.paths import DATA
from vision.index_reader import IndexReader
from vision.reader import ACT_CONFIDENCE, CardReader, Facing
from vision.segments import l_corners, segments

PHOTOS = DATA / "cards" / "photos-tfod-train" / "images"


def _light_ground(seed: int = 3) -> np.ndarray:
    """A light, mottled ground (a white box, marble, cream paper) as white as card paper."""
    rng = np.random.default_rng(seed)
    noise = cv2.GaussianBlur(rng.normal(0, 12, (480, 640)).astype(np.float32), (0, 0), 3)
    ground = np.clip(225 + noise, 0, 255).astype(np.uint8)
    return cv2.merge([ground, ground, ground])


def _drawn_card(angle: float) -> tuple[np.ndarray, np.ndarray]:
    """A plain white card 120 x 168 px turned ``angle`` degrees on the light ground, a shade
    whiter, its edge a faint shadow line: the frame and the card's corners."""
    frame = _light_ground()
    corners = cv2.boxPoints(((320, 240), (120, 168), angle)).astype(np.float32)
    cv2.polylines(frame, [np.round(corners).astype(np.int32)], True, (190, 190, 190), 2, cv2.LINE_AA)
    cv2.fillPoly(frame, [np.round(corners).astype(np.int32)], (245, 245, 245), cv2.LINE_AA)
    return frame, corners


@pytest.mark.parametrize("angle", [0.0, 17.0, 40.0])
def test_each_corner_of_a_card_on_light_ground_is_an_l_of_its_sides(angle: float) -> None:
    frame, corners = _drawn_card(angle)
    found = l_corners(segments(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)), 24)
    for corner in corners:
        near = [c for c in found if math.dist(c.point, corner) < 4.0]
        assert near, (corner, [c.point for c in found])
        # the card's two sides from this corner (LSD may find a side in pieces: an L of each)
        sides = [other - corner for other in corners if 100 < math.dist(other, corner) < 200]
        sides = [side / np.linalg.norm(side) for side in sides]
        for c in near:
            # across to down turns clockwise (y down), as a CornerFrame's: the index reads upright
            assert c.across[0] * c.down[1] - c.across[1] * c.down[0] > 0.9
            for arm in (c.across, c.down):
                assert max(float(np.dot(arm, side)) for side in sides) > 0.99  # along a side of the card


def test_lines_at_a_slant_apart_or_short_make_no_corner() -> None:
    lines = np.array(
        [
            [100, 100, 200, 100],  # and this one at 45 degrees from its end: no right angle
            [100, 100, 170, 170],
            [300, 300, 400, 300],  # and this one square to it but 30 px from its end
            [430, 300, 430, 400],
            [500, 100, 505, 100],  # and this one square to it but only 5 px long
            [500, 100, 500, 200],
        ],
        np.float32,
    )
    assert l_corners(lines, 24) == []
    square = np.array([[100, 100, 200, 100], [100, 100, 100, 220]], np.float32)
    (corner,) = l_corners(square, 24)
    assert corner.point == pytest.approx((100.0, 100.0), abs=1e-3)
    assert (corner.across, corner.down) == ((1.0, 0.0), (0.0, 1.0))
    assert (corner.across_length, corner.down_length) == (pytest.approx(100.0), pytest.approx(120.0))


@pytest.fixture(scope="module")
def reader() -> CardReader:
    return CardReader.with_classifier(IndexReader())


def test_an_ace_on_a_white_box_is_read_by_its_straight_sides(
    reader: CardReader, monkeypatch: pytest.MonkeyPatch
) -> None:
    """IMG_2446 (a training photo): the ace of hearts lies on a white box printed in grey and blue,
    as white as the card; no whiteness level parts it, no loop of edges closes round it."""
    image = cv2.imread(str(PHOTOS / "IMG_2446.JPG"))
    assert image is not None

    def aces() -> list[float]:
        return [s.confidence for s in reader.read(image) if s.card == "Ah" and s.facing is Facing.UP]

    assert max(aces(), default=0.0) >= ACT_CONFIDENCE
    measuring = reader.without_straight_edges()  # as an index's size is measured: not read there
    assert max((s.confidence for s in measuring.read(image) if s.card == "Ah"), default=0.0) < ACT_CONFIDENCE
    monkeypatch.setattr(reader_module, "SEGMENT_CORNERS", False)
    assert max(aces(), default=0.0) < ACT_CONFIDENCE


def test_cards_on_the_cloth_leave_no_ground_to_look_at(
    reader: CardReader, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every card of a spread on the felt read: nothing is left for the line segment detector,
    which is not run (it costs several milliseconds a frame)."""
    frame = spread_of([face(card) for card in ("As", "Kd", "7c", "Th", "2s", "Qh")])

    def no_segments(gray: np.ndarray) -> np.ndarray:
        raise AssertionError("segments looked for on a frame with no light ground left")

    monkeypatch.setattr(reader_module, "segments", no_segments)
    read = {s.card for s in reader.read(frame) if s.confidence >= ACT_CONFIDENCE}
    assert read == {"As", "Kd", "7c", "Th", "2s", "Qh"}


def test_a_card_on_light_ground_is_read_where_its_paper_is_not_told_apart(
    reader: CardReader, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A rendered face on the light mottled ground, its edge a faint shadow: read by name, and not
    by the paper's outlines alone."""
    ground = _light_ground(5)
    card = face("9s", 110)
    frame = laid(ground, card, (330, 250), 23.0)
    # the card's edge as a soft shadow line, as on a white box
    mask = laid(np.zeros_like(ground), np.full_like(card, 255), (330, 250), 23.0)[..., 0]
    edge = cv2.morphologyEx(mask, cv2.MORPH_GRADIENT, np.ones((3, 3), np.uint8))
    frame[edge > 0] = (frame[edge > 0] * 0.85).astype(np.uint8)
    found = reader.read(frame)
    named = [s for s in found if s.card == "9s" and s.confidence >= ACT_CONFIDENCE]
    assert named
    assert len(found) == 1  # it takes the place of the card its paper showed, unread
    monkeypatch.setattr(reader_module, "SEGMENT_CORNERS", False)
    assert not [s for s in reader.read(frame) if s.card == "9s" and s.confidence >= ACT_CONFIDENCE]


@pytest.mark.parametrize(("family", "design"), [("checks", 10), ("stripes", 7)])
def test_backs_patterns_make_ls_but_no_card_read_only_there(
    reader: CardReader, monkeypatch: pytest.MonkeyPatch, family: str, design: int
) -> None:
    """Backs of checks or stripes (bench/backs_stress.py's families, one design each) stacked: their
    light parts are ground no card explains, and their pattern's Ls are read as a king of clubs at
    up to 0.97. A card read first at an L must be named at acting confidence and read alike by the
    pattern check, and these are not: no back is face up, as without the segments."""
    from tests.helpers.paths import ROOT

    stress = runpy.run_path(str(ROOT / "bench" / "backs_stress.py"))
    rng = random.Random(f"1-{family}-{design}")
    back = stress["FAMILIES"][family](rng, rng.choice([70, 90, 110]))
    cloth = rng.choice(list(stress["CLOTHS"]))
    for _ in range(2):  # the bench's calibration frames, drawn as it draws them
        stress["frame_of"](rng, back, cloth, "apart")
    placements = stress["PLACEMENTS"]
    frames = [stress["frame_of"](rng, back, cloth, placements[k % len(placements)]) for k in range(8)]

    def face_up() -> list[str]:
        return [
            f"{s.card} {s.confidence:.2f}" for f in frames for s in reader.read(f) if s.facing is Facing.UP
        ]

    with_segments = face_up()
    monkeypatch.setattr(reader_module, "SEGMENT_CORNERS", False)
    assert with_segments == face_up()  # the backs face up without the segments (the bench's 21)
    monkeypatch.setattr(reader_module, "SEGMENT_CORNERS", True)
    monkeypatch.setattr(reader_module, "SEGMENT_CARDS_CONFIRMED", False)
    unconfirmed = [card for card in face_up() if card not in with_segments]
    assert any(card.startswith("Kc") and float(card.split()[1]) >= ACT_CONFIDENCE for card in unconfirmed)


def test_a_dark_queen_under_a_black_back_is_found_face_up_at_the_ls_of_its_sides(
    reader: CardReader, monkeypatch: pytest.MonkeyPatch
) -> None:
    """backs-cardcounter's IMG_7719: a black deck on a white desk; the queen of spades lies under a
    plain black back, both touching a seven and the floor beyond the desk's edge: one dark blob whose
    outline keeps none of the queen's index corners. Its lower-left corner is an L of its two sides,
    read there face up (named, held below acting confidence as a dark card's name is); without
    the pass it is not found at all."""
    image = cv2.imread(str(DATA / "cards" / "backs-cardcounter" / "images" / "IMG_7719.jpg"))
    assert image is not None
    index = (136, 530)  # the queen's index, beside her lower-left corner (122, 553)

    def at_the_queen() -> list[tuple[str | None, float]]:
        return [
            (s.card, s.confidence)
            for s in reader.read(image)
            if s.facing is Facing.UP
            and cv2.pointPolygonTest(np.array(s.corners, np.float32), index, False) >= 0
        ]

    found = at_the_queen()
    assert [card for card, _ in found] == ["Qs"]
    assert all(confidence < ACT_CONFIDENCE for _, confidence in found)
    monkeypatch.setattr(reader_module, "DARK_LS", False)
    assert at_the_queen() == []


def test_black_backs_run_together_on_light_ground_make_ls_but_no_face(reader: CardReader) -> None:
    """Three plain black cards overlapping on a white desk, one dark blob: each corner in view is an
    L read as a corner of that blob (at the widths its arms give: the cards are 110 px wide), and no
    back is called face up (a plain back shows the classifier no rank and has no print)."""
    rng = np.random.default_rng(7)
    noise = cv2.GaussianBlur(rng.normal(0, 6, (480, 640)).astype(np.float32), (0, 0), 2)
    frame = cv2.merge([np.clip(228 + noise, 0, 255).astype(np.uint8)] * 3)
    corners = []
    for centre, angle in (((230, 330), 70.0), ((330, 300), 20.0), ((430, 220), -10.0)):
        box = cv2.boxPoints((centre, (110, 154), angle)).astype(np.float32)
        corners += list(box)
        cv2.fillPoly(frame, [np.round(box).astype(np.int32)], (28, 26, 30), cv2.LINE_AA)
    blobs = reader_module.find_blobs(frame)
    frames = reader_module._dark_card_ls(frame, blobs)
    assert frames and all(blobs[f.blob].dark and not blobs[f.blob].whole for f in frames)
    at_a_corner = [f for f in frames if min(math.dist(f.point, c) for c in corners) < 4.0]
    assert len({(round(f.point[0]), round(f.point[1])) for f in at_a_corner}) >= 5
    assert any(abs(f.width - 110) < 0.12 * 110 for f in at_a_corner)
    assert [s for s in reader.read(frame) if s.facing is Facing.UP] == []


def test_a_dark_blob_of_one_card_is_not_looked_at_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """A black card alone on the desk: its outline has its four corners; the line segment detector
    is not run (it costs milliseconds a frame)."""
    frame = np.full((480, 640, 3), 228, np.uint8)
    box = cv2.boxPoints(((320, 240), (110, 154), 25.0)).astype(np.float32)
    cv2.fillPoly(frame, [np.round(box).astype(np.int32)], (28, 26, 30), cv2.LINE_AA)

    def no_segments(gray: np.ndarray) -> np.ndarray:
        raise AssertionError("segments looked for on a dark card alone")

    monkeypatch.setattr(reader_module, "segments", no_segments)
    blobs = reader_module.find_blobs(frame)
    assert any(blob.dark for blob in blobs)
    assert reader_module._dark_card_ls(frame, blobs) == []
