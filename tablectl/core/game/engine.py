"""The hand state machine (layer 2): betting, pots and showdown, pure.

``start_hand(config)`` posts the antes and blinds; ``apply(state, action)``
returns the next state or raises :class:`RuleViolation` naming the rule
broken, leaving the state it was given untouched (states are immutable).
``legal(state)`` answers whose turn it is, what they may do and for how much.

Positions: 0 is the first seat left of the button, the button is last.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from tablectl.core.cards import Card
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
from tablectl.core.game.errors import RuleViolation
from tablectl.core.game.pots import Award, award_pots
from tablectl.core.game.profiles import HouseRules, house_rules
from tablectl.core.game.variants import Structure, Variant
from tablectl.core.records import copier
from tablectl.core.sentences import Mention, sentence


class Phase(enum.Enum):
    DEALING_HOLE = "dealing hole cards"
    BETTING = "betting"
    DEALING_BOARD = "dealing the board"
    SHOWDOWN = "showdown"
    COMPLETE = "complete"


# Module-level names for the phases and structures: the hot path reads them on every action,
# and a global is several times faster to reach than an enum member.
DEALING_HOLE, BETTING, DEALING_BOARD, SHOWDOWN, COMPLETE = (
    Phase.DEALING_HOLE,
    Phase.BETTING,
    Phase.DEALING_BOARD,
    Phase.SHOWDOWN,
    Phase.COMPLETE,
)
NO_LIMIT, POT_LIMIT, FIXED_LIMIT, SPREAD_LIMIT = (
    Structure.NO_LIMIT,
    Structure.POT_LIMIT,
    Structure.FIXED_LIMIT,
    Structure.SPREAD_LIMIT,
)


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
    spread-limit games allow any bet or raise from ``min_bet`` to ``spread_max``.
    """

    variant: Variant
    starting_stacks: tuple[int, ...]
    blinds: tuple[int, ...] = ()
    antes: tuple[int, ...] = ()
    min_bet: int = 0
    small_bet: int = 0
    big_bet: int = 0
    spread_max: int = 0
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
        """Fixed-limit bet for a round (BET-1)."""
        return self.big_bet if self.variant.game.streets[street].big_bet else self.small_bet

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


class HandState(NamedTuple):
    """One moment of a hand. Immutable: a tuple, so copying it for the next action is cheap."""

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
    awards: tuple[Award, ...] = ()
    round_players: int = 0  # players with a live hand when this round started (cap option)

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
        return _BOARD_AFTER[self.config.variant.game][self.street] - len(self.board)

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
        return self.phase is DEALING_BOARD and someone_all_in and self.betting_over


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
    table_ante = sum(1 for a in config.antes if a) == 1
    for pos, ante in enumerate(config.antes):
        k = config.forced_position(pos) if n == 2 else pos
        paid = min(ante, stacks[k])
        stacks[k] -= paid
        if table_ante:
            dead += paid
        else:
            contributed[k] += paid
    for k, blind in enumerate(config.blinds):
        pos = config.forced_position(k)
        paid = min(blind, stacks[pos])
        stacks[pos] -= paid
        bets[pos] += paid
        contributed[pos] += paid
    # BET-15: the others owe the full blind even when it was posted short.
    high_bet = max(config.blinds, default=0)
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
        hole=((),) * n,
        board=(),
        actor=None,
        high_bet=high_bet,
        full_raise=full_raise,
        counted_level=high_bet,
        wagers=1 if high_bet else 0,
        acted=(-1,) * n,
        aggressor=None,
        shown=(None,) * n,
        mucked=(False,) * n,
        round_players=n,
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
    cfg = state.config
    rules = cfg.rules
    structure = cfg.variant.structure
    why = ""
    if all_in_to <= state.high_bet:
        why = "BET-17: no chips left beyond a call"
    elif not any(k != i and not state.folded[k] and state.stacks[k] > 0 for k in range(state.n)):
        why = "BET-17: every opponent is all-in; nobody could call a raise"
    elif state.acted[i] >= 0 and state.high_bet - state.acted[i] < _reopen_threshold(state):
        why = "BET-5: the betting was not reopened by a full raise since this player acted"
    elif structure.is_limit:
        capped = state.wagers >= rules.limit_cap_bets
        if capped and not (rules.limit_no_cap_heads_up and state.round_players == 2):
            why = f"BET-6: the betting is capped at {rules.limit_cap_bets} bets"
    elif rules.big_bet_max_raises is not None and state.wagers >= 1 + rules.big_bet_max_raises:
        why = f"BET-2: {rules.big_bet_max_raises} raises at most in a betting round ({rules.profile})"
    return why


