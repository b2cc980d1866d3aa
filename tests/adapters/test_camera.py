"""The camera adapter with the table service: recorded frames to the exposed-card ruling with no
dealer input; a camera that stops delivering is a device status and never stops the table."""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import cv2
import numpy as np
import pytest

from tablectl.adapters.camera import CameraAdapter, MouthFrame, MouthSightings, card_seen
from tablectl.core.cards import card_str, parse_card
from tablectl.core.events import CardDrawn, CardSeen, DealerInput, DealerKey, DeviceStatus, Zone
from tablectl.core.table import TableConfig
from tablectl.journal.store import Journal
from tablectl.service.table_service import TableService, open_service
from tablectl.sim.dealer import seated_table
from tablectl.views.audiences import dealer
from tests.helpers.camera_frames import (
    DECK,
    GatedFrames,
    Sink,
    face,
    felt,
    jumbo_face,
    seat_centre,
    spread_of,
    table_camera,
    with_card,
    write_frames,
)
from tests.helpers.mouth_frames import CARD_W, MOUTH, SIZE, at_mouth, casino_back, lit, mouth_backs, shoe
from tests.helpers.paths import DATA
from vision.backs import Backs, save_backs
from vision.mouth import MouthCheck, MouthState
from vision.reader import CardReader
from vision.sighting import CardSighting, Facing
from vision.sources import Frame, FrameSource, Skipped, SourceError
from vision.stability import Seen
from vision.zones import CameraConfig, CameraSource, ZoneArea, rectangle

CONFIG = TableConfig(seats=3, game="NT", blinds=(50, 100))


@pytest.fixture(autouse=True)
def _opencv_threads() -> Iterator[None]:
    """A camera started sets OpenCV's threads for the whole process: each test leaves them as found."""
    before = cv2.getNumThreads()
    yield
    cv2.setNumThreads(before)


DEALT = ("2c", "3d", "4h", "As")  # the fourth card is the first seat's second: IRR-6, not MD-a


class Table(Sink):
    """A started service and what its sinks saw, with waits on conditions (never sleeps)."""

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.path = path
        self.service: TableService = open_service(str(path), seated_table(CONFIG, 3))
        self.service.sinks.append(self)
        self.service.start()
        assert self.service.ready.wait(10.0)

    def deal(self, cards: Iterable[str]) -> int:
        """A new hand and these cards from the shoe; the seat that got the last one."""
        self.service.submit(DealerInput(DealerKey.NEW_HAND))
        cards = list(cards)
        for card in cards:
            self.service.submit(CardDrawn(parse_card(card)))
        assert self.wait(lambda: self.state is not None and self.hand_dealt() == len(cards))
        assert self.state is not None and self.state.hand is not None
        hand = self.state.hand
        position = next(p for p, held in enumerate(hand.hole) if parse_card(cards[-1]) in held)
        return hand.seat(position)

    def hand_dealt(self) -> int:
        assert self.state is not None
        return self.state.hand.hole_dealt if self.state.hand is not None else -1

    def until_ruled(self, adapter: CameraAdapter, rule: str) -> None:
        """``adapter`` run until the table makes a ruling under ``rule``, then stopped."""
        adapter.start()
        try:
            assert self.wait(lambda: bool(self.ruled(rule)))
        finally:
            assert adapter.stop()

    def stop(self) -> None:
        self.service.stop()


def test_recorded_frames_of_a_card_face_up_at_a_seat_give_the_exposed_card_ruling(tmp_path: Path) -> None:
    table = Table(tmp_path / "table.journal")
    try:
        seat = table.deal(DEALT)
        camera = table_camera(CameraSource("images", path=tmp_path / "frames"))
        exposed = with_card(felt(), "As", seat_centre(camera, seat))
        write_frames(tmp_path / "frames", [felt()] * 3 + [exposed] * 6)
        adapter = CameraAdapter(camera, table.service.submit, agree=4)
        table.until_ruled(adapter, "IRR-6")
        ruling = table.ruled("IRR-6")[0]
        assert f"at seat {seat}" in str(ruling.said)
        assert [(s.zone, s.card) for s in adapter.decisions] == [(f"seat{seat}", "As")]
        assert adapter.frames >= 7 and adapter.skipped == 0  # the fourth frame with the card decided
    finally:
        table.stop()
    with Journal(tmp_path / "table.journal") as journal:
        events = [entry.event for entry in journal.events()]
    seen = [e for e in events if isinstance(e, CardSeen)]
    assert seen == [CardSeen(Zone.SEAT, parse_card("As"), True, seat, seen[0].at)] and seen[0].at > 0
    # no dealer input but the new hand: the camera alone made the ruling
    assert [e.key for e in events if isinstance(e, DealerInput)] == [DealerKey.NEW_HAND]


