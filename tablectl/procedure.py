"""The dealing procedure (layer 3): physical card movements onto the game, with rulings.

``step_hand(hand, event, rules)`` follows the deal card by card: which seat gets
the next card, when a burn is due, when the board may come. It detects the
irregularities and misdeals of RULES DEAL, MD, IRR and BOARD and answers with
rulings that cite their id and tell the dealer what to do now. Pure: no clock,
no I/O; a refused event returns the hand unchanged.

Positions are the engine's (0 = first seat left of the button); events name
seats as numbered on the felt (1..N); ``HandProgress.seats_in`` maps one to the other.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from tablectl import evaluator
from tablectl.cards import Card, card_str
from tablectl.effects import Applied, Effect, Prompt, Ruling, Severity
from tablectl.events import CardDrawn, CardSeen, DealerInput, DealerKey, Zone
from tablectl.game.actions import (
    UNKNOWN_CARD,
    Action,
    BetRaise,
    CheckCall,
    DealBoard,
    DealHole,
    Fold,
    Kill,
    Show,
)
from tablectl.game.engine import HandState, Phase, apply, legal
from tablectl.game.errors import RuleViolation
from tablectl.game.profiles import HouseRules
from tablectl.game.variants import Ranking
from tablectl.game.wagers import read_wager


class Refused(Exception):
    """An event that makes no sense now; carries the ruling that says why."""

    def __init__(self, rule: str, text: str) -> None:
        super().__init__(f"{rule}: {text}")
        self.ruling = Ruling(rule, text, Severity.REFUSED)


@dataclass(frozen=True, slots=True)
class Pending:
    """A ruling that waits for the dealer's confirmation before it takes effect."""

    kind: str  # "misdeal", "void", "reshuffle"
    rule: str
    text: str


@dataclass(frozen=True, slots=True)
class HandProgress:
    number: int
    seats_in: tuple[int, ...]  # felt seat numbers in position order (button last)
    game: HandState
    hole: tuple[tuple[Card, ...], ...]  # cards each position holds while the deal goes on
    dealt: frozenset[Card] = frozenset()  # identified cards out of the deck this hand
    hole_dealt: int = 0  # hole cards dealt in sequence so far (DEAL-1)
    exposed: tuple[tuple[int, Card], ...] = ()  # hole cards exposed by the dealer (IRR-6)
    to_replace: tuple[int, ...] = ()  # positions owed a replacement after the deal (IRR-6)
    boxed: int = 0  # boxed cards found this hand (MD-c)
    extra: int = 0  # extra cards after the deal (IRR-5, MD-d)
    burn_ready: bool = False  # a card already lies as the next burn (IRR-5, IRR-6, BOARD-2)
    burned_round: bool = False  # this board round's burn is out
    board_pending: tuple[Card, ...] = ()  # board cards out for this round, not yet all
    burns: tuple[Card, ...] = ()
    premature: tuple[Card, ...] = ()  # board cards turned before the betting was over (BOARD-4)
    premature_street: int = -1  # the street those cards were meant for
    no_burn_next: bool = False  # after a reshuffle, the next board card comes without a burn
    reshuffle_after_round: bool = False  # BOARD-5: reshuffle for the river after this round
    acted: tuple[int, ...] = ()  # positions that acted voluntarily (MD-1)
    actions: int = 0  # voluntary actions in turn (MD-1, tda substantial action)
    chip_actions: int = 0  # of which put chips in
    pending: Pending | None = None
    last_draw: Card | None = None  # the card last drawn, for a camera's confirmation

    @property
    def n(self) -> int:
        return len(self.seats_in)

    def position(self, seat: int | None) -> int:
        if seat is None or seat not in self.seats_in:
            raise Refused("INPUT", f"seat {seat} has no hand in this deal")
        return self.seats_in.index(seat)

    def seat(self, position: int) -> int:
        return self.seats_in[position]


def _evolve(hand: HandProgress, **changes: Any) -> HandProgress:
    return dataclasses.replace(hand, **changes)


def hole_cards_wanted(hand: HandProgress) -> int:
    return hand.game.config.variant.game.hole_cards


def deal_complete(hand: HandProgress) -> bool:
    return hand.hole_dealt >= hand.n * hole_cards_wanted(hand)


