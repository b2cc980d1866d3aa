"""`tablectl serve`: the service on the table's Pi, wired from its config file.

The shoe link, the button panel and the broker's command topic feed the table service;
the journal keeps every event before anything is shown; the publisher, the panel's
lights and buzzer and the log are its sinks. Stops cleanly on SIGTERM (systemd) or Ctrl-C.
"""

from __future__ import annotations

import logging
import signal
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from firmware_bridge.link import ShoeLink
from tablectl.adapters.mqtt import TablePublisher
from tablectl.adapters.panel import DealerPanel
from tablectl.adapters.shoe import ShoeAdapter
from tablectl.core.effects import Effect, Ruling
from tablectl.core.events import FloorCommand
from tablectl.core.table import TableState, new_table
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
    stopped: threading.Event = field(default_factory=threading.Event)

    def stop(self) -> None:
        # Inputs first, then the service (it handles what they already sent), then the output.
        if self.panel is not None:
            self.panel.close()
        self.link.stop()
        self.service.stop()
        self.publisher.stop()
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
    table_file: TableFile, journal: str | Path, broker: BrokerSettings, **panel_options: Any
) -> RunningTable:
    """Start every adapter of one table and return them running."""
    config = table_file.table
    registry = table_file.load_registry()  # no deck to deal from: refused, naming the key
    service = open_service(str(journal), new_table(config))
    adapter = ShoeAdapter(registry, service.submit, confirm=lambda message: link.confirm(message))

    def on_command(command: FloorCommand, key: str | None) -> None:
        service.submit(command, key)

    publisher = TablePublisher(
        config.room,
        config.table,
        host=broker.host,
        port=broker.port,
        username=broker.username,
        password=broker.password,
        on_command=on_command,
    )
    panel = None
    if table_file.panel is not None:
        panel = DealerPanel(table_file.panel, service.submit, **panel_options)
    service.sinks += [adapter.follow, publisher.publish_state, log_rulings]
    if panel is not None:
        service.sinks.append(panel.follow)
    service.start()
    if not service.ready.wait(30.0):
        service.stop()
        raise RuntimeError(f"{journal}: the journal did not open within 30 s")
    if service.error is not None:
        raise service.error  # e.g. the journal belongs to another table, or is locked
    started: list[Any] = [service]
    try:
        publisher.start()
        started.append(publisher)
        publisher.republish(service.state)  # after a restart the displays get the current table
        # The shoe forgets a read only once the journal has it (confirmed after the append).
        link = ShoeLink(
            table_file.shoe.port,
            adapter.on_message,
            adapter.on_status,
            baudrate=table_file.shoe.baudrate,
            confirm="manual",
        ).start()
        started.append(link)
        if panel is not None:
            panel.start()
    except BaseException:
        for part in reversed(started):
            part.stop()
        raise
    return RunningTable(service, publisher, link, panel)


def serve(table_file: TableFile, journal: str | Path, broker: BrokerSettings) -> int:
    running = start_table(table_file, journal, broker)
    done = running.service.failed  # a service that had to stop ends the process: systemd restarts it

    def on_signal(signum: int, frame: Any) -> None:
        done.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    log.info(
        "table %s/%s serving: shoe %s, broker %s:%s",
        table_file.table.room,
        table_file.table.table,
        table_file.shoe.port,
        broker.host,
        broker.port,
    )
    done.wait()
    running.stop()
    if running.service.error is not None:
        log.error("the table service stopped: %s", running.service.error)
        return 1
    return 0
