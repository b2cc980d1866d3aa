"""Benchmark: events per second through the controller's pure step, and replay speed.

Prints one JSON object:
- events_per_s: events through ``tablectl.table.step`` while simulated hands are dealt
  (a simulated dealer and shoe producing every card, action and showdown);
- replay_hands_per_s: rebuilding the table state by folding the recorded events of
  10,000 hands (the crash-recovery and dispute path, TBL-5);
- a day of one table is about 800 hands: day_replay_s is the time for that here.
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

from tablectl.simdealer import SimDealer, seated_table, simulate  # noqa: E402
from tablectl.table import TableConfig, step  # noqa: E402


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

    print(
        json.dumps(
            {
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
