"""The dealer's button panel: gpiozero devices in, ``DealerInput`` events out (an adapter).

Built the gpiozero way, from small devices that each do one thing and can be used and
tested on their own with gpiozero's mock pin factory:

* :class:`DebouncedButton`: a ``gpiozero.Button`` with debouncing done here, on a clock
  that can be injected (gpiozero's ``bounce_time`` is not applied by its mock pins, and
  real contacts bounce), and an optional long press for buttons that could do harm;
* :class:`AmountEntry`: the amount being entered (pure: a number, a step, a callback);
  :class:`AmountKnob` (a ``gpiozero.RotaryEncoder``) or :class:`AmountButtons` (plus and
  minus) turn it;
* :class:`TurnLights`: one LED per seat, lit for the seat whose turn it is;
* :class:`AlertBuzzer`: a ``gpiozero.Buzzer`` playing a pattern per kind of alert;
* :class:`DealerPanel`: all of them from a :class:`PanelConfig`, sending each
  button's :class:`~tablectl.core.events.DealerInput` to a callback (``TableService.submit``).

The panel's configuration lives here, beside the devices (as gpiozero and Klipper keep it):
:class:`PanelConfig` (which pin each part is on, how the buttons behave) and
:data:`BUTTON_KEYS` (the buttons there may be, and the key each sends). The table file's
``[panel]`` section is read into one by :mod:`tablectl.service.tablefile`.

Debouncing: the first edge after a quiet period is taken at once (a press acts without
delay); edges within ``debounce`` seconds of an accepted one are contact bounce and are
ignored. If the bounce leaves the contact in the other state, the button catches up at the
next edge or :meth:`~DebouncedButton.poll`, dated when the contact actually changed.

Long press (``hold_time``): the button acts once it has been held that long, seen either
by :meth:`DealerPanel.poll` while it is still down (the service calls it every few tens of
milliseconds, or :meth:`DealerPanel.start` runs a small thread that does) or at its
release. A shorter press does nothing. Nothing here blocks: callbacks run in gpiozero's
thread and return at once; the buzzer plays on its own thread.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import TYPE_CHECKING, Any

from gpiozero import Button, Buzzer, LEDBoard, RotaryEncoder  # type: ignore[import-untyped]

from tablectl.core.effects import Effect, Ruling
from tablectl.core.events import DealerInput, DealerKey

if TYPE_CHECKING:
    from tablectl.core.table import TableState

log = logging.getLogger(__name__)

Clock = Callable[[], float]
Callback = Callable[[], None]
Pattern = tuple[tuple[float, float], ...]  # (seconds on, seconds off) per beep

ALERT_PATTERNS: dict[str, Pattern] = {
    "ok": ((0.04, 0.0),),  # a long press taken: let go
    "info": ((0.08, 0.0),),
    "correct": ((0.08, 0.08), (0.08, 0.0)),  # the dealer fixes something, the hand goes on
    "refused": ((0.4, 0.0),),  # the input made no sense now: look at the screen
    "misdeal": ((0.6, 0.2), (0.6, 0.2), (0.6, 0.0)),
    "void": ((0.6, 0.2), (0.15, 0.15), (0.6, 0.2), (0.15, 0.0)),
    "floor": ((0.1, 0.1),) * 5 + ((0.1, 0.0),),  # call the floor supervisor
    "device": ((0.05, 0.05),) * 3 + ((0.4, 0.0),),  # the shoe, a camera or the link is down
}


def alert_for(effects: Iterable[Effect]) -> str | None:
    """The alert for the most serious ruling among ``effects`` (its severity's name)."""
    severities = [e.severity for e in effects if isinstance(e, Ruling)]
    return min(severities, key=lambda s: s.rank).value if severities else None


def _call(callback: Callable[..., None] | None, *args: Any) -> None:
    """Call a user's callback from a pin's thread: an error is logged, never raised there."""
    if callback is None:
        return
    try:
        callback(*args)
    except Exception:
        log.exception("a panel callback failed")


class DebouncedButton:
    """A push button with software debounce and, if ``hold_time`` is given, a long press.

    ``when_pressed`` and ``when_released`` fire once per debounced press and release;
    ``when_held`` once per press held ``hold_time`` seconds (see the module's notes)."""

    def __init__(
        self,
        pin: int | str,
        *,
        debounce: float = 0.02,
        hold_time: float | None = None,
        pull_up: bool = True,
        clock: Clock = time.monotonic,
        pin_factory: Any = None,
    ) -> None:
        if debounce < 0:
            raise ValueError("debounce is seconds >= 0")
        if hold_time is not None and hold_time <= debounce:
            raise ValueError("hold_time must be longer than the debounce time")
        self.debounce = debounce
        self.hold_time = hold_time
        self.clock = clock
        self.when_pressed: Callback | None = None
        self.when_released: Callback | None = None
        self.when_held: Callback | None = None
        self._lock = threading.Lock()
        self._pressed = False  # the debounced state
        self._pressed_at = 0.0
        self._held_fired = False
        self._accepted_at: float | None = None  # the last accepted edge
        self._raw = False  # the contact as last reported
        self._raw_at = 0.0
        self.button = Button(pin, pull_up=pull_up, bounce_time=None, pin_factory=pin_factory)
        # gpiozero's own hold timing is not used (ours runs on ``clock``); a short hold_time
        # keeps the Button's idle hold thread quick to stop when the panel closes.
        self.button.hold_time = 0.01
        self._raw = bool(self.button.is_pressed)
        self.button.when_pressed = self._contact_closed
        self.button.when_released = self._contact_opened

    @property
    def is_pressed(self) -> bool:
        """The debounced state."""
        return self._pressed

    @property
    def pin(self) -> Any:
        return self.button.pin

    def _contact_closed(self) -> None:
        self._edge(True)

    def _contact_opened(self) -> None:
        self._edge(False)

    def _edge(self, closed: bool) -> None:
        now = self.clock()
        with self._lock:
            fire = self._settle(now)
            self._raw, self._raw_at = closed, now
            quiet = self._accepted_at is None or now - self._accepted_at >= self.debounce
            if quiet and closed != self._pressed:
                fire += self._change(closed, now)
        self._fire(fire)

    def poll(self) -> None:
        """Catch up with the contact and fire a long press that is due; cheap, never blocks."""
        now = self.clock()
        with self._lock:
            fire = self._settle(now)
            if (
                self._pressed
                and self.hold_time is not None
                and not self._held_fired
                and now - self._pressed_at >= self.hold_time
            ):
                self._held_fired = True
                fire.append(self.when_held)
        self._fire(fire)

    def _settle(self, now: float) -> list[Callback | None]:
        """Bounce that ended in the other state: take it, dated when the contact changed."""
        if self._raw == self._pressed or self._accepted_at is None:
            return []
        if now - self._accepted_at < self.debounce:
            return []
        return self._change(self._raw, max(self._raw_at, self._accepted_at))

    def _change(self, pressed: bool, at: float) -> list[Callback | None]:
        self._pressed = pressed
        self._accepted_at = at
        if pressed:
            self._pressed_at = at
            self._held_fired = False
            return [self.when_pressed]
        fire: list[Callback | None] = []
        if self.hold_time is not None and not self._held_fired and at - self._pressed_at >= self.hold_time:
            self._held_fired = True
            fire.append(self.when_held)
        fire.append(self.when_released)
        return fire

    @staticmethod
    def _fire(callbacks: list[Callback | None]) -> None:
        for callback in callbacks:
            _call(callback)

    def begin_close(self) -> None:
        """Ask the Button's hold thread to stop, so that closing many buttons is quick."""
        thread = getattr(self.button, "_hold_thread", None)
        stopping = getattr(thread, "stopping", None)
        if isinstance(stopping, threading.Event):
            stopping.set()

    def close(self) -> None:
        self.when_pressed = self.when_released = self.when_held = None
        self.begin_close()
        self.button.close()


class AmountEntry:
    """The amount the dealer is entering: steps up and down, never below 0 or above ``maximum``.

    ``on_change(amount)`` is called after every change (the dealer's display shows it)."""

    def __init__(
        self, step: int, on_change: Callable[[int], None] | None = None, maximum: int | None = None
    ) -> None:
        if step <= 0:
            raise ValueError("the amount step is whole chips > 0")
        self.step = step
        self.maximum = maximum
        self.on_change = on_change
        self._amount = 0
        self._lock = threading.Lock()

    @property
    def amount(self) -> int:
        return self._amount

    def set(self, amount: int) -> int:
        amount = max(0, amount if self.maximum is None else min(amount, self.maximum))
        with self._lock:
            changed = amount != self._amount
            self._amount = amount
        if changed:
            _call(self.on_change, amount)
        return amount

    def up(self, steps: int = 1) -> int:
        return self.set(self._amount + steps * self.step)

    def down(self, steps: int = 1) -> int:
        return self.set(self._amount - steps * self.step)

    def clear(self) -> int:
        return self.set(0)


class AmountKnob:
    """A rotary encoder turning an :class:`AmountEntry`: one step per detent (swap the pins
    to reverse the direction). The quadrature decoding ignores contact bounce by itself."""

    def __init__(self, a: int | str, b: int | str, entry: AmountEntry, *, pin_factory: Any = None) -> None:
        self.entry = entry
        self.encoder = RotaryEncoder(a, b, max_steps=0, pin_factory=pin_factory)
        self.encoder.when_rotated_clockwise = self._clockwise
        self.encoder.when_rotated_counter_clockwise = self._counter_clockwise

    def _clockwise(self) -> None:
        self.entry.up()

    def _counter_clockwise(self) -> None:
        self.entry.down()

    def poll(self) -> None:
        pass

    def close(self) -> None:
        self.encoder.close()


class AmountButtons:
    """Plus and minus buttons turning an :class:`AmountEntry`."""

    def __init__(
        self,
        plus: int | str,
        minus: int | str,
        entry: AmountEntry,
        *,
        debounce: float = 0.02,
        pull_up: bool = True,
        clock: Clock = time.monotonic,
        pin_factory: Any = None,
    ) -> None:
        self.entry = entry
        options: dict[str, Any] = {"debounce": debounce, "pull_up": pull_up, "clock": clock}
        self.plus = DebouncedButton(plus, pin_factory=pin_factory, **options)
        try:
            self.minus = DebouncedButton(minus, pin_factory=pin_factory, **options)
        except BaseException:
            self.plus.close()
            raise
        self.plus.when_pressed = self._up
        self.minus.when_pressed = self._down

    def _up(self) -> None:
        self.entry.up()

    def _down(self) -> None:
        self.entry.down()

    def poll(self) -> None:
        self.plus.poll()
        self.minus.poll()

    def close(self) -> None:
        self.plus.close()
        self.minus.close()


class TurnLights:
    """One LED per seat (seat 1 first); :meth:`show_turn` lights the seat to act."""

    def __init__(self, pins: Sequence[int | str], *, pin_factory: Any = None) -> None:
        if not pins:
            raise ValueError("give one LED pin per seat")
        self.leds = LEDBoard(*pins, pin_factory=pin_factory)
        self.seats = len(pins)
        self.seat: int | None = None

    def show_turn(self, seat: int | None) -> None:
        """Light ``seat``'s LED only; None: all off (no one to act)."""
        if seat is not None and not 1 <= seat <= self.seats:
            raise ValueError(f"there is no seat {seat}: the panel has LEDs for seats 1 to {self.seats}")
        self.leds.value = tuple(1 if n == seat else 0 for n in range(1, self.seats + 1))
        self.seat = seat

    def close(self) -> None:
        self.leds.close()


class AlertBuzzer:
    """A buzzer that plays a pattern per kind of alert (:data:`ALERT_PATTERNS`) on its own
    thread; a new alert cuts the one playing short. ``sleep(seconds)`` can be injected
    (tests); by default the waits are interrupted as soon as a new alert starts."""

    def __init__(
        self,
        pin: int | str,
        *,
        patterns: Mapping[str, Pattern] | None = None,
        sleep: Callable[[float], None] | None = None,
        pin_factory: Any = None,
    ) -> None:
        self.patterns = dict(ALERT_PATTERNS if patterns is None else patterns)
        self.buzzer = Buzzer(pin, pin_factory=pin_factory)
        self._sleep = sleep
        self._lock = threading.Lock()
        self._generation = 0
        self._stop = threading.Event()
        self._done = threading.Event()
        self._done.set()
        self.last: str | None = None

    def alert(self, kind: str) -> None:
        """Start ``kind``'s pattern and return at once."""
        pattern = self.patterns.get(kind)
        if pattern is None:
            raise ValueError(f"no alert {kind!r}; alerts: {', '.join(self.patterns)}")
        with self._lock:
            self._generation += 1
            generation = self._generation
            self._stop.set()  # the pattern playing stops at its next wait
            self._stop = stop = threading.Event()
            self._done = done = threading.Event()
            self.buzzer.off()
            self.last = kind
        thread = threading.Thread(
            target=self._play, args=(generation, pattern, stop, done), name=f"buzzer-{kind}", daemon=True
        )
        thread.start()

    def _play(self, generation: int, pattern: Pattern, stop: threading.Event, done: threading.Event) -> None:
        try:
            for on, off in pattern:
                if not self._switch(generation, True):
                    return
                self._wait(on, stop)
                if not self._switch(generation, False):
                    return
                if off:
                    self._wait(off, stop)
        except Exception:
            log.exception("the buzzer failed")
        finally:
            done.set()

    def _switch(self, generation: int, on: bool) -> bool:
        with self._lock:
            if generation != self._generation or self.buzzer.closed:
                return False  # a newer alert owns the buzzer
            if on:
                self.buzzer.on()
            else:
                self.buzzer.off()
            return True

    def _wait(self, seconds: float, stop: threading.Event) -> None:
        if self._sleep is not None:
            self._sleep(seconds)
        else:
            stop.wait(seconds)

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until the pattern playing has finished (tests, shutdown); False on timeout."""
        return self._done.wait(timeout)

    def close(self) -> None:
        with self._lock:
            self._generation += 1
            self._stop.set()
            self.buzzer.close()


# -- the panel's configuration (the table file's [panel] section builds it) ------------

# The buttons a panel may have, and the key each one sends.
BUTTON_KEYS: dict[str, DealerKey] = {
    "fold": DealerKey.FOLD,
    "check_call": DealerKey.CALL,  # one button for both: a call with nothing to call is a check
    "check": DealerKey.CHECK,  # or two separate buttons
    "call": DealerKey.CALL,
    "bet": DealerKey.BET,  # bet or raise to the amount entered
    "all_in": DealerKey.ALL_IN,
    "confirm": DealerKey.CONFIRM,
    "new_hand": DealerKey.NEW_HAND,
    "misdeal": DealerKey.MISDEAL,
    "exposed": DealerKey.CARD_FLASHED,
    "discard": DealerKey.DISCARD,  # draw games: the seat drawing throws the amount entered, in cards
}


@dataclass(frozen=True, slots=True)
class PanelConfig:
    """The dealer's panel: which GPIO pin each part is on, and how the buttons behave."""

    buttons: Mapping[str, int]  # button name (BUTTON_KEYS) -> BCM pin
    seat_leds: tuple[int, ...] = ()  # index 0 is seat 1
    encoder: tuple[int, int] | None = None  # (a, b) of a rotary encoder for the amount
    plus_minus: tuple[int, int] | None = None  # or (plus, minus) buttons
    buzzer: int | None = None
    pull_up: bool = True  # buttons connect the pin to ground when pressed
    debounce: float = 0.02  # seconds: edges this soon after an accepted one are contact bounce
    hold_time: float = 1.5  # seconds a guarded button must be held
    hold_buttons: frozenset[str] = frozenset({"misdeal", "new_hand"})
    amount_step: int = 25  # chips per encoder detent or +/- press


class DealerPanel:
    """The dealer's panel described by ``config``, sending :class:`DealerInput` to ``on_input``.

    * ``seat_provider()`` gives the seat a betting key or the exposed-card key applies to
      (the controller knows whose turn it is); by default the seat last given to
      :meth:`show_turn`, which is the seat whose LED the dealer sees lit;
    * ``cause_provider(key)`` gives the ``cause`` of a misdeal (an MD letter, e.g. ``"a"``)
      or of an exposed card (``"dealer"``, ``"player"``, ``"off_table"``; default ``"dealer"``);
    * ``on_amount(amount)`` is called whenever the amount entered changes (the display);
    * ``clock`` (monotonic seconds) times debounce and long presses; ``timestamp`` (epoch
      seconds) stamps the events; ``sleep`` is the buzzer's (all three for tests).

    A bet sends the amount entered (None if nothing was entered: the controller asks for
    one) and clears it.
    """

    def __init__(
        self,
        config: PanelConfig,
        on_input: Callable[[DealerInput], None],
        seat_provider: Callable[[], int | None] | None = None,
        *,
        on_amount: Callable[[int], None] | None = None,
        cause_provider: Callable[[DealerKey], str | None] | None = None,
        clock: Clock = time.monotonic,
        timestamp: Clock = time.time,
        sleep: Callable[[float], None] | None = None,
        pin_factory: Any = None,
    ) -> None:
        self.config = config
        self.on_input = on_input
        self.seat_provider = seat_provider
        self.cause_provider = cause_provider
        self.clock = clock
        self.timestamp = timestamp
        self.buttons: dict[str, DebouncedButton] = {}
        self.amount_entry = AmountEntry(config.amount_step, on_amount)
        self.amount_input: AmountKnob | AmountButtons | None = None
        self.lights: TurnLights | None = None
        self.buzzer: AlertBuzzer | None = None
        self._ticker: threading.Thread | None = None
        self._stop = threading.Event()
        self._input_stopped = False
        self._turn: int | None = None
        try:
            for name, pin in config.buttons.items():
                hold = config.hold_time if name in config.hold_buttons else None
                button = DebouncedButton(
                    pin,
                    debounce=config.debounce,
                    hold_time=hold,
                    pull_up=config.pull_up,
                    clock=clock,
                    pin_factory=pin_factory,
                )
                self.buttons[name] = button
                key = BUTTON_KEYS[name]
                if hold is None:
                    button.when_pressed = self._sender(key)
                else:
                    button.when_held = self._sender(key, confirm_beep=True)
            if config.encoder is not None:
                self.amount_input = AmountKnob(*config.encoder, self.amount_entry, pin_factory=pin_factory)
            elif config.plus_minus is not None:
                self.amount_input = AmountButtons(
                    *config.plus_minus,
                    self.amount_entry,
                    debounce=config.debounce,
                    pull_up=config.pull_up,
                    clock=clock,
                    pin_factory=pin_factory,
                )
            if config.seat_leds:
                self.lights = TurnLights(config.seat_leds, pin_factory=pin_factory)
            if config.buzzer is not None:
                self.buzzer = AlertBuzzer(config.buzzer, sleep=sleep, pin_factory=pin_factory)
        except BaseException:
            self.close()
            raise

    # -- input ------------------------------------------------------------------------------

    @property
    def amount(self) -> int:
        return self.amount_entry.amount

    def _sender(self, key: DealerKey, confirm_beep: bool = False) -> Callback:
        def send() -> None:
            if self._input_stopped:
                return  # shutting down: a press now would not be handled
            if confirm_beep and self.buzzer is not None:
                self.buzzer.alert("ok")
            self.on_input(self.input_for(key))

        return send

    def input_for(self, key: DealerKey) -> DealerInput:
        """The event a press of ``key``'s button sends now."""
        seat: int | None = None
        amount: int | None = None
        cause: str | None = None
        if key in (
            DealerKey.FOLD,
            DealerKey.CHECK,
            DealerKey.CALL,
            DealerKey.BET,
            DealerKey.ALL_IN,
            DealerKey.CARD_FLASHED,
            DealerKey.DISCARD,
        ):
            seat = self.seat_provider() if self.seat_provider is not None else self.turn
        if key is DealerKey.BET:
            amount = self.amount_entry.amount or None
            self.amount_entry.clear()
        if key is DealerKey.DISCARD:
            # The count of cards, from the same entry as a bet's amount (nothing entered: pat).
            amount = self.amount_entry.amount
            self.amount_entry.clear()
        if key in (DealerKey.MISDEAL, DealerKey.CARD_FLASHED):
            cause = self.cause_provider(key) if self.cause_provider is not None else None
            if cause is None and key is DealerKey.CARD_FLASHED:
                cause = "dealer"
        return DealerInput(key, seat=seat, amount=amount, cause=cause, at=self.timestamp())

    def poll(self) -> None:
        """Fire long presses that are due and catch up with bounced contacts."""
        for button in list(self.buttons.values()):
            button.poll()
        if self.amount_input is not None:
            self.amount_input.poll()

    def start(self, interval: float = 0.02) -> None:
        """Poll on a small daemon thread (long presses act while still held)."""
        if self._ticker is not None:
            return

        def tick() -> None:
            while not self._stop.wait(interval):
                try:
                    self.poll()
                except Exception:
                    log.exception("panel poll failed")

        self._ticker = threading.Thread(target=tick, name="panel-poll", daemon=True)
        self._ticker.start()

    # -- output -----------------------------------------------------------------------------

    @property
    def turn(self) -> int | None:
        return self.lights.seat if self.lights is not None else self._turn

    def show_turn(self, seat: int | None) -> None:
        """Light the LED of the seat to act (None: all off)."""
        if self.lights is not None:
            self.lights.show_turn(seat)
        else:
            self._turn = seat

    def alert(self, kind: str) -> None:
        """Sound ``kind``'s pattern (see :data:`ALERT_PATTERNS`); silent without a buzzer."""
        if self.buzzer is not None:
            self.buzzer.alert(kind)

    def follow(self, state: TableState, effects: tuple[Effect, ...]) -> None:
        """A ``TableService`` sink: light the seat to act, sound the effects' alert."""
        hand = state.hand
        seat: int | None = None
        if hand is not None and hand.game.actor is not None:
            seat = hand.seat(hand.game.actor)
        self.show_turn(seat)
        kind = alert_for(effects)
        if kind is not None:
            self.alert(kind)

    # -- life -------------------------------------------------------------------------------

    def stop_input(self) -> None:
        """Send no more input (a shutdown's first step); the lights and the buzzer keep following
        the table until :meth:`close`."""
        self._input_stopped = True
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join(1.0)

    def close(self) -> None:
        self.stop_input()
        buttons = list(self.buttons.values())
        if isinstance(self.amount_input, AmountButtons):
            buttons += [self.amount_input.plus, self.amount_input.minus]
        for button in buttons:
            button.begin_close()
        devices: list[Any] = [*self.buttons.values(), self.amount_input, self.lights, self.buzzer]
        for device in devices:
            if device is not None:
                device.close()

    def __enter__(self) -> DealerPanel:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
