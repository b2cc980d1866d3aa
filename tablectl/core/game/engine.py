"""The hand state machine (layer 2): betting, pots and showdown, pure.

``start_hand(config)`` posts the antes and blinds (stud: the antes; the bring-in is the first
action, STUD-5); ``apply(state, action)``
returns the next state or raises :class:`RuleViolation` naming the rule
broken, leaving the state it was given untouched (a state is never changed once made).
``legal(state)`` answers whose turn it is, what they may do and for how much.

Positions: 0 is the first seat left of the button, the button is last; in stud, which has no
button, 0 is the dealer's left, the first seat dealt.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations_with_replacement
from typing import Any, Final

from tablectl.core.cards import Card
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
    Kill,
    Show,
)
from tablectl.core.game.errors import RuleViolation
from tablectl.core.game.pots import Award, award_pots
from tablectl.core.game.profiles import HouseRules, house_rules
from tablectl.core.game.variants import Game, Opener, Structure, Variant
from tablectl.core.sentences import Mention, sentence


class Phase(enum.Enum):
    DEALING_HOLE = "dealing hole cards"
    BETTING = "betting"
    DEALING_BOARD = "dealing the board"
    DRAWING = "drawing"
    SHOWDOWN = "showdown"
    COMPLETE = "complete"


# Module-level names for the phases and structures: the hot path reads them on every action,
# and a global is several times faster to reach than an enum member (Final: a constant to mypyc,
# not a lookup in the module's dict; tablectl/native.py).
DEALING_HOLE: Final = Phase.DEALING_HOLE
BETTING: Final = Phase.BETTING
DEALING_BOARD: Final = Phase.DEALING_BOARD
DRAWING: Final = Phase.DRAWING
SHOWDOWN: Final = Phase.SHOWDOWN
COMPLETE: Final = Phase.COMPLETE
NO_LIMIT: Final = Structure.NO_LIMIT
POT_LIMIT: Final = Structure.POT_LIMIT
FIXED_LIMIT: Final = Structure.FIXED_LIMIT
SPREAD_LIMIT: Final = Structure.SPREAD_LIMIT


class ConfigError(ValueError):
    """A hand that cannot be dealt as configured; the message names the field and the fix."""


@dataclass(frozen=True, slots=True)
class HandConfig:
    """Everything fixed for one hand: the game, the stakes, the players' chips.

    ``blinds`` are the forced blinds and straddles in posting order (small, big,
    straddle), posted from the first seat left of the button onwards; heads-up
    the button posts the small blind (DEAL-4). ``antes`` are per position
    (a big-blind ante is an ante on position 1). Big-bet games take their
    minimum bet from ``min_bet`` (default: the big blind); fixed-limit games use
    ``small_bet`` on the first two rounds and ``big_bet`` on the last two;
    spread-limit games allow any bet or raise from ``min_bet`` to ``spread_max``. Stud and razz
    have no blinds: ``bring_in`` is the forced bet of the lowest (razz: highest) up card, smaller
    than the small bet (STUD-5, STUD-6); their small bet covers third and fourth street (STUD-9).
    """

    variant: Variant
    starting_stacks: tuple[int, ...]
    blinds: tuple[int, ...] = ()
    antes: tuple[int, ...] = ()
    min_bet: int = 0
    small_bet: int = 0
    big_bet: int = 0
    spread_max: int = 0
    bring_in: int = 0
    chip_unit: int = 1
    rules: HouseRules = field(default_factory=house_rules)

    def __post_init__(self) -> None:
        n = len(self.starting_stacks)
        if not 2 <= n <= 23:
            raise ConfigError(f"starting_stacks: a hand needs 2 to 23 players, got {n}")
        if any(not isinstance(s, int) or isinstance(s, bool) or s <= 0 for s in self.starting_stacks):
            raise ConfigError(
                "starting_stacks: every player dealt in needs a whole number of chips > 0 "
                "(leave a player with no chips out of the hand)"
            )
        if len(self.blinds) > n or (n == 2 and len(self.blinds) > 2):
            raise ConfigError(f"blinds: {len(self.blinds)} blinds for {n} players")
        if self.antes and len(self.antes) != n:
            raise ConfigError(f"antes: give one ante per player ({n}), got {len(self.antes)}")
        for name in ("blinds", "antes"):
            if any(not isinstance(v, int) or v < 0 for v in getattr(self, name)):
                raise ConfigError(f"{name}: amounts must be whole numbers of chips >= 0")
        if self.chip_unit < 1:
            raise ConfigError("chip_unit: the smallest chip must be at least 1")
        structure = self.variant.structure
        if structure is FIXED_LIMIT and not (0 < self.small_bet <= self.big_bet):
            raise ConfigError("small_bet, big_bet: fixed-limit needs 0 < small_bet <= big_bet")
        if structure is SPREAD_LIMIT and not (
            0 < self.opening_min <= self.spread_max and max(self.blinds, default=0) <= self.spread_max
        ):
            raise ConfigError(
                "min_bet, spread_max: spread-limit needs 0 < min_bet <= spread_max, "
                "and no blind or straddle above spread_max"
            )
        if self.variant.game.has_button:
            if self.bring_in:
                raise ConfigError("bring_in: only stud and razz have a bring-in; other games post blinds")
        else:
            if self.blinds:
                raise ConfigError("blinds: stud and razz have no blinds: antes and the bring-in open the pot")
            if structure is not FIXED_LIMIT:
                raise ConfigError("variant: stud and razz are dealt at fixed limit (the bring-in, STUD-6)")
            if not 0 < self.bring_in < self.small_bet:
                raise ConfigError("bring_in: stud needs a bring-in > 0 and below the small bet (STUD-6)")
            return
        if not structure.is_limit and self.opening_min <= 0:
            raise ConfigError("min_bet: a big-bet game needs a minimum bet (or a big blind) > 0")

    @property
    def players(self) -> int:
        return len(self.starting_stacks)

    @property
    def opening_min(self) -> int:
        """The smallest bet in a big-bet or spread game (BET-3)."""
        return self.min_bet or max(self.blinds[:2], default=0)

    def bet_size(self, street: int) -> int:
        """Fixed-limit bet for a round (BET-1; STUD-9, with the California option)."""
        game = self.variant.game
        if not game.has_button and street < self.rules.stud_small_bet_rounds:
            return self.small_bet
        return self.big_bet if game.streets[street].big_bet else self.small_bet

    def forced_position(self, k: int) -> int:
        """The position that posts blind number k (heads-up the button posts the small blind)."""
        if self.players == 2:
            return 1 - k
        return k


@dataclass(frozen=True, slots=True)
class Legal:
    """What the player to act may do (RULES BET)."""

    player: int
    can_fold: bool
    can_check: bool
    call_amount: int  # chips to add to call; 0 when checking
    can_raise: bool
    min_raise_to: int  # totals for this round; equal to max when the only raise is all-in
    max_raise_to: int
    why_no_raise: str = ""  # the rule that forbids a raise, when can_raise is False
    bring_in: int = 0  # stud: the bring-in this player must post unless completing (STUD-5); 0 if none


@dataclass(init=False, eq=True, unsafe_hash=True)
class HandState:
    """One moment of a hand. Never changed once made: each action makes a new state (``_copy``),
    sets what the action changes on it and returns it, and nothing changes a state after that.

    A class with a constructor of its own rather than a NamedTuple: a tuple with a few fields
    changed is made by copying every field through a list and a temporary tuple, and that was
    most of an action's time; compiled (tablectl/native.py) the constructor is one direct call.
    The defaults are the constructor's."""

    config: HandConfig
    phase: Phase
    street: int
    stacks: tuple[int, ...]  # chips behind
    bets: tuple[int, ...]  # chips in front of each player this round
    contributed: tuple[int, ...]  # chips put in this hand: own antes and this round's bets included
    dead: int  # an ante posted for the whole table (big-blind ante): dead money for the main pot
    folded: tuple[bool, ...]
    hole: tuple[tuple[Card, ...], ...]
    board: tuple[Card, ...]
    actor: int | None
    high_bet: int  # the total a player must reach to call
    full_raise: int  # the smallest raise increment (the last full bet or raise, BET-4)
    counted_level: int  # the high bet after the last bet or raise that counts (limit raises)
    wagers: int  # bets and raises counted toward a cap this round (forced bet included)
    acted: tuple[int, ...]  # the high bet each player last acted at this round; -1: not yet
    aggressor: int | None  # the last player to bet or raise this round
    shown: tuple[tuple[Card, ...] | None, ...]
    mucked: tuple[bool, ...]
    awards: tuple[Award, ...]
    round_players: int  # players with a live hand when this round started (cap option)
    up: tuple[tuple[Card, ...], ...]  # stud: each player's face-up cards; () in other games
    to_draw: tuple[int, ...]  # at a draw: replacements still owed each player; -1 not drawn yet
    discards: tuple[tuple[Card, ...], ...]  # at a draw: each player's discards (HO-9)
    bringing_in: bool  # the actor owes the bring-in: post it or complete (STUD-5, STUD-6)
    bet_unit: int  # fixed limit: the bet of this round (BET-1, STUD-9)
    bet_unit_option: int  # the big bet a wager may choose instead on an open pair (STUD-9)
    opener: int  # the first to act this round (POT-3: the first to show when all checked)
    # The known cards in the hands and on the board, a bit each (card c: 1 << c): IRR-2's check of a
    # new card is one test, not a search of every hand. Kept by every action that moves a card.
    in_play: int
    # No thirtieth field without need: in CPython 3.11 an object given a thirtieth attribute took
    # about 1.5 times as long to make (the attributes outgrow the class's shared keys), and every
    # action makes one (pure Python: about 15% fewer hands a second). So a premature card kept at
    # stud (STUD-12) is read from the hands (dealt_ahead), not kept in a field.

    def __init__(  # noqa: PLR0913  (one argument a field: a direct constructor call where compiled)
        self,
        config: HandConfig,
        phase: Phase,
        street: int,
        stacks: tuple[int, ...],
        bets: tuple[int, ...],
        contributed: tuple[int, ...],
        dead: int,
        folded: tuple[bool, ...],
        hole: tuple[tuple[Card, ...], ...],
        board: tuple[Card, ...],
        actor: int | None,
        high_bet: int,
        full_raise: int,
        counted_level: int,
        wagers: int,
        acted: tuple[int, ...],
        aggressor: int | None,
        shown: tuple[tuple[Card, ...] | None, ...],
        mucked: tuple[bool, ...],
        awards: tuple[Award, ...] = (),
        round_players: int = 0,
        up: tuple[tuple[Card, ...], ...] = (),
        to_draw: tuple[int, ...] = (),
        discards: tuple[tuple[Card, ...], ...] = (),
        bringing_in: bool = False,
        bet_unit: int = 0,
        bet_unit_option: int = 0,
        opener: int = 0,
        in_play: int = 0,
    ) -> None:
        self.config = config
        self.phase = phase
        self.street = street
        self.stacks = stacks
        self.bets = bets
        self.contributed = contributed
        self.dead = dead
        self.folded = folded
        self.hole = hole
        self.board = board
        self.actor = actor
        self.high_bet = high_bet
        self.full_raise = full_raise
        self.counted_level = counted_level
        self.wagers = wagers
        self.acted = acted
        self.aggressor = aggressor
        self.shown = shown
        self.mucked = mucked
        self.awards = awards
        self.round_players = round_players
        self.up = up
        self.to_draw = to_draw
        self.discards = discards
        self.bringing_in = bringing_in
        self.bet_unit = bet_unit
        self.bet_unit_option = bet_unit_option
        self.opener = opener
        self.in_play = in_play

    # -- questions any display or rule asks --------------------------------------------------
    @property
    def n(self) -> int:
        return len(self.stacks)

    @property
    def pot(self) -> int:
        """All chips in the middle, antes and this round's bets included."""
        return sum(self.contributed) + self.dead

    @property
    def is_complete(self) -> bool:
        return self.phase is COMPLETE

    @property
    def finishing_stacks(self) -> tuple[int, ...]:
        if self.phase is not COMPLETE:
            raise RuleViolation("INPUT", "the hand is not over yet")
        won = [0] * self.n
        for award in self.awards:
            for player, amount in award.shares:
                won[player] += amount
        return tuple(s + w for s, w in zip(self.stacks, won, strict=True))

    @property
    def live(self) -> tuple[int, ...]:
        return tuple(i for i in range(self.n) if not self.folded[i])

    @property
    def board_needed(self) -> int:
        """Board cards still to come before the next betting round."""
        if self.phase is not DEALING_BOARD:
            return 0
        return self.config.variant.game.board_after[self.street] - len(self.board)

    def cards_due(self, player: int) -> int:
        """Cards ``player`` is still to be dealt before the next betting round: hole cards, a stud
        street's card or a draw's replacements (0 once dealt, folded, or not yet drawn)."""
        if self.phase is DRAWING:
            return max(0, self.to_draw[player])
        if self.phase is not DEALING_HOLE or self.folded[player]:
            return 0
        return _hole_target(self) - len(self.hole[player])

    @property
    def next_to_draw(self) -> int | None:
        """At a draw, the player who discards next: from the first still in left of the button,
        the button last (HO-7); None once all have declared."""
        if self.phase is not DRAWING:
            return None
        for i, owed in enumerate(self.to_draw):
            if owed < 0:
                return i
        return None

    @property
    def betting_over(self) -> bool:
        """No more betting can happen this hand (at most one live player has chips)."""
        if self.phase is BETTING:
            return False
        with_chips = sum(1 for i in self.live if self.stacks[i] > 0)
        return with_chips <= 1

    @property
    def hands_face_up(self) -> bool:
        """POT-5: tournament rules turn every live hand up once someone is all-in and betting is over."""
        if not self.config.rules.tournament or len(self.live) < 2:
            return False
        someone_all_in = any(self.stacks[i] == 0 for i in self.live)
        if self.phase is SHOWDOWN:
            return someone_all_in
        # Draw hands stay down until the last draw: shown, they would change the others' draws
        # (ST-7, usual practice; POT-5's wording does not settle it). Stud turns them up.
        return self.is_running_out and someone_all_in and not self.config.variant.game.has_draws

    @property
    def is_running_out(self) -> bool:
        """Cards are still to come but nobody can bet any more: hands may be shown (POT-5)."""
        phase = self.phase
        dealing = phase is DEALING_BOARD or phase is DRAWING or (phase is DEALING_HOLE and self.street > 0)
        return dealing and self.betting_over


