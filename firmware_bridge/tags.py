"""Tag ids for simulated decks: the same deck id and card always give the same tag.

A simulated deck's tags look like the 7-byte UIDs of ISO 14443-A tags (NTAG, MIFARE
Ultralight): the manufacturer byte 0x04 (NXP), then six bytes derived from the deck id
and the card with BLAKE2b. A test that enrols a simulated deck in the deck registry uses
:func:`deck_tags` (or :func:`tag_id` card by card) to know which tag the simulated shoe
will send for which card; a card "from another deck" is the same card under another
deck id, so it has a tag the registry does not know.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache

NXP = 0x04
CARDS = 52


def tag_id(deck_id: str, card: int) -> bytes:
    """The tag of ``card`` (0..51, tablectl.core.cards numbering) in simulated deck ``deck_id``."""
    if not 0 <= card < CARDS:
        raise ValueError(f"{card!r} is not a card (0..51)")
    return deck_tags(deck_id)[card]


@lru_cache(maxsize=64)
def deck_tags(deck_id: str) -> tuple[bytes, ...]:
    """The 52 tags of simulated deck ``deck_id``, indexed by card (all different)."""
    if not deck_id:
        raise ValueError("a simulated deck needs an id, e.g. 'sim-red'")
    tags: list[bytes] = []
    seen: set[bytes] = set()
    for card in range(CARDS):
        salt = 0
        while True:
            digest = hashlib.blake2b(f"{deck_id}\x00{card}\x00{salt}".encode(), digest_size=6).digest()
            tag = bytes([NXP]) + digest
            if tag not in seen:
                break
            salt += 1  # never seen in practice: 48 bits for 52 cards
        seen.add(tag)
        tags.append(tag)
    return tuple(tags)


def card_of(deck_id: str, tag: bytes) -> int | None:
    """The card whose tag in simulated deck ``deck_id`` is ``tag``; None if none is."""
    try:
        return deck_tags(deck_id).index(tag)
    except ValueError:
        return None