def _recorded(
    camera: CameraConfig, reader: Callable[[], object] | None = None, **options: object
) -> CameraAdapter:
    """``camera``'s recording read to its end by a CameraAdapter with ``options``."""
    ended = threading.Event()

    def submit(event: object, **_: object) -> None:
        if isinstance(event, DeviceStatus) and event.detail == "the recording ended":
            ended.set()

    adapter = CameraAdapter(camera, submit, reader=reader, **options)  # type: ignore[arg-type]
    adapter.start()
    try:
        assert ended.wait(60.0)
    finally:
        assert adapter.stop()
    return adapter


def test_frames_showing_the_last_one_read_again_are_not_read_and_decide_alike(tmp_path: Path) -> None:
    """A recording as a camera gives it, fresh sensor noise on every frame: the empty table, a hand
    passing over a seat, a card face up at another, the table empty again. Once the frames after
    a change have been read as many times as the zone watch counts (agree, release), frames that
    show the last one read again are not read (vision/change.py), and the camera decides exactly
    what it decides reading every frame."""
    camera = table_camera(CameraSource("images", path=tmp_path / "frames"))
    rng = np.random.default_rng(5)
    empty = felt()
    hand = empty.copy()
    cv2.ellipse(hand, seat_centre(camera, 1), (70, 45), 20.0, 0, 360, (120, 160, 205), -1)
    exposed = with_card(empty, "As", seat_centre(camera, 2))
    script = [empty] * 20 + [hand] * 2 + [empty] * 20 + [exposed] * 20 + [empty] * 20
    frames = [np.clip(f + rng.normal(0, 3.0, f.shape), 0, 255).astype(np.uint8) for f in script]
    write_frames(tmp_path / "frames", frames)
    every = _recorded(camera, agree=4, release=6, reread_unchanged=True)
    gated = _recorded(camera, agree=4, release=6)
    assert [(s.zone, s.card) for s in every.decisions] == [(s.zone, s.card) for s in gated.decisions]
    assert [(s.zone, s.card) for s in gated.decisions] == [("seat2", "As")]
    assert every.frames == gated.frames == every.reads == len(frames)
    # after each change six frames read (release), then none: the hand's two, and four stills of 20
    assert gated.reads == 2 + 4 * 6


def test_one_flicker_of_the_reader_on_a_still_table_is_not_repeated_into_a_decision() -> None:
    """The reader names a card at a seat on one frame of a still, empty table: reading every
    frame that is one frame, no decision; with frames not read it must stay one frame, not the
    same read kept for the frames after it."""
    camera = table_camera(CameraSource("images", path=Path("frames")))
    calls = [0]
    centre = seat_centre(camera, 2)

    class Flicker:
        def read(self, image: np.ndarray) -> list[CardSighting]:
            calls[0] += 1
            if calls[0] != 6:
                return []
            x, y = centre
            corners = ((x - 40.0, y - 56.0), (x + 40.0, y - 56.0), (x + 40.0, y + 56.0), (x - 40.0, y + 56.0))
            return [CardSighting(corners, Facing.UP, "K", "d", 0.99, "a flicker")]

    for reread_unchanged in (True, False):
        calls[0] = 0
        adapter = _recorded(
            camera,
            Flicker,
            open_source=Script([felt()] * 40),
            agree=4,
            release=6,
            reread_unchanged=reread_unchanged,
        )
        assert calls[0] == (40 if reread_unchanged else 7)  # the flicker is the sixth read: one more
        assert list(adapter.decisions) == []


def test_a_camera_looking_across_the_table_gives_the_exposed_card_ruling_seen_from_above(
    tmp_path: Path,
) -> None:
    """A rail camera with its table plane (vision/view.py): its frames read seen from above, the
    card placed back in the frame's pixels, in the seat's zone drawn on the frame."""
    from tests.vision import test_view as view

    table = Table(tmp_path / "table.journal")
    try:
        seat = table.deal(DEALT)
        rail = dataclasses.replace(view.camera(), source=CameraSource("images", path=tmp_path / "frames"))
        empty = view.across([])
        exposed = view.across([(face("As", 90), view.FACES[f"seat{seat}"][1], 25.0)])
        write_frames(tmp_path / "frames", [empty] * 3 + [exposed] * 6)
        adapter = CameraAdapter(rail, table.service.submit, agree=4)
        table.until_ruled(adapter, "IRR-6")
        assert f"at seat {seat}" in str(table.ruled("IRR-6")[0].said)
        assert [(s.zone, s.card) for s in adapter.decisions] == [(f"seat{seat}", "As")]
    finally:
        table.stop()


