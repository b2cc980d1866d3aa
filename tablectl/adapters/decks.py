"""The deck registry: which tag is which card, on the Pi (DESIGN.md, Contracts).

The shoe's firmware reports tag ids (the bytes of an RFID tag's UID) and never knows
cards. The registry maps each tag to a card, per deck. A table keeps two decks with
different backs and deals from one of them (the *active* deck) while the other is
shuffled; decks are swapped between hands.

Identifying a tag (:meth:`DeckRegistry.identify`):

* a tag of the active deck is its card;
* a tag of the inactive deck, or of no deck registered here, is a card with a different
  back: ``foreign`` (RULES IRR-1). The inactive deck's card is still named (the dealer's
  screen can say which card it was); an unknown tag's card is ``None``;
* within one hand, a *second tag* naming a card already drawn is a second physical card of
  that rank and suit: ``duplicate`` (RULES IRR-2). The same tag read again is the same
  card coming round again (a burn card put back, a flop redealt after a reshuffle): that
  is ``repeat``, not a duplicate. With one tag per card per deck, a second tag can only be
  a replaced card's old tag (:meth:`DeckRegistry.replace_card` keeps it, ``retired``): the
  damaged card that was supposed to leave the deck has come back.

Enrolment teaches the registry a new deck: either 52 tags read in a known order
(:meth:`DeckRegistry.enrol_in_new_deck_order`, :data:`US_NEW_DECK_ORDER`), or one tag at a
time paired with the card the camera identified (:class:`Enrolment`).

Everything here is pure except :func:`load_registry` and :func:`save_registry`, which read
and atomically write the registry's JSON file.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from tablectl.core.cards import DECK, RANKS, Card, CardError, card_str, make_card, parse_card, parse_cards
from tablectl.core.events import CardDrawn

Tag = bytes
DECK_SIZE = 52
MAX_DECKS = 2  # a table deals from one deck while the other is shuffled
MAX_TAG_BYTES = 32  # 4-, 7- and 10-byte ISO 14443 UIDs, 8-byte ISO 15693, 12-byte EPC
FILE_FORMAT = "tablectl-decks"
FILE_VERSION = 1

_SPADES, _HEARTS, _DIAMONDS, _CLUBS = 3, 2, 1, 0
_ACE_TO_KING = (12, *range(0, 12))  # A, 2, 3, ..., K as rank indexes


def _suit_run(suit: int, descending: bool = False) -> tuple[Card, ...]:
    run = tuple(make_card(rank, suit) for rank in _ACE_TO_KING)
    return tuple(reversed(run)) if descending else run


US_NEW_DECK_ORDER: tuple[Card, ...] = (
    _suit_run(_SPADES) + _suit_run(_DIAMONDS) + _suit_run(_CLUBS, True) + _suit_run(_HEARTS, True)
)
"""A US (Bicycle-style) deck as it comes out of its box, read from the top of the face-down
deck: A-K of spades, A-K of diamonds, K-A of clubs, K-A of hearts. Spread face up from the
left, the same deck reads A-K hearts, A-K clubs, K-A diamonds, K-A spades."""

NEW_DECK_ORDERS: dict[str, tuple[Card, ...]] = {
    "us": US_NEW_DECK_ORDER,  # read from the top of the face-down deck (A of spades first)
    "us-from-face": tuple(reversed(US_NEW_DECK_ORDER)),  # read from the face (A of hearts first)
}


class DeckError(ValueError):
    """A registry operation that cannot be done; the message says what and how to fix it."""


class DeckFileError(DeckError):
    """A registry file that cannot be read; the message names the file, the deck and the key."""


def deck_order(spec: str) -> tuple[Card, ...]:
    """A named order (``us``, ``us-from-face``) or the 52 cards written out in order."""
    named = NEW_DECK_ORDERS.get(spec.strip().lower())
    if named is not None:
        return named
    try:
        cards = parse_cards(spec)
    except CardError as exc:
        raise DeckError(
            f"{spec!r} is not a deck order: name one ({', '.join(NEW_DECK_ORDERS)}) "
            f"or write all 52 cards in order ({exc})"
        ) from None
    if len(cards) != DECK_SIZE:
        missing = " ".join(card_str(c) for c in DECK if c not in cards)
        raise DeckError(f"a deck order names all 52 cards once; {len(cards)} given, missing: {missing}")
    return cards


def tag_hex(tag: Tag) -> str:
    """A tag as the hex the file and the logs use: ``04A224B1C25E80``."""
    return tag.hex().upper()


def parse_tag(text: str) -> Tag:
    """A tag written in hex; colons, dashes and spaces between bytes are allowed."""
    compact = text.replace(":", "").replace("-", "").replace(" ", "")
    try:
        tag = bytes.fromhex(compact)
    except ValueError:
        raise DeckError(
            f'{text!r} is not a tag id: write the tag\'s bytes in hex, e.g. "04A224B1C25E80"'
        ) from None
    return check_tag(tag)


def check_tag(tag: Tag) -> Tag:
    if not isinstance(tag, (bytes, bytearray)):
        raise DeckError(f"a tag id is bytes, got {type(tag).__name__}")
    if not 1 <= len(tag) <= MAX_TAG_BYTES:
        raise DeckError(f"a tag id has 1 to {MAX_TAG_BYTES} bytes, got {len(tag)}")
    return bytes(tag)


@dataclass(frozen=True, slots=True)
class Deck:
    """One physical deck: its back, and the tag of each of its 52 cards.

    ``retired`` keeps the tags of cards replaced by :meth:`DeckRegistry.replace_card`: they
    still name their card, so that an old card that comes back is caught as a duplicate."""

    id: str
    back: str
    tags: Mapping[Tag, Card]
    retired: Mapping[Tag, Card] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # Read-only copies: the registry indexes the tags, they must not change behind its back.
        object.__setattr__(self, "tags", MappingProxyType(dict(self.tags)))
        object.__setattr__(self, "retired", MappingProxyType(dict(self.retired)))
        if not self.id or not self.id.strip():
            raise DeckError('a deck needs an id (the name written on its case, e.g. "red-1")')
        if not self.back or not self.back.strip():
            raise DeckError(f'deck {self.id!r}: give its back colour or design, e.g. "red"')
        by_card: dict[Card, Tag] = {}
        for tag, card in self.tags.items():
            check_tag(tag)
            if card in by_card:
                raise DeckError(
                    f"deck {self.id!r}: {card_str(card)} has two tags "
                    f"({tag_hex(by_card[card])} and {tag_hex(tag)}); a deck holds each card once"
                )
            by_card[card] = tag
        missing = [c for c in DECK if c not in by_card]
        if missing or len(by_card) != DECK_SIZE:
            raise DeckError(
                f"deck {self.id!r}: a deck has 52 cards, {len(by_card)} enrolled; "
                f"missing: {' '.join(card_str(c) for c in missing)}"
            )
        for tag in self.retired:
            check_tag(tag)
            if tag in self.tags:
                raise DeckError(f"deck {self.id!r}: tag {tag_hex(tag)} is both in use and retired")

    def card_of(self, tag: Tag) -> Card | None:
        card = self.tags.get(tag)
        return self.retired.get(tag) if card is None else card

    def tag_of(self, card: Card) -> Tag:
        for tag, known in self.tags.items():
            if known == card:
                return tag
        raise DeckError(f"{card_str(card)} is not in deck {self.id!r}")  # unreachable: 52 cards

    def all_tags(self) -> set[Tag]:
        return set(self.tags) | set(self.retired)


@dataclass(frozen=True, slots=True)
class Identity:
    """What the registry says about one tag read.

    ``card`` is None only for a tag of no deck registered here; ``foreign`` means a card
    with a different back (IRR-1); ``duplicate`` a second physical card of a rank and suit
    already drawn this hand (IRR-2); ``repeat`` the very same tag drawn again this hand."""

    tag: Tag
    card: Card | None
    deck: str | None = None
    foreign: bool = False
    duplicate: bool = False
    repeat: bool = False

    def describe(self) -> str:
        """One line for a log or the floor's screen."""
        name = card_str(self.card) if self.card is not None else "an unknown card"
        where = f"deck {self.deck}" if self.deck is not None else "no deck at this table"
        if self.foreign:
            return f"tag {tag_hex(self.tag)}: {name} from {where}: a different back (IRR-1)"
        if self.duplicate:
            return f"tag {tag_hex(self.tag)}: a second {name} this hand (IRR-2)"
        return f"tag {tag_hex(self.tag)}: {name} ({where}{', again' if self.repeat else ''})"


