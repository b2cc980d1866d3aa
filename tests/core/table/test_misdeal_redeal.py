"""MD-2's ruling says what the redeal keeps: the button and blinds in a button game, nothing of the
kind in stud (STUD-19: no button, no blinds; the bring-in is dealt again from the up cards)."""

from __future__ import annotations

import pytest

from tablectl.core.effects import Ruling
from tablectl.core.events import CardDrawn, DealerInput, DealerKey
from tablectl.core.sentences import render
from tablectl.core.table import TableConfig, new_table, step

STUD = TableConfig(seats=6, game="F7S", small_bet=100, big_bet=200, bring_in=25, ante=5)
HOLDEM = TableConfig(seats=6, game="NT", blinds=(50, 100))


@pytest.mark.parametrize(
    ("config", "said"),
    [
        (STUD, "Misdeal: every chip goes back; redeal."),
        (HOLDEM, "Misdeal: every chip goes back; redeal with the same button and blinds."),
    ],
    ids=["stud", "hold'em"],
)
def test_the_misdeal_ruling_names_a_button_only_where_there_is_one(config: TableConfig, said: str) -> None:
    state = new_table(config, {1: ("Ann", 1000), 2: ("Bob", 1000), 3: ("Cy", 1000)}, button=3)
    state, _ = step(state, DealerInput(DealerKey.NEW_HAND))
    for card in range(3):
        state, _ = step(state, CardDrawn(card))
    state, _ = step(state, DealerInput(DealerKey.MISDEAL))
    state, effects = step(state, DealerInput(DealerKey.CONFIRM))
    texts = [render(e.said) for e in effects if isinstance(e, Ruling) and e.rule == "MD-2"]
    assert texts == [said]
    assert state.hand is None and state.redeal
