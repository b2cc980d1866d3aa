"""Corner proposals (vision/corners.py) on drawn outlines, and dark cards' reads in the reader."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from tests.helpers.camera_frames import FELT, face, laid
from tests.helpers.paths import DATA
from vision import corners
from vision.corners import CARD_ASPECT, PaperBlob, corner_frames, find_blobs
from vision.reader import ACT_CONFIDENCE, CardReader, Facing
from vision.sources import Frame, read_image


def canny_blobs(
    image: np.ndarray, score: np.ndarray, min_area: float, found: list[PaperBlob]
) -> list[PaperBlob]:
    """corners._canny_blobs on a colour image."""
    return corners._canny_blobs(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), score, min_area, found)


def card_corners(top_left: tuple[float, float], width: float, angle: float) -> np.ndarray:
    """A card's corners clockwise from its top left, its top edge turned by ``angle`` degrees."""
    a = math.radians(angle)
    across = np.array([math.cos(a), math.sin(a)]) * width
    down = np.array([-math.sin(a), math.cos(a)]) * width * CARD_ASPECT
    p = np.array(top_left)
    return np.array([p, p + across, p + across + down, p + down])


def spread(count: int, width: float, step: float, angle: float) -> tuple[np.ndarray, list[np.ndarray]]:
    """White cards overlapping in a row on a dark cloth, each one over the one before it, as a
    dealer spreads them: every index corner shows, but only the first card's is a vertex of their
    union (the others lie on its top edge)."""
    image = np.full((480, 640, 3), (30, 90, 20), np.uint8)
    a = math.radians(angle)
    cards = []
    for k in range(count):
        top_left = (120 + k * step * math.cos(a), 140 + k * step * math.sin(a))
        quad = card_corners(top_left, width, angle)
        cv2.fillConvexPoly(image, quad.astype(np.int32), (235, 235, 235))
        cards.append(quad)
    return image, cards


def proposed_at(frames: list[corners.CornerFrame], quad: np.ndarray, width: float) -> bool:
    """A frame at the card's top-left corner, its 'across' along the card's top edge."""
    top = (quad[1] - quad[0]) / np.linalg.norm(quad[1] - quad[0])
    return any(
        float(np.hypot(*(np.array(f.point) - quad[0]))) < 0.08 * width and float(np.dot(f.across, top)) > 0.97
        for f in frames
    )


@pytest.mark.parametrize("angle", [0.0, 20.0, 65.0, 150.0])
def test_a_whole_cards_corners_are_its_own_not_the_notches_its_print_cuts(
    angle: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An index printed near the edge is no paper at a high whiteness level: the outline there
    runs round it, and its simplified corners are chamfers (no right angle). A whole card's
    corners are its hull's four."""
    image = np.full((480, 640, 3), (90, 110, 120), np.uint8)  # a grey-brown carpet
    quad = card_corners((250, 150), 110, angle)
    cv2.fillConvexPoly(image, quad.astype(np.int32), (238, 238, 238))
    a = math.radians(angle)
    across, down = np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a), math.cos(a)])
    for corner, sign in ((quad[0], 1), (quad[2], -1)):  # red ink at the two index corners' edges
        box = ((0.03, 0.03), (0.16, 0.03), (0.16, 0.32), (0.03, 0.32))  # of the width, from the corner
        ink = np.array([corner + sign * (across * u + down * v) * 110 for u, v in box])
        cv2.fillConvexPoly(image, ink.astype(np.int32), (40, 40, 200))
    blobs = find_blobs(image)
    wholes = [b for b in blobs if b.whole]
    assert len(wholes) == 1
    frames = [f for f in corner_frames(blobs, image.shape) if blobs[f.blob].whole]
    for k in range(4):
        assert any(float(np.hypot(*(np.array(f.point) - quad[k]))) < 4 for f in frames), (angle, k)
    # simplified as any other outline, the notched corners are lost
    monkeypatch.setattr(corners, "_card_quad", lambda contour: None)
    blobs = find_blobs(image)
    frames = [f for f in corner_frames(blobs, image.shape) if blobs[f.blob].whole]
    assert not all(any(float(np.hypot(*(np.array(f.point) - quad[k]))) < 4 for f in frames) for k in range(4))


