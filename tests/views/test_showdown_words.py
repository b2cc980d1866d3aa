"""The winning hand in words at the final table's stud, razz and draw showdowns, and the narration
of those games: each game's own ranking (razz and deuce-to-seven are lows, never high hands),
no button or blinds named at stud, the bring-in, the completion, the streets and the draws."""

from __future__ import annotations

import random

import pytest

from tablectl.formats.phh import iter_sources, parse_phh
from tablectl.sim.demo import real_hands, run_table, shared_data_dir
from tablectl.sim.phh_table import play, table_hand
from tablectl.views.showdown import result

DATA = shared_data_dir()
WSOP = DATA / "phh" / "wsop-2023-43" if DATA else None
needs_records = pytest.mark.skipif(WSOP is None or not WSOP.is_dir(), reason="no ../shared/data")


def records() -> dict[str, str]:
    assert WSOP is not None
    return {source.split("/")[-1]: text for source, text in iter_sources([WSOP])}


@needs_records
@pytest.mark.parametrize(
    ("record", "words"),
    [
        ("11.phh", [("all", "Two pair, tens and sixes")]),  # seven-card stud
        ("24.phh", [("all", "Low 6-5-4-3-2")]),  # razz: a low, not a six-high straight
        ("46.phh", [("all", "A-8-7-5-3")]),  # 2-7 single draw: the ace plays high
        ("45.phh", [("all", "Pair of fours")]),
        ("55.phh", [("all", "7-6-5-4-2")]),  # 2-7 triple draw
        ("48.phh", [("high", "Two pair, aces and tens"), ("low", "Low: eight-seven")]),  # stud/8
    ],
)
def test_the_winning_hand_is_named_by_the_games_own_ranking(
    record: str, words: list[tuple[str, str]]
) -> None:
    hand = table_hand(parse_phh(records()[record], record), random.Random(0))
    *_, (_, _, state, _) = play(hand)  # the table after the record's last event
    shown = result(state)
    assert shown is not None
    assert [(a["half"], a["hand"]) for a in shown["awards"]] == words


@needs_records
def test_stud_and_draw_are_narrated_street_by_street_and_draw_by_draw() -> None:
    assert WSOP is not None
    wanted = ("20.phh", "57.phh")  # razz to sixth street; 2-7 triple draw to the third draw
    hands = [h for h in real_hands([WSOP], "tda", 0) if h[0].split("/")[-1] in wanted]
    lines: list[str] = []
    run_table(iter(hands), len(wanted), lines.append, slip_rate=0)
    text = "\n".join(lines)
    razz = text[: text.index("57.phh")]
    assert "button" not in razz and "(SB)" not in razz  # no button, no blinds at stud
    assert "Fixed-limit razz, 200,000/400,000, ante 50,000, bring-in 50,000, 5 players" in razz
    assert "Third street: James Obst [7c 3h] Kc," in razz
    assert "  James Obst brings in 50,000" in razz
    assert "  Talal Shakerchi completes to 200,000" in razz
    assert "Sixth street: Talal Shakerchi [8s 6s] 5s Jh Ks Kd, Brian Rast [3s 2c] 8h 6c Js 3c" in razz
    draw = text[text.index("57.phh") :]
    assert "Seat 5 has the button." in draw
    assert "  Matthew Ashton (BB) discards 2 (As Ks)" in draw
    assert "After the first draw: Matthew Ashton (BB) 8s 5h 4c Jh 4s," in draw
    assert "After the third draw:" in draw
