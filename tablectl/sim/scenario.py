"""Scenario files: a situation at the table, written by a test engineer without Python.

A scenario file has three parts. The table::

    # MD-a: the first card of the hand dealt face up is a misdeal
    table seats=6 game=NT blinds=50/100 profile=tda   # also: ante=N big_blind_ante=N option.X=V
    seat 1 Ann 1000
    seat 2 Bob 1000
    seat 4 Dee 1000 out      # seated, sitting out
    button 2                 # leave it out for a new game: the button is dealt for (DEAL-5)

then the events, one a line, each optionally followed by ``=>`` lines that check
the effects of that event alone::

    new hand
    draw As up               # the shoe drew the ace face up (a boxed card)
    => ruling IRR-3
    draws Kd Qh Jc Ts        # four cards drawn face down, in order
    draw ??                  # a card the reader could not identify
    draw 5c foreign          # a card from a deck not registered here (a different back)
    seen seat 1 Kd up        # the camera saw seat 1's card face up
    seen board 7h | seen burn 2c | seen muck Kd   # the camera saw a card land in a zone
    call 3 | bet 4 300 | fold 1 | check 2 | allin 3 | confirm
    misdeal g                # the dealer calls a misdeal, cause MD-g
    misdeal e seat 3         # ... naming the seat concerned (MD-e, MD-d, MD-j, MD-i)
    flashed 2 by dealer Kd | flashed 2 by player | flashed 2 by off_table
    discard 2 3 | discard 2 AsKd | pat 2   # at a draw: how many cards seat 2 throws (or which)
    show 2 AsKd | show 2 | muck 3   # show: the cards shown (default: the cards dealt)
    floor void_hand by Jane  # any floor command: floor KIND [seat N] [amount N] [name X]
                             #   [ruling R] [decision D] [blinds a/b] [ante N] by NAME
    floor kill_hand seat 2 ruling IRR-9 by Jane
    floor kill_hand seat 2 amount 200 ruling BOARD-6 by Jane          # did not call: dead
    floor override seat 1 amount 50 ruling BOARD-6 decision make_good by Jane
    floor override decision reject by Jane     # the ruling waiting for confirm does not apply
    floor button_misplaced seat 3 by Jane      # TBL-1: last hand the button was really at seat 3
    device reader lost       # or: device camera ok

and after ``expect:`` what must hold at the end: ``ruling ID`` (in order),
``refused ID``, ``no ruling ID``, ``stacks 1=950 2=1050``, ``hand over``,
``hand in progress``, ``button N``, ``pot N``, ``ended misdeal|void|played``,
``board CARDS`` (the hand in progress's board, else the last hand's), ``hole SEAT CARDS``,
``up SEAT CARDS`` (stud: the seat's up cards), ``to act SEAT``,
``burns CARDS``, ``blinds 100/200``, ``hand number N``, ``phase betting|dealing_board|...``,
``pending KIND|none``, ``last hand none``, ``last hand pot N``, ``last hand number N``,
``orbit 4/1/2 1/2/3`` (TBL-1: button/small blind/big blind seats of each hand of this round so
far; ``orbit none``), ``correction off|reported|round`` (TBL-1: the misplaced button's correction).
``=>`` lines take all of those for the state after that event, and also ``nothing`` (no
ruling), ``unchanged`` (the state is equal to the one before the event) and ``prompt TEXT``.
``ruling ID TEXT`` and ``refused ID TEXT`` also check that the ruling's text contains TEXT
(case-insensitive).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from firmware_bridge.protocol import Face
from tablectl.core.cards import CardError, card_str, parse_card, parse_cards
from tablectl.core.effects import Effect, HandEnded, Prompt, Ruling, Severity
from tablectl.core.events import (
    CardDrawn,
    CardSeen,
    DealerInput,
    DealerKey,
    DeviceStatus,
    Event,
    FloorCommand,
    FloorKind,
    Zone,
)
from tablectl.core.procedure import showing
from tablectl.core.table import TableConfig, TableConfigError, TableState, new_table, step
from tablectl.formats.files import BadFile, read_text

MAX_SCENARIO_BYTES = 1024 * 1024  # a scenario is a page or two; anything larger is not read


class ScenarioError(ValueError):
    """A line we cannot read: the message names the file, the line and what to write."""


@dataclass
class Check:
    line: int
    text: str


@dataclass
class Step:
    line: int
    event: Event
    checks: list[Check] = field(default_factory=list)


@dataclass
class Scenario:
    path: str
    config: TableConfig
    players: dict[int, tuple[str, int]]
    button: int | None
    steps: list[Step]
    expect: list[Check]
    sitting_out: tuple[int, ...] = ()


def _kv(words: list[str], where: str) -> dict[str, str]:
    out = {}
    for word in words:
        if "=" not in word:
            raise ScenarioError(f"{where}: expected key=value, got {word!r}")
        key, value = word.split("=", 1)
        out[key] = value
    return out


def _table_config(words: list[str], where: str) -> TableConfig:
    raw = _kv(words, where)
    values: dict[str, Any] = {}
    options: dict[str, Any] = {}
    for key, value in raw.items():
        if key == "blinds":
            values["blinds"] = [int(v) for v in value.split("/")]
        elif key in ("game", "profile", "room", "table"):
            values[key] = value
        elif key.startswith("option."):
            name = key.removeprefix("option.")
            options[name] = {"true": True, "false": False, "none": None}.get(
                value.lower(), int(value) if value.lstrip("-").isdigit() else value
            )
        else:
            try:
                values[key] = int(value)
            except ValueError:
                raise ScenarioError(f"{where}: {key} must be a whole number, got {value!r}") from None
    if options:
        values["options"] = options
    try:
        return TableConfig.from_json(values)
    except TableConfigError as exc:
        raise ScenarioError(f"{where}: {exc}") from None


def _card_or_none(text: str) -> int | None:
    return None if text in ("??", "?") else parse_card(text)


def parse_event(text: str, where: str) -> Event:
    words = text.split()
    head = words[0].lower()
    try:
        if head == "draw":
            flags = {w.lower() for w in words[1:] if w.lower() in ("up", "foreign")}
            cards = [w for w in words[1:] if w.lower() not in ("up", "foreign")]
            if len(cards) != 1:
                raise ScenarioError(f"{where}: one card per draw line with flags; several cards: 'draws'")
            return CardDrawn(_card_or_none(cards[0]), face_up="up" in flags, foreign="foreign" in flags)
        if head == "seen":
            zone = Zone(words[1].lower())
            rest = words[2:]
            seat = None
            if zone is Zone.SEAT:
                seat, rest = int(rest[0]), rest[1:]
            face_up = any(w.lower() == "up" for w in rest)
            cards = [w for w in rest if w.lower() not in ("up", "down")]
            return CardSeen(zone, _card_or_none(cards[0]) if cards else None, face_up, seat)
        if head == "new" and words[1:] == ["hand"]:
            return DealerInput(DealerKey.NEW_HAND)
        if head in ("fold", "check", "call", "allin", "all_in"):
            key = DealerKey.ALL_IN if head in ("allin", "all_in") else DealerKey(head)
            return DealerInput(key, seat=int(words[1]))
        if head in ("bet", "raise"):
            return DealerInput(DealerKey.BET, seat=int(words[1]), amount=int(words[2]))
        if head == "confirm":
            return DealerInput(DealerKey.CONFIRM)
        if head == "misdeal":
            cause = words[1] if len(words) > 1 and words[1] != "seat" else None
            seat = int(words[words.index("seat") + 1]) if "seat" in words else None
            return DealerInput(DealerKey.MISDEAL, seat=seat, cause=cause)
        if head == "flashed":
            by = words[words.index("by") + 1] if "by" in words else "dealer"
            rest = [w for i, w in enumerate(words[2:], 2) if w != "by" and words[i - 1] != "by"]
            flashed = tuple(parse_card(w) for w in rest)
            return DealerInput(DealerKey.CARD_FLASHED, seat=int(words[1]), cause=by, cards=flashed)
        if head == "show":
            shown = parse_cards("".join(words[2:])) if len(words) > 2 else ()
            return DealerInput(DealerKey.SHOW, seat=int(words[1]), cards=tuple(shown))
        if head == "muck":
            return DealerInput(DealerKey.MUCK, seat=int(words[1]))
        if head == "discard":
            if words[2:3] and words[2].isdigit():
                return DealerInput(DealerKey.DISCARD, seat=int(words[1]), amount=int(words[2]))
            thrown = tuple(parse_cards("".join(words[2:])))
            return DealerInput(DealerKey.DISCARD, seat=int(words[1]), cards=thrown)
        if head == "pat":
            return DealerInput(DealerKey.DISCARD, seat=int(words[1]), amount=0)
        if head == "floor":
            return _floor(words[1:], where)
        if head == "device":
            state = words[2].lower()
            if state not in ("ok", "lost"):
                raise ScenarioError(f"{where}: device NAME ok|lost")
            return DeviceStatus(words[1], state == "ok", " ".join(words[3:]))
    except (IndexError, ValueError, CardError) as exc:
        if isinstance(exc, ScenarioError):
            raise
        raise ScenarioError(f"{where}: cannot read {text!r}: {exc}") from None
    raise ScenarioError(f"{where}: unknown event {head!r} (see the format in tablectl/sim/scenario.py)")


def _floor(words: list[str], where: str) -> FloorCommand:
    kind = FloorKind(words[0].lower())
    if "by" not in words:
        raise ScenarioError(f"{where}: a floor command ends with 'by NAME'")
    by_at = words.index("by")
    by = " ".join(words[by_at + 1 :])
    args = words[1:by_at]
    values: dict[str, Any] = {}
    for name, value in zip(args[::2], args[1::2], strict=False):
        if name in ("seat", "amount", "ante", "to_seat"):
            values[name] = int(value)
        elif name == "blinds":
            values["blinds"] = tuple(int(v) for v in value.split("/"))
        elif name in ("name", "ruling", "decision"):
            values[name] = value
        else:
            raise ScenarioError(
                f"{where}: a floor command takes seat, amount, ante, to_seat, blinds, name, ruling, decision"
            )
    return FloorCommand(kind, by, **values)


def parse(text: str, path: str = "<scenario>") -> Scenario:
    config: TableConfig | None = None
    players: dict[int, tuple[str, int]] = {}
    sitting_out: list[int] = []
    button: int | None = None
    steps: list[Step] = []
    expect: list[Check] = []
    section = "table"
    for number, raw in enumerate(text.splitlines(), 1):
        where = f"{path}:{number}"
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        lower = line.lower()
        if lower == "events:":
            section = "events"
            continue
        if lower == "expect:":
            section = "expect"
            continue
        if section == "table":
            words = line.split()
            if words[0] == "table":
                config = _table_config(words[1:], where)
                continue
            if words[0] == "seat" and len(words) == 4:
                players[int(words[1])] = (words[2], int(words[3]))
                continue
            if words[0] == "seat" and len(words) == 5 and words[4].lower() == "out":
                players[int(words[1])] = (words[2], int(words[3]))
                sitting_out.append(int(words[1]))
                continue
            if words[0] == "button" and len(words) == 2:
                button = int(words[1])
                continue
            section = "events"
        if section == "events":
            if line.startswith("=>"):
                if not steps:
                    raise ScenarioError(f"{where}: '=>' checks the event on the line above; there is none")
                steps[-1].checks.append(Check(number, line[2:].strip()))
                continue
            for part in line.split("|"):
                part = part.strip()
                if part.lower().startswith("draws "):
                    for card in part.split()[1:]:
                        steps.append(Step(number, CardDrawn(_card_or_none(card))))
                    continue
                steps.append(Step(number, parse_event(part, where)))
            continue
        expect.append(Check(number, line))
    if config is None:
        config = TableConfig()
    return Scenario(path, config, players, button, steps, expect, tuple(sitting_out))


def scenario_cards(path: str) -> list[tuple[int, Face, bool]]:
    """The cards a scenario file's events draw from the shoe, in order, as the simulated shoe
    deals them: (card, face, from another deck). ``tablectl sim shoe --scenario FILE``."""
    try:
        text = read_text(path, MAX_SCENARIO_BYTES, "scenario")
    except BadFile as exc:
        raise ScenarioError(f"{path}: {exc}") from None
    scenario = parse(text, path)
    out: list[tuple[int, Face, bool]] = []
    for line in scenario.steps:
        event = line.event
        if isinstance(event, CardDrawn) and event.card is not None:
            out.append((event.card, Face.FACE if event.face_up else Face.BACK, event.foreign))
    return out


def _rulings(effects: Iterable[Effect]) -> list[Ruling]:
    return [e for e in effects if isinstance(e, Ruling)]


def _cards_text(cards: Iterable[int]) -> str:
    return " ".join(card_str(c) if 0 <= c < 52 else "??" for c in cards)


def _wanted(words: list[str]) -> str:
    """Cards written in a check (``none`` for no cards), as _cards_text writes them."""
    if words in ([], ["none"]):
        return ""
    return _cards_text(parse_cards("".join(words)))


def _matches(ruling: Ruling, words: list[str]) -> bool:
    wanted = " ".join(words[2:]).lower()
    return ruling.rule == words[1] and wanted in ruling.text.lower()


def _check(
    check: Check, effects: list[Effect], state: TableState, path: str, before: TableState | None = None
) -> str | None:
    words = check.text.split()
    where = f"{path}:{check.line}"
    rulings = _rulings(effects)
    said = ", ".join(f"{r.rule} ({r.severity.value})" for r in rulings) or "no ruling"
    head = words[0].lower() if words else ""
    hand = state.hand
    if head == "ruling":
        if not any(_matches(r, words) and r.severity is not Severity.REFUSED for r in rulings):
            texts = "; ".join(f"{r.rule}: {r.text}" for r in rulings) or "no ruling"
            return f"{where}: expected ruling {' '.join(words[1:])}, got {texts}"
    elif head == "refused":
        if not any(_matches(r, words) and r.severity is Severity.REFUSED for r in rulings):
            texts = "; ".join(f"{r.rule}: {r.text}" for r in rulings) or "no ruling"
            return f"{where}: expected refusal {' '.join(words[1:])}, got {texts}"
    elif head == "unchanged":
        if before is None or state != before:
            return f"{where}: the state changed, expected it unchanged"
    elif head == "board":
        shown = hand or state.last_hand
        board = _cards_text(shown.game.board) if shown else "no hand"
        if board != _wanted(words[1:]):
            return f"{where}: the board is {board!r}, expected {' '.join(words[1:])!r}"
    elif head == "hole":
        if hand is None:
            return f"{where}: no hand is in progress"
        position = hand.position(int(words[1])) if int(words[1]) in hand.seats_in else None
        if position is None:
            return f"{where}: seat {words[1]} has no hand"
        held = hand.game.hole[position] or hand.hole[position]
        wanted = _wanted(words[2:])
        if _cards_text(held) != wanted:
            return f"{where}: seat {words[1]} holds {_cards_text(held)!r}, expected {wanted!r}"
    elif head == "up":
        if hand is None or int(words[1]) not in hand.seats_in:
            return f"{where}: seat {words[1]} has no hand in progress"
        up = showing(hand, hand.position(int(words[1])))
        if _cards_text(up) != _wanted(words[2:]):
            return f"{where}: seat {words[1]} shows {_cards_text(up)!r} up, expected {' '.join(words[2:])!r}"
    elif head == "to" and words[1:2] == ["act"]:
        actor = hand.game.actor if hand is not None else None
        acting = hand.seat(actor) if hand is not None and actor is not None else None
        if acting != int(words[2]):
            return f"{where}: seat {acting} is to act, expected seat {words[2]}"
    elif head == "burns":
        shown = hand or state.last_hand
        burns = _cards_text(shown.burns) if shown else "no hand"
        if burns != _wanted(words[1:]):
            return f"{where}: the burn cards are {burns!r}, expected {' '.join(words[1:])!r}"
    elif head == "blinds":
        blinds = "/".join(str(b) for b in state.blinds)
        if blinds != words[1]:
            return f"{where}: the blinds are {blinds}, expected {words[1]}"
    elif head == "phase":
        phase = hand.game.phase.name.lower() if hand else "none"
        if phase != words[1].lower():
            return f"{where}: the hand is at {phase}, expected {words[1]}"
    elif head == "pending":
        kind = hand.pending.kind if hand and hand.pending else "none"
        if kind != words[1].lower():
            return f"{where}: pending {kind}, expected {words[1]}"
    elif words[:2] == ["hand", "number"]:
        if state.hand_number != int(words[2]):
            return f"{where}: hand number {state.hand_number}, expected {words[2]}"
    elif words[:2] == ["last", "hand"]:
        last = state.last_hand
        if words[2:] == ["none"]:
            if last is not None:
                return f"{where}: the last hand (number {last.number}) is still kept"
        elif last is None:
            return f"{where}: no last hand is kept"
        elif words[2] == "pot" and last.game.pot != int(words[3]):
            return f"{where}: the last hand's pot was {last.game.pot}, expected {words[3]}"
        elif words[2] == "number" and last.number != int(words[3]):
            return f"{where}: the last hand is number {last.number}, expected {words[3]}"
    elif head == "no" and len(words) == 3 and words[1] == "ruling":
        if any(r.rule == words[2] for r in rulings):
            return f"{where}: ruling {words[2]} was not expected, got {said}"
    elif head == "nothing":
        if rulings:
            return f"{where}: expected no ruling, got {said}"
    elif head == "prompt":
        wanted = " ".join(words[1:]).lower()
        prompts = [e.text for e in effects if isinstance(e, Prompt)]
        if not any(wanted in p.lower() for p in prompts):
            return f"{where}: expected a prompt with {wanted!r}, got {prompts}"
    elif head == "stacks":
        for item in words[1:]:
            seat_text, chips = item.split("=")
            seat = state.seat(int(seat_text))
            have = None if seat is None else seat.stack
            if have != int(chips):
                return f"{where}: seat {seat_text} has {have}, expected {chips}"
    elif check.text.lower() == "hand over":
        if state.hand is not None:
            return f"{where}: the hand is still in progress ({state.hand.game.phase.value})"
    elif check.text.lower() == "hand in progress":
        if state.hand is None:
            return f"{where}: no hand is in progress"
    elif head == "orbit":
        orbit = " ".join("/".join(str(s) for s in p) for p in state.orbit) or "none"
        wanted = " ".join(words[1:])
        if orbit != wanted:
            return f"{where}: the round so far is {orbit!r} (button/small/big), expected {wanted!r}"
    elif head == "correction":
        if state.button_fix.value != words[1].lower():
            return f"{where}: the button's correction is {state.button_fix.value}, expected {words[1]}"
    elif head == "button":
        if state.button != int(words[1]):
            return f"{where}: the button is at seat {state.button}, expected {words[1]}"
    elif head == "pot":
        pot = state.hand.game.pot if state.hand else 0
        if pot != int(words[1]):
            return f"{where}: the pot is {pot}, expected {words[1]}"
    elif head == "ended":
        ends = [e for e in effects if isinstance(e, HandEnded)]
        kinds = ["misdeal" if e.misdeal else "void" if e.voided else "played" for e in ends]
        if not kinds or kinds[-1] != words[1]:
            return f"{where}: expected the last hand to end {words[1]}, got {kinds or 'no hand ended'}"
    else:
        return f"{where}: unknown check {check.text!r}"
    return None


def run(scenario: Scenario) -> str | None:
    """None when the scenario passes, else why it failed."""
    try:
        state = new_table(scenario.config, scenario.players, scenario.button)
    except (TableConfigError, ValueError) as exc:
        return f"{scenario.path}: {exc}"
    for seat in scenario.sitting_out:
        state, _ = step(state, FloorCommand(FloorKind.SIT_OUT, "scenario", seat=seat))
    everything: list[Effect] = []
    for item in scenario.steps:
        before = state
        state, effects = step(state, item.event)
        everything.extend(effects)
        for check in item.checks:
            why = _check(check, list(effects), state, scenario.path, before)
            if why:
                return why
    ordered = [c for c in scenario.expect if c.text.split()[0].lower() == "ruling"]
    position = 0
    all_rulings = [r for r in _rulings(everything) if r.severity is not Severity.REFUSED]
    for check in ordered:
        words = check.text.split()
        rule = words[1]
        while position < len(all_rulings) and not _matches(all_rulings[position], words):
            position += 1
        if position == len(all_rulings):
            said = ", ".join(r.rule for r in all_rulings) or "no ruling"
            return (
                f"{scenario.path}:{check.line}: expected ruling {rule} (in this order); rulings were {said}"
            )
        position += 1
    for check in scenario.expect:
        if check.text.split()[0].lower() == "ruling":
            continue
        why = _check(check, everything, state, scenario.path)
        if why:
            return why
    return None


def scenario_files(paths: Iterable[str], errors: list[dict[str, str]] | None = None) -> Iterator[Path]:
    """The .scn files of the given files and folders; a path that does not exist or a folder
    without a scenario goes to ``errors`` (raises FileNotFoundError without it)."""

    def error(path: Path, why: str) -> None:
        if errors is None:
            raise FileNotFoundError(f"{path}: {why}")
        errors.append({"file": str(path), "why": f"{path}: {why}"})

    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found = sorted(path.rglob("*.scn"))
            if not found:
                error(path, "no scenario (.scn file) in this folder or below it: nothing was run")
            yield from found
        elif path.is_file():
            yield path
        else:
            error(path, "no such scenario file or folder")


def _run_file(path: Path) -> str | None:
    """Why the scenario at ``path`` failed, or None when it passed."""
    try:
        scenario = parse(read_text(path, MAX_SCENARIO_BYTES, "scenario"), str(path))
    except BadFile as exc:
        return f"{path}: {exc}"
    except ScenarioError as exc:
        return str(exc)
    except ValueError as exc:  # a value the parser passed on (a number, a table config)
        return f"{path}: {exc}"
    if not scenario.expect and not any(s.checks for s in scenario.steps):
        return (
            f"{path}: the scenario checks nothing: write the events, each followed by => lines "
            f"or, after expect:, what must hold at the end (an empty scenario proves nothing)"
        )
    return run(scenario)


def run_paths(paths: Iterable[str]) -> dict[str, Any]:
    """Every scenario of ``paths`` run: each file that fails or cannot be read is in ``failed``
    with the reason; a path that does not exist or a folder without a scenario in ``errors``."""
    total = 0
    passed = 0
    failed: list[dict[str, str]] = []
    errors: list[dict[str, str]] = []
    for path in scenario_files(paths, errors):
        total += 1
        why = _run_file(path)
        if why is None:
            passed += 1
        else:
            failed.append({"file": str(path), "why": why})
    return {"scenarios": total, "passed": passed, "failed": failed, "errors": errors}