def test_a_dark_region_closed_by_edges_is_no_paper_card() -> None:
    """A dark back, card-shaped and closed by its edges, is not a paper card (the dark outlines
    are its finder)."""
    image = np.full((480, 640, 3), 225, np.uint8)
    quad = card_corners((250, 150), 110, 10.0)
    cv2.fillConvexPoly(image, quad.astype(np.int32), (60, 30, 20))
    assert not [b for b in canny_blobs(image, corners.whiteness(image), 500.0, []) if b.whole]


def card_on_a_white_board(x: int, y: int) -> tuple[np.ndarray, np.ndarray]:
    """A 400 x 225 frame of a white board (no whiteness level parts a card from it) with a card
    80 x 112 px at (x, y), two rows of print across it from edge to edge (a ten's pips touching
    through the dilated edges: its paper is three regions, none card-shaped); and its corners."""
    image = np.full((225, 400, 3), 205, np.uint8)
    quad = np.array([[x, y], [x + 80, y], [x + 80, y + 112], [x, y + 112]], np.float32)
    cv2.fillConvexPoly(image, quad.astype(np.int32), (245, 245, 245))
    for row in (y + 30, y + 75):
        cv2.rectangle(image, (x - 1, row), (x + 81, row + 6), (30, 30, 30), -1)
    return image, quad


def canny_wholes(image: np.ndarray) -> list[PaperBlob]:
    return [b for b in canny_blobs(image, corners.whiteness(image), 500.0, []) if b.whole]


@pytest.mark.parametrize(("switch", "shadow"), [("CANNY_LOOPS", False), ("LOOP_TAILS", True)])
def test_a_card_whose_print_parts_its_paper_is_one_loop_of_edges(
    monkeypatch: pytest.MonkeyPatch, switch: str, shadow: bool
) -> None:
    """Its paper is three regions, but its edges are one loop all round, also where its foot
    nearly touches the frame's edge (CANNY_LOOPS); with a shadow's edge running on from its side,
    the loop carries the line along, and its hull is no card's shape until the line is trimmed off
    (LOOP_TAILS)."""
    image, quad = card_on_a_white_board(150, 60) if shadow else card_on_a_white_board(230, 110)
    if shadow:
        image[150:, 231:] = 150  # beside the card's foot, its edge running on to the right
    [whole] = canny_wholes(image)
    assert np.abs(np.sort(whole.polygon, axis=0) - np.sort(quad, axis=0)).max() < 2.5
    monkeypatch.setattr(corners, switch, False)
    assert not canny_wholes(image)


def test_a_card_whose_corner_lies_under_anothers_side_is_proposed_at_the_notch(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A card turned 35 degrees lies over another's top-left corner: the union's outline has a
    notch where its side crosses the lower card's, no corner of either; the lower card's corner
    is proposed there, along its own side and square to it."""
    image = np.full((480, 640, 3), (30, 90, 20), np.uint8)
    lower = card_corners((200, 200), 110, 0.0)
    cv2.fillConvexPoly(image, lower.astype(np.int32), (235, 235, 235))
    upper = card_corners((0, 0), 110, 35.0)
    a = math.radians(35.0)
    upper += np.array([200.0, 200.0]) + 3 * np.array([math.cos(a), math.sin(a)]) - (upper[1] + upper[2]) / 2
    cv2.fillConvexPoly(image, upper.astype(np.int32), (235, 235, 235))
    blobs = find_blobs(image)
    assert proposed_at(corner_frames(blobs, image.shape), lower, 110)
    monkeypatch.setattr(corners, "NOTCH_CORNERS", False)
    assert not proposed_at(corner_frames(blobs, image.shape), lower, 110)


def test_a_court_card_in_deep_shade_is_paper_by_its_border(monkeypatch: pytest.MonkeyPatch) -> None:
    """A court card in a dark room's shade: its paper is a dim grey (whiteness ~80, under the
    lowest level) and its dark picture fills most of it, so the mean inside its loop of edges is
    no paper's; its border, much whiter than the dark table, is."""
    image = np.full((225, 400, 3), (22, 20, 18), np.uint8)
    cv2.rectangle(image, (150, 60), (230, 172), (92, 90, 88), -1)
    cv2.rectangle(image, (162, 76), (218, 156), (45, 30, 60), -1)  # the picture
    wholes = [b for b in canny_blobs(image, corners.whiteness(image), 500.0, []) if b.whole]
    assert len(wholes) == 1
    monkeypatch.setattr(corners, "LOOP_BORDER", 0.0)
    assert not [b for b in canny_blobs(image, corners.whiteness(image), 500.0, []) if b.whole]


