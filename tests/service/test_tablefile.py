"""A table's config file: the example loads; every mistake names the file, line, key and fix."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tablectl.adapters.decks import US_NEW_DECK_ORDER
from tablectl.adapters.panel import BUTTON_KEYS
from tablectl.core.cards import parse_card
from tablectl.core.events import DealerKey
from tablectl.service.tablefile import (
    ConfigFileError,
    load_table_config,
    parse_table_config,
)
from tests.helpers.paths import ROOT

EXAMPLE = ROOT / "deploy" / "table.example.toml"
TEXT = EXAMPLE.read_text(encoding="utf-8")


def line_of(text: str, start: str) -> int:
    """The number of the first line starting with ``start``."""
    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith(start):
            return number
    raise AssertionError(f"no line starts with {start!r}")


def edited(old: str, new: str, text: str = TEXT) -> str:
    """The example with the line starting ``old`` replaced by ``new`` (or removed if empty)."""
    pattern = re.compile(rf"^{re.escape(old)}.*$", re.MULTILINE)
    assert pattern.search(text), old
    return pattern.sub(new, text, count=1)


def error(text: str) -> str:
    with pytest.raises(ConfigFileError) as caught:
        parse_table_config(text, "table.toml")
    return str(caught.value)


# -- the example ---------------------------------------------------------------------------------


def test_the_example_file_loads() -> None:
    config = load_table_config(EXAMPLE)
    assert config.path == str(EXAMPLE)
    table = config.table
    assert (table.room, table.table, table.seats, table.game, table.blinds) == (
        "main",
        "12",
        9,
        "NT",
        (50, 100),
    )
    assert table.rules().profile == "tda" and table.options == (("tournament", False),)
    assert config.shoe.port == "/dev/tablectl-shoe" and config.shoe.baudrate == 115200
    assert config.decks.registry == Path("/var/lib/tablectl/decks.json")
    assert config.decks.enrol_order == US_NEW_DECK_ORDER
    panel = config.panel
    assert panel is not None
    assert panel.buttons["fold"] == 17 and BUTTON_KEYS["check_call"] is DealerKey.CALL
    assert set(panel.buttons) == {
        "fold",
        "check_call",
        "bet",
        "all_in",
        "confirm",
        "new_hand",
        "misdeal",
        "exposed",
    }
    assert panel.encoder == (20, 21) and panel.plus_minus is None and panel.buzzer == 18
    assert len(panel.seat_leds) == 9
    assert panel.hold_buttons == {"misdeal", "new_hand"} and panel.hold_time == 1.5
    assert panel.amount_step == 25 and panel.debounce == 0.02 and panel.pull_up


def test_the_example_documents_every_key() -> None:
    from tablectl.service.tablefile import (
        AMOUNT_PINS,
        DECKS_KEYS,
        OTHER_PINS,
        PANEL_KEYS,
        SHOE_KEYS,
        TABLE_KEYS,
    )

    for key in (*TABLE_KEYS, *SHOE_KEYS, *DECKS_KEYS, *PANEL_KEYS, *BUTTON_KEYS, *AMOUNT_PINS, *OTHER_PINS):
        assert re.search(rf"^#?\s*{key}\b|\b{key}\b", TEXT, re.MULTILINE), key


def test_a_minimal_file_takes_the_defaults(tmp_path: Path) -> None:
    path = tmp_path / "table.toml"
    path.write_text('[table]\nroom = "main"\ntable = "3"\nseats = 6\n\n[decks]\nregistry = "decks.json"\n')
    config = load_table_config(path)
    assert config.table.seats == 6 and config.panel is None
    assert config.shoe.port == "/dev/tablectl-shoe"
    assert config.decks.registry == tmp_path / "decks.json"  # relative to the file


def test_the_shoes_port_is_one_name_in_the_udev_rule_the_link_and_the_example() -> None:
    from firmware_bridge.link import DEFAULT_PORT

    rule = (EXAMPLE.parent / "99-tablectl-shoe.rules").read_text(encoding="utf-8")
    symlinks = re.findall(r'^[^#].*\bSYMLINK\+="([^"]+)"', rule, re.MULTILINE)
    assert [f"/dev/{name}" for name in symlinks] == [DEFAULT_PORT]
    assert re.findall(r'^port = "([^"]*)"', TEXT, re.MULTILINE) == [DEFAULT_PORT]
    assert parse_table_config(edited('port = "', "")).shoe.port == DEFAULT_PORT


def test_plus_and_minus_buttons_instead_of_an_encoder_and_a_named_order() -> None:
    text = edited("encoder_a = 20", "plus = 20")
    text = edited("encoder_b = 21", "minus = 21", text)
    text = edited('enrol_order = "us"', 'enrol_order = "us-from-face"', text)
    config = parse_table_config(text)
    assert config.panel is not None and config.panel.plus_minus == (20, 21) and config.panel.encoder is None
    assert config.decks.enrol_order[0] == parse_card("Ah")


def test_separate_check_and_call_buttons() -> None:
    text = edited("check_call = 27", "check = 27\ncall = 10")
    config = parse_table_config(text)
    assert (
        config.panel is not None
        and config.panel.buttons["check"] == 27
        and config.panel.buttons["call"] == 10
    )


# -- mistakes ------------------------------------------------------------------------------------


def test_a_pin_used_twice_names_both_keys_and_the_line() -> None:
    text = edited("check_call = 27", "check_call = 17")
    assert error(text) == (
        f"table.toml:{line_of(text, 'fold = 17')}: panel.pins.fold: pin 17 is used twice "
        "(also panel.pins.check_call); give each button, LED and the buzzer its own GPIO pin"
    )


def test_a_button_and_a_seat_led_on_one_pin() -> None:
    text = edited("buzzer = 18", "buzzer = 4")
    assert "panel.pins.buzzer: pin 4 is used twice (also panel.pins.seat_leds[1])" in error(text)


def test_a_pin_that_is_no_gpio() -> None:
    assert "panel.pins.bet: GPIO 40 is not a pin for a panel: use BCM numbers 2 to 27" in error(
        edited("bet = 22", "bet = 40")
    )
    assert "panel.pins.bet: expected a BCM GPIO number such as 17, got 'GPIO22'" in error(
        edited("bet = 22", 'bet = "GPIO22"')
    )


def test_a_pin_of_the_uart_the_shoe_uses() -> None:
    text = edited('port = "/dev/tablectl-shoe"', 'port = "/dev/serial0"')
    text = edited("bet = 22", "bet = 14", text)
    assert "panel.pins.bet: GPIO 14 is the UART's TX, used by the shoe on /dev/serial0" in error(text)


def test_seat_leds_must_match_the_seats() -> None:
    text = edited("seats = 9", "seats = 6")
    message = error(text)
    line = line_of(text, "seat_leds")
    assert message.startswith(f"table.toml:{line}: panel.pins.seat_leds: 9 LEDs for a table of 6 seats")


def test_a_missing_button() -> None:
    message = error(edited("misdeal = 5", ""))
    assert "panel.pins.misdeal: missing: give the misdeal button's GPIO pin" in message


def test_half_an_encoder_and_no_amount_entry() -> None:
    assert "panel.pins.encoder_a: encoder_b is missing: the encoder needs both pins" in error(
        edited("encoder_b = 21", "")
    )
    text = edited("encoder_a = 20", "")
    text = edited("encoder_b = 21", "", text)
    assert "panel.pins: the bet amount needs an entry" in error(text)
    text = edited("# plus = 20", "plus = 10")
    text = edited("# minus = 21", "minus = 11", text)
    assert "panel.pins.plus: the amount has one entry" in error(text)


def test_unknown_keys_suggest_the_right_one() -> None:
    text = edited("fold = 17", "fodl = 17")
    assert error(text) == (
        f"table.toml:{line_of(text, 'fodl')}: panel.pins.fodl: unknown pin name; did you mean fold? "
        "valid: fold, check_call, check, call, bet, all_in, confirm, new_hand, misdeal, exposed, discard, "
        "encoder_a, encoder_b, plus, minus, buzzer, seat_leds"
    )
    assert "table.toml:" in error(edited("seats = 9", "seets = 9"))
    assert "table.seets: unknown key; did you mean seats?" in error(edited("seats = 9", "seets = 9"))
    assert "shoe.baud: unknown key; did you mean baudrate?" in error(edited("baudrate = ", "baud = 9600"))
    assert "tabel: unknown section; did you mean table?" in error(TEXT + "\n[tabel]\nx = 1\n")


def test_the_table_section_is_checked_by_table_config() -> None:
    text = edited("seats = 9", "seats = 12")
    assert error(text).startswith(
        f"table.toml:{line_of(text, 'seats')}: table.seats: a table has 2 to 10 seats, got 12"
    )
    assert "table.game: variant 'XX' is not supported" in error(edited('game = "NT"', 'game = "XX"'))
    assert "table.seats: expected a whole number, got '9'" in error(edited("seats = 9", 'seats = "9"'))
    assert "table.blinds: expected a list of whole chips" in error(edited("blinds = ", 'blinds = "50/100"'))
    assert 'table.table: expected text in quotes, got 12: write table = "12"' in error(
        edited('table = "12"', "table = 12")
    )
    assert "table.profile: unknown house-rule option 'tournamnet'" in error(
        edited("tournament = false", "tournamnet = false")
    )
    assert "table.table: missing: name the table as the floor and the displays know it" in error(
        edited('table = "12"', "")
    )


def test_panel_timings_and_amounts() -> None:
    assert "panel.hold_time: 0.1 s is out of range: give 0.3 to 10.0 s" in error(
        edited("hold_time = 1.5", "hold_time = 0.1")
    )
    assert "panel.debounce: expected seconds" in error(edited("debounce = 0.02", 'debounce = "20ms"'))
    assert "panel.hold_buttons: 'mistake' is not a button of this panel" in error(
        edited("hold_buttons = ", 'hold_buttons = ["mistake"]')
    )
    assert "panel.amount_step: expected whole chips > 0 per step" in error(
        edited("amount_step = 25", "amount_step = 0")
    )
    assert "panel.pull_up: expected true" in error(edited("pull_up = true", 'pull_up = "yes"'))


def test_shoe_and_decks() -> None:
    assert "shoe.baudrate: 115201 is not a baud rate the shoe speaks" in error(
        edited("baudrate = 115200", "baudrate = 115201")
    )
    assert "shoe.port: expected the serial device in quotes" in error(
        edited('port = "/dev/tablectl-shoe"', "port = 3")
    )
    assert "decks.enrol_order: 'bicycle' is not a deck order: name one (us, us-from-face)" in error(
        edited('enrol_order = "us"', 'enrol_order = "bicycle"')
    )


def test_not_toml_names_the_line() -> None:
    text = edited("seats = 9", "seats = = 9")
    message = error(text)
    assert message.startswith(f"table.toml:{line_of(text, 'seats')}: not valid TOML, column ")
    assert "write keys as key = value" in message


def test_a_missing_file_says_where_the_example_is(tmp_path: Path) -> None:
    with pytest.raises(ConfigFileError, match="no such file: copy deploy/table.example.toml"):
        load_table_config(tmp_path / "table.toml")


def test_the_error_keeps_file_key_and_line() -> None:
    with pytest.raises(ConfigFileError) as caught:
        parse_table_config(edited("bet = 22", "bet = 40"), "/etc/tablectl/table.toml")
    assert caught.value.file == "/etc/tablectl/table.toml"
    assert caught.value.key == "panel.pins.bet"
    assert caught.value.line == line_of(TEXT, "bet = 22")


# -- a table no hand could be dealt at ---------------------------------------------------------


def test_stakes_no_hand_could_be_dealt_with_are_refused_with_line_key_and_fix() -> None:
    text = edited("chip_unit = 1", "chip_unit = 0")
    assert error(text).startswith(
        f"table.toml:{line_of(text, 'chip_unit')}: table.chip_unit: 0 is not a chip: give the smallest "
        "chip in play, 1 or more"
    )
    text = edited("blinds = ", "blinds = [100, 50]")
    assert error(text) == (
        f"table.toml:{line_of(text, 'blinds')}: table.blinds: [100, 50]: the small blind comes first, "
        "e.g. blinds = [50, 100]"
    )
    text = edited("ante = 0", "ante = 25")
    text = edited("big_blind_ante = 0", "big_blind_ante = 100", text)
    assert error(text) == (
        f"table.toml:{line_of(text, 'big_blind_ante')}: table.big_blind_ante: both an ante (25) and a "
        "big-blind ante (100): a table has one or the other; set ante = 0 or big_blind_ante = 0"
    )
    text = edited("chip_unit = 1", "chip_unit = 30")
    assert error(text) == (
        f"table.toml:{line_of(text, 'blinds')}: table.blinds: 50 is not a whole number of the smallest "
        f"chip (chip_unit = 30, line {line_of(text, 'chip_unit')}): make every amount a multiple of 30, "
        "or lower chip_unit"
    )
    text = edited("chip_unit = 1", "chip_unit = 25")
    assert "table.ante: 10 is not a whole number of the smallest chip" in error(
        edited("ante = 0", "ante = 10", text)
    )
    assert "table.ante: -5 chips: give 0 (none) or more" in error(edited("ante = 0", "ante = -5"))
    # What stays allowed: equal blinds, a lone ante, amounts in the chip unit.
    text = edited("blinds = ", "blinds = [100, 100]")
    text = edited("chip_unit = 1", "chip_unit = 25", text)
    config = parse_table_config(edited("ante = 0", "ante = 25", text)).table
    assert (config.blinds, config.ante, config.chip_unit) == ((100, 100), 25, 25)


def stud_table(text: str = TEXT) -> str:
    """The example dealing seven-card stud at 100/200, antes 25, bring-in 50."""
    text = edited('game = "NT"', 'game = "F7S"', text)
    text = edited("ante = 0", "ante = 25", text)
    text = edited("small_bet = 0", "small_bet = 100", text)
    text = edited("big_bet = 0", "big_bet = 200", text)
    return edited("bring_in = 0", "bring_in = 50", text)


def test_a_stud_table_has_no_blinds() -> None:
    text = stud_table()
    assert error(text) == (
        f"table.toml:{line_of(text, 'blinds')}: table.blinds: F7S is a stud game: no blinds, an ante "
        "and a bring-in instead; remove blinds (STUD-5)"
    )
    text = edited("blinds = ", "", text)
    config = parse_table_config(edited("amount_step = ", "", text))
    assert (config.table.game, config.table.ante, config.table.bring_in) == ("F7S", 25, 50)
    assert config.panel is not None and config.panel.amount_step == 50  # reaches the bring-in and small bet
    # The blinds a stud table does not post are not held to the chip unit: its own stakes are.
    text = edited("chip_unit = 1", "chip_unit = 25", text)
    assert parse_table_config(text).table.chip_unit == 25
    assert "table.ante: 30 is not a whole number of the smallest chip" in error(
        edited("ante = 25", "ante = 30", text)
    )


@pytest.mark.parametrize("name", ["main/floor", "main floor", "#", "+", "", "x" * 33, "räume"])
def test_room_and_table_names_that_cannot_be_topic_levels(name: str) -> None:
    for key, line in (("room", 'room = "main"'), ("table", 'table = "12"')):
        text = edited(line, f'{key} = "{name}"')
        message = error(text)
        assert message.startswith(
            f"table.toml:{line_of(text, f'{key} =')}: table.{key}: {name!r} cannot be an MQTT topic level"
        ), message
        assert "use 1 to 32 letters, digits, '_' or '-'" in message and "mkusers" in message


def write_table(tmp_path: Path, without_decks: bool = False) -> Path:
    """The example with its registry beside it (decks.json, relative to the file)."""
    text = edited('registry = "', 'registry = "decks.json"')
    if without_decks:
        text = edited("start_without_decks = ", "start_without_decks = true", text)
    path = tmp_path / "table.toml"
    path.write_text(text)
    return path


def test_a_table_with_no_deck_to_deal_from_does_not_start(tmp_path: Path) -> None:
    from tablectl.adapters.decks import Deck, DeckRegistry, save_registry

    missing = tmp_path / "decks.json"
    table_file = load_table_config(write_table(tmp_path))
    with pytest.raises(ConfigFileError) as refused:
        table_file.load_registry()
    line = line_of((tmp_path / "table.toml").read_text(), 'registry = "decks.json"')
    assert str(refused.value) == (
        f"{tmp_path / 'table.toml'}:{line}: decks.registry: the deck registry {missing} does not exist: "
        "the table would have no deck to deal from, every card would be foreign (IRR-1) and every hand "
        "void. Enrol the table's decks into that file first (docs/operating.md, Decks), correct "
        "decks.registry, or write start_without_decks = true under [decks] to start without decks"
    )
    save_registry(DeckRegistry([Deck("red", "red", {bytes([1, c]): c for c in range(52)})]), missing)
    assert load_table_config(tmp_path / "table.toml").load_registry().active is not None
    save_registry(DeckRegistry(), missing)  # a registry with no deck in it
    with pytest.raises(ConfigFileError, match="decks.json has no active deck"):
        load_table_config(tmp_path / "table.toml").load_registry()
    missing.unlink()
    table_file = load_table_config(write_table(tmp_path, without_decks=True))
    assert table_file.decks.start_without_decks and table_file.load_registry().decks == ()
    assert "decks.start_without_decks: expected true" in error(
        edited("start_without_decks = false", 'start_without_decks = "yes"')
    )


@pytest.mark.parametrize(
    ("edit", "key"),
    [
        (("chip_unit = 1", "chip_unit = 0"), "table.chip_unit"),
        (('room = "main"', 'room = "main/1"'), "table.room"),
        (None, "decks.registry"),  # the example's registry, which does not exist here
    ],
)
def test_tablectl_serve_exits_2_naming_file_line_and_key(
    tmp_path: Path, edit: tuple[str, str] | None, key: str
) -> None:
    text = TEXT.replace("/var/lib/tablectl/decks.json", str(tmp_path / "decks.json"))
    if edit is not None:
        text = edited(*edit, text)
    (tmp_path / "table.toml").write_text(text)
    journal = tmp_path / "table.journal"
    result = subprocess.run(
        [sys.executable, "-m", "tablectl.cli", "serve", "--config", str(tmp_path / "table.toml")]
        + ["--journal", str(journal), "--mock-gpio"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        check=False,
    )
    assert result.returncode == 2, result.stderr
    assert re.match(rf"tablectl: {re.escape(str(tmp_path / 'table.toml'))}:\d+: {key}: ", result.stderr)
    assert "Traceback" not in result.stderr
    assert not journal.exists()  # refused before anything started