class DeckRegistry:
    """The decks of one table, which one is dealing, and the cards drawn this hand.

    Not thread-safe: the one adapter that reads the shoe owns it."""

    def __init__(self, decks: Iterable[Deck] = (), active: str | None = None) -> None:
        self._decks: dict[str, Deck] = {}
        self._owner: dict[Tag, str] = {}  # tag -> deck id, over every deck
        self._active: str | None = None
        self._seen: dict[Card, Tag] = {}  # this hand: card -> the first tag drawn for it
        for deck in decks:
            self.add_deck(deck)
        if active is not None:
            self.activate(active)

    # -- the decks --------------------------------------------------------------------------

    @property
    def decks(self) -> tuple[Deck, ...]:
        return tuple(self._decks.values())

    @property
    def active(self) -> Deck | None:
        return None if self._active is None else self._decks[self._active]

    def deck(self, deck_id: str) -> Deck:
        try:
            return self._decks[deck_id]
        except KeyError:
            known = ", ".join(self._decks) or "none yet"
            raise DeckError(f"no deck {deck_id!r} at this table (decks: {known})") from None

    def is_active(self, deck_id: str) -> bool:
        return deck_id == self._active

    def add_deck(self, deck: Deck, *, active: bool = False) -> Deck:
        """Register an enrolled deck. The first deck added becomes the active one."""
        if deck.id in self._decks:
            raise DeckError(f"deck {deck.id!r} is already registered: remove it first to enrol it again")
        if len(self._decks) >= MAX_DECKS:
            raise DeckError(
                f"this table already has {MAX_DECKS} decks ({', '.join(self._decks)}): "
                "remove the one being retired before adding a new one"
            )
        for other in self._decks.values():
            if other.back.strip().lower() == deck.back.strip().lower():
                raise DeckError(
                    f"deck {deck.id!r} has the same back ({deck.back}) as deck {other.id!r}: "
                    "the two decks of a table need different backs"
                )
        for tag in deck.all_tags():
            owner = self._owner.get(tag)
            if owner is not None:
                card = self._decks[owner].card_of(tag)
                assert card is not None
                raise DeckError(
                    f"deck {deck.id!r}: tag {tag_hex(tag)} is already {card_str(card)} of deck "
                    f"{owner!r}; one tag cannot be in two decks"
                )
        self._decks[deck.id] = deck
        for tag in deck.all_tags():
            self._owner[tag] = deck.id
        if active or self._active is None:
            self._active = deck.id
        return deck

    def remove_deck(self, deck_id: str) -> Deck:
        deck = self.deck(deck_id)
        del self._decks[deck_id]
        for tag in deck.all_tags():
            del self._owner[tag]
        if self._active == deck_id:
            self._active = next(iter(self._decks), None)
        return deck

    def activate(self, deck_id: str) -> Deck:
        """Deal from this deck from now on (switch between hands)."""
        deck = self.deck(deck_id)
        self._active = deck_id
        return deck

    def enrol_in_new_deck_order(
        self,
        deck_id: str,
        tags: Iterable[Tag],
        *,
        back: str,
        order: Iterable[Card] = US_NEW_DECK_ORDER,
        active: bool = False,
    ) -> Deck:
        """Enrol a deck from the 52 tags read from a new, unshuffled deck.

        ``tags`` are in the order the reader read them, ``order`` the cards in that same
        order (default :data:`US_NEW_DECK_ORDER`: A of spades first)."""
        cards = tuple(order)
        if sorted(cards) != list(DECK):
            raise DeckError("the deck order must name each of the 52 cards once (see deck_order)")
        enrolment = Enrolment(deck_id, back, known=self._owner)
        read = [check_tag(t) for t in tags]
        if len(read) != DECK_SIZE:
            raise DeckError(
                f"deck {deck_id!r}: {len(read)} tags read, a new deck has 52: "
                "read the whole deck again, one card at a time"
            )
        for position, (tag, card) in enumerate(zip(read, cards, strict=True), start=1):
            owner = self._owner.get(tag)
            if owner is not None:
                known = self._decks[owner].card_of(tag)
                assert known is not None
                raise DeckError(
                    f"card {position} of the deck: tag {tag_hex(tag)} is already {card_str(known)} of deck "
                    f"{owner!r}: a card of that deck is mixed in; take it out and read the deck again"
                )
            try:
                enrolment.add(tag, card)
            except DeckError as exc:
                raise DeckError(f"card {position} of the deck: {exc}") from None
        return self.add_deck(enrolment.deck(), active=active)

    def start_enrolment(self, deck_id: str, back: str) -> Enrolment:
        """An enrolment that knows the tags of the decks already here."""
        if deck_id in self._decks:
            raise DeckError(f"deck {deck_id!r} is already registered: remove it first to enrol it again")
        return Enrolment(deck_id, back, known=self._owner)

    def replace_card(self, deck_id: str, card: Card, tag: Tag) -> Deck:
        """A damaged card is replaced by a spare: ``tag`` becomes ``card``; the old tag is
        retired (a second card if it ever comes back)."""
        deck = self.deck(deck_id)
        tag = check_tag(tag)
        owner = self._owner.get(tag)
        if owner is not None:
            raise DeckError(f"tag {tag_hex(tag)} already belongs to deck {owner!r}: use a new spare card")
        old = deck.tag_of(card)
        tags = {t: c for t, c in deck.tags.items() if t != old}
        tags[tag] = card
        new = Deck(deck.id, deck.back, tags, {**deck.retired, old: card})
        self._decks[deck_id] = new
        self._owner[tag] = deck_id
        return new

    # -- the hand ---------------------------------------------------------------------------

    def new_hand(self) -> None:
        """Forget the cards drawn: call when a deal starts (and after a misdeal's reshuffle)."""
        self._seen.clear()

    def lookup(self, tag: Tag) -> Identity:
        """What ``tag`` is, without recording it as drawn."""
        return self._identify(check_tag(tag), record=False)

    def identify(self, tag: Tag) -> Identity:
        """What ``tag`` is, recorded as drawn this hand (for the duplicate check)."""
        return self._identify(check_tag(tag), record=True)

    def _identify(self, tag: Tag, record: bool) -> Identity:
        owner = self._owner.get(tag)
        if owner is None:
            return Identity(tag, None, None, foreign=True)
        card = self._decks[owner].card_of(tag)
        assert card is not None
        if owner != self._active:
            return Identity(tag, card, owner, foreign=True)
        first = self._seen.get(card)
        if first is None:
            if record:
                self._seen[card] = tag
            return Identity(tag, card, owner)
        return Identity(tag, card, owner, duplicate=first != tag, repeat=first == tag)

    def card_drawn(self, tag: Tag | None, face_up: bool = False, at: float = 0.0) -> CardDrawn:
        """The controller's event for a card read by the shoe; ``tag`` None or empty: unreadable."""
        return card_drawn(self, tag, face_up, at)


