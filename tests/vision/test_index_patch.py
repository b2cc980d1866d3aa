"""The index window cut at a corner frame (vision/index_patch.py)."""

from __future__ import annotations

import math

import numpy as np

from vision.corners import CornerFrame
from vision.index_patch import (
    PATCH_H,
    PATCH_W,
    REMAP_FRAMES,
    WINDOW_ACROSS,
    WINDOW_DOWN,
    cut_patch,
    cut_patches,
    normalise_all,
)


def coordinates_image() -> np.ndarray:
    """Each pixel's blue and green are its x and y (a 256 x 256 image)."""
    ys, xs = np.mgrid[0:256, 0:256]
    return np.stack([xs, ys, np.zeros_like(xs)], axis=2).astype(np.uint8)


def test_a_window_runs_from_the_corner_along_its_edges() -> None:
    turn = math.radians(30)
    across, down = (math.cos(turn), math.sin(turn)), (-math.sin(turn), math.cos(turn))
    frame = CornerFrame((120.0, 60.0), across, down, 100.0, 0)
    [patch] = cut_patches(coordinates_image(), [frame]).astype(float)
    assert patch.shape == (PATCH_H, PATCH_W, 3)
    for x, y in [(0, 0), (PATCH_W - 1, 0), (0, PATCH_H - 1), (12, 20)]:
        along, downwards = x / PATCH_W * WINDOW_ACROSS * 100, y / PATCH_H * WINDOW_DOWN * 100
        expected = np.array(frame.point) + np.array(across) * along + np.array(down) * downwards
        assert np.abs(patch[y, x, :2] - expected).max() <= 1.0


def test_windows_cut_together_are_the_windows_cut_one_by_one() -> None:
    image = np.random.default_rng(3).integers(0, 256, (200, 300, 3), dtype=np.uint8)
    frames = [
        CornerFrame((40.0 + 30 * k, 50.0 + 7 * k), (0.8, 0.6), (-0.6, 0.8), 60.0 + 10 * k, k)
        for k in range(5)
    ]
    together = cut_patches(image, frames)
    assert [(together[k] == cut_patch(image, frame)).all() for k, frame in enumerate(frames)] == [True] * 5
    assert len({together[k].tobytes() for k in range(5)}) == 5  # five windows, not one five times
    assert cut_patches(image, []).shape == (0, PATCH_H, PATCH_W, 3)


def test_more_windows_than_one_remap_takes_are_cut_in_slices_alike() -> None:
    """OpenCV's remap refuses maps of 32,767 rows or more (820 windows): a busy frame proposes more
    corners than that (a large photo of wood grain), and every window is still cut, each as alone."""
    image = np.random.default_rng(5).integers(0, 256, (300, 400, 3), dtype=np.uint8)
    count = 2 * REMAP_FRAMES + 7
    frames = [
        CornerFrame((20.0 + k % 300, 30.0 + k % 200), (0.8, 0.6), (-0.6, 0.8), 40.0 + k % 50, k)
        for k in range(count)
    ]
    together = cut_patches(image, frames)
    assert together.shape == (count, PATCH_H, PATCH_W, 3)
    for k in (0, REMAP_FRAMES - 1, REMAP_FRAMES, 2 * REMAP_FRAMES, count - 1):
        assert (together[k] == cut_patch(image, frames[k])).all()


def test_a_scaled_window_is_the_window_of_a_card_that_much_wider() -> None:
    image = np.random.default_rng(4).integers(0, 256, (200, 300, 3), dtype=np.uint8)
    frame = CornerFrame((60.0, 40.0), (0.8, 0.6), (-0.6, 0.8), 50.0, 0)
    wider = CornerFrame(frame.point, frame.across, frame.down, 75.0, 0)
    assert (cut_patches(image, [frame], 1.5) == cut_patches(image, [wider])).all()
    assert not (cut_patches(image, [frame], 1.5) == cut_patches(image, [frame])).all()


def test_a_four_colour_decks_blue_ink_is_red_to_the_classifier_and_a_two_colour_decks_is_not() -> None:
    """A four-colour deck prints its diamonds blue: read as that deck (vision.calibrate.learn_faces
    learned it), blue ink is what red ink is on a two-colour deck; green (its clubs) stays dark ink,
    as black does; black and red ink are the same either way."""
    patches = np.full((4, PATCH_H, PATCH_W, 3), 240, np.uint8)
    for k, ink in enumerate(
        [(200, 40, 30), (30, 140, 30), (20, 20, 20), (30, 30, 200)]
    ):  # blue, green, black, red
        patches[k, 5:20, 5:15] = ink
    dark = np.zeros(4, bool)
    two, four = normalise_all(patches, dark), normalise_all(patches, dark, four_colour=True)
    assert [float(two[k, 1, 10, 10]) for k in range(4)] == [0.0, 0.0, 0.0, 1.0]
    assert [float(four[k, 1, 10, 10]) for k in range(4)] == [1.0, 0.0, 0.0, 1.0]
    assert (two[:, 0] == four[:, 0]).all() and (four[:, 0, 10, 10] > 0.9).all()  # all four are ink
