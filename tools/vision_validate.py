"""Validation on ../shared/data/cards/photos-tfod-train (rank labels only, no suits): the figures to
tune against, so that the test folder (bench/vision.py) stays a final check.

    .venv/bin/python tools/vision_validate.py [--limit N] [--errors] [--stages [--misses]] [--model PATH]
        [--images all|training|validation]

--stages counts, for every card not read right at acting confidence, the stage that lost it (see
``lost_at``): the tally that says which part of the pipeline to work on next.

The index classifier trains on the photos' training part (tools/train_index_classifier.py
--photos); models are then chosen on the validation part (--images validation), photos it never saw.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.vision import match_reads  # noqa: E402
from vision.corners import corner_frames, find_blobs  # noqa: E402
from vision.index_reader import RANK_LABELS, IndexRead, IndexReader  # noqa: E402
from vision.reader import ACT_CONFIDENCE, MAX_SIDE, READ_CONFIDENCE, CardReader  # noqa: E402
from vision.sighting import CardSighting  # noqa: E402
from vision.sources import Frame, read_image  # noqa: E402
from vision.types import BGRImage  # noqa: E402

TRAIN = ROOT.parent / "shared" / "data" / "cards" / "photos-tfod-train"
RANK_OF = {"nine": "9", "ten": "T", "jack": "J", "queen": "Q", "king": "K", "ace": "A"}
OTHER_CARD_MARGIN = 3.0  # pixels: a frame this near a card read for another label is at its outline
# The photos' validation part, never trained on: whole runs of ten consecutive shots (IMG_240x is
# IMG_2400 to IMG_2409), drawn with random.Random(12) until a fifth of the photos, because
# neighbouring shots are often the same cards on the same table, and a near copy of a training
# photo would validate nothing. 63 photos, 92 cards.
VALIDATION_RUNS = (
    "IMG_240",
    "IMG_244",
    "IMG_250",
    "IMG_254",
    "IMG_265",
    "IMG_266",
    "IMG_269",
    "cam_image5",
)


def in_validation(name: str) -> bool:
    """Whether a photo (its file name) is in the validation part: its run is the name without
    its last digit."""
    return Path(name).stem[:-1] in VALIDATION_RUNS


# labels.csv as published, corrected where the photo shows another rank (each checked by eye):
# (file, xmin, ymin) of the label's box -> the rank the card shows
LABEL_ERRATA = {
    # labelled a nine: the ten of diamonds, ten pips and a '10' at both index corners
    ("IMG_2396.JPG", 126, 172): "T",
}


def load_labels() -> dict[str, list[tuple[str, tuple[int, int, int, int]]]]:
    """Each training photo's cards: (rank letter, the box around the card) as labels.csv has them,
    with LABEL_ERRATA's corrections."""
    labels: dict[str, list[tuple[str, tuple[int, int, int, int]]]] = {}
    with open(TRAIN / "labels.csv", newline="") as handle:
        for row in csv.DictReader(handle):
            box = (int(row["xmin"]), int(row["ymin"]), int(row["xmax"]), int(row["ymax"]))
            rank = LABEL_ERRATA.get((row["filename"], box[0], box[1]), RANK_OF[row["class"]])
            labels.setdefault(row["filename"], []).append((rank, box))
    return labels


def fold_of(name: str, folds: int, runs: list[str]) -> int:
    """A training-part photo's cross-validation fold of ``folds``: its run (as VALIDATION_RUNS), the
    training part's runs (``runs``, in name order) dealt round the folds, so that no run is in two."""
    return runs.index(Path(name).stem[:-1]) % folds


def photo_names(part: str) -> list[str]:
    """The labelled photos of one part: 'all', 'training' (what the classifier may learn from),
    'validation' (VALIDATION_RUNS), or 'fold:K/N' (fold K of N of the training part, fold_of)."""
    names = sorted(load_labels())
    if part.startswith("fold:"):
        try:
            fold, folds = (int(n) for n in part.removeprefix("fold:").split("/"))
        except ValueError:
            raise ValueError(f"{part!r}: a fold is fold:K/N, K and N whole numbers") from None
        if not 0 <= fold < folds:
            raise ValueError(f"{part!r}: there is no fold {fold} of {folds} (K is 0 to N - 1)")
        training = [n for n in names if not in_validation(n)]
        runs = sorted({Path(n).stem[:-1] for n in training})
        return [n for n in training if fold_of(n, folds, runs) == fold]
    if part == "training":
        return [n for n in names if not in_validation(n)]
    if part == "validation":
        return [n for n in names if in_validation(n)]
    if part == "all":
        return names
    raise ValueError(f"{part!r}: the parts are all, training, validation and fold:K/N")


