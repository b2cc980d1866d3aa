"""The record of the table's hands for the floor: the hand in progress and the last hands, each
step by step with the pot after every step (RULES TBL-5: the floor reconstructs the betting).

Pure. :func:`record_hands` takes what the controller gave for ONE event (the new state and its
effects) and returns the book with that event's steps added: the publisher calls it for every
event it is handed (only its publishing is coalesced), and a restarted table folds the journal
through it again (tablectl.journal.recent.hand_book). :func:`hands_view` is what is published.

A step is one action given to the rules engine (the deal, a board round, a fold, check, call, bet
or raise, a hand shown or mucked, a dead hand), or the rulings of an event that gave the engine
nothing; each says what happened in words with the seat and the player's name, the street, the
board so far and the pot after it, and carries the rulings of its event in their order.

Secrecy is the floor view's (tablectl.views.secrecy): the record of the hand in progress names
only the cards face up now. The hole cards dealt are never named, a hand only once shown at the
showdown, ruling sentences are written with the cards face up at that moment, and a card named
by an earlier step that is no longer face up (a board card taken back as a burn, BOARD-3) is
blanked in every step. A finished hand names the cards that were face up in it when it ended (its
board and the hands shown): a card of an earlier hand may be a hole card now, as in the floor's
alert log.

Bounded: the hand in progress and at most :data:`HANDS_KEPT` earlier hands, at most
:data:`MAX_STEPS` steps and :data:`MAX_RULINGS` rulings a hand, texts of at most
:data:`TEXT_LIMIT` characters, and the oldest hands left out of the view beyond
:data:`VIEW_BUDGET` bytes, so that the message always fits the broker's max_packet_size.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

from tablectl.core.cards import CARD_TOKEN, Card, card_str, parse_card
from tablectl.core.effects import Applied, Effect, HandEnded, Ruling
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
from tablectl.core.game.engine import HandState, Phase, apply
from tablectl.core.game.errors import RuleViolation
from tablectl.core.procedure import HandProgress
from tablectl.core.table import TableState
from tablectl.core.table.state import game_code
from tablectl.views import secrecy
from tablectl.views.showdown import result

HANDS_KEPT = 10  # finished hands kept besides the one in progress
MAX_STEPS = 120  # steps listed per hand: the first HEAD_STEPS and the newest
HEAD_STEPS = 30
MAX_RULINGS = 24  # rulings listed per hand (the journal has them all: tablectl replay)
TEXT_LIMIT = 200  # characters of any text in the record
VIEW_BUDGET = 200_000  # bytes of JSON for the hands of the view (the broker takes 262,144)

_VERBS = {"fold": "folds", "check": "checks", "call": "calls", "bet": "bets", "raise": "raises to"}


class HandRecord(NamedTuple):
    """One hand as the floor replays it. ``head``, ``steps`` and ``tail`` are JSON-ready."""

    number: int
    head: Mapping[str, Any]  # hand, started_at, game, blinds, ante, button, seats at the start
    steps: tuple[Mapping[str, Any], ...]
    counted: int = 0  # steps made, those left out included (the next step's "n" is counted + 1)
    rulings: int = 0  # rulings made
    game: HandState | None = None  # the engine after the last event seen (not published)
    tail: Mapping[str, Any] | None = None  # how it ended; None while it is played
    size: int = 0  # bytes of its JSON once ended (the view's budget)
    named: frozenset[Card] = frozenset()  # the cards its steps name (each face up when written)

    @property
    def ended(self) -> bool:
        return self.tail is not None


class HandBook(NamedTuple):
    """The hands recorded, oldest first; the last one may be in progress."""

    hands: tuple[HandRecord, ...] = ()

    @property
    def live(self) -> HandRecord | None:
        return self.hands[-1] if self.hands and not self.hands[-1].ended else None


def _clip(text: str) -> str:
    return text if len(text) <= TEXT_LIMIT else text[: TEXT_LIMIT - 1] + "…"


def _cards(cards: Iterable[int]) -> list[str]:
    return [card_str(c) for c in cards if c != UNKNOWN_CARD]


def _names(state: TableState) -> dict[int, str]:
    return {number: seat.name for number, seat in enumerate(state.seats, 1) if seat is not None}


def _who(seat: int, names: Mapping[int, str]) -> str:
    return f"Seat {seat}" + (f" ({names[seat]})" if seat in names else "")


def _street(game: HandState, index: int | None = None) -> str:
    streets = game.config.variant.game.streets
    return streets[min(game.street if index is None else index, len(streets) - 1)].name


def _start(state: TableState, hand: HandProgress, at: float) -> tuple[HandRecord, dict[str, Any]]:
    """A new record and its first step: the blinds posted."""
    names = _names(state)
    game = hand.start or hand.game
    stacks = game.config.starting_stacks
    head = {
        "hand": hand.number,
        "started_at": round(at, 6),
        "game": game_code(state),
        "blinds": list(state.blinds),
        "ante": state.ante or state.big_blind_ante,
        "button": state.button if game.config.variant.game.has_button else None,  # none in stud
        "seats": [
            {"seat": seat, "name": _clip(names.get(seat, "")), "stack": stacks[position]}
            for position, seat in enumerate(hand.seats_in)
        ],
    }
    posted = [f"{_who(hand.seat(p), names)} {bet:,}" for p, bet in enumerate(game.bets) if bet]
    text = "Blinds posted: " + ", ".join(posted) if posted else "Hand started"
    if game.dead:
        text += f"; antes {game.dead:,}"
    return HandRecord(hand.number, head, (), game=game), _step_body(
        1, "start", None, None, _clip(text), _street(game), game, at
    )


def _step_body(
    n: int, kind: str, seat: int | None, name: str | None, text: str, street: str, game: HandState, at: float
) -> dict[str, Any]:
    return {
        "n": n,
        "kind": kind,
        "seat": seat,
        "name": name,
        "action": None,
        "amount": None,
        "all_in": False,
        "text": text,
        "street": street,
        "board": _cards(game.board),
        "pot": game.pot,
        "at": round(at, 6),
        "rulings": [],
    }


def _action_step(
    n: int,
    action: Action,
    before: HandState,
    after: HandState,
    hand: HandProgress,
    names: Mapping[int, str],
    at: float,
) -> dict[str, Any]:
    """One engine action in the floor's words; names only the cards it shows (a board, a hand
    shown at the showdown), never a hole card dealt."""
    if isinstance(action, DealHole):
        return _dealt_step(n, action, before, after, hand, names, at)
    if isinstance(action, DealBoard):
        street = _street(after)
        text = f"{street[:1].upper()}{street[1:]}: {' '.join(_cards(action.cards))}"
        return _step_body(n, "board", None, None, _clip(text), street, after, at)
    player = action.player
    seat = hand.seat(player)
    name = names.get(seat)
    who = _who(seat, names)
    street = _street(before)
    if isinstance(action, Show):
        shown = after.shown[player]
        if action.mucks or shown is None:
            body = _step_body(n, "muck", seat, name, f"{who} mucks", street, after, at)
            body["action"] = "muck"
        else:
            body = _step_body(
                n, "show", seat, name, _clip(f"{who} shows {' '.join(_cards(shown))}"), street, after, at
            )
            body["action"] = "show"
        return body
    if isinstance(action, Kill):
        text = f"{who}'s hand is dead" + (f" ({action.rule})" if action.rule else "")
        body = _step_body(n, "dead", seat, name, _clip(text), street, after, at)
        body["action"] = "dead"
        return body
    if isinstance(action, BringIn):
        paid = after.bets[player] - before.bets[player]
        body = _step_body(n, "action", seat, name, _clip(f"{who} brings in {paid:,}"), street, after, at)
        body.update(action="bring-in", amount=after.bets[player], all_in=after.stacks[player] == 0)
        return body
    if isinstance(action, Discard):
        # How many cards a player draws is public; which cards never are.
        count = len(action.cards)
        text = f"{who} stands pat" if not count else f"{who} draws {count}"
        body = _step_body(n, "draw", seat, name, text, street, after, at)
        body["action"] = "draw"
        return body
    assert isinstance(action, (Fold, CheckCall, BetRaise)), f"no hand step for {action!r} yet"
    verb, amount = _verb(before, action)
    all_in = after.stacks[player] == 0 and verb not in ("fold", "check")
    text = f"{who} {_VERBS[verb]}" + (f" {amount:,}" if verb in ("call", "bet", "raise") else "")
    if all_in:
        text += ", all in"
    body = _step_body(n, "action", seat, name, _clip(text), street, after, at)
    body.update(action=verb, amount=amount if verb in ("call", "bet", "raise") else None, all_in=all_in)
    return body


def _dealt_step(
    n: int,
    action: DealHole,
    before: HandState,
    after: HandState,
    hand: HandProgress,
    names: Mapping[int, str],
    at: float,
) -> dict[str, Any]:
    """Cards dealt: the first deal, a stud street's card (an up card is named: it lies face up
    for all), a draw's replacements (how many only)."""
    if before.phase is not Phase.DRAWING and not (before.street and before.up):
        return _step_body(n, "deal", None, None, "Hole cards dealt", _street(after), after, at)
    seat = hand.seat(action.player)
    who = _who(seat, names)
    up = after.up[action.player][len(before.up[action.player]) :] if after.up else ()
    if before.phase is Phase.DRAWING:
        count = len(action.cards)
        text = f"{who} is dealt {count} card{'s' if count != 1 else ''}"
    elif up:
        text = f"{who} is dealt {' '.join(_cards(up))} up"
    else:
        text = f"{who} is dealt a card down"
    return _step_body(n, "deal", seat, names.get(seat), _clip(text), _street(before), after, at)


