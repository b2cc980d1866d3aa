"""`tablectl serve`: the service on the table's Pi, wired from its config file.

The shoe link, the cameras, the button panel and the broker's command topic feed the table service;
the journal keeps every event before anything is shown; the publisher, the panel's
lights and buzzer and the log are its sinks. Stops cleanly on SIGTERM (systemd) or Ctrl-C.
"""

from __future__ import annotations

import logging
import signal
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from firmware_bridge.link import ShoeLink
from tablectl.adapters.camera import CameraAdapter, MouthSightings
from tablectl.adapters.mqtt import TablePublisher
from tablectl.adapters.panel import DealerPanel
from tablectl.adapters.shoe import MISSED_KEY_PREFIX, ShoeAdapter, reported_missed
from tablectl.core.effects import Effect, Ruling
from tablectl.core.events import DealerCommand, FloorCommand, InputRefused
from tablectl.core.table import TableState, new_table
from tablectl.journal.recent import hand_book, hand_rulings
from tablectl.journal.store import Journal
from tablectl.service.table_service import TableService, open_service
from tablectl.service.tablefile import TableFile
from tablectl.views import secrecy

log = logging.getLogger("tablectl")


@dataclass
class BrokerSettings:
    host: str = "localhost"
    port: int = 1883
    username: str | None = None
    password: str | None = None


@dataclass
class RunningTable:
    """Everything `serve` started, so that it (or a test) can stop it in order."""

    service: TableService
    publisher: TablePublisher
    link: ShoeLink
    panel: DealerPanel | None
    cameras: list[CameraAdapter] = field(default_factory=list)
    stopped: threading.Event = field(default_factory=threading.Event)

    def stop(self) -> None:
        """Stop taking input (the command topic, the shoe, the panel's buttons), handle every
        event already taken (the journal has them all before anyone is told), publish what that
        produced, then close the outputs. Never hangs: each step ends on its own."""
        if not self.publisher.close_intake():
            log.error("the MQTT worker did not close the command intake within 5 s")
        self.link.stop()  # reads not yet confirmed are sent again by the shoe to the next run
        for camera in self.cameras:
            if not camera.stop():
                log.error("the %s did not stop within 5 s (a driver hung in a read)", camera.device)
        if self.panel is not None:
            self.panel.stop_input()
        if not self.service.stop():
            log.error("the table service did not finish its queue; the journal has what it handled")
        self.publisher.stop()  # the answers and snapshots of the drain, then offline
        if self.panel is not None:
            self.panel.close()
        self.stopped.set()


def log_rulings(state: TableState, effects: tuple[Effect, ...]) -> None:
    """The rulings in the service's log, which is no place for a hole card: the sentence as the
    displays read it (the journal keeps every card for tablectl replay)."""
    say = secrecy.speaker(state)
    for effect in effects:
        if isinstance(effect, Ruling):
            log.info(
                "hand %s: %s %s: %s", state.hand_number, effect.severity.value, effect.rule, say(effect.said)
            )