class _Looks:
    """One photo's corner frames and their reads before and after the second look, as
    CardReader.read makes them (its steps, called one by one to see where a card is lost)."""

    def __init__(self, reader: CardReader, image: BGRImage) -> None:
        self.scale = min(1.0, MAX_SIDE / max(image.shape[:2]))
        work = (
            image
            if self.scale == 1.0
            else cv2.resize(image, None, fx=self.scale, fy=self.scale, interpolation=cv2.INTER_AREA)
        )
        blobs = find_blobs(work)
        self.frames = corner_frames(blobs, work.shape)
        _, self.first, _, _ = reader._first_look(work, blobs, self.frames)
        self.second = reader._second_look(work, blobs, self.frames, self.first)

    def _inside(self, box: tuple[int, int, int, int], others: Sequence[CardSighting] = ()) -> list[int]:
        """The frames proposed in a card's box (its label's, a twentieth of its size around), but
        for those at the outline of ``others`` (the cards read for other labels: a card lying on
        another, its box holding the other's corner, is not read where the other is)."""
        x0, y0, x1, y1 = (v * self.scale for v in box)
        margin = 0.05 * max(x1 - x0, y1 - y0)
        outlines = [np.array(card.corners, np.float32) * self.scale for card in others]
        return [
            n
            for n, f in enumerate(self.frames)
            if x0 - margin <= f.point[0] <= x1 + margin
            and y0 - margin <= f.point[1] <= y1 + margin
            and not any(cv2.pointPolygonTest(quad, f.point, True) >= -OTHER_CARD_MARGIN for quad in outlines)
        ]

    def lost_at(self, box: tuple[int, int, int, int], rank: str, others: Sequence[CardSighting] = ()) -> str:
        """Why a card (its label's box and rank) was not read right at acting confidence."""
        inside = self._inside(box, others)

        def best(reads: list[IndexRead]) -> float:
            right = [
                reads[n].confidence
                for n in inside
                if reads[n].is_index and RANK_LABELS[reads[n].rank] == rank
            ]
            return max(right, default=0.0)

        if not inside:
            return "no corner proposed in its box"
        if best(self.first) < READ_CONFIDENCE:
            return "never read right at any corner"
        if best(self.first) < ACT_CONFIDENCE:
            return "read right only below acting confidence"
        if best(self.second) < ACT_CONFIDENCE:
            return "lost at the second look"
        return "lost at the merge"

    def surest_reads(
        self, box: tuple[int, int, int, int], others: Sequence[CardSighting] = (), count: int = 4
    ) -> list[tuple[float, str, int]]:
        """The first look's surest index reads at a card's corners: (confidence, rank, width guess)."""
        return sorted(
            (
                (self.first[n].confidence, RANK_LABELS[self.first[n].rank], round(self.frames[n].width))
                for n in self._inside(box, others)
                if self.first[n].is_index
            ),
            reverse=True,
        )[:count]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--limit", type=int)
    parser.add_argument("--errors", action="store_true")
    parser.add_argument("--stages", action="store_true", help="count the stage that lost each card")
    parser.add_argument(
        "--misses",
        action="store_true",
        help="print each card not read right at acting confidence (as --stages counts them), its "
        "stage, what was read for it and the first look's surest reads at its corners",
    )
    parser.add_argument("--model", type=Path, help="an index classifier to try (default: the committed one)")
    parser.add_argument(
        "--images",
        default="all",
        help="which photos: all, training (the classifier's training part), validation (its "
        "validation part), or fold:K/N (fold K of N of the training part, to read with a model "
        "trained with --hold-out K/N)",
    )
    args = parser.parse_args()
    args.stages = args.stages or args.misses
    try:
        names = photo_names(args.images)
    except ValueError as error:
        parser.error(f"--images {error}")
    labels = load_labels()
    # a candidate is read with the committed print check, as the product reads the committed model
    reader = CardReader.with_classifier(IndexReader(args.model)) if args.model else CardReader()
    right = right_any = wrong_confident = total = 0
    confidences: list[tuple[float, bool]] = []
    lost: Counter[str] = Counter()
    for name in names[: args.limit]:
        frame = read_image(TRAIN / "images" / name)
        if not isinstance(frame, Frame):
            continue
        read = [s for s in reader.read(frame.image) if s.card is not None]
        matches = match_reads([box for _, box in labels[name]], read)
        if args.stages:
            looks = _Looks(reader, frame.image)
            done = {
                i
                for i, j in matches
                if read[j].confidence >= ACT_CONFIDENCE and read[j].rank == labels[name][i][0]
            }
            for i, (rank, box) in enumerate(labels[name]):
                if i not in done:
                    others = [read[j] for k, j in matches if k != i and k in done]
                    stage = looks.lost_at(box, rank, others)
                    lost[stage] += 1
                    if args.misses:
                        got = [f"{read[j].card}@{read[j].confidence:.2f}" for k, j in matches if k == i]
                        first = [f"{r}@{c:.2f}/{w}px" for c, r, w in looks.surest_reads(box, others)]
                        print(
                            f"{name}: {rank} [{stage}] read {got or '-'}, first look {first}", file=sys.stderr
                        )
        for i, j in matches:
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
                "images": args.images,
                "cards": total,
                "by_cut": cuts,
                **({"not_read_right_at_acting_confidence": dict(lost.most_common())} if args.stages else {}),
            }
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
