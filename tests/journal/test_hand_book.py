"""The hands' record rebuilt from the journal after a restart (tablectl.journal.recent.hand_book):
the same hand in progress and the same last hands as the running table had built, step by step,
so that a dispute can be replayed after a crash (TBL-5)."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path

import pytest

from tablectl.core.table import TableConfig, step
from tablectl.journal import Controller
from tablectl.journal.recent import hand_book
from tablectl.journal.snapshot import table_restore, table_snapshot
from tablectl.journal.store import Journal
from tablectl.sim.dealer import SimDealer, seated_table
from tablectl.views.hands import HANDS_KEPT, HandBook, hands_view, record_hands

CONFIG = TableConfig(seats=9, game="NT", blinds=(50, 100))


def open_controller(path: Path) -> Controller:  # type: ignore[type-arg]
    return Controller.open(
        path, CONFIG, step, seated_table(CONFIG, players=6), snapshot_of=table_snapshot, restore=table_restore
    )


@pytest.mark.parametrize("mid_hand", [True, False])
def test_the_record_rebuilt_from_the_journal_is_the_one_the_table_had(tmp_path: Path, mid_hand: bool) -> None:
    path = tmp_path / "table.journal"
    dealer = SimDealer(random.Random(9))
    live = HandBook()
    controller = open_controller(path)
    at = 1_769_000_000.0
    try:
        while controller.state.hand_number < HANDS_KEPT + 4 or (controller.state.hand is None) == mid_hand:
            at += 1.5
            event = dataclasses.replace(dealer.next_event(controller.state), at=at)
            effects = controller.handle(event)
            live = record_hands(live, controller.state, effects, at)  # as the publisher, every event
        state = controller.state
    finally:
        controller.close()  # a crash as far as the record goes: it was in memory only
    assert (state.hand is not None) == mid_hand and len(live.hands) == HANDS_KEPT + 1

    with Journal(path) as journal:
        rebuilt = hand_book(journal, seated_table(CONFIG, players=6), state.hand_number)
    assert hands_view(rebuilt, "1") == hands_view(live, "1")
    assert [r.number for r in rebuilt.hands] == [r.number for r in live.hands]
    # And the restarted table goes on recording from there.
    controller = open_controller(path)
    try:
        assert controller.state == state
        at += 1.5
        event = dataclasses.replace(dealer.next_event(controller.state), at=at)
        effects = controller.handle(event)
        assert record_hands(rebuilt, controller.state, effects, at) == record_hands(
            live, controller.state, effects, at
        )
    finally:
        controller.close()


def test_an_empty_journal_has_no_hands(tmp_path: Path) -> None:
    controller = open_controller(tmp_path / "table.journal")
    controller.close()
    with Journal(tmp_path / "table.journal") as journal:
        assert hand_book(journal, seated_table(CONFIG, players=6), 0) == HandBook()
