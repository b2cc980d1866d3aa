"""`tablectl serve` with a camera beside the shoe: the bench's table file with a [cameras.table]
section, the simulated shoe on a pty, mock GPIO buttons, a real mosquitto. Rendered frames of a
hole card face up at its seat during the deal reach the exposed-card ruling with no dealer input;
a camera that stops delivering frames is a device lost on the dealer's screen, and the table goes
on dealing."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from gpiozero.pins.mock import MockFactory

from firmware_bridge.protocol import Face
from firmware_bridge.simshoe import SimShoe
from tablectl.adapters.mqtt.broker import LocalBroker
from tablectl.core.cards import card_str, parse_card
from tablectl.core.events import CardSeen, DealerInput, FloorCommand, FloorKind, Zone, to_json
from tablectl.core.sentences import render
from tablectl.journal.store import Journal
from tablectl.service.serve import BrokerSettings, RunningTable, start_table
from tablectl.service.tablefile import load_table_config
from tests.helpers.bench_table import write_bench_table
from tests.helpers.brokers import Listener
from tests.helpers.camera_frames import (
    GatedFrames,
    Sink,
    face,
    felt,
    seat_centre,
    table_camera,
    with_card,
)
from tests.helpers.mouth_frames import CARD_W, at_mouth, casino_back, lit, mouth_backs, shoe
from vision.backs import save_backs
from vision.mouth import MouthState
from vision.reader import CardReader
from vision.zones import CameraSource

CAMERA = """
[vision]
agree_frames = 4

[cameras.table]
source = "frames"
size = [640, 480]
[cameras.table.zones]
board = [100, 0, 440, 200]
seat1 = [0, 240, 213, 240]
seat2 = [213, 240, 213, 240]
seat3 = [426, 240, 213, 240]
"""
SEAT_1 = seat_centre(table_camera(CameraSource("images")), 1)  # the same zones as CAMERA


@dataclass
class Bench:
    running: RunningTable
    sink: Sink
    shoe: SimShoe
    gated: GatedFrames
    journal: Path


@pytest.fixture
def gated() -> GatedFrames:
    """The camera: empty felt at once; then, on go, seat 1's second card (2s) face up; then silent."""
    exposed = with_card(felt(), card_str(3), SEAT_1)
    return GatedFrames([felt()] * 3, [exposed] * 6)


@pytest.fixture
def camera_text() -> str:
    """The [vision] and [cameras.*] sections appended to the bench's table file."""
    return CAMERA


@pytest.fixture
def camera_extra() -> dict[str, object]:
    """More CameraAdapter arguments for every camera (a test's reader)."""
    return {}


@pytest.fixture
def camera_backs() -> tuple[str, ...]:
    """Casino backs (tests/helpers/mouth_frames.py) learned at the mouth camera and written to the
    file ``{backs}`` in camera_text names."""
    return ()


@pytest.fixture
def bench(
    tmp_path: Path,
    table1_broker: LocalBroker,
    pins: MockFactory,
    gated: GatedFrames,
    camera_text: str,
    camera_extra: dict[str, object],
    camera_backs: tuple[str, ...],
) -> Iterator[Bench]:
    broker = table1_broker
    if camera_backs:
        save_backs(mouth_backs(CardReader(), *camera_backs), tmp_path / "backs.json")
    shoe = SimShoe(seed=3).start()
    path = write_bench_table(tmp_path, shoe.path)
    path.write_text(path.read_text() + camera_text.replace("{backs}", str(tmp_path / "backs.json")))
    (tmp_path / "frames").mkdir()
    table_file = load_table_config(path)
    assert table_file.vision is not None and table_file.vision.agree_frames == 4
    assert broker.credentials is not None
    user, password = broker.credentials.user("table", "1")
    now = [100.0]
    running = start_table(
        table_file,
        tmp_path / "table.journal",
        BrokerSettings(broker.host, broker.port, user, password),
        camera_options={"open_source": lambda camera: gated, "lost_after": 0.5, **camera_extra},
        clock=lambda: now[0],  # the panel's clock: a long press without waiting for it
    )
    sink = Sink()
    running.service.sinks.append(sink)
    try:
        assert running.publisher.wait_connected(10.0)
        seat_players(broker, sink)
        new_hand = pins.pin(25)  # deploy/table.example.toml: new_hand = 25, a long press
        new_hand.drive_low()
        assert running.panel is not None
        now[0] += 2.0  # held past hold_time (1.5 s)
        running.panel.poll()
        new_hand.drive_high()
        assert sink.wait(sink.dealt(0))
        assert shoe.wait_connected(10.0)
        yield Bench(running, sink, shoe, gated, tmp_path / "table.journal")
    finally:
        gated.end.set()
        running.stop()
        shoe.stop()


