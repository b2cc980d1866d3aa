"""What the camera saw: a card at a seat, on the board, in the burn pile or in the muck, checked
against where the procedure put it.

Rules on a card at the wrong seat during the deal (MD-e, MD-f, MD-h, MD-i, MD-j; IRR-3 when it is the
card after a boxed one), a card face up (IRR-6, IRR-7), a card in another hand or in the muck (IRR-9),
a burn card seen or mixed with the discards (DEAL-2, DEAL-3), a missed or a second burn (BOARD-3), a
premature card (BOARD-4; at stud one at a seat, STUD-12, kept when it is the last down card) and too
many cards on the flop (BOARD-1, BOARD-2). Where the rules keep the hand going, the procedure's
picture is corrected to the cards as they lie.
"""

from __future__ import annotations

from tablectl.core.cards import Card
from tablectl.core.effects import Effect, Severity
from tablectl.core.events import CardSeen, Zone
from tablectl.core.game.actions import UNKNOWN_CARD, DealBoard, DealHole
from tablectl.core.game.engine import Phase
from tablectl.core.game.profiles import HouseRules
from tablectl.core.procedure.drawn import early_burn_turned_up, premature_at_seat
from tablectl.core.procedure.flow import _commit_board, _give_hole_cards, _kill
from tablectl.core.procedure.ledger import _board_entry, _rebuild
from tablectl.core.procedure.progress import (
    HandProgress,
    Pending,
    Refused,
    _actions_on,
    _cards,
    _deal_index,
    _deal_just_done,
    _evolve,
    _hole_phase,
    _last_board_street,
    _show,
    _slots,
    _street_bounds,
    _street_name,
    _street_of_board_card,
    deal_complete,
    hole_cards_wanted,
    showing,
)
from tablectl.core.procedure.prompts import prompt_for
from tablectl.core.procedure.rulings import _exposed, _misdeal, _ruling
from tablectl.core.procedure.streets import draw_burn_error, draw_card_exposed, stud_burn_error
from tablectl.core.sentences import Mention, Said, sentence


def _card_seen(
    hand: HandProgress, event: CardSeen, rules: HouseRules
) -> tuple[HandProgress, tuple[Effect, ...]]:
    """A camera saw a card land somewhere: check it against where the procedure put it."""
    if event.zone is Zone.SEAT:
        return _seen_at_seat(hand, event, rules)
    if event.zone is Zone.BURN:
        return _seen_in_burn(hand, event, rules)
    if event.zone is Zone.BOARD:
        return _seen_on_board(hand, event)
    card = event.card
    if card is not None and card in hand.burns and hand.game.phase is not Phase.COMPLETE:
        # DEAL-3: burn cards stay apart from the discards until the last card is dealt.
        text = (
            f"A burn card went into the muck{' face up' if event.face_up else ''}: take it back face down "
            "and keep the burn cards apart from the discards until the last card is dealt."
        )
        return hand, (_ruling("DEAL-3", text, Severity.CORRECT),)
    owner = _holder(hand, card)
    if (
        owner is not None
        and not hand.game.folded[owner]
        and hand.game.phase not in (Phase.DEALING_HOLE, Phase.COMPLETE)
    ):
        text = f"Seat {hand.seat(owner)}'s card touched the muck: the hand may be ruled dead. Call the floor."
        return hand, (_ruling("IRR-9", text, Severity.FLOOR),)
    return hand, ()


def _holder(hand: HandProgress, card: Card | None) -> int | None:
    if card is None or card == UNKNOWN_CARD:
        return None
    for position, cards in enumerate(hand.hole):
        if card in cards:
            return position
    for position, cards in enumerate(hand.game.hole):
        if card in cards:
            return position
    return None


