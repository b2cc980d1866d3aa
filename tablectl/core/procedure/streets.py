"""Cards to the players after the first round: a stud street's card, a draw's replacements.

Stud (STUD-1, STUD-4): a burn, then one card to each player still in, clockwise from the dealer's
left, up on fourth to sixth street and down on seventh; the engine is given each card as it lands,
so who brings in and who opens (STUD-5, STUD-8) come from the up cards as the shoe read them.

Draw (DRAW-4, DRAW-5, HO-7): the dealer keys how many cards each player discards, in turn; the first
replacement of a draw comes after a burn, and each player's replacements are dealt before the next
player draws. The procedure checks each count against the cards the player holds.
"""

from __future__ import annotations

from tablectl.core.cards import Card
from tablectl.core.effects import Applied, Effect, Severity
from tablectl.core.game.actions import UNKNOWN_CARD, DealBoard, DealHole, Discard
from tablectl.core.game.engine import Phase
from tablectl.core.procedure.flow import _after_game_change
from tablectl.core.procedure.ledger import _apply, _counted, _rebuild
from tablectl.core.procedure.progress import (
    HandProgress,
    Pending,
    Refused,
    _actions_on,
    _evolve,
    _show,
    _street_name,
    burn_due,
    drawing_position,
    next_street_position,
)
from tablectl.core.procedure.prompts import prompt_for
from tablectl.core.procedure.rulings import _ruling
from tablectl.core.sentences import Mention, Said, sentence


def _round_dealt(hand: HandProgress, effects: list[Effect]) -> tuple[HandProgress, tuple[Effect, ...]]:
    """After a card to a player: the next card's prompt, or the betting once the round's cards are out."""
    phase = hand.game.phase
    if phase is Phase.DEALING_HOLE or phase is Phase.DRAWING:
        effects.append(prompt_for(hand))
        return hand, tuple(effects)
    hand = _evolve(hand, burned_round=False, burn_ready=False, burn_card=None, no_burn_next=False)
    return _after_game_change(hand, effects)


def _street_card(hand: HandProgress, card: Card) -> tuple[HandProgress, tuple[Effect, ...]]:
    """A stud street's card: the burn first (STUD-4), cards to bury after premature ones
    (STUD-12), then the next player still in."""
    if hand.bury_owed:
        hand = _evolve(hand, burns=hand.burns + (card,), bury_owed=hand.bury_owed - 1)
        return hand, (prompt_for(hand),)
    if burn_due(hand):
        hand = _evolve(hand, burns=hand.burns + (card,), burned_round=True, street_burn=card)
        return hand, (prompt_for(hand),)
    if hand.community_next:
        board = DealBoard((card,))
        hand = _evolve(_apply(hand, board), community_next=False)
        return _round_dealt(hand, [Applied(board)])
    position = next_street_position(hand)
    assert position is not None  # the engine leaves the street once every live hand has its card
    action = DealHole(position, (card,))
    hand = _apply(hand, action)
    return _round_dealt(hand, [Applied(action)])


def _replacement(hand: HandProgress, card: Card) -> tuple[HandProgress, tuple[Effect, ...]]:
    """A card at a draw: the burn before the draw's first replacement (DRAW-5), then the player's."""
    position = drawing_position(hand)
    if position is None:
        turn = hand.game.next_to_draw
        said = f"seat {hand.seat(turn)} has not said how many cards" if turn is not None else "no card is due"
        raise Refused("DRAW-4", f"{said}: key the discards first; put the card back on top of the deck")
    if burn_due(hand):
        hand = _evolve(hand, burns=hand.burns + (card,), burned_round=True, street_burn=card)
        return hand, (prompt_for(hand),)
    action = DealHole(position, (card,))
    hand = _apply(hand, action)
    if position in hand.late_draws and hand.game.phase is Phase.DRAWING and not hand.game.to_draw[position]:
        hand = _evolve(hand, late_draws=tuple(p for p in hand.late_draws if p != position))
    elif position in hand.late_draws and hand.game.phase is not Phase.DRAWING:
        hand = _evolve(hand, late_draws=())
    return _round_dealt(hand, [Applied(action)])


