"""What the shoe drew: each card leaving the shoe, assigned along the proper sequence.

A hole card goes to the seat due (DEAL-1), a burn before each board round, then the board. Rules on
the burn card put back (DEAL-2), a card drawn when the hand is over or the betting is (DEAL-6), the
deck checks (IRR-1, IRR-2), a boxed card (IRR-3, MD-c), an extra card (IRR-5, MD-d) and a card turned
before the betting is over (BOARD-4, STUD-12; at stud the camera then finds it at a seat, and a last
down card its player may have seen is kept).
"""

from __future__ import annotations

from tablectl.core.cards import Card
from tablectl.core.effects import Applied, Effect, Prompt, Severity
from tablectl.core.events import CardDrawn
from tablectl.core.game.actions import UNKNOWN_CARD, DealHole
from tablectl.core.game.engine import Phase, dealt_ahead
from tablectl.core.game.profiles import HouseRules
from tablectl.core.procedure.flow import _commit_board, _give_hole_cards
from tablectl.core.procedure.ledger import _apply
from tablectl.core.procedure.progress import (
    HandProgress,
    Refused,
    _evolve,
    _owed_due,
    _show,
    _street_name,
    deal_complete,
    misdeal_allowed,
    next_hole_position,
)
from tablectl.core.procedure.prompts import prompt_for
from tablectl.core.procedure.rulings import _check_identity, _misdeal, _ruling, _void
from tablectl.core.procedure.streets import _replacement, _street_card
from tablectl.core.sentences import Mention, Said, sentence


def _is_reburn(hand: HandProgress, card: Card) -> bool:
    """A burn card put back on top of the deck and drawn again as the burn (002 burn cards)."""
    if hand.burn_ready and hand.burn_card == card:
        return True
    return (
        hand.burned_round
        and not hand.board_pending
        and not hand.premature
        and bool(hand.burns)
        and hand.burns[-1] == card
        and hand.game.phase is Phase.DEALING_BOARD
    )


def _card_drawn(
    hand: HandProgress, event: CardDrawn, rules: HouseRules
) -> tuple[HandProgress, tuple[Effect, ...]]:
    card = event.card
    if card is not None and not event.face_up and not event.foreign and _is_reburn(hand, card):
        text: Said = sentence(Mention(card), " is the burn card put back on the deck: it stays the burn.")
        return hand, (_ruling("DEAL-2", text, Severity.INFO), prompt_for(hand))
    problem = _check_identity(hand, card, event.foreign)
    if problem is not None:
        return _void(hand, *problem)
    if hand.game.phase is Phase.COMPLETE:
        raise Refused("DEAL-6", "the hand is over: that card is not shown; put it in the muck face down")
    dealt = hand.dealt if card is None else hand.dealt.union((card,))
    hand = _evolve(hand, stub=hand.stub - 1)
    if event.face_up:
        return _boxed(_evolve(hand, dealt=dealt, boxed_next=None), card, rules)
    value = UNKNOWN_CARD if card is None else card
    if not deal_complete(hand):
        return _deal_hole_card(hand, value, dealt, card)
    hand = _evolve(hand, dealt=dealt, last_draw=card, boxed_next=None, boxed_for=None)
    if hand.to_replace:
        position = hand.to_replace[0]
        hole = list(hand.hole)
        hole[position] = hole[position] + (value,)
        hand = _evolve(hand, hole=tuple(hole), to_replace=hand.to_replace[1:])
        effects: tuple[Effect, ...] = (Prompt(f"Seat {hand.seat(position)} has a replacement card."),)
        if not hand.to_replace:
            return _give_hole_cards(hand, effects)
        return hand, effects
    game = hand.game
    if game.phase is Phase.DEALING_HOLE:
        return _street_card(hand, value)
    if game.phase is Phase.DRAWING:
        return _replacement(hand, value)
    if game.phase is Phase.BETTING:
        if game.street == 0 and hand.actions == 0:
            return _extra_card(hand, value, rules)
        return _premature(hand, value)
    if game.phase is Phase.DEALING_BOARD:
        return _board_card(hand, value)
    text = "The betting is over: no card is dealt at the showdown. Put it with the burn cards, unseen."
    return _evolve(hand, burns=hand.burns + (value,)), (_ruling("DEAL-6", text, Severity.CORRECT),)


