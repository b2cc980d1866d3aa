"""A table of mixed games (HO-13) journaled: its rotation is in the journal's configuration, and
a restart, from a snapshot or by a full fold, finds the rotation where it stood."""

from __future__ import annotations

from pathlib import Path

from tablectl.core.events import CardDrawn, DealerInput, DealerKey, Event, FloorCommand, FloorKind
from tablectl.core.game.engine import Phase
from tablectl.core.table import TableConfig, TableState, new_table, step
from tablectl.core.table.rotation import GameStakes, Rotation
from tablectl.journal import Controller, Journal
from tablectl.journal.snapshot import table_restore, table_snapshot

CONFIG = TableConfig(
    seats=6,
    rotation=Rotation((GameStakes("PO", blinds=(50, 100)), GameStakes("NT", blinds=(100, 200))), name="Mix"),
)


def session(hands: int) -> list[Event]:
    """Seat three players, then deal ``hands`` hands (the button drawn for first, DEAL-5), each
    folded round to the last player."""
    events: list[Event] = [
        FloorCommand(FloorKind.SEAT_PLAYER, "Ann", seat=n, name=f"P{n}", amount=9_000) for n in (1, 2, 3)
    ]
    state = new_table(CONFIG)
    for event in events:
        state, _ = step(state, event)
    draw, cards = iter(range(52)), iter(range(52))
    while True:
        hand = state.hand
        event: Event
        if hand is None:
            if state.hand_number >= hands:
                return events
            if state.button_draw is not None:
                event = CardDrawn(next(draw))
            else:
                event, cards = DealerInput(DealerKey.NEW_HAND), iter(range(52))
        elif hand.game.phase is not Phase.BETTING:
            event = CardDrawn(next(cards))
        else:
            assert hand.game.actor is not None
            event = DealerInput(DealerKey.FOLD, seat=hand.seat(hand.game.actor))
        events.append(event)
        state, _ = step(state, event)


def open_table(path: Path, full_fold: bool = False) -> Controller[TableState]:
    with Journal(path) as journal:
        config = TableConfig.from_json(journal.config)
    return Controller.open(
        path,
        config,
        step,
        new_table(config),
        snapshot_of=table_snapshot,
        restore=table_restore,
        full_fold=full_fold,
    )


def test_a_restart_finds_the_rotation_where_it_stood(tmp_path: Path) -> None:
    path = tmp_path / "table.journal"
    with Controller.open(
        path, CONFIG, step, new_table(CONFIG), snapshot_of=table_snapshot, restore=table_restore
    ) as controller:
        for event in session(5):
            controller.handle(event)
        live = controller.state
    assert live.hand_number == 5 and live.rotation is not None
    assert (live.rotation.game_index, live.last_hand.game.config.variant.code) == (1, "NT")  # type: ignore[union-attr]
    for full in (False, True):
        with open_table(path, full_fold=full) as reopened:
            assert reopened.state.config == CONFIG
            assert reopened.state == live
