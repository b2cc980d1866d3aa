"""The host's end of the shoe's serial line: pyserial, a reader thread, reconnection.

:class:`ShoeLink` opens the shoe by a stable name (the udev symlink ``/dev/tablectl-shoe``;
any path or pyserial URL works), runs the protocol's
:class:`~firmware_bridge.protocol.ReliableEndpoint` in its own thread and calls back:

* ``on_message(ShoeMessage)`` for every message from the shoe, once, in order: a
  :class:`~firmware_bridge.protocol.CardRead` (tag id, antenna, face, the shoe's clock),
  :class:`~firmware_bridge.protocol.ShoeState`, :class:`~firmware_bridge.protocol.ShoeError`
  or :class:`~firmware_bridge.protocol.Pong`, with the host's timestamps;
* ``on_status(LinkStatus)`` when the link comes ``up``, is ``lost`` and comes ``back``
  (with the time it was away, and whether the shoe restarted meanwhile), when the shoe is
  ``incompatible`` and when the shoe reports ``reads_missed``.

Both callbacks run in the link's thread: keep them short (hand the message to the
service's queue). The caller's thread is never blocked: :meth:`ShoeLink.send` queues.

The shoe's reads survive an unplugged cable: the firmware keeps every read the host has
not acknowledged and sends it again after the HELLO exchange that follows reconnection.
A read is acknowledged once ``on_message`` has returned (also if it raised: that is logged
and counted in ``callback_errors``), or, with ``confirm="manual"``, once
:meth:`ShoeLink.confirm` is called for it (e.g. after the journal has stored it; messages
other than card reads are confirmed by the link itself).
"""

from __future__ import annotations

import contextlib
import logging
import queue
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import serial  # type: ignore[import-untyped]  # pyserial ships no type hints

from firmware_bridge.protocol import (
    CardRead,
    Connected,
    Delivered,
    Incompatible,
    LinkConfig,
    LinkDown,
    LinkEvent,
    LinkState,
    PeerInfo,
    Pong,
    ReliableEndpoint,
    RequestState,
    Role,
    SetIndicator,
    ShoeError,
    ShoeState,
)

log = logging.getLogger(__name__)

DEFAULT_PORT = "/dev/tablectl-shoe"
BAUDRATE = 115200
HOST_SOFTWARE = (0, 1, 0)
READ_TIMEOUT = 0.02  # the reader thread's longest wait: its timer granularity

ShoeReport = CardRead | ShoeState | ShoeError | Pong
StatusKind = Literal["up", "lost", "back", "incompatible", "reads_missed"]


@dataclass(frozen=True, slots=True)
class ShoeInfo:
    serial: str
    firmware: tuple[int, int, int]
    protocol: tuple[int, int]
    session: int

    @staticmethod
    def of(peer: PeerInfo) -> ShoeInfo:
        return ShoeInfo(peer.serial, peer.software, peer.protocol, peer.session)

    def __str__(self) -> str:
        firmware = ".".join(map(str, self.firmware))
        protocol = ".".join(map(str, self.protocol))
        return f"shoe {self.serial or '(no serial)'} firmware {firmware} protocol {protocol}"


@dataclass(frozen=True, slots=True)
class ShoeMessage:
    """A message from the shoe, as the host received it.

    ``received_at``: the host's wall clock (seconds since the epoch) when it was decoded.
    ``shoe_at``: the wall-clock time the shoe's ``shoe_ms`` corresponds to (the moment of
    the read, even for a read sent again after a gap); None until the shoe's clock is known.
    ``key``: for a card read, an idempotency key unique to this physical read
    (shoe serial, boot session, read number): the journal refuses a read twice with it.
    """

    message: ShoeReport
    received_at: float
    shoe_at: float | None
    shoe: ShoeInfo
    seq: int | None

    @property
    def key(self) -> str | None:
        if isinstance(self.message, CardRead):
            return f"shoe:{self.shoe.serial}:{self.shoe.session:08x}:{self.message.read_no}"
        return None

    @property
    def at(self) -> float:
        """The best time for the event: the shoe's, else the host's."""
        return self.shoe_at if self.shoe_at is not None else self.received_at