def _reopen_threshold(state: HandState) -> int:
    """How far the bet must rise past a player's last action to let them raise again (BET-5)."""
    cfg = state.config
    if cfg.variant.structure is FIXED_LIMIT:
        size = cfg.bet_size(state.street)
        return (size + 1) // 2 if cfg.rules.limit_half_bet_reopens else size
    return state.full_raise


def _raise_range(state: HandState, i: int) -> tuple[int, int]:
    cfg = state.config
    structure = cfg.variant.structure
    if structure is FIXED_LIMIT:
        # A raise adds one bet to the last counted level: a short all-in below half a bet is
        # completed, not raised over (002 completing a bet).
        to = state.counted_level + cfg.bet_size(state.street)
        return to, to
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
    handler = _HANDLERS.get(type(action))
    if handler is None:
        raise RuleViolation("INPUT", f"{action!r} is not an action of the hand")
    new: HandState = handler(state, action)
    return new


def _check_player(state: HandState, player: int) -> None:
    if type(player) is not int or not 0 <= player < len(state.stacks):
        raise RuleViolation("INPUT", f"there is no player {player!r} in this hand (0..{state.n - 1})")


def _apply_betting(state: HandState, action: Fold | CheckCall | BetRaise) -> HandState:
    i = action.player
    _check_player(state, i)
    if state.phase is not BETTING:
        raise RuleViolation("BET-14", f"no betting now: the hand is {state.phase.value}")
    if i != state.actor:
        raise RuleViolation("BET-14", f"action out of turn: it is position {state.actor}'s turn, not {i}'s")
    acted = list(state.acted)
    acted[i] = state.high_bet
    if type(action) is Fold:
        folded = list(state.folded)
        folded[i] = True
        fold_changes: dict[str, Any] = {"folded": tuple(folded), "acted": tuple(acted)}
        nxt = None
        if folded.count(False) > 1:
            nxt = _first_to_act(folded, state.stacks, state.bets, acted, state.high_bet, i + 1)
        if nxt is None:
            return _finish_round(_evolve(state, **fold_changes))
        fold_changes["actor"] = nxt
        return _evolve(state, **fold_changes)
    if type(action) is CheckCall and state.bets[i] == state.high_bet:
        # A check: only who has acted changes.
        nxt = _first_to_act(state.folded, state.stacks, state.bets, acted, state.high_bet, i + 1)
        values = list(state)
        values[_ACTED] = tuple(acted)
        if nxt is None:
            return _finish_round(_new_tuple(HandState, values))
        values[_ACTOR] = nxt
        return _new_tuple(HandState, values)
    stacks = list(state.stacks)
    bets = list(state.bets)
    contributed = list(state.contributed)
    if type(action) is CheckCall:
        # A call: chips move; nothing about the round's wagers changes.
        paid = min(state.high_bet - bets[i], stacks[i])
        stacks[i] -= paid
        bets[i] += paid
        contributed[i] += paid
        nxt = None
        if state.folded.count(False) > 1:
            nxt = _first_to_act(state.folded, stacks, bets, acted, state.high_bet, i + 1)
        values = list(state)
        values[_STACKS], values[_BETS], values[_CONTRIBUTED] = tuple(stacks), tuple(bets), tuple(contributed)
        values[_ACTED] = tuple(acted)
        if nxt is None:
            return _finish_round(_new_tuple(HandState, values))
        values[_ACTOR] = nxt
        return _new_tuple(HandState, values)
    changes: dict[str, Any] = {}
    assert isinstance(action, BetRaise)
    to = action.to
    if type(to) is not int:
        raise RuleViolation("INPUT", f"a bet must be a whole number of chips, got {to!r}")
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
    if to <= state.high_bet:
        raise RuleViolation("BET-4", f"a raise must make it more than {state.high_bet}; {to} is a call")
    if to < min_to:
        rule = "BET-4" if state.high_bet else "BET-3"
        what = "raise" if state.high_bet else "bet"
        raise RuleViolation(
            rule, f"the smallest {what} is to {min_to:,}, not {to:,} (all-in is {all_in_to:,})"
        )
    if to > max_to:
        structure = state.config.variant.structure
        rule = {POT_LIMIT: "BET-10"}.get(structure, "BET-1")
        raise RuleViolation(rule, f"the largest {structure.value} bet or raise is to {max_to:,}, not {to:,}")
    increment = to - state.high_bet
    paid = to - bets[i]
    stacks[i] -= paid
    bets[i] = to
    contributed[i] += paid
    changes["high_bet"] = to
    changes["aggressor"] = i
    counts = _counts_as_raise(state, increment, to, all_in_to)
    if counts:
        changes["wagers"] = state.wagers + 1
        changes["counted_level"] = to
        if state.config.variant.structure is not FIXED_LIMIT:
            changes["full_raise"] = max(state.full_raise, increment)
    acted[i] = changes.get("high_bet", state.high_bet)
    changes.update(stacks=tuple(stacks), bets=tuple(bets), contributed=tuple(contributed), acted=tuple(acted))
    folded = changes.get("folded", state.folded)
    nxt = None
    if folded.count(False) > 1:
        nxt = _first_to_act(folded, stacks, bets, acted, changes.get("high_bet", state.high_bet), i + 1)
    if nxt is None:
        return _finish_round(_evolve(state, **changes))
    changes["actor"] = nxt
    return _evolve(state, **changes)


