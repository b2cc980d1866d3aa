"""The table between and around hands (layer 4), and the one step function of the controller.

``step(state, event) -> (state, effects)`` is pure: the journal folds it over
every event to rebuild the table exactly (DESIGN.md). Seats in events are the
numbers on the felt (1..N).

Contracts of ``step``:

* an event that makes no sense now (a card drawn with no hand in progress, a bet from
  a folded seat, a seat the table does not have, a second confirmation) is answered
  with a ``Severity.REFUSED`` ruling that says why, and the state returned is the
  state given;
* while a hand is in progress the effects always end with a ``Prompt``: the dealer's
  next step;
* the floor's ``void_hand`` ends any hand in progress with every chip back where it
  was when the hand started; ``new hand`` then deals the next one (button and blinds
  unchanged after a void hand or a misdeal, MD-2);
* a finished hand stays in ``TableState.last_hand`` (with its log of actions) until
  the next deal starts: a ruling on its pot may be asked for until then (TBL-5).

Floor rulings the devices cannot see come as floor commands: ``kill_hand`` (IRR-8,
IRR-9, and BOARD-6 with the amount short), ``override`` of a waiting ruling (and
BOARD-6 ``make_good``), ``button_misplaced`` and ``move_button`` (TBL-1), ``set_blinds``
(TBL-2), ``seat_player`` (TBL-3), ``deck_check`` (IRR-4), ``transfer`` (TBL-5).

TBL-1's correction: the table keeps who had the button and the blinds on each hand of the
current round of the button (``TableState.orbit``). After the floor's ``button_misplaced`` every
deal until the round is over gives the big blind to a player who has not had it this round, the
small blind and then the button likewise where it can, and otherwise moves as usual (docs/rules.md).
"""

from __future__ import annotations

import dataclasses
import enum
import functools
from collections import Counter
from dataclasses import dataclass
from typing import Any, NamedTuple

from tablectl.core.cards import card_str, rank_of
from tablectl.core.effects import Applied, Effect, HandEnded, Prompt, Ruling, Severity
from tablectl.core.events import (
    CardDrawn,
    CardSeen,
    DealerInput,
    DealerKey,
    DeviceStatus,
    Event,
    FloorCommand,
    FloorKind,
)
from tablectl.core.game.engine import ConfigError, HandConfig, Phase, start_hand
from tablectl.core.game.profiles import HouseRules, house_rules
from tablectl.core.game.variants import Structure, variant_from_code
from tablectl.core.procedure import (
    HandProgress,
    Refused,
    kill_hand,
    new_hand,
    prompt_for,
    short_call,
    step_hand,
)

ACE = 12


class TableConfigError(ValueError):
    """A table configuration that cannot work; the message names the key and the fix."""


@functools.lru_cache(maxsize=64)
def _rules_for(profile: str, options: tuple[tuple[str, Any], ...]) -> HouseRules:
    """House rules for a table (cached: every event asks)."""
    try:
        return house_rules(profile, **dict(options))
    except ValueError as exc:
        raise TableConfigError(f"profile/options: {exc}") from None