@pytest.mark.parametrize("angle", [0.0, 7.0, -12.0])
def test_the_covered_cards_of_a_spread_have_their_index_corner_proposed(angle: float) -> None:
    image, cards = spread(5, 90, 45, angle)
    frames = corner_frames(find_blobs(image), image.shape)
    assert all(proposed_at(frames, quad, 90) for quad in cards)


def test_a_spread_photographed_close_has_its_covered_corners_proposed() -> None:
    # three cards 180 px wide, the spread 252 px high: over half the frame's short side (a fan
    # photographed close, IMG_2656's), not yet a cloth
    image, cards = spread(3, 180, 140, 0.0)
    frames = corner_frames(find_blobs(image), image.shape)
    assert all(proposed_at(frames, quad, 180) for quad in cards)


def test_without_proposals_along_edges_the_covered_corners_are_missed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    image, cards = spread(5, 90, 45, 0.0)
    monkeypatch.setattr(corners, "EDGE_PROPOSALS", False)
    frames = corner_frames(find_blobs(image), image.shape)
    assert proposed_at(frames, cards[0], 90)
    assert not any(proposed_at(frames, quad, 90) for quad in cards[1:])


def test_a_single_card_gets_no_proposals_along_its_edges() -> None:
    image = np.full((480, 640, 3), (30, 90, 20), np.uint8)
    quad = card_corners((200, 120), 100, 10.0)
    cv2.fillConvexPoly(image, quad.astype(np.int32), (235, 235, 235))
    frames = corner_frames(find_blobs(image), image.shape)
    assert 1 <= len(frames) <= 8  # its corners, one width each at most two


def test_a_cut_off_corner_is_found_where_its_two_edges_meet() -> None:
    # a card's outline whose top-left corner was simplified into a short diagonal edge
    outline = np.array([[40, 30], [130, 30], [130, 170], [30, 170], [30, 40]], np.float32)
    blob = PaperBlob(outline.reshape(-1, 1, 2).astype(np.int32), outline, dark=False)
    frames = corner_frames([blob], (300, 300))
    at_corner = [f for f in frames if np.hypot(f.point[0] - 30, f.point[1] - 30) < 1.0]
    assert at_corner, frames
    assert all(
        np.allclose(f.across, (1, 0), atol=1e-6) and np.allclose(f.down, (0, 1), atol=1e-6) for f in at_corner
    )
    assert any(abs(f.width - 100) < 1.0 for f in at_corner)


def covered_card_frame(with_a_whole_card: bool) -> tuple[np.ndarray, np.ndarray]:
    """A card whose top edge and left edge are both cut short by two cards lying over it (their
    union is one blob), and, if asked, a card of the same size alone beside them."""
    image = np.full((480, 640, 3), (30, 90, 20), np.uint8)
    covered = card_corners((300, 100), 90, 0.0)
    for quad in (covered, card_corners((340, 80), 90, 0.0), card_corners((280, 160), 90, 0.0)):
        cv2.fillConvexPoly(image, quad.astype(np.int32), (235, 235, 235))
    if with_a_whole_card:
        cv2.fillConvexPoly(image, card_corners((60, 200), 90, 8.0).astype(np.int32), (235, 235, 235))
    return image, covered


@pytest.mark.parametrize("with_a_whole_card", [False, True])
def test_a_covered_cards_corner_is_tried_at_the_width_of_the_whole_cards(with_a_whole_card: bool) -> None:
    # its visible edges (40 and 60 px) say it is about 40 px wide, a quarter more says 50-55: only
    # the card lying alone tells that it is 90
    image, covered = covered_card_frame(with_a_whole_card)
    frames = corner_frames(find_blobs(image), image.shape)
    at_corner = [f for f in frames if float(np.hypot(*(np.array(f.point) - covered[0]))) < 4]
    assert at_corner, frames
    assert any(abs(f.width - 50) < 5 for f in at_corner)
    assert any(abs(f.width - 90) < 5 for f in at_corner) is with_a_whole_card