def _verb(before: HandState, action: Fold | CheckCall | BetRaise) -> tuple[str, int]:
    """What a betting action was (as the public view's last action words it) and its amount:
    the total of the player's bet this round after it."""
    player = action.player
    if isinstance(action, Fold):
        return "fold", 0
    if isinstance(action, CheckCall):
        if before.bets[player] >= before.high_bet:
            return "check", 0
        return "call", min(before.high_bet, before.bets[player] + before.stacks[player])
    return ("raise" if before.high_bet > 0 else "bet"), action.to


def _add(record: HandRecord, steps: list[dict[str, Any]]) -> HandRecord:
    """The record with ``steps`` appended, keeping the first HEAD_STEPS and the newest."""
    kept = record.steps + tuple(steps)
    if len(kept) > MAX_STEPS:
        kept = kept[:HEAD_STEPS] + kept[len(kept) - (MAX_STEPS - HEAD_STEPS) :]
    return record._replace(steps=kept, counted=record.counted + len(steps))


def _named(steps: Iterable[Mapping[str, Any]]) -> frozenset[Card]:
    found: set[Card] = set()
    for body in steps:
        found.update(parse_card(c) for c in body["board"] if c != "??")
        found.update(parse_card(c) for c in CARD_TOKEN.findall(body["text"]))
        for ruling in body["rulings"]:
            found.update(parse_card(c) for c in CARD_TOKEN.findall(ruling["text"]))
    return frozenset(found)


