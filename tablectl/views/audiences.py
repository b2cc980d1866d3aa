"""What each audience sees: pure projections of the table's state (DESIGN.md, Contracts).

``public`` (the table display), ``dealer`` (the dealer's screen), ``floor`` (the
supervisors' dashboard) and ``private`` (hole cards, for the roles allowed them).
Only ``private`` ever holds a hole card that has not been shown at the showdown; burn
cards, mucked and folded hands appear in no view but ``private``, and the procedure's sentences
name only the cards that are face up (tablectl.views.secrecy). Views are plain
JSON-ready dicts, so the security property is checkable on exactly what is published.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from tablectl.core.cards import card_str
from tablectl.core.effects import Ruling
from tablectl.core.game.actions import UNKNOWN_CARD
from tablectl.core.game.engine import legal
from tablectl.core.game.pots import side_pots
from tablectl.core.game.variants import variant_from_code
from tablectl.core.procedure import prompt_for, showing
from tablectl.core.sentences import Said
from tablectl.core.table import TableState
from tablectl.core.table.rotation import game_label
from tablectl.core.table.state import game_code
from tablectl.views import secrecy
from tablectl.views.operations import open_alerts, operations, stakes
from tablectl.views.operations import rotation as operations_rotation
from tablectl.views.showdown import last_action, result

VIEW_SCHEMA = 1


class RecentRuling(NamedTuple):
    """A ruling as published (its seq and time) that the dealer and floor views list until the
    next hand: the view writes its sentence with only the cards face up at that moment."""

    seq: int
    ts: float
    hand: int | None
    ruling: Ruling


def ruling_body(ruling: Ruling, say: Callable[[Said], str]) -> dict[str, Any]:
    """A ruling as the displays read it, its sentence written by ``say`` (secrecy.speaker)."""
    return {
        "rule": ruling.rule,
        "text": say(ruling.said),
        "severity": ruling.severity.value,
        "needs_confirm": ruling.needs_confirm,
    }


def _cards(cards: Any) -> list[str]:
    return [card_str(c) if c != UNKNOWN_CARD else "??" for c in cards]


def public(state: TableState) -> dict[str, Any]:
    """The table display: stacks, bets, board, pots, whose turn; hands only once shown."""
    cfg = state.config
    hand = state.hand
    seats: list[dict[str, Any]] = []
    in_hand: dict[int, int] = {} if hand is None else {seat: p for p, seat in enumerate(hand.seats_in)}
    game = hand.game if hand is not None else None
    rotation = operations_rotation(state)
    # No button and no blinds in stud: frozen in a rotation's stud stretch, or a stud table.
    code = game_code(state)
    variant = game.config.variant if game is not None else variant_from_code(code)
    frozen = (rotation is not None and rotation["frozen_button"] is not None) or not variant.game.has_button
    drawn = secrecy.draws(hand) if hand is not None else {}
    for number in range(1, len(state.seats) + 1):
        seat = state.seat(number)
        if seat is None:
            seats.append({"seat": number, "empty": True})
            continue
        entry: dict[str, Any] = {
            "seat": number,
            "name": seat.name,
            "stack": seat.stack,
            "sitting_out": seat.sitting_out,
        }
        position = in_hand.get(number)
        if game is not None and position is not None:
            shown = game.shown[position]
            entry.update(
                stack=game.stacks[position],
                bet=game.bets[position],
                in_hand=not game.folded[position],
                all_in=game.stacks[position] == 0 and not game.folded[position],
                cards_held=len(secrecy.held(hand, position))
                if hand is not None and not game.folded[position]
                else 0,
                shown=_cards(shown) if shown is not None else None,
                mucked=game.mucked[position],
            )
            if game.up:
                # Stud: the up cards lie face up on the table for everyone (STUD-1).
                entry["up"] = _cards(showing(hand, position)) if hand is not None else []
            if game.config.variant.game.has_draws and hand is not None:
                entry["drew"] = drawn.get(number, [])
        seats.append(entry)
    view: dict[str, Any] = {
        "view": "public",
        "room": cfg.room,
        "table": cfg.table,
        "game": code,
        "game_name": game_label(code),  # "NL hold'em", "stud", "limit 2-7 triple draw"
        "stakes": stakes(state),  # "50/100 ante 100", "200/400 ante 25 bring-in 50"
        "blinds": list(state.blinds),
        "ante": state.ante or state.big_blind_ante,
        # No button during stud (HO-13: it waits at rotation.frozen_button).
        "button": state.button if not frozen else None,
        "hand": state.hand_number if hand is not None else None,
        "seats": seats,
        # Who posted the blinds on the hand in progress (TBL-1's record of the round).
        "blind_seats": {"small": state.orbit[-1].small, "big": state.orbit[-1].big}
        if hand is not None and state.orbit and not frozen
        else None,
        # Mixed games (HO-13): the game in play, the next and when it changes; null for one game.
        "rotation": rotation,
        "last_action": last_action(hand, {n: s.name for n, s in enumerate(state.seats, 1) if s is not None}),
        # Between hands: the showdown of the hand just played (hands shown, winners, pushes).
        "result": result(state),
    }
    if game is not None and hand is not None:
        # The pots formed so far: this street's bets are in front of the players until the round
        # is over (a bet not yet called is no side pot); ``pot`` is the total, bets included.
        collected = [total - bet for total, bet in zip(game.contributed, game.bets, strict=True)]
        pots = side_pots(collected, game.folded, game.dead) if any(collected) or game.dead else []
        view.update(
            street=game.config.variant.game.streets[game.street].name,
            phase=game.phase.value,
            board=_cards(game.board),
            pot=game.pot,
            pots=[{"amount": p.amount, "seats": [hand.seat(i) for i in p.eligible]} for p in pots],
            to_act=hand.seat(game.actor) if game.actor is not None else None,
            to_call=game.high_bet,
        )
    return view


def dealer(
    state: TableState, rulings: Sequence[RecentRuling] = (), base: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The dealer's screen: the public view (``base``, when already made), the next step, the
    legal amounts, recent rulings. Sentences name only the cards face up (secrecy)."""
    view = dict(base) if base is not None else public(state)
    view["view"] = "dealer"
    hand = state.hand
    say = secrecy.speaker(state)
    if hand is not None:
        view["prompt"] = say(prompt_for(hand).said)
        view["pending"] = (
            {"rule": hand.pending.rule, "text": say(hand.pending.said)} if hand.pending is not None else None
        )
        options = legal(hand.game) if hand.pending is None else None
        if options is not None:
            view["options"] = {
                "seat": hand.seat(options.player),
                "call": options.call_amount,
                "can_check": options.can_check,
                "can_raise": options.can_raise,
                "min_raise_to": options.min_raise_to,
                "max_raise_to": options.max_raise_to,
                "why_no_raise": options.why_no_raise,
            }
    view["rulings"] = [
        {"seq": r.seq, "ts": r.ts, "hand": r.hand, **ruling_body(r.ruling, say)} for r in rulings
    ]
    # What stays open until it is resolved (a ruling to confirm, a floor call, a device lost),
    # the devices, and who deals here.
    view["open_alerts"] = open_alerts(state, say)
    view["devices"] = dict(state.devices)
    view["dealer"] = {"name": state.dealer.name, "since": state.dealer.since} if state.dealer else None
    return view


