"""The dealing procedure (layer 3): physical card movements onto the game, with rulings.

``step_hand(hand, event, rules)`` follows the deal card by card: which seat gets
the next card, when a burn is due, when the board may come. It detects the
irregularities and misdeals of RULES DEAL, MD, IRR and BOARD and answers with
rulings that cite their id and tell the dealer what to do now. Pure: no clock,
no I/O; a refused event raises :class:`Refused` and the caller keeps the hand it had.

Two devices tell the procedure what happens. The shoe says which card left it, in
order: the procedure assumes the proper sequence (the next hole card to the next
seat, a burn before each board round) and assigns every card accordingly. The
camera says where a card landed (a seat, the board, the burn pile, the muck): where
that contradicts the assumed sequence, the procedure rules (a card to the wrong
seat, a missed or a second burn, too many cards on the flop) and, where the rules
keep the hand going, corrects its own picture to the cards as they lie. A dealer's
screen may send the same ``CardSeen`` events by hand when no camera watches.

Every action given to the rules engine is kept in ``HandProgress.log``, so that the
betting can be reconstructed (RULES TBL-5) and a board card corrected after the
fact (BOARD-3) by replaying the log from ``HandProgress.start``.

Positions are the engine's (0 = first seat left of the button); events name
seats as numbered on the felt (1..N); ``HandProgress.seats_in`` maps one to the other.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import partial
from typing import Any, NamedTuple

from tablectl.core import evaluator
from tablectl.core.cards import Card, card_str, cards_str
from tablectl.core.effects import Applied, Effect, Prompt, Ruling, Severity
from tablectl.core.events import CardDrawn, CardSeen, DealerInput, DealerKey, Zone
from tablectl.core.game.actions import (
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
from tablectl.core.game.engine import HandState, Phase, apply, call_cost, legal
from tablectl.core.game.errors import RuleViolation
from tablectl.core.game.profiles import HouseRules
from tablectl.core.game.variants import Ranking
from tablectl.core.game.wagers import read_wager


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
class Refund:
    """Chips the ledger gives back outside the betting: a call that was never put in (BOARD-6)."""

    player: int
    amount: int
    rule: str = "BOARD-6"


LogEntry = Action | Refund


class HandProgress(NamedTuple):
    """Where the deal stands. A NamedTuple, like the engine's state: copied for every event,
    and ``_replace`` is several times cheaper than ``dataclasses.replace`` (bench/procedure.py)."""

    number: int
    seats_in: tuple[int, ...]  # felt seat numbers in position order (button last)
    game: HandState
    hole: tuple[tuple[Card, ...], ...]  # cards each position holds while the deal goes on
    dealt: frozenset[Card] = frozenset()  # identified cards out of the deck this hand
    hole_dealt: int = 0  # slots of the proper sequence dealt so far (DEAL-1)
    exposed: tuple[tuple[int, Card], ...] = ()  # hole cards exposed by the dealer (IRR-6, MD-b)
    to_replace: tuple[int, ...] = ()  # positions owed a replacement after the deal (IRR-6)
    owed: tuple[tuple[int, int], ...] = ()  # (position, slot): a card owed after that round (IRR-3)
    boxed_for: int | None = None  # the position a boxed card was headed for (IRR-3)
    boxed_next: tuple[int, Card] | None = None  # the card dealt after a boxed card, and to whom
    boxed: int = 0  # boxed cards found this hand (MD-c)
    extra: int = 0  # extra cards after the deal (IRR-5, MD-d)
    burn_ready: bool = False  # a card already lies as the next burn (IRR-5, IRR-6, BOARD-3)
    burn_card: Card | None = None  # which card that is, when known
    burned_round: bool = False  # the next board round's burn is out
    board_pending: tuple[Card, ...] = ()  # board cards out for this round, not yet all
    burns: tuple[Card, ...] = ()
    round_burn: Card | None = None  # the card burned before the board round dealt last (BOARD-3)
    premature: tuple[Card, ...] = ()  # board cards turned before the betting was over (BOARD-4)
    premature_street: int = -1  # the street those cards (or an early burn) were meant for
    no_burn_next: bool = False  # after a reshuffle, the next board card comes without a burn
    reshuffle_after_round: bool = False  # BOARD-5: reshuffle for the river after this round
    acted: tuple[int, ...] = ()  # positions that acted voluntarily (MD-1)
    actions: int = 0  # voluntary actions in turn (MD-1, tda substantial action)
    chip_actions: int = 0  # of which put chips in
    street_actions: tuple[int, ...] = ()  # voluntary actions on each street (BOARD-3, BOARD-6)
    pending: Pending | None = None
    last_draw: Card | None = None  # the card last drawn, for a camera's confirmation
    start: HandState | None = None  # the game as the blinds were posted: the log replays from it
    log: tuple[LogEntry, ...] = ()  # every action given to the engine, in order (TBL-5)

    @property
    def n(self) -> int:
        return len(self.seats_in)

    def position(self, seat: int | None) -> int:
        if seat is None or seat not in self.seats_in:
            raise Refused("INPUT", f"seat {seat} has no hand in this deal")
        return self.seats_in.index(seat)

    def seat(self, position: int) -> int:
        return self.seats_in[position]


def new_hand(number: int, seats_in: tuple[int, ...], game: HandState) -> HandProgress:
    """The procedure for a hand whose blinds are posted and whose cards are about to be dealt."""
    n = len(seats_in)
    streets = len(game.config.variant.game.streets)
    return HandProgress(
        number=number,
        seats_in=seats_in,
        game=game,
        hole=((),) * n,
        street_actions=(0,) * streets,
        start=game,
    )


_HAND_INDEX = {name: index for index, name in enumerate(HandProgress._fields)}
_new_tuple = tuple.__new__


def _evolve(hand: HandProgress, **changes: Any) -> HandProgress:
    """A copy with ``changes``: every event makes one or two, so it is kept lean."""
    values = list(hand)
    for name, value in changes.items():
        values[_HAND_INDEX[name]] = value
    new: HandProgress = _new_tuple(HandProgress, values)
    return new


def _cards(cards: Iterable[Card]) -> str:
    return cards_str(cards, " ")


def _show(card: Card | None) -> str:
    return card_str(card) if card is not None and card != UNKNOWN_CARD else "a card"


# -- where the deal stands ------------------------------------------------------------------------


def hole_cards_wanted(hand: HandProgress) -> int:
    return hand.game.config.variant.game.hole_cards


def _slots(hand: HandProgress) -> int:
    return hand.n * hole_cards_wanted(hand)


def deal_complete(hand: HandProgress) -> bool:
    """Every slot of the proper sequence is dealt, and no boxed card's replacement is owed."""
    return hand.hole_dealt >= _slots(hand) and not hand.owed


