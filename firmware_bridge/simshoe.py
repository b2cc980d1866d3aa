"""The simulated card shoe: the shoe's firmware on a pseudo-terminal, for test rigs.

It opens a pseudo-terminal (:func:`os.openpty`, both sides raw), and the host opens the
slave side with pyserial exactly as it opens a real shoe. Behind it runs the same
:class:`~firmware_bridge.protocol.ReliableEndpoint` a real shoe's firmware implements,
with a shoe's small RAM (a bounded queue of reads) and the faults a test rig needs::

    with SimShoe(deck="red-1", seed=7, link="/tmp/shoe") as shoe:  # /tmp/shoe -> /dev/pts/N
        link = ShoeLink(shoe.path, on_message, on_status).start()
        shoe.deal_deck()                    # a shuffled deck, card by card
        shoe.deal(51, Face.FACE)            # a boxed card (cards are numbers 0..51)
        shoe.foreign(37)                    # a card from another deck
        shoe.faults.drop = 0.05             # knobs, live
        shoe.unplug(); shoe.replug()        # the host must reconnect
        shoe.reboot()                       # a power cut: unsent reads are gone

With ``link`` the simulator keeps a symlink at that stable path pointing at the current
pseudo-terminal (as the udev rule does for a real shoe), removes it while unplugged and
re-points it on replug. Every method is safe to call from any thread: the simulator's own
thread carries it out.

The shoe knows cards only as numbers 0..51 (:mod:`firmware_bridge.tags`). Where a person
types or reads a card (:meth:`SimShoe.command`, the command line), the caller says how cards
are written with :class:`CardNames`; tablectl passes its own notation (``As``, ``Td``), and
on its own the bridge writes the numbers (:data:`CARD_NUMBERS`).
"""

from __future__ import annotations

import contextlib
import os
import queue
import random
import select
import threading
import time
import tty
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

from firmware_bridge.faults import FaultInjector, Faults, split_frames
from firmware_bridge.protocol import (
    PROTOCOL_MAJOR,
    PROTOCOL_MINOR,
    CardRead,
    Connected,
    Delivered,
    ErrorCode,
    Face,
    Incompatible,
    LinkConfig,
    LinkDown,
    LinkEvent,
    LinkState,
    ReliableEndpoint,
    RequestState,
    Role,
    SetIndicator,
    ShoeError,
    ShoeState,
)
from firmware_bridge.tags import CARDS, tag_id

T = TypeVar("T")

FIRMWARE_VERSION = (1, 0, 0)
MAX_LINE_BACKLOG = 64 * 1024  # bytes waiting for the pty before the oldest are lost


def new_session() -> int:
    """A session id for a boot: random and non-zero (a real shoe: hardware RNG or a boot
    counter in flash). Never derived from the simulator's seed: two runs with the same
    seed must still look like two boots to a host that stayed up."""
    return int.from_bytes(os.urandom(4), "little") or 1


@dataclass(frozen=True, slots=True)
class CardNames:
    """How people write the cards 0..51: ``parse`` reads one (raising ValueError for what is
    no card), ``show`` writes one so that ``parse`` reads it back."""

    parse: Callable[[str], int]
    show: Callable[[int], str]

    def examples(self) -> tuple[str, str, str]:
        """Three cards to show in help texts (in tablectl's notation: As, Td, 5c)."""
        return self.show(51), self.show(33), self.show(12)


def _parse_number(text: str) -> int:
    digits = text.strip().removeprefix("#")
    if digits.isdigit() and int(digits) < CARDS:
        return int(digits)
    raise ValueError(f"{text!r} is not a card: write its number, #0..#{CARDS - 1}")


# The bridge's own naming, for running without a card notation: the numbers tags.py uses.
CARD_NUMBERS = CardNames(_parse_number, lambda card: f"#{card}")


@dataclass(frozen=True, slots=True)
class SimEvent:
    """What happened in the simulated shoe, for a console or a test log."""

    at: float
    kind: str  # "connected", "link_down", "incompatible", "command", "dealt", "dropped", ...
    detail: str
    message: Any = None