def floor(
    state: TableState,
    rulings: Sequence[RecentRuling] = (),
    base: dict[str, Any] | None = None,
    now: float | None = None,
) -> dict[str, Any]:
    """The supervisors' dashboard: the dealer's view (``base``, when already made), the floor's
    remedies of this hand and the last, the table's levels, the pace and state of the table
    (hands per hour in the hour up to ``now``, default the last hand's end)."""
    view = dict(base) if base is not None else dealer(state, rulings)
    view["view"] = "floor"
    view.update(operations(state, now))
    counts: dict[str, int] = {}
    for alert in view["open_alerts"]:
        counts[alert["severity"]] = counts.get(alert["severity"], 0) + 1
    view["alert_counts"] = counts
    # The remedies of this hand and the last (the state keeps no more: core/table/state.py,
    # MAX_REMEDIES); the whole history is the journal's (tablectl replay). Who: the name the
    # supervisor typed (by) and the broker user that sent it (user).
    view["overrides"] = [
        {"hand": r.hand, "by": r.by, "user": r.user or None, "ruling": r.rule, "decision": r.decision}
        for r in state.overrides
    ]
    view["next_level"] = (
        {"blinds": list(state.next_level[0]), "ante": state.next_level[1]} if state.next_level else None
    )
    view["profile"] = state.config.profile
    # TBL-1: who had the button and the blinds this round, and whether a misplaced button is
    # being corrected (the floor's button_misplaced).
    view["button_round"] = [{"button": p.button, "small": p.small, "big": p.big} for p in state.orbit]
    view["button_correction"] = state.button_fix.value
    return view


def private(state: TableState) -> dict[str, Any]:
    """Hole cards of every live hand: for the roles allowed them (and a delayed broadcast)."""
    hand = state.hand
    view: dict[str, Any] = {"view": "private", "table": state.config.table, "hand": None, "hole": {}}
    if hand is None:
        return view
    view["hand"] = state.hand_number
    view["hole"] = {str(seat): _cards(secrecy.held(hand, p)) for p, seat in enumerate(hand.seats_in)}
    view["folded"] = [hand.seat(p) for p, f in enumerate(hand.game.folded) if f]
    view["burns"] = _cards(hand.burns)
    return view


VIEWS = {"public": public, "dealer": dealer, "floor": floor}