def card_drawn(registry: DeckRegistry, tag: Tag | None, face_up: bool = False, at: float = 0.0) -> CardDrawn:
    """Turn the shoe's read of a card leaving it into the controller's :class:`CardDrawn`.

    * ``tag`` None or empty (the shoe saw a card go but could not decode its tag): ``card``
      None, not foreign; the procedure asks for the card to be named;
    * a tag of no deck here (IRR-1 by DESIGN.md): ``foreign``, ``card`` None;
    * a tag of the inactive deck: ``foreign``, with its card;
    * otherwise the card. A duplicate (IRR-2) is passed on as the card it names: the
      procedure knows the cards dealt this hand and rules on it."""
    if not tag:  # None, or the empty tag of a read the reader could not decode
        return CardDrawn(card=None, face_up=face_up, foreign=False, at=at)
    identity = registry.identify(tag)
    return CardDrawn(card=identity.card, face_up=face_up, foreign=identity.foreign, at=at)


class Enrolment:
    """Enrolling a deck in any order: each tag read is paired with the card the camera (or
    the operator) identified. Refuses a card twice and a tag twice; complete at 52."""

    def __init__(self, deck_id: str, back: str, known: Mapping[Tag, str] | None = None) -> None:
        if not deck_id or not deck_id.strip():
            raise DeckError('a deck needs an id (the name written on its case, e.g. "red-1")')
        self.deck_id = deck_id
        self.back = back
        self._known = dict(known or {})  # tags of other decks -> their deck id
        self._tags: dict[Tag, Card] = {}
        self._cards: dict[Card, Tag] = {}

    def add(self, tag: Tag, card: Card) -> None:
        tag = check_tag(tag)
        if not 0 <= card < DECK_SIZE:
            raise DeckError(f"{card!r} is not a card (0..51)")
        owner = self._known.get(tag)
        if owner is not None:
            raise DeckError(
                f"tag {tag_hex(tag)} belongs to deck {owner!r}: that card is from another deck; "
                f"set it aside and read the next card of {self.deck_id!r}"
            )
        if tag in self._tags:
            raise DeckError(
                f"tag {tag_hex(tag)} was already read as {card_str(self._tags[tag])}: "
                "the same card was read twice; read the next card"
            )
        if card in self._cards:
            raise DeckError(
                f"{card_str(card)} is already enrolled (tag {tag_hex(self._cards[card])}): this is a "
                f"second {card_str(card)} (tag {tag_hex(tag)}), or the camera misread it; "
                "check the card and show it again"
            )
        self._tags[tag] = card
        self._cards[card] = tag

    def undo(self, card: Card) -> None:
        """Forget ``card`` (the camera misread it): it can be enrolled again."""
        tag = self._cards.pop(card, None)
        if tag is None:
            raise DeckError(f"{card_str(card)} is not enrolled yet")
        del self._tags[tag]

    @property
    def count(self) -> int:
        return len(self._cards)

    @property
    def complete(self) -> bool:
        return len(self._cards) == DECK_SIZE

    def missing(self) -> tuple[Card, ...]:
        return tuple(c for c in DECK if c not in self._cards)

    def deck(self) -> Deck:
        if not self.complete:
            missing = " ".join(card_str(c) for c in self.missing())
            raise DeckError(
                f"deck {self.deck_id!r}: {self.count} of 52 cards enrolled; still to read: {missing}"
            )
        return Deck(self.deck_id, self.back, dict(self._tags))


