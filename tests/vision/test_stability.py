"""The stability filter on synthetic frame sequences: an event only when consecutive frames agree."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from hypothesis import given
from hypothesis import strategies as st

from vision.sighting import CardSighting, Facing
from vision.stability import Seen, ZoneWatch
from vision.zones import CameraConfig, CameraSource, ZoneArea, rectangle

CAMERA = CameraConfig(
    "table",
    CameraSource("device", device=0),
    (640, 480),
    (
        ZoneArea("shoe", rectangle(0, 0, 100, 100)),
        ZoneArea("seat3", rectangle(100, 300, 200, 180)),
        ZoneArea("board", rectangle(200, 100, 300, 150)),
        ZoneArea("muck", rectangle(520, 100, 120, 150)),
    ),
)
SEAT = (200.0, 390.0)  # the middle of seat3
BOARD = (300.0, 170.0)
MUCK = (580.0, 170.0)
MOUTH = (50.0, 50.0)


def card(
    centre: tuple[float, float],
    name: str | None = None,
    confidence: float = 0.97,
    facing: Facing = Facing.UP,
) -> CardSighting:
    x, y = centre
    corners = ((x - 20, y - 28), (x + 20, y - 28), (x + 20, y + 28), (x - 20, y + 28))
    rank, suit = (name[0], name[1]) if name else (None, None)
    return CardSighting(corners, facing, rank, suit, confidence if name else 0.0)


def run(watch: ZoneWatch, frames: Sequence[Sequence[CardSighting] | None], start: float = 0.0) -> list[Seen]:
    """Each item one frame at 30 fps; None is a frame that could not be read."""
    seen: list[Seen] = []
    for number, sightings in enumerate(frames):
        if sightings is None:
            watch.gap()
        else:
            seen += watch.frame(sightings, start + number / 30)
    return seen


def test_a_card_face_up_at_a_seat_is_one_event_after_four_agreeing_frames() -> None:
    watch = ZoneWatch(CAMERA, agree=4)
    frames = [[card(SEAT, "As")]] * 3
    assert run(watch, frames) == []  # three frames: not yet
    seen = watch.frame([card(SEAT, "As")], 3 / 30)
    assert seen == [Seen("table", "seat3", "seat", 3, "As", 0.0, 4)]  # the time of the first frame
    assert run(watch, [[card(SEAT, "As")]] * 60) == []  # and only once


def test_a_hand_passing_over_a_card_raises_nothing() -> None:
    # a hand's white cuff or a palm read as a white face for three frames, then gone; repeatedly
    watch = ZoneWatch(CAMERA, agree=4)
    passing = ([[card(SEAT)]] * 3 + [[]] * 2) * 10
    assert run(watch, passing) == []


def test_an_interrupted_run_starts_again() -> None:
    watch = ZoneWatch(CAMERA, agree=4)
    frames = [[card(SEAT, "Kd")]] * 3 + [[]] + [[card(SEAT, "Kd")]] * 3
    assert run(watch, frames) == []
    assert len(watch.frame([card(SEAT, "Kd")], 1.0)) == 1


def test_an_unreadable_frame_breaks_the_run_without_ending_a_decision() -> None:
    watch = ZoneWatch(CAMERA, agree=4, release=5)
    assert run(watch, [[card(SEAT, "Kd")]] * 3 + [None] + [[card(SEAT, "Kd")]] * 3) == []
    assert len(watch.frame([card(SEAT, "Kd")], 1.0)) == 1
    # the camera stutters for longer than the release: the card still lies there, not seen anew
    assert run(watch, [None] * 10 + [[card(SEAT, "Kd")]] * 10) == []


@pytest.mark.parametrize("facing", [Facing.DOWN, Facing.UNKNOWN])
def test_face_down_and_unknown_never_raise_anything(facing: Facing) -> None:
    watch = ZoneWatch(CAMERA, agree=2)
    sightings = [card(SEAT, facing=facing), card(MOUTH, facing=facing), card(BOARD, facing=facing)]
    assert run(watch, [sightings] * 30) == []


def test_an_unread_face_up_card_at_a_seat_is_reported_without_a_name_and_not_again_when_read() -> None:
    watch = ZoneWatch(CAMERA, agree=4)
    seen = run(watch, [[card(SEAT)]] * 4)
    assert [(s.zone, s.card) for s in seen] == [("seat3", None)]
    # the same card, now read: it is the card already reported, not a second exposed card
    assert run(watch, [[card(SEAT, "7h")]] * 10) == []


def test_a_card_read_on_half_the_frames_is_named() -> None:
    watch = ZoneWatch(CAMERA, agree=4)
    frames = [[card(SEAT, "7h")], [card(SEAT)], [card(SEAT, "7h")], [card(SEAT)]]
    assert [s.card for s in run(watch, frames)] == ["7h"]


def test_a_card_read_below_acting_confidence_is_not_named() -> None:
    watch = ZoneWatch(CAMERA, agree=3)
    seen = run(watch, [[card(SEAT, "7h", confidence=0.6)]] * 3)
    assert [s.card for s in seen] == [None]


def test_two_different_reads_of_one_card_name_neither() -> None:
    watch = ZoneWatch(CAMERA, agree=4)
    frames = [[card(SEAT, "7h")], [card(SEAT, "7d")], [card(SEAT, "7h")], [card(SEAT, "7d")]]
    assert [s.card for s in run(watch, frames)] == [None]


def test_a_second_card_exposed_at_the_seat_is_a_second_event() -> None:
    watch = ZoneWatch(CAMERA, agree=3)
    first = run(watch, [[card(SEAT, "As")]] * 3)
    second = run(watch, [[card(SEAT, "As"), card((150, 350), "Qc")]] * 5)
    assert [s.card for s in first] == ["As"] and [s.card for s in second] == ["Qc"]


def test_a_decision_is_made_again_after_the_zone_was_empty_for_the_release() -> None:
    watch = ZoneWatch(CAMERA, agree=3, release=10)
    assert len(run(watch, [[card(SEAT, "As")]] * 3)) == 1
    assert run(watch, [[]] * 9 + [[card(SEAT, "As")]] * 5) == []  # covered by a hand for 0.3 s
    assert run(watch, [[]] * 10) == []
    assert len(run(watch, [[card(SEAT, "As")]] * 3)) == 1  # gathered and exposed again (a new hand)


def test_a_face_up_card_at_the_mouth_is_a_decision_read_or_not() -> None:
    watch = ZoneWatch(CAMERA, agree=3)
    seen = run(watch, [[card(MOUTH)]] * 3)
    assert [(s.kind, s.card, s.seat) for s in seen] == [("shoe", None, None)]


def test_board_cards_are_decided_only_when_read_and_each_once() -> None:
    watch = ZoneWatch(CAMERA, agree=3)
    assert run(watch, [[card(BOARD)]] * 10) == []  # unread: nothing the procedure can check
    flop = [card((220, 170), "2c"), card((300, 170), "9h"), card((380, 170), "Jd")]
    seen = run(watch, [flop] * 3)
    assert sorted(s.card for s in seen if s.card) == ["2c", "9h", "Jd"]
    assert all(s.kind == "board" and s.seat is None for s in seen)
    turn = run(watch, [[*flop, card((460, 170), "4s")]] * 6)
    assert [s.card for s in turn] == ["4s"]


def test_a_card_into_the_muck_face_up_is_decided_and_outside_every_zone_nothing() -> None:
    watch = ZoneWatch(CAMERA, agree=3)
    seen = run(watch, [[card(MUCK, "Th"), card((620, 470), "Ac")]] * 3)
    assert [(s.zone, s.card) for s in seen] == [("muck", "Th")]


def test_a_card_moving_from_a_seat_to_the_muck_is_decided_in_each() -> None:
    watch = ZoneWatch(CAMERA, agree=3)
    seen = run(watch, [[card(SEAT, "5s")]] * 3 + [[]] * 2 + [[card(MUCK, "5s")]] * 3)
    assert [(s.zone, s.card) for s in seen] == [("seat3", "5s"), ("muck", "5s")]


def test_bad_counts_are_refused() -> None:
    with pytest.raises(ValueError):
        ZoneWatch(CAMERA, agree=0)


CHOICES = [
    [],
    [card(SEAT)],
    [card(SEAT, "As")],
    [card(SEAT, "Kd")],
    [card(MOUTH)],
    [card(BOARD, "2c")],
    [card(MUCK, "9h"), card(SEAT, "As")],
]


@given(st.lists(st.lists(st.sampled_from(range(1, len(CHOICES))), min_size=1, max_size=3), max_size=20))
def test_runs_shorter_than_agree_never_raise_anything(bursts: list[list[int]]) -> None:
    """Whatever shows for up to three frames at a time, between empty frames, raises nothing."""
    watch = ZoneWatch(CAMERA, agree=4)
    frames: list[list[CardSighting]] = []
    for burst in bursts:
        frames += [CHOICES[i] for i in burst] + [[]]
    assert run(watch, frames) == []


@given(st.lists(st.sampled_from(range(len(CHOICES))), max_size=60))
def test_a_decision_is_always_backed_by_agree_frames_and_never_repeated_while_in_view(
    picks: list[int],
) -> None:
    watch = ZoneWatch(CAMERA, agree=3, release=100)
    seen = run(watch, [CHOICES[i] for i in picks])
    assert all(s.frames >= 3 for s in seen)
    keys = [(s.zone, s.card) for s in seen if s.card is not None]
    assert len(keys) == len(set(keys))  # release 100 is never reached in 60 frames


@pytest.mark.parametrize(("rank", "suit"), [("10", "h"), ("", "h"), ("TJ", "h"), ("A", "x"), ("A", "")])
def test_a_sighting_of_no_card_is_refused_when_made(rank: str, suit: str) -> None:
    # a sighting's card is its rank and suit put together, so they are checked once, here
    with pytest.raises(ValueError, match="no rank|no suit"):
        CardSighting(((0.0, 0.0),) * 4, Facing.UP, rank, suit, 0.9)
    assert card(SEAT, "Td").card == "Td" and card(SEAT).card is None
