"""The floor's commands and the devices' status (layer 4).

Floor rulings the devices cannot see come as floor commands: ``kill_hand`` (IRR-8,
IRR-9, and BOARD-6 with the amount short), ``override`` of a waiting ruling (and
BOARD-6 ``make_good``), ``button_misplaced`` and ``move_button`` (TBL-1), ``set_blinds``
(TBL-2), ``seat_player`` (TBL-3), ``deck_check`` (IRR-4), ``transfer`` (TBL-5); chips are
added between hands only (BET-17). A device lost or back is an ``INPUT`` ruling.
"""

from __future__ import annotations

import dataclasses

from tablectl.core.effects import Effect, Ruling, Severity
from tablectl.core.events import (
    FLOOR_FIELDS,
    MAX_CHIPS,
    NO_SUPERVISOR,
    DeviceStatus,
    FloorCommand,
    FloorKind,
    InputRefused,
    floor_command_problem,
)
from tablectl.core.game.engine import Phase
from tablectl.core.procedure import Refused, kill_hand, prompt_for, short_call
from tablectl.core.table.button import _button_misplaced
from tablectl.core.table.dealer import CALL_RULE
from tablectl.core.table.hands import _end_without_play, _hand_complete
from tablectl.core.table.rotation import Change, RotationProgress, level_announced
from tablectl.core.table.state import ButtonFix, Positions, Seat, TableState, _evolve, _remedied


def _device(state: TableState, event: DeviceStatus) -> tuple[TableState, tuple[Effect, ...]]:
    devices = dict(state.devices)
    was = devices.get(event.device, True)
    devices[event.device] = event.ok
    state = _evolve(state, devices=tuple(sorted(devices.items())))
    if event.ok and event.reads_lost:
        # Back after a restart that lost reads, or working but reporting dropped reads: cards may
        # have left the shoe unseen, which only the floor can settle.
        text = (
            f"The {event.device} lost reads ({event.detail or 'no detail'}): reads were lost. Check "
            f"every card dealt against the display and call the floor."
        )
        return state, (Ruling("INPUT", text, Severity.FLOOR),)
    if event.ok == was:
        return state, ()
    if event.ok:
        text = f"The {event.device} is back. Check that every card dealt meanwhile was seen."
        return state, (Ruling("INPUT", text, Severity.INFO),)
    text = f"The {event.device} is lost ({event.detail or 'no signal'}): reads may be missed. Call the floor."
    return state, (Ruling("INPUT", text, Severity.FLOOR),)


def _refused_input(event: InputRefused) -> tuple[TableState, tuple[Effect, ...]]:
    """Input refused at the boundary, journaled for the record: it changes nothing."""
    who = f" from {event.by}" if event.by else ""
    raise Refused("INPUT", f"{event.source} {event.what}{who} refused: {event.reason}")


def _floor(state: TableState, event: FloorCommand) -> tuple[TableState, tuple[Effect, ...]]:
    # The type and bounds of every field this kind reads first, on every path (the boundary
    # checks every field, to answer the supervisor at once). to_seat is the transfer's to check:
    # an older reader let a boolean through, and its journals fold as they did then.
    fields = FLOOR_FIELDS[event.kind] - {"to_seat"}
    problem = floor_command_problem(event, len(state.seats), fields)
    if problem is not None:
        raise Refused("INPUT", problem if problem == NO_SUPERVISOR else f"{event.kind.value}: {problem}")
    kind = event.kind
    by = event.by.strip()
    if kind is FloorKind.VOID_HAND:
        if state.hand is None:
            raise Refused("INPUT", "no hand in progress to void")
        state = _evolve(state, overrides=_remedied(state, by, "void", "void hand", event.user))
        return _end_without_play(state, "void", "FLOOR")
    if kind is FloorKind.OVERRIDE:
        return _override(state, event, by)
    if kind is FloorKind.SET_BLINDS:
        if not event.blinds or any(b <= 0 for b in event.blinds) or event.ante < 0:
            raise Refused("INPUT", "set blinds needs the new blinds, e.g. [100, 200], and an ante >= 0")
        if state.config.rotation is not None:
            return _new_level(state)
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
        state = _evolve(
            state, hand=hand, overrides=_remedied(state, by, "kill", f"seat {event.seat}", event.user)
        )
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