def test_a_dark_decks_cards_are_face_up_with_their_names_but_not_acted_on() -> None:
    # backs-cardcounter's IMG_7820: 2S, KS and 6S face up (gold print on black cards), one back
    frame = read_image(DATA / "cards" / "backs-cardcounter" / "images" / "IMG_7820.jpg")
    assert isinstance(frame, Frame), frame
    sightings = CardReader().read(frame.image)
    named = [s for s in sightings if s.facing is Facing.UP and s.card is not None]
    assert named
    assert all(s.confidence < ACT_CONFIDENCE for s in named)
    assert all("dark card" in s.why for s in named)


def dark_cards_on_a_desk(*quads: np.ndarray) -> np.ndarray:
    image = np.full((480, 640, 3), (222, 226, 228), np.uint8)
    for quad in quads:
        cv2.fillConvexPoly(image, quad.astype(np.int32), (30, 28, 26))
    return image


def test_two_dark_cards_side_by_side_are_not_one_whole_card() -> None:
    """Two dark cards lying side by side, a slit between them, fill a card-shaped box: the slit's
    dent says they are two, so each corner is tried at its own card's width, not the box's."""
    left = card_corners((150, 120), 110, 0.0)
    right = card_corners((260, 120), 110, 0.0)
    image = dark_cards_on_a_desk(left, right)
    cv2.line(image, (260, 110), (260, 214), (222, 226, 228), 3)  # the slit between them, to where they touch
    [blob] = [b for b in find_blobs(image) if b.dark]
    assert not blob.whole
    frames = corner_frames([blob], image.shape)
    at_top_left = [f.width for f in frames if math.dist(f.point, (150, 120)) < 6]
    assert any(abs(width - 110) < 8 for width in at_top_left), at_top_left


def levels_searched_in_full(score: np.ndarray, min_area: float) -> list[PaperBlob]:
    """The paper's blobs as they were found before _paper_blobs, on its own terms: each level's mask
    opened on its own and searched in full, the outlines of every level sorted whole cards first,
    each kept unless one kept before it covers it (its box the same, to SAME_BLOB_TOLERANCE of its
    larger side and 2 pixels at least, or its box's centre in a whole card's box), all pairs at
    once."""
    outlines = sorted(
        (
            outline
            for level in corners.WHITENESS_LEVELS
            for outline in corners._outlines(
                cv2.morphologyEx((score >= level).astype(np.uint8) * 255, cv2.MORPH_OPEN, corners.OPENING),
                min_area,
                dark=False,
            )
        ),
        key=lambda outline: not outline[1],
    )
    boxes = np.array([cv2.boundingRect(contour) for contour, _ in outlines]).reshape(-1, 4)
    wholes = np.array([whole for _, whole in outlines], bool)
    tolerances = np.maximum(2, (corners.SAME_BLOB_TOLERANCE * boxes[:, 2:].max(axis=1)).astype(int))
    same = (np.abs(boxes[:, None, :] - boxes[None, :, :]) <= tolerances[None, :, None]).all(axis=2)
    cx, cy = boxes[:, 0] + boxes[:, 2] / 2, boxes[:, 1] + boxes[:, 3] / 2
    x, y, w, h = (column[:, None] for column in boxes.T)
    covers = same | (wholes[:, None] & (x <= cx) & (cx <= x + w) & (y <= cy) & (cy <= y + h))
    kept: list[PaperBlob] = []
    covered = np.zeros(len(outlines), bool)
    for i, (contour, whole) in enumerate(outlines):
        if not covered[i] and (blob := corners._simplified(contour, False, whole)) is not None:
            kept.append(blob)
            covered |= covers[i]
    return kept


