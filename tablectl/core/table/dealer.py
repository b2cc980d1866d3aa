"""The dealer's own commands from the dealer's screen (layer 4): call the floor, clock in and out.

``confirm`` is the panel's confirm key and goes the key's way (tablectl.core.table.step);
``call_floor`` raises an alert the floor answers with an ``override`` of ruling ``CALL``
(tablectl.core.table.floor); ``clock_in`` and ``clock_out`` say who deals here, for the room.
No RULES id: these are the room's operations (rule ``CALL`` for a call, ``INPUT`` otherwise).
"""

from __future__ import annotations

from tablectl.core.effects import Effect, Ruling, Severity
from tablectl.core.events import DealerAction, DealerCommand, dealer_command_problem
from tablectl.core.procedure import Refused
from tablectl.core.table.state import MAX_FLOOR_CALLS, DealerShift, FloorCall, TableState, _evolve

# The rule a floor call is listed and answered under (an override with ruling "CALL").
CALL_RULE = "CALL"


def check_dealer_command(command: DealerCommand) -> None:
    """Refuse a command whose fields are wrong, whatever the table's moment."""
    problem = dealer_command_problem(command)
    if problem is not None:
        raise Refused("INPUT", f"{command.action.value.replace('_', ' ')}: {problem}")


def dealer_command(state: TableState, event: DealerCommand) -> tuple[TableState, tuple[Effect, ...]]:
    """Apply a checked call_floor, clock_in or clock_out (confirm is the table's, as a key)."""
    table = state.config.table
    name = (event.name or "").strip()
    if event.action is DealerAction.CALL_FLOOR:
        if len(state.floor_calls) >= MAX_FLOOR_CALLS:
            raise Refused(
                "INPUT", f"the floor has been called {len(state.floor_calls)} times and is on its way"
            )
        by = name or (state.dealer.name if state.dealer is not None else "the dealer")
        reason = (event.reason or "").strip()
        call = FloorCall(event.at, by, reason, state.hand_number)
        text = f"{by} calls the floor to table {table}" + (f": {reason}." if reason else ".")
        state = _evolve(state, floor_calls=(*state.floor_calls, call))
        return state, (Ruling(CALL_RULE, text, Severity.FLOOR),)
    if event.action is DealerAction.CLOCK_IN:
        current = state.dealer
        if current is not None and current.name == name:
            raise Refused("INPUT", f"{name} is already clocked in at table {table}")
        text = f"{name} clocks in at table {table}" + (
            f" ({current.name} clocks out)." if current is not None else "."
        )
        return _evolve(state, dealer=DealerShift(name, event.at)), (Ruling("INPUT", text, Severity.INFO),)
    if event.action is DealerAction.CLOCK_OUT:
        current = state.dealer
        if current is None:
            raise Refused("INPUT", f"no dealer is clocked in at table {table}")
        if name and name != current.name:
            raise Refused("INPUT", f"{current.name} is clocked in at table {table}, not {name}")
        minutes = max(0, int((event.at - current.since) // 60))
        text = f"{current.name} clocks out of table {table} after {minutes} min."
        return _evolve(state, dealer=None), (Ruling("INPUT", text, Severity.INFO),)
    raise Refused("INPUT", f"unknown dealer command {event.action.value}")