@dataclass(frozen=True, slots=True)
class TableConfig:
    room: str = "main"
    table: str = "1"
    seats: int = 9
    game: str = "NT"  # PHH variant code: NT, PT, FT, NO, PO, FO, PO/8, FO/8, ...
    blinds: tuple[int, ...] = (50, 100)
    ante: int = 0  # every player's ante
    big_blind_ante: int = 0  # one ante posted by the big blind for the table
    small_bet: int = 0  # fixed limit
    big_bet: int = 0
    spread_max: int = 0  # spread limit
    chip_unit: int = 1
    profile: str = "tda"
    options: tuple[tuple[str, Any], ...] = ()  # house-rule overrides

    def __post_init__(self) -> None:
        if not 2 <= self.seats <= 10:
            raise TableConfigError(f"seats: a table has 2 to 10 seats, got {self.seats!r}")
        try:
            variant = variant_from_code(self.game)
        except ValueError as exc:
            raise TableConfigError(f"game: {exc}") from None
        if not self.blinds or any(not isinstance(b, int) or b <= 0 for b in self.blinds):
            raise TableConfigError("blinds: give the blinds as whole chips > 0, e.g. blinds = [50, 100]")
        if variant.structure is Structure.FIXED_LIMIT and not (0 < self.small_bet <= self.big_bet):
            raise TableConfigError("small_bet, big_bet: a fixed-limit game needs both, e.g. 100 and 200")
        if variant.structure is Structure.SPREAD_LIMIT and self.spread_max <= 0:
            raise TableConfigError("spread_max: a spread-limit game needs its largest bet")
        self.rules()  # unknown profile or option: the message names it

    def rules(self) -> HouseRules:
        return _rules_for(self.profile, self.options)

    def to_json(self) -> dict[str, Any]:
        out = dataclasses.asdict(self)
        out["blinds"] = list(self.blinds)
        out["options"] = dict(self.options)
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TableConfig:
        if not isinstance(data, dict):
            raise TableConfigError("a table configuration is a mapping of keys to values")
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise TableConfigError(
                f"unknown key(s) {', '.join(sorted(unknown))}; valid keys: {', '.join(sorted(known))}"
            )
        values = dict(data)
        if "blinds" in values:
            values["blinds"] = tuple(values["blinds"])
        if "options" in values:
            options = values["options"]
            if not isinstance(options, dict):
                raise TableConfigError("options: a mapping of house-rule option to value")
            values["options"] = tuple(sorted(options.items()))
        for key in ("seats", "ante", "big_blind_ante", "small_bet", "big_bet", "spread_max", "chip_unit"):
            if key in values and (isinstance(values[key], bool) or not isinstance(values[key], int)):
                raise TableConfigError(f"{key}: expected a whole number, got {values[key]!r}")
        return cls(**values)


@dataclass(frozen=True, slots=True)
class Seat:
    name: str
    stack: int
    sitting_out: bool = False


class Positions(NamedTuple):
    """Who had the button and the blinds on one hand (felt seat numbers; heads-up the button is
    also the small blind; 0: a player who has since left the table)."""

    button: int
    small: int
    big: int


class ButtonFix(enum.Enum):
    """TBL-1: where the correction of a misplaced button stands."""

    OFF = "off"  # the button moves one seat each hand
    REPORTED = "reported"  # the floor reported a misplaced button: the next deal corrects it
    ROUND = "round"  # corrected: each deal keeps every position once until the round is over


class TableState(NamedTuple):
    """The table. A NamedTuple so that the copy made for every event is cheap."""

    config: TableConfig
    seats: tuple[Seat | None, ...]  # index 0 is seat 1
    button: int | None = None  # felt seat number of the button
    blinds: tuple[int, ...] = ()
    ante: int = 0
    big_blind_ante: int = 0
    next_level: tuple[tuple[int, ...], int] | None = None  # TBL-2: from the next deal
    hand_number: int = 0
    hand: HandProgress | None = None
    # TBL-5: the hand last played, kept (with its log of actions) until the next deal starts, so
    # that a ruling on its pot can still be made and its betting reconstructed.
    last_hand: HandProgress | None = None
    redeal: bool = False  # MD-2: after a misdeal (or a void hand) the button and blinds stay
    keep_button: bool = False  # the button was just placed (DEAL-5, TBL-1 correction)
    button_draw: tuple[int, ...] | None = None  # DEAL-5: seats still to draw for the button
    devices: tuple[tuple[str, bool], ...] = ()
    overrides: tuple[tuple[str, str, str], ...] = ()  # (by, ruling, decision)
    # TBL-1: the hands of the current round of the button (the round is over once every active
    # player has had the big blind), and the correction of a misplaced button.
    orbit: tuple[Positions, ...] = ()
    button_fix: ButtonFix = ButtonFix.OFF
    vacated: tuple[int, ...] = ()  # seats whose player left since the last deal

    def seat(self, number: int) -> Seat | None:
        if not 1 <= number <= len(self.seats):
            return None
        return self.seats[number - 1]


