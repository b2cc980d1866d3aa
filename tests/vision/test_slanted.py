"""A card outlined far from square in a frame seen square on is held below acting (vision/reader.py's
_seen_square and _unless_slanted): its outline was drawn from a corner of no card."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tests.helpers.camera_frames import face, felt, laid
from vision import reader as reader_module
from vision.corners import PaperBlob, find_blobs
from vision.reader import ACT_CONFIDENCE, SLANTED_CORNER, CardReader, CardSighting, Facing


def spread(angles: list[float]) -> np.ndarray:
    """Cards apart on the felt, one at each of ``angles``: every one found whole."""
    frame = felt()
    for slot, (card, angle) in enumerate(zip(["7c", "Kd", "As", "4h"], angles, strict=False)):
        frame = laid(frame, face(card, 80), (110 + 140 * slot, 240), angle)
    return frame


def test_cards_lying_square_make_a_square_view() -> None:
    assert reader_module._seen_square(find_blobs(spread([0, 25, -30, 10])))


def test_a_camera_looking_across_the_table_is_no_square_view() -> None:
    """Squashed to 0.8 of its height, a card turned 25 degrees shows corners far from square, and
    one lying straight a shape no deck's."""
    frame = spread([0, 25, -30, 10])
    squashed = cv2.resize(frame, (frame.shape[1], int(frame.shape[0] * 0.8)), interpolation=cv2.INTER_AREA)
    assert any(blob.whole for blob in find_blobs(squashed))
    assert not reader_module._seen_square(find_blobs(squashed))


def test_a_frame_without_a_whole_card_says_nothing_of_its_view() -> None:
    assert not reader_module._seen_square(find_blobs(felt()))


def sighting(corners: list[tuple[float, float]], confidence: float = 0.95) -> CardSighting:
    return CardSighting(tuple(corners), Facing.UP, "7", "c", confidence, "index read")


def slanted_by(degrees: float) -> list[tuple[float, float]]:
    """A card's outline 70 px wide, its long side leaning ``degrees`` off square."""
    lean = np.radians(degrees)
    down = (98 * np.sin(lean), 98 * np.cos(lean))
    return [(100, 100), (170, 100), (170 + down[0], 100 + down[1]), (100 + down[0], 100 + down[1])]


def square_blobs() -> list[PaperBlob]:
    return find_blobs(spread([0, 25, -30, 10]))


def test_a_read_through_a_slanted_outline_is_held_below_acting() -> None:
    square = sighting(slanted_by(0.0))
    held, kept = reader_module._unless_slanted(
        [sighting(slanted_by(SLANTED_CORNER + 5)), square], square_blobs()
    )
    assert held.card == "7c" and held.facing is Facing.UP
    assert held.confidence < ACT_CONFIDENCE and "slanted outline" in held.why
    assert kept == square


@pytest.mark.parametrize("degrees", [0.0, SLANTED_CORNER - 5])
def test_a_read_through_a_square_enough_outline_is_kept(degrees: float) -> None:
    kept = sighting(slanted_by(degrees))
    assert reader_module._unless_slanted([kept], square_blobs()) == [kept]


def test_a_read_already_below_acting_is_left_as_it_is() -> None:
    unsure = sighting(slanted_by(SLANTED_CORNER + 5), confidence=0.6)
    assert reader_module._unless_slanted([unsure], square_blobs()) == [unsure]


def test_a_slanted_read_in_a_frame_of_no_known_view_is_kept() -> None:
    """With no whole card to tell the view by, a slanted outline may be a squashed view's."""
    slanted = sighting(slanted_by(SLANTED_CORNER + 5))
    assert reader_module._unless_slanted([slanted], find_blobs(felt())) == [slanted]


def test_the_reader_holds_a_slanted_read_only_in_a_square_view(monkeypatch: pytest.MonkeyPatch) -> None:
    """The reader's last word on a frame: the same slanted read is held where the frame's whole
    cards lie square and kept where they show a squashed view."""
    slanted = sighting(slanted_by(SLANTED_CORNER + 5))
    monkeypatch.setattr(CardReader, "_unread_cards", lambda *args: [slanted])
    square = spread([0, 25, -30, 10])
    read = CardReader().read(square)
    assert [s.confidence < ACT_CONFIDENCE for s in read if s.corners == slanted.corners] == [True]
    across = cv2.resize(square, (640, 384), interpolation=cv2.INTER_AREA)
    read = CardReader().read(across)
    assert [s.confidence for s in read if s.corners == slanted.corners] == [slanted.confidence]