def next_hole_position(hand: HandProgress) -> int:
    return hand.hole_dealt % hand.n


def misdeal_allowed(hand: HandProgress, rules: HouseRules) -> bool:
    """MD-1: a misdeal only before two players have acted (tda: before substantial action)."""
    if rules.misdeal_cutoff == "substantial":
        return not (hand.actions >= 3 or (hand.actions >= 2 and hand.chip_actions >= 1))
    return len(set(hand.acted)) < 2


def prompt_for(hand: HandProgress) -> Prompt:
    """What the dealer does next."""
    if hand.pending is not None:
        return Prompt(f"{hand.pending.text} Press confirm when done.")
    game = hand.game
    if not deal_complete(hand):
        return Prompt(f"Deal a card to seat {hand.seat(next_hole_position(hand))}.")
    if hand.to_replace:
        return Prompt(f"Deal seat {hand.seat(hand.to_replace[0])} a card to replace the exposed one.")
    if game.phase is Phase.BETTING and game.actor is not None:
        options = legal(game)
        assert options is not None
        owe = f", {options.call_amount:,} to call" if options.call_amount else ""
        return Prompt(f"Action: seat {hand.seat(game.actor)}{owe}.")
    if game.phase is Phase.DEALING_BOARD:
        street = game.config.variant.game.streets[game.street].name
        if not (hand.burned_round or hand.burn_ready or hand.no_burn_next):
            return Prompt(f"Burn, then deal the {street}.")
        return Prompt(f"Deal the {street}.")
    if game.phase is Phase.SHOWDOWN:
        return Prompt("Showdown: turn the hands up, last aggressor first.")
    return Prompt("Hand complete: push the pot.")


# -- the step -------------------------------------------------------------------------------------


def step_hand(
    hand: HandProgress, event: CardDrawn | CardSeen | DealerInput, rules: HouseRules
) -> tuple[HandProgress, tuple[Effect, ...]]:
    """Apply one physical event to the hand. Raises :class:`Refused` for input that makes no sense."""
    if hand.pending is not None and not (isinstance(event, DealerInput) and event.key is DealerKey.CONFIRM):
        if isinstance(event, CardDrawn) and hand.pending.kind == "reshuffle":
            raise Refused(hand.pending.rule, f"confirm the reshuffle first: {hand.pending.text}")
        raise Refused(hand.pending.rule, f"waiting for confirm: {hand.pending.text}")
    if isinstance(event, CardDrawn):
        return _card_drawn(hand, event, rules)
    if isinstance(event, CardSeen):
        return _card_seen(hand, event, rules)
    return _dealer_input(hand, event, rules)


def _ruling(rule: str, text: str, severity: Severity, confirm: bool = False) -> Ruling:
    return Ruling(rule, text, severity, confirm)


def _void(hand: HandProgress, rule: str, text: str) -> tuple[HandProgress, tuple[Effect, ...]]:
    pending = Pending("void", rule, text)
    return _evolve(hand, pending=pending), (_ruling(rule, text, Severity.VOID, True),)


def _misdeal(
    hand: HandProgress, rule: str, why: str, rules: HouseRules
) -> tuple[HandProgress, tuple[Effect, ...]]:
    if not misdeal_allowed(hand, rules):
        text = (
            f"{why}, but action has been taken: no misdeal. "
            "The hand is played out; no chips go back to a fouled hand."
        )
        return hand, (_ruling("MD-1", text, Severity.INFO),)
    text = f"Misdeal: {why}. Collect the cards and reshuffle; the button and blinds stay."
    pending = Pending("misdeal", rule, text)
    return _evolve(hand, pending=pending), (_ruling(rule, text, Severity.MISDEAL, True),)


def _check_identity(hand: HandProgress, card: Card | None, foreign: bool) -> tuple[str, str] | None:
    """IRR-1 and IRR-2: a card with another back, or a second card of the same rank and suit."""
    if foreign:
        shown = card_str(card) if card is not None else "a card"
        return "IRR-1", f"{shown} with a different back came out: all action is void; return every chip."
    if card is not None and card in hand.dealt:
        return "IRR-2", f"a second {card_str(card)} came out: all action is void; return every chip."
    return None


