"""The training photos' split (tools/vision_validate.py) and how the classifier's training labels
their corners (tools/train_index_classifier.py): the validation part must never be trained on."""

from __future__ import annotations

import csv
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.vision.test_corners import card_corners
from tools.train_index_classifier import _whole_card_corner, jittered
from tools.vision_validate import LABEL_ERRATA, RANK_OF, TRAIN, VALIDATION_RUNS, load_labels, photo_names
from vision.corners import corner_frames, find_blobs
from vision.reader import SECOND_LOOK


def test_the_two_parts_split_the_labelled_photos() -> None:
    training, validation = photo_names("training"), photo_names("validation")
    assert not set(training) & set(validation)
    assert sorted(training + validation) == photo_names("all") == sorted(load_labels())
    # every run holds photos (a misspelt one would leave nothing out of the training part)
    assert all(any(name.startswith(run) for name in validation) for run in VALIDATION_RUNS)
    assert len(validation) == 63
    assert 0.18 <= len(validation) / len(photo_names("all")) <= 0.25


def test_the_folds_split_the_training_part_by_whole_runs() -> None:
    """Cross-validation's folds (train_index_classifier.py --hold-out K/N, vision_validate.py
    --images fold:K/N): together the training part, each photo in one, each run in one."""
    folds = [photo_names(f"fold:{k}/3") for k in range(3)]
    assert sorted(sum(folds, [])) == photo_names("training")
    assert [len(fold) for fold in folds] == [84, 73, 76]
    runs = [{Path(name).stem[:-1] for name in fold} for fold in folds]
    assert not (runs[0] & runs[1] or runs[0] & runs[2] or runs[1] & runs[2])


@pytest.mark.parametrize("part", ["validaton", "fold:3/3", "fold:a/3", "fold:1"])
def test_a_part_not_known_is_refused_rather_than_read_as_all(part: str) -> None:
    with pytest.raises(ValueError, match="fold|parts"):
        photo_names(part)


def test_each_label_corrected_is_a_label_of_the_file_and_takes_its_place() -> None:
    """An erratum names a box labels.csv has (a typo would correct nothing, silently), and the
    corrected rank replaces the published one."""
    labels = load_labels()
    with open(TRAIN / "labels.csv", newline="") as handle:
        published = {
            (row["filename"], int(row["xmin"]), int(row["ymin"])): row["class"]
            for row in csv.DictReader(handle)
        }
    for (name, x0, y0), rank in LABEL_ERRATA.items():
        assert RANK_OF[published[(name, x0, y0)]] != rank, (name, x0, y0)  # a correction, not a copy
        ranks = [r for r, box in labels[name] if box[:2] == (x0, y0)]
        assert ranks == [rank], (name, x0, y0)


def test_runs_of_consecutive_shots_stay_in_one_part() -> None:
    """Neighbouring shots are near copies: a run of ten (IMG_240x) is wholly in one part."""
    validation = set(photo_names("validation"))
    for name in photo_names("all"):
        if name.startswith("IMG_"):
            run = [n for n in photo_names("all") if n.startswith(name[:7]) and len(n) == len(name)]
            assert all((n in validation) == (name in validation) for n in run), name


def test_a_whole_cards_index_corners_are_told_from_its_pip_corners() -> None:
    for angle in (0.0, 25.0, 120.0, 200.0):
        image = np.full((480, 640, 3), (30, 90, 20), np.uint8)
        # the card's own corners, clockwise from its top left, about the frame's middle
        quad = card_corners((320 - 50, 240 - 70), 100, angle)
        quad += (320, 240) - quad.mean(axis=0)
        cv2.fillConvexPoly(image, quad.astype(np.int32), (235, 235, 235))
        blobs = find_blobs(image)
        frames = [f for f in corner_frames(blobs, image.shape) if blobs[f.blob].whole]
        assert frames, angle
        index_corners = (quad[0], quad[2])  # top left and bottom right
        kinds = set()
        for frame in frames:
            kind = _whole_card_corner(frame, blobs[frame.blob])
            at_index = min(float(np.hypot(*(np.array(frame.point) - c))) for c in index_corners) < 8
            assert kind == ("index" if at_index else "pips"), (angle, frame.point, kind)
            kinds.add(kind)
        assert kinds == {"index", "pips"}, angle