class SimShoe:
    """A simulated shoe on a pseudo-terminal; see the module's docstring."""

    def __init__(
        self,
        deck: str = "sim-red",
        *,
        seed: int | None = None,
        faults: Faults | None = None,
        link: str | os.PathLike[str] | None = None,
        serial: str = "SIM-0001",
        firmware: tuple[int, int, int] = FIRMWARE_VERSION,
        protocol: tuple[int, int] = (PROTOCOL_MAJOR, PROTOCOL_MINOR),
        queue_size: int = 64,
        foreign_deck: str = "sim-foreign",
        config: LinkConfig | None = None,
        on_event: Callable[[SimEvent], None] | None = None,
        on_write: Callable[[bytes, float], None] | None = None,  # (bytes, clock just before the write)
        clock: Callable[[], float] = time.monotonic,
        card_names: CardNames = CARD_NUMBERS,
    ) -> None:
        self.deck = deck
        self.card_names = card_names
        self.foreign_deck = foreign_deck
        self.serial = serial
        self.firmware = firmware
        self.protocol = protocol
        self.rng = random.Random(seed)
        self.faults = faults if faults is not None else Faults()
        self.link = os.fspath(link) if link is not None else None
        self.on_event = on_event
        self.on_write = on_write
        self.clock = clock
        self.config = config or LinkConfig(max_queue=queue_size)
        if config is not None and queue_size != 64:
            raise ValueError("give queue_size or config (its max_queue), not both")
        self._tx_faults = FaultInjector(self.faults, random.Random(self.rng.getrandbits(64)))
        self._rx_faults = FaultInjector(self.faults, random.Random(self.rng.getrandbits(64)))
        self._rx_buf = bytearray()
        # the firmware's state
        self.lid_open = False
        self.deck_present = True
        self.jam = False
        self.read_no = 0
        self.dropped_reads = 0
        self._overflow_unreported = 0
        self.indicator: SetIndicator | None = None
        self.commands: list[SetIndicator | RequestState] = []
        self.events: list[SimEvent] = []
        self._stack: list[int] = []
        self.boots = 0
        self.endpoint = self._boot()
        # the line
        self._master: int | None = None
        self._slave: int | None = None
        self.tty: str | None = None
        self._line: deque[tuple[float, bytes]] = deque()
        self._line_release = 0.0
        self.line_bytes_lost = 0
        self.bytes_written = 0
        # the thread
        self._calls: queue.Queue[Callable[[], None]] = queue.Queue()
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        self._changed = threading.Condition()
        self._stopping = False
        self._thread: threading.Thread | None = None

    # -- life cycle -----------------------------------------------------------------------

    def _boot(self) -> ReliableEndpoint:
        self.boots += 1
        endpoint = ReliableEndpoint(
            Role.SHOE,
            new_session(),
            config=self.config,
            software=self.firmware,
            serial=self.serial,
            protocol=self.protocol,
        )
        endpoint.start(self.clock())
        return endpoint

    def start(self) -> SimShoe:
        """Open the pseudo-terminal and run the firmware."""
        if self._thread is not None:
            return self
        self._open_pty()
        self._thread = threading.Thread(target=self._run, name=f"simshoe-{self.serial}", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._thread is not None:
            self._stopping = True
            self._wake()
            self._thread.join(timeout=5)
            self._thread = None
        self._close_pty()
        for fd in (self._wake_r, self._wake_w):
            with contextlib.suppress(OSError):
                os.close(fd)
        self._wake_r = self._wake_w = -1

    def __enter__(self) -> SimShoe:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def path(self) -> str:
        """What the host opens: the stable link if there is one, else the pty itself."""
        if self.link is not None:
            return self.link
        if self.tty is None:
            raise RuntimeError("the simulated shoe is not started (or is unplugged)")
        return self.tty

    @property
    def session(self) -> int:
        return self.endpoint.session

    @property
    def connected(self) -> bool:
        return self.endpoint.state is LinkState.CONNECTED

    # -- the pseudo-terminal --------------------------------------------------------------

    def _open_pty(self) -> None:
        master, slave = os.openpty()
        tty.setraw(master)
        tty.setraw(slave)  # until pyserial opens it: no echo, no line editing, no CR/LF games
        os.set_blocking(master, False)
        self._master, self._slave = master, slave
        self.tty = os.ttyname(slave)
        # Keeping the slave open ourselves means the master never reads EIO while no host
        # has the port open: the firmware runs on, as a real shoe does with no host.
        if self.link is not None:
            tmp = f"{self.link}.tmp-{os.getpid()}"
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
            os.symlink(self.tty, tmp)
            os.replace(tmp, self.link)

    def _close_pty(self) -> None:
        if self.link is not None and os.path.islink(self.link):
            with contextlib.suppress(OSError):
                os.unlink(self.link)
        for fd in (self._master, self._slave):
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._master = self._slave = None
        self.tty = None
        self._line.clear()
        self._rx_buf.clear()

    # -- the thread -----------------------------------------------------------------------

    def _wake(self) -> None:
        with contextlib.suppress(OSError):
            os.write(self._wake_w, b"x")

    def _call(self, fn: Callable[[], T]) -> T:
        """Run ``fn`` in the simulator's thread (or here, if it is not running)."""
        if self._thread is None or threading.current_thread() is self._thread:
            result = fn()
            self._pump(self.clock(), b"")
            return result
        done = threading.Event()
        box: list[Any] = []

        def call() -> None:
            try:
                box.append((True, fn()))
            except BaseException as exc:  # handed back to the caller
                box.append((False, exc))
            done.set()

        self._calls.put(call)
        self._wake()
        if not done.wait(timeout=10):
            raise TimeoutError("the simulated shoe's thread did not answer")
        ok, value = box[0]
        if not ok:
            raise value
        return value  # type: ignore[no-any-return]

    def _run(self) -> None:
        while not self._stopping:
            now = self.clock()
            timeout = max(0.0, min(self.endpoint.next_deadline() - now, 0.5))
            if self._line:
                timeout = min(timeout, max(0.0, self._line[0][0] - now))
            fds = [self._wake_r] if self._master is None else [self._wake_r, self._master]
            try:
                ready, _, _ = select.select(fds, [], [], timeout)
            except (OSError, ValueError):
                ready = []
            data = b""
            if self._wake_r in ready:
                with contextlib.suppress(OSError):
                    os.read(self._wake_r, 4096)
            if self._master is not None and self._master in ready:
                try:
                    data = os.read(self._master, 4096)
                except (BlockingIOError, InterruptedError):
                    data = b""
                except OSError:
                    data = b""
            while True:
                try:
                    call = self._calls.get_nowait()
                except queue.Empty:
                    break
                call()
            self._pump(self.clock(), data)

    def _pump(self, now: float, data: bytes) -> None:
        if data and (self.faults.drop or self.faults.corrupt or self.faults.duplicate):
            pieces = []
            for frame in split_frames(self._rx_buf, data):
                pieces += [piece for _, piece in self._rx_faults.apply(frame)]
            data = b"".join(pieces)
        step = self.endpoint.step(now, data)
        for event in step.events:
            self._on_link_event(event, now)
        frames = step.frames
        if self._overflow_unreported and self.endpoint.queue_space >= 2 and self.connected:
            n, self._overflow_unreported = self._overflow_unreported, 0
            self._send(ShoeError(self._ms(now), ErrorCode.QUEUE_OVERFLOW, f"{n} reads dropped: queue full"))
            self._send(self._state(now))
        if step.events or self.endpoint.next_deadline() <= now:
            frames = frames + self.endpoint.step(now).frames
        self._to_line(now, frames)
        self._flush_line(now)
        with self._changed:
            self._changed.notify_all()

    def _to_line(self, now: float, frames: list[bytes]) -> None:
        if self._master is None:
            return  # unplugged: the bytes go nowhere
        faulty = self.faults.any
        for frame in frames:
            pieces = self._tx_faults.apply(frame) if faulty else [(0.0, frame)]
            for delay, piece in pieces:
                self._line_release = max(self._line_release, now + delay)
                self._line.append((self._line_release, piece))

    def _flush_line(self, now: float) -> None:
        while self._line and self._line[0][0] <= now and self._master is not None:
            release, data = self._line[0]
            before = self.clock()  # on_write gets the time just before the bytes went out
            try:
                written = os.write(self._master, data)
            except (BlockingIOError, InterruptedError):
                written = 0
            except OSError:
                self._line.clear()
                return
            if written:
                self.bytes_written += written
                if self.on_write is not None:
                    self.on_write(data[:written], before)
            if written < len(data):
                self._line[0] = (release, data[written:])
                break
            self._line.popleft()
        backlog = sum(len(d) for _, d in self._line)
        while backlog > MAX_LINE_BACKLOG and self._line:
            backlog -= len(self._line[0][1])
            self.line_bytes_lost += len(self._line.popleft()[1])

    def _note(self, now: float, kind: str, detail: str, message: Any = None) -> None:
        event = SimEvent(now, kind, detail, message)
        self.events.append(event)
        if self.on_event is not None:
            self.on_event(event)

    def _on_link_event(self, event: LinkEvent, now: float) -> None:
        if isinstance(event, Connected):
            how = "resumed" if event.resumed else "new host session"
            self._note(now, "connected", f"host connected ({how})")
            self._send(self._state(now))  # a shoe announces its state on connecting
        elif isinstance(event, LinkDown):
            self._note(now, "link_down", event.reason)
        elif isinstance(event, Incompatible):
            self._note(now, "incompatible", event.reason)
        elif isinstance(event, Delivered):
            message = event.message
            if isinstance(message, SetIndicator):
                self.indicator = message
                self.commands.append(message)
                blink = " blinking" if message.blink else ""
                buzz = f", buzzer {message.buzzer_ms} ms" if message.buzzer_ms else ""
                self._note(now, "command", f"LED {message.led.name.lower()}{blink}{buzz}", message)
            elif isinstance(message, RequestState):
                self.commands.append(message)
                self._note(now, "command", "state requested", message)
                self._send(self._state(now))

    # -- the firmware's actions (in the thread) -------------------------------------------

    def _ms(self, now: float) -> int:
        return int(now * 1000) & 0xFFFFFFFF

    def _state(self, now: float) -> ShoeState:
        return ShoeState(
            self._ms(now), self.lid_open, self.deck_present, self.jam, min(self.dropped_reads, 0xFFFF)
        )

    def _send(self, message: CardRead | ShoeState | ShoeError) -> bool:
        return self.endpoint.send(message, self.clock())

    def _read(self, tag: bytes, face: Face, antenna: int) -> int:
        now = self.clock()
        self.read_no += 1
        read = CardRead(self.read_no, tag, antenna, face, self._ms(now))
        if self._send(read):
            self._note(
                now, "dealt", f"read {self.read_no}: tag {tag.hex().upper() or '(none)'} {face.name}", read
            )
        else:
            self.dropped_reads += 1
            self._overflow_unreported += 1
            self._note(now, "dropped", f"read {self.read_no} dropped: the shoe's queue is full", read)
        return self.read_no

    # -- dealing (any thread) -------------------------------------------------------------

    def deal_tag(self, tag: bytes, face: Face = Face.BACK, antenna: int = 0) -> int:
        """A card with this tag leaves the shoe; returns the read number."""
        return self._call(lambda: self._read(bytes(tag), Face(face), antenna))

    def deal(self, card: int, face: Face = Face.BACK, *, deck: str | None = None, antenna: int = 0) -> int:
        """``card`` (0..51) of ``deck`` (default: this shoe's deck) leaves the shoe."""
        return self.deal_tag(tag_id(deck or self.deck, card), face, antenna)

    def boxed(self, card: int) -> int:
        """A card that was face up in the deck."""
        return self.deal(card, Face.FACE)

    def foreign(self, card: int, face: Face = Face.BACK) -> int:
        """A card from another deck (a different back): a tag the registry does not know."""
        return self.deal(card, face, deck=self.foreign_deck)

    def unreadable(self, face: Face = Face.BACK) -> int:
        """A card the optical sensor saw leave but whose tag the reader did not get."""
        return self.deal_tag(b"", face)

    def deal_cards(self, cards: Iterable[tuple[int, Face]]) -> list[int]:
        """Cards given by a test, in order."""
        return [self.deal(card, face) for card, face in cards]

    def shuffle(self) -> list[int]:
        """Put a freshly shuffled deck in the shoe; returns its order (the first card first)."""
        order = list(range(52))
        self.rng.shuffle(order)
        self._stack = list(reversed(order))
        return order

    def deal_next(self, face: Face = Face.BACK) -> int:
        """The next card of the shuffled deck (a new shuffle when it is empty); returns it."""
        if not self._stack:
            self.shuffle()
        card = self._stack.pop()
        self.deal(card, face)
        return card

    def deal_deck(self, pace: float = 0.0) -> list[int]:
        """Shuffle and deal the whole deck; returns the cards in the order dealt."""
        order = self.shuffle()
        for card in order:
            self._stack.pop()
            self.deal(card)
            if pace:
                time.sleep(pace)
        return order

    @property
    def cards_left(self) -> int:
        return len(self._stack)

    # -- the shoe's sensors and faults (any thread) ---------------------------------------

    def set_state(
        self, *, lid_open: bool | None = None, deck_present: bool | None = None, jam: bool | None = None
    ) -> None:
        def change() -> None:
            if lid_open is not None:
                self.lid_open = lid_open
            if deck_present is not None:
                self.deck_present = deck_present
            if jam is not None:
                self.jam = jam
            self._send(self._state(self.clock()))

        self._call(change)

    def report_error(self, code: int, text: str) -> None:
        self._call(lambda: self._send(ShoeError(self._ms(self.clock()), code, text)))

    def inject_garbage(self, data: bytes | None = None) -> None:
        """Bytes on the line that are no frame (random unless given)."""

        def inject() -> None:
            if self._master is not None:
                noise = data if data is not None else self._tx_faults.garbage(64)
                self._line_release = max(self._line_release, self.clock())
                self._line.append((self._line_release, noise))

        self._call(inject)

    def unplug(self) -> None:
        """Pull the cable: the pty closes (the host's reads fail) and the link disappears.
        The firmware runs on and keeps its reads for the host."""

        def pull() -> None:
            self._close_pty()
            self._note(self.clock(), "unplugged", "cable pulled")

        self._call(pull)

    def replug(self) -> None:
        """Plug the cable back: a new pty, the stable link pointed at it."""

        def plug() -> None:
            if self._master is None:
                self._open_pty()
                self._note(self.clock(), "replugged", f"cable back on {self.tty}")

        self._call(plug)

    def reboot(self) -> None:
        """A power cut: a new session, and the reads the host had not acknowledged are gone."""

        def power_cycle() -> None:
            lost = self.endpoint.pending
            self.endpoint = self._boot()
            self.read_no = 0
            self.dropped_reads = 0
            self._overflow_unreported = 0
            self._line.clear()
            self._note(self.clock(), "rebooted", f"power cut: {lost} unacknowledged messages lost")

        self._call(power_cycle)

    # -- waiting and looking (any thread) -------------------------------------------------

    def wait_idle(self, timeout: float = 10.0) -> bool:
        """Wait until the host has acknowledged everything the shoe sent."""
        return self.wait_for(lambda: self.connected and self.endpoint.pending == 0, timeout)

    def wait_connected(self, timeout: float = 10.0) -> bool:
        return self.wait_for(lambda: self.connected, timeout)

    def wait_for(self, predicate: Callable[[], bool], timeout: float = 10.0) -> bool:
        with self._changed:
            return self._changed.wait_for(predicate, timeout)

    def stats(self) -> dict[str, Any]:
        counts = {f"tx_{k}": v for k, v in vars(self._tx_faults.counts).items()}
        counts.update({f"rx_{k}": v for k, v in vars(self._rx_faults.counts).items()})
        return {
            "serial": self.serial,
            "session": f"{self.session:08x}",
            "state": self.endpoint.state.value,
            "tty": self.tty,
            "reads": self.read_no,
            "dropped_reads": self.dropped_reads,
            "pending": self.endpoint.pending,
            "boots": self.boots,
            "line_bytes_lost": self.line_bytes_lost,
            **self.endpoint.counters.as_dict(),
            **counts,
        }

    # -- the keyboard ---------------------------------------------------------------------

    HELP = """\
  <card> [up] [foreign]   deal a card, e.g. "{0}", "{1} up" (boxed), "{2} foreign" (another deck)
  next | <Enter>          the next card of the shuffled deck
  shuffle                 a new shuffled deck in the shoe
  unread [up]             a card whose tag the reader missed
  lid open|closed  deck in|out  jam on|off
  error CODE TEXT         the shoe reports an error
  faults drop=0.05,...    set the line faults (faults none: clear them)
  garbage                 random bytes on the line
  unplug | replug | reboot
  stats | help | quit"""

    def help(self) -> str:
        """:attr:`HELP` with cards written as :attr:`card_names` writes them."""
        return self.HELP.format(*self.card_names.examples())

    def command(self, line: str) -> str:
        """One keyboard command (see :attr:`HELP`); returns what to print."""
        card_str = self.card_names.show
        words = line.strip().split()
        if not words or words[0] == "next":
            card = self.deal_next()
            return f"dealt {card_str(card)} ({self.cards_left} left in the shoe)"
        verb, rest = words[0].lower(), [w.lower() for w in words[1:]]
        if verb in ("help", "?"):
            return self.help()
        if verb == "shuffle":
            self.shuffle()
            return "a new shuffled deck is in the shoe"
        if verb == "unread":
            n = self.unreadable(Face.FACE if "up" in rest else Face.BACK)
            return f"read {n}: a card with no tag read"
        if verb == "lid" and rest and rest[0] in ("open", "closed"):
            self.set_state(lid_open=rest[0] == "open")
            return f"lid {rest[0]}"
        if verb == "deck" and rest and rest[0] in ("in", "out"):
            self.set_state(deck_present=rest[0] == "in")
            return f"deck {rest[0]}"
        if verb == "jam" and rest and rest[0] in ("on", "off"):
            self.set_state(jam=rest[0] == "on")
            return f"jam {rest[0]}"
        if verb == "error" and rest:
            try:
                code = int(rest[0], 0)
            except ValueError:
                return "error CODE TEXT: CODE is a number, e.g. error 1 reader not answering"
            self.report_error(code, " ".join(words[2:]))
            return f"error {code} reported"
        if verb == "faults":
            text = " ".join(words[1:])
            try:
                new = Faults() if text in ("", "none", "off") else Faults.parse(text)
            except ValueError as exc:
                return str(exc)
            for name, value in vars(new).items():
                setattr(self.faults, name, value)
            return f"faults: {self.faults}"
        if verb == "garbage":
            self.inject_garbage()
            return "garbage on the line"
        if verb in ("unplug", "replug", "reboot"):
            getattr(self, verb)()
            return {"unplug": "unplugged", "replug": f"replugged on {self.tty}", "reboot": "rebooted"}[verb]
        if verb == "stats":
            return "  ".join(f"{k}={v}" for k, v in self.stats().items() if v)
        try:
            card = self.card_names.parse(words[0])
        except ValueError as exc:
            return f"{exc} (type help for the commands)"
        unknown = [w for w in rest if w not in ("up", "foreign")]
        if unknown:
            return f"{' '.join(unknown)}: after a card, only 'up' (boxed) and 'foreign' (another deck)"
        face = Face.FACE if "up" in rest else Face.BACK
        n = self.deal(card, face, deck=self.foreign_deck if "foreign" in rest else None)
        notes = [n for n, on in (("boxed", "up" in rest), ("from another deck", "foreign" in rest)) if on]
        return f"read {n}: {card_str(card)}" + (f" ({', '.join(notes)})" if notes else "")
