"""The deck registry: tags to cards on the Pi, foreign backs (IRR-1), duplicates (IRR-2)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tablectl.adapters.decks import (
    NEW_DECK_ORDERS,
    US_NEW_DECK_ORDER,
    Deck,
    DeckError,
    DeckFileError,
    DeckRegistry,
    Enrolment,
    card_drawn,
    deck_order,
    load_registry,
    parse_tag,
    registry_to_json,
    save_registry,
    tag_hex,
)
from tablectl.core.cards import DECK, card_str, parse_card
from tablectl.core.events import CardDrawn


def tags_for(prefix: int, n: int = 52) -> list[bytes]:
    """Seven-byte UIDs like a MIFARE Ultralight's, distinct per deck prefix."""
    return [bytes([0x04, prefix, 0x10, 0x20, 0x30, 0x40, i]) for i in range(n)]


RED = tags_for(0xA1)
BLUE = tags_for(0xB2)
STRANGER = bytes.fromhex("04FFFFFFFFFF01")


def two_decks() -> DeckRegistry:
    registry = DeckRegistry()
    registry.enrol_in_new_deck_order("red-1", RED, back="red")
    registry.enrol_in_new_deck_order("blue-1", BLUE, back="blue")
    return registry


# -- the order of a new deck -------------------------------------------------------------------


def test_us_new_deck_order_reads_ace_of_spades_first_and_hearts_last() -> None:
    order = [card_str(c) for c in US_NEW_DECK_ORDER]
    assert sorted(US_NEW_DECK_ORDER) == list(DECK)
    assert order[:13] == ["As", "2s", "3s", "4s", "5s", "6s", "7s", "8s", "9s", "Ts", "Js", "Qs", "Ks"]
    assert order[13:26] == ["Ad", "2d", "3d", "4d", "5d", "6d", "7d", "8d", "9d", "Td", "Jd", "Qd", "Kd"]
    assert order[26:39] == ["Kc", "Qc", "Jc", "Tc", "9c", "8c", "7c", "6c", "5c", "4c", "3c", "2c", "Ac"]
    assert order[39:] == ["Kh", "Qh", "Jh", "Th", "9h", "8h", "7h", "6h", "5h", "4h", "3h", "2h", "Ah"]
    assert NEW_DECK_ORDERS["us-from-face"][0] == parse_card("Ah")


def test_a_deck_order_is_named_or_written_out_in_full() -> None:
    assert deck_order("US") == US_NEW_DECK_ORDER
    written = " ".join(card_str(c) for c in reversed(DECK))
    assert deck_order(written) == tuple(reversed(DECK))
    with pytest.raises(DeckError, match="51 given, missing: 2c"):
        deck_order(" ".join(card_str(c) for c in DECK[1:]))
    with pytest.raises(DeckError, match="appears twice"):
        deck_order("As As")
    with pytest.raises(DeckError, match="'bicycle' is not a deck order: name one"):
        deck_order("bicycle")


# -- enrolment -----------------------------------------------------------------------------------


def test_enrolment_in_new_deck_order_maps_each_tag_to_its_card() -> None:
    registry = DeckRegistry()
    deck = registry.enrol_in_new_deck_order("red-1", RED, back="red")
    assert deck.tags[RED[0]] == parse_card("As")
    assert deck.tags[RED[12]] == parse_card("Ks")
    assert deck.tags[RED[26]] == parse_card("Kc")
    assert deck.tags[RED[51]] == parse_card("Ah")
    assert registry.active is deck  # the first deck deals


def test_enrolment_in_a_configured_order() -> None:
    registry = DeckRegistry()
    deck = registry.enrol_in_new_deck_order("red-1", RED, back="red", order=DECK)
    assert [deck.tags[t] for t in RED] == list(DECK)


def test_enrolment_in_new_deck_order_needs_the_whole_deck_once() -> None:
    registry = DeckRegistry()
    with pytest.raises(DeckError, match="51 tags read, a new deck has 52"):
        registry.enrol_in_new_deck_order("red-1", RED[:51], back="red")
    with pytest.raises(
        DeckError, match=r"card 52 of the deck: tag 04A1102030400[0-9] was already read as As"
    ):
        registry.enrol_in_new_deck_order("red-1", [*RED[:51], RED[0]], back="red")
    assert registry.decks == ()