def new_table(
    config: TableConfig, players: dict[int, tuple[str, int]] | None = None, button: int | None = None
) -> TableState:
    """A table with players seated (seat number -> (name, chips)) and, if known, the button."""
    seats: list[Seat | None] = [None] * config.seats
    for number, (name, stack) in (players or {}).items():
        seats[number - 1] = Seat(name, stack)
    return TableState(
        config=config,
        seats=tuple(seats),
        button=button,
        blinds=config.blinds,
        ante=config.ante,
        big_blind_ante=config.big_blind_ante,
        keep_button=button is not None,
    )


_TABLE_INDEX = {name: index for index, name in enumerate(TableState._fields)}


def _evolve(state: TableState, **changes: Any) -> TableState:
    """A copy with ``changes`` (once per event: kept lean)."""
    values = list(state)
    for name, value in changes.items():
        values[_TABLE_INDEX[name]] = value
    new: TableState = tuple.__new__(TableState, values)
    return new


def step(state: TableState, event: Event) -> tuple[TableState, tuple[Effect, ...]]:
    """Apply one event. Input that makes no sense now changes nothing and says why."""
    try:
        after, effects = _step(state, event)
    except Refused as refused:
        after, effects = state, (refused.ruling,)
    if after.hand is not None:
        for effect in effects:
            if type(effect) is Prompt:
                break
        else:  # the dealer's display always shows the next step
            effects = (*effects, prompt_for(after.hand))
    return after, effects


def _step(state: TableState, event: Event) -> tuple[TableState, tuple[Effect, ...]]:
    if isinstance(event, DeviceStatus):
        return _device(state, event)
    seat = None if isinstance(event, CardDrawn) else event.seat
    if seat is not None and not 1 <= seat <= len(state.seats):
        raise Refused("INPUT", f"there is no seat {seat} at this table: seats are 1 to {len(state.seats)}")
    if isinstance(event, FloorCommand):
        return _floor(state, event)
    hand = state.hand
    if hand is None:
        return _between_hands(state, event)
    pending = hand.pending
    confirm = isinstance(event, DealerInput) and event.key is DealerKey.CONFIRM
    if confirm and pending is not None and pending.kind in ("misdeal", "void"):
        return _end_without_play(state, pending.kind, pending.rule)
    hand, effects = step_hand(hand, event, state.config.rules())
    state = _evolve(state, hand=hand)
    if hand.game.phase is Phase.COMPLETE:
        return _hand_complete(state, effects)
    return state, effects


# -- between hands ----------------------------------------------------------------------------


def _active_seats(state: TableState) -> list[int]:
    return [
        number
        for number in range(1, len(state.seats) + 1)
        if (s := state.seat(number)) is not None and not s.sitting_out and s.stack > 0
    ]


def _between_hands(state: TableState, event: Event) -> tuple[TableState, tuple[Effect, ...]]:
    if isinstance(event, CardSeen):
        return state, ()  # the camera sees cards gathered and shuffled between hands
    if isinstance(event, CardDrawn) and state.button_draw is not None:
        return _draw_for_button(state, event)
    if isinstance(event, DealerInput) and event.key is DealerKey.NEW_HAND:
        return _start_hand(state)
    if isinstance(event, CardDrawn):
        if event.foreign:
            text = (
                "A card with a different back was found in the stub: the action stands. "
                "Remove it from the deck."
            )
            return state, (Ruling("IRR-1", text, Severity.FLOOR),)
        raise Refused("DEAL-6", "no hand in progress: the next card is not shown; put it back face down")
    raise Refused("INPUT", "no hand in progress: press new hand to deal")


