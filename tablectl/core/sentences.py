"""Sentences that name cards, with the cards kept apart from the words (layer 1).

The rules and the procedure tell people what happened in sentences such as "a second Kh came
out". Who may read which card differs by audience (DESIGN.md: only ``private`` holds an unshown
hole card), so a sentence is data: its texts and a :class:`Mention` for each card, and each
audience renders it with its own way of naming a card (tablectl.views.secrecy). A sentence that
names no card may stay a plain ``str``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from tablectl.core.cards import Card, card_str


class Mention(NamedTuple):
    """A card named in a sentence: kept as data, so that each audience decides how to name it."""

    card: Card


Sentence = tuple["str | Mention", ...]
Said = str | Sentence  # a sentence naming no card may stay a plain str
CardName = Callable[[Card], str]


def sentence(*pieces: str | Mention | Sentence) -> Sentence:
    """One sentence of texts, mentions and other sentences, in order."""
    parts: list[str | Mention] = []
    for piece in pieces:
        if isinstance(piece, tuple) and not isinstance(piece, Mention):
            parts.extend(piece)
        else:
            parts.append(piece)
    return tuple(parts)


def capitalized(said: Said) -> Said:
    """The sentence with a capital first letter (a card's notation, if it starts with one, is one)."""
    if isinstance(said, str):
        return said[:1].upper() + said[1:]
    if said and isinstance(said[0], str):
        return (said[0][:1].upper() + said[0][1:], *said[1:])
    return said


def render(said: Said, name: CardName = card_str) -> str:
    """The sentence with each card it mentions written by ``name`` (by default, its notation)."""
    if isinstance(said, str):
        return said
    return "".join(part if isinstance(part, str) else name(part.card) for part in said)


def mentioned(said: Said) -> tuple[Card, ...]:
    """The cards a sentence names."""
    if isinstance(said, str):
        return ()
    return tuple(part.card for part in said if isinstance(part, Mention))