def _counts_as_raise(state: HandState, increment: int, to: int, all_in_to: int) -> bool:
    """A full bet or raise (or, at limit, an all-in of half a bet) reopens and counts to the cap."""
    cfg = state.config
    if cfg.variant.structure is FIXED_LIMIT:
        if to == all_in_to and to < state.counted_level + cfg.bet_size(state.street):
            return increment >= _reopen_threshold(state) and to > state.counted_level
        return True
    if state.high_bet == 0:
        return to >= state.full_raise
    return increment >= state.full_raise


def _first_to_act(
    folded: Sequence[bool],
    stacks: Sequence[int],
    bets: Sequence[int],
    acted: Sequence[int],
    high_bet: int,
    start: int,
) -> int | None:
    """The first player from ``start`` clockwise who must still act this round, if any."""
    n = len(stacks)
    with_chips = -1  # live players with chips behind, counted only when needed
    for step in range(n):
        j = (start + step) % n
        if folded[j] or stacks[j] == 0:
            continue
        if bets[j] < high_bet:
            return j
        if acted[j] < 0:
            # Not yet acted and already matched: acts only if someone can still bet against them.
            if with_chips < 0:
                with_chips = sum(1 for k in range(n) if not folded[k] and stacks[k] > 0)
            if with_chips >= 2:
                return j
    return None


def _next_to_act(state: HandState, start: int) -> int | None:
    return _first_to_act(state.folded, state.stacks, state.bets, state.acted, state.high_bet, start)


