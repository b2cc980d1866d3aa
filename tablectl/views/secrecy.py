"""What is secret at a table, in one place: DESIGN.md's security property, kept by the views.

A card is face up when it is on the board, a stud up card (dealt face up on the table, STUD-1) or
in a hand shown at the showdown; every other card of the hand in progress (a hole card, a stud down
card, a burn, a draw's discard, a card boxed, exposed, mucked or set aside) is secret from every
view but ``private``. At a draw how many cards each player drew is public, never which. The
procedure's sentences keep the cards they name apart from their words (tablectl.core.effects), so
a view names a face-up card and writes any other as :data:`HIDDEN_CARD`: no view can hold a secret
card, whatever adapter carries it (MQTT, a page, a log line).
"""

from __future__ import annotations

from collections.abc import Callable

from tablectl.core.cards import Card, card_str
from tablectl.core.game.actions import UNKNOWN_CARD, Discard
from tablectl.core.procedure import HandProgress, showing
from tablectl.core.sentences import CardName, Said, render
from tablectl.core.table import TableState

HIDDEN_CARD = "[card]"


def face_up(state: TableState) -> frozenset[Card]:
    """The cards every audience may see now: the board and the hands shown (between hands: of
    the hand just played, which lie on the felt until the next deal)."""
    hand = state.hand if state.hand is not None else state.last_hand
    if hand is None:
        return frozenset()
    game = hand.game
    seen = set(game.board)
    for position in range(hand.n):
        seen.update(showing(hand, position))
    for shown in game.shown:
        if shown is not None:
            seen.update(shown)
    seen.discard(UNKNOWN_CARD)
    return frozenset(seen)


def secret_cards(state: TableState) -> frozenset[Card]:
    """The cards no view but ``private`` may name now: the hole cards not shown at the showdown
    (folded and mucked hands included) and the burns, of the hand being played or, between
    hands, of the hand just played."""
    hand = state.hand if state.hand is not None else state.last_hand
    if hand is None:
        return frozenset()
    game = hand.game
    secret = set(hand.burns)
    for entry in hand.log:
        if isinstance(entry, Discard):
            secret.update(entry.cards)
    for position, cards in enumerate(hand.hole):
        if game.shown[position] is None:
            secret.update(cards)
            secret.update(game.hole[position])
    for position in range(hand.n):
        secret.difference_update(showing(hand, position))
    secret.discard(UNKNOWN_CARD)
    return frozenset(secret)


def held(hand: HandProgress, position: int) -> tuple[Card, ...]:
    """The cards ``position`` holds now: the engine's once it has them (stud streets, draws, a
    hand shown), the procedure's while the first deal goes on."""
    cards = hand.game.hole[position]
    return cards if cards else hand.hole[position]


def draws(hand: HandProgress) -> dict[int, list[int]]:
    """How many cards each seat drew at each draw so far (public: the cards themselves are not)."""
    drawn: dict[int, list[int]] = {}
    for entry in hand.log:
        if isinstance(entry, Discard):
            drawn.setdefault(hand.seat(entry.player), []).append(len(entry.cards))
    return drawn


def card_namer(visible: frozenset[Card]) -> CardName:
    """Names the cards in ``visible``, blanks every other."""

    def name(card: Card) -> str:
        return card_str(card) if card in visible else HIDDEN_CARD

    return name


def speaker(state: TableState) -> Callable[[Said], str]:
    """Writes the procedure's sentences as any audience of this table may read them now."""
    name = card_namer(face_up(state))

    def say(said: Said) -> str:
        return render(said, name)

    return say
