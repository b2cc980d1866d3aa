"""Benchmark: events per second through the controller's pure step, and replay speed.

Prints one JSON object:
- events_per_s: events through ``tablectl.core.table.step`` on one core (a simulated dealer and shoe
  produced every card, action and showdown of 10,000 6-max no-limit hands);
- replay_hands_per_s: rebuilding the table's state from the journal file of those hands, every
  event folded through ``step`` from the first (``verified_fold``: the stretches between the
  journal's checkpoints on every core, each checkpoint checked against the fold that leads to it);
- replay_one_core_hands_per_s: the same fold on one core, from the file (decoding included), and
  fold_in_memory_hands_per_s: on one core with the events already decoded;
- engine_only_hands_per_s: the reference, the same hands' actions through the game engine alone
  (no procedure, no journal): what a fold in pure Python cannot beat on one core;
- restart_from_snapshot_ms: what the service does on a restart (only the current hand is folded);
- replay_disputed_hand_ms: ``tablectl replay --hand N`` for a hand at the end of the journal;
- day_replay_s: a day of one table (about 800 hands) at replay_hands_per_s.
Goal: a day replays in under a second on a Pi, so >= 8,000 hands/s here.
"""

from __future__ import annotations

import json
import os
import platform
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import tempfile  # noqa: E402

import tablectl.journal.store as journal_store  # noqa: E402
from tablectl.core.events import FloorCommand, FloorKind  # noqa: E402
from tablectl.core.game.engine import Phase, apply  # noqa: E402
from tablectl.core.table import TableConfig, TableState, new_table, step  # noqa: E402
from tablectl.journal import Controller, verified_fold  # noqa: E402
from tablectl.journal.replay import replay_hand  # noqa: E402
from tablectl.journal.snapshot import table_restore, table_snapshot  # noqa: E402
from tablectl.sim.dealer import SimDealer, simulate  # noqa: E402


def engine_only(hands: list[tuple[Any, tuple[Any, ...]]]) -> float:
    """Seconds to apply every hand's engine actions from its start (best of three)."""
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        for game, log in hands:
            for action in log:
                game = apply(game, action)
        best = min(best, time.perf_counter() - t0)
    return best


def journal_folds(config: TableConfig, start_state: TableState, events: list[Any]) -> dict[str, Any]:
    """Write the events to a real journal (snapshots and checkpoints as the service keeps them),
    then time a restart, a full fold on one core and the verified fold on every core."""
    # Writing 10,000 hands with an fsync per event would take minutes on this disk: the
    # benchmark writes without syncing. Reading back is what is measured.
    journal_store.SYNCHRONOUS = "OFF"
    options = {"snapshot_of": table_snapshot, "restore": table_restore}
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "table.journal"
        with Controller.open(path, config, step, start_state, **options) as live:
            for event in events:
                live.handle(event)
            live_state = live.state
        size_mb = path.stat().st_size / 1e6
        t0 = time.perf_counter()
        with Controller.open(path, config, step, start_state, **options) as quick:
            assert quick.state == live_state
        snapshot_s = time.perf_counter() - t0
        # Once to warm the file cache, then timed.
        verified_fold(path, step, start_state, table_restore, table_snapshot, workers=1)
        t0 = time.perf_counter()
        one_core = verified_fold(path, step, start_state, table_restore, table_snapshot, workers=1)
        one_core_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        every_core = verified_fold(path, step, start_state, table_restore, table_snapshot)
        every_core_s = time.perf_counter() - t0
        for fold in (one_core, every_core):
            assert fold.state == live_state and fold.mismatch is None and not fold.tally.divergences
        # A dispute late in the day (TBL-5): the replay folds from the checkpoint before the hand.
        late = live_state.hand_number - 5
        t0 = time.perf_counter()
        lines = replay_hand(path, late)
        dispute_s = time.perf_counter() - t0
        assert lines[0].startswith(f"Hand {late} ")
    return {
        "replay_disputed_hand_ms": round(dispute_s * 1000, 1),
        "journal_mb": round(size_mb, 1),
        "checkpoints": every_core.checkpoints,
        "workers": every_core.workers,
        "restart_from_snapshot_ms": round(snapshot_s * 1000, 1),
        "replay_s": round(every_core_s, 3),
        "replay_one_core_s": round(one_core_s, 3),
    }


def main() -> None:
    hands = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    config = TableConfig(seats=9, game="NT", blinds=(50, 100))
    # As the service starts a journal: an empty table, the floor seats six players.
    start_state = new_table(config)
    events: list[Any] = [
        FloorCommand(FloorKind.SEAT_PLAYER, by="bench", seat=seat, name=name, amount=10_000)
        for seat, name in enumerate(["Ann", "Bob", "Cy", "Di", "Ed", "Flo"], 1)
    ]
    events.append(FloorCommand(FloorKind.MOVE_BUTTON, by="bench", seat=6))
    seated = start_state
    for event in events:
        seated, _ = step(seated, event)
    dealer = SimDealer(random.Random(2026))

    played: list[tuple[Any, tuple[Any, ...]]] = []
    t0 = time.perf_counter()
    previous = seated
    for event, state in simulate(seated, dealer, hands):
        events.append(event)
        done = previous.hand is not None and state.hand is None and state.last_hand is not None
        if done and state.last_hand.start is not None and state.last_hand.game.phase is Phase.COMPLETE:
            played.append((state.last_hand.start, state.last_hand.log))
        previous = state
    generate_s = time.perf_counter() - t0

    # The fold alone, events already decoded, one core (best of three).
    fold_s = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        state = start_state
        for event in events:
            state, _ = step(state, event)
        fold_s = min(fold_s, time.perf_counter() - t0)

    folds = journal_folds(config, start_state, events)
    replay = hands / folds["replay_s"]
    result: dict[str, Any] = {
        "benchmark": "procedure",
        "hands": hands,
        "events": len(events),
        "events_per_hand": round(len(events) / hands, 1),
        "events_per_s": round(len(events) / fold_s),
        "replay_hands_per_s": round(replay),
        "goal_replay_hands_per_s": 8000,
        "day_replay_s": round(800 / replay, 3),
        "replay_one_core_hands_per_s": round(hands / folds["replay_one_core_s"]),
        "fold_in_memory_hands_per_s": round(hands / fold_s),
        "simulate_and_step_hands_per_s": round(hands / generate_s),
        **folds,
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "machine": platform.machine(),
    }
    if played:
        engine_s = engine_only(played)
        result["engine_only_hands_per_s"] = round(len(played) / engine_s)
        result["one_core_fold_vs_engine_only"] = round((len(played) / engine_s) / (hands / fold_s), 2)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
