"""A table at work for the display tests: a real TablePublisher logged in as table 1, fed by the
simulated dealer (tablectl.sim.dealer.SimDealer, or the faulty dealer of tests/helpers), whose floor
commands from the broker are applied by the step as the service would (journal aside).

``LiveTable.step()`` deals one event; ``until(predicate)`` deals until the state satisfies it;
``secrets`` records, for each publish, the last seq it used and the cards no display may name
then (tablectl.views.secrecy), and ``hidden_at_end`` those still hidden when each hand ended (what
the hands' record of a finished hand may never name), for the no-leak checks.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tablectl.adapters.mqtt import TablePublisher
from tablectl.adapters.mqtt.broker import LocalBroker
from tablectl.cli.audit import secret_cards
from tablectl.core.effects import Effect
from tablectl.core.events import Event, FloorCommand, InputRefused
from tablectl.core.table import TableConfig, TableState, step
from tablectl.sim.dealer import SimDealer, seated_table
from tests.helpers.brokers import table_publisher

CONFIG = TableConfig(room="main", table="1", seats=9, game="NT", blinds=(50, 100))


@dataclass
class LiveTable:
    broker: LocalBroker
    state: TableState = field(default_factory=lambda: seated_table(CONFIG, 6))
    dealer: Any = field(default_factory=lambda: SimDealer(random.Random(7)))
    options: dict[str, Any] = field(default_factory=dict)
    commands: list[FloorCommand | InputRefused] = field(default_factory=list)
    secrets: list[tuple[int, frozenset[str]]] = field(default_factory=list)
    effects: list[Effect] = field(default_factory=list)
    hidden_at_end: dict[int, frozenset[str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.lock = threading.RLock()
        self.options.setdefault("sender_limit", None)
        self.options.setdefault("topic_limit", None)
        self.publisher: TablePublisher = table_publisher(
            self.broker, on_command=self._on_command, **self.options
        )

    def start(self) -> LiveTable:
        self.publisher.start()
        assert self.publisher.wait_connected(10)
        with self.lock:
            self._publish(())
        return self

    def stop(self) -> None:
        self.publisher.stop()

    def _publish(self, effects: Any) -> None:
        self.publisher.publish_state(self.state, effects)
        secret = secret_cards(self.state)
        self.secrets.append((self.publisher.seq, secret))
        ended = self.state.last_hand
        if self.state.hand is None and ended is not None and ended.number not in self.hidden_at_end:
            self.hidden_at_end[ended.number] = secret

    def apply(self, event: Event) -> tuple[Effect, ...]:
        with self.lock:
            self.state, effects = step(self.state, event)
            self._publish(effects)
            self.effects += effects
            return tuple(effects)

    def step(self) -> tuple[Effect, ...]:
        with self.lock:
            return self.apply(self.dealer.next_event(self.state))

    def until(self, done: Callable[[TableState], bool], limit: int = 5000) -> TableState:
        for _ in range(limit):
            with self.lock:
                if done(self.state):
                    return self.state
                self.step()
        raise AssertionError(f"the table did not get there in {limit} events")

    def _on_command(
        self, command: FloorCommand | InputRefused, key: str | None, done: Callable[[], None]
    ) -> None:
        # The service journals, then steps; here the step alone (no journal), then done().
        with self.lock:
            self.commands.append(command)
            self.state, effects = step(self.state, command)
            self._publish(effects)
            self.effects += effects
        done()
