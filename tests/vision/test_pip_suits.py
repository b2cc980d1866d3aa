"""A number card's own pips as a second opinion on its index's suit, and a court card's picture on
its rank (vision/pip_suits.py, and the reader's _unless_pips_disagree and _unless_no_court_picture)."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from tests.helpers.camera_frames import face, felt, four_colour_face, laid
from vision import pip_suits as pip_suits_module
from vision import reader as reader_module
from vision.index_reader import RANK_LABELS, IndexRead, IndexReader
from vision.pip_suits import RED, no_court_picture, pip_suits, pips_against
from vision.reader import ACT_CONFIDENCE, CardReader, CardSighting, Facing
from vision.types import FloatArray

CLUB, SPADE = 0, 3  # tablectl.core.cards' suit order: c, d, h, s


@pytest.fixture(scope="module")
def reader() -> CardReader:
    return CardReader()


def lone_card(card: str, angle: float = 12.0) -> np.ndarray:
    return laid(felt(), face(card, 80), (320, 240), angle)


def the_card(sightings: list[CardSighting], card: str) -> CardSighting:
    found = [s for s in sightings if s.card == card]
    assert len(found) == 1, [(s.card, s.confidence) for s in sightings]
    return found[0]


@pytest.mark.parametrize(
    ("card", "shown"), [("7c", "c"), ("9c", "c"), ("7s", "s"), ("Ts", "s"), ("7h", RED), ("8d", RED)]
)
def test_a_cards_pips_show_its_suit(reader: CardReader, card: str, shown: str) -> None:
    image = lone_card(card)
    sighting = the_card(reader.read(image), card)
    told = [s for s in pip_suits(image, np.array(sighting.corners)) if s is not None]
    # most of its pips, and none of another suit's
    assert len(told) >= 5 and set(told) == {shown}, told


def upright_quad(centre: tuple[int, int], card: np.ndarray) -> np.ndarray:
    """The corners of ``card`` laid upright at ``centre``, clockwise from its top-left index corner."""
    h, w = card.shape[:2]
    x, y = centre[0] - w // 2, centre[1] - h // 2
    return np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]], np.float32)


def test_a_neighbours_pips_inside_a_cards_outline_are_left_out() -> None:
    """A seven of clubs with a nine of spades over its right half: the spades lying inside the
    club's outline are the nine's, left out when the nine's outline is given."""
    seven, nine = face("7c", 80), face("9s", 80)
    image = laid(laid(felt(), seven, (280, 240)), nine, (320, 240))
    seven_quad, nine_quad = upright_quad((280, 240), seven), upright_quad((320, 240), nine)
    assert "s" in pip_suits(image, seven_quad)  # the nine's pips, taken as the seven's
    told = list(pip_suits(image, seven_quad, [nine_quad]))
    assert "s" not in told and "c" in told  # the seven's own left column


@pytest.mark.parametrize(
    ("card", "shown", "against"),
    [
        ("7s", ["c"] * 4, "c"),  # half a seven's pips and more, all clubs
        ("7s", ["c"] * 3, None),  # a neighbour's column may be three
        ("7s", ["c", "c", "c", "c", "s"], None),  # one of its own: the clubs are a neighbour's
        ("7s", ["c", "c", RED, "c", "c"], None),  # two other suits: no verdict
        ("7s", ["c", None, "c", None, "c", "c"], "c"),  # unknown pips say nothing
        ("3c", [RED] * 3, RED),
        ("2c", [RED] * 2, None),  # a deuce's two pips are what a neighbour's column shows
        ("7h", [RED] * 7, None),
        ("7h", ["s"] * 7, "s"),
        ("Td", ["c"] * 4, None),  # half a ten's is five
    ],
)
def test_pips_go_against_a_read_only_when_many_show_one_other_suit(
    card: str, shown: list[str | None], against: str | None
) -> None:
    assert pips_against(card, shown) == against