def _seen_at_seat(
    hand: HandProgress, event: CardSeen, rules: HouseRules
) -> tuple[HandProgress, tuple[Effect, ...]]:
    seat = event.seat
    card = event.card
    if seat is None:
        raise Refused("INPUT", "a card seen at a seat needs the seat's number")
    if seat not in hand.seats_in:
        if _hole_phase(hand) or hand.actions == 0:
            return _misdeal(
                hand, "MD-i", f"a card was dealt to seat {seat}, which has no hand in this deal", rules
            )
        return hand, ()
    position = hand.position(seat)
    holder = _holder(hand, card)
    if card is not None and holder is None and event.face_up and not hand.game.config.variant.game.has_button:
        # STUD-12: the card taken as the next street's early burn was dealt face up to a player.
        turned = early_burn_turned_up(hand, card)
        if turned is not None:
            return turned
    if holder is None and not hand.game.config.variant.game.has_button:
        # STUD-12: a card dealt before the betting was over lies at the seat (kept, or not used).
        premature = premature_at_seat(hand, position, card, event.face_up)
        if premature is not None:
            return premature
    if card is not None and holder is None:
        burn_error = stud_burn_error(hand, card, position) or draw_burn_error(hand, card, position)
        if burn_error is not None:
            return burn_error
    if event.face_up and hand.game.up and (holder is None or holder == position):
        settled = _stud_card_face_up(hand, position, card)
        if settled is not None:
            return settled
    if not event.face_up and card is not None and card in showing(hand, position):
        if hand.game.phase is Phase.BETTING and not hand.game.folded[position]:
            # STUD-11: turning the up cards face down is a fold.
            text = f"Seat {seat} turned the up cards face down: that is a fold."
            return _kill(hand, position, "STUD-11", text)
        return hand, ()
    if event.face_up and hand.game.config.variant.game.has_draws and not _hole_phase(hand):
        exposed = draw_card_exposed(hand, position, card)
        if exposed is not None:
            return exposed
    if event.face_up and (holder is None or holder == position):
        if _hole_phase(hand) or _deal_just_done(hand):
            # A card this hand has not dealt is a misread name, not a card that is not there:
            # the face showing at the seat is exposed all the same, ruled as if unnamed.
            return _exposed(hand, seat, card if holder is not None else None, "dealer", rules)
        if hand.game.phase in (Phase.BETTING, Phase.DEALING_BOARD) and not hand.game.betting_over:
            text = f"Seat {seat}'s card is face up after the deal: it plays; the hand goes on."
            return hand, (_ruling("IRR-7", text, Severity.INFO),)
        return hand, ()  # shown at the showdown or all-in: nothing to rule on
    if card is None or holder is None or holder == position:
        return hand, ()
    if _hole_phase(hand) or _deal_just_done(hand):
        passed = hand.boxed_next == (holder, card) and position == (holder + 1) % hand.n
        if passed and hand.hole_dealt < _slots(hand):
            return _boxed_card_passed(hand, holder, position, card)
        return _misplaced(hand, holder, position, card, rules)
    if hand.game.phase in (Phase.SHOWDOWN, Phase.COMPLETE) or hand.game.folded[holder]:
        return hand, ()
    return _kill(
        hand,
        holder,
        "IRR-9",
        f"Seat {hand.seat(holder)}'s card went into another player's hand: that hand is dead.",
    )


def _stud_card_face_up(
    hand: HandProgress, position: int, card: Card | None
) -> tuple[HandProgress, tuple[Effect, ...]] | None:
    """Stud: the camera sees a card face up at a seat. An up card as dealt confirms the shoe's
    read, or names the card the reader could not (who brings in and who opens are worked out
    again); a seventh card dealt up stays up (HO-4). None: a down card exposed."""
    up = showing(hand, position)
    if card is None or card in up:
        return (hand, ()) if up or card is not None else None
    seat = hand.seat(position)
    game = hand.game
    if card not in hand.dealt and up and up[-1] == UNKNOWN_CARD:
        return _correct_up_card(hand, position, up[-1], card)
    last = game.hole[position][-1:] if game.street else ()
    if last == (card,) and game.street == len(game.config.variant.game.streets) - 1:
        log = tuple(
            DealHole(e.player, e.cards, (True,)) if isinstance(e, DealHole) and e.cards == (card,) else e
            for e in hand.log
        )
        hand = _rebuild(hand, log)
        text = sentence(
            f"Seat {seat}'s seventh card ",
            Mention(card),
            " was dealt face up: the player keeps it as an up card; deal the others' seventh cards down.",
        )
        return hand, (_ruling("HO-4", text, Severity.CORRECT), prompt_for(hand))
    return None


