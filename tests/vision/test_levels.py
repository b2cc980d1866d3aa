"""A large photo read at finer levels (vision/reader.py: CardReader._read_levels, _merged_finer)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import vision.reader as reader_module
from tests.helpers.camera_frames import FELT, face, laid, render_back
from vision.reader import ACT_CONFIDENCE, LEVEL_TILE_SIDE, MAX_SIDE, CardReader, _merged_finer
from vision.sighting import CardSighting, Facing

CARDS = ["As", "Kd", "7c", "Th", "2s", "Qc", "9d", "5h", "Jc", "3d", "8s", "6h"]


def whole_table_photo() -> np.ndarray:
    """Twelve cards 80 px wide, each alone on a 1920x1440 felt (a high-resolution photo of a whole
    table): at MAX_SIDE a card is 40 px wide."""
    frame = np.full((1440, 1920, 3), FELT, np.uint8)
    for n, card in enumerate(CARDS):
        row, column = divmod(n, 4)
        frame = laid(frame, face(card, 80), (240 + 480 * column, 240 + 480 * row), 15.0 * n - 40)
    noise = np.random.default_rng(1).normal(0, 4, frame.shape)
    return np.clip(frame + noise, 0, 255).astype(np.uint8)


def acted_on(sightings: list[CardSighting]) -> list[str]:
    return sorted(s.card for s in sightings if s.card and s.confidence >= ACT_CONFIDENCE)


@pytest.fixture(scope="module")
def photo() -> np.ndarray:
    return whole_table_photo()


def test_a_whole_table_photo_is_read_in_finer_levels_where_it_is_lost_whole(
    photo: np.ndarray, monkeypatch: pytest.MonkeyPatch
) -> None:
    reader = CardReader()
    finer = acted_on(reader.read(photo))
    assert len(finer) >= 10 and set(finer) <= set(CARDS)
    monkeypatch.setattr(reader_module, "FINER_LEVELS_FROM", math.inf)
    whole = acted_on(reader.read(photo))
    assert len(whole) <= 6 and set(whole) <= set(CARDS)


def test_each_card_of_a_whole_table_photo_is_one_sighting_in_its_place(photo: np.ndarray) -> None:
    sightings = [s for s in CardReader().read(photo) if s.card and s.confidence >= ACT_CONFIDENCE]
    assert len({s.card for s in sightings}) == len(sightings) >= 10  # a card read in two tiles is one
    for sighting in sightings:
        n = CARDS.index(str(sighting.card))
        row, column = divmod(n, 4)
        x, y = sighting.centre
        assert abs(x - (240 + 480 * column)) < 20 and abs(y - (240 + 480 * row)) < 20


def test_a_frame_under_the_finer_levels_size_is_read_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[int, ...]] = []
    real = CardReader._read_frame

    def recording(self: CardReader, image: np.ndarray) -> list[CardSighting]:
        calls.append(image.shape)
        return real(self, image)

    monkeypatch.setattr(CardReader, "_read_frame", recording)
    frame = np.full((int(1.4 * MAX_SIDE), int(1.4 * MAX_SIDE), 3), FELT, np.uint8)
    CardReader().read(frame)
    assert len(calls) == 1
    calls.clear()
    CardReader().read(np.full((MAX_SIDE * 2, MAX_SIDE * 2, 3), FELT, np.uint8))
    # whole (scaled to 0.5 within), then at 1 (1920 px: 5 x 5 tiles of 640 overlapping by 256)
    assert calls[0] == (MAX_SIDE * 2, MAX_SIDE * 2, 3) and len(calls) == 1 + 25
    assert {shape for shape in calls[1:]} == {(LEVEL_TILE_SIDE, LEVEL_TILE_SIDE, 3)}
    calls.clear()
    CardReader().read(np.full((3024, 4032, 3), FELT, np.uint8))
    # a 12-megapixel photo: whole (0.24), at 0.48 (1920x1440: 5 x 4 tiles), then at its own scale
    # (10 x 8), not at 0.95 first
    assert len(calls) == 1 + 20 + 80


def test_a_back_on_a_whole_table_photo_is_never_called_face_up() -> None:
    frame = np.full((1440, 1920, 3), FELT, np.uint8)
    for n in range(6):
        frame = laid(frame, render_back((150, 30, 20), 80), (300 + 260 * n, 700), 20.0 * n)
    sightings = CardReader().read(frame)
    assert not [s for s in sightings if s.facing is Facing.UP]
    assert [s.facing for s in sightings] == [Facing.DOWN] * 6  # each back found, once


def sighting(
    card: str | None,
    centre: tuple[float, float],
    width: float,
    confidence: float = 0.97,
    facing: Facing = Facing.UP,
) -> CardSighting:
    x, y = centre
    w, h = width / 2, 0.7 * width
    corners = ((x - w, y - h), (x + w, y - h), (x + w, y + h), (x - w, y + h))
    rank, suit = (card[0], card[1]) if card else (None, None)
    return CardSighting(corners, facing, rank, suit, confidence if card else 0.0)


def test_a_finer_sighting_on_a_card_seen_well_is_left_out() -> None:
    """A card 120 px wide on a level of 0.5 was 60 px wide there: read well. A tile at full scale
    reads a part of it (its corner, as a small card) or the card again: neither is kept."""
    coarse = [(sighting("Ah", (500, 500), 120), 0.5)]
    finer = [sighting("7c", (470, 460), 30), sighting("Ah", (500, 501), 120)]
    assert [s.card for s, _ in _merged_finer(coarse, finer, 1.0)] == ["Ah"]


def test_a_card_seen_narrow_is_read_again_finer_and_two_names_hold_it() -> None:
    narrow = [(sighting("8h", (500, 500), 80, 0.7), 0.5)]  # 40 px wide on its level
    [(read, level)] = _merged_finer(narrow, [sighting("9h", (502, 500), 80, 0.99)], 1.0)
    assert (read.card, level) == ("9h", 1.0)  # the surer, finer read
    sure = [(sighting("8h", (500, 500), 80, 0.95), 0.5)]
    [(read, _)] = _merged_finer(sure, [sighting("9h", (502, 500), 80, 0.99)], 1.0)
    assert read.card == "8h" and read.confidence < ACT_CONFIDENCE
    assert read.why.endswith("read as 9h at another scale")
    [(read, _)] = _merged_finer(sure, [sighting("8h", (502, 500), 80, 0.9)], 1.0)
    assert (read.card, read.confidence) == ("8h", 0.95)  # the same card, less surely: as it was


def test_a_pile_seen_as_one_blob_gives_way_to_its_cards_and_a_back_does_not() -> None:
    pile = [(sighting(None, (500, 500), 120, facing=Facing.UNKNOWN), 0.25)]
    finer = [sighting("2c", (470, 500), 50), sighting("3c", (530, 500), 50)]
    assert [s.card for s, _ in _merged_finer(pile, finer, 0.5)] == ["2c", "3c"]
    back = [(sighting(None, (500, 500), 120, facing=Facing.DOWN), 0.25)]
    assert [s.facing for s, _ in _merged_finer(back, finer, 0.5)] == [Facing.DOWN]
    apart = [sighting("4c", (900, 900), 50), sighting(None, (1200, 900), 50, facing=Facing.DOWN)]
    assert len(_merged_finer(back, apart, 0.5)) == 3  # cards elsewhere are cards