def test_frames_of_face_down_cards_and_a_hand_passing_raise_nothing(tmp_path: Path) -> None:
    table = Table(tmp_path / "table.journal")
    try:
        seat = table.deal(DEALT)
        camera = table_camera(CameraSource("images", path=tmp_path / "frames"))
        flash = with_card(felt(), "As", seat_centre(camera, seat))
        # the card shows on two frames at a time (a hand lifting its corner), never on four in a row
        frames = ([felt()] * 2 + [flash] * 2) * 4 + [felt()] * 2
        write_frames(tmp_path / "frames", frames)
        ended = threading.Event()
        adapter = CameraAdapter(camera, lambda e, **k: (table.service.submit(e, **k), ended.set()), agree=4)
        adapter.start()
        assert ended.wait(30.0)  # the recording ended: its device status is the last thing it sends
        assert adapter.stop()
        assert table.wait(
            lambda: table.state is not None and dict(table.state.devices).get("table camera") is False
        )
        assert not adapter.decisions and adapter.frames == len(frames)
        assert not table.ruled("IRR-6") and not table.ruled("MD-a")
    finally:
        table.stop()


def test_a_camera_that_stops_delivering_is_lost_and_the_table_goes_on(tmp_path: Path) -> None:
    table = Table(tmp_path / "table.journal")
    camera = table_camera(CameraSource("device", device=0))
    gated = GatedFrames([felt()] * 3, [felt()] * 2, live_until_hung=True)
    adapter = CameraAdapter(camera, table.service.submit, open_source=lambda _: gated, lost_after=0.3)
    try:
        table.deal(DEALT[:2])
        adapter.start()
        # the camera gave three frames, then hangs in a read: the watchdog reports it lost
        assert table.wait(lambda: bool(table.ruled("INPUT")))
        lost = table.ruled("INPUT")[0]
        assert "The table camera is lost (no frame for 0." in str(lost.said) and "Call the floor" in str(
            lost.said
        )
        assert table.state is not None
        view = dealer(table.state)
        assert view["devices"]["table camera"] is False
        assert any(a["kind"] == "device" and "table camera" in a["text"] for a in view["open_alerts"])
        # the table goes on: the shoe deals the rest of the hand while the camera is lost
        for card in DEALT[2:] + ("5s", "6c"):
            table.service.submit(CardDrawn(parse_card(card)))
        assert table.wait(
            lambda: (
                table.state is not None and table.state.hand is not None and table.state.hand.hole_dealt == 6
            )
        )
        gated.go.set()  # frames again: the camera is back
        assert table.wait(lambda: len(table.ruled("INPUT")) == 2)
        assert "The table camera is back" in str(table.ruled("INPUT")[1].said)
        assert dict(table.state.devices)["table camera"] is True
        gated.hang.set()  # the driver hangs in a read again
        assert gated.delivered.wait(10.0)
        # stopping while the driver hangs in a read: stop() gives up in time, nothing hangs
        assert adapter.stop(timeout=0.2) is False
    finally:
        gated.end.set()  # the read returns at last: the thread ends
        assert adapter.stop()
        table.stop()


class Script:
    """A camera's sources in turn: an exception to raise or a list of frames to give."""

    def __init__(self, *opens: SourceError | list[np.ndarray]) -> None:
        self.opens = list(opens)
        self.count = 0

    def __call__(self, camera: CameraConfig) -> FrameSource:
        self.count += 1
        step = self.opens.pop(0) if self.opens else SourceError("unplugged")
        if isinstance(step, SourceError):
            raise step
        return Frames(step)


class Frames:
    def __init__(self, images: list[np.ndarray]) -> None:
        self.images = images

    def frames(self) -> Iterator[Frame | Skipped]:
        for number, image in enumerate(self.images):
            yield Frame(f"frame {number}", image) if image.size else Skipped(f"frame {number}", "empty")

    def close(self) -> None:
        pass


class NoCards:
    def read(self, image: np.ndarray) -> list[CardSighting]:
        return []


def statuses(run: Callable[[Callable[..., None]], CameraAdapter], count: int) -> list[DeviceStatus]:
    got: list[DeviceStatus] = []
    enough = threading.Event()

    def submit(event: object, **_: object) -> None:
        assert isinstance(event, DeviceStatus)
        got.append(event)
        if len(got) >= count:
            enough.set()

    adapter = run(submit)
    adapter.start()
    try:
        assert enough.wait(10.0), got
    finally:
        assert adapter.stop()
    return got