def _correct_up_card(
    hand: HandProgress, position: int, read: Card, card: Card
) -> tuple[HandProgress, tuple[Effect, ...]]:
    """The up card at ``position`` is ``card``, not ``read`` as the shoe said: correct the deal."""
    seat = hand.seat(position)
    dealt = (hand.dealt - {read}) | {card}
    if not hand.log or not any(isinstance(e, DealHole) and e.player == position for e in hand.log):
        hole = list(hand.hole)
        cards = list(hole[position])
        cards[len(cards) - 1 - cards[::-1].index(read)] = card
        hole[position] = tuple(cards)
        hand = _evolve(hand, hole=tuple(hole), dealt=dealt)
    else:
        log = list(hand.log)
        for index in range(len(log) - 1, -1, -1):
            entry = log[index]
            if isinstance(entry, DealHole) and entry.player == position and read in entry.cards:
                cards = list(entry.cards)
                cards[cards.index(read)] = card
                log[index] = DealHole(position, tuple(cards), entry.up)
                break
        try:
            hand = _evolve(_rebuild(hand, tuple(log)), dealt=dealt)
        except Refused:
            text = sentence(
                f"The camera reads seat {seat}'s up card as ",
                Mention(card),
                ": action was taken on the card as read; call the floor.",
            )
            return hand, (_ruling("STUD-5", text, Severity.FLOOR),)
    text = sentence(f"The camera reads seat {seat}'s up card as ", Mention(card), ": the deal is corrected.")
    return hand, (_ruling("STUD-5", text, Severity.INFO), prompt_for(hand))


