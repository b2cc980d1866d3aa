"""Where the deal stands: the hand's record and the questions every part of the procedure asks.

``HandProgress`` and what it carries (``Pending``, ``Refund``), ``Refused``, ``new_hand``, the copier
every event goes through (``_evolve``), and the queries: whose card is next and whether the deal is
complete (DEAL-1, with the card a boxed card's seat is owed, IRR-3), whether a misdeal may still be
called (MD-1), which card of the deal a hole card was, and which street a board card belongs to.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import NamedTuple

from tablectl.core.cards import Card
from tablectl.core.effects import Ruling, Severity
from tablectl.core.events import DealerInput
from tablectl.core.game.actions import UNKNOWN_CARD, Action, DealHole
from tablectl.core.game.engine import HandState, Phase
from tablectl.core.game.profiles import HouseRules
from tablectl.core.records import copier
from tablectl.core.sentences import Mention, Said, Sentence, render


class Refused(Exception):
    """An event that makes no sense now; carries the ruling that says why."""

    def __init__(self, rule: str, said: Said) -> None:
        super().__init__(f"{rule}: {render(said)}")
        self.ruling = Ruling(rule, said, Severity.REFUSED)


@dataclass(frozen=True, slots=True)
class Pending:
    """A ruling that waits for the dealer's confirmation before it takes effect."""

    kind: str  # "misdeal", "void", "reshuffle"
    rule: str
    said: Said  # the ruling's sentence, the cards it names kept apart (tablectl.core.effects)

    @property
    def text(self) -> str:
        """The whole sentence, every card named: not for a display (see tablectl.views)."""
        return render(self.said)


@dataclass(frozen=True, slots=True)
class Refund:
    """Chips the ledger gives back outside the betting: a call that was never put in (BOARD-6)."""

    player: int
    amount: int
    rule: str = "BOARD-6"


@dataclass(frozen=True, slots=True)
class FirstToAct:
    """The betting goes on from ``player`` as if he were first to act this round: at stud his action
    out of turn was established by the next player acting behind him (STUD-10, 002 action out of
    turn). The engine knows no such thing: the ledger moves the turn itself."""

    player: int
    rule: str = "STUD-10"


@dataclass(frozen=True, slots=True)
class Forfeit:
    """Chips a player leaves in the pot outside a wager: a bet made in the dark that a bet overtook
    stays in the pot when he folds (DRAW-6, 002 action out of turn)."""

    player: int
    amount: int
    rule: str = "DRAW-6"


class DarkAction(NamedTuple):
    """Draw: an action taken in the dark at the draw, for the betting round after it (DRAW-6)."""

    player: int
    street: int  # the betting round it is for
    bet: int | None  # the chips bet; None: a check


LogEntry = Action | Refund | FirstToAct | Forfeit


class LastAction(NamedTuple):
    """The last betting action of the hand, for the displays: position, what they did
    ("fold", "check", "call", "bet", "raise", "dead": killed by a ruling), and the total of
    their bet this round after it (0 for fold, check, dead)."""

    player: int
    verb: str
    amount: int = 0
    all_in: bool = False


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
    # Stud: a down card exposed plays up (HO-4): position, card, and whether the third card was
    # already out face up when it happened (then it stays up).
    turned_up: tuple[tuple[int, Card, bool], ...] = ()
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
    street_burn: Card | None = None  # the burn before the stud street or draw last dealt (STUD-13, DRAW-7)
    bury_owed: int = 0  # stud: cards to bury before the street, after premature cards (STUD-12)
    stub: int = 52  # cards still in the deck, the bottom card included (STUD-14, HO-3, HO-9)
    community_next: bool = False  # stud: the street is one card face up for all (HO-3)
    recycled: int = 0  # draw: discards already shuffled back into the deck (HO-9)
    late_draws: tuple[int, ...] = ()  # draw: positions whose exposed card is replaced last (HO-8)
    reshuffle_after_round: bool = False  # BOARD-5: reshuffle for the river after this round
    acted: tuple[int, ...] = ()  # positions that acted voluntarily (MD-1)
    actions: int = 0  # voluntary actions in turn (MD-1, tda substantial action)
    chip_actions: int = 0  # of which put chips in
    street_actions: tuple[int, ...] = ()  # voluntary actions on each street (BOARD-3, BOARD-6)
    pending: Pending | None = None
    # Stud: an action keyed out of turn by a player who thought he was first to act, held until the
    # next player acts behind him (then it stands) or the player in turn acts first (STUD-10).
    out_of_turn: DealerInput | None = None
    dark: tuple[DarkAction, ...] = ()  # draw: actions in the dark, each applied in its turn (DRAW-6)
    # Stud/8: the position that posted the action button's completion, until it acts on third street
    # (STUD-18: the post stands as the raise of the bring-in).
    action_button: int | None = None
    last_draw: Card | None = None  # the card last drawn, for a camera's confirmation
    start: HandState | None = None  # the game as the blinds were posted: the log replays from it
    log: tuple[LogEntry, ...] = ()  # every action given to the engine, in order (TBL-5)
    last_action: LastAction | None = None  # the last fold, check, call, bet or raise (displays)

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