def _feed(game: HandState, action: Action) -> HandState:
    try:
        return apply(game, action)
    except RuleViolation as exc:  # the procedure only feeds what it checked: a bug if this fires
        raise Refused(exc.rule, exc.message) from None


def _card_drawn(
    hand: HandProgress, event: CardDrawn, rules: HouseRules
) -> tuple[HandProgress, tuple[Effect, ...]]:
    card = event.card
    problem = _check_identity(hand, card, event.foreign)
    if problem is not None:
        return _void(hand, *problem)
    game = hand.game
    dealt = hand.dealt | ({card} if card is not None else set())
    if event.face_up:
        # IRR-3: a boxed card is a scrap of paper; the next card takes its place.
        boxed = hand.boxed + 1
        hand = _evolve(hand, boxed=boxed, dealt=dealt)
        if boxed >= 2 and misdeal_allowed(hand, rules):
            return _misdeal(hand, "MD-c", "two boxed cards found", rules)
        shown = card_str(card) if card is not None else "a card"
        where = prompt_for(hand).text
        text = f"Boxed card ({shown}): set it aside as a scrap of paper; the next card replaces it. {where}"
        return hand, (_ruling("IRR-3", text, Severity.CORRECT),)
    value = UNKNOWN_CARD if card is None else card
    hand = _evolve(hand, dealt=dealt, last_draw=card)
    if not deal_complete(hand):
        return _deal_hole_card(hand, value)
    if hand.to_replace:
        position = hand.to_replace[0]
        hole = list(hand.hole)
        hole[position] = hole[position] + (value,)
        hand = _evolve(hand, hole=tuple(hole), to_replace=hand.to_replace[1:])
        effects: tuple[Effect, ...] = (Prompt(f"Seat {hand.seat(position)} has a replacement card."),)
        if not hand.to_replace:
            return _give_hole_cards(hand, effects)
        return hand, effects
    if game.phase is Phase.BETTING:
        if game.street == 0 and hand.actions == 0:
            return _extra_card(hand, value, rules)
        return _premature(hand, value)
    if game.phase is Phase.DEALING_BOARD:
        return _board_card(hand, value)
    if game.phase is Phase.SHOWDOWN:
        text = "The betting is over: no card is dealt at the showdown. Put it with the burn cards."
        return hand, (_ruling("DEAL-6", text, Severity.CORRECT),)
    raise Refused("DEAL-6", "the hand is over: that card is not shown; put it in the muck face down")


def _deal_hole_card(hand: HandProgress, card: Card) -> tuple[HandProgress, tuple[Effect, ...]]:
    position = next_hole_position(hand)
    hole = list(hand.hole)
    hole[position] = hole[position] + (card,)
    hand = _evolve(hand, hole=tuple(hole), hole_dealt=hand.hole_dealt + 1)
    if not deal_complete(hand):
        return hand, ()
    if hand.to_replace:
        return hand, (prompt_for(hand),)
    return _give_hole_cards(hand, ())


def _give_hole_cards(
    hand: HandProgress, effects: tuple[Effect, ...]
) -> tuple[HandProgress, tuple[Effect, ...]]:
    """The deal is complete: the engine gets every hand and the betting opens."""
    game = hand.game
    out = list(effects)
    for position, cards in enumerate(hand.hole):
        action = DealHole(position, cards)
        game = _feed(game, action)
        out.append(Applied(action))
    hand = _evolve(hand, game=game)
    out.append(prompt_for(hand))
    return hand, tuple(out)


def _extra_card(hand: HandProgress, card: Card, rules: HouseRules) -> tuple[HandProgress, tuple[Effect, ...]]:
    extra = hand.extra + 1
    hand = _evolve(hand, extra=extra)
    if extra >= 2:
        return _misdeal(hand, "MD-d", "two extra cards dealt", rules)
    text = "Extra card: return it to the deck as the burn card; do not burn again before the flop."
    return _evolve(hand, burn_ready=True), (_ruling("IRR-5", text, Severity.CORRECT),)