def _start_hand(state: TableState) -> tuple[TableState, tuple[Effect, ...]]:
    active = _active_seats(state)
    if len(active) < 2:
        raise Refused("TBL-3", "a hand needs at least two players with chips in their seats")
    if state.button is None:
        # DEAL-5: the button goes to the first ace dealt face up, clockwise from seat 1.
        draw = tuple(active)
        text = "New game: deal one card face up to each player from the first seat until an ace appears."
        return _evolve(state, button_draw=draw), (Ruling("DEAL-5", text, Severity.INFO), Prompt(text))
    effects: list[Effect] = []
    orbit, new_round = _orbit_before_deal(state, active)
    fix = state.button_fix
    if state.redeal or state.keep_button:
        button = state.button if state.button in active else _next_active(state, state.button, active)
    elif fix is not ButtonFix.OFF:
        button, ruling = _fair_button(state, orbit, active)  # TBL-1: a misplaced button corrected
        effects.extend(ruling)
        fix = ButtonFix.ROUND
    else:
        button = _next_active(state, state.button, active)  # TBL-1: one seat on each hand
    if new_round:
        fix = ButtonFix.OFF  # the round of the correction is over
    blinds, ante, bb_ante = state.blinds, state.ante, state.big_blind_ante
    if state.next_level is not None and not state.redeal:
        (blinds, ante), bb_ante = state.next_level, state.big_blind_ante
        effects.append(
            Ruling(
                "TBL-2",
                f"New level from this deal: blinds {'/'.join(f'{b:,}' for b in blinds)}.",
                Severity.INFO,
            )
        )
    start = active.index(button) + 1
    seats_in = tuple(active[(start + k) % len(active)] for k in range(len(active)))
    n = len(seats_in)
    stacks = tuple(state.seats[s - 1].stack for s in seats_in)  # type: ignore[union-attr]
    antes: tuple[int, ...] = ()
    if ante:
        antes = (ante,) * n
    elif bb_ante:
        # The engine takes antes in posting order: index 1 is the big blind's, heads-up too.
        antes = tuple(bb_ante if p == 1 else 0 for p in range(n))
    cfg = state.config
    variant = variant_from_code(cfg.game)
    try:
        hand_config = HandConfig(
            variant=variant,
            starting_stacks=stacks,
            blinds=blinds[: 2 if n == 2 else n],  # a straddle needs a player to post it
            antes=antes,
            min_bet=blinds[-1] if variant.structure is Structure.SPREAD_LIMIT else 0,
            small_bet=cfg.small_bet,
            big_bet=cfg.big_bet,
            spread_max=cfg.spread_max,
            chip_unit=cfg.chip_unit,
            rules=cfg.rules(),
        )
    except ConfigError as exc:
        raise Refused("INPUT", f"this hand cannot be dealt ({exc}): the floor sets blinds that fit") from None
    number = state.hand_number + 1
    hand = new_hand(number, seats_in, start_hand(hand_config))
    state = _evolve(
        state,
        button=button,
        blinds=blinds,
        ante=ante,
        big_blind_ante=bb_ante,
        next_level=None if not state.redeal else state.next_level,
        hand_number=number,
        hand=hand,
        last_hand=None,
        redeal=False,
        keep_button=False,
        orbit=(*orbit, _positions(button, active)),
        button_fix=fix,
        vacated=(),
    )
    effects.append(Prompt(f"Hand {number}: button at seat {button}. " + prompt_for(hand).text))
    return state, tuple(effects)


def _next_active(state: TableState, seat: int, active: list[int]) -> int:
    total = len(state.seats)
    for step_ in range(1, total + 1):
        candidate = (seat - 1 + step_) % total + 1
        if candidate in active:
            return candidate
    raise Refused("TBL-1", "no active seat for the button")


# -- TBL-1: every player gets one chance at each position in the round -------------------------


def _positions(button: int, seats: list[int] | tuple[int, ...]) -> Positions:
    """The button and the blinds with the button at ``button`` among ``seats`` (in seat order)."""
    at = seats.index(button)
    n = len(seats)
    if n == 2:  # heads-up the button posts the small blind (DEAL-4)
        return Positions(button, button, seats[(at + 1) % n])
    return Positions(button, seats[(at + 1) % n], seats[(at + 2) % n])


def _orbit_before_deal(state: TableState, active: list[int]) -> tuple[tuple[Positions, ...], bool]:
    """The hands of this round before the next deal, and whether that deal starts a new round.

    A redeal (MD-2) takes the place of the hand misdealt. The round is over once every active
    player has had the big blind in it; a round kept longer than twice the seats (players coming
    and going) is closed too, so that the record stays small."""
    orbit = state.orbit[:-1] if state.redeal else state.orbit
    bigs = {p.big for p in orbit}
    if orbit and (all(seat in bigs for seat in active) or len(orbit) >= 2 * len(state.seats)):
        return (), True
    return orbit, False


