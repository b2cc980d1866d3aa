"""Real hands at a simulated table: a PHH record turned into the events a shoe, a dealer
panel and a camera-less table would produce, played through the whole controller.

The record's players sit in seats 1..n with the button on seat n (so ``p1``, the first
seat left of the button, is seat 1). Hole cards leave the shoe one at a time clockwise
(DEAL-1); every board round, stud street (STUD-4) and draw (DRAW-5) is preceded by a burn
card the record does not name, which the simulated shoe draws from the cards no one has
seen. At a draw the dealer keys each player's discards (the record names them, as a camera
would) and the shoe deals that player's replacements before the next player draws (HO-7).
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator
from dataclasses import dataclass

from tablectl.core.cards import Card
from tablectl.core.effects import Effect
from tablectl.core.events import CardDrawn, DealerInput, DealerKey, Event
from tablectl.core.game.actions import (
    UNKNOWN_CARD,
    Action,
    BetRaise,
    BringIn,
    CheckCall,
    DealBoard,
    DealHole,
    Discard,
    Fold,
    Show,
)
from tablectl.core.table import TableConfig, TableState, new_table, step
from tablectl.formats.phh import PhhError, PhhHand, parse_action


@dataclass(frozen=True)
class TableHand:
    config: TableConfig
    players: dict[int, tuple[str, int]]
    button: int
    events: list[Event]


def table_config(hand: PhhHand, profile: str = "tda") -> TableConfig:
    f = hand.fields
    n = len(f["starting_stacks"])
    blinds = [int(b) for b in f.get("blinds_or_straddles", ()) if b]
    antes = [int(a) for a in f.get("antes", ())]
    ante = big_blind_ante = 0
    if any(antes):
        if sum(1 for a in antes if a) == 1:
            big_blind_ante = max(antes)
        else:
            ante = max(antes)
    config = TableConfig(
        seats=max(n, 2),
        game=str(f["variant"]),
        ante=ante,
        big_blind_ante=big_blind_ante,
        small_bet=int(f.get("small_bet", 0)),
        big_bet=int(f.get("big_bet", 0)),
        bring_in=int(f.get("bring_in", 0)),
        profile=profile,
    )
    # A stud table posts no blinds (STUD-5): it keeps TableConfig's unused default, as its file does.
    return dataclasses.replace(config, blinds=tuple(blinds)) if blinds else config


def table_hand(hand: PhhHand, rng: random.Random, profile: str = "tda") -> TableHand:
    """The events of one PHH hand at a table (raises PhhError for what we cannot deal)."""
    config = table_config(hand, profile)
    stacks = [int(s) for s in hand.fields["starting_stacks"]]
    names = [str(p) for p in hand.fields.get("players", [])] or [
        f"Player {k + 1}" for k in range(len(stacks))
    ]
    players = {k + 1: (names[k], stacks[k]) for k in range(len(stacks))}
    actions = [parse_action(a) for a in hand.fields["actions"]]
    seen: set[Card] = set()
    for action in actions:
        if isinstance(action, (DealHole, DealBoard)) or (isinstance(action, Show) and action.cards):
            seen.update(c for c in (action.cards or ()) if c != UNKNOWN_CARD)
    unseen = [c for c in range(52) if c not in seen]
    rng.shuffle(unseen)

    events: list[Event] = [DealerInput(DealerKey.NEW_HAND)]
    # The starting hands: every deal up to the first betting action.
    first = next((k for k, a in enumerate(actions) if not isinstance(a, DealHole)), len(actions))
    holes = [a for a in actions[:first] if isinstance(a, DealHole)]
    hand_cards = max((len(deal.cards) for deal in holes), default=0)
    for k in range(hand_cards):  # DEAL-1: one card at a time, clockwise from seat 1
        for deal in holes:
            if k < len(deal.cards):
                card = deal.cards[k]
                events.append(CardDrawn(None if card == UNKNOWN_CARD else card))
    later = actions[first:]
    burned = False  # this stud street's or draw's burn is out
    with_discards: set[int] = set()  # the replacements, dealt with their discard
    for index, action in enumerate(later):
        if isinstance(action, DealHole):
            if index in with_discards:
                continue
            if not burned:
                events.append(CardDrawn(unseen.pop()))  # the burn (STUD-4)
                burned = True
            events.extend(CardDrawn(None if c == UNKNOWN_CARD else c) for c in action.cards)
            continue
        burned = False if not isinstance(action, Discard) else burned
        if isinstance(action, Discard):
            events.append(DealerInput(DealerKey.DISCARD, seat=action.player + 1, cards=action.cards))
            at = _replacements_for(later, index)
            replacement = later[at] if at is not None else None
            dealt = replacement.cards if isinstance(replacement, DealHole) else ()
            with_discards.add(-1 if at is None else at)
            if dealt and not burned:
                events.append(CardDrawn(unseen.pop()))  # the burn before the draw's cards (DRAW-5)
                burned = True
            events.extend(CardDrawn(None if c == UNKNOWN_CARD else c) for c in dealt)
        elif isinstance(action, DealBoard):
            events.append(CardDrawn(unseen.pop()))  # the burn card (DEAL-2)
            events.extend(CardDrawn(card) for card in action.cards)
        elif isinstance(action, Fold):
            events.append(DealerInput(DealerKey.FOLD, seat=action.player + 1))
        elif isinstance(action, (CheckCall, BringIn)):
            events.append(DealerInput(DealerKey.CALL, seat=action.player + 1))
        elif isinstance(action, BetRaise):
            events.append(DealerInput(DealerKey.BET, seat=action.player + 1, amount=action.to))
        elif isinstance(action, Show):
            key = DealerKey.SHOW if action.cards else DealerKey.MUCK
            events.append(DealerInput(key, seat=action.player + 1, cards=tuple(action.cards or ())))
        else:
            raise PhhError(f"{hand.source}: cannot deal {action!r} at a table")
    return TableHand(config, players, len(stacks), events)


def _replacements_for(actions: list[Action], index: int) -> int | None:
    """Where the record deals the cards for the discard at ``index``: after all the draw's
    discards, in turn; at the table each player's come before the next player draws (HO-7)."""
    player = actions[index].player  # type: ignore[union-attr]
    for at in range(index + 1, len(actions)):
        action = actions[at]
        if isinstance(action, DealHole) and action.player == player:
            return at
        if not isinstance(action, (Discard, DealHole)):
            break
    return None


def play(table: TableHand) -> Iterator[tuple[Event, TableState, TableState, tuple[Effect, ...]]]:
    """Each event with the state before and after it and the effects it had."""
    state = new_table(table.config, table.players, table.button)
    for event in table.events:
        before = state
        state, effects = step(state, event)
        yield event, before, state, effects