def test_camera_enrolment_in_any_order_completes_at_52() -> None:
    enrolment = Enrolment("red-1", "red")
    shuffled = list(zip(RED, reversed(DECK), strict=True))
    for tag, card in shuffled[:51]:
        enrolment.add(tag, card)
    assert not enrolment.complete
    assert enrolment.missing() == (DECK[0],)
    with pytest.raises(DeckError, match="51 of 52 cards enrolled; still to read: 2c"):
        enrolment.deck()
    enrolment.add(*shuffled[51])
    assert enrolment.complete
    deck = enrolment.deck()
    assert deck.tags[RED[0]] == DECK[-1]


def test_camera_enrolment_refuses_a_card_twice_and_a_tag_twice() -> None:
    enrolment = Enrolment("red-1", "red")
    enrolment.add(RED[0], parse_card("As"))
    with pytest.raises(DeckError, match=r"As is already enrolled .*second As .*show it again"):
        enrolment.add(RED[1], parse_card("As"))
    with pytest.raises(DeckError, match="tag 04A11020304000 was already read as As"):
        enrolment.add(RED[0], parse_card("Kd"))
    assert enrolment.count == 1
    enrolment.undo(parse_card("As"))  # the camera misread it
    enrolment.add(RED[0], parse_card("Ah"))
    assert enrolment.count == 1


def test_camera_enrolment_refuses_a_card_of_another_deck_here() -> None:
    registry = DeckRegistry()
    registry.enrol_in_new_deck_order("red-1", RED, back="red")
    enrolment = registry.start_enrolment("blue-1", "blue")
    with pytest.raises(DeckError, match="belongs to deck 'red-1'"):
        enrolment.add(RED[5], parse_card("As"))
    for tag, card in zip(BLUE, DECK, strict=True):
        enrolment.add(tag, card)
    registry.add_deck(enrolment.deck())
    assert len(registry.decks) == 2


def test_a_table_has_two_decks_with_different_backs() -> None:
    registry = DeckRegistry()
    registry.enrol_in_new_deck_order("red-1", RED, back="red")
    with pytest.raises(DeckError, match="same back .* need different backs"):
        registry.enrol_in_new_deck_order("red-2", BLUE, back="Red")
    with pytest.raises(DeckError, match="already registered"):
        registry.enrol_in_new_deck_order("red-1", BLUE, back="blue")
    with pytest.raises(DeckError, match="already As of deck 'red-1'"):
        registry.enrol_in_new_deck_order("blue-1", [RED[0], *BLUE[1:]], back="blue")
    registry.enrol_in_new_deck_order("blue-1", BLUE, back="blue")
    with pytest.raises(DeckError, match="already has 2 decks"):
        registry.enrol_in_new_deck_order("green-1", tags_for(0xC3), back="green")
    registry.remove_deck("red-1")
    assert registry.active is not None and registry.active.id == "blue-1"
    registry.enrol_in_new_deck_order("green-1", tags_for(0xC3), back="green")


# -- identify ------------------------------------------------------------------------------------


def test_a_tag_of_the_active_deck_is_its_card() -> None:
    registry = two_decks()
    identity = registry.identify(RED[0])
    assert (identity.card, identity.deck, identity.foreign, identity.duplicate) == (
        parse_card("As"),
        "red-1",
        False,
        False,
    )


def test_an_unknown_tag_is_a_foreign_card_irr_1() -> None:
    identity = two_decks().identify(STRANGER)
    assert identity.foreign and identity.card is None and identity.deck is None
    assert "IRR-1" in identity.describe()


def test_a_tag_of_the_inactive_deck_is_a_foreign_card_with_its_name() -> None:
    registry = two_decks()
    identity = registry.identify(BLUE[0])
    assert identity.foreign and identity.card == parse_card("As") and identity.deck == "blue-1"
    registry.activate("blue-1")  # the decks are swapped between hands
    assert not registry.identify(BLUE[0]).foreign
    assert registry.identify(RED[0]).foreign


