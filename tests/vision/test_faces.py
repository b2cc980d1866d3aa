"""vision.faces: light print on a dark card cut by the frame's edge (its part in view is looked at), and
the marks on a white card (a face's few, a light back's pattern)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision import faces
from vision.faces import light_print, reaching_edge, white_face_verdict

FIELD = 70  # a dark card's field lit brighter than a black back in shade (PRINT_FIELD is 90)
GOLD = (40, 170, 210)
PIPS = ((335, 100), (335, 150), (365, 125), (396, 100), (396, 150))  # the last two cut by the edge


def cut_card(pips: bool) -> tuple[np.ndarray, np.ndarray]:
    """A 400 x 300 frame of light cloth with a dark card (90 x 126 px) running 40 px off its right
    edge, and the card's whole outline (short side first); ``pips``: gold marks on it, two cut by
    the frame's edge."""
    frame = np.full((300, 400, 3), 210, np.uint8)
    quad = np.array([[314, 170], [314, 80], [440, 80], [440, 170]], np.float32)
    cv2.rectangle(frame, (314, 80), (400, 170), (FIELD, FIELD, FIELD), -1)
    if pips:
        for x, y in PIPS:
            cv2.circle(frame, (x, y), 6, GOLD, -1)
    return frame, quad


def test_a_cut_dark_cards_print_is_looked_at_in_view() -> None:
    frame, quad = cut_card(pips=True)
    look = light_print(frame, quad)
    assert look.printed, look
    # its share is of the part in view: the same marks on the whole card are less of it
    whole = np.full((300, 500, 3), 210, np.uint8)
    cv2.rectangle(whole, (314, 80), (440, 170), (FIELD, FIELD, FIELD), -1)
    for x, y in PIPS:
        cv2.circle(whole, (x, y), 6, GOLD, -1)
    seen_whole = light_print(whole, quad)
    assert seen_whole.printed and look.share > seen_whole.share


def test_a_plain_dark_card_cut_by_the_frames_edge_shows_no_print() -> None:
    """Beyond the frame the warp is black: a step down from the card's field at the frame's edge,
    which the local level (an opening) follows, so no print rises there."""
    frame, quad = cut_card(pips=False)
    look = light_print(frame, quad)
    assert not look.printed and look.why == "no print", look


def white_card(pattern: bool) -> tuple[np.ndarray, np.ndarray]:
    """A white card (100 x 140 px) on a grey desk: a face's five black pips, or a light back's
    lattice of small lavender diamonds on white (the card stays mostly white either way)."""
    frame = np.full((300, 400, 3), 120, np.uint8)
    cv2.rectangle(frame, (150, 80), (250, 220), (245, 245, 245), -1)
    if pattern:
        for y in range(88, 214, 10):
            for x in range(158, 244, 10):
                diamond = np.array([[x, y - 3], [x + 3, y], [x, y + 3], [x - 3, y]], np.int32)
                cv2.fillConvexPoly(frame, diamond, (200, 120, 160))
    else:
        for x, y in ((180, 120), (220, 120), (200, 150), (180, 180), (220, 180)):
            cv2.circle(frame, (x, y), 7, (20, 20, 20), -1)
    quad = np.array([[150, 80], [250, 80], [250, 220], [150, 220]], np.float32)
    return frame, quad


def test_a_white_face_shows_a_few_marks_a_light_back_a_pattern() -> None:
    face, quad = white_card(pattern=False)
    assert white_face_verdict(face, quad, 150) is None
    back, quad = white_card(pattern=True)
    assert white_face_verdict(back, quad, 150) == "a repeated pattern, not a face's marks"


def pale_card(
    field: tuple[int, int, int], marks: list[tuple[int, int, int]]
) -> tuple[np.ndarray, np.ndarray]:
    """A card (100 x 140 px) on a grey desk with a white border 8 px wide round a ``field`` of
    colour, and round marks of 6 px radius at (x, y) in grey level (a back's logo, a pattern's
    spots)."""
    frame = np.full((300, 400, 3), 120, np.uint8)
    cv2.rectangle(frame, (150, 80), (250, 220), (245, 245, 245), -1)
    cv2.rectangle(frame, (158, 88), (242, 212), field, -1)
    for x, y, level in marks:
        cv2.circle(frame, (x, y), 6, (level, level, level), -1)
    quad = np.array([[150, 80], [250, 80], [250, 220], [150, 220]], np.float32)
    return frame, quad