# -- starting a hand ---------------------------------------------------------------------------


def start_hand(config: HandConfig) -> HandState:
    """Post antes and blinds (BET-15: a short stack posts what it has) and wait for the deal."""
    n = config.players
    stacks = list(config.starting_stacks)
    contributed = [0] * n
    bets = [0] * n
    dead = 0
    # Antes every player posts are each player's own contribution: an all-in player wins from
    # each opponent only what they put in (POT-1). One ante posted for the table (a big-blind
    # ante) is dead money in the main pot.
    antes = config.antes
    table_ante = bool(antes) and len(antes) - antes.count(0) == 1
    game = config.variant.game
    swap_heads_up = n == 2 and game.has_button  # heads-up the antes swap with the blinds (DEAL-4)
    for pos, ante in enumerate(antes):
        if not ante:
            continue
        k = config.forced_position(pos) if swap_heads_up else pos
        paid = min(ante, stacks[k])
        stacks[k] = stacks[k] - paid  # not -= (a generic call on a list's item, compiled: _apply_betting)
        if table_ante:
            dead += paid
        else:
            contributed[k] = contributed[k] + paid
    for k, blind in enumerate(config.blinds):
        pos = config.forced_position(k)
        paid = min(blind, stacks[pos])
        stacks[pos] = stacks[pos] - paid
        bets[pos] = bets[pos] + paid
        contributed[pos] = contributed[pos] + paid
    # BET-15: the others owe the full blind even when it was posted short.
    high_bet = 0
    for blind in config.blinds:  # max() is a generic call, compiled; this loop is not
        if blind > high_bet:
            high_bet = blind
    structure = config.variant.structure
    # BET-3: the big blind, or a straddle, sets the minimum; fixed limit raises by the bet.
    full_raise = config.bet_size(0) if structure is FIXED_LIMIT else max(config.opening_min, high_bet)
    return HandState(
        config=config,
        phase=DEALING_HOLE,
        street=0,
        stacks=tuple(stacks),
        bets=tuple(bets),
        contributed=tuple(contributed),
        dead=dead,
        folded=(False,) * n,
        hole=_NO_CARDS_EACH[n],
        board=(),
        actor=None,
        high_bet=high_bet,
        full_raise=full_raise,
        counted_level=high_bet,
        wagers=1 if high_bet else 0,
        acted=_NOT_ACTED[n],
        aggressor=None,
        shown=(None,) * n,
        mucked=(False,) * n,
        round_players=n,
        up=_NO_CARDS_EACH[n] if game.cards_up_in_order else (),
        bet_unit=config.bet_size(0) if structure is FIXED_LIMIT else 0,
    )


