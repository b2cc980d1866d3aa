"""The camera adapter: one camera's frames into the controller's events.

Each camera of the table's config (vision/zones.py) runs in a thread of its own: frames from its
source go through the card reader (vision/reader.py) and the zone watch (vision/stability.py),
and each decision becomes a ``CardSeen`` event submitted to the table service, as the shoe link's
reads are. Nothing here waits on the table: ``submit`` never blocks, and a slow frame delays only
the next frame.

The camera's health is a device status like the shoe's: ``DeviceStatus("<name> camera", False,
why)`` when it stops delivering frames (its stream ends, nothing comes for ``lost_after``
seconds: a watchdog thread sees that even when the driver hangs in a read, it cannot open, or
gives frames of another size than its zones are drawn on), and ``ok`` again when frames come back.
A live camera is opened again every ``retry`` seconds; a recording (a video file, a folder of
images) ends once.

A card seen face up at the shoe's mouth is not a ``CardSeen``: the procedure takes a boxed card
from the shoe's read (``CardDrawn.face_up``, IRR-3). The mouth camera is then the shoe's face
sensor: :class:`MouthSightings` keeps the cards it read face up there, and the shoe adapter marks
the shoe's read of the same card face up when the shoe's own sensor could not tell.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from tablectl.core.cards import parse_card
from tablectl.core.events import CardSeen, DeviceStatus, Zone
from vision.crops import ZoneReader
from vision.sighting import CardSighting
from vision.sources import Frame, FrameSource, SourceError, open_camera
from vision.stability import Seen, ZoneWatch
from vision.types import BGRImage
from vision.zones import DEFAULT_AGREE_FRAMES, DEFAULT_RELEASE_FRAMES, CameraConfig

log = logging.getLogger(__name__)

Submit = Callable[..., None]
ZONES = {"seat": Zone.SEAT, "board": Zone.BOARD, "burn": Zone.BURN, "muck": Zone.MUCK}
LIVE_SOURCES = ("device", "picamera")
MAX_KEPT = 200  # decisions kept for inspection: a table runs for days


class Reader(Protocol):
    def read(self, image: BGRImage) -> list[CardSighting]: ...


def default_reader(backs: Path | None = None) -> Reader:
    """The card reader, with the backs learned by calibration when the config names them (a
    missing or damaged file raises vision.backs.BacksError: the camera is reported lost, why)."""
    from vision.backs import load_backs
    from vision.reader import CardReader

    return CardReader(backs=load_backs(backs) if backs is not None else None)


def card_seen(seen: Seen) -> CardSeen | None:
    """The event of a decision; None for the shoe's mouth, which the procedure takes from the shoe."""
    zone = ZONES.get(seen.kind)
    if zone is None:
        return None
    card = parse_card(seen.card) if seen.card is not None else None
    return CardSeen(zone, card, face_up=seen.face_up, seat=seen.seat, at=seen.at)


class MouthSightings:
    """The cards a camera read face up at the shoe's mouth, for the shoe's read of the same card.

    The camera's thread adds (:meth:`saw`, a zone watch's decision), the shoe link's asks
    (:meth:`face_up`, once per read, which uses up the sighting). Only cards read by name count:
    a face-up card not read cannot be matched to a read, and a wrong match would set a good card
    aside. A sighting is forgotten after ``keep`` seconds; one made after the shoe had already
    read that card is too late to call it boxed, and is logged, not kept."""

    def __init__(self, keep: float = 5.0) -> None:
        self.keep = keep
        self._lock = threading.Lock()
        self._seen: dict[int, float] = {}  # card -> when the camera first saw it face up there
        self._read: dict[int, float] = {}  # card -> when the shoe last read it
        self.late: list[Seen] = []  # sightings that came after the shoe's read (the log, tests)

    def saw(self, seen: Seen) -> None:
        if seen.card is None:
            return
        card = parse_card(seen.card)
        with self._lock:
            self._forget(seen.at)
            if card in self._read:
                self.late.append(seen)
                late = True
            else:
                self._seen[card] = seen.at
                late = False
        if late:
            log.warning(
                "%s was seen face up at the shoe's mouth after the shoe read it: too late to rule it "
                "boxed; the dealer's screen shows it as dealt",
                seen.card,
            )

    def face_up(self, card: int, at: float) -> bool:
        """Whether the camera saw ``card`` face up at the mouth in the ``keep`` s before ``at``
        (the shoe's read of it); the sighting is used up."""
        with self._lock:
            self._forget(at)
            self._read[card] = at
            when = self._seen.pop(card, None)
        return when is not None and at - self.keep <= when <= at + 1.0

    def _forget(self, now: float) -> None:
        for table in (self._seen, self._read):
            for card in [c for c, when in table.items() if when < now - self.keep]:
                del table[card]