def test_a_second_card_of_the_same_rank_and_suit_in_a_hand_is_a_duplicate_irr_2() -> None:
    registry = two_decks()
    spare = bytes.fromhex("04C0FFEE000001")
    registry.replace_card("red-1", parse_card("Ah"), spare)  # the damaged Ah was to be thrown away
    old = RED[51]
    registry.new_hand()
    assert not registry.identify(spare).duplicate
    again = registry.identify(old)  # ...but it is still in the deck
    assert again.duplicate and again.card == parse_card("Ah") and not again.foreign
    assert "IRR-2" in again.describe()
    registry.new_hand()
    assert not registry.identify(old).duplicate  # one Ah in a hand is no duplicate


def test_the_same_tag_again_in_a_hand_is_a_repeat_not_a_duplicate() -> None:
    registry = two_decks()
    registry.new_hand()
    registry.identify(RED[3])
    repeat = registry.identify(RED[3])  # a burn card put back and drawn again, a redealt flop
    assert repeat.repeat and not repeat.duplicate


def test_lookup_records_nothing() -> None:
    registry = two_decks()
    spare = bytes.fromhex("04C0FFEE000001")
    registry.replace_card("red-1", parse_card("Ah"), spare)
    registry.lookup(spare)
    assert not registry.identify(RED[51]).duplicate


def test_replacing_a_card_refuses_a_tag_already_in_use() -> None:
    registry = two_decks()
    with pytest.raises(DeckError, match="already belongs to deck 'blue-1'"):
        registry.replace_card("red-1", parse_card("Ah"), BLUE[0])
    with pytest.raises(DeckError, match="no deck 'green' at this table"):
        registry.replace_card("green", parse_card("Ah"), STRANGER)


# -- the shoe's reads as events ------------------------------------------------------------------


def test_shoe_reads_become_card_drawn_events() -> None:
    registry = two_decks()
    assert card_drawn(registry, RED[0], at=5.0) == CardDrawn(parse_card("As"), at=5.0)
    assert card_drawn(registry, RED[1], face_up=True) == CardDrawn(parse_card("2s"), face_up=True)
    assert card_drawn(registry, STRANGER) == CardDrawn(None, foreign=True)
    assert card_drawn(registry, BLUE[0]) == CardDrawn(parse_card("As"), foreign=True)
    assert card_drawn(registry, None) == CardDrawn(None, foreign=False)  # unreadable tag
    assert card_drawn(registry, b"", face_up=True) == CardDrawn(None, face_up=True)  # the shoe's empty tag
    assert registry.card_drawn(RED[2]).card == parse_card("3s")


# -- the file ------------------------------------------------------------------------------------


def test_the_registry_survives_a_save_and_a_load(tmp_path: Path) -> None:
    registry = two_decks()
    registry.activate("blue-1")
    registry.replace_card("blue-1", parse_card("Kd"), STRANGER)
    path = tmp_path / "decks.json"
    save_registry(registry, path)
    again = load_registry(path)
    assert registry_to_json(again) == registry_to_json(registry)
    assert again.active is not None and again.active.id == "blue-1"
    assert again.identify(STRANGER).card == parse_card("Kd")
    data = json.loads(path.read_text())
    assert data["decks"]["red-1"]["cards"]["As"] == tag_hex(RED[0])
    assert [p.name for p in tmp_path.iterdir()] == ["decks.json"]  # no temporary file left


