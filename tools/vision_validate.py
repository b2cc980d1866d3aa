"""Validation on ../shared/data/cards/photos-tfod-train (rank labels only, no suits): the figures to
tune against, so that the test folder (bench/vision.py) stays a final check.

    .venv/bin/python tools/vision_validate.py [--limit N] [--errors] [--model PATH]
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.vision import match_reads  # noqa: E402
from vision.index_reader import IndexReader  # noqa: E402
from vision.reader import ACT_CONFIDENCE, CardReader  # noqa: E402
from vision.sources import Frame, read_image  # noqa: E402

TRAIN = ROOT.parent / "shared" / "data" / "cards" / "photos-tfod-train"
RANK_OF = {"nine": "9", "ten": "T", "jack": "J", "queen": "Q", "king": "K", "ace": "A"}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--limit", type=int)
    parser.add_argument("--errors", action="store_true")
    parser.add_argument("--model", type=Path, help="an index classifier to try (default: the committed one)")
    args = parser.parse_args()
    labels: dict[str, list[tuple[str, tuple[int, int, int, int]]]] = {}
    with open(TRAIN / "labels.csv", newline="") as handle:
        for row in csv.DictReader(handle):
            box = (int(row["xmin"]), int(row["ymin"]), int(row["xmax"]), int(row["ymax"]))
            labels.setdefault(row["filename"], []).append((RANK_OF[row["class"]], box))
    reader = CardReader(IndexReader(args.model) if args.model else None)
    right = right_any = wrong_confident = total = 0
    confidences: list[tuple[float, bool]] = []
    for name in sorted(labels)[: args.limit]:
        frame = read_image(TRAIN / "images" / name)
        if not isinstance(frame, Frame):
            continue
        read = [s for s in reader.read(frame.image) if s.card is not None]
        for i, j in match_reads([box for _, box in labels[name]], read):
            ok = read[j].rank == labels[name][i][0]
            confidences.append((read[j].confidence, ok))
            acting = read[j].confidence >= ACT_CONFIDENCE
            right += ok and acting
            right_any += ok
            wrong_confident += (not ok) and acting
            if args.errors and not ok:
                print(
                    f"{name}: {labels[name][i][0]} read {read[j].card} at {read[j].confidence:.3f}",
                    file=sys.stderr,
                )
        total += len(labels[name])
    cuts = {}
    for cut in (0.5, 0.7, 0.8, 0.9, 0.95, 0.98, 0.99):
        kept = [ok for c, ok in confidences if c >= cut]
        cuts[str(cut)] = {"right": sum(kept), "wrong": len(kept) - sum(kept)}
    print(
        json.dumps(
            {
                "rank_accuracy": round(right / total, 4),
                "rank_accuracy_any": round(right_any / total, 4),
                "wrong_confident": wrong_confident,
                "cards": total,
                "by_cut": cuts,
            }
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