def _fair_button(
    state: TableState, orbit: tuple[Positions, ...], active: list[int]
) -> tuple[int, tuple[Ruling, ...]]:
    """The button for the next deal that keeps every position once a round where it can.

    Each active seat could take the button; that fixes the blinds. The choice gives the big blind
    to a player who has had it least this round (no one pays a second while another active
    player has had none: any seat can be made the big blind), then the small blind, then the
    button likewise, and among equals the seat nearest the usual move: one seat clockwise from
    where the button really was."""
    assert state.button is not None
    buttons = Counter(p.button for p in orbit)
    smalls = Counter(p.small for p in orbit)
    bigs = Counter(p.big for p in orbit)
    usual = _next_active(state, state.button, active)
    start = active.index(usual)
    clockwise = active[start:] + active[:start]

    def cost(distance: int) -> tuple[int, int, int, int]:
        p = _positions(clockwise[distance], active)
        return (bigs[p.big], smalls[p.small], buttons[p.button], distance)

    best = min(range(len(clockwise)), key=cost)
    button = clockwise[best]
    if button == usual and state.button_fix is not ButtonFix.REPORTED:
        return button, ()  # the usual move already keeps every position once this round
    chosen = _positions(button, active)
    buttons[chosen.button] += 1
    smalls[chosen.small] += 1
    bigs[chosen.big] += 1
    once = all(count[seat] <= 1 for count in (buttons, smalls, bigs) for seat in active)
    if once:
        why = "every player gets each position once this round"
    else:  # a position was already had twice (the misplaced hand), or the seats allow no better
        why = "every player has the big blind this round before anyone has it again"
    text = f"Button corrected for this hand: seat {button} has the button so that {why}."
    return button, (Ruling("TBL-1", text, Severity.INFO),)


def _draw_for_button(state: TableState, event: CardDrawn) -> tuple[TableState, tuple[Effect, ...]]:
    active = _active_seats(state)
    draw = tuple(s for s in state.button_draw or () if s in active)  # players who left draw no more
    if len(draw) < 2:
        return _evolve(state, button_draw=None), (
            Ruling("DEAL-5", "Too few players left to deal for the button.", Severity.INFO),
        )
    seat = draw[0]
    card = event.card
    if card is not None and rank_of(card) == ACE:
        text = (
            f"Seat {seat} drew the first ace ({card_str(card)}): the button starts there. Reshuffle and deal."
        )
        return _evolve(state, button=seat, button_draw=None, keep_button=True), (
            Ruling("DEAL-5", text, Severity.INFO),
        )
    rest = draw[1:] + (seat,)
    shown = card_str(card) if card is not None else "a card"
    return _evolve(state, button_draw=rest), (
        Prompt(f"Seat {seat} drew {shown}. Next card to seat {rest[0]}."),
    )


def _end_without_play(state: TableState, kind: str, rule: str) -> tuple[TableState, tuple[Effect, ...]]:
    """A misdeal (MD-2) or a void hand (IRR-1, IRR-2, floor): every chip goes back."""
    hand = state.hand
    assert hand is not None
    stacks = {seat: hand.game.config.starting_stacks[p] for p, seat in enumerate(hand.seats_in)}
    # MD-2: a misdeal is redealt with the same button and blinds; so is a void hand.
    state = _evolve(state, hand=None, last_hand=hand, redeal=True)
    text = (
        "Misdeal: every chip goes back; redeal with the same button and blinds."
        if kind == "misdeal"
        else "Hand void: every chip goes back to who bet it; redeal."
    )
    effects: tuple[Effect, ...] = (
        Ruling(
            "MD-2" if kind == "misdeal" else rule,
            text,
            Severity.MISDEAL if kind == "misdeal" else Severity.VOID,
        ),
        HandEnded(hand.number, stacks, voided=(kind == "void"), misdeal=(kind == "misdeal")),
        Prompt("Press new hand to redeal."),
    )
    return state, effects