def cards_at_every_level() -> np.ndarray:
    """Grey blobs of every whiteness on a grey-brown floor, specks for the opening to remove, and
    cards of paper at three whitenesses on dark margins, each printed with a grey bar (its paper
    parted there at the levels above the bar's), and two cards side by side joined by a grey line
    (one card-shaped blob, found whole, at the levels below the line's)."""
    rng = np.random.default_rng(12)
    grey = cv2.resize(rng.integers(60, 256, (30, 40), dtype=np.uint8), (640, 480))
    tint = rng.integers(0, 12, (480, 640, 3), dtype=np.uint8)
    image = cv2.subtract(cv2.merge([grey, grey, grey]), tint)
    image[rng.random((480, 640)) < 0.02] = 255
    for (x, y), angle, white in [((60, 40), 10.0, 250), ((300, 60), -25.0, 180), ((480, 250), 35.0, 140)]:
        quad = card_corners((x, y), 80, angle).astype(np.int32)
        cv2.fillConvexPoly(image, card_corners((x - 12, y - 12), 104, angle).astype(np.int32), (40, 40, 40))
        cv2.fillConvexPoly(image, quad, (white, white, white))
        centre = quad.mean(axis=0).astype(int)
        cv2.line(
            image,
            (int(centre[0]) - 30, int(centre[1])),
            (int(centre[0]) + 30, int(centre[1])),
            (120, 120, 120),
            6,
        )
    cv2.rectangle(image, (90, 290), (252, 410), (40, 40, 40), -1)
    for x in (100, 172):
        cv2.rectangle(image, (x, 300), (x + 70, 400), (200, 200, 200), -1)
    cv2.line(image, (171, 300), (171, 400), (150, 150, 150), 1)
    return image


def outlines_counted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The outlines _outlines finds, call by call, from now on."""
    found: list[int] = []
    outlines = corners._outlines

    def counted(mask: np.ndarray, min_area: float, dark: bool) -> list[tuple[np.ndarray, bool]]:
        result = outlines(mask, min_area, dark)
        found.append(len(result))
        return result

    monkeypatch.setattr(corners, "_outlines", counted)
    return found


def same_blobs(blobs: list[PaperBlob], others: list[PaperBlob]) -> bool:
    return [(b.whole, b.contour.tolist(), b.polygon.tolist()) for b in blobs] == [
        (b.whole, b.contour.tolist(), b.polygon.tolist()) for b in others
    ]


def test_each_level_is_searched_outside_the_whole_cards_found_below_it_with_the_same_blobs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    image = cards_at_every_level()
    score = corners.whiteness(image)
    reference = levels_searched_in_full(score, 600.0)
    found = outlines_counted(monkeypatch)
    blobs = corners._paper_blobs(score, 600.0)
    assert len([blob for blob in blobs if blob.whole]) >= 3 and len(blobs) > len(
        [b for b in blobs if b.whole]
    )
    assert same_blobs(blobs, reference)
    # the cards blanked: their paper's outlines at the levels above the lowest are not found again
    blanked = list(found)
    levels_searched_in_full(score, 600.0)
    in_full = found[len(blanked) :]
    assert blanked[0] == in_full[0] and sum(blanked[1:]) < sum(in_full[1:]), (blanked, in_full)


def random_paper(seed: int) -> np.ndarray:
    """Cards of paper of random whiteness, size and angle on a grey floor, overlapping and cut by
    the frame's edge, some crossed by a line of print, specks, blurred as a lens blurs them (a
    card's outline then moves by a pixel or two from level to level)."""
    rng = np.random.default_rng(seed)
    image = np.full((240, 320, 3), int(rng.integers(20, 120)), np.uint8)
    for _ in range(int(rng.integers(3, 9))):
        white = int(rng.integers(90, 256))
        top_left = (float(rng.uniform(-10, 290)), float(rng.uniform(-10, 200)))
        quad = card_corners(top_left, float(rng.uniform(20, 60)), float(rng.uniform(0, 90))).astype(np.int32)
        cv2.fillConvexPoly(image, quad, (white, white, white))
        if rng.random() < 0.5:
            ink = int(rng.integers(60, 200))
            cv2.line(
                image,
                tuple(quad[0].tolist()),
                tuple(quad[2].tolist()),
                (ink, ink, ink),
                int(rng.integers(1, 4)),
            )
    image[rng.random((240, 320)) < 0.01] = 255
    return cv2.GaussianBlur(image, (0, 0), float(rng.uniform(0.5, 2.0)))


def test_random_paper_gives_the_same_blobs_as_every_level_searched_in_full() -> None:
    for seed in range(30):
        score = corners.whiteness(random_paper(seed))
        assert same_blobs(corners._paper_blobs(score, 150.0), levels_searched_in_full(score, 150.0)), seed