def _boxed_card_passed(
    hand: HandProgress, holder: int, position: int, card: Card
) -> tuple[HandProgress, tuple[Effect, ...]]:
    """IRR-3: the card after a boxed one already went to the next player: the boxed card's seat
    gets its replacement after all other cards of that round are dealt."""
    hole = list(hand.hole)
    cards = list(hole[holder])
    cards.remove(card)
    hole[holder] = tuple(cards)
    hole[position] = hole[position] + (card,)
    slot = hand.hole_dealt - 1  # the slot the boxed card's seat had
    round_end = (slot // hand.n + 1) * hand.n
    hand = _evolve(
        hand,
        hole=tuple(hole),
        hole_dealt=hand.hole_dealt + 1,
        owed=hand.owed + ((holder, round_end),),
        boxed_next=None,
    )
    text = (
        f"The card after the boxed card went to seat {hand.seat(position)}: seat {hand.seat(holder)} "
        "gets its card after all other cards of this round are dealt."
    )
    if deal_complete(hand):  # cannot happen: the owed card is still to come
        return _give_hole_cards(hand, (_ruling("IRR-3", text, Severity.CORRECT),))
    return hand, (_ruling("IRR-3", text, Severity.CORRECT), prompt_for(hand))


def _misplaced(
    hand: HandProgress, holder: int, position: int, card: Card, rules: HouseRules
) -> tuple[HandProgress, tuple[Effect, ...]]:
    """During the deal a card landed at another seat than the one in sequence (MD-e, f, h, j)."""
    index = _deal_index(hand, holder, card)
    meant, went = hand.seat(holder), hand.seat(position)
    if index == 0:
        return _misdeal(hand, "MD-h", f"the first card went to seat {went}, not seat {meant}", rules)
    round_ = (index or 0) // hand.n
    if len(hand.hole[position]) + 1 > hole_cards_wanted(hand):
        return _misdeal(hand, "MD-e", f"seat {went} was dealt more cards than the game deals", rules)
    if position > holder and round_ == 0 and len(hand.hole[holder]) == 1:
        return _misdeal(hand, "MD-j", f"seat {meant} was passed over in the first round: dealt out", rules)
    why = sentence(Mention(card), f" was dealt out of sequence (to seat {went}, not seat {meant})")
    return _misdeal(hand, "MD-f", why, rules)


def _seen_in_burn(
    hand: HandProgress, event: CardSeen, rules: HouseRules
) -> tuple[HandProgress, tuple[Effect, ...]]:
    card = event.card
    if event.face_up:
        text: Said = "Nobody may see a burn card: turn it face down and keep it apart from the discards."
        return hand, (_ruling("DEAL-3", text, Severity.CORRECT),)
    if _hole_phase(hand):
        owner = _holder(hand, card)
        whose = f"seat {hand.seat(owner)}" if owner is not None else "the seat it was dealt for"
        text = sentence("No burn before the hole cards: ", _show(card), f" belongs to {whose}.")
        return hand, (_ruling("DEAL-2", text, Severity.CORRECT),)
    if card is None or card == UNKNOWN_CARD:
        return hand, ()
    burn_error = stud_burn_error(hand, card, None) or draw_burn_error(hand, card, None)
    if burn_error is not None:
        return burn_error
    game = hand.game
    if hand.burn_ready and hand.burn_card == card and hand.extra and game.street == 0 and not hand.actions:
        # The "extra" card went to the burn pile: the dealer burned for a flop that is not due.
        hand = _evolve(
            hand,
            extra=hand.extra - 1,
            burn_ready=False,
            burn_card=None,
            burned_round=True,
            premature_street=1,
        )
        text = "A card was burned before the betting is over: it stays the burn card. Finish the betting."
        return hand, (_ruling("BOARD-4", text, Severity.CORRECT),)
    if card in hand.board_pending:
        text = sentence(
            "Two cards burned: ",
            Mention(card),
            f" is not a burn card. Turn it up as the next {_street_name(hand, game.street)} card; "
            "one burn only.",
        )
        return hand, (_ruling("BOARD-3", text, Severity.CORRECT),)
    if card in game.board:
        return _second_burn(hand, card)
    return hand, ()


def _second_burn(hand: HandProgress, card: Card) -> tuple[HandProgress, tuple[Effect, ...]]:
    """BOARD-3: a card the procedure put on the board lies with the burn cards: two burns."""
    game = hand.game
    street = _street_of_board_card(hand, game.board.index(card))
    name = _street_name(hand, street)
    if street != _last_board_street(hand):
        text: Said = f"Two cards burned before the {name}, found too late: the board stands as dealt."
        return hand, (_ruling("BOARD-3", text, Severity.INFO),)
    early_burn = hand.burned_round and hand.premature_street == street + 1 and not hand.premature
    if _actions_on(hand, street) == 0:
        after = (
            sentence(" ", _show(hand.burns[-1]), f", dealt after the {name}, is the next burn.")
            if early_burn and hand.burns
            else ""
        )
        text = sentence(
            f"Two cards burned, found before the betting on the {name}: correct it. Move ",
            Mention(card),
            " from the burn cards to the board.",
            after,
        )
        return hand, (_ruling("BOARD-3", text, Severity.CORRECT),)
    if not (early_burn and hand.burns):
        text = f"Two cards burned before the {name}, found after action: the board stands as dealt."
        return hand, (_ruling("BOARD-3", text, Severity.INFO),)
    # The card dealt after the round lies on the board in place of the second burn card, and the
    # betting took it: the board stands; the second burn card goes back as the next burn.
    dealt_late = hand.burns[-1]
    index = _board_entry(hand, card)
    assert index is not None
    entry = hand.log[index]
    assert isinstance(entry, DealBoard)
    cards = tuple(c for c in entry.cards if c != card) + (dealt_late,)
    log = hand.log[:index] + (DealBoard(cards),) + hand.log[index + 1 :]
    hand = _rebuild(hand, log)
    hand = _evolve(hand, burns=hand.burns[:-1] + (card,))
    text = sentence(
        f"Two cards burned, found after action on the {name}: the {name} stands as dealt (",
        _cards(cards),
        "). The second burn card ",
        Mention(card),
        f" goes back on the deck as the next burn: the {_street_name(hand, street + 1)} is the card "
        "that would have come.",
    )
    return hand, (_ruling("BOARD-3", text, Severity.INFO), prompt_for(hand))


def _seen_on_board(hand: HandProgress, event: CardSeen) -> tuple[HandProgress, tuple[Effect, ...]]:
    card = event.card
    game = hand.game
    if card is None or card == UNKNOWN_CARD or _hole_phase(hand):
        return hand, ()
    if card in game.board or card in hand.premature:
        return hand, ()
    if card in hand.board_pending:
        return hand, ()
    if UNKNOWN_CARD in hand.board_pending and card not in hand.dealt and card not in hand.burns:
        # The reader missed this board card; the camera names it.
        pending = list(hand.board_pending)
        pending[pending.index(UNKNOWN_CARD)] = card
        hand = _evolve(hand, board_pending=tuple(pending), dealt=hand.dealt | {card})
        if len(pending) >= game.board_needed and UNKNOWN_CARD not in pending:
            return _commit_board(hand)
        return hand, (prompt_for(hand),)
    if not hand.burns or card not in hand.burns:
        return hand, ()
    if game.phase is Phase.DEALING_BOARD and hand.burned_round and hand.burns[-1] == card:
        # BOARD-3: the card taken as this round's burn was turned up: the dealer did not burn.
        text = sentence(
            "No burn: ",
            Mention(card),
            f" goes to the burn position; deal the {_street_name(hand, game.street)} from the next card.",
        )
        return hand, (_ruling("BOARD-3", text, Severity.CORRECT), prompt_for(hand))
    if hand.burned_round and hand.burns[-1] == card and hand.premature_street == game.street + 1:
        street = game.street
        if street == 1 and _actions_on(hand, street) == 0 and game.phase is Phase.BETTING:
            return _too_many_flop(hand, card)
        # The card after this round was turned up without a burn: a premature board card.
        turned = early_burn_turned_up(hand, card)
        if turned is not None:
            return turned
    return _no_burn_found_late(hand, card)


def _no_burn_found_late(hand: HandProgress, card: Card) -> tuple[HandProgress, tuple[Effect, ...]]:
    """BOARD-3: a burn card lies on the board of a round already dealt."""
    game = hand.game
    street = _last_board_street(hand)
    if street != 0 and card != hand.round_burn and card in hand.burns:
        # The missed burn belongs to an earlier round: later rounds have been dealt and acted
        # on since, so every card stands as it lies (000 section 4 rule 2: once action has been
        # taken on a board card, it must stand); the floor reviews the hand.
        text = sentence(
            Mention(card),
            " was burned for an earlier round but lies on the board: found after "
            "action on later rounds, the board stands as dealt. Call the floor.",
        )
        return hand, (_ruling("BOARD-3", text, Severity.FLOOR),)
    if street == 0 or card != hand.round_burn:
        return hand, ()
    start, end = _street_bounds(hand, street)
    round_cards = game.board[start:end]
    name = _street_name(hand, street)
    burn_at = hand.burns.index(card)
    if _actions_on(hand, street) == 0:
        text = sentence(
            f"No burn before the {name}, found before the betting: ",
            Mention(card),
            f" goes to the burn position; the {name} is ",
            _cards(round_cards),
            ": put those cards on the board.",
        )
        return hand, (_ruling("BOARD-3", text, Severity.CORRECT),)
    # Action was taken on the board as it lies: it stands. The card the controller had as the
    # last of that round was burned instead: it stays out of play, and the next round is burned
    # and dealt as usual, so the later cards are the ones that would have come.
    index = _board_entry(hand, round_cards[-1])
    if index is None:
        return hand, ()
    cards = (card,) + round_cards[:-1]
    log = hand.log[:index] + (DealBoard(cards),) + hand.log[index + 1 :]
    hand = _rebuild(hand, log)
    burns = hand.burns[:burn_at] + (round_cards[-1],) + hand.burns[burn_at + 1 :]
    hand = _evolve(hand, burns=burns, round_burn=round_cards[-1])
    text = sentence(
        f"No burn before the {name}, found after action: the {name} stands as dealt (",
        _cards(cards),
        "); ",
        Mention(round_cards[-1]),
        " is out of play. Burn and deal the next round as usual.",
    )
    return hand, (_ruling("BOARD-3", text, Severity.INFO), prompt_for(hand))


def _too_many_flop(hand: HandProgress, card: Card) -> tuple[HandProgress, tuple[Effect, ...]]:
    """BOARD-1 and BOARD-2: a fourth card on the flop: the flop is redealt."""
    flop_entry = None
    for index, entry in enumerate(hand.log):
        if isinstance(entry, DealBoard):
            flop_entry = index
    assert flop_entry is not None
    entry = hand.log[flop_entry]
    assert isinstance(entry, DealBoard)
    flop = entry.cards
    hand = _rebuild(hand, hand.log[:flop_entry] + hand.log[flop_entry + 1 :])
    text = sentence(
        "Too many cards on the flop (",
        _cards(flop + (card,)),
        "): it is redealt, even if the extra card is known. Mix the board cards with the stub, keep "
        "the burn card on the table, shuffle, cut, and deal a new flop without burning.",
    )
    hand = _evolve(
        hand,
        dealt=hand.dealt - set(flop) - {card},
        burns=hand.burns[:-1],
        burned_round=False,
        premature_street=-1,
        board_pending=(),
        no_burn_next=True,
        pending=Pending("reshuffle", "BOARD-1", text),
    )
    return hand, (_ruling("BOARD-1", text, Severity.CORRECT, True),)