def _premature(hand: HandProgress, card: Card) -> tuple[HandProgress, tuple[Effect, ...]]:
    """BOARD-4: a card turned before the betting round is complete is not used."""
    game = hand.game
    if not hand.premature and hand.premature_street != game.street + 1 and not hand.burned_round:
        # The first card out early is the burn: it stays a burn card.
        hand = _evolve(hand, burns=hand.burns + (card,), burned_round=True, premature_street=game.street + 1)
        text = "A card was burned before the betting is over: it stays the burn card. Finish the betting."
        return hand, (_ruling("BOARD-4", text, Severity.CORRECT),)
    hand = _evolve(hand, premature=hand.premature + (card,), premature_street=game.street + 1)
    street = game.config.variant.game.streets[game.street + 1].name
    text = (
        f"Premature {street}: that card is not used, even if players fold; "
        "nobody may accept or reject it. Finish the betting first."
    )
    return hand, (_ruling("BOARD-4", text, Severity.CORRECT),)


def _board_card(hand: HandProgress, card: Card) -> tuple[HandProgress, tuple[Effect, ...]]:
    if not (hand.burned_round or hand.burn_ready or hand.no_burn_next):
        hand = _evolve(hand, burns=hand.burns + (card,), burned_round=True)
        return hand, (prompt_for(hand),)
    pending = hand.board_pending + (card,)
    needed = hand.game.board_needed
    if len(pending) < needed:
        return _evolve(hand, board_pending=pending), ()
    action = DealBoard(pending)
    game = _feed(hand.game, action)
    effects: list[Effect] = [Applied(action)]
    hand = _evolve(
        hand,
        game=game,
        board_pending=(),
        burned_round=False,
        burn_ready=False,
        no_burn_next=False,
    )
    return _after_game_change(hand, effects)


def _after_game_change(hand: HandProgress, effects: list[Effect]) -> tuple[HandProgress, tuple[Effect, ...]]:
    """Between rounds: settle premature cards (BOARD-2, BOARD-5) and prompt the next step."""
    game = hand.game
    if game.phase in (Phase.DEALING_BOARD, Phase.SHOWDOWN) and hand.reshuffle_after_round:
        if game.phase is Phase.DEALING_BOARD:
            text = (
                "Reshuffle the stub with the card taken out of play (not the burn cards or discards), "
                "cut, and deal the next card without burning."
            )
            hand = _evolve(hand, reshuffle_after_round=False, no_burn_next=True)
            hand = _evolve(hand, pending=Pending("reshuffle", "BOARD-5", text))
            effects.append(_ruling("BOARD-5", text, Severity.CORRECT, True))
            return hand, tuple(effects)
    if game.phase is Phase.DEALING_BOARD and hand.premature and hand.premature_street <= game.street:
        returned = hand.premature
        street_index = hand.premature_street
        hand = _evolve(hand, premature=(), premature_street=-1, dealt=hand.dealt - set(returned))
        if street_index == 1:
            # BOARD-2: a premature flop is redealt from a reshuffled stub, the burn staying.
            text = (
                "Mix the premature flop with the stub (the burn card stays on the table), "
                "shuffle, cut, and deal a new flop without burning."
            )
            hand = _evolve(hand, no_burn_next=True, burned_round=False, burn_ready=False)
            hand = _evolve(hand, pending=Pending("reshuffle", "BOARD-2", text))
            effects.append(_ruling("BOARD-2", text, Severity.CORRECT, True))
            return hand, tuple(effects)
        # BOARD-5: burn and deal what would have been the next card in its place; reshuffle after.
        last = street_index == len(game.config.variant.game.streets) - 1
        if last:
            text = (
                "Premature river: reshuffle the stub with that card (not the burn cards or discards), "
                "cut, and deal the river without burning."
            )
            hand = _evolve(hand, no_burn_next=True, burned_round=False)
            hand = _evolve(hand, pending=Pending("reshuffle", "BOARD-5", text))
            effects.append(_ruling("BOARD-5", text, Severity.CORRECT, True))
            return hand, tuple(effects)
        text = (
            "Premature card set aside: burn and deal the next card in its place; "
            "after this round the stub is reshuffled with it for the last card."
        )
        hand = _evolve(hand, burned_round=False, reshuffle_after_round=True)
        effects.append(_ruling("BOARD-5", text, Severity.CORRECT))
    if game.phase is not Phase.COMPLETE:
        effects.append(prompt_for(hand))
    return hand, tuple(effects)


