"""Cards, decks and card notation (layer 1).

A card is a plain int 0..51: ``rank * 4 + suit`` with ranks 0..12 for 2..A and
suits 0..3 for clubs, diamonds, hearts, spades. Plain ints keep the evaluator and
the engine fast on a Pi; :func:`card_str` and :func:`parse_card` are the only
places that know the notation.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

RANKS = "23456789TJQKA"
SUITS = "cdhs"
SUIT_SYMBOLS = {"♣": "c", "♦": "d", "♥": "h", "♠": "s", "♧": "c", "♢": "d", "♡": "h", "♤": "s"}

Card = int
DECK: tuple[Card, ...] = tuple(range(52))


class CardError(ValueError):
    """A card that cannot exist, or a card notation we cannot read."""


def rank_of(card: Card) -> int:
    return card >> 2


def suit_of(card: Card) -> int:
    return card & 3


def make_card(rank: int, suit: int) -> Card:
    if not (0 <= rank < 13 and 0 <= suit < 4):
        raise CardError(f"no card has rank index {rank} and suit index {suit}")
    return rank * 4 + suit


def card_str(card: Card) -> str:
    if not 0 <= card < 52:
        raise CardError(f"{card!r} is not a card (expected 0..51)")
    return RANKS[card >> 2] + SUITS[card & 3]


def cards_str(cards: Iterable[Card], sep: str = "") -> str:
    return sep.join(card_str(c) for c in cards)


# A card as card_str writes it, standing alone in a text: for scanners that check a text names no
# card it may not (tests, the MQTT audit); never to hide cards, which the views do from data.
CARD_TOKEN = re.compile(rf"(?<![A-Za-z0-9])[{RANKS}][{SUITS}](?![A-Za-z0-9])")

_TOKEN = re.compile(r"(10|[2-9TJQKAtjqka])([cdhsCDHS♣♦♥♠♧♢♡♤])")


def parse_card(text: str) -> Card:
    """Read one card: ``As``, ``Td``, ``10d``, ``A♠`` (case-insensitive rank and suit)."""
    known = _AS_WRITTEN.get(text)  # the way card_str writes it: every journaled card
    if known is not None:
        return known
    token = text.strip()
    match = _TOKEN.fullmatch(token)
    if match is None:
        raise CardError(
            f"{text!r} is not a card: write rank then suit, e.g. 'As', 'Td', '10d' or 'A♠' "
            f"(ranks {RANKS}, suits {SUITS} or ♣♦♥♠)"
        )
    rank_text, suit_text = match.groups()
    rank = RANKS.index("T" if rank_text == "10" else rank_text.upper())
    suit = SUITS.index(SUIT_SYMBOLS.get(suit_text, suit_text.lower()))
    return rank * 4 + suit


_AS_WRITTEN = {card_str(card): card for card in range(52)}


def parse_cards(text: str) -> tuple[Card, ...]:
    """Read cards written together or apart: ``AcKd``, ``Ac Kd``, ``10d,J♠``.

    Raises :class:`CardError` for anything that is not a card, and for a card
    named twice (a deck holds each card once).
    """
    compact = re.sub(r"[\s,]+", "", text)
    cards: list[Card] = []
    pos = 0
    while pos < len(compact):
        match = _TOKEN.match(compact, pos)
        if match is None:
            raise CardError(
                f"cannot read a card at position {pos} of {text!r}: "
                f"write rank then suit, e.g. 'AcKd' or 'Ac Kd'"
            )
        cards.append(parse_card(match.group(0)))
        pos = match.end()
    check_distinct(cards)
    return tuple(cards)


def check_distinct(cards: Sequence[Card]) -> None:
    seen: set[Card] = set()
    for card in cards:
        if card in seen:
            raise CardError(f"{card_str(card)} appears twice: a deck holds each card once")
        seen.add(card)
