"""Benchmark: events per second through the controller's pure step, and replay speed.

Prints one JSON object:
- events_per_s: events through ``tablectl.table.step`` while simulated hands are dealt
  (a simulated dealer and shoe producing every card, action and showdown);
- replay_hands_per_s: rebuilding the table state by folding the recorded events of
  10,000 hands (the crash-recovery and dispute path, TBL-5);
- a day of one table is about 800 hands: day_replay_s is the time for that here;
- restart_from_snapshot_ms: a restart of the service on a journal of all those hands (the
  journal keeps a snapshot at every hand boundary, so only the current hand is folded), and
  restart_full_fold_s / journal_full_fold_hands_per_s: the same from the file with no snapshot.
Goal: a day replays in under a second on a Pi (3-5x slower), so >= 8,000 hands/s here.
"""

from __future__ import annotations

import json
import platform
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import tempfile  # noqa: E402

import tablectl.journal as journal_module  # noqa: E402
from tablectl.journal import Controller  # noqa: E402
from tablectl.simdealer import SimDealer, seated_table, simulate  # noqa: E402
from tablectl.snapshot import table_restore, table_snapshot  # noqa: E402
from tablectl.table import TableConfig, step  # noqa: E402


def journal_restart(config: TableConfig, start_state, events) -> dict[str, float]:  # noqa: ANN001
    """Write the events to a real journal (with snapshots), then time two restarts: from the
    last snapshot (what the service does) and a full fold of every event from the file."""
    # Writing 10,000 hands with an fsync per event would take minutes on this disk: the
    # benchmark writes without syncing. Reading back is what is measured.
    journal_module.SYNCHRONOUS = "OFF"
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "table.journal"
        options = {"snapshot_of": table_snapshot, "restore": table_restore}
        with Controller.open(path, config, step, start_state, **options) as live:
            for event in events:
                live.handle(event)
            live_state = live.state
        t0 = time.perf_counter()
        with Controller.open(path, config, step, start_state, **options) as quick:
            assert quick.state == live_state
        snapshot_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        with Controller.open(path, config, step, start_state, full_fold=True, **options) as full:
            assert full.state == live_state
        full_s = time.perf_counter() - t0
    return {"restart_from_snapshot_ms": round(snapshot_s * 1000, 1), "restart_full_fold_s": round(full_s, 2)}


def main() -> None:
    hands = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    config = TableConfig(seats=9, game="NT", blinds=(50, 100))
    start_state = seated_table(config, players=6)
    dealer = SimDealer(random.Random(2026))

    events = []
    t0 = time.perf_counter()
    for event, _state in simulate(start_state, dealer, hands):
        events.append(event)
    generate_s = time.perf_counter() - t0

    # The fold alone: what recovery and replay do.
    t0 = time.perf_counter()
    state = start_state
    for event in events:
        state, _ = step(state, event)
    fold_s = time.perf_counter() - t0

    restart = journal_restart(config, start_state, events)
    print(
        json.dumps(
            {
                **restart,
                "journal_full_fold_hands_per_s": round(hands / restart["restart_full_fold_s"]),
                "benchmark": "procedure",
                "hands": hands,
                "events": len(events),
                "events_per_hand": round(len(events) / hands, 1),
                "events_per_s": round(len(events) / fold_s),
                "replay_hands_per_s": round(hands / fold_s),
                "day_replay_s": round(800 / (hands / fold_s), 4),
                "goal_replay_hands_per_s": 8000,
                "simulate_and_step_hands_per_s": round(hands / generate_s),
                "python": platform.python_version(),
                "machine": platform.machine(),
            }
        )
    )


if __name__ == "__main__":
    main()