def test_a_live_camera_that_does_not_open_is_lost_then_back_when_it_opens() -> None:
    camera = table_camera(CameraSource("device", device="/dev/video7"))
    script = Script(
        SourceError("camera /dev/video7 does not open: is it plugged in?"), SourceError("no"), [felt()]
    )
    got = statuses(
        lambda submit: CameraAdapter(camera, submit, open_source=script, reader=NoCards, retry=0.01), 2
    )
    assert [(s.device, s.ok) for s in got[:2]] == [("table camera", False), ("table camera", True)]
    assert got[0].detail == "camera /dev/video7 does not open: is it plugged in?"
    assert script.count >= 3  # opened again, every retry, until it opened


def test_a_started_camera_keeps_opencv_to_one_thread() -> None:
    # OpenCV's thread pool is the process's: a camera started leaves it at one thread, whatever it was
    cv2.setNumThreads(2)
    adapter = CameraAdapter(
        table_camera(CameraSource("device", device=0)),
        lambda *_, **__: None,
        open_source=Script([felt()]),
        reader=NoCards,
    )
    adapter.start()
    try:
        assert cv2.getNumThreads() == 1
    finally:
        assert adapter.stop()


def test_frames_of_another_size_than_the_zones_are_refused_with_the_fix() -> None:
    camera = table_camera(CameraSource("device", device=0))
    small = np.zeros((240, 320, 3), np.uint8)
    got = statuses(
        lambda submit: CameraAdapter(camera, submit, open_source=Script([small] * 3), reader=NoCards), 1
    )
    assert not got[0].ok
    assert got[0].detail.startswith(
        "it gives 320x240 frames, its zones are drawn on 640x480 (cameras.table.size)"
    )


def test_an_unreadable_frame_is_skipped_and_breaks_the_run(tmp_path: Path) -> None:
    camera = table_camera(CameraSource("images", path=tmp_path))
    exposed = with_card(felt(), "Kd", seat_centre(camera, 2))
    write_frames(tmp_path, [exposed] * 3)
    (tmp_path / "frame-0003.png").write_bytes(b"\x89PNG cut short")  # a corrupt frame, then three more
    for number in (4, 5, 6):
        (tmp_path / f"frame-{number:04d}.png").write_bytes((tmp_path / "frame-0000.png").read_bytes())
    seen: list[object] = []
    got = statuses(lambda submit: _collecting(camera, submit, seen), 1)
    assert got[0].detail == "the recording ended"
    assert seen == []  # three frames, a gap, three frames: no run of four


def _collecting(camera: CameraConfig, submit: Callable[..., None], seen: list[object]) -> CameraAdapter:
    def route(event: object, **kwargs: object) -> None:
        if isinstance(event, DeviceStatus):
            submit(event, **kwargs)
        else:
            seen.append(event)

    adapter = CameraAdapter(camera, route, agree=4)
    return adapter


def test_decisions_map_to_the_procedures_events() -> None:
    at = 12.5
    assert card_seen(Seen("t", "seat4", "seat", 4, "Qh", at, 4)) == CardSeen(
        Zone.SEAT, parse_card("Qh"), True, 4, at
    )
    assert card_seen(Seen("t", "board", "board", None, card_str(0), at, 4)) == CardSeen(
        Zone.BOARD, 0, True, None, at
    )
    assert card_seen(Seen("t", "muck", "muck", None, None, at, 4)) == CardSeen(
        Zone.MUCK, None, True, None, at
    )
    assert card_seen(Seen("t", "shoe", "shoe", None, None, at, 4)) is None  # the shoe's own read says


