"""Benchmark: the camera adapter beside the table service (tablectl/adapters/camera.py).

Prints one JSON object:
- frame_ms_p50 / frame_ms_p99: the adapter's work per 640x480 frame (the card reader and the zone
  watch) on rendered frames with eight cards (geaxgx's MIT faces, ../shared/data/cards/geaxgx);
- watch_ms_p50: the zone watch's share (vision/stability.py);
- camera_fps: the frames a second one camera thread gets through at full speed;
- ruling_ms_p50: from the first frame of a hole card face up at its seat (a camera at 30 fps,
  agree_frames 4) to the exposed-card ruling reaching a sink of the service: the agreeing frames
  (100 ms) plus the reading and the journal;
- service_ms_p50 / service_ms_p99 and the same *_camera: an event's time from submit to the sinks
  (the journal's fsync included), alone and with a camera thread reading frames as fast as it
  can beside it: what the camera's thread costs the table (they share the interpreter's lock).
Goals: the table never waits on a camera (service_ms_p99_camera within 2x service_ms_p99).
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from tablectl.adapters.camera import CameraAdapter  # noqa: E402
from tablectl.core.cards import parse_card  # noqa: E402
from tablectl.core.effects import Effect, Ruling  # noqa: E402
from tablectl.core.events import CardDrawn, DealerInput, DealerKey, DeviceStatus  # noqa: E402
from tablectl.core.table import TableConfig, TableState  # noqa: E402
from tablectl.service.table_service import open_service  # noqa: E402
from tablectl.sim.dealer import seated_table  # noqa: E402
from tests.helpers.camera_frames import felt, seat_centre, table_camera, with_card  # noqa: E402
from vision.reader import CardReader  # noqa: E402
from vision.sources import Frame, Skipped  # noqa: E402
from vision.stability import ZoneWatch  # noqa: E402
from vision.zones import CameraSource  # noqa: E402

CAMERA = table_camera(CameraSource("device", device=0))
FPS = 30.0


def busy_frame() -> np.ndarray:
    frame = felt()
    for seat, card in ((1, "As"), (2, "Kd"), (3, "7c")):
        frame = with_card(frame, card, seat_centre(CAMERA, seat))
    for x in (180, 260, 340, 420, 500):
        frame = with_card(frame, "2h", (x, 100), 70)
    return frame


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def frame_work(frames: int) -> dict[str, float]:
    reader, watch, frame = CardReader(), ZoneWatch(CAMERA), busy_frame()
    total, watched = [], []
    for number in range(frames):
        start = time.perf_counter()
        sightings = reader.read(frame)
        middle = time.perf_counter()
        watch.frame(sightings, number / FPS)
        end = time.perf_counter()
        total.append((end - start) * 1000)
        watched.append((end - middle) * 1000)
    return {
        "frame_ms_p50": round(statistics.median(total), 2),
        "frame_ms_p99": round(percentile(total, 0.99), 2),
        "watch_ms_p50": round(statistics.median(watched), 3),
        "camera_fps": round(1000 / statistics.median(total), 1),
    }


class Looping:
    """A camera giving ``frame`` for ever (``pace``: at FPS, as a camera does; else at once)."""

    def __init__(self, images: list[np.ndarray], pace: bool, marks: list[float] | None = None) -> None:
        self.images, self.pace, self.marks = images, pace, marks
        self.stop = threading.Event()

    def frames(self) -> Iterator[Frame | Skipped]:
        number = 0
        start = time.perf_counter()
        while not self.stop.is_set():
            image = self.images[min(number, len(self.images) - 1)]
            if self.pace:
                self.stop.wait(max(0.0, start + number / FPS - time.perf_counter()))
            if self.marks is not None and number == len(self.images) - 1:
                self.marks.append(time.perf_counter())  # the first frame of the last image
            yield Frame(f"frame {number}", image)
            number += 1

    def close(self) -> None:
        self.stop.set()


def ruling_latency(runs: int, folder: Path) -> float:
    config = TableConfig(seats=3, game="NT", blinds=(50, 100))
    times: list[float] = []
    for run in range(runs):
        service = open_service(str(folder / f"ruling-{run}.journal"), seated_table(config, 3))
        ruled, dealt = threading.Event(), threading.Event()
        at: list[float] = []
        last: list[TableState] = []

        def sink(
            state: TableState,
            effects: tuple[Effect, ...],
            ruled: threading.Event = ruled,
            dealt: threading.Event = dealt,
            at: list[float] = at,
            last: list[TableState] = last,
        ) -> None:
            last[:] = [state]
            if state.hand is not None and state.hand.hole_dealt == 4:
                dealt.set()
            if any(isinstance(e, Ruling) and e.rule == "IRR-6" for e in effects):
                at.append(time.perf_counter())
                ruled.set()

        service.sinks.append(sink)
        service.start()
        service.submit(DealerInput(DealerKey.NEW_HAND))
        for card in ("2c", "3d", "4h", "As"):
            service.submit(CardDrawn(parse_card(card)))
        assert dealt.wait(30.0), "not dealt"
        hand = last[0].hand
        assert hand is not None
        seat = next(hand.seat(p) for p, held in enumerate(hand.hole) if parse_card("As") in held)
        marks: list[float] = []
        exposed = with_card(felt(), "As", seat_centre(CAMERA, seat))
        source = Looping([felt()] * 5 + [exposed], pace=True, marks=marks)
        adapter = CameraAdapter(CAMERA, service.submit, open_source=lambda _, source=source: source)
        adapter.start()
        assert ruled.wait(30.0), "no ruling"
        adapter.stop()
        service.stop()
        times.append((at[0] - marks[0]) * 1000)
    return round(statistics.median(times), 1)


def service_latency(events: int, folder: Path, camera: bool) -> tuple[float, float]:
    config = TableConfig(seats=3, game="NT", blinds=(50, 100))
    service = open_service(str(folder / f"service-{camera}.journal"), seated_table(config, 3))
    arrived = threading.Event()
    service.sinks.append(lambda state, effects: arrived.set())
    service.start()
    assert service.ready.wait(30.0)
    adapter = None
    if camera:
        source = Looping([busy_frame()], pace=False)
        adapter = CameraAdapter(CAMERA, lambda *a, **k: None, open_source=lambda _: source)
        adapter.start()
        time.sleep(1.0)  # a benchmark warming the camera thread up, not a test's synchronisation
    times = []
    for number in range(events):
        arrived.clear()
        start = time.perf_counter()
        service.submit(DeviceStatus("panel", number % 2 == 0, "bench"))
        arrived.wait(10.0)
        times.append((time.perf_counter() - start) * 1000)
    if adapter is not None:
        adapter.stop()
    service.stop()
    return round(statistics.median(times), 2), round(percentile(times, 0.99), 2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=200)
    parser.add_argument("--events", type=int, default=400)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    cv2.setNumThreads(1)
    report: dict[str, object] = {"machine": platform.machine(), "python": platform.python_version()}
    report.update(frame_work(args.frames))
    with tempfile.TemporaryDirectory() as folder:
        report["ruling_ms_p50"] = ruling_latency(args.runs, Path(folder))
        alone = service_latency(args.events, Path(folder), camera=False)
        beside = service_latency(args.events, Path(folder), camera=True)
    report.update(
        service_ms_p50=alone[0],
        service_ms_p99=alone[1],
        service_ms_p50_camera=beside[0],
        service_ms_p99_camera=beside[1],
    )
    print(json.dumps(report))


if __name__ == "__main__":
    main()
