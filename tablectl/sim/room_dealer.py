"""The simulated dealer of a demo table: real hands (PHH records) dealt the way a dealer deals,
reading the table's state as a dealer reads the display, with the irregularities a room sees.

The dealer is pure: :meth:`RoomDealer.next_move` looks at the table's state and says what happens
next (a card out of the shoe, a key, a floor command); whoever runs the table carries it out (the
demo's table process on the shoe's pseudo-terminal and the panel's pins, a test on ``step``).
It follows the record where the state allows and deals the rest as a dealer would: a burn card
when the procedure wants one, a replacement for an exposed card, a legal action when the hand
has left its record. A misdeal or a void deals the same record again.

A table of mixed games (HO-13: a rotation, e.g. "PLO / NLH" by orbit) is dealt with
``RoomDealer(deal_for=rotation_script)``: its players stay seated, the table moves the button,
and each hand is a random one of the game the table deals next (no record follows a rotation).
"""

from __future__ import annotations

import enum
import random
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from tablectl.core.cards import Card
from tablectl.core.events import DealerKey, FloorCommand, FloorKind
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
from tablectl.core.game.engine import HandConfig, Phase, legal, showdown_order
from tablectl.core.game.variants import variant_from_code
from tablectl.core.procedure.progress import (
    HandProgress,
    burn_due,
    deal_complete,
    drawing_position,
    next_hole_position,
    next_street_position,
)
from tablectl.core.table import TableConfig, TableState
from tablectl.formats.phh import PhhError, iter_sources, parse_action, parse_phh
from tablectl.sim.phh_table import table_config
from tablectl.sim.players import choose_action, play_random_hand

FLOOR_NAME = "demo floor"  # the `by` of the floor commands that seat each record's players


@dataclass(frozen=True)
class HandScript:
    """One hand as a record tells it: who sits where with what, the cards, the actions.
    Seats are 1..n with the button on seat n (the record's p1 is seat 1)."""

    title: str
    config: TableConfig
    players: dict[int, tuple[str, int]]
    hole: tuple[tuple[Card, ...], ...]  # per position (seat - 1), in the order dealt, draws' too
    board: tuple[Card, ...]
    # (seat, key, amount): a bet's amount to, a discard's count with its cards
    actions: tuple[tuple[int, DealerKey, int | None, tuple[Card, ...]], ...]
    shows: tuple[tuple[int, bool], ...]  # (seat, shows: False for a muck)

    @property
    def known(self) -> frozenset[Card]:
        return frozenset(c for cards in self.hole for c in cards) | frozenset(self.board)


def script_from_actions(
    title: str,
    config: TableConfig,
    players: dict[int, tuple[str, int]],
    actions: list[Action],
    seats: tuple[int, ...] = (),
) -> HandScript:
    """A script of a record's actions; ``seats``: the felt seat of each position (default: the
    record's, position p on seat p + 1 with the button on the last)."""
    hole: list[list[Card]] = [[] for _ in players]

    def seat(player: int) -> int:
        return seats[player] if seats else player + 1

    board: list[Card] = []
    keyed: list[tuple[int, DealerKey, int | None, tuple[Card, ...]]] = []
    shows: list[tuple[int, bool]] = []
    for action in actions:
        if isinstance(action, DealHole):
            hole[action.player].extend(action.cards)
        elif isinstance(action, DealBoard):
            board.extend(action.cards)
        elif isinstance(action, Fold):
            keyed.append((seat(action.player), DealerKey.FOLD, None, ()))
        elif isinstance(action, (CheckCall, BringIn)):  # the call key posts a bring-in (STUD-5)
            keyed.append((seat(action.player), DealerKey.CALL, None, ()))
        elif isinstance(action, BetRaise):
            keyed.append((seat(action.player), DealerKey.BET, action.to, ()))
        elif isinstance(action, Discard):
            cards = tuple(action.cards)
            keyed.append((seat(action.player), DealerKey.DISCARD, len(cards), cards))
        elif isinstance(action, Show):
            shows.append((seat(action.player), action.cards is not None))
        else:
            raise PhhError(f"{title}: cannot deal {action!r} at a table")
    if any(UNKNOWN_CARD in cards for cards in hole):
        raise PhhError(f"{title}: a hole card the record does not name")
    return HandScript(
        title, config, players, tuple(map(tuple, hole)), tuple(board), tuple(keyed), tuple(shows)
    )