def _card_seen(
    hand: HandProgress, event: CardSeen, rules: HouseRules
) -> tuple[HandProgress, tuple[Effect, ...]]:
    """A camera saw a card land somewhere: check it against where the procedure put it."""
    card = event.card
    if event.zone is Zone.SEAT:
        position = hand.position(event.seat) if event.seat in hand.seats_in else None
        if event.face_up and position is not None:
            return _exposed(hand, event.seat, card, "dealer", rules)
        if position is None:
            return _misdeal(hand, "MD-i", f"a card was dealt to seat {event.seat}, which has no hand", rules)
        owner = _holder(hand, card)
        if card is not None and owner is not None and owner != position:
            if hand.hole_dealt <= 1:
                return _misdeal(hand, "MD-h", "the first card went to the wrong seat", rules)
            if not deal_complete(hand) or hand.game.phase is Phase.DEALING_HOLE:
                return _misdeal(hand, "MD-f", "a card was dealt out of sequence", rules)
            # IRR-9: cards thrown into another player's hand are dead.
            return _kill(
                hand,
                owner,
                "IRR-9",
                f"seat {hand.seat(owner)}'s card went into another hand: that hand is dead.",
            )
        return hand, ()
    if event.zone is Zone.BURN:
        if event.face_up:
            text = "Nobody may see a burn card: turn it face down and keep it apart from the discards."
            return hand, (_ruling("DEAL-3", text, Severity.CORRECT),)
        if not deal_complete(hand):
            text = f"No burn before the hole cards: that card belongs to seat {hand.seat(max(next_hole_position(hand) - 1, 0))}."
            return hand, (_ruling("DEAL-2", text, Severity.CORRECT),)
        if card is not None and card in hand.game.board and not _board_action_taken(hand):
            return _second_burn(hand, card)
        return hand, ()
    if event.zone is Zone.BOARD:
        if card is not None and card in hand.burns and hand.burns[-1] == card:
            return _no_burn(hand, card)
        if card is not None and (card in hand.board_pending or card in hand.game.board):
            return hand, ()
        if hand.game.phase is Phase.DEALING_BOARD and len(hand.board_pending) + 1 > hand.game.board_needed:
            return _too_many_flop(hand)
        return hand, ()
    # Zone.MUCK
    owner = _holder(hand, card)
    if owner is not None and not hand.game.folded[owner]:
        text = f"Seat {hand.seat(owner)}'s card touched the muck: the hand may be ruled dead. Call the floor."
        return hand, (_ruling("IRR-9", text, Severity.FLOOR),)
    return hand, ()


def _holder(hand: HandProgress, card: Card | None) -> int | None:
    if card is None:
        return None
    for position, cards in enumerate(hand.hole):
        if card in cards:
            return position
    return None


def _board_action_taken(hand: HandProgress) -> bool:
    game = hand.game
    return game.phase is not Phase.BETTING or any(a >= 0 for a in game.acted)


def _no_burn(hand: HandProgress, card: Card) -> tuple[HandProgress, tuple[Effect, ...]]:
    """BOARD-3: the card taken as the burn lies on the board: the dealer did not burn."""
    if _board_action_taken(hand) and hand.game.phase is Phase.BETTING:
        text = "No burn card, found after action on the board: the board stands; burn as usual next round."
        return hand, (_ruling("BOARD-3", text, Severity.INFO),)
    text = "No burn: move that card to the burn position and deal the board card that should come next."
    return hand, (_ruling("BOARD-3", text, Severity.CORRECT),)


def _second_burn(hand: HandProgress, card: Card) -> tuple[HandProgress, tuple[Effect, ...]]:
    text = (
        "Two cards burned: found before the betting, so the board is corrected; "
        "the second burn card goes back on the deck as the next burn."
    )
    return _evolve(hand, burn_ready=True), (_ruling("BOARD-3", text, Severity.CORRECT),)


def _too_many_flop(hand: HandProgress) -> tuple[HandProgress, tuple[Effect, ...]]:
    text = (
        "Too many cards on the flop: it is redealt. Mix the board cards with the stub, "
        "keep the burn card, shuffle, cut, and deal a new flop without burning."
    )
    hand = _evolve(
        hand,
        dealt=hand.dealt - set(hand.board_pending),
        board_pending=(),
        no_burn_next=True,
        pending=Pending("reshuffle", "BOARD-1", text),
    )
    return hand, (_ruling("BOARD-1", text, Severity.CORRECT, True),)