def draw_card_exposed(
    hand: HandProgress, position: int, card: Card | None
) -> tuple[HandProgress, tuple[Effect, ...]] | None:
    """HO-8: a replacement exposed in the draw is not taken: it goes to the muck and the player
    gets another once the others have drawn. None: not a card of this draw (it plays, IRR-7)."""
    log = list(hand.log)
    for index in range(len(log) - 1, -1, -1):
        entry = log[index]
        if isinstance(entry, Discard) and entry.player == position:
            return None  # back to this player's discard: no replacement of this draw matches
        if not (isinstance(entry, DealHole) and entry.player == position):
            if not isinstance(entry, (DealHole, Discard)):
                return None  # betting since: the card plays as dealt
            continue
        if card is not None and card not in entry.cards:
            continue
        shown = entry.cards[-1] if card is None else card
        del log[index]
        hand = _rebuild(hand, tuple(log))
        hand = _evolve(
            hand,
            exposed=hand.exposed + ((position, shown),),
            late_draws=hand.late_draws + ((position,) if position not in hand.late_draws else ()),
        )
        seat = hand.seat(position)
        text = sentence(
            "Exposed in the draw: ",
            _show(shown),
            f" is not taken; put it in the muck. Seat {seat} gets a card after the others have drawn.",
        )
        return hand, (_ruling("HO-8", text, Severity.CORRECT), prompt_for(hand))
    return None


def discard(
    hand: HandProgress, seat: int | None, count: int | None, cards: tuple[Card, ...]
) -> tuple[HandProgress, tuple[Effect, ...]]:
    """The dealer keys how many cards ``seat`` throws in (``cards``: which, when seen); 0 stands pat."""
    game = hand.game
    if game.phase is not Phase.DRAWING:
        raise Refused("DRAW-4", f"no draw now: the hand is {game.phase.value}")
    position = hand.position(seat)
    owed = drawing_position(hand)
    if owed is not None and owed not in hand.late_draws:
        raise Refused(
            "HO-7",
            f"deal seat {hand.seat(owed)} {game.to_draw[owed]} more card(s) before the next player draws",
        )
    turn = game.next_to_draw
    if turn != position:
        raise Refused(
            "HO-7", f"seat {hand.seat(turn) if turn is not None else '?'} draws first, not seat {seat}"
        )
    if count is None:
        count = len(cards)
    held = len(game.hole[position])
    if cards and len(cards) != count:
        raise Refused("DRAW-4", f"{len(cards)} cards named for a discard of {count}")
    if not 0 <= count <= held:
        raise Refused("DRAW-4", f"seat {seat} holds {held} cards: a discard is 0 to {held} cards")
    named = cards or (UNKNOWN_CARD,) * count
    action = Discard(position, named)
    if burn_due(hand):
        hand = _evolve(hand, street_burn=None)  # this draw's burn is still to come (DRAW-7)
    # DRAW-6: declaring how many cards one takes is action (004 glossary action), toward MD-1.
    hand = _counted(_apply(hand, action), game.street, position, False)
    effects: list[Effect] = [Applied(action)]
    if count and hand.stub - 1 < count + (1 if burn_due(hand) else 0):
        hand = _short_draw(hand, position, effects)
    return _round_dealt(hand, effects)


def _short_draw(hand: HandProgress, position: int, effects: list[Effect]) -> HandProgress:
    """HO-9: the stub cannot deal this player's cards (the bottom card is not dealt): the discards,
    not this player's own and not the burn cards, are shuffled with it, cut and dealt after a burn."""
    own = hand.game.discards[position]
    thrown = [c for e in hand.log if isinstance(e, Discard) for c in e.cards]
    back = len(thrown) - hand.recycled - len(own)
    held = {c for cards in hand.game.hole for c in cards}  # a discard dealt again since is in a hand
    reused = {c for c in thrown if c != UNKNOWN_CARD and c not in own and c not in held}
    seat = hand.seat(position)
    text = (
        f"The deck is short for seat {seat}'s cards: shuffle the discards (not seat {seat}'s own, "
        "not the burn cards) with the stub, cut, burn and deal."
    )
    hand = _evolve(
        hand,
        stub=hand.stub + back,
        recycled=hand.recycled + back,
        dealt=hand.dealt - reused,
        burned_round=False,
        burn_ready=False,
        burn_card=None,
    )
    effects.append(_ruling("HO-9", text, Severity.CORRECT, True))
    return _evolve(hand, pending=Pending("reshuffle", "HO-9", text))


def street_cards(hand: HandProgress) -> dict[Card, int]:
    """Stud: the cards of the street last dealt (being dealt or bet on), and who got each."""
    cards: dict[Card, int] = {}
    for entry in reversed(hand.log):
        if isinstance(entry, DealHole) and len(entry.cards) == 1:
            cards[entry.cards[0]] = entry.player
        elif cards:
            break  # the betting of the street before
    return cards