# -- the file ---------------------------------------------------------------------------------


def registry_to_json(registry: DeckRegistry) -> dict[str, Any]:
    """The registry as JSON: each deck's cards as ``{"As": "04A224B1C25E80", ...}``."""
    decks: dict[str, Any] = {}
    for deck in registry.decks:
        by_card = {card: tag for tag, card in deck.tags.items()}
        entry: dict[str, Any] = {
            "back": deck.back,
            "cards": {card_str(c): tag_hex(by_card[c]) for c in _file_order()},
        }
        if deck.retired:
            entry["retired"] = {tag_hex(t): card_str(c) for t, c in deck.retired.items()}
        decks[deck.id] = entry
    active = registry.active
    return {
        "format": FILE_FORMAT,
        "version": FILE_VERSION,
        "active": None if active is None else active.id,
        "decks": decks,
    }


def _file_order() -> tuple[Card, ...]:
    """Cards in the file read A-K by suit: spades, hearts, diamonds, clubs."""
    ranks = [RANKS.index(r) for r in "A23456789TJQK"]
    return tuple(make_card(r, s) for s in (_SPADES, _HEARTS, _DIAMONDS, _CLUBS) for r in ranks)


def registry_from_json(data: Any, source: str = "the deck registry") -> DeckRegistry:
    """Read :func:`registry_to_json`'s output; errors name ``source``, the deck and the key."""

    def fail(where: str, message: str) -> DeckFileError:
        return DeckFileError(f"{source}: {where}: {message}")

    if not isinstance(data, dict):
        raise DeckFileError(f'{source}: expected a JSON object with "decks", got {type(data).__name__}')
    if data.get("format", FILE_FORMAT) != FILE_FORMAT:
        raise fail("format", f"{data.get('format')!r} is not a deck registry ({FILE_FORMAT!r})")
    if data.get("version", FILE_VERSION) != FILE_VERSION:
        raise fail("version", f"version {data.get('version')!r} is not {FILE_VERSION}: upgrade tablectl")
    unknown = set(data) - {"format", "version", "active", "decks"}
    if unknown:
        raise fail(", ".join(sorted(unknown)), "unknown key(s); valid: format, version, active, decks")
    decks_data = data.get("decks", {})
    if not isinstance(decks_data, dict):
        raise fail("decks", "expected an object of deck id -> deck")
    registry = DeckRegistry()
    for deck_id, entry in decks_data.items():
        deck = _deck_from_json(deck_id, entry, fail)
        try:
            registry.add_deck(deck)
        except DeckError as exc:
            raise fail(f"deck {deck_id!r}", str(exc)) from None
    active = data.get("active")
    known = ", ".join(decks_data) or "none"
    if active is None and decks_data:
        raise fail("active", f"name the deck being dealt from, one of: {known}")
    if active is not None:
        if not isinstance(active, str) or active not in decks_data:
            raise fail("active", f"{active!r} is not one of the decks in the file ({known})")
        registry.activate(active)
    return registry


