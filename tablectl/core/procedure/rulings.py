"""The rulings themselves: how a ruling, a void and a misdeal are made, and the checks any device
can trigger.

A misdeal stands only before the MD-1 cut-off; the causes the dealer may name are MD-a..MD-j. A card
with another back, or a second card of the same rank and suit, voids the hand (IRR-1, IRR-2). An exposed hole
card (MD-a, MD-b, MD-3, IRR-6, IRR-7), reported by the camera or keyed by the dealer, is ruled here.
"""

from __future__ import annotations

from tablectl.core.cards import Card
from tablectl.core.effects import Effect, Ruling, Severity
from tablectl.core.game.profiles import HouseRules
from tablectl.core.procedure.progress import (
    HandProgress,
    Pending,
    Refused,
    _deal_index,
    _deal_just_done,
    _evolve,
    _hole_phase,
    _show,
    misdeal_allowed,
    showing,
)
from tablectl.core.sentences import Mention, Said, capitalized, sentence


def _ruling(rule: str, text: Said, severity: Severity, confirm: bool = False) -> Ruling:
    return Ruling(rule, text, severity, confirm)


def _void(hand: HandProgress, rule: str, text: Said) -> tuple[HandProgress, tuple[Effect, ...]]:
    pending = Pending("void", rule, text)
    return _evolve(hand, pending=pending), (_ruling(rule, text, Severity.VOID, True),)


def _misdeal(
    hand: HandProgress, rule: str, why: Said, rules: HouseRules, after: str = ""
) -> tuple[HandProgress, tuple[Effect, ...]]:
    """A misdeal before the MD-1 cut-off; after it, the hand plays on (``after`` says how)."""
    if not misdeal_allowed(hand, rules):
        text = sentence(
            capitalized(why),
            f" ({rule}), but action has been taken: no misdeal. "
            f"The hand is played out; no chips go back to a fouled hand.{after}",
        )
        return hand, (_ruling("MD-1", text, Severity.INFO),)
    stays = "the button and blinds stay" if hand.game.config.variant.game.has_button else "redeal"
    text = sentence("Misdeal: ", why, f". Collect the cards and reshuffle; {stays}.")
    if rule == "MD-g":
        text = sentence(
            "Misdeal: ",
            why,
            ". Collect the cards and reshuffle; "
            f"put the button at seat {hand.seat(hand.n - 1)} and post the blinds again.",
        )
    pending = Pending("misdeal", rule, text)
    return _evolve(hand, pending=pending), (_ruling(rule, text, Severity.MISDEAL, True),)


_MISDEAL_REASONS = {
    "a": "the first or second card was exposed",
    "b": "two or more cards were exposed",
    "c": "two or more boxed cards",
    "d": "two or more extra cards",
    "e": "a player was dealt the wrong number of cards",
    "f": "a card was dealt out of sequence",
    "g": "the button was out of position",
    "h": "the first card went to the wrong seat",
    "i": "cards were dealt to a seat not entitled to a hand",
    "j": "a player entitled to a hand was dealt out",
}


def _check_identity(hand: HandProgress, card: Card | None, foreign: bool) -> tuple[str, Said] | None:
    """IRR-1 and IRR-2: a card with another back, or a second card of the same rank and suit."""
    if foreign:
        return (
            "IRR-1",
            sentence(_show(card), " with a different back came out: all action is void; return every chip."),
        )
    if card is not None and card in hand.dealt:
        void = ": all action is void; return every chip."
        return "IRR-2", sentence("a second ", Mention(card), " came out", void)
    return None


def _exposed(
    hand: HandProgress, seat: int | None, card: Card | None, by: str, rules: HouseRules
) -> tuple[HandProgress, tuple[Effect, ...]]:
    """An exposed hole card (MD-a, MD-b, MD-3, IRR-6, IRR-7)."""
    position = hand.position(seat)
    if by == "player":
        return hand, (_ruling("IRR-7", f"A card flashed by a player plays (seat {seat}).", Severity.INFO),)
    just_dealt = _deal_just_done(hand)
    if not (_hole_phase(hand) or just_dealt):
        text: Said = f"Seat {seat}'s card is exposed after the deal: it plays; the hand goes on."
        return hand, (_ruling("IRR-7", text, Severity.INFO),)
    held = hand.hole[position]
    shown = card if card is not None else (held[-1] if held else None)
    if shown is None:
        raise Refused("INPUT", f"seat {seat} has no card yet: which card was exposed?")
    if shown not in held:
        raise Refused(
            "INPUT", sentence(_show(shown), f" was not dealt to seat {seat}: check the seat and the card")
        )
    if any(p == position and c == shown for p, c in hand.exposed):
        return hand, ()  # already ruled on (the camera and the dealer both reported it)
    if shown in showing(hand, position):
        return hand, ()  # a stud up card: face up as dealt
    hand = _evolve(hand, exposed=hand.exposed + ((position, shown),))
    if hand.game.config.variant.game.cards_up_in_order and not hand.game.street:
        return _stud_down_card_exposed(hand, position, shown, rules)
    card_index = _deal_index(hand, position, shown)
    if card_index is not None and card_index < 2:
        return _misdeal(hand, "MD-a", "the first or second card of the hand was exposed", rules)
    if len(hand.exposed) >= 2:
        return _misdeal(hand, "MD-b", "two cards exposed by the dealer", rules)
    if rules.every_exposed_card_misdeals:
        return _misdeal(hand, "MD-3", "a card was exposed by the dealer", rules)
    hole = list(hand.hole)
    cards = list(hole[position])
    cards.remove(shown)
    hole[position] = tuple(cards)
    if just_dealt:  # the last card of the deal was exposed: take the hands back until it is replaced
        hand = _evolve(hand, game=hand.start, log=()) if hand.start is not None else hand
    hand = _evolve(
        hand,
        hole=tuple(hole),
        to_replace=hand.to_replace + (position,),
        burn_ready=True,
        burn_card=shown,
        burns=hand.burns + (shown,),
    )
    text = sentence(
        "Exposed card ",
        _show(shown),
        f" at seat {seat}: the deal goes on; it may not be kept. After the "
        "deal, replace it with the top card; the exposed card becomes the burn card.",
    )
    return hand, (_ruling("IRR-6", text, Severity.CORRECT),)


def _stud_down_card_exposed(
    hand: HandProgress, position: int, card: Card, rules: HouseRules
) -> tuple[HandProgress, tuple[Effect, ...]]:
    """HO-4 (STUD-19): a down card of third street exposed by the dealer plays as an up card and
    the seat's third card is dealt down; a second exposed down card is a misdeal (MD-b)."""
    if len(hand.exposed) >= 2:
        return _misdeal(hand, "MD-b", "two down cards exposed by the dealer", rules)
    held = hand.hole[position]
    third_up = len(held) > 2 and held[2] != card
    hand = _evolve(hand, turned_up=hand.turned_up + ((position, card, third_up),))
    seat = hand.seat(position)
    rest = (
        "its third card is already up and stays up."
        if third_up
        else f"deal seat {seat}'s third card face down."
    )
    text = sentence(f"Seat {seat}'s down card ", _show(card), " was exposed: it plays as an up card; ", rest)
    return hand, (_ruling("HO-4", text, Severity.CORRECT),)