def test_a_pale_coloured_field_inside_a_white_border_is_no_face(monkeypatch: pytest.MonkeyPatch) -> None:
    """A pink back with a small dark logo is as white as paper in a bright light (whiteness = value
    less saturation: 245 - 92) and its logo a face's few marks: only its field's colour against
    its white border tells it from a face (whose inside is its border's paper)."""
    back, quad = pale_card((230, 190, 250), [(200, 150, 30)])
    assert white_face_verdict(back, quad, 150) == "a coloured field inside its border"
    monkeypatch.setattr(faces, "FIELD_UNLIKE_BORDER", False)
    assert white_face_verdict(back, quad, 150) is None


def test_a_white_card_with_no_mark_inside_is_no_face(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every face prints inside its inner 70 % (an ace its pip); a blank white card, a paper or a
    pale back's field and lattice clipped white by a bright light show nothing there."""
    blank, quad = pale_card((245, 245, 245), [])
    assert white_face_verdict(blank, quad, 150) == "no print inside, not a face's"
    monkeypatch.setattr(faces, "FACE_NEEDS_MARKS", False)
    assert white_face_verdict(blank, quad, 150) is None


def test_marks_a_little_below_the_white_level_are_no_ink(monkeypatch: pytest.MonkeyPatch) -> None:
    """A pale field hovering about the white level speckles into marks just below it; a face's ink
    lies far below paper (black about 30, red about 20)."""
    speckled, quad = pale_card((245, 245, 245), [(180, 120, 135), (220, 180, 135)])
    assert white_face_verdict(speckled, quad, 150) == "no print inside, not a face's"
    monkeypatch.setattr(faces, "WHITE_MARK_DEPTH", 0)
    assert white_face_verdict(speckled, quad, 150) is None
    inked, quad = pale_card((245, 245, 245), [(180, 120, 30), (220, 180, 30)])
    assert white_face_verdict(inked, quad, 150) is None


def test_a_white_face_outlined_a_few_pixels_too_large_is_still_a_face() -> None:
    """An outline 8 % too large (a few pixels on a small card) puts the cloth in the border band:
    only the band's white pixels are the border whose colour the inside is compared with."""
    face, _ = white_card(pattern=False)
    face[np.all(face == 120, axis=2)] = (40, 100, 30)  # on green cloth
    grown = np.array([[142, 72], [258, 72], [258, 228], [142, 228]], np.float32)
    assert white_face_verdict(face, grown, 150) is None


def marks_of(*shapes: tuple[str, tuple[int, int], int]) -> np.ndarray:
    """A card's inside as light_print sees it (84 x 124), marked with ``shapes``: (kind, centre,
    size) where kind is 'diamond', 'disc', 'ring' or 'bar'."""
    marks = np.zeros((124, 84), np.uint8)
    for kind, (x, y), size in shapes:
        if kind == "diamond":
            points = np.array([[x, y - size], [x + size * 3 // 4, y], [x, y + size], [x - size * 3 // 4, y]])
            cv2.fillPoly(marks, [points.astype(np.int32)], 1)
        elif kind == "disc":
            cv2.circle(marks, (x, y), size, 1, -1)
        elif kind == "ring":
            cv2.circle(marks, (x, y), size, 1, 2)
        else:
            cv2.rectangle(marks, (x - size, y - 2), (x + size, y + 2), 1, -1)
    return marks.astype(bool)


def test_a_faces_pips_are_counted_alike_in_size_and_shape() -> None:
    """A four's pips (two of them turned half round, as its lower half prints them) count four; a
    mark of another size, a thin ring (no compact mark) or a long bar (an index's '1' or a
    stroke) counts for nothing; specks below PIP_AREA are no pips."""
    four = [
        ("diamond", (22, 25), 11),
        ("diamond", (62, 25), 11),
        ("diamond", (22, 99), 11),
        ("diamond", (62, 99), 11),
    ]
    assert faces.alike_pips(marks_of(*four)) == 4
    assert faces.alike_pips(marks_of(*four[:2], ("disc", (42, 62), 16))) == 2  # far larger than the pips
    assert faces.alike_pips(marks_of(("ring", (42, 40), 12), ("ring", (42, 90), 12))) == 0
    assert (
        faces.alike_pips(marks_of(("bar", (42, 30), 16), ("bar", (42, 60), 16), ("bar", (42, 90), 16))) == 0
    )
    assert faces.alike_pips(marks_of(*[("disc", (20 + 20 * k, 60), 2) for k in range(3)])) == 0


def test_an_index_window_shows_its_light_print_and_a_faint_lattice_none() -> None:
    """window_print on a dark card's index window (24 x 40, as the reader cuts it): a gold rank
    and suit stand out well past WINDOW_INDEX_PRINT; a dark back's faint lattice (lines 25 levels
    above the field), which the classifier's normalising can lift into a king, stands out nowhere;
    a plain dark window neither."""
    index = np.full((40, 24, 3), 20, np.uint8)
    cv2.putText(index, "K", (3, 17), cv2.FONT_HERSHEY_SIMPLEX, 0.55, (60, 170, 200), 2)
    cv2.circle(index, (10, 28), 5, (60, 170, 200), -1)
    assert faces.window_print(index) >= 2 * faces.WINDOW_INDEX_PRINT
    lattice = np.full((40, 24, 3), 20, np.uint8)
    for k in range(-40, 40, 6):
        cv2.line(lattice, (k, 0), (k + 40, 40), (45, 45, 45), 1)
        cv2.line(lattice, (k + 40, 0), (k, 40), (45, 45, 45), 1)
    assert faces.window_print(lattice) == 0.0
    assert faces.window_print(np.full((40, 24, 3), 20, np.uint8)) == 0.0


def test_a_backs_fine_dots_are_a_pattern_a_faces_small_pips_are_not(monkeypatch: pytest.MonkeyPatch) -> None:
    """A back of fine dark dots on white: each dot under WHITE_MARK_AREA once warped upright, so
    that the few a little larger made a face's few marks. More specks than a face's print makes,
    none a pip's size, are a pattern. A face whose pale pips break into a few small specks (a
    rendered seven of diamonds in pale red: 8, of at most 5 pixels) stays a possible face."""
    dots = np.full((300, 400, 3), 120, np.uint8)
    cv2.rectangle(dots, (150, 80), (250, 220), (245, 245, 245), -1)
    for n, (y, x) in enumerate((y, x) for y in range(90, 212, 6) for x in range(160, 242, 6)):
        # two pixels each, one in 25 four (a dot's size varies with where the pixels fall)
        dots[y : y + 1 + (n % 25 == 0), x : x + 2] = 30
    quad = np.array([[150, 80], [250, 80], [250, 220], [150, 220]], np.float32)
    assert white_face_verdict(dots, quad, 150) == "a repeated pattern, not a face's marks"
    few, quad = pale_card((245, 245, 245), [])
    for x, y in ((175, 110), (225, 110), (200, 135), (175, 160), (225, 160), (175, 190), (225, 190)):
        few[y : y + 2, x : x + 2] = 30  # seven pips seen as specks
    assert white_face_verdict(few, quad, 150) is None
    monkeypatch.setattr(faces, "SPECKS_NO_FACE", False)
    assert white_face_verdict(dots, quad, 150) is None


def test_reaching_edge_joins_marks_to_the_edge_8_or_4_connected() -> None:
    """The court check's cloth: the marked pixels 8-connected to the edge (one touching it, one
    linked to it only corner to corner), not a mark inside; the mouth's holes take it 4-connected,
    where the corner's link does not join."""
    marked = np.zeros((20, 20), bool)
    marked[0:4, 5:8] = True  # on the top edge
    marked[10:13, 10:13] = True  # inside
    marked[5, 1] = marked[4, 0] = True  # to the left edge through a diagonal
    cloth = reaching_edge(marked, connectivity=8)
    assert cloth[0:4, 5:8].all() and cloth[5, 1] and cloth[4, 0]
    assert not cloth[10:13, 10:13].any() and not (cloth & ~marked).any()
    assert not reaching_edge(marked, connectivity=4)[5, 1]