def _hand_complete(state: TableState, effects: tuple[Effect, ...]) -> tuple[TableState, tuple[Effect, ...]]:
    hand = state.hand
    assert hand is not None
    finishing = hand.game.finishing_stacks
    seats = list(state.seats)
    result: dict[int, int] = {}
    for position, seat in enumerate(hand.seats_in):
        current = seats[seat - 1]
        assert current is not None
        seats[seat - 1] = dataclasses.replace(current, stack=finishing[position])
        result[seat] = finishing[position]
    out = list(effects)
    broke = [p for p in range(hand.n) if finishing[p] == 0]
    if len(broke) >= 2 and state.config.rules().tournament:
        # TBL-4: more chips at the start of the hand places higher; equal: first left of the dealer.
        order = sorted(broke, key=lambda p: (-hand.game.config.starting_stacks[p], p))
        places = ", ".join(f"seat {hand.seat(p)}" for p in order)
        out.append(
            Ruling("TBL-4", f"Players out on the same hand, higher place first: {places}.", Severity.INFO)
        )
    out.append(HandEnded(hand.number, result))
    won: dict[int, int] = {}
    for award in hand.game.awards:
        for position, chips in award.shares:
            won[hand.seat(position)] = won.get(hand.seat(position), 0) + chips
    pushes = ", ".join(f"seat {seat} {chips:,}" for seat, chips in sorted(won.items()))
    out.append(Prompt(f"Push the pot: {pushes}. Press new hand to deal the next one."))
    return _evolve(state, seats=tuple(seats), hand=None, last_hand=hand), tuple(out)


# -- devices and the floor --------------------------------------------------------------------


def _device(state: TableState, event: DeviceStatus) -> tuple[TableState, tuple[Effect, ...]]:
    devices = dict(state.devices)
    was = devices.get(event.device, True)
    devices[event.device] = event.ok
    state = _evolve(state, devices=tuple(sorted(devices.items())))
    if event.ok == was:
        return state, ()
    if event.ok:
        text = f"The {event.device} is back. Check that every card dealt meanwhile was seen."
        return state, (Ruling("INPUT", text, Severity.INFO),)
    text = f"The {event.device} is lost ({event.detail or 'no signal'}): reads may be missed. Call the floor."
    return state, (Ruling("INPUT", text, Severity.FLOOR),)


def _floor(state: TableState, event: FloorCommand) -> tuple[TableState, tuple[Effect, ...]]:
    kind = event.kind
    by = event.by.strip()
    if not by:
        raise Refused("INPUT", "a floor command names the supervisor who gives it")
    if kind is FloorKind.VOID_HAND:
        if state.hand is None:
            raise Refused("INPUT", "no hand in progress to void")
        state = _evolve(state, overrides=state.overrides + ((by, "void", "void hand"),))
        return _end_without_play(state, "void", "FLOOR")
    if kind is FloorKind.OVERRIDE:
        return _override(state, event, by)
    if kind is FloorKind.SET_BLINDS:
        if not event.blinds or any(b <= 0 for b in event.blinds) or event.ante < 0:
            raise Refused("INPUT", "set blinds needs the new blinds, e.g. [100, 200], and an ante >= 0")
        level = (tuple(event.blinds), event.ante)
        text = f"New blinds {'/'.join(f'{b:,}' for b in event.blinds)} from the next deal."
        return _evolve(state, next_level=level), (Ruling("TBL-2", text, Severity.INFO),)
    if kind is FloorKind.KILL_HAND:
        if state.hand is None or event.seat is None:
            raise Refused("INPUT", "kill hand needs a hand in progress and a seat")
        rule = event.ruling or "IRR-9"
        if rule == "BOARD-6":
            return _short_call(state, event, by, "dead")
        hand, effects = kill_hand(state.hand, event.seat, rule, by)
        state = _evolve(state, hand=hand, overrides=state.overrides + ((by, "kill", f"seat {event.seat}"),))
        if hand.game.phase is Phase.COMPLETE:
            return _hand_complete(state, effects)
        return state, effects
    if kind is FloorKind.BUTTON_MISPLACED:
        return _button_misplaced(state, event, by)
    if kind is FloorKind.DECK_CHECK:
        if event.amount is None or not 0 <= event.amount <= 52:
            raise Refused("INPUT", "deck check needs the number of cards counted (0 to 52)")
        count = event.amount
        if count >= 52:
            return state, (Ruling("IRR-4", "The deck is complete.", Severity.INFO),)
        text = f"{52 - count} card(s) missing from the deck: the hand stands. Replace the deck."
        return state, (Ruling("IRR-4", text, Severity.FLOOR),)
    return _seating(state, event)


