"""Seven-card census: value every one of the 133,784,560 seven-card hands and count the
categories, which must equal the published ones. Prints one JSON object.

    nice -n 19 python3 bench/seven_card_census.py [--workers 2] [--direct]

The hands are enumerated in nested loops a < b < ... < g that carry the partial key sum
(tablectl.core.evaluator's card keys) from one level to the next, so a hand costs one addition.
Each hand then goes the way evaluate_high sends it: the flush test on the key's suit
counts, and the rank-multiset lookup for the non-flush hands. When six cards hold fewer
than four of any suit no seventh card can make a flush, and the whole last loop becomes
one C-level map over the table. Hands that may be flushes are passed to evaluate_high
itself. ``--direct`` instead calls evaluate_high on every hand (slower, the same answer).
Work is split by the two lowest cards over a process pool.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from collections import Counter
from multiprocessing import Pool
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tablectl.core import evaluator as ev  # noqa: E402

PUBLISHED = {
    "straight_flush": 41_584,
    "four_of_a_kind": 224_848,
    "full_house": 3_473_184,
    "flush": 4_047_644,
    "straight": 6_180_020,
    "three_of_a_kind": 6_461_620,
    "two_pair": 31_433_400,
    "pair": 58_627_800,
    "high_card": 23_294_460,
}
# Distinct best-five values that occur among seven-card hands (4,824 in all).
PUBLISHED_DISTINCT = {
    "straight_flush": 10,
    "four_of_a_kind": 156,
    "full_house": 156,
    "flush": 1_277,
    "straight": 10,
    "three_of_a_kind": 575,
    "two_pair": 763,
    "pair": 1_470,
    "high_card": 407,
}
TOTAL_HANDS = 133_784_560
KEY_NAMES = [name.lower().replace(" ", "_") for name in ev.CATEGORY_NAMES]


def _count_incremental(task: tuple[int, int]) -> Counter[int]:
    a, b = task
    key = ev._KEY
    ranks = ev._RANKS
    lookup = ranks.__getitem__
    evaluate = ev.evaluate_high
    # The rank parts of the keys of the cards after f: the last loop, with no flush
    # possible, is lookup(rank part of six cards + rank part of card g) for each g.
    tails = [tuple(k >> 16 for k in key[f + 1 :]) for f in range(52)]
    counts: Counter[int] = Counter()
    values: list[int] = []
    extend = values.extend
    append = values.append
    kb = key[a] + key[b]
    for c in range(b + 1, 48):
        kc = kb + key[c]
        for d in range(c + 1, 49):
            kd = kc + key[d]
            for e in range(d + 1, 50):
                ke = kd + key[e]
                for f in range(e + 1, 51):
                    kf = ke + key[f]
                    if (kf + 0x4444) & 0x8888:  # four of a suit among six: check each hand
                        for g in range(f + 1, 52):
                            k = kf + key[g]
                            if (k + 0x3333) & 0x8888:
                                append(evaluate((a, b, c, d, e, f, g)))
                            else:
                                append(ranks[k >> 16])
                    else:
                        extend(map(lookup, map((kf >> 16).__add__, tails[f])))
        counts.update(values)
        values.clear()
    return counts


def _count_direct(task: tuple[int, int]) -> Counter[int]:
    a, b = task
    evaluate = ev.evaluate_high
    counts: Counter[int] = Counter()
    values: list[int] = []
    append = values.append
    for c in range(b + 1, 48):
        for d in range(c + 1, 49):
            for e in range(d + 1, 50):
                for f in range(e + 1, 51):
                    for g in range(f + 1, 52):
                        append(evaluate((a, b, c, d, e, f, g)))
        counts.update(values)
        values.clear()
    return counts


def census(workers: int = 2, direct: bool = False) -> dict[str, object]:
    started = time.perf_counter()
    # Tasks: the two lowest cards, biggest first so that the pool finishes evenly.
    tasks = sorted(
        ((a, b) for a in range(46) for b in range(a + 1, 47)),
        key=lambda ab: -(51 - ab[1]) * (50 - ab[1]) * (49 - ab[1]) * (48 - ab[1]) * (47 - ab[1]),
    )
    work = _count_direct if direct else _count_incremental
    totals: Counter[int] = Counter()
    if workers > 1:
        with Pool(workers) as pool:
            for part in pool.imap_unordered(work, tasks):
                totals.update(part)
    else:
        for task in tasks:
            totals.update(work(task))
    elapsed = time.perf_counter() - started

    categories = dict.fromkeys(KEY_NAMES, 0)
    distinct = dict.fromkeys(KEY_NAMES, 0)
    for value, count in totals.items():
        name = KEY_NAMES[ev.category_of(value)]
        categories[name] += count
        distinct[name] += 1
    categories = {name: categories[name] for name in PUBLISHED}
    distinct = {name: distinct[name] for name in PUBLISHED}
    return {
        "benchmark": "seven_card_census",
        "mode": "direct" if direct else "incremental",
        "hands": sum(totals.values()),
        "categories": categories,
        "matches_published": categories == PUBLISHED and sum(totals.values()) == TOTAL_HANDS,
        "distinct_values": len(totals),
        "distinct_per_category": distinct,
        "distinct_matches_published": distinct == PUBLISHED_DISTINCT,
        "elapsed_seconds": round(elapsed, 2),
        "hands_per_second": round(TOTAL_HANDS / elapsed),
        "workers": workers,
        "python": platform.python_version(),
        "machine": platform.machine(),
        "niceness": os.nice(0),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--direct", action="store_true", help="call evaluate_high on every hand")
    args = parser.parse_args()
    print(json.dumps(census(args.workers, args.direct), indent=2))


if __name__ == "__main__":
    main()