def seat_players(broker: LocalBroker, sink: Sink) -> None:
    assert broker.credentials is not None
    floor = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
    floor.username_pw_set(*broker.credentials.user("supervisor", "ann"))  # supervisor ann: floor.ann
    floor.connect(broker.host, broker.port)
    floor.loop_start()
    try:
        topic = "cardroom/main/table/1/cmd/floor/floor.ann"
        for seat, name in ((1, "Ann"), (2, "Bob"), (3, "Cy")):
            command = FloorCommand(
                FloorKind.SEAT_PLAYER, "Jane", seat=seat, name=name, amount=5000, at=time.time()
            )
            floor.publish(topic, json.dumps(to_json(command)), qos=1)
        command = FloorCommand(FloorKind.MOVE_BUTTON, "Jane", seat=3, at=time.time())
        floor.publish(topic, json.dumps(to_json(command)), qos=1)

        def seated() -> bool:
            state = sink.state
            return state is not None and state.button == 3 and sum(s is not None for s in state.seats) == 3

        assert sink.wait(seated)
    finally:
        floor.loop_stop()
        floor.disconnect()


def test_a_hole_card_face_up_at_its_seat_on_camera_is_ruled_exposed_with_no_dealer_input(
    bench: Bench,
) -> None:
    for card in range(5):  # button 3: seats 1, 2, 3, 1, 2; seat 1's second card is card 3 (2s)
        bench.shoe.deal(card)
    sink = bench.sink
    assert sink.wait(sink.dealt(5))
    bench.gated.go.set()  # the camera sees 2s face up at seat 1
    assert sink.wait(lambda: bool(sink.ruled("IRR-6")))
    assert "Exposed card" in str(sink.ruled("IRR-6")[0].said) and "at seat 1" in str(
        sink.ruled("IRR-6")[0].said
    )
    bench.shoe.deal(5)  # the deal goes on: seat 3's second card
    assert sink.wait(
        lambda: sink.state is not None and sink.state.hand is not None and sink.state.hand.to_replace == (0,)
    )
    # the camera stops delivering frames: lost, on the dealer's screen, and the table goes on
    assert sink.wait(lambda: any("camera is lost" in str(r.said) for r in sink.ruled("INPUT")))
    bench.running.stop()
    with Journal(bench.journal) as journal:
        events = [entry.event for entry in journal.events()]
    seen = [e for e in events if isinstance(e, CardSeen)]
    assert [(e.zone, e.card, e.face_up, e.seat) for e in seen] == [(Zone.SEAT, 3, True, 1)]
    assert [e.key.value for e in events if isinstance(e, DealerInput)] == ["new_hand"]


def test_a_camera_that_stops_delivering_is_on_the_dealers_screen_and_the_table_goes_on(
    bench: Bench, table1_broker: LocalBroker
) -> None:
    sink = bench.sink
    with Listener(table1_broker, "dealer") as screen:
        # three frames, then nothing: the camera is lost after lost_after (0.5 s)
        assert sink.wait(lambda: any("table camera is lost" in str(r.said) for r in sink.ruled("INPUT")))

        def shown_lost() -> bool:
            views = [p["state"] for p in screen.payloads("dealer") if "state" in p]
            return (
                bool(views)
                and views[-1]["devices"].get("table camera") is False
                and any(
                    a["kind"] == "device" and "table camera" in a["text"] for a in views[-1]["open_alerts"]
                )
            )

        assert screen.wait_for(shown_lost, timeout=10.0)
        for card in range(6):  # the shoe deals on while the camera is lost
            bench.shoe.deal(card)
        assert sink.wait(
            lambda: (
                sink.state is not None
                and sink.state.hand is not None
                and sink.state.hand.game.phase.name == "BETTING"
            )
        )
        bench.gated.go.set()  # frames again
        assert sink.wait(lambda: any("table camera is back" in str(r.said) for r in sink.ruled("INPUT")))
        assert screen.wait_for(
            lambda: (
                [p["state"] for p in screen.payloads("dealer") if "state" in p][-1]["devices"]["table camera"]
                is True
            ),
            timeout=10.0,
        )


MOUTH = """
[cameras.mouth]
source = "frames"
size = [640, 480]
[cameras.mouth.zones]
shoe = [200, 140, 240, 200]
"""
BOXED = card_str(2)  # the third card dealt: 2h, face up in the deck