def test_a_face_up_card_at_the_mouth_goes_to_on_mouth() -> None:
    """The mouth check decides the mouth: a face there (not read by name: the reader reads
    nothing) is one decision, and every frame's word on the mouth goes to on_mouth too."""
    camera = CameraConfig("mouth", CameraSource("device", device=0), SIZE, (MOUTH,))
    up = at_mouth(shoe(), face("7c", CARD_W))
    calls = [0]

    class Nothing:
        def read(self, image: np.ndarray) -> list[CardSighting]:
            calls[0] += 1
            return []

    backs = mouth_backs(CardReader(), "red")  # a face is unlike the calibrated back
    mouth: list[Seen | MouthFrame] = []
    got = statuses(
        lambda submit: CameraAdapter(
            camera,
            submit,
            open_source=Script([shoe()] * 2 + [up] * 5),
            reader=Nothing,
            mouth_check=lambda c: MouthCheck(MOUTH, SIZE, backs),
            on_mouth=mouth.append,
        ),
        1,
    )
    assert got[0].detail == "the camera stopped delivering frames"
    assert [(s.kind, s.card) for s in mouth if isinstance(s, Seen)] == [("shoe", None)]
    frames = [(f.state, f.agreed) for f in mouth if isinstance(f, MouthFrame)]
    assert (
        frames
        == [(MouthState.EMPTY, False)] * 2 + [(MouthState.FACE, False)] * 3 + [(MouthState.FACE, True)] * 2
    )
    assert calls[0] == 5  # the reader runs on the face, never on the empty mouth


def test_a_back_at_the_mouth_is_never_read_nor_decided_even_when_the_reader_says_face() -> None:
    """The back is believed: a calibrated back at the mouth drops what the reader says there (a
    reader that sees a named face everywhere), and the reader is not even run."""
    reader = CardReader()
    backs = mouth_backs(reader, "red")
    camera = CameraConfig("mouth", CameraSource("device", device=0), SIZE, (MOUTH,))
    back = lit(at_mouth(shoe(), casino_back("red")), 1.0, noise=3.0)  # a camera's noise
    assert MouthCheck(MOUTH, SIZE, backs).check(back).state is MouthState.BACK
    calls = [0]

    class Liar:
        def read(self, image: np.ndarray) -> list[CardSighting]:
            calls[0] += 1
            return [CardSighting(MOUTH.points, Facing.UP, "A", "s", 0.99, "index read")]

    mouth: list[Seen | MouthFrame] = []
    adapters: list[CameraAdapter] = []

    def make(submit: Callable[..., None]) -> CameraAdapter:
        adapters.append(
            CameraAdapter(
                camera,
                submit,
                open_source=Script([back] * 8),
                reader=Liar,
                mouth_check=lambda c: MouthCheck(MOUTH, SIZE, backs),
                on_mouth=mouth.append,
            )
        )
        return adapters[0]

    statuses(make, 1)
    assert calls[0] == 0 and not adapters[0].decisions
    assert {f.state for f in mouth if isinstance(f, MouthFrame)} == {MouthState.BACK}
    assert [look.back for look in adapters[0].mouth_looks] == ["red"] * 8


def test_a_backs_file_that_cannot_be_read_makes_the_camera_lost_with_the_fix(tmp_path: Path) -> None:
    camera = table_camera(CameraSource("device", device=0))
    got = statuses(
        lambda submit: CameraAdapter(
            camera, submit, backs=tmp_path / "backs.json", open_source=Script([felt()] * 3)
        ),
        1,
    )
    assert not got[0].ok
    assert got[0].detail == (
        f"the card reader did not start: {tmp_path / 'backs.json'}: no such file: learn the backs with "
        "tablectl vision calibrate --backs"
    )


def test_a_deck_whose_index_is_larger_than_the_window_has_its_names_withheld_and_the_floor_told(
    tmp_path: Path,
) -> None:
    """No faces calibrated, a jumbo-index deck dealt (two spreads of eight, five frames each, the
    cloth bare between them): the camera says its reading is lost, why and the fix, as soon as the
    standard windows name a card (the jack of hearts, through its cut index), and from then on
    decides its cards face up without a name (an exposed card is still one)."""
    camera = table_camera(CameraSource("images", path=tmp_path / "frames"))
    frames = []
    for dealt in (DECK[34:42], DECK[:8]):
        frames += [spread_of([jumbo_face(card) for card in dealt])] * 5 + [felt()] * 5
    write_frames(tmp_path / "frames", frames)
    events: list[object] = []

    def run(submit: Callable[..., None]) -> CameraAdapter:
        def route(event: object, **kwargs: object) -> None:
            events.append(event)
            if isinstance(event, DeviceStatus):
                submit(event, **kwargs)

        return CameraAdapter(camera, route, agree=4)

    got = statuses(run, 2)
    assert (got[0].device, got[0].ok) == ("table camera naming", False)
    assert got[0].detail == (
        "its cards' index is larger than the reader's window, a jumbo index; their names are withheld "
        "until the deck's faces are calibrated with tablectl vision calibrate --faces"
    )
    assert (got[1].device, got[1].detail) == ("table camera", "the recording ended")
    after = [e for e in events[events.index(got[0]) :] if isinstance(e, CardSeen)]
    assert len(after) >= 3 and all(e.card is None and e.face_up for e in after)
    assert Zone.SEAT in {e.zone for e in after}  # face up at a seat: an exposed card, unnamed