_evolve = copier(HandProgress)  # every event makes one or two copies


def _cards(cards: Iterable[Card]) -> Sentence:
    """Cards named one after the other ("Kh 7c 2d"), each kept apart for the views to name."""
    parts: list[str | Mention] = []
    for card in cards:
        parts.extend((" ", Mention(card)) if parts else (Mention(card),))
    return tuple(parts)


def _show(card: Card | None) -> str | Mention:
    return Mention(card) if card is not None and card != UNKNOWN_CARD else "a card"


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


def next_street_position(hand: HandProgress) -> int | None:
    """Who gets the next card of a stud street: the first player still in, from the dealer's left,
    who has not had it (STUD-3); None when the street is not being dealt."""
    game = hand.game
    if game.phase is not Phase.DEALING_HOLE or not game.street:
        return None
    for position in range(hand.n):
        if game.cards_due(position) > 0:
            return position
    return None


def showing(hand: HandProgress, position: int) -> tuple[Card, ...]:
    """Stud: ``position``'s up cards, face up on the table for all (STUD-1): the engine's once it
    has the hand, else those of the first deal so far by the deal's order; () in other games."""
    game = hand.game
    if not game.up:
        return ()
    if game.hole[position] or game.phase is not Phase.DEALING_HOLE or game.street:
        return game.up[position]
    flags = first_deal_up_flags(hand, position) or game.config.variant.game.cards_up_in_order
    return tuple(card for card, up in zip(hand.hole[position], flags, strict=False) if up)


def burn_due(hand: HandProgress) -> bool:
    """The next card is a burn: nothing lies as the burn already (IRR-5, IRR-6) and no reshuffle
    said to deal without one (BOARD-2, BOARD-5)."""
    return not (hand.burned_round or hand.burn_ready or hand.no_burn_next)


def drawing_position(hand: HandProgress) -> int | None:
    """At a draw, the player who declared and is still owed replacements (HO-7: one at a time);
    a card exposed in the draw is replaced once everyone else has drawn (HO-8)."""
    game = hand.game
    if game.phase is not Phase.DRAWING:
        return None
    for position, owed in enumerate(game.to_draw):
        if owed > 0 and position not in hand.late_draws:
            return position
    if game.next_to_draw is None:
        for position in hand.late_draws:
            if game.to_draw[position] > 0:
                return position
    return None


def card_is_up(hand: HandProgress, position: int) -> bool:
    """Stud: the next card ``position`` is dealt goes face up (STUD-1: the third to the sixth)."""
    layout = hand.game.config.variant.game.cards_up_in_order
    have = len(hand.game.hole[position]) if hand.game.street else len(hand.hole[position])
    if not hand.game.street and have == 2 and any(p == position for p, _, _ in hand.turned_up):
        return False  # HO-4: a down card was exposed, so the third card goes down
    return have < len(layout) and layout[have]


def first_deal_up_flags(hand: HandProgress, position: int) -> tuple[bool, ...] | None:
    """Stud: which of ``position``'s first cards lie face up when an exposed down card changed
    them (HO-4: it plays up and the third card goes down, or stays up if already dealt); None:
    as the streets declare."""
    for p, card, third_up in hand.turned_up:
        if p == position:
            return tuple(c == card or (k == 2 and third_up) for k, c in enumerate(hand.hole[position]))
    return None


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


def _deal_index(hand: HandProgress, position: int, card: Card | None) -> int | None:
    """Which card of the deal (0 = the first dealt) this is."""
    if card is None or card not in hand.hole[position]:
        return None
    return hand.hole[position].index(card) * hand.n + position
