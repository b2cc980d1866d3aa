"""A high-resolution camera's frame read zone by zone, at its own resolution."""

from __future__ import annotations

import math

import numpy as np
import pytest

import vision.reader as reader_module
from tests.helpers.camera_frames import FELT, face, laid
from vision.crops import ZoneReader, crop_boxes, tiles
from vision.reader import ACT_CONFIDENCE, CardReader
from vision.stability import ZoneWatch
from vision.zones import CameraConfig, CameraSource, ZoneArea, rectangle

WIDE = CameraConfig(
    "table",
    CameraSource("picamera", device=0),
    (2304, 1296),
    (
        ZoneArea("seat1", rectangle(100, 850, 500, 440)),
        ZoneArea("seat2", rectangle(700, 850, 500, 440)),
        ZoneArea("board", rectangle(700, 200, 900, 300)),
    ),
)


def wide_frame() -> np.ndarray:
    """Cards 60 px wide, as a Camera Module 3 at 2304x1296 sees them over a whole table."""
    frame = np.zeros((1296, 2304, 3), np.uint8)
    frame[:] = FELT
    frame = laid(frame, face("As", 60), (330, 1000), 15.0)
    frame = laid(frame, face("Kd", 60), (590, 1000), -10.0)  # across seat 1's right edge
    return laid(frame, face("7c", 60), (1000, 350), 0.0)


def test_a_wide_frame_is_read_in_its_zones_and_not_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    reader = CardReader()
    frame = wide_frame()
    # read as a photo, at finer levels in tiles of the whole frame: its cards (the king of diamonds
    # at one corner in its tile, where the seat's crop, smaller, finds its whole outline)
    read = {c.card: c.confidence for c in reader.read(frame) if c.card}
    assert read.keys() == {"7c", "As", "Kd"} and min(read["7c"], read["As"]) >= ACT_CONFIDENCE
    # scaled to 960 px, its cards are 25 px wide: none read at a confidence acted on
    monkeypatch.setattr(reader_module, "FINER_LEVELS_FROM", math.inf)
    assert [c for c in reader.read(frame) if c.card and c.confidence >= ACT_CONFIDENCE] == []
    # the zones' crops: 3 reads, of the table's places only
    cards = ZoneReader(reader, WIDE).read(frame)
    assert sorted({c.card for c in cards if c.card}) == ["7c", "As", "Kd"]
    ace = next(c for c in cards if c.card == "As")
    assert abs(ace.centre[0] - 330) < 15 and abs(ace.centre[1] - 1000) < 15  # in the frame's pixels
    watch = ZoneWatch(WIDE, agree=1)
    assert sorted((s.zone, s.card) for s in watch.frame(cards, 0.0)) == [
        ("board", "7c"),
        ("seat1", "As"),
        ("seat1", "Kd"),
    ]


def test_crops_have_a_margin_inside_the_frame_and_small_frames_are_read_whole() -> None:
    assert crop_boxes(WIDE)[0] == (0, 740, 710, 1296)  # 110 px (a quarter of 440) each side, clipped
    assert tiles((625, 125, 1675, 575), 960) == [(625, 125, 1585, 575), (715, 125, 1675, 575)]

    class Counting:
        calls: list[tuple[int, ...]] = []

        def read(self, image: np.ndarray) -> list:  # type: ignore[type-arg]
            self.calls.append(image.shape)
            return []

    counting = Counting()
    ZoneReader(counting, WIDE).read(np.zeros((480, 640, 3), np.uint8))
    assert counting.calls == [(480, 640, 3)]
