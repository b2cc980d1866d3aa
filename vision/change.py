"""Frames that show nothing new since the last one read.

A camera over a live table sees the same cards for seconds at a time: between a deal and the next
action nothing on the cloth moves. The card reader costs tens of milliseconds a frame on a Pi;
telling that a frame is the last read one again costs a fraction of one (the frame shrunk to
blocks of 8 x 8 pixels and compared). The camera adapter skips such a frame, and the reader's
time goes to frames where something moved.

A frame is read again when any block's mean moved by CHANGE_LEVEL grey levels in any colour
since the last frame read (not the last frame: a slow slide adds up until it shows), and at least
every READ_AT_LEAST_EVERY frames whatever the blocks say (a change too faint for the blocks, such
as a lamp's slow drift, is looked at within a second at 30 frames a second). A camera's sensor
noise (a few grey levels a pixel) moves a block's mean by a fraction of one; a card dealt, turned
or slid by a few pixels, a hand or a shadow moves some block by tens. Not every change shows:
a card of 50 px or less swapped for one of the same rank in the other black (or red) suit moves
its blocks by 2-7 levels; such a swap is read within a second, and in play it comes with a hand,
which shows.

After a change the next ``settle`` frames are all read (the zone watch's agreement and release),
and the camera adapter gives its zone watch only the frames read: one read repeated over skipped
frames would make a flicker of the reader look like several frames agreeing.
"""

from __future__ import annotations

import numpy as np

from vision.corners import shrunk
from vision.types import BGRImage

BLOCK_PX = 8  # a block's side, in the frame's pixels (a rank's glyph is 8-10 px high)
CHANGE_LEVEL = 12.0  # grey levels: a block's mean moved this far in any colour is a change
READ_AT_LEAST_EVERY = 30  # frames: a frame is read at least this often, changed or not


class ChangeGate:
    """Whether each frame of one camera must be read, or shows the last frame read again.

    ``settle``: after a change, this many frames in a row are read before any is skipped (the
    zone watch's ``agree`` and ``release``, at least: a flicker of the reader on a still scene
    must not be repeated into agreement, so the camera adapter gives the watch only frames read,
    and it must still see as many of them as it counts on)."""

    def __init__(
        self, level: float = CHANGE_LEVEL, every: int = READ_AT_LEAST_EVERY, settle: int = 1
    ) -> None:
        self.level = level
        self.every = every
        self.settle = settle
        self._read: np.ndarray | None = None  # the blocks of the last frame read
        self._still = 0  # frames read in a row since the last change
        self._since = 0  # frames passed since the last one read

    @classmethod
    def for_zone_watch(cls, agree: int, release: int) -> ChangeGate:
        """The gate of a camera whose zone watch decides on ``agree`` frames and releases after
        ``release``: as many frames read after each change as it counts on."""
        return cls(settle=max(agree, release))

    def must_read(self, image: BGRImage) -> bool:
        """True for a frame to read (it becomes the one compared with); False for one that shows
        the last frame read again."""
        # halved three times where the frame divides (vision.corners.shrunk): OpenCV's area
        # resampling by eight at once is its general path, 0.23 against 0.10 ms a 640x480 frame,
        # and this runs on every frame of every camera
        blocks = shrunk(image, 1.0 / BLOCK_PX).astype(np.int16)
        last = self._read
        changed = last is None or last.shape != blocks.shape or int(np.abs(blocks - last).max()) >= self.level
        if changed or self._still < self.settle or self._since + 1 >= self.every:
            self._still = 1 if changed else self._still + 1
            self._read = blocks
            self._since = 0
            return True
        self._since += 1
        return False

    def forget(self) -> None:
        """The next frame is read whatever it shows (a frame was skipped, the reader failed on one,
        the camera was opened again)."""
        self._read = None
        self._still = 0
        self._since = 0