class _ClubsAsSpades(IndexReader):
    """The committed classifier, but reading a club's index as a spade's at 0.75 a corner (0.9-0.99
    for the card, both index corners agreeing): the suit swap the classifier makes on decks it
    never saw, at the confidence it makes it."""

    def read(self, patches: FloatArray) -> list[IndexRead]:
        return [
            IndexRead(r.rank, SPADE, min(r.rank_p, 0.75), r.suit_p) if r.suit == CLUB and r.is_index else r
            for r in super().read(patches)
        ]


def test_a_club_read_as_a_spade_is_not_acted_on_where_its_pips_show_clubs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    image = lone_card("7c")
    swapping = CardReader(_ClubsAsSpades())
    seven = the_card(swapping.read(image), "7s")
    assert seven.why.startswith("index read at 2 corners")
    assert seven.facing is Facing.UP and seven.confidence < ACT_CONFIDENCE
    assert "its pips show clubs" in seven.why
    monkeypatch.setattr(reader_module, "PIP_SUITS", False)
    assert the_card(swapping.read(image), "7s").confidence >= ACT_CONFIDENCE  # the check is what held it


def test_a_right_read_below_the_surest_keeps_its_confidence(reader: CardReader) -> None:
    image = lone_card("7c")
    seven = the_card(reader.read(image), "7c")
    held = replace(seven, confidence=0.92)
    assert reader_module._unless_pips_disagree(image, [held], 1.0) == [held]


@pytest.mark.parametrize(("card", "shown"), [("7c", "c"), ("8d", "d"), ("7h", "h"), ("7s", "s")])
def test_a_four_colour_decks_pips_show_their_suit_by_their_ink(card: str, shown: str) -> None:
    """Green clubs, blue diamonds, red hearts, black spades, on a deck calibrated as four-colour;
    on a deck not so calibrated its green and blue say nothing."""
    image = laid(felt(), four_colour_face(card, 80), (320, 240))
    quad = upright_quad((320, 240), four_colour_face(card, 80))
    told = [s for s in pip_suits(image, quad, four_colour=True) if s is not None]
    assert len(told) >= 5 and set(told) == {shown}, told
    if card[1] in "cd":
        assert not [s for s in pip_suits(image, quad) if s is not None]


@pytest.mark.parametrize(
    ("card", "shown", "against"),
    [
        ("7s", ["c"] * 4, "c"),
        ("7d", ["h"] * 4, "h"),
        ("7d", ["d"] * 7, None),
        ("7h", ["h", "h", "h", "d"], None),
    ],
)
def test_on_a_four_colour_deck_each_suit_is_its_own(
    card: str, shown: list[str | None], against: str | None
) -> None:
    assert pips_against(card, shown, four_colour=True) == against