class CameraAdapter:
    def __init__(
        self,
        camera: CameraConfig,
        submit: Submit,
        *,
        agree: int = DEFAULT_AGREE_FRAMES,
        release: int = DEFAULT_RELEASE_FRAMES,
        backs: Path | None = None,
        open_source: Callable[[CameraConfig], FrameSource] = open_camera,
        reader: Callable[[], Reader] | None = None,
        on_mouth: Callable[[Seen], object] | None = None,
        lost_after: float = 2.0,
        retry: float = 5.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.camera = camera
        self.submit = submit
        self._watch = ZoneWatch(camera, agree, release)
        self._open_source = open_source
        self._reader = reader or (lambda: default_reader(backs))
        self.on_mouth = on_mouth  # a face-up card at the shoe's mouth (a boxed card)
        self.lost_after = lost_after
        self.retry = retry
        self.clock = clock
        self.live = camera.source.kind in LIVE_SOURCES
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._lost: str | None = None  # why the camera is lost, None while it delivers
        self._last_frame = time.monotonic()
        self._threads: list[threading.Thread] = []
        self.frames = 0  # frames read
        self.skipped = 0  # frames that could not be read
        self._reasons: set[str] = set()  # why frames were skipped, each logged once
        self.decisions: deque[Seen] = deque(maxlen=MAX_KEPT)  # the last decisions (the log and tests)

    @property
    def device(self) -> str:
        return self.camera.device_name

    @property
    def lost(self) -> str | None:
        return self._lost

    def start(self) -> None:
        self._last_frame = time.monotonic()
        for target, what in ((self._run, ""), (self._watchdog, "-watch")):
            thread = threading.Thread(
                target=target, name=f"tablectl-camera-{self.camera.name}{what}", daemon=True
            )
            self._threads.append(thread)
            thread.start()

    def stop(self, timeout: float = 5.0) -> bool:
        """Stop reading; True once the threads have ended (a driver hung in a read may keep its
        thread a while: it is a daemon and submits nothing more)."""
        self._stop.set()
        deadline = time.monotonic() + timeout
        for thread in self._threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        return not any(thread.is_alive() for thread in self._threads)

    # -- the camera's thread --------------------------------------------------------------------

    def _run(self) -> None:
        try:
            reader = ZoneReader(self._reader(), self.camera)  # a large frame: each zone's crop
        except Exception as error:  # the model cannot load: the camera is as good as lost
            log.exception("%s: the card reader did not start", self.device)
            self._report_lost(f"the card reader did not start: {error}")
            return
        while not self._stop.is_set():
            try:
                source = self._open_source(self.camera)
            except SourceError as error:
                self._report_lost(str(error))
            else:
                try:
                    self._read(source, reader)
                except Exception as error:  # a driver or a frame the pipeline fails on
                    log.exception("%s failed", self.device)
                    self._report_lost(f"the camera failed: {error}")
                finally:
                    source.close()
                if not self._stop.is_set():
                    self._report_lost(
                        "the camera stopped delivering frames" if self.live else "the recording ended"
                    )
            if not self.live:
                return  # a recording is read once
            self._stop.wait(self.retry)

    def _read(self, source: FrameSource, reader: ZoneReader) -> None:
        width, height = self.camera.size
        for item in source.frames():
            if self._stop.is_set():
                return
            if not isinstance(item, Frame):
                self.skipped += 1
                self._watch.gap()
                self._skipped_because(item.label, item.reason)
                continue
            shape = item.image.shape
            if (shape[1], shape[0]) != (width, height):
                self.skipped += 1
                self._watch.gap()
                self._report_lost(
                    f"it gives {shape[1]}x{shape[0]} frames, its zones are drawn on {width}x{height} "
                    f"(cameras.{self.camera.name}.size): set the camera's size or correct the config"
                )
                continue
            self._frame_came()
            at = self.clock()
            try:
                sightings = list(reader.read(item.image))
            except Exception as error:  # a frame the pipeline fails on is skipped, the camera goes on
                self.skipped += 1
                self._watch.gap()
                self._skipped_because(item.label, f"the reader failed: {error!r}")
                continue
            for seen in self._watch.frame(sightings, at):
                self._decided(seen)

    def _skipped_because(self, label: str, reason: str) -> None:
        """A frame skipped: its reason in the log the first time it is given (a camera sending
        bad frames would otherwise write a line 30 times a second)."""
        if reason not in self._reasons:
            self._reasons.add(reason)
            log.warning("%s: %s skipped: %s (said once per reason)", self.device, label, reason)

    def _decided(self, seen: Seen) -> None:
        self.decisions.append(seen)
        log.info("%s: %s face up in %s", self.device, seen.card or "a card", seen.zone)
        event = card_seen(seen)
        if event is not None:
            self.submit(event)
        elif self.on_mouth is not None:
            self.on_mouth(seen)

    # -- health ---------------------------------------------------------------------------------

    def _watchdog(self) -> None:
        while not self._stop.wait(min(0.25, self.lost_after / 4)):
            silent = time.monotonic() - self._last_frame
            if silent > self.lost_after:
                self._report_lost(f"no frame for {silent:.1f} s")

    def _frame_came(self) -> None:
        self.frames += 1
        self._last_frame = time.monotonic()
        with self._lock:
            if self._lost is None:
                return
            self._lost = None
        self.submit(DeviceStatus(self.device, True, "frames again", self.clock()))

    def _report_lost(self, why: str) -> None:
        with self._lock:
            if self._lost is not None or self._stop.is_set():
                return
            self._lost = why
        log.warning("%s lost: %s", self.device, why)
        self.submit(DeviceStatus(self.device, False, why, self.clock()))
