"""Card notation: the one place a dealer's or a file's text becomes a card (layer 1)."""

from __future__ import annotations

import pytest

from tablectl.core.cards import (
    DECK,
    RANKS,
    SUITS,
    CardError,
    card_str,
    cards_str,
    make_card,
    parse_card,
    parse_cards,
    rank_of,
    suit_of,
)

ACE, TEN, TWO = 12, 8, 0
CLUBS, DIAMONDS, HEARTS, SPADES = 0, 1, 2, 3


def test_deck_has_52_distinct_cards_that_round_trip_through_text() -> None:
    assert len(DECK) == len(set(DECK)) == 52
    texts = [card_str(c) for c in DECK]
    assert len(set(texts)) == 52
    assert [parse_card(t) for t in texts] == list(DECK)
    assert parse_cards("".join(texts)) == DECK


@pytest.mark.parametrize(
    ("text", "rank", "suit"),
    [
        ("As", ACE, SPADES),
        ("Td", TEN, DIAMONDS),
        ("10d", TEN, DIAMONDS),
        ("2c", TWO, CLUBS),
        ("Kh", 11, HEARTS),
        ("A♠", ACE, SPADES),
        ("T♦", TEN, DIAMONDS),
        ("10♥", TEN, HEARTS),
        ("2♣", TWO, CLUBS),
        ("Q♤", 10, SPADES),  # outline suit symbols too
        ("J♡", 9, HEARTS),
    ],
)
def test_parse_one_card(text: str, rank: int, suit: int) -> None:
    card = parse_card(text)
    assert rank_of(card) == rank
    assert suit_of(card) == suit
    assert card == make_card(rank, suit)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("as", "As"),
        ("AS", "As"),
        ("aS", "As"),
        ("tD", "Td"),
        ("td", "Td"),
        ("TD", "Td"),
        ("10D", "Td"),
        ("kH", "Kh"),
        (" As ", "As"),
    ],
)
def test_lowercase_uppercase_and_spaces_around_are_read(text: str, expected: str) -> None:
    assert card_str(parse_card(text)) == expected


def test_card_str_writes_rank_then_lowercase_suit() -> None:
    assert card_str(make_card(ACE, SPADES)) == "As"
    assert card_str(make_card(TEN, DIAMONDS)) == "Td"  # ten is written T, never 10
    assert cards_str([make_card(ACE, CLUBS), make_card(11, DIAMONDS)]) == "AcKd"
    assert cards_str([make_card(ACE, CLUBS), make_card(11, DIAMONDS)], " ") == "Ac Kd"
    assert RANKS == "23456789TJQKA" and SUITS == "cdhs"


@pytest.mark.parametrize(
    "text",
    ["AcKd", "Ac Kd", "Ac,Kd", "Ac, Kd", "ac kd", "A♣K♦", "A♣ K♦", "AcK♦"],
)
def test_parse_several_cards_together_or_apart(text: str) -> None:
    assert parse_cards(text) == (make_card(ACE, CLUBS), make_card(11, DIAMONDS))


def test_parse_cards_mixes_ten_spellings() -> None:
    assert parse_cards("10dJ♠Tc") == (
        make_card(TEN, DIAMONDS),
        make_card(9, SPADES),
        make_card(TEN, CLUBS),
    )


@pytest.mark.parametrize(
    "text", ["", "A", "s", "X", "Ax", "As1", "1d", "11d", "0s", "Zs", "AsK", "AsKd", "A s", "Asd"]
)
def test_parse_card_refuses_bad_text(text: str) -> None:
    with pytest.raises(CardError) as info:
        parse_card(text)
    assert "not a card" in str(info.value)
    assert isinstance(info.value, ValueError)  # callers may catch ValueError


@pytest.mark.parametrize("text", ["X", "Ax", "AsK", "Asd", "1d", "11d", "As?", "As Kd Q", "As-Kd"])
def test_parse_cards_refuses_bad_text_and_says_where(text: str) -> None:
    with pytest.raises(CardError) as info:
        parse_cards(text)
    assert "position" in str(info.value)


@pytest.mark.parametrize("text", ["As As", "AsAs", "as AS", "Td 10d", "10dTd", "A♠ As", "2c3c4c2c"])
def test_parse_cards_refuses_a_card_named_twice(text: str) -> None:
    with pytest.raises(CardError) as info:
        parse_cards(text)
    assert "twice" in str(info.value)


@pytest.mark.parametrize("value", [-1, 52, 100])
def test_card_str_refuses_a_number_that_is_not_a_card(value: int) -> None:
    with pytest.raises(CardError):
        card_str(value)


@pytest.mark.parametrize(("rank", "suit"), [(-1, 0), (13, 0), (0, 4), (0, -1)])
def test_make_card_refuses_impossible_rank_or_suit(rank: int, suit: int) -> None:
    with pytest.raises(CardError):
        make_card(rank, suit)