def start_table(
    table_file: TableFile,
    journal: str | Path,
    broker: BrokerSettings,
    publisher_options: dict[str, Any] | None = None,
    camera_options: dict[str, Any] | None = None,
    **panel_options: Any,
) -> RunningTable:
    """Start every adapter of one table and return them running. ``publisher_options``:
    :class:`TablePublisher` fields to set (tests and benchmarks: the command limits);
    ``camera_options``: :class:`CameraAdapter` arguments for every camera (tests: the source)."""
    config = table_file.table
    registry = table_file.load_registry()  # no deck to deal from: refused, naming the key
    service = open_service(str(journal), new_table(config))
    # A camera on the shoe's mouth is the shoe's face sensor where its own cannot tell (IRR-3).
    mouth = MouthSightings() if watches_mouth(table_file) else None
    adapter = ShoeAdapter(
        registry,
        service.submit,
        confirm=lambda message: link.confirm(message),
        face_seen=mouth.face_up if mouth is not None else None,
    )

    def on_command(
        command: FloorCommand | DealerCommand | InputRefused, key: str | None, done: Callable[[], None]
    ) -> None:
        # Acknowledged to the broker, and answered, once journaled (done), as a card read is.
        service.submit(command, key, durable=done)

    publisher = TablePublisher(
        config.room,
        config.table,
        host=broker.host,
        port=broker.port,
        username=broker.username,
        password=broker.password,
        on_command=on_command,
        backlog=service.pending,
        **(publisher_options or {}),
    )
    panel = None
    if table_file.panel is not None:
        panel = DealerPanel(table_file.panel, service.submit, **panel_options)
    service.sinks += [adapter.follow, publisher.publish_state, log_rulings]
    if panel is not None:
        service.sinks.append(panel.follow)
    if mouth is not None:
        camera_options = {"on_mouth": mouth.saw, **(camera_options or {})}
    cameras = camera_adapters(table_file, service.submit, **(camera_options or {}))
    service.start()
    if not service.ready.wait(30.0):
        service.stop()
        raise RuntimeError(f"{journal}: the journal did not open within 30 s")
    if service.error is not None:
        raise service.error  # e.g. the journal belongs to another table, or is locked
    started: list[Any] = [service]
    try:
        # What the last run knew only in memory, read back from the journal before any input
        # starts (the service is idle until then): the rulings of the hand in progress, the record
        # of that hand and the last hands (a dispute is replayed after a crash, TBL-5), and the
        # dropped reads already reported of each boot of the shoe.
        state = service.state
        with Journal(journal) as reader:
            rulings = hand_rulings(reader, new_table(config), state.hand_number, publisher.recent_rulings)
            hands = hand_book(reader, new_table(config), state.hand_number)
            missed = reported_missed(reader.keys_starting(MISSED_KEY_PREFIX))
        publisher.restore_rulings((r.at, r.hand or None, r.ruling) for r in rulings)
        publisher.restore_hands(hands)
        publisher.start()
        started.append(publisher)
        publisher.republish(state)  # after a restart the displays get the current table
        # The shoe forgets a read only once the journal has it (confirmed after the append).
        link = ShoeLink(
            table_file.shoe.port,
            adapter.on_message,
            adapter.on_status,
            baudrate=table_file.shoe.baudrate,
            confirm="manual",
        )
        for (serial, session), total in missed.items():
            link.already_reported(serial, session, total)
        link.start()
        started.append(link)
        for camera in cameras:  # beside the shoe link, each in its own thread
            camera.start()
            started.append(camera)
        if panel is not None:
            panel.start()
    except BaseException:
        for part in reversed(started):
            part.stop()
        raise
    return RunningTable(service, publisher, link, panel, cameras)


def watches_mouth(table_file: TableFile) -> bool:
    """A camera of the table's config watches the shoe's mouth."""
    vision = table_file.vision
    return vision is not None and any(z.kind == "shoe" for c in vision.cameras for z in c.zones)


def camera_adapters(
    table_file: TableFile, submit: Callable[..., None], **options: Any
) -> list[CameraAdapter]:
    """One adapter for each camera of the table's config (none without [cameras.*]), not started."""
    vision = table_file.vision
    if vision is None:
        return []
    options = {
        "agree": vision.agree_frames,
        "release": vision.release_frames,
        "backs": vision.backs,
        **options,
    }
    return [CameraAdapter(camera, submit, **options) for camera in vision.cameras]


def serve(
    table_file: TableFile,
    journal: str | Path,
    broker: BrokerSettings,
    publisher_options: dict[str, Any] | None = None,
) -> int:
    """Run the table until SIGTERM or SIGINT (or until the service has to stop); the exit code."""
    running = start_table(table_file, journal, broker, publisher_options)
    service = running.service
    done = threading.Event()
    signalled: list[int] = []

    def on_signal(signum: int, frame: Any) -> None:
        signalled.append(signum)
        done.set()

    def on_failure() -> None:  # a service that had to stop ends the process: systemd restarts it
        service.failed.wait()
        done.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    threading.Thread(target=on_failure, name="tablectl-failed", daemon=True).start()
    cameras = ", ".join(f"{c.device} {c.camera.source.describe()}" for c in running.cameras) or "none"
    log.info(
        "table %s/%s serving: shoe %s, cameras: %s, broker %s:%s",
        table_file.table.room,
        table_file.table.table,
        table_file.shoe.port,
        cameras,
        broker.host,
        broker.port,
    )
    # Never an untimed wait: the kernel may hand SIGTERM to any thread, and Python runs the
    # handler only when the main thread next runs; blocked for good, it would never stop.
    while not done.wait(0.2):
        pass
    if signalled:
        log.info(
            "%s: stopping: no more input; handling the %d events already taken",
            signal.Signals(signalled[0]).name,
            service.pending(),
        )
    running.stop()
    if service.error is not None:
        log.error("the table service stopped: %s", service.error)
        return 1
    log.info("stopped: %d events handled in this run, every one journaled", service.handled)
    return 0
