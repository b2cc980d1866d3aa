"""The dealer's panel on gpiozero's mock pins: buttons to DealerInput, debounce on an injected
clock, long presses, the amount entry, the seat LEDs and the buzzer."""

from __future__ import annotations

import random
import threading
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory

from tablectl.adapters.panel import (
    ALERT_PATTERNS,
    AlertBuzzer,
    AmountEntry,
    DealerPanel,
    DebouncedButton,
    PanelConfig,
    alert_for,
)
from tablectl.core.effects import Prompt, Ruling, Severity
from tablectl.core.events import DealerInput, DealerKey
from tablectl.core.table import TableConfig, step
from tablectl.sim.dealer import SimDealer, seated_table

PINS = {
    "fold": 2,
    "check_call": 3,
    "bet": 4,
    "all_in": 5,
    "confirm": 6,
    "new_hand": 7,
    "misdeal": 8,
    "exposed": 9,
}
LEDS = (10, 11, 12, 13, 14, 15)
ENCODER = (16, 17)
BUZZER = 18
CONFIG = PanelConfig(
    buttons=PINS,
    seat_leds=LEDS,
    encoder=ENCODER,
    buzzer=BUZZER,
    debounce=0.02,
    hold_time=1.5,
    amount_step=25,
)
EPOCH = 1_800_000_000.0


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def factory(pins: MockFactory) -> MockFactory:
    return pins


class Rig:
    """A panel on mock pins with a fake clock, recording what it sends."""

    def __init__(self, factory: MockFactory, config: PanelConfig = CONFIG, **kwargs: Any) -> None:
        self.factory = factory
        self.clock = FakeClock()
        self.sent: list[DealerInput] = []
        self.amounts: list[int] = []
        self.sleeps: list[float] = []
        self.seat: int | None = 3
        options: dict[str, Any] = {
            "on_amount": self.amounts.append,
            "clock": self.clock,
            "timestamp": lambda: EPOCH + self.clock.now,
            "sleep": self.sleeps.append,
        }
        options.update(kwargs)
        seat_provider = options.pop("seat_provider", lambda: self.seat)
        self.panel = DealerPanel(config, self.sent.append, seat_provider, **options)

    def pin(self, number: int) -> Any:
        return self.factory.pin(number)

    def press(self, name: str, hold: float = 0.1, pins: dict[str, int] = PINS) -> None:
        pin = self.pin(pins[name])
        pin.drive_low()
        self.clock.advance(hold)
        pin.drive_high()
        self.clock.advance(0.5)

    def bounce(self, number: int, edges: int, closed: bool) -> None:
        """Contact bounce: ``edges`` alternating edges 1 ms apart, ending ``closed``."""
        assert edges % 2 == 1  # an odd number of edges ends where the first one went
        pin = self.pin(number)
        first = [pin.drive_low, pin.drive_high] if closed else [pin.drive_high, pin.drive_low]
        for i in range(edges):
            first[i % 2]()
            self.clock.advance(0.001)

    def turn(self, clicks: int) -> None:
        a, b = (self.pin(p) for p in ENCODER)
        for _ in range(abs(clicks)):
            first, second = (a, b) if clicks > 0 else (b, a)
            first.drive_low()
            second.drive_low()
            first.drive_high()
            second.drive_high()


@pytest.fixture
def rig(factory: MockFactory) -> Iterator[Rig]:
    made = Rig(factory)
    try:
        yield made
    finally:
        made.panel.close()


# -- buttons ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("fold", DealerInput(DealerKey.FOLD, seat=3)),
        ("check_call", DealerInput(DealerKey.CALL, seat=3)),
        ("all_in", DealerInput(DealerKey.ALL_IN, seat=3)),
        ("confirm", DealerInput(DealerKey.CONFIRM)),
        ("exposed", DealerInput(DealerKey.CARD_FLASHED, seat=3, cause="dealer")),
        ("bet", DealerInput(DealerKey.BET, seat=3, amount=None)),
    ],
)
def test_each_button_sends_its_key(rig: Rig, name: str, expected: DealerInput) -> None:
    pressed_at = rig.clock.now
    rig.press(name)
    assert len(rig.sent) == 1
    event = rig.sent[0]
    assert event.at == EPOCH + pressed_at  # stamped when pressed, not when released
    assert event == DealerInput(expected.key, expected.seat, expected.amount, expected.cause, at=event.at)


@pytest.mark.parametrize(("name", "key"), [("misdeal", DealerKey.MISDEAL), ("new_hand", DealerKey.NEW_HAND)])
def test_guarded_buttons_send_their_key_after_a_long_press(rig: Rig, name: str, key: DealerKey) -> None:
    rig.press(name, hold=1.6)
    assert [e.key for e in rig.sent] == [key]
    assert rig.sent[0].seat is None