def _owed_due(hand: HandProgress) -> bool:
    return bool(hand.owed) and hand.hole_dealt >= hand.owed[0][1]


def next_hole_position(hand: HandProgress) -> int:
    """Who gets the next hole card: a card owed after its round (IRR-3), else the sequence."""
    if _owed_due(hand):
        return hand.owed[0][0]
    return hand.hole_dealt % hand.n


def _hole_phase(hand: HandProgress) -> bool:
    """The hole cards are still being dealt (replacements of exposed cards included)."""
    return not deal_complete(hand) or hand.game.phase is Phase.DEALING_HOLE


def _deal_just_done(hand: HandProgress) -> bool:
    """The deal is complete and nothing has happened since: a camera report about the last
    cards dealt still belongs to the deal (it may arrive after the shoe's last draw)."""
    game = hand.game
    return (
        not _hole_phase(hand)
        and game.phase is Phase.BETTING
        and game.street == 0
        and hand.actions == 0
        and hand.extra == 0
        and all(isinstance(entry, DealHole) for entry in hand.log)
    )


def misdeal_allowed(hand: HandProgress, rules: HouseRules) -> bool:
    """MD-1: a misdeal only before two players have acted (tda: before substantial action)."""
    if rules.misdeal_cutoff == "substantial":
        return not (hand.actions >= 3 or (hand.actions >= 2 and hand.chip_actions >= 1))
    return len(set(hand.acted)) < 2


def _street_name(hand: HandProgress, street: int) -> str:
    streets = hand.game.config.variant.game.streets
    return streets[street].name if 0 <= street < len(streets) else "next card"


def _street_bounds(hand: HandProgress, street: int) -> tuple[int, int]:
    """Indexes of the board cards dealt on ``street``."""
    streets = hand.game.config.variant.game.streets
    end = sum(s.board_cards for s in streets[: street + 1])
    return end - streets[street].board_cards, end


def _street_of_board_card(hand: HandProgress, index: int) -> int:
    streets = hand.game.config.variant.game.streets
    total = 0
    for number, street in enumerate(streets):
        total += street.board_cards
        if index < total:
            return number
    return len(streets) - 1