def stud_burn_error(
    hand: HandProgress, card: Card, position: int | None
) -> tuple[HandProgress, tuple[Effect, ...]] | None:
    """STUD-13: the camera finds the street's burn card at a seat (no burn) or a card the
    procedure dealt this street in the burn pile (two burns). Before substantial action (two
    players acting on the street) the cards go to their proper places, which is how the procedure
    already counts them; after it they play as dealt, and the record is the floor's to correct."""
    game = hand.game
    street = game.street
    if not game.up or not street:
        return None
    name = _street_name(hand, street)
    if position is not None and card == hand.street_burn:
        what: Said = sentence(
            f"No burn before {name}: put ",
            Mention(card),
            f" (seat {hand.seat(position)}) with the burn cards and move each later card of this street "
            "one player back, to where it belongs; then go on dealing.",
        )
    elif position is None and card in street_cards(hand):
        owner = street_cards(hand)[card]
        what = sentence(
            f"Two cards burned before {name}: ",
            Mention(card),
            f" is seat {hand.seat(owner)}'s card: give it to the seat and move each later card of this "
            "street one player on; one burn only.",
        )
    else:
        return None
    if _actions_on(hand, street) >= 2:
        text = sentence(
            f"A burn error on {name}, found after substantial action: the cards play as dealt. "
            "Call the floor to correct the record."
        )
        return hand, (_ruling("STUD-13", text, Severity.FLOOR),)
    return hand, (_ruling("STUD-13", what, Severity.CORRECT), prompt_for(hand))


def _draw_run(hand: HandProgress) -> int:
    """Where the last draw's declarations and replacements start in the log (the betting after it,
    if any, left out)."""
    index = len(hand.log)
    while index and not isinstance(hand.log[index - 1], (DealHole, Discard)):
        index -= 1
    while index and isinstance(hand.log[index - 1], (DealHole, Discard)):
        index -= 1
    return index


def draw_burn_error(
    hand: HandProgress, card: Card, position: int | None
) -> tuple[HandProgress, tuple[Effect, ...]] | None:
    """DRAW-7: the camera (or the dealer's screen) finds the draw's burn card at a seat (no burn), or
    a replacement of the draw in the burn pile (two burns). At draw the cards play as dealt once a
    player could have seen his card (002 burncards): only a second burn found before any card came
    after it goes to its player. Otherwise the cards stay as they lie and the record follows them
    for the player being dealt to; found later (another player's cards dealt since, or the betting
    begun), the floor corrects the record. None: no burn error of a draw."""
    game = hand.game
    if not game.config.variant.game.has_draws or game.phase not in (Phase.DRAWING, Phase.BETTING):
        return None
    start = _draw_run(hand)
    run = hand.log[start:]
    if not any(isinstance(entry, Discard) for entry in run) or hand.street_burn is None:
        return None
    name = _street_name(hand, game.street)
    drawing = game.phase is Phase.DRAWING
    if position is not None and card == hand.street_burn and card in hand.burns:
        owner = position
        what: Said = sentence(
            f"No burn before the {name}: ", Mention(card), f" went to seat {hand.seat(owner)}"
        )
    elif position is None:
        dealt = [e for e in run if isinstance(e, DealHole) and card in e.cards]
        if not dealt:
            return None
        owner = dealt[0].player
        what = sentence(
            f"Two cards burned before the {name}: ", Mention(card), f" was seat {hand.seat(owner)}'s card"
        )
        if drawing and hand.last_draw == card:
            text = sentence(
                what, f": nothing was dealt after it, so give it to seat {hand.seat(owner)}; one burn only."
            )
            return hand, (_ruling("DRAW-7", text, Severity.CORRECT), prompt_for(hand))
    else:
        return None
    # The record follows the cards only while the player is being dealt to: the last declaration is
    # his and he is still owed cards.
    own = max(k for k, e in enumerate(hand.log) if isinstance(e, Discard))
    last = hand.log[own]
    if not (
        drawing and isinstance(last, Discard) and last.player == owner and drawing_position(hand) == owner
    ):
        text = sentence(what, ": the cards play as dealt. Call the floor to correct the record.")
        return hand, (_ruling("DRAW-7", text, Severity.FLOOR),)
    log = list(hand.log)
    if position is not None:
        # No burn: the card taken as the burn is the player's first replacement.
        log.insert(own + 1, DealHole(owner, (card,)))
        burns = tuple(c for c in hand.burns if c != card)
        then = f"it is one of seat {hand.seat(owner)}'s cards; no burn is made up."
    else:
        # Two burns: the card stays burned; the player gets one card more.
        for k in range(own + 1, len(log)):
            entry = log[k]
            if isinstance(entry, DealHole) and card in entry.cards:
                log[k] = DealHole(owner, tuple(c for c in entry.cards if c != card), entry.up)
        log = [e for e in log if not (isinstance(e, DealHole) and not e.cards)]
        burns = hand.burns + (card,)
        then = f"it stays with the burn cards, and seat {hand.seat(owner)} gets one card more."
    hand = _evolve(_rebuild(hand, tuple(log)), burns=burns)
    text = sentence(what, ": a player could see his card, so the cards play as dealt: ", then)
    effects: list[Effect] = [_ruling("DRAW-7", text, Severity.CORRECT)]
    return _round_dealt(hand, effects)