# -- the legal actions -------------------------------------------------------------------------


def call_cost(state: HandState, i: int) -> int:
    """The chips player ``i`` puts in to call now (all their chips if they have fewer)."""
    return min(state.high_bet - state.bets[i], state.stacks[i])


def legal(state: HandState) -> Legal | None:
    """What the player to act may do, or None when nobody is to act."""
    i = state.actor
    if i is None:
        return None
    all_in_to = state.bets[i] + state.stacks[i]
    if state.bringing_in:
        # STUD-5, STUD-6: the forced bet, or a full small bet at once; no check, no fold.
        owed = min(state.config.bring_in, state.stacks[i])
        complete = min(state.counted_level + state.bet_unit, all_in_to)
        if all_in_to <= owed:
            return Legal(i, False, False, 0, False, 0, 0, "BET-17: no chips beyond the bring-in", owed)
        return Legal(i, False, False, 0, True, complete, complete, "", owed)
    call_amount = call_cost(state, i)
    why = _why_no_raise(state, i, all_in_to)
    if why:
        return Legal(i, True, call_amount == 0, call_amount, False, 0, 0, why)
    min_to, max_to = _raise_range(state, i)
    min_to = min(min_to, all_in_to)
    max_to = min(max_to, all_in_to)
    return Legal(i, True, call_amount == 0, call_amount, True, min_to, max_to)


def _why_no_raise(state: HandState, i: int, all_in_to: int) -> str:
    """The rule that forbids player ``i`` to raise now, or "" when they may."""
    high_bet = state.high_bet
    if all_in_to <= high_bet:
        return "BET-17: no chips left beyond a call"
    stacks = state.stacks
    for k, out in enumerate(state.folded):
        if not out and stacks[k] > 0 and k != i:
            break
    else:
        return "BET-17: every opponent is all-in; nobody could call a raise"
    if state.up and dealt_ahead(state, i) and _bets_a_shorter_hand(state, i):
        held = len(state.hole[i])
        return (
            f"STUD-12: this player kept a premature card and holds {held}: "
            f"no bet or raise against a player with only {held - 1} cards"
        )
    acted = state.acted[i]
    if acted >= 0 and high_bet - acted < _reopen_threshold(state):
        return "BET-5: the betting was not reopened by a full raise since this player acted"
    cfg = state.config
    rules = cfg.rules
    structure = cfg.variant.structure
    if structure is FIXED_LIMIT or structure is SPREAD_LIMIT:
        capped = state.wagers >= rules.limit_cap_bets
        if capped and not (rules.limit_no_cap_heads_up and state.round_players == 2):
            return f"BET-6: the betting is capped at {rules.limit_cap_bets} bets"
    elif rules.big_bet_max_raises is not None and state.wagers >= 1 + rules.big_bet_max_raises:
        return f"BET-2: {rules.big_bet_max_raises} raises at most in a betting round ({rules.profile})"
    return ""


def dealt_ahead(state: HandState, i: int) -> bool:
    """Stud: player ``i`` holds more cards than this street deals, during its betting: a premature
    last down card he took in, which he keeps (STUD-12)."""
    return state.phase is BETTING and len(state.hole[i]) > _hole_target(state)


def _bets_a_shorter_hand(state: HandState, i: int) -> bool:
    """STUD-12: a bet or raise by ``i`` would be made against a player without the card he kept (a
    live opponent with chips to call it: an all-in player is bet by nobody)."""
    stacks, hole = state.stacks, state.hole
    held = len(hole[i])
    for k, out in enumerate(state.folded):
        if not out and k != i and stacks[k] > 0 and len(hole[k]) < held:
            return True
    return False


def _reopen_threshold(state: HandState) -> int:
    """How far the bet must rise past a player's last action to let them raise again (BET-5)."""
    cfg = state.config
    if cfg.variant.structure is FIXED_LIMIT:
        size = state.bet_unit
        return (size + 1) // 2 if cfg.rules.limit_half_bet_reopens else size
    return state.full_raise


