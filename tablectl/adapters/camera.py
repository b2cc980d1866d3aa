"""The camera adapter: one camera's frames into the controller's events.

Each camera of the table's config (vision/zones.py) runs in a thread of its own: frames from its
source go through the card reader (vision/reader.py) and the zone watch (vision/stability.py),
and each decision becomes a ``CardSeen`` event submitted to the table service, as the shoe link's
reads are. Nothing here waits on the table: ``submit`` never blocks, and a slow frame delays only
the next frame.

The camera's health is a device status like the shoe's: ``DeviceStatus("<name> camera", False,
why)`` when it stops delivering frames (its stream ends, nothing comes for ``lost_after``
seconds of waiting for one: a watchdog thread sees that even when the driver hangs in a read; the
time the reader spends on a frame is not the camera's silence, unless it stays on one frame for
``stuck_after`` seconds, when no frame is watched at all; it cannot open, or
gives frames of another size than its zones are drawn on), and ``ok`` again when frames come back.
A live camera is opened again every ``retry`` seconds; a recording (a video file, a folder of
images) ends once. Where the deck's faces were never calibrated, its naming of cards is a device
status of its own, ``"<name> camera naming"``: lost while the index-size watch finds a jumbo index
(vision/index_size.py), the cards then decided unnamed.

A card seen face up at the shoe's mouth is not a ``CardSeen``: the procedure takes a boxed card
from the shoe's read (``CardDrawn.face_up``, IRR-3). The mouth camera is then the shoe's face
sensor: :class:`MouthSightings` keeps the cards it read face up there, and the shoe adapter marks
the shoe's read of the same card face up when the shoe's own sensor could not tell.

A camera with a ``shoe`` zone runs the fast mouth check (vision/mouth.py) on every frame: empty,
a calibrated back, a face, or unknown. The full card reader runs only when the check says face or
unknown (or the camera watches other zones too): it names the card, and an index read at acting
confidence is itself evidence of a face. Every frame's word on the mouth goes to ``on_mouth`` as
a :class:`MouthFrame`, so that a face at the mouth that no one read by name still makes the
shoe's read at that moment face up (:meth:`MouthSightings.face_up`).

A frame that shows the last frame read again (no block of 8 x 8 pixels moved by 12 grey levels,
vision/change.py) is not read, once the frames after a change have been read as many times as the
zone watch counts (its ``agree`` and ``release``); the zone watch is given only frames read (a
read repeated over skipped frames would make one flicker of the reader several frames agreeing),
and every 30th frame is read whatever it shows. Not at the shoe's mouth: its check decides every
frame. ``reread_unchanged=True`` reads every frame (tests that count reads).
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import cv2

from tablectl.core.cards import card_str, parse_card
from tablectl.core.events import CardSeen, DeviceStatus, Zone
from vision.change import ChangeGate
from vision.crops import camera_reader
from vision.index_size import LARGER_INDEX, IndexSizeWatch, withheld
from vision.mouth import MouthCheck, MouthLook, MouthState
from vision.reader import CardReader
from vision.sighting import ACT_CONFIDENCE, CardSighting, Facing
from vision.sources import Frame, FrameSource, SourceError, open_camera
from vision.stability import Seen, ZoneWatch
from vision.types import BGRImage
from vision.zones import DEFAULT_AGREE_FRAMES, DEFAULT_RELEASE_FRAMES, CameraConfig, ZoneArea

log = logging.getLogger(__name__)

Submit = Callable[..., None]
ZONES = {"seat": Zone.SEAT, "board": Zone.BOARD, "burn": Zone.BURN, "muck": Zone.MUCK}
LIVE_SOURCES = ("device", "picamera")
MAX_KEPT = 200  # decisions kept for inspection: a table runs for days
MOUTH_GRACE = 0.3  # s: a face that left the mouth this shortly before a read was that card
MOUTH_FRESH = 2.0  # s: a face last seen at the mouth longer ago than this is not the moment's


class Reader(Protocol):
    def read(self, image: BGRImage) -> list[CardSighting]: ...


def default_reader(backs: Path | None = None) -> Reader:
    """The card reader, with the backs learned by calibration when the config names them (a
    missing or damaged file raises vision.backs.BacksError: the camera is reported lost, why)."""
    from vision.backs import load_backs
    from vision.reader import CardReader

    return CardReader(backs=load_backs(backs) if backs is not None else None)


def index_size_watch(reader: Reader, camera: CameraConfig) -> IndexSizeWatch | None:
    """The watch for a jumbo index (vision/index_size.py) where ``reader`` assumes the standard
    index size (the deck's faces never calibrated); None where it knows the deck's."""
    if not isinstance(reader, CardReader) or reader.index_size_known:
        return None
    measuring = reader.without_straight_edges()
    return IndexSizeWatch(
        camera_reader(measuring.for_deck(index_scale=LARGER_INDEX), camera),
        standard=camera_reader(measuring, camera),
    )


def default_mouth_check(camera: CameraConfig, backs: Path | None = None) -> MouthCheck | None:
    """The fast check of the camera's ``shoe`` zone, with the calibrated backs when the config
    names them; None for a camera that does not watch the mouth."""
    zone = next((z for z in camera.zones if z.kind == "shoe"), None)
    if zone is None:
        return None
    from vision.backs import load_backs

    return MouthCheck(zone, camera.size, load_backs(backs) if backs is not None else None)


@dataclass(frozen=True)
class MouthFrame:
    """One frame's word on the shoe's mouth: ``state`` is the fast check's, made FACE by an index
    read there at acting confidence; ``agreed`` once a face has been on ``agree`` frames in a row."""

    camera: str
    at: float
    state: MouthState
    agreed: bool
    why: str = ""


def card_seen(seen: Seen) -> CardSeen | None:
    """The event of a decision; None for the shoe's mouth, which the procedure takes from the shoe."""
    zone = ZONES.get(seen.kind)
    if zone is None:
        return None
    card = parse_card(seen.card) if seen.card is not None else None
    return CardSeen(zone, card, face_up=seen.face_up, seat=seen.seat, at=seen.at)


@dataclass
class _FaceRun:
    """A face at the mouth: from its first face frame until a frame shows a back or no card."""

    since: float  # the first face frame
    last: float  # the last face frame
    agreed: bool = False  # on ``agree`` frames in a row at some point
    late: bool = False  # agreed only after the shoe had read a card: it may have been that one
    used: bool = False  # a read was made face up by it
    ended: float | None = None  # the first frame showing a back or no card after it


class MouthSightings:
    """The mouth camera's word on the cards leaving the shoe, for the shoe's read of each.

    The camera's thread adds (:meth:`saw`): a zone watch's decision (a :class:`Seen`) and every
    frame's mouth check (a :class:`MouthFrame`); the shoe link's asks (:meth:`face_up`, once per
    read). A read is face up when

    - the camera read that very card face up at the mouth in the ``keep`` seconds before (the
      named path); a sighting made after the shoe had already read that card is too late to call
      it boxed, and is logged, not kept; or
    - a face was at the mouth at the moment of the read, not read by name (the unnamed path): a
      face on ``agree`` frames in a row before the read, seen within ``MOUTH_FRESH`` s of it, and
      either still there or gone no more than ``MOUTH_GRACE`` s before it. One face makes one read
      face up: a face that stays in view after its card was read (the tail of a card being drawn)
      is that card; only a back or an empty mouth ends it, and the next face is another card. A
      face agreed on only after a read may have been that card: it is logged and never used.

    Unsure is better than wrong on both: a wrong match would set a good card aside."""

    def __init__(self, keep: float = 5.0) -> None:
        self.keep = keep
        self._lock = threading.Lock()
        self._seen: dict[int, float] = {}  # card -> when the camera first saw it face up there
        self._read: dict[int, float] = {}  # card -> when the shoe last read it
        self._run: _FaceRun | None = None  # the last face at the mouth
        self._last_read: float | None = None  # when the shoe last read a card
        self.late: list[Seen] = []  # sightings that came after the shoe's read (the log, tests)
        self.late_faces: list[float] = []  # unnamed faces agreed on after a read: their first frames
        self.unnamed: list[tuple[int, float]] = []  # reads made face up by an unnamed face (log, tests)

    def saw(self, seen: Seen | MouthFrame) -> None:
        if isinstance(seen, MouthFrame):
            self._frame(seen)
            return
        if seen.card is None:
            return  # a face not read: the mouth frames say when it was there
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

    def _frame(self, frame: MouthFrame) -> None:
        late = False
        with self._lock:
            run = self._run
            if frame.state is MouthState.FACE:
                if run is None or run.ended is not None:
                    run = self._run = _FaceRun(frame.at, frame.at)
                run.last = frame.at
                if frame.agreed and not run.agreed:
                    run.agreed = True
                    if self._last_read is not None and self._last_read >= run.since:
                        run.late = late = True
                        self.late_faces.append(run.since)
            elif frame.state in (MouthState.BACK, MouthState.EMPTY) and run is not None and run.ended is None:
                run.ended = frame.at  # a back or no card: the face has gone
        if late:
            log.warning(
                "%s: a face at the shoe's mouth was agreed on after the shoe read a card: too late "
                "to tell whether it was that card; the card plays as dealt",
                frame.camera,
            )

    def face_up(self, card: int | None, at: float) -> bool:
        """Whether the read of ``card`` at ``at`` is of a card the camera saw face up at the mouth:
        named in the ``keep`` s before, or an unnamed face there at that moment (used up either
        way). ``card`` None: a read naming no card of the deck (an unknown tag, another deck's
        card), which is never made face up here but uses up the face at the mouth."""
        with self._lock:
            self._forget(at)
            self._last_read = at
            when = None
            if card is not None:
                self._read[card] = at
                when = self._seen.pop(card, None)
            named = when is not None and at - self.keep <= when <= at + 1.0
            run = self._run
            unnamed = False
            if (
                run is not None
                and not run.used
                and run.since <= at
                and at - run.last <= MOUTH_FRESH
                and (run.ended is None or at - run.ended <= MOUTH_GRACE)
            ):  # a face at the mouth at this moment
                unnamed = card is not None and run.agreed and not run.late and not named
                if named or run.agreed:
                    run.used = True  # this read is the face's card, named or not
            if unnamed and card is not None:
                self.unnamed.append((card, at))
        if unnamed:
            log.info(
                "the shoe's read of %s: a face was at the mouth, not read by name: face up",
                card_str(card) if card is not None else "?",
            )
        return named or unnamed

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
        mouth_check: Callable[[CameraConfig], MouthCheck | None] | None = None,
        on_mouth: Callable[[Seen | MouthFrame], object] | None = None,
        lost_after: float = 2.0,
        stuck_after: float = 30.0,
        retry: float = 5.0,
        clock: Callable[[], float] = time.time,
        reread_unchanged: bool = False,
    ) -> None:
        self.camera = camera
        self.submit = submit
        self._watch = ZoneWatch(camera, agree, release)
        self._open_source = open_source
        self._reader = reader or (lambda: default_reader(backs))
        self._mouth_check = mouth_check or (lambda camera: default_mouth_check(camera, backs))
        self.on_mouth = on_mouth  # decisions at the shoe's mouth and every frame's check of it
        self.agree = agree
        self._mouth_zone: ZoneArea | None = next((z for z in camera.zones if z.kind == "shoe"), None)
        self._mouth_only = self._mouth_zone is not None and len(camera.zones) == 1
        self._mouth_run = 0  # consecutive frames with a face at the mouth
        self.mouth_looks: deque[MouthLook] = deque(maxlen=MAX_KEPT)  # the last checks (tests, the log)
        self.lost_after = lost_after
        self.stuck_after = stuck_after  # seconds on one frame: the reader is stuck, the camera lost
        self.retry = retry
        self.clock = clock
        self.live = camera.source.kind in LIVE_SOURCES
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._lost: str | None = None  # why the camera is lost, None while it delivers
        # since when the camera's thread has waited for a frame; None while it reads one (a frame the
        # reader is slow on, a loaded machine, is not a camera that stopped delivering)
        self._waiting_since: float | None = time.monotonic()
        self._reading_since = time.monotonic()  # when the frame being read came
        self._threads: list[threading.Thread] = []
        self.frames = 0  # frames received
        self.skipped = 0  # frames that could not be read
        self._reasons: set[str] = set()  # why frames were skipped, each logged once
        self.decisions: deque[Seen] = deque(maxlen=MAX_KEPT)  # the last decisions (the log and tests)
        self._index_watch: IndexSizeWatch | None = None  # made with the reader, in the camera's thread
        # a frame showing the last frame read again is not read (vision/change.py): not at the
        # mouth, whose check decides every frame and whose cards pass in a moment
        self._gate = (
            None
            if reread_unchanged or self._mouth_zone is not None
            else ChangeGate.for_zone_watch(agree, release)
        )
        self.reads = 0  # frames the card reader read (the others showed the last one read again)

    @property
    def device(self) -> str:
        return self.camera.device_name

    @property
    def lost(self) -> str | None:
        return self._lost

    def start(self) -> None:
        # OpenCV's own threads (one per core by default, for the whole process) cost more than they
        # give on a frame's small images: a ten-card frame took 17.3 ms of CPU with them on 2 cores
        # and 12.6 without, in the same time by the clock (12.9 against 12.6 ms). The table's other
        # work, and each other camera in its own thread, have the cores.
        cv2.setNumThreads(1)
        self._waiting_since = time.monotonic()
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
            base = self._reader()
            reader = camera_reader(base, self.camera)  # by zones; seen from above across the table
            self._index_watch = index_size_watch(base, self.camera)
            mouth = self._mouth_check(self.camera)
            self._waiting_since = time.monotonic()  # loading the model is no camera's silence
        except Exception as error:  # the model cannot load: the camera is as good as lost
            log.exception("%s: the card reader did not start", self.device)
            self._report_lost(f"the card reader did not start: {error}")
            return
        if self._index_watch is None and isinstance(base, CardReader):
            # the deck's index size is known: a naming status left from before the faces were
            # calibrated (the table keeps its devices across a restart) is cleared
            self.submit(DeviceStatus(self.naming, True, "the deck's index size is calibrated", self.clock()))
        while not self._stop.is_set():
            try:
                source = self._open_source(self.camera)
            except SourceError as error:
                self._report_lost(str(error))
            else:
                try:
                    self._read(source, reader, mouth)
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

    def _read(self, source: FrameSource, reader: Reader, mouth: MouthCheck | None = None) -> None:
        width, height = self.camera.size
        if self._gate is not None:
            self._gate.forget()  # a camera opened again: its first frame is read
        for item in source.frames():
            if self._stop.is_set():
                return
            if not isinstance(item, Frame):
                self.skipped += 1
                self._gap()
                self._skipped_because(item.label, item.reason)
                continue
            shape = item.image.shape
            if (shape[1], shape[0]) != (width, height):
                self.skipped += 1
                self._gap()
                self._report_lost(
                    f"it gives {shape[1]}x{shape[0]} frames, its zones are drawn on {width}x{height} "
                    f"(cameras.{self.camera.name}.size): set the camera's size or correct the config"
                )
                continue
            self._frame_came()
            try:
                self._frame(item, reader, mouth)
            finally:
                self._waiting_since = time.monotonic()

    def _frame(self, item: Frame, reader: Reader, mouth: MouthCheck | None) -> None:
        """One frame: the mouth checked, its cards read and watched; nothing where it shows the
        last frame read again (the zone watch counts only frames read: one read given again for
        the frames after it would make a flicker of the reader several frames agreeing)."""
        at = self.clock()
        try:
            look = mouth.check(item.image) if mouth is not None else None
            read = look is None or not self._mouth_only or look.state in (MouthState.FACE, MouthState.UNKNOWN)
            # a back or no card at the mouth: nothing to read
            # (no gate where a mouth check can leave a frame unread: it watches the shoe's mouth)
            if read and self._gate is not None and not self._gate.must_read(item.image):
                return  # nothing moved since the frame read last, which the watch was given
            sightings = list(reader.read(item.image)) if read else []
            self.reads += int(read)
        except Exception as error:  # a frame the pipeline fails on is skipped, the camera goes on
            self.skipped += 1
            self._gap()
            self._skipped_because(item.label, f"the reader failed: {error!r}")
            return
        if read:
            self._watch_index(item, sightings)
        if look is not None:
            sightings = self._at_mouth(look, sightings, at)  # an index read is a face there
        if self._index_watch is not None and self._index_watch.index_larger:
            sightings = [withheld(s) for s in sightings]
        for seen in self._watch.frame(sightings, at):
            self._decided(seen)

    @property
    def naming(self) -> str:
        """The device status of the camera's naming of cards (the index-size watch)."""
        return f"{self.device} naming"

    def _watch_index(self, frame: Frame, sightings: list[CardSighting]) -> None:
        """The index-size watch shown a frame the reader read (vision/index_size.py): while it
        finds the deck's index larger than the reader's window, the camera's cards go unnamed
        (_read), and the naming's device status says so when that changes (the floor is called).
        A watch that fails leaves the frame read and the verdict as it was."""
        watch = self._index_watch
        if watch is None:
            return
        try:
            verdict = watch.frame(frame.image, sightings)
        except Exception as error:
            self._skipped_because(frame.label, f"the index-size watch failed, the frame kept: {error!r}")
            return
        if verdict:
            why = (
                "its cards' index is larger than the reader's window, a jumbo index; their names are "
                "withheld until the deck's faces are calibrated with tablectl vision calibrate --faces"
            )
            log.warning("%s: %s", self.naming, why)
            self.submit(DeviceStatus(self.naming, False, why, self.clock()))
        elif verdict is not None:
            self.submit(
                DeviceStatus(self.naming, True, "the cards' index fits the reader's window", self.clock())
            )

    def _gap(self) -> None:
        self._watch.gap()
        self._mouth_run = 0
        if self._gate is not None:
            self._gate.forget()

    def _at_mouth(self, look: MouthLook, sightings: list[CardSighting], at: float) -> list[CardSighting]:
        """The frame's cards with those at the mouth decided by the mouth check: a back or no card
        there drops what the reader saw (the back is believed); unknown keeps only cards read by
        name at acting confidence (an index read is a face); a face adds the face itself, named
        or not. The frame's word on the mouth goes to ``on_mouth``."""
        zone = self._mouth_zone
        assert zone is not None
        elsewhere: list[CardSighting] = []
        here: list[CardSighting] = []
        for sighting in sightings:
            (here if self.camera.zone_at(sighting.centre) == zone else elsewhere).append(sighting)
        state = look.state
        if state is MouthState.FACE:
            kept = [s for s in here if s.facing is Facing.UP and s.card is not None]
            kept.append(CardSighting(zone.points, Facing.UP, None, None, 0.0, f"mouth check: {look.why}"))
        elif state is MouthState.UNKNOWN:
            kept = [
                s
                for s in here
                if s.facing is Facing.UP and s.card is not None and s.confidence >= ACT_CONFIDENCE
            ]
            if kept:
                state = MouthState.FACE  # an index read is positive evidence of a face
        else:
            kept = []
        self._mouth_run = self._mouth_run + 1 if state is MouthState.FACE else 0
        self.mouth_looks.append(look)
        if self.on_mouth is not None:
            self.on_mouth(MouthFrame(self.camera.name, at, state, self._mouth_run >= self.agree, look.why))
        return elsewhere + kept

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
            since, now = self._waiting_since, time.monotonic()
            if since is not None and now - since > self.lost_after:
                self._report_lost(f"no frame for {now - since:.1f} s", waiting_since=since)
            elif since is None and now - self._reading_since > self.stuck_after:
                # no camera's silence, but no frame is watched either (a reader hung in a frame)
                self._report_lost(
                    f"the card reader has been on one frame for {now - self._reading_since:.0f} s"
                )

    def _frame_came(self) -> None:
        self.frames += 1
        self._reading_since = time.monotonic()
        with self._lock:  # with _report_lost's: a frame coming as the watchdog rules is one or the other
            self._waiting_since = None
            if self._lost is None:
                return
            self._lost = None
        self.submit(DeviceStatus(self.device, True, "frames again", self.clock()))

    def _report_lost(self, why: str, waiting_since: float | None = None) -> None:
        """``waiting_since``: the watchdog's silence, ruled only if no frame has come since."""
        with self._lock:
            if self._lost is not None or self._stop.is_set():
                return
            if waiting_since is not None and self._waiting_since != waiting_since:
                return  # a frame came as the watchdog looked: no silence
            self._lost = why
        log.warning("%s lost: %s", self.device, why)
        self.submit(DeviceStatus(self.device, False, why, self.clock()))
