"""What the dealer does next: the prompt, written from where the deal stands.

The text is written only when read (a fold never reads it). It names the step the rules want next:
the seat due a card (DEAL-1), a card owed (IRR-3) or a replacement (IRR-6), the action in turn, the
burn before a board round, the showdown.
"""

from __future__ import annotations

from functools import partial

from tablectl.core.effects import Prompt
from tablectl.core.game.actions import UNKNOWN_CARD
from tablectl.core.game.engine import Phase, legal
from tablectl.core.procedure.progress import (
    HandProgress,
    _owed_due,
    _street_name,
    burn_due,
    card_is_up,
    deal_complete,
    drawing_position,
    next_hole_position,
    next_street_position,
)
from tablectl.core.sentences import Said, sentence


def prompt_for(hand: HandProgress) -> Prompt:
    """What the dealer does next (written when first read: a fold never reads it)."""
    return Prompt.later(partial(_prompt_text, hand))


def _prompt_text(hand: HandProgress) -> Said:
    if hand.pending is not None:
        return sentence(hand.pending.said, " Press confirm when done.")
    game = hand.game
    if not deal_complete(hand):
        if _owed_due(hand):
            return f"Deal seat {hand.seat(next_hole_position(hand))} the card it is owed."
        position = next_hole_position(hand)
        if game.config.variant.game.cards_up_in_order:
            face = "up" if card_is_up(hand, position) else "down"
            return f"Deal third street, two down, one up: a card {face} to seat {hand.seat(position)}."
        return f"Deal a card to seat {hand.seat(position)}."
    if hand.to_replace:
        return f"Deal seat {hand.seat(hand.to_replace[0])} a card to replace the exposed one."
    if game.phase is Phase.BETTING and game.actor is not None:
        options = legal(game)
        assert options is not None
        if options.bring_in:
            return (
                f"Seat {hand.seat(game.actor)} brings in: post {options.bring_in:,} "
                f"or complete to {game.bet_unit:,}."
            )
        owe = f", {options.call_amount:,} to call" if options.call_amount else ""
        return f"Action: seat {hand.seat(game.actor)}{owe}."
    if game.phase is Phase.DEALING_BOARD:
        street = _street_name(hand, game.street)
        if UNKNOWN_CARD in hand.board_pending and len(hand.board_pending) >= game.board_needed:
            return f"The reader missed a {street} card: show it to the camera."
        if not (hand.burned_round or hand.burn_ready or hand.no_burn_next):
            return f"Burn, then deal the {street}."
        return f"Deal the {street}."
    if game.phase is Phase.DEALING_HOLE:
        return _street_prompt(hand)
    if game.phase is Phase.DRAWING:
        return _draw_prompt(hand)
    if game.phase is Phase.SHOWDOWN:
        return "Showdown: turn the hands up, last aggressor first."
    return "Hand complete: push the pot."


def _street_prompt(hand: HandProgress) -> Said:
    """A stud street: the burn (STUD-4), then one card to each player still in (STUD-1)."""
    position = next_street_position(hand)
    street = _street_name(hand, hand.game.street)
    if position is None:
        return f"Deal the {street}."
    face = "up" if card_is_up(hand, position) else "down"
    if hand.community_next:  # HO-3
        first = "Burn, then deal" if burn_due(hand) else "Deal"
        return f"{first} one card face up in the centre for all players: the {street}."
    if hand.bury_owed:
        cards = "1 card" if hand.bury_owed == 1 else f"{hand.bury_owed} cards"
        return f"Bury {cards} face down with the burn cards (STUD-12), then deal {street}."
    if burn_due(hand):
        return f"Burn, then deal {street}: one card {face} to each player, seat {hand.seat(position)} first."
    return f"Deal seat {hand.seat(position)} its {street} card, face {face}."


_COUNT_WORDS = ("no", "one", "two", "three", "four", "five")


def _draw_prompt(hand: HandProgress) -> Said:
    """A draw: who says how many cards next (HO-7), or whose replacements are due (DRAW-5)."""
    game = hand.game
    street = _street_name(hand, game.street)
    position = drawing_position(hand)
    if position is not None:
        owed = game.to_draw[position]
        # In words: "deal seat 2 three cards", not "deal seat 2 3 cards".
        cards = (
            f"{_COUNT_WORDS[owed]} card{'s' if owed != 1 else ''}"
            if owed < len(_COUNT_WORDS)
            else f"{owed} cards"
        )
        first = "Burn, then deal" if burn_due(hand) else "Deal"
        return f"{first} seat {hand.seat(position)} {cards}."
    turn = game.next_to_draw
    if turn is None:
        return f"The {street}: deal the replacements."
    return f"The {street}: how many cards does seat {hand.seat(turn)} draw? Key the number (0: pat)."
