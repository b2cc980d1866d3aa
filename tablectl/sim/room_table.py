"""One table of the demo room, in a process of its own: `tablectl serve`'s own wiring
(:func:`tablectl.service.serve.start_table`: the table file, the journal, the shoe link, the panel,
the publisher logged in as table.<n>) fed by a simulated shoe on a pseudo-terminal and a simulated
dealer pressing the panel's mock pins.

    python -m tablectl.sim.room_table --config TABLE.toml --journal FILE --mqtt-port N ...

The room (tablectl.sim.room) starts one per table. It stops on SIGTERM, SIGINT or when its standard
input closes (the room is gone, however it ended): the dealer first, then the table as `serve` stops
it (input closed, queue drained, offline published), then the shoe. Logs go to stderr.
"""

from __future__ import annotations

import argparse
import logging
import random
import signal
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from firmware_bridge.protocol import Face
from firmware_bridge.simshoe import CardNames, SimShoe
from tablectl.core.cards import card_str, parse_card
from tablectl.core.effects import Effect, HandEnded
from tablectl.core.events import (
    DealerAction,
    DealerCommand,
    DealerInput,
    DealerKey,
    FloorCommand,
    FloorKind,
)
from tablectl.core.table import TableConfig, TableState
from tablectl.core.table.dealer import CALL_RULE
from tablectl.service.serve import BrokerSettings, RunningTable, start_table
from tablectl.service.tablefile import load_table_config
from tablectl.sim.room_dealer import (
    CallFloor,
    DrawCard,
    Floor,
    HandScript,
    IrregularitySchedule,
    Move,
    PressKey,
    RoomDealer,
    phh_scripts,
    random_scripts,
    rotation_script,
)

log = logging.getLogger("tablectl.demo")

SIM_DECK = "sim-red"  # the deck the simulated shoe's tags belong to (the room enrols it)
SETTLE_TIMEOUT = 10.0  # seconds for the table to handle one input before the dealer goes on

# The panel's buttons for the keys a dealer presses there (deploy/table.example.toml's names).
BUTTONS = {
    DealerKey.FOLD: "fold",
    DealerKey.CALL: "check_call",
    DealerKey.CHECK: "check_call",
    DealerKey.BET: "bet",
    DealerKey.ALL_IN: "all_in",
    DealerKey.CONFIRM: "confirm",
    DealerKey.NEW_HAND: "new_hand",
    DealerKey.MISDEAL: "misdeal",
}


# The dealer every demo table's screen clocks in (a name, as a dealer types it).
DEMO_DEALER = "Dana"
# A supervisor walks over and settles the call this many moves after it (the demo's floor).
FLOOR_WALKS_OVER = 5


def floor_call(seat: int | None, at: float) -> DealerCommand:
    """What the dealer's screen sends when the dealer calls the floor (cmd/dealer)."""
    reason = f"player dispute at seat {seat}" if seat is not None else "player dispute"
    return DealerCommand(DealerAction.CALL_FLOOR, name=DEMO_DEALER, reason=reason, at=at, user="")


def floor_answers_call(at: float) -> FloorCommand:
    """The supervisor's answer once at the table: the call resolved (an override of CALL)."""
    return FloorCommand(FloorKind.OVERRIDE, by="Floor Ann", ruling=CALL_RULE, decision="resolve", at=at)


def matching_scripts(
    sources: Sequence[Path], config: TableConfig, offset: int, seed: int
) -> Iterator[HandScript]:
    """The records of ``sources`` that this table's game and stakes can deal, from the
    ``offset``-th, round and round; random hands when none fits."""

    def fits(script: HandScript) -> bool:
        c = script.config
        return (c.game, c.blinds, c.ante, c.big_blind_ante, c.small_bet, c.big_bet) == (
            config.game,
            config.blinds,
            config.ante,
            config.big_blind_ante,
            config.small_bet,
            config.big_bet,
        ) and len(script.players) <= config.seats

    while True:
        found = 0
        for script in (s for path in sources for s in phh_scripts(path, config.profile) if fits(s)):
            found += 1
            if found > offset:
                yield script
        if found == 0:
            yield from random_scripts(seed, profile=config.profile)
        offset = 0