def test_a_four_colour_decks_club_read_as_a_spade_is_held_where_the_deck_was_calibrated_so(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Kennard's four-colour seven of clubs read as a spade: its green pips say clubs only to a
    reader that knows the deck is four-colour. A reader of two colours holds it for its index's
    green ink instead (vision/reader.py's _unless_four_colour_ink), and without that acts on it."""
    image = laid(felt(), four_colour_face("7c", 80), (320, 240), 12.0)
    calibrated = CardReader(_ClubsAsSpades(), four_colour=True)
    seven = the_card(calibrated.read(image), "7s")
    assert seven.confidence < ACT_CONFIDENCE and "its pips show clubs" in seven.why
    seven = the_card(CardReader(_ClubsAsSpades()).read(image), "7s")
    assert seven.confidence < ACT_CONFIDENCE and "green ink" in seven.why and "pips" not in seven.why
    monkeypatch.setattr(reader_module, "FOUR_COLOUR_INK", False)
    assert the_card(CardReader(_ClubsAsSpades()).read(image), "7s").confidence >= ACT_CONFIDENCE


# A court card's picture (vision.pip_suits.no_court_picture, the reader's _unless_no_court_picture)


@pytest.mark.parametrize("card", ["Jc", "Qh", "Ks", "Jd", "Qs", "Kh"])
def test_a_court_cards_picture_is_seen(card: str) -> None:
    image = laid(felt(), face(card, 80), (320, 240), 12.0)
    sighting = the_card(CardReader().read(image), card)
    assert not no_court_picture(image, np.array(sighting.corners))


@pytest.mark.parametrize("card", ["3h", "4d", "5c", "6s", "7h"])
def test_a_number_cards_middle_is_bare_paper_and_pips(card: str) -> None:
    """Up to seven pips leave this deck's middle mostly paper; its eights to tens, with their large
    pips, are a quarter to a third ink, as a faded court picture may be, and are not told apart (a
    jumbo index's smaller pips are: the check's aim)."""
    image = laid(felt(), face(card, 80), (320, 240), 12.0)
    sighting = the_card(CardReader().read(image), card)
    assert no_court_picture(image, np.array(sighting.corners))


@pytest.mark.parametrize("card", ["2s", "Ac"])
def test_fewer_than_three_pips_say_nothing(card: str) -> None:
    """A deuce's or an ace's middle is as bare as a court card's covered by a neighbour's paper."""
    image = laid(felt(), face(card, 80), (320, 240), 12.0)
    sighting = the_card(CardReader().read(image), card)
    assert not no_court_picture(image, np.array(sighting.corners))


def test_a_number_card_under_another_says_nothing_of_a_picture() -> None:
    """A six of clubs mostly under a seven: the seven's bare paper over the six's middle is no
    evidence that a picture is missing."""
    six, seven = face("6c", 80), face("7s", 80)
    alone = laid(felt(), six, (300, 240))
    six_quad, seven_quad = upright_quad((300, 240), six), upright_quad((330, 240), seven)
    assert no_court_picture(alone, six_quad)
    assert not no_court_picture(laid(alone, seven, (330, 240)), six_quad, [seven_quad])


def wider_by(quad: np.ndarray, share: float) -> np.ndarray:
    """An upright outline made ``share`` of its width wider on its right: past the card's edge."""
    wider = quad.copy()
    wider[[1, 2], 0] += share * (quad[1, 0] - quad[0, 0])
    return wider


@pytest.mark.parametrize("card", ["5c", "6s", "7h"])
def test_a_number_card_outlined_past_its_edge_still_shows_no_picture(card: str) -> None:
    """The felt an outline a little too wide takes in is one large mark along its edge: not a
    court's picture, which is framed inside the card."""
    number = face(card, 80)
    image = laid(felt(), number, (320, 240))
    assert no_court_picture(image, wider_by(upright_quad((320, 240), number), 0.15))


@pytest.mark.parametrize("card", ["Jc", "Qh", "Ks"])
def test_a_court_card_outlined_past_its_edge_still_shows_its_picture(card: str) -> None:
    court = face(card, 80)
    image = laid(felt(), court, (320, 240))
    assert not no_court_picture(image, wider_by(upright_quad((320, 240), court), 0.15))


def grown_by(quad: np.ndarray, share: float) -> np.ndarray:
    """An outline grown ``share`` of its size all round its centre: the cloth round the card in it."""
    centre = quad.mean(axis=0)
    grown: np.ndarray = (centre + (quad - centre) * (1 + share)).astype(np.float32)
    return grown


@pytest.mark.parametrize("card", ["5c", "7h", "9c", "Ts"])
def test_a_number_card_outlined_larger_all_round_shows_no_picture(card: str) -> None:
    """A card outlined two fifths larger all round (a jumbo index read through a wider window:
    Kennard's nine of clubs read as a queen at both corners, outlined a quarter larger, its small
    pips leaving less paper to spare): the cloth in the outline's middle reaches its edge, and is
    no picture, which the card's white border frames (each card here fails with the cloth counted)."""
    number = face(card, 80)
    image = laid(felt(), number, (320, 240), 12.0)
    quad = np.array(the_card(CardReader().read(image), card).corners, np.float32)
    assert no_court_picture(image, grown_by(quad, 0.4))


def test_marks_inside_the_card_still_count_with_the_cloth_left_out() -> None:
    """A white card dotted all over with pip-sized marks (two fifths of its middle), outlined two
    fifths larger: the felt round it is left out, the dots are not, and the middle is no bare
    paper (all marks taken for cloth would call it bare)."""
    image = felt()
    image[184:296, 280:360] = 245
    for y in range(192, 292, 14):
        for x in range(288, 356, 14):
            cv2.circle(image, (x, y), 5, (20, 20, 20), -1)
    quad = np.array([[280, 184], [360, 184], [360, 296], [280, 296]], np.float32)
    assert not no_court_picture(image, grown_by(quad, 0.4))
    assert not no_court_picture(image, quad)


def test_a_mark_reaching_an_outline_that_hugs_its_card_is_the_cards() -> None:
    """A card with a few pips and a dark band from its left edge into its middle (a court's picture
    reaching an outline that cuts into its card), outlined to its edge: the look's edge is mostly
    paper, so no cloth is looked for, and the band keeps the middle marked (taken for cloth, the
    middle would look bare)."""
    image = felt()
    image[184:296, 280:360] = 245
    image[215:265, 280:318] = 30  # the band, from the card's left edge
    for x, y in ((340, 200), (340, 240), (340, 280), (300, 200)):
        cv2.circle(image, (x, y), 5, (20, 20, 20), -1)
    quad = np.array([[280, 184], [360, 184], [360, 296], [280, 296]], np.float32)
    assert not no_court_picture(image, quad)


def test_the_cloth_left_out_only_adds_holds(monkeypatch: pytest.MonkeyPatch) -> None:
    """Leaving the cloth out of the middle (only where MIDDLE_IN_VIEW of it stays) only lowers the
    share of it marked: every outline held without it (cards under a neighbour, outlined off their
    paper, larger or smaller) is held with it, and some more."""
    rng = np.random.default_rng(7)
    held = {False: 0, True: 0}
    for card in ["4d", "5c", "6s", "7h", "9c", "Jc", "Qh"]:
        image = laid(laid(felt(), face(card, 80), (320, 240), 12.0), face("8s", 80), (380, 250), 5.0)
        quad = np.array(the_card(CardReader().read(image), card).corners, np.float32)
        neighbour = upright_quad((380, 250), face("8s", 80))
        for _ in range(30):
            outline = (grown_by(quad, rng.uniform(-0.1, 0.5)) + rng.uniform(-12, 12, 2)).astype(np.float32)
            verdicts = {}
            for cloth in (False, True):
                monkeypatch.setattr(pip_suits_module, "LEAVE_OUT_CLOTH", cloth)
                verdicts[cloth] = no_court_picture(image, outline, [neighbour])
                held[cloth] += verdicts[cloth]
            assert verdicts[True] or not verdicts[False], (card, outline)
    assert held[True] > held[False] > 0, held


class _SixesAsQueens(IndexReader):
    """The committed classifier, but reading a six's index as a queen's: what it does with a jumbo
    index it never saw (Kennard's jumbo six and eight of clubs read as the queen at 0.95-0.99, both
    corners agreeing)."""

    def read(self, patches: FloatArray) -> list[IndexRead]:
        six, queen = RANK_LABELS.index("6"), RANK_LABELS.index("Q")
        return [r._replace(rank=queen) if r.rank == six and r.is_index else r for r in super().read(patches)]


def test_a_number_card_read_as_a_court_card_is_not_acted_on(monkeypatch: pytest.MonkeyPatch) -> None:
    image = lone_card("6c")
    misreading = CardReader(_SixesAsQueens())
    queen = the_card(misreading.read(image), "Qc")
    assert queen.facing is Facing.UP and queen.confidence < ACT_CONFIDENCE
    assert "no court picture" in queen.why
    monkeypatch.setattr(reader_module, "COURT_PICTURE", False)
    assert the_card(misreading.read(image), "Qc").confidence >= ACT_CONFIDENCE  # the check held it