def _button_misplaced(
    state: TableState, event: FloorCommand, by: str
) -> tuple[TableState, tuple[Effect, ...]]:
    """TBL-1: the floor reports that the last hand's button was misplaced; ``seat``: where it
    really was (the blinds were posted by the players after it), or none if the table's record
    of that hand stands. The next deals correct the button and blinds until the round is over."""
    if state.hand is not None:
        raise Refused("TBL-1", "the button is corrected between hands: report it once this hand is over")
    last = state.last_hand
    if last is None or not state.orbit:
        raise Refused("TBL-1", "no hand has been dealt yet: there is no misplaced button to correct")
    if state.redeal:
        raise Refused(
            "MD-2",
            "the misdealt hand is redealt with the same button and blinds: "
            "report a misplaced button once the redeal is played",
        )
    number = event.seat
    orbit = state.orbit
    if number is not None:
        if number not in last.seats_in:
            dealt = ", ".join(str(s) for s in sorted(last.seats_in))
            why = "is empty" if state.seat(number) is None else "was not dealt in last hand"
            raise Refused("INPUT", f"seat {number} {why}: the button was at one of seats {dealt}")
        actual = _positions(number, sorted(last.seats_in))
        # A player who has left since takes their positions along (as remove_player does).
        actual = Positions(*(0 if s in state.vacated else s for s in actual))
        orbit = (*orbit[:-1], actual)
        text = f"The button was at seat {number} on hand {last.number}: the next deal corrects it."
        decision = f"button misplaced: seat {number}"
    else:
        text = f"The button was misplaced on hand {last.number}: the next deal corrects it."
        decision = "button misplaced"
    state = _evolve(
        state,
        button=number if number is not None else state.button,
        keep_button=False,
        orbit=orbit,
        button_fix=ButtonFix.REPORTED,
        overrides=state.overrides + ((by, "TBL-1", decision),),
    )
    return state, (Ruling("TBL-1", text, Severity.INFO),)


def _short_call(
    state: TableState, event: FloorCommand, by: str, decision: str
) -> tuple[TableState, tuple[Effect, ...]]:
    """BOARD-6: the floor rules on a call that was short when the next round was dealt."""
    if state.hand is None or event.seat is None or event.amount is None:
        raise Refused("INPUT", "a BOARD-6 ruling needs a hand in progress, the seat and the amount short")
    hand, effects = short_call(state.hand, event.seat, event.amount, decision, by)
    record = (by, "BOARD-6", f"{decision} seat {event.seat} {event.amount}")
    state = _evolve(state, hand=hand, overrides=state.overrides + (record,))
    if hand.game.phase is Phase.COMPLETE:
        return _hand_complete(state, effects)
    return state, effects


def _override(state: TableState, event: FloorCommand, by: str) -> tuple[TableState, tuple[Effect, ...]]:
    hand = state.hand
    decision = (event.decision or "").lower()
    if event.ruling == "BOARD-6":
        return _short_call(state, event, by, decision)
    if hand is None or hand.pending is None:
        raise Refused("INPUT", "no ruling is waiting: nothing to override")
    if decision not in ("accept", "reject"):
        raise Refused("INPUT", "an override decides 'accept' or 'reject' the waiting ruling")
    record = (by, hand.pending.rule, decision)
    state = _evolve(state, overrides=state.overrides + (record,))
    if decision == "accept":
        if hand.pending.kind in ("misdeal", "void"):
            return _end_without_play(state, hand.pending.kind, hand.pending.rule)
        hand = hand._replace(pending=None)
        return _evolve(state, hand=hand), (prompt_for(hand),)
    hand = hand._replace(pending=None)
    text = f"The floor ({by}) overrides {record[1]}: the hand goes on."
    return _evolve(state, hand=hand), (Ruling(record[1], text, Severity.INFO), prompt_for(hand))