def test_the_readers_own_windows_come_first() -> None:
    import random

    image = np.full((480, 640, 3), (30, 90, 20), np.uint8)
    cv2.fillConvexPoly(image, card_corners((200, 100), 100, 10).astype(np.int32), (235, 235, 235))
    blobs = find_blobs(image)
    frame = corner_frames(blobs, image.shape)[0]
    rng = random.Random(1)
    widths = [jittered(rng, frame, k).width / frame.width for k in range(1 + len(SECOND_LOOK))]
    assert widths == [1.0, *SECOND_LOOK]
    moved = [jittered(rng, frame, 10) for _ in range(50)]
    assert any(f.point != frame.point for f in moved)
    assert all(0.5 < f.width / frame.width < 2.0 for f in moved)


def test_a_dark_backs_lattice_is_ink_on_paper_to_the_classifier_as_the_reader_cuts_it() -> None:
    import random

    from tools.train_index_classifier import dark_lattice_back, frame_at, on_canvas
    from vision.index_patch import cut_patch, normalise

    rng = random.Random(4)
    for _ in range(5):
        patch = cut_patch(on_canvas(rng, dark_lattice_back(rng)), frame_at(rng, 0, jitter=False))
        as_dark_card = normalise(patch, True)[0]
        # the reader normalises a dark blob's windows as a dark card: the lattice's lines are the
        # ink, on a field of paper (what the classifier read as a king)
        assert float(np.median(as_dark_card)) < 0.5
        assert float((as_dark_card > 0.7).mean()) > 0.05
        # as paper the dark field would be the ink
        assert float(np.median(normalise(patch, False)[0])) > 0.5


@pytest.mark.parametrize("share", [0.0, 1.0])
def test_an_index_window_cut_far_too_small_is_taught_as_no_index(
    monkeypatch: pytest.MonkeyPatch, share: float
) -> None:
    import random

    import tools.train_index_classifier as training

    monkeypatch.setattr(training, "OVERSIZED_SHARE", share)
    face = np.full((training.FACE_H, training.FACE_W, 3), 240, np.uint8)
    rng = random.Random(7)
    labels = [training.sample(rng, [(face, 5, 2)], backs=False)[1:] for _ in range(60)]
    indexes = sum(label == (5, 2) for label in labels)
    # --oversized: every index corner's window is cut at a jumbo index's scale, and none is an index
    assert (indexes == 0) if share == 1.0 else (indexes > 20)
    assert all(label in ((5, 2), (training.NONE_RANK, training.NONE_SUIT)) for label in labels)


def test_patterned_backs_are_taught_as_no_index_and_cost_the_committed_recipe_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """--patterned-backs P: a share P of the patches is cut from a harlequin, checks, dots or
    stripes (patterned_back), each 'none'; with P = 0, the committed recipe's default, the set
    is the one it was made with (no draw of the generator spent on them)."""
    import tools.train_index_classifier as training

    def labels(seed: int) -> tuple[np.ndarray, np.ndarray]:
        xs, ranks, _ = training.make_set(seed, 40, [], with_geaxgx=True)  # geaxgx's faces: no fonts needed
        return xs, ranks

    before_xs, before = labels(3)
    monkeypatch.setattr(training, "PATTERNED_BACK_SHARE", 1.0)
    _, every = labels(3)
    assert (every == training.NONE_RANK).all()
    monkeypatch.setattr(training, "PATTERNED_BACK_SHARE", 0.0)
    again_xs, again = labels(3)
    assert (again == before).all() and np.array_equal(again_xs, before_xs)
    assert (before != training.NONE_RANK).any()