def _boxed(
    hand: HandProgress, card: Card | None, rules: HouseRules
) -> tuple[HandProgress, tuple[Effect, ...]]:
    """IRR-3: a boxed card is a scrap of paper; the next card takes its place (MD-c: two of them)."""
    boxed = hand.boxed + 1
    boxed_for = next_hole_position(hand) if not deal_complete(hand) else None
    hand = _evolve(hand, boxed=boxed, boxed_for=boxed_for)
    effects: list[Effect] = []
    if boxed >= 2:
        if misdeal_allowed(hand, rules):
            return _misdeal(hand, "MD-c", "two boxed cards found", rules)
        hand, said = _misdeal(hand, "MD-c", "a second boxed card was found", rules)
        effects.extend(said)
    text = sentence(
        "Boxed card (",
        _show(card),
        "): set it aside as a scrap of paper; the next card replaces it. ",
        prompt_for(hand).said,
    )
    effects.append(_ruling("IRR-3", text, Severity.CORRECT))
    return hand, tuple(effects)


def _deal_hole_card(
    hand: HandProgress, card: Card, dealt: frozenset[Card], drawn: Card | None
) -> tuple[HandProgress, tuple[Effect, ...]]:
    """``card`` (``drawn`` as the reader saw it) goes to the seat due; ``dealt``: every card out."""
    owed = _owed_due(hand)
    position = next_hole_position(hand)
    hole = list(hand.hole)
    hole[position] = hole[position] + (card,)
    boxed_next = (position, card) if hand.boxed_for == position else None
    hand = _evolve(
        hand,
        dealt=dealt,
        last_draw=drawn,
        hole=tuple(hole),
        owed=hand.owed[1:] if owed else hand.owed,
        hole_dealt=hand.hole_dealt if owed else hand.hole_dealt + 1,
        boxed_for=None,
        boxed_next=boxed_next,
    )
    if not deal_complete(hand):
        return hand, ()
    if hand.to_replace:
        return hand, (prompt_for(hand),)
    return _give_hole_cards(hand, ())


def _extra_card(hand: HandProgress, card: Card, rules: HouseRules) -> tuple[HandProgress, tuple[Effect, ...]]:
    """IRR-5: one extra card before the first betting round is the burn card; two are a misdeal."""
    extra = hand.extra + 1
    hand = _evolve(hand, extra=extra)
    if extra >= 2:
        return _misdeal(hand, "MD-d", "two extra cards dealt", rules)
    if hand.burn_ready:
        # A burn card is already set aside (IRR-6): this one goes back on top of the deck.
        text = "Extra card: put it back on top of the deck; the burn card is already set aside."
        dealt = hand.dealt - {card}
        return _evolve(hand, dealt=dealt, stub=hand.stub + 1), (_ruling("IRR-5", text, Severity.CORRECT),)
    text = (
        "Extra card: return it to the deck as the burn card; "
        f"do not burn again before the {_street_name(hand, hand.game.street + 1)}."
    )
    hand = _evolve(hand, burn_ready=True, burn_card=card, burns=hand.burns + (card,), stub=hand.stub + 1)
    return hand, (_ruling("IRR-5", text, Severity.CORRECT),)