def _blank(record: HandRecord, gone: frozenset[Card]) -> HandRecord:
    """The record with the cards of ``gone`` (no longer face up) blanked in every step."""
    hidden = {card_str(c) for c in gone}

    def text(words: str) -> str:
        return CARD_TOKEN.sub(lambda m: secrecy.HIDDEN_CARD if m.group(0) in hidden else m.group(0), words)

    steps = tuple(
        {
            **body,
            "text": text(body["text"]),
            "board": ["??" if c in hidden else c for c in body["board"]],
            "rulings": [{**r, "text": text(r["text"])} for r in body["rulings"]],
        }
        for body in record.steps
    )
    return record._replace(steps=steps, named=record.named - gone)


def _finish(record: HandRecord, state: TableState, ended: HandEnded, at: float) -> HandRecord:
    end = "misdeal" if ended.misdeal else "void" if ended.voided else "played"
    tail = {
        "ended_at": round(at, 6),
        "end": end,
        "result": result(state) if end == "played" else None,
        "stacks": {str(seat): chips for seat, chips in sorted(ended.stacks.items())},
    }
    record = record._replace(tail=tail, game=None)
    return record._replace(size=len(_dumps(record_view(record))))


def record_hands(book: HandBook, state: TableState, effects: Iterable[Effect], at: float) -> HandBook:
    """The book after one event: ``state`` and ``effects`` are what the controller's step returned
    for it, ``at`` its time. Returns ``book`` itself when the event added nothing."""
    hand = state.hand
    hands = list(book.hands)
    live = book.live
    steps: list[dict[str, Any]] = []
    if hand is not None and (live is None or live.number != hand.number):
        if live is not None:  # its end was never seen (a record started mid-way): closed as is
            hands[-1] = live._replace(
                tail={"ended_at": None, "end": "unknown", "result": None, "stacks": None}
            )
        record, first = _start(state, hand, at)
        hands.append(record)
        steps.append(first)
    # The record this event belongs to: the hand in progress, or the hand just played (a ruling
    # between hands, before the next deal, is still about it: TBL-5).
    progress = hand if hand is not None else state.last_hand
    if progress is None or not hands or hands[-1].number != progress.number:
        return book
    record = hands[-1]
    names = _names(state)
    say = secrecy.speaker(state)
    game = record.game if record.game is not None else progress.game
    final = progress.game
    rulings: list[dict[str, Any]] = []  # rulings waiting for the next step of this event
    ruled = record.rulings
    applied = [e for e in effects if isinstance(e, Applied)]
    last_applied = applied[-1] if applied else None
    ended: HandEnded | None = None
    n = record.counted + len(steps)
    ruling_text = ""  # the event's first ruling, for a step of its own (listed or not)
    for effect in effects:
        if isinstance(effect, Ruling):
            ruling_text = ruling_text or _clip(f"{effect.rule}: {say(effect.said)}")
            if ruled < MAX_RULINGS:
                rulings.append(
                    {
                        "rule": effect.rule,
                        "text": _clip(say(effect.said)),
                        "severity": effect.severity.value,
                    }
                )
            ruled += 1
        elif isinstance(effect, Applied):
            action = effect.action
            if effect is last_applied:
                after = final  # the engine's own state: the truth, whatever was rebuilt
            else:
                try:
                    after = apply(game, action)
                except RuleViolation:
                    after = final
            if isinstance(action, DealHole) and steps and steps[-1]["kind"] == "deal":
                steps[-1].update(pot=after.pot)  # one step for the whole deal
            else:
                n += 1
                steps.append(_action_step(n, action, game, after, progress, names, at))
            game = after
            if rulings:
                steps[-1]["rulings"].extend(rulings)
                rulings = []
        elif isinstance(effect, HandEnded) and effect.hand == record.number:
            ended = effect
    if rulings and steps:
        steps[-1]["rulings"].extend(rulings)
    elif ruling_text and not steps:  # an event that gave the engine nothing: its rulings, a step
        n += 1
        body = _step_body(n, "ruling", None, None, ruling_text, _street(final), final, at)
        body["rulings"] = rulings
        steps.append(body)
    if not steps and ended is None and ruled == record.rulings:
        return book
    record = _add(record, steps)._replace(rulings=ruled, game=final, named=record.named | _named(steps))
    gone = record.named - secrecy.face_up(state)
    if gone:
        record = _blank(record, gone)
    if ended is not None:
        record = _finish(record, state, ended, at)
    hands[-1] = record
    return HandBook(tuple(hands[-HANDS_KEPT - 1 :]))


def record_view(record: HandRecord) -> dict[str, Any]:
    """One hand as published."""
    tail = record.tail or {"ended_at": None, "end": None, "result": None, "stacks": None}
    return {
        **record.head,
        "in_progress": record.tail is None,
        **tail,
        "steps": list(record.steps),
        "steps_omitted": record.counted - len(record.steps),
        "rulings_omitted": max(0, record.rulings - MAX_RULINGS),
    }


def hands_view(book: HandBook, table: str = "", budget: int = VIEW_BUDGET) -> dict[str, Any]:
    """What the floor reads on ``P/hands``: the hand in progress (``live``: its number) and the
    last hands, newest first, as many as ``budget`` bytes of JSON hold (the newest always)."""
    live = book.live
    hands: list[dict[str, Any]] = []
    used = 0
    left_out = 0
    for record in reversed(book.hands):
        view = record_view(record)
        size = record.size or len(_dumps(view))
        if hands and used + size > budget:
            left_out = len(book.hands) - len(hands)
            break
        hands.append(view)
        used += size
    return {
        "view": "hands",
        "table": table,
        "live": live.number if live is not None else None,
        "hands": hands,
        "hands_left_out": left_out,
    }


def _dumps(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()
