"""A large frame read zone by zone: each zone's box, with a margin, at the frame's own resolution.

The card reader reads a frame whole, scaled down to ``vision.reader.MAX_SIDE`` pixels on its long
side, which is right for a 640x480 camera and wrong for one high-resolution camera over a whole
table: at 2304x1296, a card 60 px wide becomes 25 px, too small to read its index. A frame larger
than that is therefore read in crops, one for each zone, and the cards found are placed back in
the frame's coordinates. A card lying across a zone's edge is still whole in its crop when the
margin is larger than half a card; a crop larger than MAX_SIDE (a board zone of a wide camera) is
read in overlapping tiles of that size, so that nothing is scaled down; a card seen in two crops
or tiles is one mark for the zone watch. A camera looking across the table (its config's
``plane``) has its frames warped to the table seen from above first (vision/view.py), and is read
by its zones there: ``camera_reader`` gives each camera its reader.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Protocol

from vision.reader import MAX_SIDE  # frames up to this are read whole
from vision.sighting import CardSighting
from vision.tiling import tiles
from vision.types import BGRImage
from vision.view import View, mapped
from vision.zones import CameraConfig

MARGIN = 0.25  # of the zone box's shorter side, on every side ...
MIN_MARGIN = 48  # ... and at least this many pixels (half a well-read card)


class Reader(Protocol):
    def read(self, image: BGRImage) -> list[CardSighting]: ...


class ZoneReader:
    def __init__(self, reader: Reader, camera: CameraConfig, max_side: int = MAX_SIDE) -> None:
        self.reader = reader
        self.camera = camera
        self.max_side = max_side
        self.boxes = [tile for box in crop_boxes(camera) for tile in tiles(box, max_side)]

    def read(self, image: BGRImage) -> list[CardSighting]:
        if max(image.shape[:2]) <= self.max_side:
            return self.reader.read(image)
        cards: list[CardSighting] = []
        for left, top, right, bottom in self.boxes:
            crop = image[top:bottom, left:right]
            for card in self.reader.read(crop):
                corners = tuple((x + left, y + top) for x, y in card.corners)
                cards.append(replace(card, corners=corners))
        return cards


class ViewReader:
    """A camera looking across the table: each frame seen from above (its ``plane``), read there by
    its zones, and the cards placed back in the frame's coordinates. ViewError for a plane that
    gives no usable view (the config loader refuses one first)."""

    def __init__(self, reader: Reader, camera: CameraConfig, max_side: int = MAX_SIDE) -> None:
        assert camera.plane is not None
        self.view = View.of(camera.plane, camera.size, camera.zones)
        self.zones = ZoneReader(reader, self.view.camera_seen_from_above(camera), max_side)

    def read(self, image: BGRImage) -> list[CardSighting]:
        cards = self.zones.read(self.view.warp(image))
        return [replace(card, corners=mapped(self.view.inverse, card.corners)) for card in cards]


def camera_reader(reader: Reader, camera: CameraConfig, max_side: int = MAX_SIDE) -> Reader:
    """How ``camera``'s frames are read: seen from above where it looks across the table, by its
    zones where a frame is larger than ``max_side``."""
    if camera.plane is not None:
        return ViewReader(reader, camera, max_side)
    return ZoneReader(reader, camera, max_side)


def crop_boxes(camera: CameraConfig) -> list[tuple[int, int, int, int]]:
    """Each zone's bounding box with its margin, inside the frame: left, top, right, bottom."""
    width, height = camera.size
    boxes = []
    for zone in camera.zones:
        left, top, right, bottom = zone.bounds()
        margin = max(MIN_MARGIN, MARGIN * min(right - left, bottom - top))
        boxes.append(
            (
                max(0, int(left - margin)),
                max(0, int(top - margin)),
                min(width, math.ceil(right + margin)),
                min(height, math.ceil(bottom + margin)),
            )
        )
    return boxes