def _premature(hand: HandProgress, card: Card) -> tuple[HandProgress, tuple[Effect, ...]]:
    """A card dealt before the round's betting is complete is not used (BOARD-4; STUD-12 at stud;
    002 premature dealing, 000 section 4 rule 3): the same at a board game and at stud. The first card
    out early is the next round's burn and stays the burn, unless that round has its burn or cards
    out already; the others are set aside until the betting is over. Settling them is where the
    games differ (flow.py: a reshuffle at a board game, BOARD-2 and BOARD-5; a burial at stud)."""
    game = hand.game
    rule = _premature_rule(hand)
    nxt = game.street + 1
    if nxt >= len(game.config.variant.game.streets):
        text: Said = sentence(
            f"No card comes after the {_street_name(hand, game.street)}: ",
            _show(card),
            " is not used. Put it with the burn cards, unseen, and finish the betting.",
        )
        return _evolve(hand, burns=hand.burns + (card,)), (_ruling(rule, text, Severity.CORRECT),)
    if not hand.premature and hand.premature_street != nxt and not hand.burned_round:
        hand = _evolve(hand, burns=hand.burns + (card,), burned_round=True, premature_street=nxt)
        text = "A card was burned before the betting is over: it stays the burn card. Finish the betting."
        return hand, (_ruling(rule, text, Severity.CORRECT),)
    hand = _evolve(hand, premature=hand.premature + (card,), premature_street=nxt)
    return hand, (_ruling(rule, _premature_said(hand, card, nxt), Severity.CORRECT),)


def _premature_rule(hand: HandProgress) -> str:
    return "BOARD-4" if hand.game.config.variant.game.has_button else "STUD-12"


def _premature_said(hand: HandProgress, card: Card, street: int) -> Said:
    game = hand.game.config.variant.game
    name = _street_name(hand, street)
    if not game.has_button and _last_down_street(hand) == street:
        # STUD-12: the one premature card that may be kept; which seat has it the camera says.
        return sentence(
            f"Premature {name}: ",
            _show(card),
            " is not used, unless its player took it in or may have seen it: then he keeps it (with no "
            "camera on the seats, key exposed for his seat). Nobody may accept or reject it. Otherwise set "
            "it aside face down. Finish the betting first.",
        )
    where = "" if game.has_button else " Set it aside face down."
    return sentence(
        f"Premature {name}: ",
        _show(card),
        " is not used, even if players fold; nobody may accept or reject it.",
        f"{where} Finish the betting first.",
    )


def _last_down_street(hand: HandProgress) -> int:
    """Stud: the last street, when its card is dealt down (seventh street), else -1."""
    game = hand.game.config.variant.game
    return len(game.streets) - 1 if game.last_street_down else -1


def _is_early_burn(hand: HandProgress, card: Card) -> bool:
    """``card`` is the next round's burn, drawn before the betting was over (_premature)."""
    return (
        hand.burned_round
        and bool(hand.burns)
        and hand.burns[-1] == card
        and hand.premature_street == hand.game.street + 1
    )


def premature_at_seat(
    hand: HandProgress, position: int, card: Card | None, face_up: bool
) -> tuple[HandProgress, tuple[Effect, ...]] | None:
    """Stud: the camera (or the dealer's screen) finds a card drawn before the betting was over at
    ``position``'s seat. A last down card face down at the seat is one the player took in or might
    have seen, so he keeps it (STUD-12, 002 premature dealing): the engine gets it now and limits
    his betting until the round is over. Any other premature card there is not used all the same.
    A face-down card seen unnamed (a camera cannot read a back) is the one that seat was due.
    None: not a premature card (the early burn face up is early_burn_turned_up's)."""
    game = hand.game
    if game.phase is not Phase.BETTING:
        return None
    if card is None:
        # Unnamed, the card is found as the exposed key finds it.
        return None if face_up else premature_keyed(hand, hand.seat(position), None)
    early_burn = _is_early_burn(hand, card)
    if card not in hand.premature and not early_burn:
        return None
    seat = hand.seat(position)
    if face_up or not _may_keep(hand, position):
        if early_burn:
            return None
        name = _street_name(hand, hand.premature_street)
        text = sentence(
            _show(card),
            f" at seat {seat} is the premature {name} card: it is not used. Set it aside face down. "
            "Finish the betting first.",
        )
        return hand, (_ruling("STUD-12", text, Severity.CORRECT),)
    return _keep(hand, position, card, early_burn)