def test_the_same_deck_calibrated_is_named_and_nothing_is_said(tmp_path: Path) -> None:
    camera = table_camera(CameraSource("images", path=tmp_path / "frames"))
    dealt = DECK[:8]
    write_frames(tmp_path / "frames", [spread_of([jumbo_face(card) for card in dealt])] * 8)
    save_backs(Backs((), 1.5, faces_learned=True), tmp_path / "backs.json")
    seen: list[object] = []

    def run(submit: Callable[..., None]) -> CameraAdapter:
        def route(event: object, **kwargs: object) -> None:
            (submit if isinstance(event, DeviceStatus) else seen.append)(event)

        return CameraAdapter(camera, route, agree=4, backs=tmp_path / "backs.json")

    got = statuses(run, 2)
    # a naming status left from before the calibration is cleared at the start
    assert [(s.device, s.ok, s.detail) for s in got] == [
        ("table camera naming", True, "the deck's index size is calibrated"),
        ("table camera", False, "the recording ended"),
    ]
    named = {e.card for e in seen if isinstance(e, CardSeen) and e.card is not None}
    assert len(named) >= 3 and named <= {parse_card(card) for card in dealt}


class LargerWindowsFail(CardReader):
    """A reader whose larger windows (the index-size watch's) fail on every frame."""

    def for_deck(self, index_scale: float | None = None, four_colour: bool | None = None) -> CardReader:
        return Failing()


class Failing(CardReader):
    def read(self, image: np.ndarray) -> list[CardSighting]:
        raise RuntimeError("no larger windows today")


def test_an_index_size_watch_that_fails_leaves_the_frames_read_and_says_so_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    camera = table_camera(CameraSource("images", path=tmp_path / "frames"))
    write_frames(tmp_path / "frames", [spread_of([face(card) for card in DECK[:8]])] * 8)
    seen: list[object] = []

    def run(submit: Callable[..., None]) -> CameraAdapter:
        def route(event: object, **kwargs: object) -> None:
            (submit if isinstance(event, DeviceStatus) else seen.append)(event)

        return CameraAdapter(camera, route, agree=4, reader=LargerWindowsFail)

    with caplog.at_level(logging.WARNING):
        got = statuses(run, 1)
    assert [s.detail for s in got] == ["the recording ended"]
    named = {e.card for e in seen if isinstance(e, CardSeen) and e.card is not None}
    assert len(named) >= 3 and named <= {parse_card(card) for card in DECK[:8]}
    failures = [r.getMessage() for r in caplog.records if "index-size watch failed" in r.getMessage()]
    assert len(failures) == 1 and "no larger windows today" in failures[0]


def test_a_frame_the_reader_fails_on_is_skipped_and_the_camera_goes_on() -> None:
    camera = table_camera(CameraSource("images", path=Path("frames")))
    calls = [0]

    class Flaky:
        def read(self, image: np.ndarray) -> list[CardSighting]:
            calls[0] += 1
            if calls[0] == 2:
                raise ValueError("a frame the pipeline cannot take")
            return []

    adapters: list[CameraAdapter] = []

    def make(submit: Callable[..., None]) -> CameraAdapter:
        adapters.append(
            CameraAdapter(
                camera, submit, open_source=Script([felt()] * 4), reader=Flaky, reread_unchanged=True
            )
        )
        return adapters[0]

    got = statuses(make, 1)
    assert got[0].detail == "the recording ended"  # not "the camera failed": it read every frame
    assert (adapters[0].frames, adapters[0].skipped, calls[0]) == (4, 1, 4)


def test_a_frame_the_reader_is_slow_on_is_not_a_camera_that_stopped_delivering() -> None:
    """The watchdog times the camera's silence, not the reader's work: a loaded machine reading a
    frame for longer than ``lost_after`` does not call the camera lost (seen in CI: "no frame for
    2.1 s" while the reader read a jumbo spread)."""
    camera = table_camera(CameraSource("images", path=Path("frames")))
    lost_after = 0.1

    class Slow:
        def read(self, image: np.ndarray) -> list[CardSighting]:
            time.sleep(5 * lost_after)  # the work of a slow frame, not a wait for anything
            return []

    got = statuses(
        lambda submit: CameraAdapter(
            camera,
            submit,
            open_source=Script([felt()] * 2),
            reader=Slow,
            lost_after=lost_after,
            reread_unchanged=True,  # each frame read, each slow
        ),
        1,
    )
    assert [status.detail for status in got] == ["the recording ended"]