@dataclass(frozen=True, slots=True)
class LinkStatus:
    """``kind``: ``up`` (first contact), ``lost``, ``back``, ``incompatible``, ``reads_missed``.

    For ``back``: ``gap`` is how long the link was away (from the last frame heard to the
    HELLO exchange); reads made meanwhile arrive now, unless ``shoe_restarted``: the shoe
    lost power, and reads it had not sent are gone: reads may have been missed. For
    ``reads_missed``: ``missed`` reads the shoe numbered but never delivered (it dropped
    them, its queue full)."""

    kind: StatusKind
    at: float  # wall clock
    detail: str
    shoe: ShoeInfo | None = None
    gap: float | None = None
    lost_at: float | None = None
    shoe_restarted: bool = False
    missed: int = 0
    total: int = 0  # reads_missed: reads missed in this boot of the shoe, reported so far (this one too)

    @property
    def ok(self) -> bool:
        return self.kind in ("up", "back")

    @property
    def reads_may_be_missing(self) -> bool:
        return self.shoe_restarted or self.kind == "reads_missed"


OnMessage = Callable[[ShoeMessage], None]
OnStatus = Callable[[LinkStatus], None]


class ShoeLink:
    """The shoe on a serial port; see the module's docstring.

    ::

        link = ShoeLink("/dev/tablectl-shoe", on_message, on_status).start()
        link.send(SetIndicator(Led.RED, blink=True, buzzer_ms=300))
        ...
        link.stop()
    """

    def __init__(
        self,
        port: str = DEFAULT_PORT,
        on_message: OnMessage | None = None,
        on_status: OnStatus | None = None,
        *,
        baudrate: int = BAUDRATE,
        config: LinkConfig | None = None,
        confirm: Literal["auto", "manual"] = "auto",
        reopen_interval: float = 0.1,
        recycle_after: float = 3.0,
        software: tuple[int, int, int] = HOST_SOFTWARE,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
    ) -> None:
        if confirm not in ("auto", "manual"):
            raise ValueError("confirm is 'auto' (after on_message returns) or 'manual' (ShoeLink.confirm)")
        self.port = port
        self.on_message = on_message or (lambda m: None)
        self.on_status = on_status or (lambda s: None)
        self.baudrate = baudrate
        self.reopen_interval = reopen_interval
        self.recycle_after = recycle_after
        self.clock = clock
        self.wall = wall
        self.endpoint = ReliableEndpoint(
            Role.HOST,
            secrets.randbits(32) or 1,
            config=config,
            software=software,
            auto_confirm=confirm == "auto",
        )
        self._serial: serial.SerialBase | None = None
        self._opened_at = 0.0
        self._inbox: queue.Queue[tuple[str, Any]] = queue.Queue()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._changed = threading.Condition()
        # status
        self._up = False
        self._ever_up = False
        self._lost_at: float | None = None
        self._lost_mono: float | None = None
        self._manual = confirm == "manual"
        self._unconfirmed: deque[list[Any]] = deque()  # [session, seq, waiting for confirm]
        self._last_read: dict[int, int] = {}  # shoe session -> last read number delivered
        self._gaps: dict[int, int] = {}  # shoe session -> reads missing between read numbers
        self._dropped: dict[int, int] = {}  # shoe session -> the shoe's own dropped_reads
        self._reported: dict[int, int] = {}  # shoe session -> missed reads reported so far
        # (shoe serial, session) -> missed reads reported before this link started (by an earlier
        # run of the host: the shoe counts per boot, and says so again on every connection)
        self._reported_before: dict[tuple[str, int], int] = {}
        self.shoe: ShoeInfo | None = None
        self.opens = 0
        self.open_failures = 0
        self.port_errors = 0
        self.callback_errors = 0
        self.last_error = ""

    # -- the caller's side ----------------------------------------------------------------

    def start(self) -> ShoeLink:
        if self._thread is None:
            self._stop.clear()
            self._thread = threading.Thread(target=self._run, name="shoe-link", daemon=True)
            self._thread.start()
        return self

    def stop(self, timeout: float = 2.0) -> None:
        self._stop.set()
        self._interrupt()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None
        self._close()

    def __enter__(self) -> ShoeLink:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def already_reported(self, serial: str, session: int, total: int) -> None:
        """``total`` missed reads of that boot of that shoe were reported before this link
        started (its host restarted): report only reads missed beyond them. Before start()."""
        key = (serial, session)
        self._reported_before[key] = max(total, self._reported_before.get(key, 0))

    def send(self, command: SetIndicator | RequestState) -> None:
        """Queue a command for the shoe; delivered once, in order, across reconnections."""
        if not isinstance(command, (SetIndicator, RequestState)):
            raise TypeError(f"{type(command).__name__} is not a command for the shoe")
        self._inbox.put(("send", command))
        self._interrupt()

    def set_indicator(self, led: Any, blink: bool = False, buzzer_ms: int = 0) -> None:
        self.send(SetIndicator(led, blink, buzzer_ms))

    def request_state(self) -> None:
        self.send(RequestState())

    def ping(self, nonce: int = 0) -> None:
        self._inbox.put(("ping", nonce))
        self._interrupt()

    def confirm(self, message: ShoeMessage) -> None:
        """With ``confirm="manual"``: the message is stored; the shoe may forget it."""
        if message.seq is not None:
            self._inbox.put(("confirm", (message.shoe.session, message.seq)))
            self._interrupt()

    @property
    def connected(self) -> bool:
        return self._up

    def wait_connected(self, timeout: float = 5.0) -> bool:
        return self.wait_for(lambda: self._up, timeout)

    def wait_for(self, predicate: Callable[[], bool], timeout: float = 5.0) -> bool:
        """Wait until ``predicate()`` holds, re-checked whenever the link's state changes."""
        with self._changed:
            return self._changed.wait_for(predicate, timeout)

    def stats(self) -> dict[str, Any]:
        with self._lock:
            counters = self.endpoint.counters.as_dict()
            state = self.endpoint.state.value
            pending = self.endpoint.pending
            rto = self.endpoint.rto
        return {
            "port": self.port,
            "state": state,
            "connected": self._up,
            "shoe": str(self.shoe) if self.shoe else None,
            "opens": self.opens,
            "open_failures": self.open_failures,
            "port_errors": self.port_errors,
            "callback_errors": self.callback_errors,
            "pending_commands": pending,
            "rto_ms": round(rto * 1000, 1),
            "last_error": self.last_error,
            **counters,
        }

    # -- the port -------------------------------------------------------------------------

    def _interrupt(self) -> None:
        port = self._serial
        if port is not None and hasattr(port, "cancel_read"):
            with contextlib.suppress(Exception):  # best effort: the read times out anyway
                port.cancel_read()

    def _open(self) -> bool:
        try:
            port = serial.serial_for_url(
                self.port,
                baudrate=self.baudrate,
                timeout=READ_TIMEOUT,
                write_timeout=1.0,
                exclusive=True,
                do_not_open=True,
            )
            port.open()
        except (serial.SerialException, OSError, ValueError) as exc:
            error = f"cannot open {self.port}: {exc}"
            if error != self.last_error:  # once per new reason, not every reopen_interval
                log.info("shoe link: %s", error)
            with self._changed:
                self.last_error = error
                self.open_failures += 1
                self._changed.notify_all()
            return False
        now = self.clock()
        with self._lock:
            self._serial = port
            self._opened_at = now
            self.opens += 1
            self.endpoint.resync(now)
        log.info("shoe link: opened %s", self.port)
        return True

    def _close(self) -> None:
        port, self._serial = self._serial, None
        if port is not None:
            with contextlib.suppress(Exception):  # a vanished device may fail to close
                port.close()

    def _port_lost(self, reason: str) -> None:
        self.port_errors += 1
        self.last_error = reason
        self._close()
        self._went_down(reason, 0.0)

    def _read(self, port: serial.SerialBase) -> bytes:
        data = port.read(1)
        if data:
            waiting = port.in_waiting
            if waiting:
                data += port.read(waiting)
        return bytes(data)

    # -- the thread -----------------------------------------------------------------------

    def _run(self) -> None:
        while not self._stop.is_set():
            port = self._serial
            if port is None:
                if not self._open():
                    self._stop.wait(self.reopen_interval)
                continue
            try:
                data = self._read(port)
            except (serial.SerialException, OSError, TypeError, ValueError) as exc:
                # TypeError/ValueError: pyserial on a file descriptor closed under it
                if not self._stop.is_set():
                    self._port_lost(f"serial port error: {exc}")
                continue
            now = self.clock()
            with self._lock:
                self._take_inbox(now)
                step = self.endpoint.step(now, data)
            for event in step.events:
                self._on_event(event, now)
            with self._lock:  # what the callbacks asked for (a command, a confirm) goes now too
                self._take_inbox(now)
                out = step.data + self.endpoint.step(now).data
            if out:
                try:
                    port.write(out)
                except (serial.SerialException, OSError, TypeError, ValueError) as exc:
                    self._port_lost(f"serial port write failed: {exc}")
                    continue
            if (
                not self._up
                and self.endpoint.state is LinkState.SYNCING
                and now - self._opened_at > self.recycle_after
            ):
                # No answer to our HELLOs: open the port again (the stable name may point
                # at a new device by now).
                self.last_error = f"no answer from a shoe on {self.port} for {self.recycle_after:g} s"
                self._close()

    def _take_inbox(self, now: float) -> None:
        while True:
            try:
                what, arg = self._inbox.get_nowait()
            except queue.Empty:
                return
            if what == "send":
                if not self.endpoint.send(arg, now):
                    log.warning("shoe link: command queue full, %s dropped", arg)
            elif what == "ping":
                self.endpoint.ping(arg)
            elif what == "confirm":
                session, seq = arg
                for entry in self._unconfirmed:
                    if entry[0] == session and entry[1] == seq:
                        entry[2] = False
                self._advance_confirm()

    def _advance_confirm(self) -> None:
        """Acknowledge everything delivered up to the first card read not yet confirmed:
        acknowledgements are cumulative, and only card reads wait for the service."""
        last: tuple[int, int] | None = None
        while self._unconfirmed and not self._unconfirmed[0][2]:
            session, seq, _ = self._unconfirmed.popleft()
            last = (session, seq)
        peer = self.endpoint.peer
        if last is not None and peer is not None and peer.session == last[0]:
            self.endpoint.confirm(last[1])

    # -- events ---------------------------------------------------------------------------

    def _status(self, status: LinkStatus) -> None:
        log.info("shoe link: %s: %s", status.kind, status.detail)
        try:
            self.on_status(status)
        except Exception:
            self.callback_errors += 1
            log.exception("shoe link: on_status failed")

    def _set_up(self, up: bool) -> None:
        with self._changed:
            self._up = up
            self._changed.notify_all()

    def _went_down(self, reason: str, silent_for: float) -> None:
        if not self._up:
            return
        self._set_up(False)
        self._lost_at = self.wall() - silent_for
        self._lost_mono = self.clock() - silent_for
        self._status(LinkStatus("lost", self.wall(), reason, self.shoe, lost_at=self._lost_at))

    def _on_event(self, event: LinkEvent, now: float) -> None:
        if isinstance(event, Delivered):
            self._deliver(event, now)
        elif isinstance(event, Connected):
            self._connected(event, now)
        elif isinstance(event, LinkDown):
            self._went_down(f"the shoe went silent ({event.reason})", event.silent_for)
        elif isinstance(event, Incompatible):
            info = ShoeInfo.of(event.peer)
            ours = f"{self.endpoint.protocol[0]}.{self.endpoint.protocol[1]}"
            detail = (
                f"{info} cannot talk to this tablectl (protocol {ours}): "
                f"update tablectl, or flash the shoe with firmware for protocol {self.endpoint.protocol[0]}.x"
            )
            self.shoe = info
            self._status(LinkStatus("incompatible", self.wall(), detail, info))

    def _connected(self, event: Connected, now: float) -> None:
        info = ShoeInfo.of(event.peer)
        self.shoe = info
        wall = self.wall()
        if not self._ever_up:
            self._ever_up = True
            self._set_up(True)
            self._status(LinkStatus("up", wall, f"{info} connected on {self.port}", info))
            return
        restarted = not event.resumed
        lost_at = self._lost_at if self._lost_at is not None else wall
        gap = now - self._lost_mono if self._lost_mono is not None else 0.0
        self._lost_at = self._lost_mono = None
        self._set_up(True)
        if restarted:
            detail = (
                f"{info} is back after {gap:.2f} s; it restarted meanwhile: "
                "reads it had not sent are lost, check the deck"
            )
        else:
            detail = f"{info} is back after {gap:.2f} s; reads made meanwhile follow"
        self._status(
            LinkStatus("back", wall, detail, info, gap=gap, lost_at=lost_at, shoe_restarted=restarted)
        )

    def _missed(self, session: int, info: ShoeInfo, wall: float, where: str) -> None:
        """Report reads the shoe numbered but dropped, once each: its own count (SHOE_STATE)
        and the gaps in the read numbers describe the same reads; the larger is right."""
        total = max(self._gaps.get(session, 0), self._dropped.get(session, 0))
        reported = self._reported.get(session, self._reported_before.get((info.serial, session), 0))
        missed = total - reported
        if missed <= 0:
            return
        self._reported[session] = total
        detail = (
            f"{info} dropped {missed} read(s) {where} (the host was away too long): check the cards dealt"
        )
        self._status(LinkStatus("reads_missed", wall, detail, info, missed=missed, total=total))

    def _deliver(self, event: Delivered, now: float) -> None:
        message = event.message
        if not isinstance(message, (CardRead, ShoeState, ShoeError, Pong)):
            return
        info = self.shoe
        if info is None or info.session != event.session:  # cannot happen: HELLO comes first
            peer = self.endpoint.peer
            assert peer is not None
            info = self.shoe = ShoeInfo.of(peer)
        wall = self.wall()
        shoe_at: float | None = None
        if isinstance(message, (CardRead, ShoeState, ShoeError)):
            local = self.endpoint.peer_clock.to_local(message.shoe_ms)
            if local is not None:
                shoe_at = wall - (now - local)
        if isinstance(message, CardRead):
            last = self._last_read.get(event.session)
            self._last_read[event.session] = message.read_no
            if last is not None and message.read_no > last + 1:
                self._gaps[event.session] = self._gaps.get(event.session, 0) + message.read_no - last - 1
                self._missed(event.session, info, wall, f"before read {message.read_no}")
        elif isinstance(message, ShoeState) and message.dropped_reads:
            self._dropped[event.session] = message.dropped_reads
            self._missed(event.session, info, wall, "while its queue was full")
        if self._manual and event.seq is not None:
            if self._unconfirmed and self._unconfirmed[0][0] != event.session:
                self._unconfirmed.clear()  # the shoe restarted: its old numbers mean nothing now
            self._unconfirmed.append([event.session, event.seq, isinstance(message, CardRead)])
        try:
            self.on_message(ShoeMessage(message, wall, shoe_at, info, event.seq))
        except Exception:
            self.callback_errors += 1
            log.exception("shoe link: on_message failed")
        if self._manual:
            with self._lock:
                self._advance_confirm()
