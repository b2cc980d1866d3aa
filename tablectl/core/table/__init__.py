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
* input refused at the boundary (``InputRefused``) is journaled for the record and answered
  with a ``Severity.REFUSED`` ruling: it changes nothing;
* the floor's ``void_hand`` ends any hand in progress with every chip back where it
  was when the hand started; ``new hand`` then deals the next one (button and blinds
  unchanged after a void hand or a misdeal, MD-2);
* the dealer's own commands (``DealerCommand``, from the dealer's screen): ``confirm`` is the
  panel's confirm key, refused with a reason when nothing waits; ``call_floor`` raises a
  ``Severity.FLOOR`` ruling (rule ``CALL``) and lists the call until the floor answers it (an
  ``override`` with ruling ``CALL``); ``clock_in`` and ``clock_out`` say who deals here;
* a finished hand stays in ``TableState.last_hand`` (with its log of actions) until
  the next deal starts: a ruling on its pot may be asked for until then (TBL-5).

The table's code, in the order it imports: ``config`` (``TableConfig``), ``state``
(``TableState`` and its copier), ``button`` (DEAL-5, TBL-1), ``hands`` (starting and ending
hands, MD-2), ``floor`` (floor commands, devices); this module holds the step.
"""

from __future__ import annotations

from tablectl.core.effects import Applied, Effect, HandEnded, Prompt
from tablectl.core.events import (
    CardDrawn,
    DealerAction,
    DealerCommand,
    DealerInput,
    DealerKey,
    DeviceStatus,
    Event,
    FloorCommand,
    InputRefused,
)
from tablectl.core.game.engine import Phase
from tablectl.core.procedure import Refused, prompt_for, step_hand
from tablectl.core.table.config import TableConfig, TableConfigError
from tablectl.core.table.dealer import check_dealer_command, dealer_command
from tablectl.core.table.floor import _device, _floor, _refused_input
from tablectl.core.table.hands import _between_hands, _end_without_play, _hand_complete
from tablectl.core.table.state import (
    ButtonFix,
    DealerShift,
    FloorCall,
    Positions,
    Remedy,
    Seat,
    TableState,
    _evolve,
    _hand_times,
    new_table,
)


def step(state: TableState, event: Event) -> tuple[TableState, tuple[Effect, ...]]:
    """Apply one event. Input that makes no sense now changes nothing and says why."""
    try:
        after, effects = _step(state, event)
    except Refused as refused:
        after, effects = state, (refused.ruling,)
    for effect in effects:
        if type(effect) is HandEnded and not (effect.voided or effect.misdeal):
            # Hands per hour and the last hand's time count the hands played out, at the time
            # of the event that ended each (the core reads no clock).
            after = _evolve(after, hand_times=_hand_times(after.hand_times, event.at))
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
    if isinstance(event, InputRefused):
        return _refused_input(event)
    if isinstance(event, DealerCommand):
        check_dealer_command(event)
        if event.action is not DealerAction.CONFIRM:
            return dealer_command(state, event)
        if state.hand is None or state.hand.pending is None:
            raise Refused(
                "INPUT",
                "nothing waits for confirmation: confirm is for a ruling that says 'press confirm'",
            )
        event = DealerInput(DealerKey.CONFIRM, at=event.at)  # from here on, the panel's key
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


__all__ = [
    "Applied",
    "ButtonFix",
    "DealerShift",
    "FloorCall",
    "Positions",
    "Remedy",
    "Seat",
    "TableConfig",
    "TableConfigError",
    "TableState",
    "new_table",
    "step",
]