def premature_keyed(
    hand: HandProgress, seat: int | None, card: Card | None
) -> tuple[HandProgress, tuple[Effect, ...]] | None:
    """Stud without a camera on the seats: the dealer keys "exposed" for the seat that has the
    premature last down card (STUD-12: he took it in or might have seen it), so he keeps it. The
    card is the one the key names, else the one that seat got in the proper sequence (the k-th
    premature card to the k-th player still due one, from the dealer's left); a card the reader
    missed is kept unidentified, for the showdown to name. None: no such card for that seat."""
    game = hand.game
    if game.phase is not Phase.BETTING or not hand.premature or seat is None or seat not in hand.seats_in:
        return None
    position = hand.position(seat)
    if not _may_keep(hand, position):
        return None
    if card is None:
        card = _due_premature(hand, position)
        if card is None:
            return None
    elif card not in hand.premature:
        return None
    return _keep(hand, position, card, False)


def _due_premature(hand: HandProgress, position: int) -> Card | None:
    """The premature card ``position`` got in the proper sequence: the k-th premature card went to
    the k-th player still due one, from the dealer's left. None: fewer were drawn."""
    game = hand.game
    due = [p for p in range(hand.n) if not game.folded[p] and not dealt_ahead(game, p)]
    order = due.index(position)
    return hand.premature[order] if order < len(hand.premature) else None


def _keep(
    hand: HandProgress, position: int, card: Card, early_burn: bool
) -> tuple[HandProgress, tuple[Effect, ...]]:
    """STUD-12: ``position`` keeps the premature last down ``card``; the engine limits his betting."""
    game = hand.game
    seat = hand.seat(position)
    if early_burn:
        # It was dealt without a burn: the last street is still to be burned.
        hand = _evolve(hand, burns=hand.burns[:-1], burned_round=False)
    else:
        premature = list(hand.premature)
        premature.remove(card)
        hand = _evolve(hand, premature=tuple(premature))
    action = DealHole(position, (card,))
    hand = _apply(hand, action)
    street = _street_name(hand, game.street)
    last = _street_name(hand, game.street + 1)
    fewer = len(hand.game.hole[position]) - 1
    text = sentence(
        f"Seat {seat} has the premature {last} card ",
        _show(card),
        f" and may have seen it: seat {seat} keeps it. For the rest of the {street} betting seat "
        f"{seat} may check, call or fold, but not bet or raise a player with only {fewer} cards; "
        f"on {last} seat {seat} is dealt no card.",
    )
    return hand, (_ruling("STUD-12", text, Severity.CORRECT), Applied(action), prompt_for(hand))


def _may_keep(hand: HandProgress, position: int) -> bool:
    """STUD-12: the betting before a last street dealt down, and a live player without his card."""
    game = hand.game
    return (
        game.street + 1 == _last_down_street(hand)
        and not game.folded[position]
        and not dealt_ahead(game, position)
    )


def early_burn_turned_up(hand: HandProgress, card: Card) -> tuple[HandProgress, tuple[Effect, ...]] | None:
    """The camera finds the card taken as the next round's early burn face up, on the board or at a
    seat: the dealer dealt it without a burn. It is a premature card, and the next round still has
    no burn (so the next card out early is premature too). None: not that card."""
    game = hand.game
    nxt = game.street + 1
    if not _is_early_burn(hand, card):
        return None
    if game.phase is not Phase.BETTING or hand.premature:
        return None
    hand = _evolve(hand, burns=hand.burns[:-1], burned_round=False, premature=(card,))
    return hand, (_ruling(_premature_rule(hand), _premature_said(hand, card, nxt), Severity.CORRECT),)


def _board_card(hand: HandProgress, card: Card) -> tuple[HandProgress, tuple[Effect, ...]]:
    if UNKNOWN_CARD in hand.board_pending and len(hand.board_pending) >= hand.game.board_needed:
        street = _street_name(hand, hand.game.street)
        raise Refused(
            "INPUT",
            f"the reader missed a {street} card: show that card to the camera first, "
            "and put this one back on top of the deck",
        )
    if not (hand.burned_round or hand.burn_ready or hand.no_burn_next):
        hand = _evolve(hand, burns=hand.burns + (card,), burned_round=True)
        return hand, (prompt_for(hand),)
    pending = hand.board_pending + (card,)
    hand = _evolve(hand, board_pending=pending)
    if len(pending) < hand.game.board_needed or UNKNOWN_CARD in pending:
        return hand, (prompt_for(hand),)
    return _commit_board(hand)
