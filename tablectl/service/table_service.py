"""The table service (layer 5): one thread owns the controller; adapters feed it events.

Adapters (the shoe link, the button panel, the broker's command topic, a camera) run in
their own threads and call :meth:`TableService.submit`, which never blocks them. The
service thread takes one event at a time, hands it to the journaled controller (durable
before anything is shown), and gives the new state and the effects to every sink (the
MQTT publisher, the panel's LEDs and buzzer, the terminal). A sink that fails is logged
and never stops the table.

The cards come first: what the table's own devices report (the shoe, the panel, a camera) is
taken ahead of floor commands, which only wait; within each the order of arrival is kept.
"""

from __future__ import annotations

import itertools
import logging
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from tablectl.core.effects import Effect
from tablectl.core.events import Event, FloorCommand, InputRefused
from tablectl.core.table import TableState
from tablectl.journal import Controller

log = logging.getLogger(__name__)

Sink = Callable[[TableState, tuple[Effect, ...]], object]  # what a sink returns is ignored
Clock = Callable[[], float]
Durable = Callable[[], object]

# Lower goes first. The devices at the table (a card read, a dealer's key, a device's news)
# are never kept waiting behind a queue of floor commands; a floor command waits a few ms.
DEVICE_PRIORITY = 0
FLOOR_PRIORITY = 1


def priority_of(event: Event) -> int:
    """The table's own devices first; the floor's commands, taken or refused, after them (in
    their order: a refusal is answered in turn with the commands around it)."""
    return FLOOR_PRIORITY if isinstance(event, (FloorCommand, InputRefused)) else DEVICE_PRIORITY


class TableService:
    """``open_controller`` is called in the thread that will own the controller (SQLite's
    connections belong to the thread that made them): the service thread after :meth:`start`,
    or the caller's thread when a test drives :meth:`process` itself."""

    def __init__(
        self,
        open_controller: Callable[[], Controller[TableState]],
        sinks: list[Sink] | None = None,
        clock: Clock = time.time,
    ) -> None:
        self._open_controller = open_controller
        self._controller: Controller[TableState] | None = None
        self.ready = threading.Event()
        self.sinks: list[Sink] = list(sinks or [])
        self.clock = clock
        # (priority, arrival, ...): FIFO within a priority, so one source's events keep their order.
        self._events: queue.PriorityQueue[tuple[int, int, Event, str | None, Durable | None]] = (
            queue.PriorityQueue()
        )
        self._arrival = itertools.count()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.handled = 0
        self.sink_errors = 0
        self.step_errors = 0
        self.error: BaseException | None = None  # why the service stopped, when it had to
        self.failed = threading.Event()

    @property
    def controller(self) -> Controller[TableState]:
        if self._controller is None:
            self._controller = self._open_controller()
            self.ready.set()
        return self._controller

    @property
    def state(self) -> TableState:
        return self.controller.state

    def submit(
        self, event: Event, key: str | None = None, durable: Callable[[], object] | None = None
    ) -> None:
        """Queue an event from any thread; stamps the time it was seen if the adapter did not.

        ``durable`` is called once the event is in the journal: the shoe's acknowledgement of a
        card read waits for it, so a read is never lost to a crash between the two.
        """
        if getattr(event, "at", 0.0) == 0.0:
            event = replace(event, at=self.clock())
        # next() on itertools.count is atomic under the GIL: arrivals are numbered in order.
        self._events.put((priority_of(event), next(self._arrival), event, key, durable))

    def pending(self) -> int:
        """Events queued and not yet taken (sinks use it to coalesce what they show under load)."""
        return self._events.qsize()

    def process(self, timeout: float | None = None) -> tuple[Effect, ...] | None:
        """Handle the next queued event (waiting up to ``timeout``); None when none came."""
        try:
            _, _, event, key, durable = self._events.get(timeout=timeout)
        except queue.Empty:
            return None
        try:
            effects = self.controller.handle(event, key)  # a repeat (same key) is journaled once
        except Exception:
            if self.controller.failed is not None:
                raise  # the journal could not be written: only a restart knows what it holds
            # A bug in the step for this event: it is journaled with its error, the state is
            # unchanged, and the table goes on with the next event.
            self.step_errors += 1
            log.exception("event %r could not be applied", event)
            effects = ()
        self.handled += 1
        if durable is not None:
            try:
                durable()
            except Exception:
                log.exception("acknowledging %r failed", event)
        for sink in self.sinks:
            try:
                sink(self.controller.state, effects)
            except Exception:  # a display or a broker must never stop the table
                self.sink_errors += 1
                log.exception("a sink failed on %r", event)
        return effects

    def start(self) -> None:
        def loop() -> None:
            try:
                controller = self.controller  # opened here: this thread owns it
            except BaseException as exc:  # the journal would not open: say why to the starter
                self.error = exc
                self.failed.set()
                self.ready.set()
                return
            try:
                while not self._stop.is_set():
                    self.process(timeout=0.1)
                while not self._events.empty():  # events already accepted are handled, not dropped
                    self.process(timeout=0)
            except BaseException as exc:
                self.error = exc
                self.failed.set()
                log.exception("the table service stopped")
            finally:
                controller.close()

        self._thread = threading.Thread(target=loop, name="tablectl-service", daemon=True)
        self._thread.start()

    def stop(self, stall: float = 30.0) -> bool:
        """Handle every event already queued, then stop; True once the service thread has ended.

        Stop the inputs first: the queue is then finite and drained completely, however long it
        is (nothing accepted is dropped). It never hangs: a journal that cannot be written ends
        the thread at once (``error``), and if no event is handled for ``stall`` s (a sink that
        blocks) the wait gives up with an error in the log."""
        self._stop.set()
        thread = self._thread
        if thread is None:
            return True
        handled, since = self.handled, time.monotonic()
        while True:
            thread.join(0.1)
            if not thread.is_alive():
                return True
            if self.handled != handled:
                handled, since = self.handled, time.monotonic()
            elif time.monotonic() - since > stall:
                log.error(
                    "the table service handled nothing for %.0f s while stopping (%d events still "
                    "queued): giving up; the journal has every event handled so far",
                    stall,
                    self.pending(),
                )
                return False

    def drain(self, timeout: float = 5.0) -> None:
        """Handle every queued event (for tests and orderly shutdown)."""
        deadline = time.monotonic() + timeout
        while not self._events.empty() and time.monotonic() < deadline:
            self.process(timeout=0.01)


def open_service(
    journal_path: str, initial_state: TableState, sinks: list[Sink] | None = None, **kwargs: Any
) -> TableService:
    """A service on a journal with snapshots: restarts fold only the hand in progress."""
    from tablectl.core.table import step
    from tablectl.journal.snapshot import table_restore, table_snapshot

    def open_controller() -> Controller[TableState]:
        return Controller.open(
            journal_path,
            initial_state.config,
            step,
            initial_state,
            snapshot_of=table_snapshot,
            restore=table_restore,
            **kwargs,
        )

    return TableService(open_controller, sinks)