def test_a_reader_stuck_on_one_frame_makes_the_camera_lost_until_it_reads_again() -> None:
    """A reader hung in a frame watches nothing: after ``stuck_after`` the camera is lost with
    the reason, and back with the next frame once the reader returns."""
    camera = table_camera(CameraSource("images", path=Path("frames")))
    release = threading.Event()
    calls = [0]

    class Stuck:
        def read(self, image: np.ndarray) -> list[CardSighting]:
            calls[0] += 1
            if calls[0] == 2:
                assert release.wait(10.0)
            return []

    got: list[DeviceStatus] = []
    lost, ended = threading.Event(), threading.Event()

    def submit(event: object, **_: object) -> None:
        assert isinstance(event, DeviceStatus)
        got.append(event)
        if not event.ok and "card reader" in event.detail:
            lost.set()
        if event.detail == "the recording ended":
            ended.set()

    frames = [with_card(felt(), "7c", (100 + 60 * n, 360)) for n in range(3)]  # each read
    adapter = CameraAdapter(
        camera, submit, open_source=Script(frames), reader=Stuck, lost_after=5.0, stuck_after=0.2
    )
    adapter.start()
    try:
        assert lost.wait(10.0)
        release.set()
        assert ended.wait(10.0)
    finally:
        assert adapter.stop()
    details = [(status.ok, status.detail) for status in got]
    assert details[0][0] is False and details[0][1].startswith("the card reader has been on one frame for")
    assert details[1:] == [(True, "frames again"), (False, "the recording ended")]


def test_a_video_of_a_real_photograph_gives_the_exposed_card_ruling(tmp_path: Path) -> None:
    """A video made here from a real photo of the ace of hearts face up (photos-tfod-test,
    read from ../shared, never copied), watched as one seat's zone."""
    photo = cv2.imread(str(DATA / "cards" / "photos-tfod-test" / "IMG_2383.JPG"))
    assert photo is not None and photo.shape == (504, 378, 3)
    video = tmp_path / "seat.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 30, (378, 504))
    for image in [np.full_like(photo, 60)] * 3 + [photo] * 8:
        writer.write(image)
    writer.release()
    table = Table(tmp_path / "table.journal")
    try:
        seat = table.deal(("2c", "3d", "4h", "Ah"))
        zone = ZoneArea(f"seat{seat}", rectangle(0, 0, 378, 504))
        camera = CameraConfig("seat", CameraSource("video", path=video), (378, 504), (zone,))
        adapter = CameraAdapter(camera, table.service.submit, agree=4)
        table.until_ruled(adapter, "IRR-6")
        assert "Exposed card" in str(table.ruled("IRR-6")[0].said)
        assert [(s.zone, s.card) for s in adapter.decisions] == [(f"seat{seat}", "Ah")]
    finally:
        table.stop()


def mouth_seen(card: str | None, at: float) -> Seen:
    return Seen("mouth", "shoe", "shoe", None, card, at, 4)


def test_a_card_read_face_up_at_the_mouth_makes_the_shoes_read_of_it_face_up_once() -> None:
    mouth = MouthSightings(keep=5.0)
    mouth.saw(mouth_seen("2h", 100.0))
    mouth.saw(mouth_seen(None, 100.0))  # face up, not read: nothing to match a read to
    assert mouth.face_up(parse_card("3d"), 100.4) is False  # another card
    assert mouth.face_up(parse_card("2h"), 100.5) is True
    assert mouth.face_up(parse_card("2h"), 100.6) is False  # used up


def test_a_mouth_sighting_is_forgotten_and_one_after_the_read_is_too_late() -> None:
    mouth = MouthSightings(keep=5.0)
    mouth.saw(mouth_seen("2h", 100.0))
    assert mouth.face_up(parse_card("2h"), 106.0) is False  # seen 6 s before: not this read
    assert mouth.face_up(parse_card("Kd"), 110.0) is False  # the shoe reads Kd ...
    mouth.saw(mouth_seen("Kd", 110.2))  # ... and the camera decides after it: too late
    assert [s.card for s in mouth.late] == ["Kd"]
    assert mouth.face_up(parse_card("Kd"), 111.0) is False


