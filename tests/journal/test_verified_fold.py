"""The journal's checkpoints and the verified full fold (tablectl.journal.verified_fold).

A full fold runs the stretches between checkpoints in parallel; each checkpoint must equal the
fold of the stretch that leads to it, so the result is the state a single pass gives, and a
checkpoint that disagrees (a bug, a tampered file) is reported and the journal folded in one pass.
"""

from __future__ import annotations

import json
import random
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

import tablectl.journal as journal_module
import tablectl.journal.controller as controller_module
import tablectl.journal.store as store_module
from tablectl.core.events import EventError, FloorCommand, FloorKind, from_json
from tablectl.core.table import TableConfig, TableState, new_table, step
from tablectl.journal import Controller, Journal, verified_fold
from tablectl.journal.replay import replay_hand, verify_journal
from tablectl.journal.snapshot import table_restore, table_snapshot
from tablectl.sim.dealer import SimDealer, simulate

CONFIG = TableConfig(seats=9, game="NT", blinds=(50, 100))
EVERY = 5  # a checkpoint every five hands: many stretches from a short journal


@pytest.fixture(autouse=True)
def small_stretches(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(controller_module, "CHECKPOINT_EVERY", EVERY)
    # Thousands of appends: durability is tested elsewhere (tests/journal/test_journal.py).
    monkeypatch.setattr(store_module, "SYNCHRONOUS", "OFF")


def open_table(path: Path, full_fold: bool = False) -> Controller[TableState]:
    return Controller.open(
        path,
        CONFIG,
        step,
        new_table(CONFIG),
        snapshot_of=table_snapshot,
        restore=table_restore,
        full_fold=full_fold,
    )


def play(path: Path, hands: int, seed: int = 11) -> TableState:
    """A table's journal as the service writes it: players seated by the floor, then hands."""
    with open_table(path) as table:
        for seat, name in enumerate(["Ann", "Bob", "Cy", "Di", "Ed", "Flo"], 1):
            table.handle(FloorCommand(FloorKind.SEAT_PLAYER, by="Zoe", seat=seat, name=name, amount=10_000))
        table.handle(FloorCommand(FloorKind.MOVE_BUTTON, by="Zoe", seat=6))
        state = table.state
        for event, after in simulate(table.state, SimDealer(random.Random(seed)), hands):
            table.handle(event)
            state = after
        assert table.state == state
        return state


def test_checkpoints_are_kept_every_few_hands_and_old_snapshots_are_not(tmp_path: Path) -> None:
    path = tmp_path / "table.journal"
    play(path, 23)
    with Journal(path) as journal:
        hands = [hand for _seq, hand in journal.checkpoints()]
        snapshots = journal._conn().execute("SELECT count(*) FROM snapshots").fetchone()[0]
    assert hands == [5, 10, 15, 20]
    assert snapshots == 2


def test_the_verified_fold_equals_the_live_table_on_every_core(tmp_path: Path) -> None:
    path = tmp_path / "table.journal"
    live = play(path, 32)
    for workers in (1, 2, 3):
        fold = verified_fold(path, step, new_table(CONFIG), table_restore, table_snapshot, workers)
        assert fold.state == live
        assert fold.mismatch is None and not fold.tally.divergences and not fold.tally.missing
        assert fold.checkpoints == 6 and fold.stretches == 7
        with Journal(path) as journal:
            assert fold.tally.events == journal.last_seq() == fold.tally.last_seq


def test_a_full_fold_on_opening_is_the_verified_fold(tmp_path: Path) -> None:
    path = tmp_path / "table.journal"
    live = play(path, 12)
    with open_table(path, full_fold=True) as table:
        assert table.state == live and table.verified is not None
        assert table.verified.checkpoints == 2 and table.verified.mismatch is None
        with Journal(path) as journal:
            assert table.replayed == journal.last_seq() == table.last_seq


def test_a_checkpoint_that_differs_from_the_fold_is_reported_and_the_fold_is_still_right(
    tmp_path: Path,
) -> None:
    path = tmp_path / "table.journal"
    live = play(path, 17)
    with sqlite3.connect(path) as db:
        # A checkpoint from another moment of the day put in the place of the second one.
        seqs = [row[0] for row in db.execute("SELECT seq FROM checkpoints ORDER BY seq")]
        db.execute(
            "UPDATE checkpoints SET body = (SELECT body FROM checkpoints WHERE seq = ?) WHERE seq = ?",
            (seqs[0], seqs[1]),
        )
    fold = verified_fold(path, step, new_table(CONFIG), table_restore, table_snapshot, workers=2)
    assert fold.mismatch is not None and f"seq {seqs[1]}" in fold.mismatch
    assert fold.state == live and fold.checkpoints == 0


def test_checkpoints_other_code_made_are_no_boundaries(tmp_path: Path) -> None:
    # After an upgrade the old checkpoints cannot be read: the stretches run from the ones this
    # code wrote (here: every other one), the old ones inside them.
    path = tmp_path / "table.journal"
    live = play(path, 32)
    with sqlite3.connect(path) as db:
        db.execute(
            'UPDATE checkpoints SET body = replace(body, \'"code":"\', \'"code":"old-\') WHERE hand % 10 = 5'
        )
    fold = verified_fold(path, step, new_table(CONFIG), table_restore, table_snapshot, workers=2)
    assert fold.state == live and fold.mismatch is None
    assert (fold.checkpoints, fold.skipped) == (3, 3)


def test_outcomes_missing_or_different_are_found_in_every_stretch(tmp_path: Path) -> None:
    path = tmp_path / "table.journal"
    play(path, 16)
    with sqlite3.connect(path) as db:
        last = db.execute("SELECT max(seq) FROM events").fetchone()[0]
        wrong, missing = 40, last - 3  # one in the first stretch, one after the last checkpoint
        db.execute("UPDATE outcomes SET outcome = 'applied; forged' WHERE seq = ?", (wrong,))
        db.execute("DELETE FROM outcomes WHERE seq = ?", (missing,))
    fold = verified_fold(path, step, new_table(CONFIG), table_restore, table_snapshot, workers=2)
    assert [d.seq for d in fold.tally.divergences] == [wrong]
    assert [seq for seq, _ in fold.tally.missing] == [missing]
    report = verify_journal(path, workers=2)
    assert not report["ok"] and [d["seq"] for d in report["divergences"]] == [wrong]


def test_replay_of_a_late_hand_starts_at_the_checkpoint_before_it(tmp_path: Path) -> None:
    path = tmp_path / "table.journal"
    play(path, 24)
    lines = replay_hand(path, 22)
    with sqlite3.connect(path) as db:
        (first,) = db.execute("SELECT min(seq) FROM events WHERE hand = 22").fetchone()
        db.execute("DROP TRIGGER events_no_delete")
        # Events before the checkpoint at hand 20 can no longer matter to hand 22's replay.
        (checkpoint,) = db.execute("SELECT seq FROM checkpoints WHERE hand = 20").fetchone()
        db.execute("DELETE FROM outcomes WHERE seq <= ?", (checkpoint - 5,))
        db.execute("DELETE FROM events WHERE seq <= ?", (checkpoint - 5,))
    assert replay_hand(path, 22) == lines
    assert lines[0].startswith("Hand 22 ") and lines[-2].startswith(f"Journal events #{first} to ")
    assert lines[-1].startswith(f"(Folded from the checkpoint after hand 20, journal #{checkpoint};")


def test_the_verify_command_prints_one_json_object(tmp_path: Path) -> None:
    path = tmp_path / "table.journal"
    live = play(path, 12)
    result = subprocess.run(
        [sys.executable, "-m", "tablectl.cli", "replay", str(path), "--verify", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["ok"] and report["hands"] == live.hand_number and not report["in_progress"]
    expected = {str(n): s.stack for n, s in enumerate(live.seats, 1) if s is not None}
    assert report["stacks"] == expected


def test_an_unreadable_event_in_a_workers_stretch_stops_the_fold_with_its_seq(tmp_path: Path) -> None:
    path = tmp_path / "table.journal"
    play(path, 17)
    with sqlite3.connect(path) as db:
        db.execute("DROP TRIGGER events_no_update")
        # One in the first stretch (a worker's), one after the last checkpoint (this process's).
        (last,) = db.execute("SELECT max(seq) FROM events").fetchone()
        for seq in (30, last - 2):
            db.execute(
                'UPDATE events SET body = \'{"type": "card_drawn", "card": "Zz"}\' WHERE seq = ?', (seq,)
            )
    # In a subprocess with a deadline: a worker's error must come back, not hang the pool, and
    # the first unreadable event is the one reported.
    result = subprocess.run(
        [sys.executable, "-m", "tablectl.cli", "replay", str(path), "--verify", "--workers", "2"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode != 0
    assert "journaled event seq 30 cannot be read" in result.stderr
    assert "checkpoint unreadable" not in result.stderr  # not taken for a bad checkpoint
    with pytest.raises(journal_module.JournalCorrupt) as caught:
        verified_fold(path, step, new_table(CONFIG), table_restore, table_snapshot, workers=1)
    assert caught.value.seq == 30


_DYING_WORKER = """
import os, sys
from tablectl.journal import Journal, verified_fold
from tablectl.journal.snapshot import table_restore, table_snapshot
from tablectl.core.table import TableConfig, new_table, step

path = sys.argv[1]
parent = os.getpid()
with Journal(path) as journal:
    doomed = journal.checkpoints()[1][0] - 3  # an event inside the second stretch
    target = next(iter(journal.events(doomed, doomed))).event

def step_that_dies_in_a_worker(state, event):
    if os.getpid() != parent and event == target:
        os._exit(9)  # the OOM killer, say
    return step(state, event)

config = TableConfig.from_json(Journal(path).config)
fold = verified_fold(path, step_that_dies_in_a_worker, new_table(config), table_restore, table_snapshot, 2)
print(fold.mismatch)
print(sorted((n, s.stack) for n, s in enumerate(fold.state.seats, 1) if s is not None))
"""


def test_a_worker_that_dies_means_one_pass_in_this_process(tmp_path: Path) -> None:
    path = tmp_path / "table.journal"
    live = play(path, 17)
    result = subprocess.run(  # a process of its own: no other thread, so the workers are forked
        [sys.executable, "-c", _DYING_WORKER, str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    mismatch, stacks = result.stdout.splitlines()
    assert "a worker process died" in mismatch
    assert stacks == str(sorted((n, s.stack) for n, s in enumerate(live.seats, 1) if s is not None))


def test_a_transfer_an_older_reader_let_through_folds_as_it_did_then(tmp_path: Path) -> None:
    # Readers before 7ab88cc passed to_seat through unchecked, and the step took true for seat 1:
    # such rows stay readable and fold as they were applied; new input is refused.
    path = tmp_path / "table.journal"
    play(path, 2)
    with open_table(path) as table:
        before = {n: s.stack for n, s in enumerate(table.state.seats, 1) if s is not None}
    rows = [
        '{"type": "floor", "kind": "transfer", "by": "Zoe", "seat": 2, "amount": 100, "to_seat": true}',
        '{"type": "floor", "kind": "transfer", "by": "Zoe", "seat": 2, "amount": 100, "to_seat": 3.5}',
    ]
    with sqlite3.connect(path) as db:
        for row in rows:
            db.execute("INSERT INTO events (hand, body) VALUES (2, ?)", (row,))
    with open_table(path) as reopened:
        after = {n: s.stack for n, s in enumerate(reopened.state.seats, 1) if s is not None}
    assert after == {**before, 1: before[1] + 100, 2: before[2] - 100}
    with open_table(path, full_fold=True) as folded:
        assert folded.state == reopened.state
    with Journal(path) as journal:
        outcomes = [
            o for (o,) in journal._conn().execute("SELECT outcome FROM outcomes ORDER BY seq DESC LIMIT 2")
        ]
    assert outcomes[0].startswith("refused: INPUT transfer needs to_seat")
    assert outcomes[1].startswith("applied; TBL-5 info: The floor (Zoe) moves 100 from seat 2 to seat 1.")
    with pytest.raises(EventError, match="to_seat"):
        from_json(json.loads(rows[0]))  # new input (MQTT, the CLI) is checked


def test_a_damaged_checkpoint_is_a_mismatch_not_other_code(tmp_path: Path) -> None:
    path = tmp_path / "table.journal"
    live = play(path, 22)
    with sqlite3.connect(path) as db:
        db.execute("UPDATE checkpoints SET body = substr(body, 1, 500) WHERE hand = 10")
    report = verify_journal(path, workers=2)
    assert not report["ok"] and report["checkpoints_skipped"] == 0
    assert "checkpoint" in report["checkpoint_mismatch"]
    fold = verified_fold(path, step, new_table(CONFIG), table_restore, table_snapshot, workers=2)
    assert fold.state == live


def test_a_restart_with_both_snapshots_damaged_starts_from_the_newest_checkpoint(tmp_path: Path) -> None:
    path = tmp_path / "table.journal"
    live = play(path, 23)
    with sqlite3.connect(path) as db:
        db.execute("UPDATE snapshots SET body = 'not json'")
        (newest,) = db.execute("SELECT max(seq) FROM checkpoints").fetchone()
    with open_table(path) as reopened:
        assert reopened.state == live
        assert reopened.snapshot_seq == newest
        with Journal(path) as journal:
            assert reopened.replayed == journal.last_seq() - newest