def _exposed(
    hand: HandProgress, seat: int | None, card: Card | None, by: str, rules: HouseRules
) -> tuple[HandProgress, tuple[Effect, ...]]:
    """An exposed hole card (MD-a, MD-b, MD-3, IRR-6, IRR-7)."""
    position = hand.position(seat)
    if by == "player":
        return hand, (_ruling("IRR-7", "A card flashed by a player plays.", Severity.INFO),)
    shown = card if card is not None else (hand.hole[position][-1] if hand.hole[position] else None)
    exposed = hand.exposed + ((position, shown if shown is not None else UNKNOWN_CARD),)
    hand = _evolve(hand, exposed=exposed)
    dealing = not deal_complete(hand) or hand.game.phase is Phase.DEALING_HOLE
    if not dealing:
        text = f"Seat {seat}'s card is exposed after the deal: it plays; the hand goes on."
        return hand, (_ruling("IRR-7", text, Severity.INFO),)
    card_index = _deal_index(hand, position, shown)
    if card_index is not None and card_index < 2:
        return _misdeal(hand, "MD-a", "the first or second card of the hand was exposed", rules)
    if len(exposed) >= 2:
        return _misdeal(hand, "MD-b", "two cards exposed by the dealer", rules)
    if rules.every_exposed_card_misdeals:
        return _misdeal(hand, "MD-3", "a card was exposed by the dealer", rules)
    hole = list(hand.hole)
    if shown is not None and shown in hole[position]:
        cards = list(hole[position])
        cards.remove(shown)
        hole[position] = tuple(cards)
    hand = _evolve(hand, hole=tuple(hole), to_replace=hand.to_replace + (position,), burn_ready=True)
    text = (
        f"Exposed card at seat {seat}: the deal goes on; it may not be kept. After the deal, "
        "replace it with the top card; the exposed card becomes the burn card."
    )
    return hand, (_ruling("IRR-6", text, Severity.CORRECT),)


def _deal_index(hand: HandProgress, position: int, card: Card | None) -> int | None:
    """Which card of the hand (0 = the first dealt) this is."""
    if card is None or card not in hand.hole[position]:
        return None
    round_ = hand.hole[position].index(card)
    return round_ * hand.n + position


def _kill(hand: HandProgress, position: int, rule: str, text: str) -> tuple[HandProgress, tuple[Effect, ...]]:
    if hand.game.phase is Phase.DEALING_HOLE or hand.game.folded[position]:
        return hand, (_ruling(rule, text, Severity.INFO),)
    action = Kill(position, rule)
    game = _feed(hand.game, action)
    hand = _evolve(hand, game=game)
    return _after_game_change(hand, [_ruling(rule, text, Severity.CORRECT), Applied(action)])


def kill_hand(hand: HandProgress, seat: int, rule: str, by: str) -> tuple[HandProgress, tuple[Effect, ...]]:
    """A floor ruling: the hand at ``seat`` is dead."""
    position = hand.position(seat)
    if hand.game.folded[position]:
        raise Refused("INPUT", f"seat {seat} has no live hand")
    return _kill(hand, position, rule, f"Seat {seat}'s hand is dead by the floor ({by}).")


# -- the dealer's panel ---------------------------------------------------------------------------