def _new_level(state: TableState) -> tuple[TableState, tuple[Effect, ...]]:
    """HO-13 at a table of mixed games: the stakes are each game's in the rotation. By level, a
    new level changes the game from the next deal (TBL-2); by orbit, the level is no table's to set."""
    rotation = state.config.rotation
    assert rotation is not None
    if rotation.change is not Change.LEVEL:
        raise Refused(
            "HO-13",
            "this table's games change by orbit, each at its stakes in the table file's [rotation]: "
            "a new level does not change them",
        )
    progress = state.rotation or RotationProgress()
    if progress.level_up:
        raise Refused("HO-13", "a new level is already announced: the game changes on the next deal")
    following = rotation.games[(progress.game_index + 1) % len(rotation.games)]
    text = (
        f"New level from the next deal: the game changes to {following.label}, {following.stakes} "
        "(the rotation's stakes)."
    )
    return _evolve(state, rotation=level_announced(progress)), (Ruling("TBL-2", text, Severity.INFO),)


def _short_call(
    state: TableState, event: FloorCommand, by: str, decision: str
) -> tuple[TableState, tuple[Effect, ...]]:
    """BOARD-6: the floor rules on a call that was short when the next round was dealt."""
    if state.hand is None or event.seat is None or event.amount is None:
        raise Refused("INPUT", "a BOARD-6 ruling needs a hand in progress, the seat and the amount short")
    hand, effects = short_call(state.hand, event.seat, event.amount, decision, by)
    remedies = _remedied(state, by, "BOARD-6", f"{decision} seat {event.seat} {event.amount}", event.user)
    state = _evolve(state, hand=hand, overrides=remedies)
    if hand.game.phase is Phase.COMPLETE:
        return _hand_complete(state, effects)
    return state, effects


def _override(state: TableState, event: FloorCommand, by: str) -> tuple[TableState, tuple[Effect, ...]]:
    hand = state.hand
    decision = (event.decision or "").lower()
    if event.ruling == "BOARD-6":
        return _short_call(state, event, by, decision)
    if event.ruling == CALL_RULE:
        return _answer_calls(state, event, by, decision)
    if hand is None or hand.pending is None:
        raise Refused("INPUT", "no ruling is waiting: nothing to override")
    if decision not in ("accept", "reject"):
        raise Refused("INPUT", "an override decides 'accept' or 'reject' the waiting ruling")
    rule = hand.pending.rule
    state = _evolve(state, overrides=_remedied(state, by, rule, decision, event.user))
    if decision == "accept":
        if hand.pending.kind in ("misdeal", "void"):
            return _end_without_play(state, hand.pending.kind, hand.pending.rule)
        hand = hand._replace(pending=None)
        return _evolve(state, hand=hand), (prompt_for(hand),)
    hand = hand._replace(pending=None)
    text = f"The floor ({by}) overrides {rule}: the hand goes on."
    return _evolve(state, hand=hand), (Ruling(rule, text, Severity.INFO), prompt_for(hand))


def _answer_calls(
    state: TableState, event: FloorCommand, by: str, decision: str
) -> tuple[TableState, tuple[Effect, ...]]:
    """A supervisor answers the dealer's calls to the floor: every open call is closed."""
    if not state.floor_calls:
        raise Refused("INPUT", "no call to the floor is open at this table")
    if decision not in ("accept", "resolve"):
        raise Refused("INPUT", "a floor call is answered with decision 'accept' or 'resolve'")
    count = len(state.floor_calls)
    state = _evolve(state, floor_calls=(), overrides=_remedied(state, by, CALL_RULE, decision, event.user))
    calls = "call" if count == 1 else f"{count} calls"
    text = f"The floor ({by}) answers the dealer's {calls}."
    effects: tuple[Effect, ...] = (Ruling(CALL_RULE, text, Severity.INFO),)
    if state.hand is not None:
        effects = (*effects, prompt_for(state.hand))
    return state, effects


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
        if not event.name or not event.name.strip() or not event.amount or event.amount <= 0:
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
        what = f"transfer {event.amount} seat {number} to seat {to_seat}"
        state = _evolve(
            state, seats=tuple(seats), overrides=_remedied(state, event.by, "TBL-5", what, event.user)
        )
        return state, (Ruling("TBL-5", text, Severity.INFO),)
    if kind is FloorKind.ADD_CHIPS:
        if in_hand:
            raise Refused("BET-17", "table stakes: chips are added between hands only")
        if not event.amount or event.amount <= 0:
            raise Refused("INPUT", "add chips needs an amount > 0")
        if current.stack + event.amount > MAX_CHIPS:
            raise Refused("INPUT", f"add chips: a stack holds at most {MAX_CHIPS:,} chips")
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
