"""A box cut into overlapping tiles of at most a side: a large frame's zones (vision/crops.py) and
a large photo's finer levels (vision/reader.py) are read a tile at a time, each at the size the
card reader is made for."""

from __future__ import annotations

TILE_OVERLAP = 200  # pixels: a card up to ~140 px wide, at any angle, is whole in one tile


def tiles(
    box: tuple[int, int, int, int], side: int, overlap: int = TILE_OVERLAP
) -> list[tuple[int, int, int, int]]:
    """``box`` (left, top, right, bottom) cut into tiles of at most ``side`` pixels a side, each
    two neighbours overlapping by ``overlap``."""
    left, top, right, bottom = box
    return [
        (x, y, min(right, x + side), min(bottom, y + side))
        for y in _starts(top, bottom, side, overlap)
        for x in _starts(left, right, side, overlap)
    ]


def _starts(low: int, high: int, side: int, overlap: int) -> list[int]:
    if high - low <= side:
        return [low]
    step = side - overlap
    starts = list(range(low, high - side, step))
    return [*starts, high - side]  # the last tile ends at the box's edge