def test_no_level_above_one_that_leaves_nothing_is_searched(monkeypatch: pytest.MonkeyPatch) -> None:
    """Three white cards on felt, each found whole at the lowest level: the levels above find only
    them again, blanked, and are not searched."""
    image = np.full((480, 640, 3), FELT, np.uint8)
    for x, angle in [(60, 0.0), (260, 20.0), (460, -30.0)]:
        cv2.fillConvexPoly(image, card_corners((x, 120), 90, angle).astype(np.int32), (240, 240, 240))
    score = corners.whiteness(image)
    found = outlines_counted(monkeypatch)
    blobs = corners._paper_blobs(score, 600.0)
    assert [blob.whole for blob in blobs] == [True, True, True]
    assert found == [3]
    assert same_blobs(blobs, levels_searched_in_full(score, 600.0))


def test_whiteness_is_value_less_saturation_and_never_negative() -> None:
    image = np.array([[[255, 255, 255], [0, 0, 255], [100, 100, 100], [0, 0, 0], [40, 200, 120]]], np.uint8)
    hsv = cv2.cvtColor(image, cv2.COLOR_BGR2HSV).astype(int)
    expected = np.clip(hsv[:, :, 2] - hsv[:, :, 1], 0, 255)
    assert corners.whiteness(image).tolist() == expected.tolist()
    assert corners.whiteness(image)[0, 1] == 0  # pure red: value 255, saturation 255