@pytest.mark.parametrize(
    ("camera_text", "gated"),
    [(MOUTH, GatedFrames([felt()] * 3, [with_card(felt(), BOXED, (320, 240))] * 6))],
)
def test_a_card_the_mouth_camera_reads_face_up_is_boxed_when_the_shoes_sensor_cannot_tell(
    bench: Bench,
) -> None:
    sink = bench.sink
    for card in (0, 1):  # the shoe's sensor sees their backs
        bench.shoe.deal(card)
    assert sink.wait(sink.dealt(2))
    bench.gated.go.set()  # 2h lies face up at the shoe's mouth, the next card out
    assert bench.gated.delivered.wait(20.0)  # every frame read: the mouth camera has decided
    assert [(s.zone, s.card) for s in bench.running.cameras[0].decisions] == [("shoe", BOXED)]
    bench.shoe.deal(2, Face.UNKNOWN)  # the shoe's sensor cannot tell its face
    assert sink.wait(lambda: bool(sink.ruled("IRR-3")))
    assert render(sink.ruled("IRR-3")[0].said).startswith(f"Boxed card ({BOXED}): set it aside")
    bench.shoe.deal(3, Face.UNKNOWN)  # not seen at the mouth: a card dealt face down, as ever
    assert sink.wait(sink.dealt(3))
    assert len(sink.ruled("IRR-3")) == 1
    hand = sink.state.hand if sink.state is not None else None
    assert hand is not None and hand.boxed == 1 and parse_card(BOXED) not in sum(hand.hole, ())


UNNAMED = card_str(23)  # 7s, face up in the deck, its index unread (a deuce's two pips on white
# paper the camera clips are too little for the fast check: tests/vision/test_mouth.py)


class ReadsNoName:
    """A card reader that reads no card: the face at the mouth is one whose index it cannot read."""

    def read(self, image: object) -> list[object]:
        return []


MOUTH_CALIBRATED = (
    """
[vision]
agree_frames = 4
backs = "{backs}"
"""
    + MOUTH
)


@pytest.mark.parametrize(
    ("camera_text", "camera_backs", "gated", "camera_extra"),
    [
        (
            MOUTH_CALIBRATED,
            ("red", "blue"),
            GatedFrames(
                [lit(shoe(n), 1.0, noise=3.0, seed=n) for n in range(3)],
                [lit(at_mouth(shoe(n), face(UNNAMED, CARD_W)), 1.0, noise=3.0, seed=n) for n in range(6)],
            ),
            {"reader": ReadsNoName},
        )
    ],
)
def test_a_face_up_card_at_the_mouth_not_read_by_name_is_boxed_when_the_shoes_sensor_cannot_tell(
    bench: Bench,
) -> None:
    """The fast mouth check sees a face at the mouth (white paper with ink, unlike the table's
    calibrated backs) that the reader does not name; the shoe then reads the card with its face
    unknown: the table rules IRR-3, once."""
    sink = bench.sink
    for card in (0, 1):  # the shoe's sensor sees their backs
        bench.shoe.deal(card)
    assert sink.wait(sink.dealt(2))
    bench.gated.go.set()  # a face at the shoe's mouth, the next card out
    assert bench.gated.delivered.wait(20.0)  # every frame checked
    camera = bench.running.cameras[0]
    assert [(s.zone, s.card) for s in camera.decisions] == [("shoe", None)]  # a face, no name
    looks = [look.state for look in camera.mouth_looks]
    assert looks[:3] == [MouthState.EMPTY] * 3 and looks[3:].count(MouthState.FACE) >= 4, looks
    bench.shoe.deal(parse_card(UNNAMED), Face.UNKNOWN)  # the shoe reads it, its sensor cannot tell
    assert sink.wait(lambda: bool(sink.ruled("IRR-3")))
    assert render(sink.ruled("IRR-3")[0].said).startswith(f"Boxed card ({UNNAMED}): set it aside")
    bench.shoe.deal(3, Face.UNKNOWN)  # the face was 7s's: the next read is not boxed by it
    assert sink.wait(sink.dealt(3))
    assert len(sink.ruled("IRR-3")) == 1
    hand = sink.state.hand if sink.state is not None else None
    assert hand is not None and hand.boxed == 1 and parse_card(UNNAMED) not in sum(hand.hole, ())


@pytest.mark.parametrize(
    ("camera_text", "camera_backs", "gated", "camera_extra"),
    [
        (
            MOUTH_CALIBRATED,
            ("red", "blue"),
            GatedFrames(
                [lit(shoe(n), 1.0, noise=3.0, seed=n) for n in range(3)],
                [
                    lit(at_mouth(shoe(n), casino_back("red")), gain, noise=3.0, seed=n)
                    for n, gain in enumerate((1.0, 1.6, 2.2, 0.6, 1.3, 1.9))
                ],
            ),
            {"reader": ReadsNoName},
        )
    ],
)
def test_a_back_at_the_mouth_under_changing_light_makes_no_boxed_card(bench: Bench) -> None:
    """The red back at the mouth, the light changing from frame to frame; the shoe's sensor cannot
    tell the face: the card is dealt face down, no ruling."""
    sink = bench.sink
    bench.gated.go.set()
    assert bench.gated.delivered.wait(20.0)
    camera = bench.running.cameras[0]
    looks = [look.state for look in camera.mouth_looks]
    assert MouthState.FACE not in looks and MouthState.BACK in looks[3:], looks
    assert not camera.decisions
    bench.shoe.deal(0, Face.UNKNOWN)
    assert sink.wait(sink.dealt(1))
    assert not sink.ruled("IRR-3")