def test_separate_check_and_call_buttons(factory: MockFactory) -> None:
    pins = {**{k: v for k, v in PINS.items() if k != "check_call"}, "check": 3, "call": 19}
    rig = Rig(factory, PanelConfig(buttons=pins, seat_leds=LEDS, encoder=ENCODER))
    try:
        rig.press("check", pins=pins)
        rig.press("call", pins=pins)
        assert [e.key for e in rig.sent] == [DealerKey.CHECK, DealerKey.CALL]
    finally:
        rig.panel.close()


def test_the_seat_is_asked_at_each_press(rig: Rig) -> None:
    rig.press("fold")
    rig.seat = 5
    rig.press("fold")
    rig.seat = None
    rig.press("fold")  # the controller says nobody is to act: it will refuse, not the panel
    assert [e.seat for e in rig.sent] == [3, 5, None]


def test_without_a_seat_provider_the_seat_is_the_one_lit(factory: MockFactory) -> None:
    rig = Rig(factory, seat_provider=None)
    try:
        rig.panel.show_turn(4)
        rig.press("all_in")
        assert rig.sent[-1].seat == 4
    finally:
        rig.panel.close()


def test_the_cause_of_a_misdeal_and_of_an_exposed_card(factory: MockFactory) -> None:
    causes = {DealerKey.MISDEAL: "a", DealerKey.CARD_FLASHED: "player"}
    rig = Rig(factory, cause_provider=causes.get)
    try:
        rig.press("misdeal", hold=2.0)
        rig.press("exposed")
        assert [(e.key, e.cause) for e in rig.sent] == [
            (DealerKey.MISDEAL, "a"),
            (DealerKey.CARD_FLASHED, "player"),
        ]
    finally:
        rig.panel.close()


def test_a_failing_receiver_does_not_break_the_panel(factory: MockFactory, caplog: Any) -> None:
    calls: list[DealerInput] = []

    def broken(event: DealerInput) -> None:
        calls.append(event)
        raise RuntimeError("service gone")

    clock = FakeClock()
    panel = DealerPanel(CONFIG, broken, lambda: 1, clock=clock)
    try:
        for _ in range(2):
            factory.pin(PINS["fold"]).drive_low()
            clock.advance(0.1)
            factory.pin(PINS["fold"]).drive_high()
            clock.advance(0.1)
        assert len(calls) == 2
        assert "a panel callback failed" in caplog.text
    finally:
        panel.close()


# -- debounce ------------------------------------------------------------------------------------


def test_a_bouncing_press_and_release_are_one_press(rig: Rig) -> None:
    rig.bounce(PINS["fold"], edges=7, closed=True)
    rig.clock.advance(0.2)
    rig.bounce(PINS["fold"], edges=5, closed=False)
    rig.clock.advance(0.5)
    assert [e.key for e in rig.sent] == [DealerKey.FOLD]
    rig.bounce(PINS["fold"], edges=3, closed=True)  # the next press counts again
    assert [e.key for e in rig.sent] == [DealerKey.FOLD, DealerKey.FOLD]


def test_edges_apart_by_more_than_the_debounce_time_are_presses(rig: Rig) -> None:
    for _ in range(3):
        rig.press("confirm", hold=0.03)
    assert len(rig.sent) == 3


def test_a_bounce_that_ends_open_is_caught_up_dated_when_the_contact_opened(factory: MockFactory) -> None:
    clock = FakeClock()
    button = DebouncedButton(20, debounce=0.02, hold_time=1.0, clock=clock)
    seen: list[tuple[str, float]] = []
    button.when_pressed = lambda: seen.append(("pressed", clock.now))
    button.when_released = lambda: seen.append(("released", clock.now))
    button.when_held = lambda: seen.append(("held", clock.now))
    try:
        pin = factory.pin(20)
        pin.drive_low()  # a glitch: closed...
        clock.advance(0.005)
        pin.drive_high()  # ...and open again inside the debounce time
        assert button.is_pressed
        clock.advance(3.0)  # nothing happens for a long time
        button.poll()  # the button catches up: released, and never held
        assert seen == [("pressed", 100.0), ("released", 103.005)]
        assert not button.is_pressed
    finally:
        button.close()


def test_a_lost_release_never_becomes_a_long_press(rig: Rig) -> None:
    pin = rig.pin(PINS["misdeal"])
    pin.drive_low()
    rig.clock.advance(0.005)
    pin.drive_high()  # inside the debounce time: ignored for now
    rig.clock.advance(3.0)
    pin.drive_low()  # the next press, three seconds later, held briefly
    rig.clock.advance(0.2)
    pin.drive_high()
    rig.clock.advance(0.5)
    rig.panel.poll()
    assert rig.sent == []


