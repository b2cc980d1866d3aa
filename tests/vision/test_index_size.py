"""The watch for a jumbo index where the deck's index size was never learned (vision/index_size.py)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from tests.helpers.camera_frames import face, jumbo_face, spread_of
from vision.index_size import LARGER_CARDS, LARGER_INDEX, PROBES_KEPT, IndexSizeWatch, withheld
from vision.reader import CardReader
from vision.sighting import ACT_CONFIDENCE, CardSighting, Facing

BLANK = np.zeros((4, 4, 3), np.uint8)
DECK = [rank + suit for rank in "23456789TJQKA" for suit in "cdhs"]


def cards(count: int, confidence: float = 0.99) -> list[CardSighting]:
    square = ((0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0))
    return [CardSighting(square, Facing.UP, "A", "s", confidence, "index read") for _ in range(count)]


class Scripted:
    """The larger windows' reader, naming ``count`` cards on every frame it is given."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.frames = 0

    def read(self, image: np.ndarray) -> list[CardSighting]:
        self.frames += 1
        return cards(self.count)


def test_a_deck_the_larger_windows_name_far_more_often_is_found_and_its_names_withheld() -> None:
    larger = Scripted(3)
    watch = IndexSizeWatch(larger)
    verdicts = [watch.frame(BLANK, cards(1)) for _ in range(3)]
    # 3 and 6 named through the larger windows are too few to say; 9 against 3 is a jumbo index
    assert verdicts == [None, None, True] and watch.index_larger
    assert 6 < LARGER_CARDS <= 9  # the figures above rest on it
    sighting = cards(1)[0]
    hidden = withheld(sighting)
    assert (hidden.card, hidden.confidence, hidden.facing, hidden.corners) == (
        None,
        0.0,
        Facing.UP,
        sighting.corners,
    )
    assert "withheld" in hidden.why and "As" in hidden.why


def test_a_normal_deck_keeps_its_names_and_is_looked_at_once_in_a_while() -> None:
    larger = Scripted(1)
    watch = IndexSizeWatch(larger, every=15)
    assert all(watch.frame(BLANK, cards(4)) is None for _ in range(300))
    assert not watch.index_larger
    # every frame until the looks kept are full, then one frame in 15
    assert larger.frames == PROBES_KEPT + 300 // 15  # frames 1-10, then 15, 30, ... 300


def test_frames_naming_no_card_either_way_are_no_evidence_and_are_looked_at_rarely() -> None:
    larger = Scripted(0)
    watch = IndexSizeWatch(larger, every=15)
    assert all(watch.frame(BLANK, cards(2, confidence=ACT_CONFIDENCE - 0.1)) is None for _ in range(150))
    assert larger.frames == 10 and not watch.index_larger


def test_the_names_come_back_once_the_standard_windows_name_as_many_again() -> None:
    larger = Scripted(4)
    watch = IndexSizeWatch(larger, every=1)
    assert watch.frame(BLANK, cards(0)) is None  # nothing named through the standard windows: every 1
    assert watch.frame(BLANK, cards(0)) is True
    larger.count = 0  # another deck: a normal index
    verdicts = [watch.frame(BLANK, cards(2)) for _ in range(PROBES_KEPT)]
    assert verdicts.count(False) == 1 and verdicts[-1] is None and not watch.index_larger
    # the verdict held while the larger windows' earlier names still outnumbered the standard ones'
    assert verdicts.index(False) == 3  # 8 named larger against 2, 4, 6, then 8


@pytest.mark.parametrize("jumbo", [True, False])
def test_a_jumbo_index_is_found_on_rendered_spreads_and_a_normal_one_is_not(jumbo: bool) -> None:
    reader = CardReader()
    watch = IndexSizeWatch(reader.for_deck(index_scale=LARGER_INDEX), every=1)
    rng = random.Random(3)
    verdicts = []
    for _ in range(4):
        dealt = rng.sample(DECK, 8)
        frame = spread_of([(jumbo_face if jumbo else face)(card) for card in dealt])
        verdicts.append(watch.frame(frame, reader.read(frame)))
    assert watch.index_larger is jumbo
    assert verdicts.count(True) == (1 if jumbo else 0) and False not in verdicts


def test_a_reader_knows_its_decks_index_size_only_when_given_or_learned() -> None:
    from vision.backs import Backs

    assert not CardReader().index_size_known
    assert not CardReader(backs=Backs(())).index_size_known
    assert CardReader(backs=Backs((), faces_learned=True)).index_size_known
    assert CardReader(index_scale=1.0).index_size_known
    assert CardReader().for_deck(index_scale=1.5).index_size_known