def phh_scripts(path: Path, profile: str = "tda") -> Iterator[HandScript]:
    """The hands of ``path`` (a folder of .phh files or a .tar.gz) a table deals, as scripts."""
    for source, text in iter_sources([path]):
        try:
            hand = parse_phh(text, source)
            config = table_config(hand, profile)
            stacks = [int(s) for s in hand.fields["starting_stacks"]]
            names = [str(p) for p in hand.fields.get("players", [])] or [
                f"Player {k + 1}" for k in range(len(stacks))
            ]
            players = {k + 1: (names[k][:40], stacks[k]) for k in range(len(stacks))}
            actions = [parse_action(a) for a in hand.fields["actions"]]
            yield script_from_actions(source.split("/phh/")[-1], config, players, actions)
        except (PhhError, ValueError, KeyError):
            continue


def random_scripts(seed: int, players: int = 6, profile: str = "tda") -> Iterator[HandScript]:
    """Random legal hands, when the shared records are not there."""
    rng = random.Random(seed)
    config = TableConfig(seats=9, game="NT", blinds=(50, 100), profile=profile)
    names = ["Ann", "Bob", "Cy", "Di", "Ed", "Flo", "Gus", "Hal", "Ida"]
    number = 0
    while True:
        number += 1
        hand_config = HandConfig(variant_from_code("NT"), (10_000,) * players, blinds=(50, 100))
        _, actions = play_random_hand(hand_config, rng)
        seated = {k + 1: (names[k], 10_000) for k in range(players)}
        yield script_from_actions(f"random hand {number}", config, seated, actions)


# The players a demo table of mixed games seats (and seats again when one goes broke).
ROTATION_PLAYERS = ("Ann", "Bob", "Cy", "Di", "Ed", "Flo")
ROTATION_STACK = 20_000


def rotation_script(state: TableState, rng: random.Random) -> HandScript:
    """A random hand of the game the table deals next, to the players seated, with the button
    where the table puts it: the deal is found by the table's own (pure) step."""
    from tablectl.core.events import DealerInput  # the sim reads the table as its display does
    from tablectl.core.table import step

    dealt, _ = step(state, DealerInput(DealerKey.NEW_HAND))
    hand = dealt.hand
    if hand is None:  # not dealt (the button to draw for, too few players): nothing to follow
        return HandScript("off the record", state.config, {}, (), (), (), ())
    _, actions = play_random_hand(hand.game.config, rng)
    players = {seat: (s.name, s.stack) for seat in hand.seats_in if (s := state.seat(seat)) is not None}
    code = hand.game.config.variant.code
    return script_from_actions(
        f"random {code} hand {hand.number}", state.config, players, actions, hand.seats_in
    )


class Irregularity(enum.Enum):
    BOXED = "a boxed card"  # IRR-3: a card face up in the deck
    EXPOSED = "an exposed card"  # IRR-6: the dealer flashes a card in the deal
    MISDEAL = "a misdeal"  # MD-1: the dealer calls one (the panel's long press)
    FOREIGN = "a card of the other deck"  # IRR-1: a different back, the hand is void
    # The dealer calls the floor from the dealer's screen (cmd/dealer: room_table.floor_call);
    # a supervisor settles it a few moves later (room_table.floor_answers_call).
    CALLS_FLOOR = "the dealer calls the floor"


SCHEDULE = (
    Irregularity.BOXED,
    Irregularity.EXPOSED,
    Irregularity.MISDEAL,
    Irregularity.FOREIGN,
    Irregularity.CALLS_FLOOR,
)