# -- long press ----------------------------------------------------------------------------------


def test_a_short_press_on_misdeal_does_nothing(rig: Rig) -> None:
    rig.press("misdeal", hold=0.5)
    rig.panel.poll()
    rig.press("misdeal", hold=1.49)
    assert rig.sent == []


def test_a_long_press_acts_while_held_and_only_once(rig: Rig) -> None:
    pin = rig.pin(PINS["misdeal"])
    pin.drive_low()
    rig.clock.advance(1.0)
    rig.panel.poll()
    assert rig.sent == []
    rig.clock.advance(0.6)
    rig.panel.poll()
    assert [e.key for e in rig.sent] == [DealerKey.MISDEAL]
    assert rig.panel.buzzer is not None and rig.panel.buzzer.last == "ok"  # the chirp: let go
    rig.clock.advance(2.0)
    rig.panel.poll()
    pin.drive_high()
    assert len(rig.sent) == 1


def test_a_bouncing_long_press_is_one_misdeal(rig: Rig) -> None:
    rig.bounce(PINS["misdeal"], edges=9, closed=True)
    rig.clock.advance(1.6)
    rig.bounce(PINS["misdeal"], edges=9, closed=False)
    rig.clock.advance(1.0)
    rig.panel.poll()
    assert [e.key for e in rig.sent] == [DealerKey.MISDEAL]


def test_the_poll_thread_acts_on_a_long_press_while_held(factory: MockFactory) -> None:
    done = threading.Event()
    sent: list[DealerInput] = []

    def receive(event: DealerInput) -> None:
        sent.append(event)
        done.set()

    clock = FakeClock()
    panel = DealerPanel(CONFIG, receive, lambda: None, clock=clock, sleep=lambda s: None)
    try:
        factory.pin(PINS["new_hand"]).drive_low()
        panel.start(interval=0.005)
        assert not done.wait(0.05)  # held, but not long enough yet
        clock.advance(1.5)
        assert done.wait(5.0)
        assert [e.key for e in sent] == [DealerKey.NEW_HAND]
    finally:
        panel.close()


# -- the amount ----------------------------------------------------------------------------------


def test_the_encoder_sets_the_amount_and_a_bet_sends_it(rig: Rig) -> None:
    rig.turn(4)
    rig.turn(-1)
    assert rig.panel.amount == 75
    assert rig.amounts == [25, 50, 75, 100, 75]
    rig.press("bet")
    assert rig.sent[-1] == DealerInput(DealerKey.BET, seat=3, amount=75, at=rig.sent[-1].at)
    assert rig.panel.amount == 0 and rig.amounts[-1] == 0  # cleared for the next bet


def test_the_amount_never_goes_below_zero(rig: Rig) -> None:
    rig.turn(-3)
    assert rig.panel.amount == 0 and rig.amounts == []


def test_a_jiggling_encoder_does_not_step(rig: Rig) -> None:
    a, b = (rig.pin(p) for p in ENCODER)
    for _ in range(5):  # contact chatter on A alone, the knob between detents
        a.drive_low()
        a.drive_high()
    assert rig.panel.amount == 0
    rig.turn(1)
    assert rig.panel.amount == 25


def test_plus_and_minus_buttons_set_the_amount(factory: MockFactory) -> None:
    config = PanelConfig(buttons=PINS, seat_leds=LEDS, plus_minus=(16, 17), amount_step=100)
    rig = Rig(factory, config)
    plus = {"plus": 16, "minus": 17}
    try:
        rig.press("plus", pins=plus)
        rig.bounce(16, edges=5, closed=True)  # one bouncing press: one step
        rig.clock.advance(0.2)
        rig.pin(16).drive_high()
        rig.clock.advance(0.2)
        rig.press("plus", pins=plus)
        rig.press("minus", pins=plus)
        assert rig.panel.amount == 200
        assert rig.amounts == [100, 200, 300, 200]
    finally:
        rig.panel.close()


def test_an_amount_entry_has_a_ceiling() -> None:
    seen: list[int] = []
    entry = AmountEntry(50, seen.append, maximum=120)
    entry.up(5)
    assert entry.amount == 120 and seen == [120]
    entry.up()
    assert seen == [120]  # no change, no call
    with pytest.raises(ValueError, match="whole chips > 0"):
        AmountEntry(0)


# -- the seat LEDs -------------------------------------------------------------------------------


def led_states(rig: Rig) -> list[bool]:
    return [bool(rig.pin(p).state) for p in LEDS]