def test_two_cards_side_by_side_are_a_group_not_one_landscape_card(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two portrait cards a few pixels apart, which a whiteness level joins into one blob the
    shape of a landscape card, with the right card found whole on its own: the joined blob is a
    group, not a card, and the left card's index corner is tried at a card's width, not only at
    the group's short side."""
    image = np.full((480, 640, 3), (30, 90, 20), np.uint8)
    left, right = card_corners((200, 180), 80, 0.0), card_corners((283, 180), 80, 0.0)
    cv2.fillConvexPoly(image, left.astype(np.int32), (235, 235, 235))
    cv2.fillConvexPoly(image, right.astype(np.int32), (235, 235, 235))
    cv2.line(image, (281, 180), (281, 292), (150, 160, 150), 3)  # the gap, half shadow at this scale
    cv2.rectangle(
        image, (200, 200), (265, 270), (160, 160, 160), -1
    )  # the left card's grey picture, to its edge

    def at_card_width(frames: list[corners.CornerFrame]) -> bool:
        return any(
            float(np.hypot(*(np.array(f.point) - left[0]))) < 0.08 * 80
            and f.across[0] > 0.97
            and abs(f.width - 80) < 0.15 * 80
            for f in frames
        )

    blobs = find_blobs(image)
    assert any(b.whole for b in blobs) and not any(
        b.whole and cv2.contourArea(b.polygon) > 15000 for b in blobs
    )
    assert at_card_width(corner_frames(blobs, image.shape))
    monkeypatch.setattr(corners, "GROUPS_NOT_WHOLE", False)
    blobs = find_blobs(image)
    assert any(b.whole and cv2.contourArea(b.polygon) > 15000 for b in blobs)  # the pair as one card
    # its pip corners are tried at a grouped card's width too (its short side over a card's aspect)
    assert at_card_width(corner_frames(blobs, image.shape))
    monkeypatch.setattr(corners, "WHOLE_PIP_WIDTHS", False)
    assert not at_card_width(corner_frames(blobs, image.shape))


def test_a_whole_cards_own_corner_is_kept_over_a_notched_outlines_vertex(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """One card seen at two whiteness levels: whole at one (its hull's corners), notched by its
    index at the other (a vertex two or three pixels inside its corner). Of the two frames at
    that corner, the whole card's is kept, whatever the blobs' order."""
    quad = np.array([[160, 226], [220, 226], [220, 310], [160, 310]], np.float32)
    whole = PaperBlob(quad.astype(np.int32).reshape(-1, 1, 2), quad, False, True)
    notched_polygon = np.array([[162, 228], [219, 227], [220, 310], [161, 311]], np.float32)
    notched = PaperBlob(notched_polygon.astype(np.int32).reshape(-1, 1, 2), notched_polygon, False, False)

    def at_whole_corner(frames: list[corners.CornerFrame]) -> bool:
        return any(f.point == (160.0, 226.0) and f.across[0] > 0.97 for f in frames)

    assert at_whole_corner(corner_frames([notched, whole], (480, 640, 3)))
    monkeypatch.setattr(corners, "WHOLE_CORNERS_FIRST", False)
    assert not at_whole_corner(corner_frames([notched, whole], (480, 640, 3)))


def test_no_corner_is_tried_far_wider_than_the_widest_card_lying_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A row of cards joined into one blob (its box's sides are a group's, not a card's) beside a
    card lying whole 60 px wide: no window is cut wider than 1.3 times that card, where the pips
    and the neighbours read as an index; the whole card keeps its own width."""
    card = np.array([[50, 50], [110, 50], [110, 134], [50, 134]], np.float32)
    row = np.array([[200, 60], [500, 60], [500, 144], [300, 144], [300, 150], [200, 150]], np.float32)
    blobs = [
        PaperBlob(card.astype(np.int32).reshape(-1, 1, 2), card, False, True),
        PaperBlob(row.astype(np.int32).reshape(-1, 1, 2), row, False, False),
    ]
    frames = corner_frames(blobs, (480, 640, 3))
    assert max(f.width for f in frames if f.blob == 1) <= 1.3 * 60
    assert any(f.blob == 0 and f.width == 60 for f in frames)
    monkeypatch.setattr(corners, "WIDTH_SPREAD", 0.0)
    assert max(f.width for f in corner_frames(blobs, (480, 640, 3)) if f.blob == 1) > 1.3 * 60


def test_a_spread_is_tried_at_the_width_of_the_cards_lying_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    """A row of overlapping cards (one blob, no card's shape) beside a card lying whole 60 px
    wide: along the row's long edges the covered cards' corners are tried at about that width,
    not at the row's own guesses alone (its short side, 100 px, is a card's height, and a window
    that wide reads the pips and the neighbours)."""
    card = np.array([[50, 50], [110, 50], [110, 134], [50, 134]], np.float32)
    row = np.array([[200, 60], [500, 60], [500, 160], [200, 160]], np.float32)
    blobs = [
        PaperBlob(card.astype(np.int32).reshape(-1, 1, 2), card, False, True),
        PaperBlob(row.astype(np.int32).reshape(-1, 1, 2), row, False, False),
    ]

    def along_top_at_card_width(frames: list[corners.CornerFrame]) -> int:
        return sum(
            1
            for f in frames
            if f.blob == 1
            and abs(f.point[1] - 60) < 1
            and 210 < f.point[0] < 450
            and abs(f.width - 60) <= 0.12 * 60
        )

    assert along_top_at_card_width(corner_frames(blobs, (480, 640, 3))) >= 10
    monkeypatch.setattr(corners, "EDGE_AT_CARD_WIDTH", False)
    assert along_top_at_card_width(corner_frames(blobs, (480, 640, 3))) == 0


@pytest.mark.parametrize("angle", [15.0, 30.0, 45.0])
def test_a_card_found_whole_is_not_found_again_by_its_edges(
    monkeypatch: pytest.MonkeyPatch, angle: float
) -> None:
    """A rendered seven turned on felt (geaxgx's face, rounded corners): the whiteness levels find
    it whole, and its loop of edges, a few pixels off at the turned corners, is that card again,
    not another whole card with four more corners to read."""
    image = laid(np.full((300, 400, 3), FELT, np.uint8), face("7c", 45), (200, 150), angle)
    score = corners.whiteness(image)
    found = corners._paper_blobs(score, 150.0)
    assert [b.whole for b in found] == [True]
    assert not [b for b in canny_blobs(image, score, 150.0, found) if b.whole]
    monkeypatch.setattr(corners, "FOUND_TOLERANCE", 0.05)
    assert [b for b in canny_blobs(image, score, 150.0, found) if b.whole]


def test_a_dark_cards_side_cut_by_the_frames_edge_gives_no_width(monkeypatch: pytest.MonkeyPatch) -> None:
    """A dark card lying across, running off the frame's right edge (40 px of its 120 px length in
    view): its two sides that end on the border are no card's width or height, so their length is
    not tried as a width at its corners in view (a white card's cut sides still are: the training
    photos' IMG_2611 jack is read at that width)."""
    image = np.full((300, 400, 3), 215, np.uint8)
    cv2.rectangle(image, (360, 80), (480, 170), (25, 25, 25), -1)
    # the corners in view at (360, 80) and (360, 170): their sides along the card end on the border
    blobs = find_blobs(image)

    def widths(frames: list[corners.CornerFrame]) -> list[float]:
        return [f.width for f in frames if f.point[0] < 370 and blobs[f.blob].dark]

    cut_side = 40
    assert widths(corner_frames(blobs, image.shape))  # its corners in view are proposed
    assert all(abs(w - cut_side) > 0.12 * cut_side for w in widths(corner_frames(blobs, image.shape)))
    monkeypatch.setattr(corners, "CUT_SIDES_NO_WIDTH", False)
    assert any(abs(w - cut_side) <= 0.12 * cut_side for w in widths(corner_frames(blobs, image.shape)))


def test_whiteness_is_hsv_value_less_saturation_to_a_level() -> None:
    """whiteness() works HSV's value and saturation out from the channels' max and min: within
    one grey level of OpenCV's own HSV everywhere (its saturation rounds otherwise by one)."""
    rng = np.random.default_rng(5)
    image = rng.integers(0, 256, (120, 160, 3), dtype=np.uint8)
    image[:10] = 0  # black: no saturation, no division by a value of 0
    image[10:20] = 255
    hsv = cv2.cvtColor(image, cv2.COLOR_BGR2HSV)
    expected = np.clip(hsv[..., 2].astype(int) - hsv[..., 1], 0, 255)
    got = corners.whiteness(image).astype(int)
    assert np.abs(got - expected).max() <= 1
    assert (got != expected).mean() < 0.01
    assert (got[:20] == expected[:20]).all()


def test_the_light_sides_median_from_the_histogram_is_numpys() -> None:
    rng = np.random.default_rng(9)
    for _ in range(300):
        gray = rng.integers(0, 256, (int(rng.integers(1, 30)), int(rng.integers(1, 30))), dtype=np.uint8)
        level = int(rng.integers(0, 256))
        light = gray[gray > level]
        expected = float(np.median(light)) if light.size else None
        assert corners._median_above(gray, level) == expected


def test_an_area_shrink_by_a_power_of_two_halves_to_the_same_means() -> None:
    """shrunk(): halving twice with area resampling is a quarter's area resampling, rounded twice;
    any other factor, or a size the halvings do not divide, is the one resampling it was."""
    rng = np.random.default_rng(2)
    image = rng.integers(0, 256, (480, 640, 3), dtype=np.uint8)
    once = cv2.resize(image, (160, 120), interpolation=cv2.INTER_AREA).astype(int)
    halved = corners.shrunk(image, 0.25)
    assert halved.shape == (120, 160, 3)
    assert np.abs(halved.astype(int) - once).max() <= 1
    for size, factor in (((720, 960), 160 / 960), ((600, 800), 0.2), ((333, 500), 0.25), ((3, 641), 0.25)):
        other = rng.integers(0, 256, (*size, 3), dtype=np.uint8)
        expected = cv2.resize(other, None, fx=factor, fy=factor, interpolation=cv2.INTER_AREA)
        assert np.array_equal(corners.shrunk(other, factor), expected)


@pytest.mark.parametrize("channel_count", [3, 4])
def test_channels_are_opencvs_planes_of_any_image(channel_count: int) -> None:
    """corners.channels gives cv2.split's planes, each its own contiguous array, of a BGR or BGRA
    image and of a view that is not contiguous (a crop): the split written into planes made by
    the caller must not change a value."""
    rng = np.random.default_rng(channel_count)
    image = rng.integers(0, 256, (60, 80, channel_count), dtype=np.uint8)
    for seen in (image, image[5:50, 7:71]):
        planes = corners.channels(seen)
        assert len(planes) == channel_count
        for plane, expected in zip(planes, cv2.split(seen), strict=True):
            assert plane.flags["C_CONTIGUOUS"] and plane.dtype == np.uint8
            assert np.array_equal(plane, expected)
        assert np.array_equal(np.dstack(planes), seen)
