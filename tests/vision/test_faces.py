"""vision.faces.light_print on a dark card cut by the frame's edge: its part in view is looked at."""

from __future__ import annotations

import cv2
import numpy as np

from vision.faces import light_print

FIELD = 70  # a dark card's field lit brighter than a black back in shade (PRINT_FIELD is 90)
GOLD = (40, 170, 210)
PIPS = ((335, 100), (335, 150), (365, 125), (396, 100), (396, 150))  # the last two cut by the edge


def cut_card(pips: bool) -> tuple[np.ndarray, np.ndarray]:
    """A 400 x 300 frame of light cloth with a dark card (90 x 126 px) running 40 px off its right
    edge, and the card's whole outline (short side first); ``pips``: gold marks on it, two cut by
    the frame's edge."""
    frame = np.full((300, 400, 3), 210, np.uint8)
    quad = np.array([[314, 170], [314, 80], [440, 80], [440, 170]], np.float32)
    cv2.rectangle(frame, (314, 80), (400, 170), (FIELD, FIELD, FIELD), -1)
    if pips:
        for x, y in PIPS:
            cv2.circle(frame, (x, y), 6, GOLD, -1)
    return frame, quad


def test_a_cut_dark_cards_print_is_looked_at_in_view() -> None:
    frame, quad = cut_card(pips=True)
    look = light_print(frame, quad)
    assert look.printed, look
    # its share is of the part in view: the same marks on the whole card are less of it
    whole = np.full((300, 500, 3), 210, np.uint8)
    cv2.rectangle(whole, (314, 80), (440, 170), (FIELD, FIELD, FIELD), -1)
    for x, y in PIPS:
        cv2.circle(whole, (x, y), 6, GOLD, -1)
    seen_whole = light_print(whole, quad)
    assert seen_whole.printed and look.share > seen_whole.share


def test_a_plain_dark_card_cut_by_the_frames_edge_shows_no_print() -> None:
    """Beyond the frame the warp is black: a step down from the card's field at the frame's edge,
    which the local level (an opening) follows, so no print rises there."""
    frame, quad = cut_card(pips=False)
    look = light_print(frame, quad)
    assert not look.printed and look.why == "no print", look