def _last_board_street(hand: HandProgress) -> int:
    """The street whose board cards were dealt last (0 before the flop)."""
    board = len(hand.game.board)
    return _street_of_board_card(hand, board - 1) if board else 0


def _actions_on(hand: HandProgress, street: int) -> int:
    return hand.street_actions[street] if 0 <= street < len(hand.street_actions) else 0


def prompt_for(hand: HandProgress) -> Prompt:
    """What the dealer does next (written when first read: a fold never reads it)."""
    return Prompt.later(partial(_prompt_text, hand))


def _prompt_text(hand: HandProgress) -> str:
    if hand.pending is not None:
        return f"{hand.pending.text} Press confirm when done."
    game = hand.game
    if not deal_complete(hand):
        if _owed_due(hand):
            return f"Deal seat {hand.seat(next_hole_position(hand))} the card it is owed."
        return f"Deal a card to seat {hand.seat(next_hole_position(hand))}."
    if hand.to_replace:
        return f"Deal seat {hand.seat(hand.to_replace[0])} a card to replace the exposed one."
    if game.phase is Phase.BETTING and game.actor is not None:
        options = legal(game)
        assert options is not None
        owe = f", {options.call_amount:,} to call" if options.call_amount else ""
        return f"Action: seat {hand.seat(game.actor)}{owe}."
    if game.phase is Phase.DEALING_BOARD:
        street = _street_name(hand, game.street)
        if UNKNOWN_CARD in hand.board_pending and len(hand.board_pending) >= game.board_needed:
            return f"The reader missed a {street} card: show it to the camera."
        if not (hand.burned_round or hand.burn_ready or hand.no_burn_next):
            return f"Burn, then deal the {street}."
        return f"Deal the {street}."
    if game.phase is Phase.SHOWDOWN:
        return "Showdown: turn the hands up, last aggressor first."
    return "Hand complete: push the pot."


# -- the engine and its log -------------------------------------------------------------------


def _run(game: HandState, entry: LogEntry) -> HandState:
    if isinstance(entry, Refund):
        stacks = list(game.stacks)
        contributed = list(game.contributed)
        stacks[entry.player] += entry.amount
        contributed[entry.player] -= entry.amount
        return game._replace(stacks=tuple(stacks), contributed=tuple(contributed))
    try:
        return apply(game, entry)
    except RuleViolation as exc:  # the procedure only feeds what it checked: a refusal if this fires
        raise Refused(exc.rule, exc.message) from None


def _apply(hand: HandProgress, entry: LogEntry) -> HandProgress:
    return _evolve(hand, game=_run(hand.game, entry), log=hand.log + (entry,))


def _rebuild(hand: HandProgress, log: tuple[LogEntry, ...]) -> HandProgress:
    """The hand with its betting reconstructed from ``log`` (BOARD-3 corrections)."""
    if hand.start is None:
        raise Refused("INPUT", "this hand has no record to reconstruct from")
    game = hand.start
    for entry in log:
        game = _run(game, entry)
    return _evolve(hand, game=game, log=log)


def _board_entry(hand: HandProgress, card: Card) -> int | None:
    for index, entry in enumerate(hand.log):
        if isinstance(entry, DealBoard) and card in entry.cards:
            return index
    return None


# -- the step -------------------------------------------------------------------------------------


def step_hand(
    hand: HandProgress, event: CardDrawn | CardSeen | DealerInput, rules: HouseRules
) -> tuple[HandProgress, tuple[Effect, ...]]:
    """Apply one physical event to the hand. Raises :class:`Refused` for input that makes no sense."""
    if hand.pending is not None and not (isinstance(event, DealerInput) and event.key is DealerKey.CONFIRM):
        if isinstance(event, CardSeen):
            return hand, ()  # the camera sees the cards being gathered: nothing to rule on
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
    hand: HandProgress, rule: str, why: str, rules: HouseRules, after: str = ""
) -> tuple[HandProgress, tuple[Effect, ...]]:
    """A misdeal before the MD-1 cut-off; after it, the hand plays on (``after`` says how)."""
    if not misdeal_allowed(hand, rules):
        text = (
            f"{why[0].upper()}{why[1:]} ({rule}), but action has been taken: no misdeal. "
            f"The hand is played out; no chips go back to a fouled hand.{after}"
        )
        return hand, (_ruling("MD-1", text, Severity.INFO),)
    text = f"Misdeal: {why}. Collect the cards and reshuffle; the button and blinds stay."
    if rule == "MD-g":
        text = (
            f"Misdeal: {why}. Collect the cards and reshuffle; "
            f"put the button at seat {hand.seat(hand.n - 1)} and post the blinds again."
        )
    pending = Pending("misdeal", rule, text)
    return _evolve(hand, pending=pending), (_ruling(rule, text, Severity.MISDEAL, True),)


