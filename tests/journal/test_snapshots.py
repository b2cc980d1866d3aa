"""Snapshots at hand boundaries: a restart folds only the events after the last one, and lands
on exactly the state a full fold of the journal gives."""

from __future__ import annotations

import inspect
import random
import sqlite3
from pathlib import Path

import pytest

import tablectl.journal.snapshot as snapshot_module
from tablectl.core.table import TableConfig, step
from tablectl.journal import Controller, apply_event, describe_outcome, fold_range
from tablectl.journal.snapshot import (
    SnapshotError,
    code_fingerprint,
    dumps,
    loads,
    table_restore,
    table_snapshot,
)
from tablectl.sim.dealer import SimDealer, seated_table

CONFIG = TableConfig(seats=9, game="NT", blinds=(50, 100))


def open_controller(path: Path, full_fold: bool = False) -> Controller:  # type: ignore[type-arg]
    return Controller.open(
        path,
        CONFIG,
        step,
        seated_table(CONFIG, players=6),
        snapshot_of=table_snapshot,
        restore=table_restore,
        full_fold=full_fold,
    )


def deal(controller: Controller, hands: int, seed: int, extra_events: int = 0) -> None:  # type: ignore[type-arg]
    dealer = SimDealer(random.Random(seed))
    done = 0
    while done < hands:
        before = controller.state.hand
        controller.handle(dealer.next_event(controller.state))
        if before is not None and controller.state.hand is None:
            done += 1
    for _ in range(extra_events):  # stop part-way through the next hand
        controller.handle(dealer.next_event(controller.state))


def test_restart_from_snapshot_equals_full_fold(tmp_path: Path) -> None:
    path = tmp_path / "table.journal"
    with open_controller(path) as live:
        deal(live, hands=25, seed=7, extra_events=9)
        live_state = live.state
        total = live.last_seq
    with open_controller(path) as quick:  # one writer at a time: open them in turn
        quick_state, quick_seq, quick_replayed = quick.state, quick.snapshot_seq, quick.replayed
    with open_controller(path, full_fold=True) as full:
        assert quick_state == full.state == live_state
        assert quick_seq > 0 and full.snapshot_seq == 0
        assert quick_replayed < 40 < total == full.replayed  # only the unfinished hand was folded
        assert quick_state.hand is not None  # mid-hand: the tail brought the hand back


def test_a_corrupt_snapshot_falls_back_to_the_full_fold(tmp_path: Path) -> None:
    path = tmp_path / "table.journal"
    with open_controller(path) as live:
        deal(live, hands=5, seed=3)
        live_state = live.state
    with sqlite3.connect(path) as db:
        older, newest = (seq for (seq,) in db.execute("SELECT seq FROM snapshots ORDER BY seq"))
        db.execute("UPDATE snapshots SET body = 'not json' WHERE seq = ?", (newest,))
    with open_controller(path) as reopened:  # the older of the two kept serves
        assert reopened.state == live_state
        assert reopened.snapshot_seq == older
    with sqlite3.connect(path) as db:
        db.execute("UPDATE snapshots SET body = 'not json'")
    with open_controller(path) as reopened:  # none left (and no checkpoint yet): the full fold
        assert reopened.state == live_state
        assert reopened.snapshot_seq == 0


def test_snapshots_round_trip_and_refuse_foreign_types() -> None:
    state = seated_table(CONFIG, players=3)
    assert loads(dumps(state)) == state
    with pytest.raises(SnapshotError, match="not a tablectl type"):
        loads('{"$t": "os:system", "f": []}')


def test_a_snapshot_names_only_types_defined_in_tablectl() -> None:
    # tablectl.journal.store imports sqlite3: a snapshot must not reach it through that module.
    with pytest.raises(SnapshotError, match="not a tablectl type"):
        loads('{"$t": "tablectl.journal.store:sqlite3.Connection", "f": ["/tmp/never.db"]}')
    assert not Path("/tmp/never.db").exists()


def test_a_snapshot_from_another_version_is_not_used() -> None:
    text = table_snapshot(seated_table(CONFIG, players=3))
    assert text is not None and table_restore(text) == seated_table(CONFIG, players=3)
    with pytest.raises(SnapshotError, match="another version"):
        table_restore(text.replace('"version":"', '"version":"0.0.0-'))


def test_a_snapshot_made_by_other_code_is_not_used(tmp_path: Path) -> None:
    # Same version number, other rules (a fix shipped without a new version): the journal is folded.
    text = table_snapshot(seated_table(CONFIG, players=3))
    assert text is not None and f'"code":"{code_fingerprint()}"' in text
    with pytest.raises(SnapshotError, match="other code"):
        table_restore(text.replace(f'"code":"{code_fingerprint()}"', '"code":"0123456789abcdef"'))


def test_the_fingerprint_covers_the_rules_and_not_the_adapters() -> None:
    package = Path(snapshot_module.__file__).resolve().parents[1]
    covered = {f.relative_to(package).as_posix() for f in snapshot_module.fold_code_files()}
    assert {"core/events.py", "core/game/engine.py", "core/game/pots.py", "core/game/profiles.py"} <= covered
    assert any(name.startswith("core/table") for name in covered)
    assert any(name.startswith("core/procedure") for name in covered)
    # Every module of the core, whatever its name: a new or split module cannot fall outside.
    assert {f.relative_to(package).as_posix() for f in (package / "core").rglob("*.py")} <= covered
    assert not any(name.startswith(("adapters/", "service/", "cli/", "views/")) for name in covered)
    assert len(code_fingerprint()) == 16


def test_the_fingerprint_covers_the_fold_and_not_the_store_the_pool_or_the_controller() -> None:
    package = Path(snapshot_module.__file__).resolve().parents[1]
    covered = {f.relative_to(package).as_posix() for f in snapshot_module.fold_code_files()}
    # What a step that fails leaves, and the outcome compared on replay, decide a fold's result.
    for decides in (apply_event, describe_outcome, fold_range):
        source = inspect.getsourcefile(decides)
        assert source is not None and Path(source).resolve().relative_to(package).as_posix() in covered
    assert {"journal/fold.py", "journal/snapshot.py"} <= covered
    carriers = {"journal/__init__.py", "journal/store.py", "journal/parallel.py", "journal/controller.py"}
    assert not covered & carriers