class TableDealer:
    """Carries out the dealer's moves at a running table: cards through the simulated shoe, keys
    on the panel's mock pins, and waits for the table to have handled each before the next."""

    def __init__(
        self, running: RunningTable, shoe: SimShoe, dealer: RoomDealer, pace: float, pins: Any
    ) -> None:
        assert running.panel is not None, "the demo's table file has a panel"
        self.running, self.shoe, self.dealer, self.pace, self.pins = running, shoe, dealer, pace, pins
        self.panel = running.panel
        config = self.panel.config
        self.press_time = max(0.03, 3 * config.debounce)  # a finger on a button, longer than bounce
        self.hold_time = config.hold_time + 0.1
        self.stop = threading.Event()
        self._settled = threading.Condition()
        self._seen = 0  # sink calls: one per event the table handled since the dealer came
        self._offset = 0  # events handled before the dealer's first move, minus the sink calls
        self._target: int | None = None  # the sink call of the dealer's last move, once known
        # The panel's presses reach the table with a callback once journaled: the dealer then
        # knows which of the next states is its own (the shoe's news may come in between).
        self.panel.on_input = lambda event: running.service.submit(event, durable=self._journaled)
        self.hands_ended = 0  # misdeals and voids included: each is a deal the room saw
        self.counts = {"cards": 0, "buttons": 0, "without a button": 0, "dealer's screen": 0, "floor": 0}
        self._floor_due: int | None = None  # moves until the floor answers the dealer's call
        self.state: TableState = running.service.state
        running.service.sinks.append(self._follow)  # last: the publisher has sent what it saw
        self.thread = threading.Thread(target=self._deal, name="demo-dealer", daemon=True)

    def _follow(self, state: TableState, effects: tuple[Effect, ...]) -> None:
        with self._settled:
            self.state = state
            self._seen += 1
            self.hands_ended += sum(1 for e in effects if isinstance(e, HandEnded))
            self._settled.notify_all()

    def _journaled(self) -> None:
        with self._settled:
            self._target = self._seen + 1  # the sinks of that event are next

    def start(self) -> TableDealer:
        self.thread.start()
        return self

    def close(self) -> None:
        self.stop.set()
        self.thread.join(SETTLE_TIMEOUT + self.hold_time + 5)
        log.info("the dealer's moves: %s", ", ".join(f"{n} {what}" for what, n in self.counts.items()))

    def _deal(self) -> None:
        try:
            self._deal_hands()
        except Exception:
            log.exception("the simulated dealer stopped")

    def _deal_hands(self) -> None:
        service = self.running.service
        # The shoe's news on connecting (its state) is the one input the dealer does not make:
        # once it is handled, every event the table handles is the dealer's last move.
        if not self.shoe.wait_connected(30.0) or not self.shoe.wait_idle(30.0):
            raise RuntimeError("the table never opened the simulated shoe's line")
        with self._settled:
            self._settled.wait_for(
                lambda: (
                    dict(self.state.devices).get("shoe") is True
                    and service.pending() == 0
                    or self.stop.is_set()
                ),
                SETTLE_TIMEOUT,
            )
            self._offset = service.handled - self._seen
            self.state = service.state
        # The dealer clocks in on the dealer's screen: the room sees who deals here.
        self._submit_and_wait(DealerCommand(DealerAction.CLOCK_IN, name=DEMO_DEALER, at=time.time()))
        while not self.stop.is_set():
            if self._floor_due is not None:
                self._floor_due -= 1
                if self._floor_due <= 0:  # the supervisor has walked over: the call is settled
                    self._floor_due = None
                    self.counts["floor"] += 1
                    self._submit_and_wait(floor_answers_call(time.time()))
            move = self.dealer.next_move(self.state, at=time.time())
            handled = self._carry_out_and_wait(move)
            if not handled:
                log.error("the table did not take %r within %.0f s", move, SETTLE_TIMEOUT)
            if isinstance(move, Floor):
                continue  # the floor seats the next hand's players at once; the dealer waits for them
            self.stop.wait(self.pace)  # a pace people can follow, not synchronisation

    def _carry_out_and_wait(self, move: Move) -> bool:
        """Carry ``move`` out and wait until the table has handled it; False after the timeout."""
        service = self.running.service
        with self._settled:
            self._target = None
        self._carry_out(move)
        if isinstance(move, DrawCard):
            # The shoe forgets a read once the table has journaled it: that event is then handled,
            # and its sinks come before any later event's.
            if not self.shoe.wait_idle(SETTLE_TIMEOUT):
                return False
            with self._settled:
                self._target = service.handled - self._offset
        return self._wait_for_own()

    def _submit_and_wait(self, event: DealerCommand | FloorCommand) -> bool:
        """An input with no move of its own (the dealer's screen, the floor), handed to the service
        as its command topic would; True once the table has handled it."""
        with self._settled:
            self._target = None
        self.running.service.submit(event, durable=self._journaled)
        return self._wait_for_own()

    def _wait_for_own(self) -> bool:
        with self._settled:
            return self._settled.wait_for(
                lambda: self._target is not None and self._seen >= self._target or self.stop.is_set(),
                SETTLE_TIMEOUT,
            )

    def _carry_out(self, move: Move) -> None:
        if isinstance(move, DrawCard):
            self.counts["cards"] += 1
            face = Face.FACE if move.face_up else Face.BACK
            self.shoe.deal(move.card, face, deck=self.shoe.foreign_deck if move.foreign else None)
        elif isinstance(move, Floor):
            # What the floor's command topic hands the service once a command passes its checks.
            self.counts["floor"] += 1
            self.running.service.submit(move.command, durable=self._journaled)
        elif isinstance(move, CallFloor):
            # What the dealer's screen hands the service once its command passes its checks.
            self.counts["dealer's screen"] += 1
            self.running.service.submit(floor_call(move.seat, time.time()), durable=self._journaled)
            self._floor_due = FLOOR_WALKS_OVER
        else:
            self._press(move)

    def _press(self, move: PressKey) -> None:
        button = BUTTONS.get(move.key)
        if button is None or move.seat is not None and move.seat != self.panel.turn:
            # No button for it (a hand shown or mucked, a flashed card at a given seat): what the
            # dealer's screen will send on cmd/dealer, handed to the service as the panel does.
            self.counts["without a button"] += 1
            self.running.service.submit(
                DealerInput(
                    move.key,
                    seat=move.seat,
                    amount=move.amount,
                    cards=move.cards,
                    cause="dealer" if move.key is DealerKey.CARD_FLASHED else None,
                    at=time.time(),
                ),
                durable=self._journaled,
            )
            return
        self.counts["buttons"] += 1
        if move.key is DealerKey.BET and move.amount is not None:
            self.panel.amount_entry.set(move.amount)  # the knob turned to the amount
        pin = self.pins.pin(self.panel.config.buttons[button])
        guarded = button in self.panel.config.hold_buttons
        pin.drive_low()  # pull-ups: a pressed button pulls its pin to ground
        time.sleep(self.hold_time if guarded else self.press_time)  # the finger's press, simulated
        pin.drive_high()
        time.sleep(self.press_time)  # let go, past the debounce, before the next press


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tablectl.sim.room_table")
    parser.add_argument("--config", required=True)
    parser.add_argument("--journal", required=True)
    parser.add_argument("--mqtt-host", default="127.0.0.1")
    parser.add_argument("--mqtt-port", type=int, required=True)
    parser.add_argument("--mqtt-user", required=True)
    parser.add_argument("--mqtt-password-file", required=True)
    parser.add_argument("--hands-from", action="append", default=[], help="PHH folders or .tar.gz")
    parser.add_argument("--offset", type=int, default=0, help="records to skip")
    parser.add_argument("--pace", type=float, default=1.0)
    parser.add_argument("--irregular-every", type=int, default=4)
    parser.add_argument("--irregular-offset", type=int, default=0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--hands", type=int, default=None, help="stop after this many hands")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s", stream=sys.stderr)

    from gpiozero import Device  # type: ignore[import-untyped]
    from gpiozero.pins.mock import MockFactory  # type: ignore[import-untyped]

    Device.pin_factory = pins = MockFactory()
    done = threading.Event()

    def on_signal(signum: int, frame: Any) -> None:
        done.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    def room_gone() -> None:  # the room's end of the pipe closed: it is not there to stop us
        sys.stdin.read()
        done.set()

    threading.Thread(target=room_gone, name="room-watch", daemon=True).start()

    table_file = load_table_config(args.config)
    password = Path(args.mqtt_password_file).read_text().strip()
    broker = BrokerSettings(args.mqtt_host, args.mqtt_port, args.mqtt_user, password)
    names = CardNames(parse_card, card_str)
    with SimShoe(deck=SIM_DECK, seed=args.seed, link=table_file.shoe.port, card_names=names) as shoe:
        running = start_table(table_file, args.journal, broker)
        scripts = matching_scripts(
            [Path(p) for p in args.hands_from], table_file.table, args.offset, args.seed
        )
        schedule = IrregularitySchedule(args.irregular_every, args.irregular_offset)
        # A table of mixed games (HO-13) deals random hands of the game in play to seated players.
        deal_for = rotation_script if table_file.table.rotation is not None else None
        dealer = RoomDealer(scripts, random.Random(args.seed), schedule, deal_for=deal_for)
        table = TableDealer(running, shoe, dealer, args.pace, pins).start()
        log.info("table %s dealing", table_file.table.table)
        while not done.wait(0.2) and not running.service.failed.is_set():
            # A bounded wait: the signal handler runs only when the main thread does.
            if args.hands is not None and table.hands_ended >= args.hands:
                log.info("table %s: %d hands dealt", table_file.table.table, table.hands_ended)
                break
        table.close()
        running.stop()
    return 1 if running.service.error is not None else 0


if __name__ == "__main__":
    sys.exit(main())