@dataclass(frozen=True)
class IrregularitySchedule:
    """Every ``every``-th deal (the first included) has one irregularity, taking turns through
    :data:`SCHEDULE` from ``offset``, so that six tables show every kind within a few hands."""

    every: int = 4
    offset: int = 0

    def for_deal(self, deal: int) -> Irregularity | None:
        if self.every <= 0 or deal % self.every:
            return None
        return SCHEDULE[(deal // self.every + self.offset) % len(SCHEDULE)]


@dataclass(frozen=True)
class DrawCard:
    card: Card
    face_up: bool = False  # boxed
    foreign: bool = False  # a tag of the other deck


@dataclass(frozen=True)
class PressKey:
    key: DealerKey
    seat: int | None = None
    amount: int | None = None
    cards: tuple[Card, ...] = ()  # a discard's cards, as the camera sees them go


@dataclass(frozen=True)
class Floor:
    command: FloorCommand


@dataclass(frozen=True)
class CallFloor:
    seat: int | None = None


Move = DrawCard | PressKey | Floor | CallFloor


@dataclass
class RoomDealer:
    scripts: Iterator[HandScript]
    rng: random.Random
    schedule: IrregularitySchedule = field(default_factory=IrregularitySchedule)
    script: HandScript | None = None
    deals: int = 0  # hands started, redeals included
    irregularity: Irregularity | None = None  # this deal's, until it is done
    _hole: list[deque[Card]] = field(default_factory=list)
    _board: deque[Card] = field(default_factory=deque)
    _actions: deque[tuple[int, DealerKey, int | None, tuple[Card, ...]]] = field(default_factory=deque)
    _shows: deque[tuple[int, bool]] = field(default_factory=deque)
    _hand_number: int | None = None
    _last_position: int | None = None
    _deal_again: bool = False
    _picked_after: int | None = None  # the hand number the current script was picked after
    _button_placed = False
    # A table of mixed games: the script of each deal from the table's state (rotation_script);
    # the players stay seated and the table moves the button.
    deal_for: Callable[[TableState, random.Random], HandScript] | None = None

    def next_move(self, state: TableState, at: float = 0.0) -> Move:
        hand = state.hand
        if hand is None:
            return self._between_hands(state, at)
        if self._hand_number != hand.number:
            self._start_deal(hand.number)
        if hand.pending is not None:
            if hand.pending.kind in ("misdeal", "void"):
                self._deal_again = True  # the same record, once the table has ended this deal
            return PressKey(DealerKey.CONFIRM)
        irregular = self._irregular(hand)
        if irregular is not None:
            return irregular
        game = hand.game
        if not deal_complete(hand) or game.phase is Phase.DEALING_HOLE and not game.street:
            position = next_hole_position(hand)
            self._last_position = position
            return DrawCard(self._next_hole_card(hand, position))
        if game.phase is Phase.DEALING_HOLE:  # a later stud street: its burn, then a card each
            street_position = next_street_position(hand)
            if burn_due(hand) or street_position is None or hand.community_next or hand.bury_owed:
                return DrawCard(self._unseen(hand))  # the burn, a card to bury, HO-3's common card
            return DrawCard(self._next_hole_card(hand, street_position))
        if game.phase is Phase.DRAWING:
            return self._drawing(hand)
        if game.phase is Phase.BETTING and game.actor is not None:
            return self._betting(hand)
        if game.phase is Phase.DEALING_BOARD:
            if not (hand.burned_round or hand.burn_ready or hand.no_burn_next):
                return DrawCard(self._unseen(hand))  # DEAL-2: the burn card
            return DrawCard(self._board.popleft() if self._board else self._unseen(hand))
        if game.phase is Phase.SHOWDOWN:
            order = [p for p in showdown_order(game) if game.shown[p] is None and not game.mucked[p]]
            seat = hand.seat(order[0])
            shows = True
            if self._shows and self._shows[0][0] == seat:
                shows = self._shows.popleft()[1]
            else:
                self._shows.clear()  # off the record: show every hand
            return PressKey(DealerKey.SHOW if shows else DealerKey.MUCK, seat=seat)
        return PressKey(DealerKey.CONFIRM)

    # -- between hands --------------------------------------------------------------------------

    def _between_hands(self, state: TableState, at: float) -> Move:
        if self.deal_for is not None:
            return self._between_rotation_hands(state, at)
        if self._picked_after != state.hand_number:
            self._picked_after = state.hand_number
            if self.script is None or not self._deal_again:
                self.script = next(self.scripts)
            self._button_placed = self._deal_again  # a redeal keeps the button (MD-2)
        script = self.script
        assert script is not None
        for number in range(1, len(state.seats) + 1):
            seated = state.seat(number)
            wanted = script.players.get(number)
            if seated is not None and (wanted is None or (seated.name, seated.stack) != wanted):
                return Floor(FloorCommand(FloorKind.REMOVE_PLAYER, FLOOR_NAME, seat=number, at=at))
            if seated is None and wanted is not None:
                name, stack = wanted
                return Floor(
                    FloorCommand(
                        FloorKind.SEAT_PLAYER, FLOOR_NAME, seat=number, name=name, amount=stack, at=at
                    )
                )
        if not self._button_placed:  # on the record's last seat: else the table moves it on (TBL-1)
            self._button_placed = True
            return Floor(FloorCommand(FloorKind.MOVE_BUTTON, FLOOR_NAME, seat=len(script.players), at=at))
        return PressKey(DealerKey.NEW_HAND)

    def _between_rotation_hands(self, state: TableState, at: float) -> Move:
        """Seat the players (again, once broke), place the first button, then deal the next hand."""
        for number, name in enumerate(ROTATION_PLAYERS[: len(state.seats)], start=1):
            seated = state.seat(number)
            if seated is not None and seated.stack == 0:
                return Floor(FloorCommand(FloorKind.REMOVE_PLAYER, FLOOR_NAME, seat=number, at=at))
            if seated is None:
                return Floor(
                    FloorCommand(
                        FloorKind.SEAT_PLAYER,
                        FLOOR_NAME,
                        seat=number,
                        name=name,
                        amount=ROTATION_STACK,
                        at=at,
                    )
                )
        if state.button is None:
            return Floor(FloorCommand(FloorKind.MOVE_BUTTON, FLOOR_NAME, seat=1, at=at))
        if self._picked_after != state.hand_number:
            self._picked_after = state.hand_number
            if self.script is None or not self._deal_again:
                assert self.deal_for is not None
                self.script = self.deal_for(state, self.rng)
        return PressKey(DealerKey.NEW_HAND)

    def _start_deal(self, number: int) -> None:
        assert self.script is not None
        script = self.script
        self._hand_number = number
        self._deal_again = False
        self._hole = [deque(cards) for cards in script.hole]
        self._board = deque(script.board)
        self._actions = deque(script.actions)
        self._shows = deque(script.shows)
        self.irregularity = self.schedule.for_deal(self.deals)
        self.deals += 1

    # -- in the hand ----------------------------------------------------------------------------

    def _irregular(self, hand: HandProgress) -> Move | None:
        kind = self.irregularity
        if kind is None or deal_complete(hand):
            return None
        if hand.hole_dealt < hand.n + (1 if kind in (Irregularity.EXPOSED, Irregularity.MISDEAL) else 0):
            return None
        self.irregularity = None
        if kind is Irregularity.BOXED:
            return DrawCard(self._unseen(hand), face_up=True)
        if kind is Irregularity.FOREIGN:
            return DrawCard(self._unseen(hand), foreign=True)
        if kind is Irregularity.MISDEAL:
            return PressKey(DealerKey.MISDEAL)
        position = self._last_position if self._last_position is not None else 0
        if kind is Irregularity.EXPOSED:  # the card just dealt, its second or later: IRR-6
            return PressKey(DealerKey.CARD_FLASHED, seat=hand.seat(position))
        return CallFloor(hand.seat(position))

    def _next_hole_card(self, hand: HandProgress, position: int) -> Card:
        cards = self._hole[position] if position < len(self._hole) else deque()
        card = cards.popleft() if cards else None
        # Not a card out already: the record's own reshuffle at a draw (HO-9) may differ from the
        # table's, which shuffles back only the discards the rule gives back.
        return card if card is not None and card not in hand.dealt else self._unseen(hand)

    def _drawing(self, hand: HandProgress) -> Move:
        """A draw (DRAW-5, HO-7): each player in turn says how many, then gets them after the burn."""
        game = hand.game
        position = drawing_position(hand)
        if position is not None:
            if burn_due(hand):
                return DrawCard(self._unseen(hand))
            return DrawCard(self._next_hole_card(hand, position))
        turn = game.next_to_draw
        assert turn is not None, "a draw with nobody to draw and nobody owed"
        seat = hand.seat(turn)
        if self._actions and self._actions[0][0] == seat and self._actions[0][1] is DealerKey.DISCARD:
            _, _, count, cards = self._actions.popleft()
            held = game.hole[turn]
            if all(c == UNKNOWN_CARD or c in held for c in cards):  # not when a ruling changed the hand
                return PressKey(DealerKey.DISCARD, seat=seat, amount=count, cards=cards)
        self._actions.clear()  # off the record (a ruling changed the hand): stand pat, play on
        return PressKey(DealerKey.DISCARD, seat=seat, amount=0)

    def _betting(self, hand: HandProgress) -> Move:
        game = hand.game
        assert game.actor is not None
        seat = hand.seat(game.actor)
        if self._actions and self._actions[0][0] == seat and self._actions[0][1] is not DealerKey.DISCARD:
            _, key, amount, _ = self._actions.popleft()
            if key is DealerKey.CALL and not game.bringing_in:
                options = legal(game)
                key = DealerKey.CALL if options is not None and options.call_amount else DealerKey.CHECK
            return PressKey(key, seat=seat, amount=amount)
        self._actions.clear()  # off the record (a ruling changed the hand): play on legally
        action = choose_action(game, self.rng)
        if isinstance(action, BringIn):
            return PressKey(DealerKey.CALL, seat=seat)  # the call key posts it (STUD-5)
        if isinstance(action, Fold):
            return PressKey(DealerKey.FOLD, seat=seat)
        if isinstance(action, BetRaise):
            return PressKey(DealerKey.BET, seat=seat, amount=action.to)
        options = legal(game)
        return PressKey(DealerKey.CALL if options and options.call_amount else DealerKey.CHECK, seat=seat)

    def _unseen(self, hand: HandProgress) -> Card:
        assert self.script is not None
        taken = self.script.known | hand.dealt
        left = [c for c in range(52) if c not in taken] or [c for c in range(52) if c not in hand.dealt]
        return self.rng.choice(left) if left else self.rng.randrange(52)
