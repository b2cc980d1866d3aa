"""What the room reads about a table at a glance: the open alerts by severity, who deals and since
when, the pace (hands per hour, the last hand's end), the table's state; and the small summary
the floor's grid of every table reads (docs/mqtt.md, ``summary``).

Pure: times come from the events (``TableState.hand_times``, the clock-in's and the floor
call's ``at``); ``now`` is passed in by the caller (the publisher's clock) for the one figure
that depends on it, the hands of the last hour.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tablectl.core.effects import Severity
from tablectl.core.events import shorten
from tablectl.core.sentences import Said
from tablectl.core.table import TableState
from tablectl.core.table.dealer import CALL_RULE
from tablectl.core.table.rotation import GameStakes, stakes_text, upcoming
from tablectl.core.table.state import HOUR, _active_seats, game_code, game_in_play

# The severity of a ruling that waits for the dealer's confirm, by what it waits for.
_PENDING_SEVERITY = {"misdeal": Severity.MISDEAL, "void": Severity.VOID}
SUMMARY_TEXT_LIMIT = 60  # characters of the worst alert's text on a tile


def open_alerts(state: TableState, say: Callable[[Said], str]) -> list[dict[str, Any]]:
    """What is open at the table until someone resolves it, the most serious first: the ruling
    that waits for the dealer's confirm (its RULES id), the dealer's calls to the floor (until a
    supervisor answers), the devices lost (until they are back). Sentences are written by
    ``say`` (secrecy.speaker): only cards face up are named."""
    # (severity, order within it, body): the most serious first, then by the time raised.
    items: list[tuple[Severity, float, dict[str, Any]]] = []
    hand = state.hand
    if hand is not None and hand.pending is not None:
        severity = _PENDING_SEVERITY.get(hand.pending.kind, Severity.CORRECT)
        body: dict[str, Any] = {
            "kind": "ruling",
            "rule": hand.pending.rule,
            "severity": severity.value,
            "text": say(hand.pending.said),
            "since": None,
            "needs_confirm": True,
        }
        items.append((severity, -1.0, body))  # first of its severity: the game waits for it
    for call in state.floor_calls:
        text = f"{call.by} calls the floor" + (f": {call.reason}" if call.reason else "")
        body = {
            "kind": "floor_call",
            "rule": CALL_RULE,
            "severity": Severity.FLOOR.value,
            "text": text,
            "since": call.at,
            "needs_confirm": False,
        }
        items.append((Severity.FLOOR, call.at, body))
    for device, ok in state.devices:
        if not ok:
            body = {
                "kind": "device",
                "rule": "INPUT",
                "severity": Severity.FLOOR.value,
                "text": f"The {device} is lost: reads may be missed.",
                "since": None,
                "needs_confirm": False,
            }
            items.append((Severity.FLOOR, float("inf"), body))  # after the calls, which name a time
    items.sort(key=lambda item: (item[0].rank, item[1]))
    return [body for _, _, body in items]


def table_state(state: TableState) -> str:
    """``paused`` (a ruling waits for the dealer's confirm, or the floor is called), ``dealing``
    (a hand in progress) or ``between_hands``; ``offline`` is the status topic's to say."""
    if state.floor_calls or (state.hand is not None and state.hand.pending is not None):
        return "paused"
    return "dealing" if state.hand is not None else "between_hands"


def hands_per_hour(state: TableState, now: float | None = None) -> int:
    """Hands played out in the hour up to ``now`` (default: the last hand's end)."""
    times = state.hand_times
    if not times:
        return 0
    end = times[-1] if now is None else now
    return sum(1 for t in times if 0 <= end - t < HOUR)


def operations(state: TableState, now: float | None = None) -> dict[str, Any]:
    """The room's operational fields of the table (the floor view carries them)."""
    shift = state.dealer
    return {
        "dealer": {"name": shift.name, "since": shift.since} if shift is not None else None,
        "hands_per_hour": hands_per_hour(state, now),
        "last_hand_at": state.hand_times[-1] if state.hand_times else None,
        "table_state": table_state(state),
    }


def stakes(state: TableState) -> str:
    """The stakes as a display shows them: "50/100", "50/100 ante 10", fixed limit "100/200", stud
    "200/400 ante 25 bring-in 50"; at a table of mixed games, the game in play's."""
    entry = game_in_play(state)
    if entry is not None:
        return entry.stakes
    cfg = state.config
    ante = state.ante or state.big_blind_ante
    return stakes_text(cfg.game, state.blinds, cfg.small_bet, cfg.big_bet, ante, cfg.bring_in)


def _game(entry: GameStakes) -> dict[str, Any]:
    return {"code": entry.game, "name": entry.label, "stakes": entry.stakes}


def rotation(state: TableState) -> dict[str, Any] | None:
    """HO-13 on every view: the rotation's name, the game in play, the next one and when the game
    changes (``hands_left``: hands of this game still to deal with the players seated now, 0: the
    next deal changes game, None: at the next level), and where the button waits during stud
    (``frozen_button``). None at a table of one game."""
    config = state.config.rotation
    if config is None or state.rotation is None:
        return None
    now = upcoming(config, state.rotation, len(_active_seats(state)))
    return {
        "name": config.title,
        "change": config.change.value,
        "game": _game(now.game),
        "next": _game(now.next),
        "hands_left": now.hands_left,
        "frozen_button": state.button if now.button_frozen else None,
    }


def summary_rotation(state: TableState) -> dict[str, Any] | None:
    """The tile's few words of the rotation: its name, the next game and the hands left."""
    view = rotation(state)
    if view is None:
        return None
    return {"name": shorten(view["name"], 32), "next": view["next"]["code"], "hands_left": view["hands_left"]}


def summary(state: TableState, say: Callable[[Said], str], now: float | None = None) -> dict[str, Any]:
    """The floor grid's tile of this table, about 300 bytes whatever happens at it: game and
    stakes, seats taken of the total, the dealer and since when, hands per hour, the last
    hand's end, the table's state, the hand number, the open alerts' count and the worst."""
    alerts = open_alerts(state, say)
    worst = alerts[0] if alerts else None
    ops = operations(state, now)
    shift = ops["dealer"]
    return {
        "view": "summary",
        "game": game_code(state),
        "stakes": stakes(state),
        "rotation": summary_rotation(state),
        "seats_taken": sum(1 for seat in state.seats if seat is not None),
        "seats": len(state.seats),
        "dealer": shift["name"] if shift is not None else None,
        "dealer_since": shift["since"] if shift is not None else None,
        "hands_per_hour": ops["hands_per_hour"],
        "last_hand_at": ops["last_hand_at"],
        "table_state": ops["table_state"],
        "hand": state.hand_number or None,
        "alerts": len(alerts),
        "worst": None
        if worst is None
        else {
            "severity": worst["severity"],
            "rule": worst["rule"],
            "text": shorten(worst["text"], SUMMARY_TEXT_LIMIT),
        },
    }