def test_the_seat_leds_follow_show_turn(rig: Rig) -> None:
    assert led_states(rig) == [False] * 6
    rig.panel.show_turn(2)
    assert led_states(rig) == [False, True, False, False, False, False]
    rig.panel.show_turn(6)
    assert led_states(rig) == [False, False, False, False, False, True]
    rig.panel.show_turn(None)
    assert led_states(rig) == [False] * 6
    with pytest.raises(ValueError, match="no seat 7: the panel has LEDs for seats 1 to 6"):
        rig.panel.show_turn(7)


def test_follow_lights_the_seat_to_act_and_sounds_the_ruling(rig: Rig) -> None:
    game = SimpleNamespace(actor=1)
    state = SimpleNamespace(hand=SimpleNamespace(game=game, seat=lambda position: position + 4))
    rig.panel.follow(state, (Ruling("MD-a", "Misdeal", Severity.MISDEAL, True), Prompt("Confirm")))  # type: ignore[arg-type]
    assert led_states(rig) == [False, False, False, False, True, False]
    assert rig.panel.buzzer is not None and rig.panel.buzzer.wait(5.0)
    assert rig.panel.buzzer.last == "misdeal"
    rig.panel.follow(SimpleNamespace(hand=None), ())  # type: ignore[arg-type]
    assert led_states(rig) == [False] * 6


def test_follow_is_a_service_sink_for_the_real_table(rig: Rig) -> None:
    state = seated_table(TableConfig(seats=6), 4)
    sim = SimDealer(random.Random(7))
    while state.hand is None or state.hand.game.actor is None:
        state, effects = step(state, sim.next_event(state))
    rig.panel.follow(state, effects)
    to_act = state.hand.seat(state.hand.game.actor)
    assert led_states(rig) == [seat == to_act for seat in range(1, 7)]


def test_the_alert_for_effects_is_the_most_serious_ruling() -> None:
    info = Ruling("IRR-7", "plays", Severity.INFO)
    void = Ruling("IRR-1", "void", Severity.VOID)
    refused = Ruling("INPUT", "no", Severity.REFUSED)
    assert alert_for([info, void, refused]) == "void"
    assert alert_for([info, refused]) == "refused"
    assert alert_for([Prompt("Deal seat 3")]) is None
    assert {s.value for s in Severity} <= set(ALERT_PATTERNS)


# -- the buzzer ----------------------------------------------------------------------------------


def on_off(rig: Rig) -> list[bool]:
    return [bool(s.state) for s in rig.pin(BUZZER).states]


@pytest.mark.parametrize("kind", sorted(ALERT_PATTERNS))
def test_each_alert_plays_its_pattern(rig: Rig, kind: str) -> None:
    rig.pin(BUZZER).clear_states()
    rig.panel.alert(kind)
    assert rig.panel.buzzer is not None and rig.panel.buzzer.wait(5.0)
    pattern = ALERT_PATTERNS[kind]
    assert on_off(rig) == [False] + [True, False] * len(pattern)
    assert rig.sleeps == [s for on, off in pattern for s in (on, off) if s]


def test_patterns_are_told_apart() -> None:
    assert len(set(ALERT_PATTERNS.values())) == len(ALERT_PATTERNS)


def test_an_unknown_alert_is_refused(rig: Rig) -> None:
    with pytest.raises(ValueError, match="no alert 'fire'; alerts: ok, info"):
        rig.panel.alert("fire")


def test_a_new_alert_cuts_the_one_playing_short(factory: MockFactory) -> None:
    started = threading.Event()
    gate = threading.Event()
    waits: list[float] = []

    def sleep(seconds: float) -> None:
        waits.append(seconds)
        if len(waits) == 1:
            started.set()
            assert gate.wait(5.0)

    buzzer = AlertBuzzer(BUZZER, sleep=sleep)
    try:
        pin = factory.pin(BUZZER)
        buzzer.alert("misdeal")
        assert started.wait(5.0)  # the misdeal's first beep is sounding
        assert pin.state
        buzzer.alert("ok")  # the new alert owns the buzzer from here
        assert buzzer.wait(5.0)
        gate.set()  # the misdeal's thread wakes up, sees it lost the buzzer, and stops
        assert buzzer.last == "ok"
        assert waits[1:] == [0.04]
        assert not pin.state
    finally:
        gate.set()
        buzzer.close()


def test_a_panel_without_a_buzzer_is_silent(factory: MockFactory) -> None:
    config = PanelConfig(buttons=PINS, seat_leds=LEDS, encoder=ENCODER)
    rig = Rig(factory, config)
    try:
        rig.panel.alert("misdeal")
        rig.press("new_hand", hold=2.0)
        assert [e.key for e in rig.sent] == [DealerKey.NEW_HAND]
    finally:
        rig.panel.close()


def test_closing_releases_the_pins(factory: MockFactory) -> None:
    rig = Rig(factory)
    rig.panel.close()
    again = Rig(factory)  # the same pins can be claimed again
    again.panel.close()
