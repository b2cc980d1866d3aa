"""The card reader on real photographs (read-only, from ../shared/data/cards) and rendered backs."""

from __future__ import annotations

import random

import cv2
import numpy as np
import pytest

from tablectl.core.cards import SUITS
from tests.helpers.paths import DATA
from vision.index_reader import NONE_RANK, NONE_SUIT, RANK_LABELS, IndexRead, IndexReader
from vision.reader import ACT_CONFIDENCE, CardReader, Facing
from vision.sources import Frame, read_image

CARDS = DATA / "cards"


@pytest.fixture(scope="module")
def reader() -> CardReader:
    return CardReader()


def photo(path: str) -> np.ndarray:
    frame = read_image(CARDS / path)
    assert isinstance(frame, Frame), frame
    return frame.image


def confident(reader: CardReader, image: np.ndarray) -> set[str]:
    return {s.card for s in reader.read(image) if s.card and s.confidence >= ACT_CONFIDENCE}


@pytest.mark.parametrize(
    ("path", "cards"),
    [
        # four kings in a grid, on wood
        ("photos-tfod-test/cam_image2.jpg", {"Kc", "Kd", "Kh", "Ks"}),
        # four cards at four angles on wood
        ("photos-tfod-test/IMG_2560.JPG", {"Kc", "Qd", "Qs", "Tc"}),
        # a jack lying over a ten, on carpet
        ("photos-tfod-test/IMG_2639.JPG", {"Jc", "Tc"}),
    ],
)
def test_real_photos_are_read_with_the_right_cards(reader: CardReader, path: str, cards: set[str]) -> None:
    assert confident(reader, photo(path)) == cards


def test_cards_around_a_box_are_read_right_or_not_at_all(reader: CardReader) -> None:
    # four cards around a game box; the nine of hearts lies half under it
    read = confident(reader, photo("photos-tfod-test/IMG_2583.JPG"))
    assert {"9c", "As", "Jh"} <= read <= {"9c", "9h", "As", "Jh"}


@pytest.mark.parametrize("name", ["IMG_7802.jpg", "IMG_7810.jpg", "IMG_7812.jpg", "IMG_7818.jpg"])
def test_photos_of_face_down_cards_have_no_card_called_up_that_is_down(reader: CardReader, name: str) -> None:
    # labels.csv: IMG_7802 has six face-down cards and none face up; the others some of each
    sightings = reader.read(photo(f"backs-cardcounter/images/{name}"))
    faces_up = {"IMG_7802.jpg": 0, "IMG_7810.jpg": 2, "IMG_7812.jpg": 2, "IMG_7818.jpg": 3}[name]
    assert len([s for s in sightings if s.facing is Facing.UP]) <= faces_up


def test_a_plain_black_back_is_seen_face_down(reader: CardReader) -> None:
    # two face-down cards, and the queen of spades and two of clubs face up (black, gold print):
    # the whole back below is face down; the queen, a rank at her two index corners, is unknown
    # without calibration (no longer face down: tests/vision/test_backs.py)
    sightings = reader.read(photo("backs-cardcounter/images/IMG_7810.jpg"))
    assert sorted(s.facing.value for s in sightings if s.facing is not Facing.UP) == ["down", "unknown"]
    assert len([s for s in sightings if s.facing is Facing.UP]) <= 2


def casino_back(rng: random.Random, colour: tuple[int, int, int]) -> np.ndarray:
    """One repeated pattern in one dominant colour, with a white border."""
    back = np.full((140, 100, 3), 240, np.uint8)
    inner = np.full((124, 84, 3), colour, np.uint8)
    step = rng.randint(5, 10)
    for k in range(-140, 240, step):
        cv2.line(inner, (k, 0), (k + 124, 124), (235, 235, 235), 1)
        cv2.line(inner, (k, 124), (k + 124, 0), (235, 235, 235), 1)
    back[8:-8, 8:-8] = inner
    return back


@pytest.mark.parametrize("seed", range(4))
def test_rendered_casino_backs_under_varied_light_are_never_face_up(reader: CardReader, seed: int) -> None:
    rng = random.Random(seed)
    frame = np.full((480, 640, 3), (40, 100, 30), np.uint8)
    for slot in range(6):
        colour = rng.choice(
            [(150, 30, 20), (30, 30, 160), (30, 90, 30), (20, 20, 20)]
        )  # blue, red, green, black
        back = casino_back(rng, colour)
        matrix = cv2.getRotationMatrix2D((50, 70), rng.uniform(-60, 60), 1.0)
        matrix[:, 2] += (60 + (slot % 3) * 200 - 50, 100 + (slot // 3) * 220 - 70)
        warped = cv2.warpAffine(back, matrix, (640, 480))
        mask = cv2.warpAffine(np.full((140, 100), 255, np.uint8), matrix, (640, 480))
        frame[mask > 0] = warped[mask > 0]
    gain = np.array([rng.uniform(0.6, 1.3) for _ in range(3)])
    frame = np.clip(frame * gain, 0, 255).astype(np.uint8)
    sightings = reader.read(frame)
    assert [s for s in sightings if s.facing is Facing.UP] == []


class ScriptedIndex(IndexReader):
    """An index classifier that answers each call with the next reads of its script."""

    def __init__(self, script: list[list[IndexRead]]) -> None:
        self.script = script
        self.calls: list[int] = []

    def read(self, patches: np.ndarray) -> list[IndexRead]:
        reads = self.script[len(self.calls)]
        self.calls.append(len(patches))
        assert len(patches) == len(reads), (len(patches), reads)
        return reads


def one_card_on_cloth() -> np.ndarray:
    """A white card alone: its corners are found clockwise from the top right (top right, bottom
    right, bottom left, top left); the bottom right and the top left are its index corners."""
    frame = np.full((480, 640, 3), (40, 100, 30), np.uint8)
    cv2.rectangle(frame, (250, 150), (340, 276), (235, 235, 235), -1)
    return frame


PIPS = IndexRead(NONE_RANK, NONE_SUIT, 0.99, 0.99)
ACE = IndexRead(RANK_LABELS.index("A"), SUITS.index("s"), 0.97, 0.97)
KING = IndexRead(RANK_LABELS.index("K"), SUITS.index("s"), 0.97, 0.97)


def test_a_card_read_alike_at_its_two_index_corners_needs_no_second_look() -> None:
    index = ScriptedIndex([[PIPS, ACE, PIPS, ACE]])
    sightings = CardReader(index).read(one_card_on_cloth())
    assert index.calls == [4]  # the windows a little smaller and larger were not read
    assert [(s.card, s.why) for s in sightings] == [("As", "index read at 2 corners")]
    assert sightings[0].confidence >= ACT_CONFIDENCE


def test_a_card_read_differently_at_its_two_index_corners_is_looked_at_again_and_unsure() -> None:
    # each corner's second look agrees with its first: the card stays in doubt
    index = ScriptedIndex([[PIPS, ACE, PIPS, KING], [ACE, ACE, KING, KING]])
    sightings = CardReader(index).read(one_card_on_cloth())
    assert index.calls == [4, 4]
    assert [s.why for s in sightings] == ["index reads disagree"]
    assert sightings[0].confidence < ACT_CONFIDENCE