def _check_identity(hand: HandProgress, card: Card | None, foreign: bool) -> tuple[str, str] | None:
    """IRR-1 and IRR-2: a card with another back, or a second card of the same rank and suit."""
    if foreign:
        return (
            "IRR-1",
            f"{_show(card)} with a different back came out: all action is void; return every chip.",
        )
    if card is not None and card in hand.dealt:
        return "IRR-2", f"a second {card_str(card)} came out: all action is void; return every chip."
    return None


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
        text = f"{card_str(card)} is the burn card put back on the deck: it stays the burn."
        return hand, (_ruling("DEAL-2", text, Severity.INFO), prompt_for(hand))
    problem = _check_identity(hand, card, event.foreign)
    if problem is not None:
        return _void(hand, *problem)
    if hand.game.phase is Phase.COMPLETE:
        raise Refused("DEAL-6", "the hand is over: that card is not shown; put it in the muck face down")
    dealt = hand.dealt if card is None else hand.dealt.union((card,))
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
    text = (
        f"Boxed card ({_show(card)}): set it aside as a scrap of paper; "
        f"the next card replaces it. {prompt_for(hand).text}"
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


def _give_hole_cards(
    hand: HandProgress, effects: tuple[Effect, ...]
) -> tuple[HandProgress, tuple[Effect, ...]]:
    """The deal is complete: the engine gets every hand and the betting opens."""
    out = list(effects)
    for position, cards in enumerate(hand.hole):
        action = DealHole(position, cards)
        hand = _apply(hand, action)
        out.append(Applied(action))
    out.append(prompt_for(hand))
    return hand, tuple(out)


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
        return _evolve(hand, dealt=dealt), (_ruling("IRR-5", text, Severity.CORRECT),)
    text = "Extra card: return it to the deck as the burn card; do not burn again before the flop."
    hand = _evolve(hand, burn_ready=True, burn_card=card, burns=hand.burns + (card,))
    return hand, (_ruling("IRR-5", text, Severity.CORRECT),)


def _premature(hand: HandProgress, card: Card) -> tuple[HandProgress, tuple[Effect, ...]]:
    """BOARD-4: a card turned before the betting round is complete is not used."""
    game = hand.game
    nxt = game.street + 1
    if nxt >= len(game.config.variant.game.streets):
        text = (
            f"No card comes after the {_street_name(hand, game.street)}: {_show(card)} is not used. "
            "Put it with the burn cards, unseen, and finish the betting."
        )
        return _evolve(hand, burns=hand.burns + (card,)), (_ruling("BOARD-4", text, Severity.CORRECT),)
    if not hand.premature and hand.premature_street != nxt and not hand.burned_round:
        # The first card out early is the burn: it stays the burn card.
        hand = _evolve(hand, burns=hand.burns + (card,), burned_round=True, premature_street=nxt)
        text = "A card was burned before the betting is over: it stays the burn card. Finish the betting."
        return hand, (_ruling("BOARD-4", text, Severity.CORRECT),)
    hand = _evolve(hand, premature=hand.premature + (card,), premature_street=nxt)
    text = (
        f"Premature {_street_name(hand, nxt)}: {_show(card)} is not used, even if players fold; "
        "nobody may accept or reject it. Finish the betting first."
    )
    return hand, (_ruling("BOARD-4", text, Severity.CORRECT),)


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


def _commit_board(hand: HandProgress) -> tuple[HandProgress, tuple[Effect, ...]]:
    action = DealBoard(hand.board_pending)
    burned = hand.burned_round and not hand.burn_ready and not hand.no_burn_next and bool(hand.burns)
    hand = _apply(hand, action)
    hand = _evolve(
        hand,
        round_burn=hand.burns[-1] if burned else None,
        board_pending=(),
        burned_round=False,
        burn_ready=False,
        burn_card=None,
        no_burn_next=False,
    )
    return _after_game_change(hand, [Applied(action)])


def _after_game_change(hand: HandProgress, effects: list[Effect]) -> tuple[HandProgress, tuple[Effect, ...]]:
    """Between rounds: settle premature cards (BOARD-2, BOARD-5) and prompt the next step."""
    game = hand.game
    if game.phase is Phase.DEALING_BOARD and hand.reshuffle_after_round:
        text = (
            "Reshuffle the stub with the card taken out of play (not the burn cards or discards), "
            f"cut, and deal the {_street_name(hand, game.street)} without burning."
        )
        hand = _evolve(hand, reshuffle_after_round=False, no_burn_next=True)
        hand = _evolve(hand, pending=Pending("reshuffle", "BOARD-5", text))
        effects.append(_ruling("BOARD-5", text, Severity.CORRECT, True))
        return hand, tuple(effects)
    if game.phase is Phase.DEALING_BOARD and hand.premature and hand.premature_street <= game.street:
        returned = hand.premature
        street_index = hand.premature_street
        hand = _evolve(hand, premature=(), premature_street=-1, dealt=hand.dealt - set(returned))
        shown = _cards(c for c in returned if c != UNKNOWN_CARD) or "the premature cards"
        if street_index == 1:
            # BOARD-2: a premature flop is redealt from a reshuffled stub, the burn staying.
            text = (
                f"Mix the premature flop ({shown}) with the stub (the burn card stays on the table), "
                "shuffle, cut, and deal a new flop without burning."
            )
            hand = _evolve(hand, no_burn_next=True, burned_round=False, burn_ready=False, burn_card=None)
            hand = _evolve(hand, pending=Pending("reshuffle", "BOARD-2", text))
            effects.append(_ruling("BOARD-2", text, Severity.CORRECT, True))
            return hand, tuple(effects)
        last = street_index == len(game.config.variant.game.streets) - 1
        if last:
            text = (
                f"Premature river ({shown}): reshuffle the stub with it (not the burn cards or discards), "
                "cut, and deal the river without burning."
            )
            hand = _evolve(hand, no_burn_next=True, burned_round=False)
            hand = _evolve(hand, pending=Pending("reshuffle", "BOARD-5", text))
            effects.append(_ruling("BOARD-5", text, Severity.CORRECT, True))
            return hand, tuple(effects)
        # BOARD-5: burn and deal what would have been the next card in its place; reshuffle after.
        text = (
            f"Premature {_street_name(hand, street_index)} ({shown}) set aside: burn and deal the next "
            f"card as the {_street_name(hand, street_index)}; after this round the stub is reshuffled "
            "with the card set aside for the last card."
        )
        hand = _evolve(hand, burned_round=False, reshuffle_after_round=True)
        effects.append(_ruling("BOARD-5", text, Severity.CORRECT))
    if game.phase is not Phase.COMPLETE:
        effects.append(prompt_for(hand))
    return hand, tuple(effects)


# -- what the camera saw --------------------------------------------------------------------------


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
    if event.face_up and (holder is None or holder == position):
        if _hole_phase(hand) or _deal_just_done(hand):
            if holder is None and card is not None:
                return hand, ()  # a card this hand has not dealt: nothing the procedure can place
            return _exposed(hand, seat, card, "dealer", rules)
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


def _deal_index(hand: HandProgress, position: int, card: Card | None) -> int | None:
    """Which card of the deal (0 = the first dealt) this is."""
    if card is None or card not in hand.hole[position]:
        return None
    return hand.hole[position].index(card) * hand.n + position


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
    return _misdeal(
        hand, "MD-f", f"{card_str(card)} was dealt out of sequence (to seat {went}, not seat {meant})", rules
    )


def _seen_in_burn(
    hand: HandProgress, event: CardSeen, rules: HouseRules
) -> tuple[HandProgress, tuple[Effect, ...]]:
    card = event.card
    if event.face_up:
        text = "Nobody may see a burn card: turn it face down and keep it apart from the discards."
        return hand, (_ruling("DEAL-3", text, Severity.CORRECT),)
    if _hole_phase(hand):
        owner = _holder(hand, card)
        whose = f"seat {hand.seat(owner)}" if owner is not None else "the seat it was dealt for"
        text = f"No burn before the hole cards: {_show(card)} belongs to {whose}."
        return hand, (_ruling("DEAL-2", text, Severity.CORRECT),)
    if card is None or card == UNKNOWN_CARD:
        return hand, ()
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
        text = (
            f"Two cards burned: {card_str(card)} is not a burn card. Turn it up as the next "
            f"{_street_name(hand, game.street)} card; one burn only."
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
        text = f"Two cards burned before the {name}, found too late: the board stands as dealt."
        return hand, (_ruling("BOARD-3", text, Severity.INFO),)
    early_burn = hand.burned_round and hand.premature_street == street + 1 and not hand.premature
    if _actions_on(hand, street) == 0:
        after = (
            f" {_show(hand.burns[-1])}, dealt after the {name}, is the next burn."
            if early_burn and hand.burns
            else ""
        )
        text = (
            f"Two cards burned, found before the betting on the {name}: correct it. "
            f"Move {card_str(card)} from the burn cards to the board.{after}"
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
    text = (
        f"Two cards burned, found after action on the {name}: the {name} stands as dealt "
        f"({_cards(cards)}). The second burn card {card_str(card)} goes back on the deck as the next "
        f"burn: the {_street_name(hand, street + 1)} is the card that would have come."
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
        text = (
            f"No burn: {card_str(card)} goes to the burn position; "
            f"deal the {_street_name(hand, game.street)} from the next card."
        )
        return hand, (_ruling("BOARD-3", text, Severity.CORRECT), prompt_for(hand))
    if hand.burned_round and hand.burns[-1] == card and hand.premature_street == game.street + 1:
        street = game.street
        if street == 1 and _actions_on(hand, street) == 0 and game.phase is Phase.BETTING:
            return _too_many_flop(hand, card)
        # The card after this round was turned up without a burn: a premature board card.
        hand = _evolve(
            hand,
            burns=hand.burns[:-1],
            burned_round=False,
            premature=(card,),
        )
        text = (
            f"Premature {_street_name(hand, street + 1)}: {card_str(card)} is not used, even if players "
            "fold; nobody may accept or reject it. Finish the betting first."
        )
        return hand, (_ruling("BOARD-4", text, Severity.CORRECT),)
    return _no_burn_found_late(hand, card)


def _no_burn_found_late(hand: HandProgress, card: Card) -> tuple[HandProgress, tuple[Effect, ...]]:
    """BOARD-3: a burn card lies on the board of a round already dealt."""
    game = hand.game
    street = _last_board_street(hand)
    if street != 0 and card != hand.round_burn and card in hand.burns:
        # The missed burn belongs to an earlier round: later rounds have been dealt and acted
        # on since, so every card stands as it lies (000 section 4 rule 2: once action has been
        # taken on a board card, it must stand); the floor reviews the hand.
        text = (
            f"{card_str(card)} was burned for an earlier round but lies on the board: found after "
            "action on later rounds, the board stands as dealt. Call the floor."
        )
        return hand, (_ruling("BOARD-3", text, Severity.FLOOR),)
    if street == 0 or card != hand.round_burn:
        return hand, ()
    start, end = _street_bounds(hand, street)
    round_cards = game.board[start:end]
    name = _street_name(hand, street)
    burn_at = hand.burns.index(card)
    if _actions_on(hand, street) == 0:
        text = (
            f"No burn before the {name}, found before the betting: {card_str(card)} goes to the burn "
            f"position; the {name} is {_cards(round_cards)}: put those cards on the board."
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
    text = (
        f"No burn before the {name}, found after action: the {name} stands as dealt "
        f"({_cards(cards)}); {card_str(round_cards[-1])} is out of play. "
        "Burn and deal the next round as usual."
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
    text = (
        f"Too many cards on the flop ({_cards(flop + (card,))}): it is redealt, even if the extra "
        "card is known. Mix the board cards with the stub, keep the burn card on the table, shuffle, "
        "cut, and deal a new flop without burning."
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


def _exposed(
    hand: HandProgress, seat: int | None, card: Card | None, by: str, rules: HouseRules
) -> tuple[HandProgress, tuple[Effect, ...]]:
    """An exposed hole card (MD-a, MD-b, MD-3, IRR-6, IRR-7)."""
    position = hand.position(seat)
    if by == "player":
        return hand, (_ruling("IRR-7", f"A card flashed by a player plays (seat {seat}).", Severity.INFO),)
    just_dealt = _deal_just_done(hand)
    if not (_hole_phase(hand) or just_dealt):
        text = f"Seat {seat}'s card is exposed after the deal: it plays; the hand goes on."
        return hand, (_ruling("IRR-7", text, Severity.INFO),)
    held = hand.hole[position]
    shown = card if card is not None else (held[-1] if held else None)
    if shown is None:
        raise Refused("INPUT", f"seat {seat} has no card yet: which card was exposed?")
    if shown not in held:
        raise Refused("INPUT", f"{_show(shown)} was not dealt to seat {seat}: check the seat and the card")
    if any(p == position and c == shown for p, c in hand.exposed):
        return hand, ()  # already ruled on (the camera and the dealer both reported it)
    hand = _evolve(hand, exposed=hand.exposed + ((position, shown),))
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
    text = (
        f"Exposed card {_show(shown)} at seat {seat}: the deal goes on; it may not be kept. After the "
        "deal, replace it with the top card; the exposed card becomes the burn card."
    )
    return hand, (_ruling("IRR-6", text, Severity.CORRECT),)


def _kill(hand: HandProgress, position: int, rule: str, text: str) -> tuple[HandProgress, tuple[Effect, ...]]:
    if hand.game.phase in (Phase.DEALING_HOLE, Phase.COMPLETE) or hand.game.folded[position]:
        return hand, (_ruling(rule, text, Severity.INFO),)
    action = Kill(position, rule)
    hand = _apply(hand, action)
    return _after_game_change(hand, [_ruling(rule, text, Severity.CORRECT), Applied(action)])


def kill_hand(hand: HandProgress, seat: int, rule: str, by: str) -> tuple[HandProgress, tuple[Effect, ...]]:
    """A floor ruling: the hand at ``seat`` is dead."""
    position = hand.position(seat)
    if hand.game.folded[position]:
        raise Refused("INPUT", f"seat {seat} has no live hand")
    if hand.game.phase is Phase.DEALING_HOLE:
        raise Refused("INPUT", f"the deal is not complete: seat {seat}'s hand cannot be killed yet")
    return _kill(hand, position, rule, f"Seat {seat}'s hand is dead by the floor ({by}).")


def short_call(
    hand: HandProgress, seat: int, amount: int, decision: str, by: str
) -> tuple[HandProgress, tuple[Effect, ...]]:
    """BOARD-6, a floor ruling: seat put in ``amount`` too little and let the next round be dealt.

    ``decision`` "make_good": they plainly meant to call, so they put in what is short; the
    controller already counted the call, so its ledger does not change. "dead": they did not call;
    once action is taken on the new round their hand is dead, and the chips they never put in
    are theirs again (the ledger had them in the pot).
    """
    position = hand.position(seat)
    game = hand.game
    if game.folded[position]:
        raise Refused("INPUT", f"seat {seat} has no live hand")
    if game.phase in (Phase.DEALING_HOLE, Phase.COMPLETE) or game.street == 0:
        raise Refused("BOARD-6", "BOARD-6 is about a bet not called before the next round was dealt")
    earlier = game.contributed[position] - game.bets[position]
    if amount <= 0 or amount > earlier:
        raise Refused(
            "BOARD-6",
            f"seat {seat} put {earlier:,} in on earlier rounds: the amount short is 1 to {earlier:,}",
        )
    if decision == "make_good":
        text = (
            f"Seat {seat} plainly meant to call: they put in the {amount:,} short and the hand "
            f"is live (floor: {by})."
        )
        return hand, (_ruling("BOARD-6", text, Severity.CORRECT),)
    if decision != "dead":
        raise Refused("INPUT", "a BOARD-6 ruling decides 'make_good' or 'dead'")
    if not any(_actions_on(hand, s) for s in range(1, game.street + 1)):
        raise Refused(
            "BOARD-6",
            f"no action yet on the new round: seat {seat} may still call the {amount:,} short",
        )
    hand = _apply(hand, Refund(position, amount))
    action = Kill(position, "BOARD-6")
    hand = _apply(hand, action)
    text = (
        f"Seat {seat} did not call and let the next round be dealt: the hand is dead; the {amount:,} "
        f"never put in stays with them (floor: {by})."
    )
    return _after_game_change(hand, [_ruling("BOARD-6", text, Severity.CORRECT), Applied(action)])


# -- the dealer's panel ---------------------------------------------------------------------------

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
        return _dealer_misdeal(hand, event, rules)
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
    return _betting_input(hand, event)


def _dealer_misdeal(
    hand: HandProgress, event: DealerInput, rules: HouseRules
) -> tuple[HandProgress, tuple[Effect, ...]]:
    """The dealer calls attention to a misdeal cause (MD-a..MD-j) the devices could not see."""
    cause = (event.cause or "").lower().removeprefix("md-")
    if not cause:
        # The panel's misdeal key (a long press) names no cause: the dealer's call, under the
        # cut-off of MD-1; the floor can override it.
        return _misdeal(hand, "MD-1", "the dealer called a misdeal", rules)
    if cause not in _MISDEAL_REASONS:
        raise Refused(
            "MD-1", f"name the misdeal's cause, one of a to j (RULES MD-a..MD-j), not {event.cause!r}"
        )
    rule = f"MD-{cause}"
    why = _MISDEAL_REASONS[cause]
    if event.seat is not None:
        if cause == "i":
            if event.seat in hand.seats_in:
                raise Refused("INPUT", f"seat {event.seat} is entitled to this hand")
        else:
            hand.position(event.seat)
    if misdeal_allowed(hand, rules):
        return _misdeal(hand, rule, why, rules)
    seat = event.seat
    if cause in ("d", "e", "j") and seat is not None:
        # IRR-8: too late for a misdeal; a hand without the proper number of cards is dead.
        position = hand.position(seat)
        _, said = _misdeal(hand, rule, why, rules)
        if hand.game.folded[position]:
            return hand, said
        hand, effects = _kill(
            hand, position, "IRR-8", f"Seat {seat} has not the proper number of cards: the hand is dead."
        )
        return hand, said + effects
    after = {
        "g": " The floor corrects the button for the next hand (TBL-1).",
        "i": f" The cards at seat {seat} are dead: take them in." if seat is not None else "",
        "h": " The cards play as dealt.",
        "f": " The cards play as dealt.",
    }.get(cause, "")
    return _misdeal(hand, rule, why, rules, after)


def _betting_input(hand: HandProgress, event: DealerInput) -> tuple[HandProgress, tuple[Effect, ...]]:
    game = hand.game
    if game.phase is not Phase.BETTING:
        where = "the deal is not complete" if _hole_phase(hand) else f"the hand is at {game.phase.value}"
        raise Refused("BET-14", f"no betting now: {where}")
    position = hand.position(event.seat)
    if game.folded[position]:
        raise Refused("INPUT", f"seat {event.seat} has folded: no action from that seat")
    actor = game.actor
    assert actor is not None  # betting with nobody to act is the next phase: refused above
    if position != actor:
        if game.stacks[position] == 0:
            raise Refused("INPUT", f"seat {event.seat} is all-in: no action from that seat")
        raise Refused("BET-14", f"action is on seat {hand.seat(actor)}, not seat {event.seat}: out of turn")
    call_amount = call_cost(game, position)  # legal() would also work out the raises
    effects: list[Effect] = []
    action: Action
    key = event.key
    if key is DealerKey.FOLD:
        action = Fold(position)
    elif key is DealerKey.CHECK:
        if call_amount:
            raise Refused("INPUT", f"seat {event.seat} faces {call_amount:,} to call: call, raise or fold")
        action = CheckCall(position)
    elif key is DealerKey.CALL:
        action = CheckCall(position)
    elif key is DealerKey.ALL_IN:
        options = legal(game)
        assert options is not None
        action = BetRaise(position, options.max_raise_to) if options.can_raise else CheckCall(position)
    elif key is DealerKey.BET:
        if event.amount is None:
            raise Refused("INPUT", "a bet needs an amount")
        try:
            reading = read_wager(game, position, event.amount)
        except RuleViolation as exc:
            raise Refused(exc.rule, exc.message) from None
        action = reading.action
        if reading.rule is not None:
            effects.append(_ruling(reading.rule, reading.note, Severity.CORRECT))
    else:
        raise Refused("INPUT", f"{key.value} is not a betting action")
    after = _run(game, action)
    chips_in = after.stacks[position] < game.stacks[position] or (
        isinstance(action, CheckCall) and call_amount > 0
    )
    street_actions = list(hand.street_actions)
    street_actions[game.street] += 1
    hand = _evolve(
        hand,
        game=after,
        log=hand.log + (action,),
        actions=hand.actions + 1,
        chip_actions=hand.chip_actions + (1 if chips_in else 0),
        acted=hand.acted if position in hand.acted else hand.acted + (position,),
        street_actions=tuple(street_actions),
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
        if UNKNOWN_CARD in cards:
            raise Refused(
                "POT-4", f"the reader did not identify seat {event.seat}'s cards: enter the cards shown"
            )
        action = Show(position, tuple(cards))
    hand = _apply(hand, action)
    effects.append(Applied(action))
    return hand, tuple(effects)


def _plays_the_board(game: HandState, position: int) -> bool:
    board = game.board
    hole = game.hole[position]
    if len(board) != 5 or UNKNOWN_CARD in hole:
        return False
    return evaluator.evaluate_high(tuple(hole) + tuple(board)) == evaluator.evaluate_high(board)