def _seating(state: TableState, event: FloorCommand) -> tuple[TableState, tuple[Effect, ...]]:
    kind = event.kind
    number = event.seat
    if number is None or not 1 <= number <= len(state.seats):
        raise Refused("INPUT", f"{kind.value} needs a seat from 1 to {len(state.seats)}")
    seats = list(state.seats)
    current = seats[number - 1]
    in_hand = state.hand is not None and number in state.hand.seats_in
    if kind is FloorKind.MOVE_BUTTON:
        if state.hand is not None:
            raise Refused("TBL-1", "the button moves between hands")
        text = f"Button corrected to seat {number} (TBL-1)."
        # The floor's own placing: it also ends a computed correction (button_misplaced).
        state = _evolve(state, button=number, keep_button=True, button_fix=ButtonFix.OFF)
        return state, (Ruling("TBL-1", text, Severity.INFO),)
    if kind is FloorKind.SEAT_PLAYER:
        if current is not None:
            raise Refused("INPUT", f"seat {number} is taken by {current.name}")
        if not event.name or not event.amount or event.amount <= 0:
            raise Refused("INPUT", "seat player needs a name and a buy-in > 0")
        seats[number - 1] = Seat(event.name, event.amount)
        text = f"{event.name} sits in seat {number} and is dealt in from the next deal, blinds included."
        return _evolve(state, seats=tuple(seats)), (Ruling("TBL-3", text, Severity.INFO),)
    if current is None:
        raise Refused("INPUT", f"seat {number} is empty")
    if kind is FloorKind.TRANSFER:
        # TBL-5: management, having reconstructed the betting, re-settles a pot between hands.
        if state.hand is not None:
            raise Refused("TBL-5", "chips move between players between hands only")
        to_seat = event.to_seat
        if type(to_seat) is bool:  # journaled by a version that took it for seat 1: fold it as then
            to_seat = int(to_seat)
        whole = type(to_seat) is int  # anything else only an older journal holds: refused
        target = state.seat(to_seat) if whole and to_seat is not None else None
        if target is None or to_seat == number:
            raise Refused("INPUT", "transfer needs to_seat: another occupied seat that receives the chips")
        if not event.amount or event.amount <= 0 or event.amount > current.stack:
            raise Refused(
                "INPUT", f"transfer needs an amount from 1 to seat {number}'s {current.stack:,} chips"
            )
        assert to_seat is not None
        seats[number - 1] = dataclasses.replace(current, stack=current.stack - event.amount)
        seats[to_seat - 1] = dataclasses.replace(target, stack=target.stack + event.amount)
        text = f"The floor ({event.by}) moves {event.amount:,} from seat {number} to seat {to_seat}."
        record = (event.by, "TBL-5", f"transfer {event.amount} seat {number} to seat {to_seat}")
        state = _evolve(state, seats=tuple(seats), overrides=state.overrides + (record,))
        return state, (Ruling("TBL-5", text, Severity.INFO),)
    if kind is FloorKind.ADD_CHIPS:
        if in_hand:
            raise Refused("BET-17", "table stakes: chips are added between hands only")
        if not event.amount or event.amount <= 0:
            raise Refused("INPUT", "add chips needs an amount > 0")
        seats[number - 1] = dataclasses.replace(current, stack=current.stack + event.amount)
        return _evolve(state, seats=tuple(seats)), ()
    if kind is FloorKind.REMOVE_PLAYER:
        if in_hand:
            raise Refused("INPUT", f"seat {number} is in the hand: remove the player after it")
        seats[number - 1] = None
        # TBL-1: the positions the player had this round leave with them (a newcomer starts afresh).
        orbit = tuple(Positions(*(0 if s == number else s for s in p)) for p in state.orbit)
        vacated = tuple(sorted({*state.vacated, number}))
        return _evolve(state, seats=tuple(seats), orbit=orbit, vacated=vacated), ()
    if kind in (FloorKind.SIT_OUT, FloorKind.SIT_IN):
        seats[number - 1] = dataclasses.replace(current, sitting_out=kind is FloorKind.SIT_OUT)
        return _evolve(state, seats=tuple(seats)), ()
    raise Refused("INPUT", f"unknown floor command {kind.value}")


__all__ = [
    "Applied",
    "ButtonFix",
    "Positions",
    "Seat",
    "TableConfig",
    "TableConfigError",
    "TableState",
    "new_table",
    "step",
]