def _finish_round(state: HandState) -> HandState:
    """Close a betting round: return an uncalled bet (POT-2), collect, move on."""
    bets = state.bets
    ranked = sorted(bets)
    top, second = ranked[-1], ranked[-2]
    base: dict[str, Any] = {"bets": (0,) * len(bets), "actor": None}
    leader = bets.index(top)
    if top > second and (not state.folded[leader] or _all_live_all_in(state)):
        # POT-2: the uncalled part goes back. A folded hand gets it back only when no live
        # hand could have called it (POT-1, a folded blind above an all-in player); a dead
        # hand facing a live player keeps nothing back (000 misdeals 2).
        stacks = list(state.stacks)
        contributed = list(state.contributed)
        stacks[leader] += top - second
        contributed[leader] -= top - second
        base["stacks"] = tuple(stacks)
        base["contributed"] = tuple(contributed)
    if state.folded.count(False) == 1:
        return _award(_evolve(state, **base))
    streets = state.config.variant.game.streets
    if state.street + 1 >= len(streets):
        return _maybe_award(_evolve(state, **{**base, "phase": SHOWDOWN}))
    return _evolve(state, **{**base, "phase": DEALING_BOARD, "street": state.street + 1})


def _all_live_all_in(state: HandState) -> bool:
    stacks = state.stacks
    return all(stacks[i] == 0 for i, folded in enumerate(state.folded) if not folded)


def _start_round(state: HandState) -> HandState:
    """The board for this round is out: open the betting left of the button."""
    cfg = state.config
    full = cfg.bet_size(state.street) if cfg.variant.structure is FIXED_LIMIT else cfg.opening_min
    acted = (-1,) * len(state.stacks)
    first = _first_to_act(state.folded, state.stacks, state.bets, acted, 0, 0)
    new = _evolve(
        state,
        phase=BETTING,
        high_bet=0,
        full_raise=full,
        counted_level=0,
        wagers=0,
        acted=acted,
        aggressor=None,
        round_players=state.folded.count(False),
        actor=first,
    )
    if first is None:
        return _finish_round(new)
    return new


def _check_new_cards(state: HandState, cards: tuple[Card, ...]) -> None:
    if not cards:
        raise RuleViolation("INPUT", "a deal needs at least one card")
    fresh: set[Card] = set()
    for card in cards:
        if card == UNKNOWN_CARD:
            continue
        if not (isinstance(card, int) and 0 <= card < 52):
            raise RuleViolation("INPUT", f"{card!r} is not a card")
        duplicate = card in fresh or card in state.board
        for hand in state.hole:
            duplicate = duplicate or card in hand
        if duplicate:
            raise RuleViolation(
                "IRR-2",
                sentence(Mention(card), " was already dealt this hand: two cards of the same rank and suit"),
            )
        fresh.add(card)


def _deal_hole(state: HandState, action: DealHole) -> HandState:
    i = action.player
    _check_player(state, i)
    if state.phase is not DEALING_HOLE:
        raise RuleViolation("DEAL-1", f"hole cards are not being dealt now: the hand is {state.phase.value}")
    want = state.config.variant.game.hole_cards
    have = len(state.hole[i])
    cards = action.cards if type(action.cards) is tuple else tuple(action.cards)
    if have + len(cards) > want:
        raise RuleViolation(
            "MD-d", f"position {i} would hold {have + len(cards)} hole cards; the game deals {want}"
        )
    if len(cards) == 1 and type(card := cards[0]) is int and 0 <= card < 52:
        # The common case, one card at a time: a quick duplicate check (IRR-2).
        for hand in state.hole:
            if card in hand:
                _check_new_cards(state, cards)
    else:
        _check_new_cards(state, cards)
    hole = list(state.hole)
    hole[i] = hole[i] + cards
    if sum(map(len, hole)) < want * len(hole):
        values = list(state)
        values[_HOLE] = tuple(hole)
        return _new_tuple(HandState, values)
    new = _evolve(state, **{"hole": tuple(hole), "phase": BETTING})
    first = _next_to_act(new, len(state.config.blinds) if state.config.players > 2 else 1)
    if first is None:
        return _finish_round(new)
    return _evolve(new, **{"actor": first})


