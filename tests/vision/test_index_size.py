"""The watch for a jumbo index where the deck's index size was never learned (vision/index_size.py)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from tests.helpers.camera_frames import DECK, face, jumbo_face, spread_of
from vision.index_size import FIRST_LOOKS, LARGER_CARDS, LARGER_INDEX, IndexSizeWatch, withheld
from vision.reader import CardReader
from vision.sighting import ACT_CONFIDENCE, CardSighting, Facing

BLANK = np.zeros((4, 4, 3), np.uint8)


def cards(*names: str, confidence: float = 0.99) -> list[CardSighting]:
    square = ((0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0))
    return [CardSighting(square, Facing.UP, name[0], name[1], confidence, "index read") for name in names]


class Scripted:
    """The larger windows' reader: ``count`` cards of the deck from ``start`` on every frame, the
    next ones each time where ``fresh``."""

    def __init__(self, count: int, fresh: bool = True) -> None:
        self.count = count
        self.fresh = fresh
        self.start = 0
        self.frames = 0

    def read(self, image: np.ndarray) -> list[CardSighting]:
        self.frames += 1
        named = cards(*(DECK[n % 52] for n in range(self.start, self.start + self.count)))
        if self.fresh:
            self.start += self.count
        return named


def test_a_deck_the_larger_windows_name_far_more_of_is_found_and_its_names_withheld() -> None:
    watch = IndexSizeWatch(Scripted(3))
    verdicts = [watch.frame(BLANK, cards("As")) for _ in range(3)]
    # 3 and 6 different cards named through the larger windows are too few to say; 9 against 1 is
    # a jumbo index
    assert verdicts == [None, None, True] and watch.index_larger
    assert 6 < LARGER_CARDS <= 9  # the figures above rest on it
    sighting = cards("As")[0]
    hidden = withheld(sighting)
    assert (hidden.card, hidden.confidence, hidden.facing, hidden.corners) == (
        None,
        0.0,
        Facing.UP,
        sighting.corners,
    )
    assert "withheld" in hidden.why and "As" in hidden.why


def test_a_table_that_stays_as_it_is_counts_its_cards_once() -> None:
    """A normal deck's scene where the larger windows name two cards to the standard windows' one
    (11 of the 296 training photos), looked at again and again: still only two cards."""
    watch = IndexSizeWatch(Scripted(2, fresh=False), every=1)
    assert all(watch.frame(BLANK, cards("9h")) is None for _ in range(100))
    assert not watch.index_larger


def test_a_normal_deck_keeps_its_names_and_is_looked_at_once_in_a_while() -> None:
    larger = Scripted(1)
    watch = IndexSizeWatch(larger, every=15)
    for n in range(300):
        assert watch.frame(BLANK, cards(*DECK[(4 * n) % 48 : (4 * n) % 48 + 4])) is None
    assert not watch.index_larger
    assert larger.frames == FIRST_LOOKS + 300 // 15  # frames 1-10, then 15, 30, ... 300


def test_frames_naming_no_card_either_way_are_no_evidence_and_are_looked_at_rarely() -> None:
    larger = Scripted(0)
    watch = IndexSizeWatch(larger, every=15)
    assert all(
        watch.frame(BLANK, cards("2c", "3c", confidence=ACT_CONFIDENCE - 0.1)) is None for _ in range(150)
    )
    assert larger.frames == 10 and not watch.index_larger


def test_the_names_come_back_only_on_evidence_as_strong_the_other_way() -> None:
    larger = Scripted(4)
    watch = IndexSizeWatch(larger, every=1)
    assert watch.frame(BLANK, []) is None  # nothing named through the standard windows: every 1
    assert watch.frame(BLANK, []) is True
    larger.count = 0  # another deck: a normal index
    verdicts = [watch.frame(BLANK, cards(DECK[20 + 2 * n], DECK[21 + 2 * n])) for n in range(10)]
    # 8 different cards named through the larger windows: the standard ones must name 16
    assert verdicts.index(False) == 7 and verdicts.count(False) == 1 and not watch.index_larger


def test_a_card_or_two_named_the_other_way_does_not_give_the_names_back() -> None:
    larger = Scripted(4)
    watch = IndexSizeWatch(larger, every=1)
    watch.frame(BLANK, [])
    assert watch.frame(BLANK, []) is True
    larger.count = 1  # one exposed card, named both ways (the standard windows wrongly)
    assert all(watch.frame(BLANK, cards(DECK[40 + n])) is None for n in range(5))
    assert watch.index_larger


def test_a_few_cards_a_hand_add_up_over_hands() -> None:
    """A board camera: five cards a hand, each hand's seen again and again (a still table adds no
    look); the larger windows name them, the standard ones one a hand."""
    larger = Scripted(5, fresh=False)
    watch = IndexSizeWatch(larger, every=1)
    verdicts = []
    for hand in range(3):
        larger.start = 5 * hand  # the hand's board, seen on 20 frames
        verdicts += [watch.frame(BLANK, cards(DECK[hand])) for _ in range(20)]
    assert verdicts.count(True) == 1 and verdicts.index(True) == 20  # the second hand's first frame


@pytest.mark.parametrize("jumbo", [True, False])
def test_a_jumbo_index_is_found_on_rendered_spreads_and_a_normal_one_is_not(jumbo: bool) -> None:
    reader = CardReader()
    # as the camera adapter and `vision read` watch: both sizes read without the cards read at
    # straight edges (at a ladder of widths, whatever the index's size: a jumbo spread's cards,
    # unread through the standard windows, are read there)
    measuring = reader.without_straight_edges()
    watch = IndexSizeWatch(measuring.for_deck(index_scale=LARGER_INDEX), every=1, standard=measuring)
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


def test_the_standard_side_is_read_by_the_measuring_reader_on_the_frames_looked_at() -> None:
    """Given a ``standard`` reader (the camera's, without the cards read at straight edges), the
    watch counts its names on the frames it looks at, not the camera's own sightings (which name a
    jumbo deck's cards read at a ladder of widths): the larger windows' 3 new cards a frame against
    its 1 make a jumbo index though the camera's sightings name 3 cards a frame too."""
    standard = Scripted(1, fresh=False)
    watch = IndexSizeWatch(Scripted(3), standard=standard)
    verdicts = [watch.frame(BLANK, cards(*DECK[3 * k : 3 * k + 3])) for k in range(3)]
    assert verdicts == [None, None, True] and watch.index_larger
    assert standard.frames == 3  # read on each frame looked at (the first ones name cards)
    # without it, the camera's sightings (as many new cards a frame as the larger windows') count
    plain = IndexSizeWatch(Scripted(3))
    assert [plain.frame(BLANK, cards(*DECK[3 * k : 3 * k + 3])) for k in range(3)] == [None, None, None]