def _dealer_input(
    hand: HandProgress, event: DealerInput, rules: HouseRules
) -> tuple[HandProgress, tuple[Effect, ...]]:
    key = event.key
    if key is DealerKey.CONFIRM:
        if hand.pending is None:
            raise Refused("INPUT", "nothing to confirm")
        if hand.pending.kind == "reshuffle":
            hand = _evolve(hand, pending=None)
            return hand, (prompt_for(hand),)
        return hand, ()  # misdeal and void confirms end the hand: the table handles them
    if key is DealerKey.MISDEAL:
        cause = (event.cause or "").lower().removeprefix("md-")
        reasons = {
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
        if cause not in reasons:
            raise Refused(
                "MD-1", f"name the misdeal's cause, one of a to j (RULES MD-a..MD-j), not {event.cause!r}"
            )
        rule = f"MD-{cause}"
        if cause == "e" and not misdeal_allowed(hand, rules) and event.seat is not None:
            # IRR-8: too late for a misdeal; a hand without the proper number of cards is dead.
            position = hand.position(event.seat)
            return _kill(
                hand, position, "IRR-8", f"Seat {event.seat} has the wrong number of cards: the hand is dead."
            )
        return _misdeal(hand, rule, reasons[cause], rules)
    if key is DealerKey.CARD_FLASHED:
        by = event.cause or "dealer"
        if by not in ("dealer", "player", "off_table"):
            raise Refused("INPUT", "say who flashed the card: dealer, player or off_table")
        card = event.cards[0] if event.cards else None
        return _exposed(hand, event.seat, card, "dealer" if by == "off_table" else by, rules)
    if key in (DealerKey.SHOW, DealerKey.MUCK):
        return _showdown_input(hand, event)
    if key is DealerKey.NEW_HAND:
        raise Refused("INPUT", "a hand is in progress: finish it (or the floor voids it) first")
    return _betting_input(hand, event, rules)


def _betting_input(
    hand: HandProgress, event: DealerInput, rules: HouseRules
) -> tuple[HandProgress, tuple[Effect, ...]]:
    game = hand.game
    if game.phase is not Phase.BETTING:
        where = (
            "the deal is not complete" if not deal_complete(hand) else f"the hand is at {game.phase.value}"
        )
        raise Refused("BET-14", f"no betting now: {where}")
    position = hand.position(event.seat)
    options = legal(game)
    assert options is not None
    if position != options.player:
        raise Refused(
            "BET-14", f"action is on seat {hand.seat(options.player)}, not seat {event.seat}: out of turn"
        )
    effects: list[Effect] = []
    action: Action
    key = event.key
    if key is DealerKey.FOLD:
        action = Fold(position)
    elif key is DealerKey.CHECK:
        if options.call_amount:
            raise Refused(
                "INPUT", f"seat {event.seat} faces {options.call_amount:,} to call: call, raise or fold"
            )
        action = CheckCall(position)
    elif key is DealerKey.CALL:
        action = CheckCall(position)
    elif key is DealerKey.ALL_IN:
        action = BetRaise(position, options.max_raise_to) if options.can_raise else CheckCall(position)
    elif key is DealerKey.BET:
        if event.amount is None:
            raise Refused("INPUT", "a bet needs an amount")
        reading = read_wager(game, position, event.amount)
        action = reading.action
        if reading.rule is not None:
            effects.append(_ruling(reading.rule, reading.note, Severity.CORRECT))
    else:
        raise Refused("INPUT", f"{key.value} is not a betting action")
    chips_before = game.stacks[position]
    game = _feed(game, action)
    chips_in = game.stacks[position] < chips_before or (
        isinstance(action, CheckCall) and options.call_amount > 0
    )
    hand = _evolve(
        hand,
        game=game,
        actions=hand.actions + 1,
        chip_actions=hand.chip_actions + (1 if chips_in else 0),
        acted=hand.acted + ((position,) if position not in hand.acted else ()),
    )
    effects.append(Applied(action))
    return _after_game_change(hand, effects)


def _showdown_input(hand: HandProgress, event: DealerInput) -> tuple[HandProgress, tuple[Effect, ...]]:
    game = hand.game
    position = hand.position(event.seat)
    effects: list[Effect] = []
    if event.key is DealerKey.MUCK:
        if game.config.variant.game.ranking is Ranking.HOLDEM and _plays_the_board(game, position):
            text = (
                f"Seat {event.seat} threw the hand away without declaring the board: "
                "they relinquish all claim to the pot."
            )
            effects.append(_ruling("BOARD-7", text, Severity.INFO))
        action: Action = Show(position, None)
    else:
        cards = event.cards or game.hole[position]
        action = Show(position, tuple(cards))
    try:
        game = apply(game, action)
    except RuleViolation as exc:
        raise Refused(exc.rule, exc.message) from None
    effects.append(Applied(action))
    return _evolve(hand, game=game), tuple(effects)


def _plays_the_board(game: HandState, position: int) -> bool:
    board = game.board
    hole = game.hole[position]
    if len(board) != 5 or UNKNOWN_CARD in hole:
        return False
    return evaluator.evaluate_high(tuple(hole) + tuple(board)) == evaluator.evaluate_high(board)