def _deal_board(state: HandState, action: DealBoard) -> HandState:
    if state.phase is not DEALING_BOARD:
        rule = "BOARD-4" if state.phase is BETTING else "DEAL-2"
        raise RuleViolation(rule, f"no board card is due now: the hand is {state.phase.value}")
    cards = action.cards if type(action.cards) is tuple else tuple(action.cards)
    if UNKNOWN_CARD in cards:
        raise RuleViolation("INPUT", "board cards are dealt face up: each must be identified")
    needed = state.board_needed
    if len(cards) > needed:
        raise RuleViolation("BOARD-1", f"{len(cards)} board cards dealt where {needed} are due this round")
    _check_new_cards(state, cards)
    if len(cards) < needed:
        return _evolve(state, **{"board": state.board + cards})
    return _start_round(state._replace(board=state.board + cards))


def _show(state: HandState, action: Show) -> HandState:
    i = action.player
    _check_player(state, i)
    if not (state.phase is SHOWDOWN or (state.phase is DEALING_BOARD and state.betting_over)):
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
    changes: dict[str, Any] = {"shown": tuple(shown)}
    if cards != dealt:
        hole = list(state.hole)
        hole[i] = cards
        changes["hole"] = tuple(hole)
    return _maybe_award(_evolve(state, **changes))


def _kill(state: HandState, action: Kill) -> HandState:
    """A dead hand: folded out of turn by a ruling. Its chips stay in the pot."""
    i = action.player
    _check_player(state, i)
    if state.folded[i]:
        raise RuleViolation("INPUT", f"position {i} has no live hand")
    folded = list(state.folded)
    folded[i] = True
    changes: dict[str, Any] = {"folded": tuple(folded)}
    if folded.count(False) == 1 and state.phase is not DEALING_HOLE:
        return _finish_round(_evolve(state, **changes))
    new = _evolve(state, **changes)
    if state.phase is BETTING and state.actor == i:
        nxt = _next_to_act(new, i + 1)
        if nxt is None:
            return _finish_round(new)
        return _evolve(new, **{"actor": nxt})
    if state.phase is BETTING and _next_to_act(new, state.actor or 0) is None:
        return _finish_round(new)
    return _maybe_award(new)


def _maybe_award(state: HandState) -> HandState:
    if state.phase is not SHOWDOWN:
        return state
    shown, mucked = state.shown, state.mucked
    for i, folded in enumerate(state.folded):
        if not folded and shown[i] is None and not mucked[i]:
            return state  # a live hand has still to be shown or mucked
    return _award(state)


def _award(state: HandState) -> HandState:
    awards = award_pots(state)
    return _evolve(state, **{"awards": awards, "phase": COMPLETE, "actor": None})


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
    first = state.aggressor if state.aggressor is not None and not state.folded[state.aggressor] else 0
    clockwise = sorted(live, key=lambda p: (p - first) % n)
    # A deeper commitment means eligibility for more pots: those players show first.
    return tuple(sorted(clockwise, key=lambda p: -state.contributed[p]))


_INDEX = {name: index for index, name in enumerate(HandState._fields)}
_HOLE, _ACTED, _ACTOR = _INDEX["hole"], _INDEX["acted"], _INDEX["actor"]
_STACKS, _BETS, _CONTRIBUTED = _INDEX["stacks"], _INDEX["bets"], _INDEX["contributed"]


class _BoardAfter(dict[Any, tuple[int, ...]]):
    def __missing__(self, game: Any) -> tuple[int, ...]:
        self[game] = game.board_after
        return self[game]


_BOARD_AFTER = _BoardAfter()
_new_tuple = tuple.__new__
_evolve = copier(HandState)  # the hot path of every action


_HANDLERS: dict[type, Any] = {
    Fold: _apply_betting,
    CheckCall: _apply_betting,
    BetRaise: _apply_betting,
    DealHole: _deal_hole,
    DealBoard: _deal_board,
    Show: _show,
    Kill: _kill,
}
