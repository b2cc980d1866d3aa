"""A table file's [rotation] (HO-13): the example's block loads once uncommented; a mistake in it
names the file, the line, the key and the fix, as the other config errors do."""

from __future__ import annotations

import re

import pytest

from tablectl.core.table import TableConfig
from tablectl.core.table.rotation import Change, GameStakes
from tablectl.service.tablefile import ConfigFileError, parse_table_config
from tests.service.test_tablefile import TEXT, line_of


def rotated(text: str = TEXT) -> str:
    """The example with its [rotation] block uncommented and [table]'s single game left out."""
    block = re.search(r"^# \[rotation\]\n.*?(?=\n\n\[shoe\])", text, re.MULTILINE | re.DOTALL)
    assert block is not None
    lines = []
    for line in block.group(0).splitlines():
        code = line.removeprefix("# ")
        if re.match(r"^(\[|[a-z_]+ = )", code):
            lines.append(code)
        else:
            lines.append(line)
    text = text.replace(block.group(0), "\n".join(lines))
    for key in ("game", "blinds", "ante", "big_blind_ante", "small_bet", "big_bet", "bring_in", "spread_max"):
        text = re.sub(rf"^{key} = .*$", "", text, count=1, flags=re.MULTILINE)
    return text


def nth_line(text: str, start: str, n: int) -> int:
    """The number of the n-th line (from 1) starting with ``start``."""
    found = [k for k, line in enumerate(text.splitlines(), start=1) if line.startswith(start)]
    return found[n - 1]


def error(text: str) -> str:
    with pytest.raises(ConfigFileError) as caught:
        parse_table_config(text, "table.toml")
    return str(caught.value)


def replace_in_game(text: str, n: int, old: str, new: str) -> str:
    """``text`` with line ``old`` of the n-th [[rotation.games]] replaced by ``new``."""
    lines = text.splitlines()
    start = nth_line(text, "[[rotation.games]]", n)
    for k in range(start, len(lines)):
        if lines[k].startswith(old):
            lines[k] = new
            return "\n".join(lines) + "\n"
    raise AssertionError(old)


def test_the_examples_rotation_loads() -> None:
    table = parse_table_config(rotated(), "table.toml").table
    rotation = table.rotation
    assert rotation is not None
    assert (rotation.name, rotation.change, rotation.orbits) == ("PLO / NLH", Change.ORBIT, 1)
    assert rotation.games == (
        GameStakes("PO", blinds=(50, 100)),
        GameStakes("NT", blinds=(50, 100), big_blind_ante=100),
        GameStakes("FO/8", blinds=(50, 100), small_bet=100, big_bet=200),
    )
    assert TableConfig.from_json(table.to_json()) == table  # as the journal keeps it


def test_an_unknown_game_names_its_line() -> None:
    text = replace_in_game(rotated(), 2, "game = ", 'game = "NX"')
    assert error(text).startswith(
        f"table.toml:{nth_line(text, 'game = ', 2)}: rotation.games[2].game: variant 'NX' is not supported"
    )


def test_a_stake_missing_for_a_game_names_the_games_section_and_the_fix() -> None:
    text = replace_in_game(rotated(), 3, "small_bet = ", "")
    assert error(text) == (
        f"table.toml:{nth_line(text, '[[rotation.games]]', 3)}: rotation.games[3].small_bet: FO/8 is a "
        "fixed-limit game: give its small and big bet, e.g. small_bet = 100 and big_bet = 200"
    )
    text = replace_in_game(rotated(), 1, "blinds = ", "")
    assert error(text) == (
        f"table.toml:{nth_line(text, '[[rotation.games]]', 1)}: rotation.games[1].blinds: PO posts "
        "blinds: give them, small first, e.g. [50, 100]"
    )


def test_a_stud_game_in_the_rotation_takes_its_ante_and_bring_in() -> None:
    text = replace_in_game(rotated(), 3, "game = ", 'game = "F7S"')
    text = replace_in_game(text, 3, "blinds = ", "ante = 25\nbring_in = 50")  # stud's stakes
    rotation = parse_table_config(text, "table.toml").table.rotation
    assert rotation is not None
    stud = rotation.games[2]
    assert (stud.game, stud.ante, stud.bring_in, stud.has_button) == ("F7S", 25, 50, False)
    text = replace_in_game(text, 3, "bring_in = ", "")
    assert "rotation.games[3].bring_in" in error(text)


def test_the_single_games_keys_left_in_the_table_section_are_refused() -> None:
    text = rotated().replace("seats = 9\n", 'seats = 9\ngame = "NT"\n', 1)
    assert error(text) == (
        f"table.toml:{line_of(text, 'game = ')}: table.game: the table plays the games of its [rotation] "
        f"(line {line_of(text, '[rotation]')}), each at its own stakes: remove game from [table] and give "
        "it under the game's [[rotation.games]]"
    )


def test_other_mistakes_in_the_rotation() -> None:
    text = replace_in_game(rotated(), 2, "big_blind_ante = ", "big_blind_antes = 100")
    assert error(text).startswith(
        f"table.toml:{line_of(text, 'big_blind_antes')}: rotation.games[2].big_blind_antes: unknown key; "
        "did you mean big_blind_ante?"
    )
    text = rotated().replace('change = "orbit"', 'change = "hourly"')
    assert error(text) == (
        f'table.toml:{line_of(text, "change = ")}: rotation.change: "orbit" or "level", not \'hourly\''
    )
    text = rotated().replace("orbits = 1", "orbits = 0")
    assert error(text).startswith(f"table.toml:{line_of(text, 'orbits = ')}: rotation.orbits: rounds of")
    text = rotated().replace("chip_unit = 1", "chip_unit = 30")
    assert error(text) == (
        f"table.toml:{nth_line(text, 'blinds = ', 1)}: rotation.games[1].blinds: 50 is not a whole number "
        "of the smallest chip (table.chip_unit = 30): make every amount a multiple of 30, or lower chip_unit"
    )
    text = re.sub(r"^\[\[rotation\.games\]\]\n(?:[a-z_]+ = .*\n)+", "", rotated(), flags=re.MULTILINE)
    assert error(text).startswith(f"table.toml:{line_of(text, '[rotation]')}: rotation.games: missing")