def test_a_save_replaces_the_file_atomically(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "decks.json"
    save_registry(two_decks(), path)
    before = path.read_text()

    def crash(src: str, dst: str) -> None:
        raise OSError("power cut")

    monkeypatch.setattr(os, "replace", crash)
    lonely = DeckRegistry()
    lonely.enrol_in_new_deck_order("green-1", tags_for(0xC3), back="green")
    with pytest.raises(OSError, match="power cut"):
        save_registry(lonely, path)
    assert path.read_text() == before  # the old file, whole
    assert [p.name for p in tmp_path.iterdir()] == ["decks.json"]


def test_a_missing_file_is_an_error_unless_allowed(tmp_path: Path) -> None:
    with pytest.raises(DeckFileError, match="no such file"):
        load_registry(tmp_path / "nope.json")
    assert load_registry(tmp_path / "nope.json", missing_ok=True).decks == ()


def _saved(tmp_path: Path) -> tuple[Path, dict[str, Any]]:
    path = tmp_path / "decks.json"
    save_registry(two_decks(), path)
    return path, json.loads(path.read_text())


def _broken(tmp_path: Path, change: Callable[[dict[str, Any]], None]) -> str:
    path, data = _saved(tmp_path)
    change(data)
    path.write_text(json.dumps(data))
    with pytest.raises(DeckFileError) as caught:
        load_registry(path)
    message = str(caught.value)
    assert message.startswith(str(path))
    return message


def test_malformed_files_name_the_deck_and_the_key(tmp_path: Path) -> None:
    def bad_card(d: dict[str, Any]) -> None:
        d["decks"]["red-1"]["cards"]["Zz"] = d["decks"]["red-1"]["cards"].pop("As")

    assert "deck 'red-1': cards.Zz: 'Zz' is not a card" in _broken(tmp_path, bad_card)

    def bad_tag(d: dict[str, Any]) -> None:
        d["decks"]["red-1"]["cards"]["Kd"] = "04ZZ"

    assert "deck 'red-1': cards.Kd: '04ZZ' is not a tag id" in _broken(tmp_path, bad_tag)

    def tag_twice(d: dict[str, Any]) -> None:
        d["decks"]["blue-1"]["cards"]["Kd"] = d["decks"]["blue-1"]["cards"]["As"]

    assert "deck 'blue-1': cards.Kd: tag " in _broken(tmp_path, tag_twice)

    def card_missing(d: dict[str, Any]) -> None:
        del d["decks"]["red-1"]["cards"]["7h"]

    assert "deck 'red-1': cards: missing 7h" in _broken(tmp_path, card_missing)

    def no_back(d: dict[str, Any]) -> None:
        del d["decks"]["blue-1"]["back"]

    assert "deck 'blue-1': back: give the deck's back colour" in _broken(tmp_path, no_back)

    def typo(d: dict[str, Any]) -> None:
        d["decks"]["blue-1"]["colour"] = "blue"

    assert "deck 'blue-1': colour: unknown key" in _broken(tmp_path, typo)

    def bad_active(d: dict[str, Any]) -> None:
        d["active"] = "green-1"

    assert "active: 'green-1' is not one of the decks in the file (red-1, blue-1)" in _broken(
        tmp_path, bad_active
    )

    def same_back(d: dict[str, Any]) -> None:
        d["decks"]["blue-1"]["back"] = "red"

    assert "deck 'blue-1': deck 'blue-1' has the same back" in _broken(tmp_path, same_back)

    def shared_tag(d: dict[str, Any]) -> None:
        d["decks"]["blue-1"]["cards"]["2c"] = d["decks"]["red-1"]["cards"]["As"]

    assert "tag 04A11020304000 is already As of deck 'red-1'" in _broken(tmp_path, shared_tag)


def test_a_file_that_is_not_json_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "decks.json"
    path.write_text('{\n  "decks": {\n    "red-1": ,\n')
    with pytest.raises(DeckFileError, match=r"decks.json:3: not valid JSON"):
        load_registry(path)
    path.write_text("[]")
    with pytest.raises(DeckFileError, match="expected a JSON object"):
        load_registry(path)


def test_tags_read_from_text() -> None:
    assert parse_tag("04:a2:24:b1:c2:5e:80") == bytes.fromhex("04A224B1C25E80")
    with pytest.raises(DeckError, match="is not a tag id"):
        parse_tag("hello")
    with pytest.raises(DeckError, match="1 to 32 bytes"):
        parse_tag("")


def test_a_deck_needs_all_52_cards() -> None:
    tags = dict(zip(RED, DECK, strict=True))
    del tags[RED[0]]
    with pytest.raises(DeckError, match="51 enrolled; missing: 2c"):
        Deck("red-1", "red", tags)