def _deck_from_json(deck_id: str, entry: Any, fail: Callable[[str, str], DeckFileError]) -> Deck:
    where = f"deck {deck_id!r}"
    if not isinstance(entry, dict):
        raise fail(where, "expected an object with back and cards")
    unknown = set(entry) - {"back", "cards", "retired"}
    if unknown:
        raise fail(f"{where}: {', '.join(sorted(unknown))}", "unknown key(s); valid: back, cards, retired")
    back = entry.get("back")
    if not isinstance(back, str) or not back.strip():
        raise fail(f"{where}: back", 'give the deck\'s back colour or design as text, e.g. "red"')
    cards = entry.get("cards")
    if not isinstance(cards, dict):
        raise fail(f"{where}: cards", 'expected an object of card -> tag, e.g. {"As": "04A224B1C25E80"}')
    tags: dict[Tag, Card] = {}
    first_key: dict[Card, str] = {}
    for key, value in cards.items():
        try:
            card = parse_card(key)
        except CardError as exc:
            raise fail(f"{where}: cards.{key}", str(exc)) from None
        if card in first_key:
            raise fail(f"{where}: cards.{key}", f"{card_str(card)} is also cards.{first_key[card]}")
        first_key[card] = key
        if not isinstance(value, str):
            raise fail(f"{where}: cards.{key}", f"expected the tag in hex, got {value!r}")
        try:
            tag = parse_tag(value)
        except DeckError as exc:
            raise fail(f"{where}: cards.{key}", str(exc)) from None
        if tag in tags:
            raise fail(
                f"{where}: cards.{key}",
                f"tag {tag_hex(tag)} is also {card_str(tags[tag])}: each card has its own tag",
            )
        tags[tag] = card
    missing = [card_str(c) for c in DECK if c not in first_key]
    if missing:
        raise fail(f"{where}: cards", f"missing {' '.join(missing)}: a deck has 52 cards; enrol it again")
    retired: dict[Tag, Card] = {}
    retired_data = entry.get("retired", {})
    if not isinstance(retired_data, dict):
        raise fail(f"{where}: retired", "expected an object of tag -> card")
    for key, value in retired_data.items():
        try:
            retired[parse_tag(key)] = parse_card(str(value))
        except (DeckError, CardError) as exc:
            raise fail(f"{where}: retired.{key}", str(exc)) from None
    try:
        return Deck(deck_id, back, tags, retired)
    except DeckError as exc:
        raise fail(where, str(exc)) from None


def load_registry(path: str | os.PathLike[str], missing_ok: bool = False) -> DeckRegistry:
    """Read a registry file; a file that does not exist is an empty registry if ``missing_ok``."""
    name = os.fspath(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        if missing_ok:
            return DeckRegistry()
        raise DeckFileError(f"{name}: no such file: enrol a deck first, or fix decks.registry") from None
    except OSError as exc:
        raise DeckFileError(f"{name}: cannot read it: {exc.strerror}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DeckFileError(
            f"{name}:{exc.lineno}: not valid JSON ({exc.msg}, column {exc.colno}); "
            "restore it from the backup or enrol the decks again"
        ) from None
    return registry_from_json(data, name)


def save_registry(registry: DeckRegistry, path: str | os.PathLike[str]) -> None:
    """Write the registry atomically: a crash leaves the old file or the new one, never half."""
    target = Path(path)
    text = json.dumps(registry_to_json(registry), indent=2) + "\n"
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_directory(target.parent)


def _fsync_directory(directory: Path) -> None:
    """Make the rename durable (POSIX); a no-op where directories cannot be opened."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