def _raise_range(state: HandState, i: int) -> tuple[int, int]:
    cfg = state.config
    structure = cfg.variant.structure
    if structure is FIXED_LIMIT:
        # A raise adds one bet to the last counted level: a short all-in below half a bet is
        # completed, not raised over (002 completing a bet). After a stud bring-in the counted
        # level is 0, so the first wager completes to the small bet (STUD-7). On an open pair the
        # big bet may be chosen instead (STUD-9).
        to = state.counted_level + state.bet_unit
        return to, state.counted_level + (state.bet_unit_option or state.bet_unit)
    min_to = state.high_bet + state.full_raise if state.high_bet else state.full_raise
    if structure is SPREAD_LIMIT:
        return min(min_to, state.high_bet + cfg.spread_max), state.high_bet + cfg.spread_max
    if cfg.rules.whipsaw_half_pot and state.wagers >= 5:
        # BET-8: after a bet and four raises a raise is at least half the pot.
        min_to = max(min_to, state.high_bet + (state.pot + state.high_bet - state.bets[i] + 1) // 2)
    if structure is NO_LIMIT:
        return min_to, state.stacks[i] + state.bets[i]
    # BET-10: the largest raise is the pot after calling.
    pot_after_call = state.pot + state.high_bet - state.bets[i]
    if (
        cfg.rules.pot_limit_small_blind_as_big
        and state.street == 0
        and len(cfg.blinds) >= 2
        and state.acted[cfg.forced_position(1)] < 0
    ):
        # The small blind's chips count as a big blind until the big blind has acted (seed 004);
        # a small blind who is acting has already called up to the big blind above.
        small_blind = cfg.forced_position(0)
        if i != small_blind:
            pot_after_call += max(0, cfg.blinds[1] - state.bets[small_blind])
    unit = cfg.rules.pot_limit_round_to
    if unit:
        pot_after_call = -(-pot_after_call // unit) * unit
    return min_to, max(min_to, state.high_bet + pot_after_call)


# -- applying actions --------------------------------------------------------------------------


def apply(state: HandState, action: Action) -> HandState:
    """The state after ``action``, or :class:`RuleViolation` with ``state`` unchanged."""
    if state.phase is COMPLETE:
        raise RuleViolation("INPUT", "the hand is over; start a new hand")
    # Most common first; a chain of type tests is a direct call each, where compiled (a dict of
    # handlers is a lookup and a call through a Python object).
    if type(action) is DealHole:
        return _deal_hole(state, action)
    if type(action) is CheckCall or type(action) is Fold or type(action) is BetRaise:
        return _apply_betting(state, action)
    if type(action) is Discard:
        return _discard(state, action)
    if type(action) is DealBoard:
        return _deal_board(state, action)
    if type(action) is Show:
        return _show(state, action)
    if type(action) is BringIn:
        return _bring_in(state, action)
    if type(action) is Kill:
        return _kill(state, action)
    raise RuleViolation("INPUT", f"{action!r} is not an action of the hand")


def _check_player(state: HandState, player: int) -> None:
    if type(player) is not int or not 0 <= player < len(state.stacks):
        raise RuleViolation("INPUT", f"there is no player {player!r} in this hand (0..{state.n - 1})")


def _apply_betting(state: HandState, action: Fold | CheckCall | BetRaise) -> HandState:
    i = action.player
    actor = state.actor  # compared as an int once narrowed (int | None: a generic comparison)
    if type(i) is not int or actor is None or i != actor or state.phase is not BETTING or state.bringing_in:
        _check_betting_turn(state, action)  # raises, unless a bring-in is completed
    kind = type(action)
    acted = list(state.acted)
    acted[i] = state.high_bet
    if kind is Fold:
        folded_list = list(state.folded)
        folded_list[i] = True
        new = _copy(state)
        new.folded = folded = tuple(folded_list)
        new.acted = acted_now = tuple(acted)
        nxt = None
        if _live_count(folded) > 1:
            nxt = _first_to_act(folded, state.stacks, state.bets, acted_now, state.high_bet, i + 1)
        if nxt is None:
            return _finish_round(new)
        new.actor = nxt
        return new
    if kind is CheckCall and state.bets[i] == state.high_bet:
        # A check: only who has acted changes.
        new = _copy(state)
        new.acted = acted_now = tuple(acted)
        nxt = _first_to_act(state.folded, state.stacks, state.bets, acted_now, state.high_bet, i + 1)
        if nxt is None:
            return _finish_round(new)
        new.actor = nxt
        return new
    stacks = list(state.stacks)
    bets = list(state.bets)
    contributed = list(state.contributed)
    if kind is CheckCall:
        # A call: chips move; nothing about the round's wagers changes.
        owed = state.high_bet - bets[i]
        paid = owed if owed < stacks[i] else stacks[i]  # all-in for less (min() is slower)
        # x[i] = x[i] - paid rather than x[i] -= paid: compiled, the augmented form on a list's item
        # is a generic number call on boxed ints.
        stacks[i] = stacks[i] - paid
        bets[i] = bets[i] + paid
        contributed[i] = contributed[i] + paid
        return _chips_put_in(_copy(state), i, stacks, bets, contributed, acted, state.high_bet)
    to = action.to  # type: ignore[union-attr]  # a BetRaise: Fold and CheckCall returned above
    if type(to) is not int:
        raise RuleViolation("INPUT", f"a bet must be a whole number of chips, got {to!r}")
    high_bet = state.high_bet
    all_in_to = bets[i] + stacks[i]
    why_not = _why_no_raise(state, i, all_in_to)
    if why_not:
        rule, _, why = why_not.partition(":")
        raise RuleViolation(rule, why.strip())
    min_to, max_to = _raise_range(state, i)
    min_to = min(min_to, all_in_to)
    max_to = min(max_to, all_in_to)
    if to > all_in_to:
        raise RuleViolation(
            "BET-17", f"table stakes: position {i} has only {all_in_to} to bet this round, not {to}"
        )
    if to <= high_bet:
        raise RuleViolation("BET-4", f"a raise must make it more than {high_bet}; {to} is a call")
    if to < min_to and high_bet and to == _deepest_opponent(state, i):
        # POT-2: a raise to all the deepest opponent can call stands for the full raise, whose
        # rest would come back uncalled (a raise that puts the last opponent all-in).
        min_to = to
    if to < min_to:
        rule = "BET-4" if high_bet else "BET-3"
        what = "raise" if high_bet else "bet"
        raise RuleViolation(
            rule, f"the smallest {what} is to {min_to:,}, not {to:,} (all-in is {all_in_to:,})"
        )
    structure = state.config.variant.structure
    if to > max_to:
        rule = {POT_LIMIT: "BET-10"}.get(structure, "BET-1")
        raise RuleViolation(rule, f"the largest {structure.value} bet or raise is to {max_to:,}, not {to:,}")
    new = _copy(state)
    if state.bet_unit_option:
        # STUD-9 open pair: the small or the big bet, nothing between (unless all-in).
        if to != min_to and to != max_to and to != all_in_to:
            raise RuleViolation("STUD-9", f"open pair: a wager is to {min_to:,} or {max_to:,}, not {to:,}")
        if to - state.counted_level == state.bet_unit_option:
            new.bet_unit = state.bet_unit_option
            new.bet_unit_option = 0
    if state.bringing_in:
        new.bringing_in = False  # the bring-in player completes at once (STUD-6)
    increment = to - high_bet
    paid = to - bets[i]
    stacks[i] = stacks[i] - paid  # not -=: see the call above
    bets[i] = to
    contributed[i] = contributed[i] + paid
    new.high_bet = to
    new.aggressor = i
    if _counts_as_raise(state, increment, to, all_in_to):
        if state.wagers == 0 and state.street == 0 and not state.config.variant.game.has_button:
            # STUD-7: the completion is the first bet of the round and reopens the betting: who
            # called the bring-in acts again as if for the first time.
            for j in range(len(acted)):
                if acted[j] >= 0:
                    acted[j] = -1
        new.wagers = state.wagers + 1
        new.counted_level = to
        if structure is not FIXED_LIMIT:
            new.full_raise = max(state.full_raise, increment)
    acted[i] = to
    return _chips_put_in(new, i, stacks, bets, contributed, acted, to)


def _chips_put_in(
    new: HandState,
    i: int,
    stacks: list[int],
    bets: list[int],
    contributed: list[int],
    acted: list[int],
    high_bet: int,
) -> HandState:
    """A call, bet, raise or bring-in by ``i`` set on ``new`` (the action's fresh copy): the chips,
    who has acted; then the next to act, or the round's end."""
    new.stacks = stacks_now = tuple(stacks)
    new.bets = bets_now = tuple(bets)
    new.contributed = tuple(contributed)
    new.acted = acted_now = tuple(acted)
    nxt = None
    if _live_count(new.folded) > 1:
        nxt = _first_to_act(new.folded, stacks_now, bets_now, acted_now, high_bet, i + 1)
    if nxt is None:
        return _finish_round(new)
    new.actor = nxt
    return new


def _check_betting_turn(state: HandState, action: Fold | CheckCall | BetRaise) -> None:
    """Raise the rule a betting action breaks by whose turn it is; a bring-in may be completed."""
    i = action.player
    _check_player(state, i)
    if state.phase is not BETTING:
        raise RuleViolation("BET-14", f"no betting now: the hand is {state.phase.value}")
    if i != state.actor:
        raise RuleViolation("BET-14", f"action out of turn: it is position {state.actor}'s turn, not {i}'s")
    if state.bringing_in and type(action) is not BetRaise:
        raise RuleViolation(
            "STUD-5", f"position {i} has the bring-in: post it or complete to {state.bet_unit:,}"
        )


def _deepest_opponent(state: HandState, i: int) -> int:
    """The most any other live player can have in front of him this round (all-in)."""
    stacks, bets, folded = state.stacks, state.bets, state.folded
    return max((bets[j] + stacks[j] for j in range(len(stacks)) if j != i and not folded[j]), default=0)


def _counts_as_raise(state: HandState, increment: int, to: int, all_in_to: int) -> bool:
    """A full bet or raise (or, at limit, an all-in of half a bet) reopens and counts to the cap."""
    cfg = state.config
    if cfg.variant.structure is FIXED_LIMIT:
        if to == all_in_to and to < state.counted_level + state.bet_unit:
            return increment >= _reopen_threshold(state) and to > state.counted_level
        return True
    if state.high_bet == 0:
        return to >= state.full_raise
    return increment >= state.full_raise


def _first_to_act(
    folded: tuple[bool, ...],
    stacks: tuple[int, ...],
    bets: tuple[int, ...],
    acted: tuple[int, ...],
    high_bet: int,
    start: int,
) -> int | None:
    """The first player from ``start`` clockwise who must still act this round, if any.

    Tuples, not any sequence: compiled, reading a typed tuple is a direct access (a sequence's
    item is a generic lookup through a boxed index)."""
    n = len(stacks)
    with_chips = -1  # live players with chips behind, counted only when needed
    j = start % n
    for _ in range(n):
        if not folded[j] and stacks[j] != 0:
            if bets[j] < high_bet:
                return j
            if acted[j] < 0:
                # Not yet acted and already matched: acts only if someone can still bet against them.
                if with_chips < 0:
                    with_chips = 0
                    for k, out in enumerate(folded):
                        if not out and stacks[k] > 0:
                            with_chips += 1
                            if with_chips == 2:
                                break
                if with_chips >= 2:
                    return j
        j = j + 1 if j + 1 < n else 0
    return None


def _next_to_act(state: HandState, start: int) -> int | None:
    return _first_to_act(state.folded, state.stacks, state.bets, state.acted, state.high_bet, start)


def _finish_round(new: HandState) -> HandState:
    """Close a betting round: return an uncalled bet (POT-2), collect, move on.

    ``new`` is the action's fresh copy, which nobody has seen yet: this and what it calls to open
    the next round or award the pots (_start_round, _award ...) change it in place rather than
    copy it again."""
    bets = new.bets
    folded = new.folded
    n = len(bets)
    # The highest bet, the first to make it, and the highest of the others' (max() and index()
    # are generic calls, compiled; this loop is not).
    top, leader, second = bets[0], 0, -1
    for j in range(1, n):
        bet = bets[j]
        if bet > top:
            top, leader, second = bet, j, top
        elif bet > second:
            second = bet
    new.bets = _ZEROS[n]
    new.actor = None
    if top > second and (not folded[leader] or _all_live_all_in(new)):
        # POT-2: the uncalled part goes back. A folded hand gets it back only when no live
        # hand could have called it (POT-1, a folded blind above an all-in player); a dead
        # hand facing a live player keeps nothing back (000 misdeals 2).
        stacks = list(new.stacks)
        contributed = list(new.contributed)
        stacks[leader] = stacks[leader] + top - second  # not += (_apply_betting)
        contributed[leader] = contributed[leader] - (top - second)
        new.stacks = tuple(stacks)
        new.contributed = tuple(contributed)
    if _live_count(folded) == 1:
        return _award(new)
    streets = new.config.variant.game.streets
    street = new.street + 1
    if street >= len(streets):
        new.phase = SHOWDOWN
        return _maybe_award(new)
    new.street = street
    coming = streets[street]
    if coming.draw:
        # DRAW-4: every hand still in draws, all-in or not.
        new.phase = DRAWING
        new.to_draw = tuple(0 if f else -1 for f in folded)
        new.discards = _NO_CARDS_EACH[n]
    else:
        new.phase = DEALING_HOLE if coming.cards_up else DEALING_BOARD
        if coming.cards_up and street == len(streets) - 1:
            # STUD-12: the last street deals nothing to a player who kept his card early; when every
            # hand still in holds it already, that street's betting opens now.
            return _start_round_when_dealt(new)
    return new


def _all_live_all_in(state: HandState) -> bool:
    stacks = state.stacks
    return all(stacks[i] == 0 for i, folded in enumerate(state.folded) if not folded)


def _live_count(folded: tuple[bool, ...]) -> int:
    """Hands still in (tuple.count is a generic call, compiled; this loop is not)."""
    live = 0
    for out in folded:
        if not out:
            live += 1
    return live


# Per number of players (up to 23), made once: no bets (a round collected), nobody acted yet (a
# round opened), no cards each (a hand started, a draw before its first discard).
_ZEROS: Final = tuple([(0,) * n for n in range(24)])
_NOT_ACTED: Final = tuple([(-1,) * n for n in range(24)])
_NO_CARDS_EACH: Final[tuple[tuple[tuple[Card, ...], ...], ...]] = tuple([((),) * n for n in range(24)])


def _start_round(new: HandState) -> HandState:
    """This round's cards are out: open the betting left of the button (DRAW-3), with the bring-in
    (STUD-5) or with the best hand showing (STUD-8). ``new``: a fresh copy, changed in place
    (_finish_round)."""
    cfg = new.config
    game = cfg.variant.game
    street = new.street
    fixed = cfg.variant.structure is FIXED_LIMIT
    unit = cfg.bet_size(street) if fixed else 0
    option = 0
    if (
        fixed
        and game.open_pair
        and street == 1
        and cfg.rules.stud_open_pair_big_bet
        and cfg.big_bet > unit
        and _pair_showing(new)
    ):
        option = cfg.big_bet
    acted = _NOT_ACTED[len(new.stacks)]
    rule = game.streets[street].opener
    new.phase = BETTING
    new.high_bet = 0
    new.full_raise = unit if fixed else cfg.opening_min
    new.counted_level = 0
    new.wagers = 0
    new.acted = acted
    new.aggressor = None
    new.round_players = _live_count(new.folded)
    new.bet_unit = unit
    new.bet_unit_option = option
    if rule is Opener.LOW_CARD or rule is Opener.HIGH_CARD:
        return _open_with_bring_in(new, rule)
    opener = 0 if rule is Opener.BLINDS else _best_showing(new, rule)
    first = _first_to_act(new.folded, new.stacks, new.bets, acted, 0, opener)
    if first is None:
        return _finish_round(new)
    new.actor = first
    new.opener = opener
    return new


def _bring_in_key(card: Card, rule: Opener) -> int:
    """HO-1: clubs lowest, then diamonds, hearts, spades; aces high for the stud bring-in, low in
    razz (where the king of spades is the highest up card). Cards are rank * 4 + suit, aces 12."""
    if rule is Opener.HIGH_CARD:
        return ((card >> 2) + 1) % 13 * 4 + (card & 3)  # ace low
    return card


def _open_with_bring_in(state: HandState, rule: Opener) -> HandState:
    """STUD-5: the lowest up card (razz: the highest) brings in; a player with no chips left after
    the ante cannot, so the next lowest does; nobody does when fewer than two players have chips."""
    with_chips = [i for i in state.live if state.stacks[i] > 0]
    if len(with_chips) < 2:
        return _finish_round(state)
    known = [i for i in with_chips if UNKNOWN_CARD not in state.up[i] and state.up[i]] or with_chips
    keys = {i: min(_bring_in_key(c, rule) for c in state.up[i]) for i in known}
    pick = max if rule is Opener.HIGH_CARD else min
    payer = pick(known, key=keys.__getitem__)
    state.actor = payer  # a fresh copy, changed in place (_start_round, _kill)
    state.bringing_in = True
    state.opener = payer
    return state


def _pair_showing(state: HandState) -> bool:
    """STUD-9: a live hand shows a pair (its up cards' weight, or with an unknown card or more
    than four up cards, the cards themselves)."""
    weight = _SHOWING_WEIGHT
    ups = state.up
    for i, folded in enumerate(state.folded):
        if folded:
            continue
        up = ups[i]
        paired = _SHOWING_PAIRED.get(sum([weight.get(c, 0) for c in up])) if UNKNOWN_CARD not in up else None
        if paired is None:
            paired = _has_pair(up)
        if paired:
            return True
    return False


def _has_pair(cards: Sequence[Card]) -> bool:
    ranks = [c >> 2 for c in cards if c != UNKNOWN_CARD]
    return len(set(ranks)) < len(ranks)


def _showing_key(cards: Sequence[Card], ace_low: bool) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """What up cards show (HO-2): only pairs, two pair, trips and quads count, then the ranks from
    the biggest group down; straights and flushes never. A larger key is a higher hand."""
    known = [c for c in cards if c != UNKNOWN_CARD]
    return _ranks_showing_key([((c >> 2) + 1) % 13 if ace_low else c >> 2 for c in known])


def _ranks_showing_key(ranks: Sequence[int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    counts: dict[int, int] = {}
    for r in ranks:
        counts[r] = counts.get(r, 0) + 1
    groups = sorted(counts.items(), key=lambda rc: (rc[1], rc[0]), reverse=True)
    return tuple(c for _, c in groups), tuple(r for r, _ in groups)


# STUD-8 on every later street: up to four up cards as a sum of 3-bit rank counts (aces high, or
# aces low for razz), mapped to their key's place among all such keys, so that comparing two
# places is comparing the keys (_showing_key). More up cards (HO-4, no place) or an unknown one
# (no weight) take the keys themselves.
_SHOWING_MAX = 4
_SHOWING_WEIGHT = {c: 1 << 3 * (c >> 2) for c in range(52)}
_SHOWING_WEIGHT_ACE_LOW = {c: 1 << 3 * (((c >> 2) + 1) % 13) for c in range(52)}


def _build_showing_places() -> tuple[dict[int, int], dict[int, bool]]:
    """(weight -> place, weight -> whether a pair or better shows) for up to four up cards."""
    keyed = {
        sum(1 << 3 * r for r in ranks): _ranks_showing_key(ranks)
        for size in range(_SHOWING_MAX + 1)
        for ranks in combinations_with_replacement(range(13), size)
    }
    ordered = sorted(set(keyed.values()))
    place = {key: k for k, key in enumerate(ordered)}
    paired = {weight: bool(counts) and counts[0] >= 2 for weight, (counts, _) in keyed.items()}
    return {weight: place[key] for weight, key in keyed.items()}, paired


_SHOWING_PLACE, _SHOWING_PAIRED = _build_showing_places()


def _best_showing(state: HandState, rule: Opener) -> int:
    """STUD-8: the best hand showing opens (razz: the lowest, a pair counting against it); ties go
    to the tied player nearest the dealer's left (HO-2)."""
    low = rule is Opener.LOW_HAND
    weight = (_SHOWING_WEIGHT_ACE_LOW if low else _SHOWING_WEIGHT).__getitem__
    places = _SHOWING_PLACE
    ups = state.up
    best = -1
    best_place = 0
    try:
        for i, folded in enumerate(state.folded):
            if folded:
                continue
            # KeyError: an unknown card (no weight) or more than four up cards (no place).
            place = places[sum(map(weight, ups[i]))]
            if best < 0 or (place < best_place if low else place > best_place):
                best, best_place = i, place
    except KeyError:
        return _best_showing_by_keys(state, low)
    return best if best >= 0 else 0


def _best_showing_by_keys(state: HandState, low: bool) -> int:
    best: int | None = None
    best_key: tuple[tuple[int, ...], tuple[int, ...]] | None = None
    for i in state.live:
        key = _showing_key(state.up[i], low)
        if best_key is None or (key < best_key if low else key > best_key):
            best, best_key = i, key
    return best if best is not None else 0


def _check_new_cards(state: HandState, cards: tuple[Card, ...]) -> int:
    """The bits of ``cards`` (HandState.in_play), each a card not in a hand or on the board (IRR-2)."""
    if not cards:
        raise RuleViolation("INPUT", "a deal needs at least one card")
    taken = state.in_play
    fresh = 0
    for card in cards:
        if card == UNKNOWN_CARD:
            continue
        if not (type(card) is int and 0 <= card < 52):
            raise RuleViolation("INPUT", f"{card!r} is not a card")
        bit = 1 << card
        if (taken | fresh) & bit:
            raise RuleViolation(
                "IRR-2",
                sentence(Mention(card), " was already dealt this hand: two cards of the same rank and suit"),
            )
        fresh |= bit
    return fresh


def _among(bits: int, card: object) -> bool:
    """``card`` is a card whose bit (1 << card) is set in ``bits``; what is not a card is in none."""
    return isinstance(card, int) and 0 <= card < 52 and bool(bits >> card & 1)


def _known_bits(cards: tuple[Card, ...]) -> int:
    bits = 0
    for card in cards:
        if card != UNKNOWN_CARD:
            bits |= 1 << card
    return bits


def _deal_hole(state: HandState, action: DealHole) -> HandState:
    i = action.player
    cards = action.cards
    if (
        state.phase is DEALING_HOLE
        and not state.street
        and type(i) is int
        and type(cards) is tuple
        and len(cards) == 1
        and action.up is None
    ):
        # The common case, the first deal one card at a time as the game declares it: one copy.
        dealt = state.hole
        card = cards[0]
        game = state.config.variant.game
        if 0 <= i < len(dealt) and type(card) is int and 0 <= card < 52 and len(dealt[i]) < game.hole_cards:
            if state.in_play >> card & 1:
                _check_new_cards(state, cards)  # raises IRR-2
            return _dealt_first_card(state, i, card, game)
    _check_player(state, i)
    if state.phase is DRAWING:
        return _deal_replacements(state, action)
    if state.phase is BETTING and state.up:
        return _deal_ahead(state, action)
    if state.phase is not DEALING_HOLE:
        raise RuleViolation("DEAL-1", f"hole cards are not being dealt now: the hand is {state.phase.value}")
    if state.street:
        return _deal_street_card(state, action)
    want = state.config.variant.game.hole_cards
    have = len(state.hole[i])
    cards = action.cards if type(action.cards) is tuple else tuple(action.cards)
    if have + len(cards) > want:
        raise RuleViolation(
            "MD-d", f"position {i} would hold {have + len(cards)} hole cards; the game deals {want}"
        )
    in_play = state.in_play | _check_new_cards(state, cards)
    hole = list(state.hole)
    hole[i] = hole[i] + cards
    changes: dict[str, Any] = {"hole": tuple(hole), "in_play": in_play}
    if state.up:
        changes["up"] = _with_up_cards(state, i, have, cards, action.up)
    if sum(map(len, hole)) < want * len(hole):
        return _evolve(state, **changes)
    if not state.config.variant.game.has_button:
        return _start_round(_evolve(state, **changes))  # stud: the bring-in (STUD-5)
    return _open_blind_round(_evolve(state, **changes))


# Made once, not at each card dealt; typed as any-length tuples, which compiled stay the objects
# made here (a one-item tuple type would be unpacked and boxed into a new tuple at each use).
_ONE_CARD: Final[tuple[tuple[Card, ...], ...]] = tuple([(card,) for card in range(52)])


def _dealt_first_card(state: HandState, i: int, card: Card, game: Game) -> HandState:
    """Position ``i``'s next first-round card, checked by the caller (a new card, one owed):
    a down card, or in stud up as the streets declare; the first round opens on the last."""
    hole = list(state.hole)
    have = len(hole[i])
    hole[i] = hole[i] + _ONE_CARD[card]
    new = _copy(state)
    new.hole = tuple(hole)
    new.in_play = state.in_play | 1 << card
    if state.up:
        layout = game.cards_up_in_order
        if have < len(layout) and layout[have]:
            up = list(state.up)
            up[i] = up[i] + _ONE_CARD[card]
            new.up = tuple(up)
    want = game.hole_cards
    if have + 1 < want:
        return new
    for hand in hole:
        if len(hand) < want:
            return new
    if not game.has_button:
        return _start_round(new)  # stud: the bring-in (STUD-5)
    return _open_blind_round(new)


def _deal_ahead(state: HandState, action: DealHole) -> HandState:
    """STUD-12: during the betting before the last street, a player keeps the last down card dealt
    to him too early once he took it in or might have seen it (002 premature dealing: "except for
    the final downcard at Stud, where the card must be kept"). Until this betting is over he may not
    bet or raise a player without it (_why_no_raise); the last street deals him nothing, as his
    hand already holds its cards (cards_due)."""
    i = action.player
    game = state.config.variant.game
    cards = action.cards if type(action.cards) is tuple else tuple(action.cards)
    if not game.last_street_down or state.street != len(game.streets) - 2:
        raise RuleViolation(
            "DEAL-1", "no card is dealt during the betting: only a premature last down card is kept (STUD-12)"
        )
    if state.folded[i]:
        raise RuleViolation("MD-i", f"position {i} folded: no cards are dealt to a dead hand")
    if len(cards) != 1 or dealt_ahead(state, i):
        raise RuleViolation("STUD-12", f"position {i} keeps one premature last card, no more")
    in_play = state.in_play | _check_new_cards(state, cards)
    hole = list(state.hole)
    hole[i] = hole[i] + cards
    new = _evolve(state, hole=tuple(hole), in_play=in_play)
    if action.up is not None:
        new.up = _with_up_cards(state, i, len(state.hole[i]), cards, action.up)  # HO-4: dealt up
    return new


def _open_blind_round(new: HandState) -> HandState:
    """Every hand is dealt in a game with blinds: the first to act is left of the last blind.
    ``new``: a fresh copy, changed in place (_finish_round)."""
    new.phase = BETTING
    start = len(new.config.blinds) if len(new.stacks) > 2 else 1
    first = _first_to_act(new.folded, new.stacks, new.bets, new.acted, new.high_bet, start)
    if first is None:
        return _finish_round(new)
    new.actor = first
    return new


def _with_up_cards(
    state: HandState, i: int, have: int, cards: tuple[Card, ...], up: tuple[bool, ...] | None
) -> tuple[tuple[Card, ...], ...]:
    """Player ``i``'s face-up cards after ``cards``: as the streets declare, or as dealt (HO-4)."""
    if up is None:
        layout = state.config.variant.game.cards_up_in_order
        up = layout[have : have + len(cards)]
    elif len(up) != len(cards):
        raise RuleViolation("INPUT", f"{len(cards)} cards dealt with {len(up)} face-up flags")
    # An unknown up card (a hand history's '??' of a player who folded) never brings in or opens.
    shown = tuple(c for c, face_up in zip(cards, up, strict=False) if face_up)
    ups = list(state.up)
    ups[i] = ups[i] + shown
    return tuple(ups)


def _hole_target(state: HandState) -> int:
    """Cards each live player holds once this street is dealt; a community card (HO-3) stands in
    for one card of each player."""
    return state.config.variant.game.hole_after[state.street] - len(state.board)


def _deal_street_card(state: HandState, action: DealHole) -> HandState:
    """A stud street: one card to each player still in (STUD-1), in any order the procedure
    checks; the round opens when every live player has it."""
    i = action.player
    if state.folded[i]:
        raise RuleViolation("MD-i", f"position {i} folded: no cards are dealt to a dead hand")
    cards = action.cards if type(action.cards) is tuple else tuple(action.cards)
    dealt = state.hole
    have = len(dealt[i])
    game = state.config.variant.game
    want = game.hole_after[state.street] - len(state.board)  # _hole_target
    if have + len(cards) > want:
        raise RuleViolation("MD-e", f"position {i} would hold {have + len(cards)} cards not {want}")
    if len(cards) == 1 and action.up is None and state.shown[i] is None and type(card := cards[0]) is int:
        # The common case, one card as the street declares it: one copy of the state.
        if 0 <= card < 52 and not state.in_play >> card & 1:
            in_play = state.in_play | 1 << card
        else:
            in_play = state.in_play | _check_new_cards(state, cards)  # raises, unless an unknown card
        new = _copy(state)
        hole = list(dealt)
        hole[i] = hole[i] + cards
        new.hole = tuple(hole)
        new.in_play = in_play
        if game.cards_up_in_order[have]:
            up = list(state.up)
            up[i] = up[i] + cards
            new.up = tuple(up)
        for j, folded in enumerate(state.folded):
            if not folded and len(hole[j]) < want:
                return new
        return _start_round(new)
    in_play = state.in_play | _check_new_cards(state, cards)
    hole = list(state.hole)
    hole[i] = hole[i] + cards
    ups = _with_up_cards(state, i, have, cards, action.up)
    new = _evolve(state, hole=tuple(hole), up=ups, in_play=in_play)
    return _start_round_when_dealt(_unshown(new, i))


def _unshown(state: HandState, i: int) -> HandState:
    """A hand shown during an all-in run-out is shown again once it holds other cards."""
    if state.shown[i] is None:
        return state
    shown = list(state.shown)
    shown[i] = None
    return _evolve(state, shown=tuple(shown))


def _start_round_when_dealt(state: HandState) -> HandState:
    """Open the round once every live hand holds this street's cards (stud) or its draw is done."""
    if state.phase is DRAWING:
        if any(owed != 0 for owed, f in zip(state.to_draw, state.folded, strict=True) if not f):
            return state
        return _start_round(_evolve(state, to_draw=(), discards=()))
    want = _hole_target(state)
    hole = state.hole
    if any(len(hole[j]) < want for j in state.live):
        return state
    return _start_round(state)


def _deal_replacements(state: HandState, action: DealHole) -> HandState:
    """DRAW-4: a player who discarded is dealt as many, never one of his own discards (HO-9)."""
    i = action.player
    owed = state.to_draw[i]
    cards = action.cards if type(action.cards) is tuple else tuple(action.cards)
    if owed < 0:
        raise RuleViolation("HO-7", f"position {i} has not drawn yet: replacements follow the discards")
    if len(cards) > owed:
        raise RuleViolation("DRAW-4", f"position {i} is owed {owed} cards, not {len(cards)}")
    discarded = _known_bits(state.discards[i])
    for card in cards:
        # What is not a card is refused below (_check_new_cards), as a card dealt twice is.
        if _among(discarded, card):
            raise RuleViolation("HO-9", f"position {i} cannot be dealt back a card he discarded at this draw")
    in_play = state.in_play | _check_new_cards(state, cards)
    still_owed = list(state.to_draw)
    still_owed[i] = owed - len(cards)
    new = _drawn(state, i, state.hole[i] + cards, in_play)
    new.to_draw = to_draw = tuple(still_owed)
    return _after_drawing(new, to_draw, state.folded)


def _drawn(state: HandState, i: int, hand: tuple[Card, ...], in_play: int) -> HandState:
    """A copy of the state with position ``i``'s hand changed at a draw: a hand shown during an
    all-in run-out is shown again once it holds other cards."""
    new = _copy(state)
    hole = list(state.hole)
    hole[i] = hand
    new.hole = tuple(hole)
    new.in_play = in_play
    if state.shown[i] is not None:
        shown = list(state.shown)
        shown[i] = None
        new.shown = tuple(shown)
    return new


def _after_drawing(new: HandState, to_draw: tuple[int, ...], folded: tuple[bool, ...]) -> HandState:
    """At a draw, the new state (a fresh copy, changed in place here); the round opens once every
    live hand has discarded and been dealt as many (DRAW-4)."""
    for j, owed in enumerate(to_draw):
        if owed and not folded[j]:
            return new
    new.to_draw = ()
    new.discards = ()
    return _start_round(new)


def _first_to_draw(to_draw: tuple[int, ...]) -> int:
    """The first position still to discard at a draw (HO-7; -1 in to_draw: not drawn yet), or -1
    when all have (tuple.index and ``in`` are generic calls, compiled; this loop is not)."""
    for j, owed in enumerate(to_draw):
        if owed == -1:
            return j
    return -1


def _discard(state: HandState, action: Discard) -> HandState:
    """DRAW-4: discard 0 to 5 cards (0 is standing pat), in turn from the first still in left of
    the button (HO-7); the discards are dead."""
    i = action.player
    _check_player(state, i)
    if state.phase is not DRAWING:
        raise RuleViolation("DRAW-4", f"no draw now: the hand is {state.phase.value}")
    to_draw = state.to_draw
    turn = _first_to_draw(to_draw)
    if turn != i:
        raise RuleViolation("HO-7", f"it is position {turn if turn >= 0 else None}'s turn to draw, not {i}'s")
    cards = action.cards if type(action.cards) is tuple else tuple(action.cards)
    hand = state.hole[i]
    if len(cards) > len(hand):
        raise RuleViolation("DRAW-4", f"position {i} holds {len(hand)} cards and cannot discard {len(cards)}")
    # The named discards as bits of the hand's known cards (HandState.in_play): each one of them,
    # once (a bit test, not a search of the hand).
    in_hand = _known_bits(hand)
    gone = 0
    unnamed = 0
    for card in cards:
        if card == UNKNOWN_CARD:
            unnamed += 1
        elif _among(in_hand & ~gone, card):
            gone |= 1 << card
        else:
            raise RuleViolation("DRAW-4", f"position {i} discards a card not in the hand: {card!r}")
    if unnamed:
        # The dealer keyed how many, not which (they go face down): which cards stay is unknown.
        kept: tuple[Card, ...] = (UNKNOWN_CARD,) * (len(hand) - len(cards))
        gone = in_hand
    elif gone:
        kept = tuple([c for c in hand if c < 0 or not gone >> c & 1])
    else:
        kept = hand  # standing pat
    owed = list(to_draw)
    owed[i] = len(cards)
    new = _drawn(state, i, kept, state.in_play & ~gone)
    new.to_draw = to_draw = tuple(owed)
    if cards:
        discards = list(state.discards)
        discards[i] = cards
        new.discards = tuple(discards)
    if _first_to_draw(to_draw) >= 0:  # others still to discard
        return new
    return _after_drawing(new, to_draw, state.folded)


def _bring_in(state: HandState, action: BringIn) -> HandState:
    """STUD-5, STUD-6: the forced bet, not a raise and not counted toward the cap; a short stack
    posts what it has and the others still owe the whole bring-in (BET-15)."""
    i = action.player
    _check_player(state, i)
    if state.phase is not BETTING or not state.bringing_in:
        raise RuleViolation("STUD-5", "no bring-in is due now")
    if i != state.actor:
        raise RuleViolation("STUD-5", f"position {state.actor} has the bring-in, not {i}")
    cfg = state.config
    paid = min(cfg.bring_in, state.stacks[i])
    stacks = list(state.stacks)
    bets = list(state.bets)
    contributed = list(state.contributed)
    stacks[i] = stacks[i] - paid  # not -= (a generic call on a list's item, compiled: _apply_betting)
    bets[i] = bets[i] + paid
    contributed[i] = contributed[i] + paid
    acted = list(state.acted)
    acted[i] = cfg.bring_in
    new = _copy(state)
    new.high_bet = cfg.bring_in
    new.bringing_in = False
    return _chips_put_in(new, i, stacks, bets, contributed, acted, cfg.bring_in)


def _deal_board(state: HandState, action: DealBoard) -> HandState:
    if state.phase is DEALING_HOLE and state.street and not state.config.variant.game.has_button:
        return _deal_community_card(state, action)
    if state.phase is not DEALING_BOARD:
        rule = "BOARD-4" if state.phase is BETTING else "DEAL-2"
        raise RuleViolation(rule, f"no board card is due now: the hand is {state.phase.value}")
    cards = action.cards if type(action.cards) is tuple else tuple(action.cards)
    if UNKNOWN_CARD in cards:
        raise RuleViolation("INPUT", "board cards are dealt face up: each must be identified")
    needed = state.board_needed
    if len(cards) > needed:
        raise RuleViolation("BOARD-1", f"{len(cards)} board cards dealt where {needed} are due this round")
    in_play = state.in_play | _check_new_cards(state, cards)
    new = _copy(state)
    new.board = state.board + cards
    new.in_play = in_play
    if len(cards) < needed:
        return new
    return _start_round(new)


def _deal_community_card(state: HandState, action: DealBoard) -> HandState:
    """HO-3: too few cards for a stud street even after STUD-14: one card face up in the centre
    plays for every player, before anyone is dealt this street's card."""
    cards = action.cards if type(action.cards) is tuple else tuple(action.cards)
    if len(cards) != 1 or cards[0] == UNKNOWN_CARD:
        raise RuleViolation("HO-3", "a stud community card is one card, face up")
    want = _hole_target(state)
    if any(len(state.hole[j]) >= want for j in state.live):
        raise RuleViolation("HO-3", "the community card replaces a whole street: this street is being dealt")
    in_play = state.in_play | _check_new_cards(state, cards)
    return _start_round_when_dealt(_evolve(state, board=state.board + cards, in_play=in_play))


def _show(state: HandState, action: Show) -> HandState:
    i = action.player
    _check_player(state, i)
    if not (state.phase is SHOWDOWN or state.is_running_out):
        raise RuleViolation("POT-4", f"hands are shown at the showdown; the hand is {state.phase.value}")
    if state.folded[i]:
        raise RuleViolation("POT-4", f"position {i} folded and has no hand to show")
    if state.shown[i] is not None or state.mucked[i]:
        raise RuleViolation("INPUT", f"position {i} has already shown or mucked")
    if action.mucks:
        if state.hands_face_up:
            raise RuleViolation(
                "POT-5", "a player is all-in and the betting is over: every hand is turned face up"
            )
        mucked = list(state.mucked)
        mucked[i] = True
        return _maybe_award(_evolve(state, **{"mucked": tuple(mucked)}))
    cards = tuple(action.cards or ())
    dealt = state.hole[i]
    if cards != dealt:  # the usual show is exactly the cards dealt: nothing to check
        if len(cards) != len(dealt):
            raise RuleViolation("POT-4", f"to win any part of a pot a player shows all {len(dealt)} cards")
        known = [c for c in dealt if c != UNKNOWN_CARD]
        if not set(known) <= set(cards):
            raise RuleViolation("IRR-9", f"position {i} shows cards that are not the ones dealt to them")
        fresh = tuple(c for c in cards if c not in known)
        if fresh:
            _check_new_cards(state, fresh)
    shown = list(state.shown)
    shown[i] = cards
    new = _copy(state)
    new.shown = tuple(shown)
    if cards != dealt:
        hole = list(state.hole)
        hole[i] = cards
        new.hole = tuple(hole)
        new.in_play = state.in_play & ~_known_bits(dealt) | _known_bits(cards)
    return _maybe_award(new)


def _kill(state: HandState, action: Kill) -> HandState:
    """A dead hand: folded out of turn by a ruling. Its chips stay in the pot."""
    i = action.player
    _check_player(state, i)
    if state.folded[i]:
        raise RuleViolation("INPUT", f"position {i} has no live hand")
    folded = list(state.folded)
    folded[i] = True
    changes: dict[str, Any] = {"folded": tuple(folded)}
    if folded.count(False) == 1 and not (state.phase is DEALING_HOLE and state.street == 0):
        return _finish_round(_evolve(state, **changes))
    new = _evolve(state, **changes)
    if state.bringing_in and state.actor == i:
        # The bring-in's hand is dead before it posted: the next lowest (razz: highest) brings in.
        return _open_with_bring_in(new, state.config.variant.game.streets[0].opener)
    if state.phase is BETTING and state.actor == i:
        nxt = _next_to_act(new, i + 1)
        if nxt is None:
            return _finish_round(new)
        return _evolve(new, **{"actor": nxt})
    if state.phase is BETTING and _next_to_act(new, state.actor or 0) is None:
        return _finish_round(new)
    if state.phase is DRAWING or (state.phase is DEALING_HOLE and state.street):
        # The dead hand draws or is dealt nothing more: the deal may be complete without it.
        if state.phase is DRAWING:
            to_draw = list(new.to_draw)
            to_draw[i] = 0
            new = _evolve(new, to_draw=tuple(to_draw))
            if new.next_to_draw is not None:
                return new
        return _start_round_when_dealt(new)
    return _maybe_award(new)


def _maybe_award(state: HandState) -> HandState:
    if state.phase is not SHOWDOWN:
        return state
    shown, mucked = state.shown, state.mucked
    for i, folded in enumerate(state.folded):
        if not folded and shown[i] is None and not mucked[i]:
            return state  # a live hand has still to be shown or mucked
    return _award(state)


def _award(new: HandState) -> HandState:
    """The pots awarded on ``new``, a fresh copy, changed in place (_finish_round)."""
    new.awards = award_pots(new)
    new.phase = COMPLETE
    new.actor = None
    return new


def show_down_all(state: HandState) -> HandState:
    """Cards speak (POT-4): show every live hand not yet shown or mucked, as dealt."""
    for i in showdown_order(state):
        if state.phase is not SHOWDOWN:
            break
        if state.shown[i] is None and not state.mucked[i]:
            state = apply(state, Show(i, state.hole[i]))
    return state


def showdown_order(state: HandState) -> tuple[int, ...]:
    """POT-3: the last aggressor on the final round shows first, else the first to act; players
    in a side pot show before a player all-in for the main pot only."""
    n = state.n
    live = state.live
    aggressor = state.aggressor
    first = aggressor if aggressor is not None and not state.folded[aggressor] else state.opener
    clockwise = sorted(live, key=lambda p: (p - first) % n)
    # A deeper commitment means eligibility for more pots: those players show first.
    return tuple(sorted(clockwise, key=lambda p: -state.contributed[p]))


def _copy(s: HandState) -> HandState:
    """A new state with every field of ``s``, for the action making it to change before it is
    returned: one object, its fields set one by one (where compiled, a direct constructor call)."""
    return HandState(
        s.config,
        s.phase,
        s.street,
        s.stacks,
        s.bets,
        s.contributed,
        s.dead,
        s.folded,
        s.hole,
        s.board,
        s.actor,
        s.high_bet,
        s.full_raise,
        s.counted_level,
        s.wagers,
        s.acted,
        s.aggressor,
        s.shown,
        s.mucked,
        s.awards,
        s.round_players,
        s.up,
        s.to_draw,
        s.discards,
        s.bringing_in,
        s.bet_unit,
        s.bet_unit_option,
        s.opener,
        s.in_play,
    )


def _evolve(state: HandState, **changes: Any) -> HandState:
    """A copy of ``state`` with ``changes`` (the less common paths; the common ones set fields)."""
    new = _copy(state)
    for name, value in changes.items():
        setattr(new, name, value)
    return new
