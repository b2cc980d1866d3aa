"""A journal written before an upgrade still folds: the events are the source of truth.

tests/journal/data/journal-0.1.0-before-the-house.journal was written by tablectl 0.1.0 at commit
13a4a18, before the modules moved into DESIGN.md's layers (issue 9): 55 hands and part of the
56th by the faulty dealer of tests/helpers/faulty_dealer.py, with a checkpoint and snapshots
that name the old module paths. The .json beside it holds what that code's table was at the
end. Today's code refuses those snapshots and that checkpoint as made by other code, folds the
events once, and arrives at the same table; the next restart uses the snapshot it wrote itself.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tablectl.core.table import TableConfig, TableState, step
from tablectl.journal import Controller, verified_fold
from tablectl.journal.snapshot import table_restore, table_snapshot
from tablectl.sim.dealer import seated_table

DATA = Path(__file__).parent / "data"
OLD = DATA / "journal-0.1.0-before-the-house.journal"
CONFIG = TableConfig(seats=9, game="NT", blinds=(50, 100))  # the table the old code journaled


@pytest.fixture
def journal(tmp_path: Path) -> Path:
    copy = tmp_path / OLD.name  # never write to the shipped file
    shutil.copyfile(OLD, copy)
    return copy


def facts() -> dict[str, object]:
    loaded: dict[str, object] = json.loads(OLD.with_suffix(".json").read_text())
    return loaded


def open_table(path: Path, full_fold: bool = False) -> Controller[TableState]:
    return Controller.open(
        path,
        CONFIG,
        step,
        seated_table(CONFIG, players=6),
        snapshot_of=table_snapshot,
        restore=table_restore,
        full_fold=full_fold,
    )


def as_recorded(state: TableState) -> dict[str, object]:
    return {
        "hand_number": state.hand_number,
        "button": state.button,
        "seats": {str(n): [s.name, s.stack] for n, s in enumerate(state.seats, 1) if s is not None},
        "hand_in_progress": state.hand is not None,
        "pot": state.hand.game.pot if state.hand is not None else 0,
    }


def test_an_old_journal_folds_to_the_table_the_old_code_had(journal: Path) -> None:
    expected = facts()
    with open_table(journal) as table:
        # Its snapshots were made by other code: refused, so the whole journal was folded once.
        assert table.snapshot_seq == 0
        assert table.replayed == table.last_seq == expected["events"]
        assert table.divergences == []  # every event had the outcome it had when first applied
        assert as_recorded(table.state) == {k: expected[k] for k in as_recorded(table.state)}
        folded = table.state
    with open_table(journal) as again:  # a second restart: no full fold any more
        assert again.state == folded
        assert again.snapshot_seq > 0 and again.replayed < 100


def test_an_old_journal_passes_the_verified_fold(journal: Path) -> None:
    # Its checkpoint was made by other code: no boundary, skipped, and the fold is one pass.
    result = verified_fold(journal, step, seated_table(CONFIG, players=6), table_restore, table_snapshot)
    assert result.mismatch is None and result.skipped == facts()["checkpoints"] == 1
    assert result.tally.events == facts()["events"]
    with open_table(journal, full_fold=True) as full:
        assert as_recorded(full.state) == as_recorded(result.state)
