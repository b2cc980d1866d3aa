"""Frames that show the last frame read again (vision/change.py)."""

from __future__ import annotations

import numpy as np

from tests.helpers.camera_frames import felt, with_card
from vision.change import READ_AT_LEAST_EVERY, ChangeGate


def _noisy(frame: np.ndarray, rng: np.random.Generator, sigma: float = 4.0) -> np.ndarray:
    """``frame`` as a camera's sensor gives it: fresh noise on every pixel, every frame."""
    return np.clip(frame + rng.normal(0, sigma, frame.shape), 0, 255).astype(np.uint8)


def test_a_still_table_under_sensor_noise_is_read_once_a_second() -> None:
    rng = np.random.default_rng(1)
    table = with_card(felt(), "7c", (160, 360))
    gate = ChangeGate()
    read = [gate.must_read(_noisy(table, rng)) for _ in range(3 * READ_AT_LEAST_EVERY)]
    assert [n for n, r in enumerate(read) if r] == [0, READ_AT_LEAST_EVERY, 2 * READ_AT_LEAST_EVERY]


def test_a_card_dealt_swapped_or_taken_away_is_read_at_once() -> None:
    rng = np.random.default_rng(2)
    empty = felt()
    seven = with_card(empty, "7c", (160, 360))
    gate = ChangeGate()
    assert gate.must_read(_noisy(empty, rng))
    assert not gate.must_read(_noisy(empty, rng))
    assert gate.must_read(_noisy(seven, rng))  # a card dealt
    assert not gate.must_read(_noisy(seven, rng))
    # the same place, another card: only its index and pips differ
    assert gate.must_read(_noisy(with_card(empty, "8c", (160, 360)), rng))
    assert gate.must_read(_noisy(empty, rng))  # taken away


def test_a_card_slid_by_a_pixel_is_read() -> None:
    gate = ChangeGate()
    assert gate.must_read(with_card(felt(), "Kd", (200, 300)))
    assert gate.must_read(with_card(felt(), "Kd", (201, 300)))


def test_a_slow_change_adds_up_against_the_last_frame_read() -> None:
    """A shadow deepening by 3 grey levels a frame over a card: no frame differs from the one
    before it by the gate's level, but each is compared with the last one read, so the change
    shows every fourth frame."""
    gate = ChangeGate()
    table = with_card(felt(), "Kd", (200, 300)).astype(np.int16)
    frames = [np.clip(table - 3 * step, 0, 255).astype(np.uint8) for step in range(13)]
    read = [n for n, frame in enumerate(frames) if gate.must_read(frame)]
    assert read == [0, 4, 8, 12]


def test_forgotten_the_next_frame_is_read() -> None:
    gate = ChangeGate()
    table = felt()
    assert gate.must_read(table) and not gate.must_read(table)
    gate.forget()
    assert gate.must_read(table)
    assert gate.must_read(table[:240])  # a frame of another size is another view


def test_after_a_change_the_next_frames_are_read_until_the_scene_has_settled() -> None:
    """``settle``: the zone watch's agree and release need that many frames read after a change."""
    gate = ChangeGate(settle=4)
    table, dealt = felt(), with_card(felt(), "Qh", (300, 300))
    read = [gate.must_read(frame) for frame in [table] * 6 + [dealt] * 6]
    assert read == [True] * 4 + [False] * 2 + [True] * 4 + [False] * 2
