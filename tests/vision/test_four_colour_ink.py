"""A club or spade read in blue ink, or a spade in green, is a four-colour deck's diamond or club:
held below acting unless the deck was calibrated four-colour (vision/reader.py's
_unless_four_colour_ink, vision/index_patch.py's ink_tints)."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from tests.helpers.camera_frames import face, felt, laid
from vision import reader as reader_module
from vision.index_patch import PATCH_H, PATCH_W, ink_tints
from vision.reader import ACT_CONFIDENCE, BLUE_INK, GREEN_INK, CardReader, CardSighting, Facing

BLACK, BLUE, GREEN, RED = (20, 20, 20), (230, 30, 0), (30, 170, 0), (30, 30, 190)  # BGR


def index_window(
    ink: tuple[int, int, int], light: tuple[float, float, float] = (1.0, 1.0, 1.0)
) -> np.ndarray:
    """An index window: a rank and a pip in ``ink`` on white paper, all of it under ``light``."""
    patch = np.full((PATCH_H, PATCH_W, 3), 235, np.uint8)
    cv2.putText(patch, "7", (3, 18), cv2.FONT_HERSHEY_SIMPLEX, 0.6, ink, 2)
    cv2.circle(patch, (10, 28), 5, ink, -1)
    return np.clip(patch * np.array(light), 0, 255).astype(np.uint8)


def test_black_ink_shows_no_tint_under_a_warm_or_a_cool_light() -> None:
    lights = [(1.0, 1.0, 1.0), (0.75, 0.9, 1.1), (1.1, 0.95, 0.7)]
    tints = ink_tints(np.array([index_window(BLACK, light) for light in lights]))
    assert np.abs(tints).max() < 20


def test_blue_and_green_ink_stand_out_and_red_ink_is_neither() -> None:
    (blue, _), (_, green), (red_blue, red_green) = ink_tints(
        np.array([index_window(c) for c in (BLUE, GREEN, RED)])
    )
    assert blue > BLUE_INK and green > GREEN_INK
    assert red_blue < 0 and red_green < 0


def test_a_blank_window_has_no_ink_and_no_tint() -> None:
    assert ink_tints(np.full((1, PATCH_H, PATCH_W, 3), 230, np.uint8)).tolist() == [[0.0, 0.0]]


def recoloured(card: np.ndarray, ink: tuple[int, int, int]) -> np.ndarray:
    """A red card's face with its red ink in ``ink`` (a four-colour deck's blue or green)."""
    b, g, r = (card[..., c].astype(np.int16) for c in range(3))
    red = (r - np.maximum(b, g)) > 30  # its anti-aliased edge too
    out = card.copy()
    out[red] = ink
    return out


def on_felt(card: np.ndarray) -> tuple[np.ndarray, tuple[tuple[float, float], ...]]:
    """``card`` laid upright on the felt, and its corners clockwise from its top-left index corner."""
    centre = (320, 240)
    frame = laid(felt(), card, centre)
    h, w = card.shape[:2]
    x0, y0 = centre[0] - w / 2, centre[1] - h / 2
    return frame, ((x0, y0), (x0 + w, y0), (x0 + w, y0 + h), (x0, y0 + h))


def named(corners: tuple[tuple[float, float], ...], card: str) -> CardSighting:
    return CardSighting(corners, Facing.UP, card[0], card[1], 0.99, "index read at 2 corners")


@pytest.mark.parametrize(
    ("ink", "read_as", "held"),
    [
        (BLUE, "2c", True),  # a four-colour deuce of diamonds read by the glyph's shape as a club
        (BLUE, "2s", True),
        (GREEN, "2s", True),  # its green deuce of clubs read as a spade
        (GREEN, "2c", False),  # a green club named a club is right
        (BLACK, "2c", False),
        (BLACK, "2s", False),
    ],
)
def test_a_black_suit_named_in_coloured_ink_is_held(
    ink: tuple[int, int, int], read_as: str, held: bool
) -> None:
    frame, corners = on_felt(recoloured(face("2d", 100), ink))
    result = reader_module._unless_four_colour_ink(frame, [named(corners, read_as)], 1.0, 1.0)[0]
    assert result.card == read_as and result.facing is Facing.UP
    assert (result.confidence < ACT_CONFIDENCE) is held
    assert ("four-colour deck" in result.why) is held


def test_red_suits_and_unsure_reads_are_not_asked() -> None:
    frame, corners = on_felt(recoloured(face("2d", 100), BLUE))
    kept = [named(corners, "2d"), replace(named(corners, "2c"), confidence=0.6)]
    assert reader_module._unless_four_colour_ink(frame, kept, 1.0, 1.0) == kept


def test_the_reader_holds_it_unless_its_deck_was_calibrated_four_colour(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The reader's last word on a frame: a club named in blue ink is held by a reader of two
    colours, and kept by one calibrated four-colour (its blue is a diamond's red to it)."""
    frame, corners = on_felt(recoloured(face("2d", 100), BLUE))
    wrong = named(corners, "2c")
    monkeypatch.setattr(CardReader, "_unread_cards", lambda *args: [wrong])
    read = [s for s in CardReader().read(frame) if s.corners == wrong.corners]
    assert [s.confidence < ACT_CONFIDENCE for s in read] == [True]
    read = [s for s in CardReader(four_colour=True).read(frame) if s.corners == wrong.corners]
    assert [s.confidence for s in read] == [wrong.confidence]
