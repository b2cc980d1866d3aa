"""STUD-18: the action button is a house option of stud eight-or-better, set in the table's config."""

from __future__ import annotations

import pytest

from tablectl.core.table import TableConfig, TableConfigError

STUD_HI_LO = {"game": "F7S/8", "small_bet": 100, "big_bet": 200, "bring_in": 25}


def test_the_action_button_is_off_unless_the_table_sets_it() -> None:
    assert TableConfig(**STUD_HI_LO).action_button == 0
    assert TableConfig(**STUD_HI_LO, action_button=500).action_button == 500


@pytest.mark.parametrize("game", [{"game": "F7S"}, {"game": "FR"}])
def test_a_game_other_than_stud_eight_or_better_has_no_action_button(game: dict[str, str]) -> None:
    with pytest.raises(TableConfigError, match="action_button: .*does not deal F7S/8"):
        TableConfig(**{**STUD_HI_LO, **game}, action_button=500)


@pytest.mark.parametrize("size", [-1, "500", 2.5])
def test_the_pot_size_is_whole_chips(size: object) -> None:
    with pytest.raises(TableConfigError, match="action_button: the pot a scoop must exceed"):
        TableConfig(**STUD_HI_LO, action_button=size)  # type: ignore[arg-type]


def test_the_journal_keeps_the_option_and_older_configs_still_match() -> None:
    on = TableConfig(**STUD_HI_LO, action_button=500)
    assert TableConfig.from_json(on.to_json()) == on
    assert "action_button" not in TableConfig(**STUD_HI_LO).to_json()  # a journal from before it