def test_each_reason_a_frame_is_skipped_is_logged_once(caplog: pytest.LogCaptureFixture) -> None:
    camera = table_camera(CameraSource("images", path=Path("frames")))
    empty = np.zeros((0, 0, 3), np.uint8)  # Frames gives a Skipped ("empty") for it
    with caplog.at_level(logging.WARNING, logger="tablectl.adapters.camera"):
        got = statuses(
            lambda submit: CameraAdapter(
                camera, submit, open_source=Script([empty] * 5 + [felt()]), reader=NoCards
            ),
            1,
        )
    assert got[0].detail == "the recording ended"
    skipped = [r.getMessage() for r in caplog.records if "skipped" in r.getMessage()]
    assert skipped == ["table camera: frame 0 skipped: empty (said once per reason)"]


def mouth_frame(state: MouthState, at: float, agreed: bool = True) -> MouthFrame:
    return MouthFrame("mouth", at, state, agreed)


def face_at_mouth(mouth: MouthSightings, since: float, until: float, step: float = 0.033) -> None:
    """Frames of a face at the mouth from ``since`` to ``until``, agreed from the fourth."""
    at, count = since, 0
    while at <= until:
        count += 1
        mouth.saw(mouth_frame(MouthState.FACE, at, agreed=count >= 4))
        at += step


def test_an_unnamed_face_at_the_mouth_at_the_moment_of_a_read_makes_that_read_face_up_once() -> None:
    mouth = MouthSightings()
    mouth.saw(mouth_frame(MouthState.BACK, 99.9))
    assert mouth.face_up(parse_card("3d"), 100.0) is False  # a back at the mouth: face down
    face_at_mouth(mouth, 100.1, 100.5)
    assert mouth.face_up(parse_card("2h"), 100.6) is True  # the face there, not read by name
    assert mouth.unnamed == [(parse_card("2h"), 100.6)]
    face_at_mouth(mouth, 100.6, 100.8)  # the tail of 2h as it is drawn: the same face
    assert mouth.face_up(parse_card("4c"), 100.9) is False
    mouth.saw(mouth_frame(MouthState.BACK, 101.0))  # 4c's back came: the face has ended
    face_at_mouth(mouth, 101.5, 101.9)  # another face: a second boxed card
    mouth.saw(mouth_frame(MouthState.UNKNOWN, 102.0))  # the dealer's hand over it: still there
    assert mouth.face_up(parse_card("5s"), 102.1) is True


def test_an_unnamed_face_counts_only_in_the_moment_agreed_before_the_read() -> None:
    mouth = MouthSightings()
    face_at_mouth(mouth, 100.0, 100.3)
    mouth.saw(mouth_frame(MouthState.EMPTY, 100.4))
    assert mouth.face_up(parse_card("2h"), 100.65) is True  # gone 0.25 s before the read: that card
    face_at_mouth(mouth, 101.0, 101.3)
    mouth.saw(mouth_frame(MouthState.BACK, 101.4))
    assert mouth.face_up(parse_card("3d"), 102.0) is False  # gone 0.6 s before: another card's read
    face_at_mouth(mouth, 103.0, 103.3)
    assert mouth.face_up(parse_card("4c"), 105.5) is False  # the camera silent for 2.2 s since
    mouth.saw(mouth_frame(MouthState.BACK, 105.6))
    mouth.saw(mouth_frame(MouthState.FACE, 106.0, agreed=False))
    mouth.saw(mouth_frame(MouthState.FACE, 106.03, agreed=False))
    assert mouth.face_up(parse_card("5s"), 106.05) is False  # on two frames only: not agreed
    face_at_mouth(mouth, 106.06, 106.2)  # the same face agreed on after that read: too late
    assert mouth.late_faces == [106.0]
    assert mouth.face_up(parse_card("6h"), 106.3) is False
    assert mouth.unnamed == [(parse_card("2h"), 100.65)]


def test_a_named_face_at_the_mouth_is_not_also_the_next_reads_unnamed_face() -> None:
    mouth = MouthSightings()
    face_at_mouth(mouth, 100.0, 100.3)
    mouth.saw(mouth_seen("2h", 100.0))
    assert mouth.face_up(parse_card("2h"), 100.4) is True  # named
    assert mouth.face_up(parse_card("3d"), 100.45) is False  # the face was 2h's: used
    assert mouth.unnamed == []


def test_a_read_naming_no_card_of_the_deck_uses_up_the_face_at_the_mouth() -> None:
    """A boxed card whose tag the registry does not know (or another deck's card) is not made face
    up here, and the face it showed is not then the next card's."""
    mouth = MouthSightings()
    face_at_mouth(mouth, 100.0, 100.3)
    assert mouth.face_up(None, 100.4) is False
    assert mouth.face_up(parse_card("3d"), 100.5) is False
    assert mouth.unnamed == []
