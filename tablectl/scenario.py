"""Scenario files: a situation at the table, written by a test engineer without Python.

A scenario file has three parts. The table::

    # MD-a: the first card of the hand dealt face up is a misdeal
    table seats=6 game=NT blinds=50/100 profile=tda
    seat 1 Ann 1000
    seat 2 Bob 1000
    button 2

then the events, one a line, each optionally followed by ``=>`` lines that check
the effects of that event alone::

    new hand
    draw As up               # the shoe drew the ace face up (a boxed card)
    => ruling IRR-3
    draw Kd Qh Jc Ts         # four cards drawn face down
    seen seat 1 Kd up        # the camera saw seat 1's card face up
    call 3 | bet 4 300 | fold 1 | check 2 | allin 3 | confirm
    misdeal g                # the dealer calls a misdeal, cause MD-g
    flashed 2 by dealer Kd | show 2 AsKd | muck 3
    floor void_hand by Jane  # any floor command: floor KIND [seat N] [amount N] [name X]
                             #   [ruling R] [decision D] [blinds a/b] [ante N] by NAME
    device reader lost       # or: device camera ok

and after ``expect:`` what must hold at the end: ``ruling ID`` (in order),
``refused ID``, ``no ruling ID``, ``stacks 1=950 2=1050``, ``hand over``,
``hand in progress``, ``button N``, ``pot N``, ``ended misdeal|void|played``.
``=>`` lines take ``ruling ID``, ``refused ID``, ``no ruling ID``, ``nothing`` and ``prompt TEXT``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tablectl.cards import CardError, parse_card, parse_cards
from tablectl.effects import Effect, HandEnded, Prompt, Ruling, Severity
from tablectl.events import (
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
from tablectl.table import TableConfig, TableConfigError, TableState, new_table, step


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
            cards = tuple(parse_card(w) for w in rest)
            return DealerInput(DealerKey.CARD_FLASHED, seat=int(words[1]), cause=by, cards=cards)
        if head == "show":
            cards = parse_cards("".join(words[2:])) if len(words) > 2 else ()
            return DealerInput(DealerKey.SHOW, seat=int(words[1]), cards=cards)
        if head == "muck":
            return DealerInput(DealerKey.MUCK, seat=int(words[1]))
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
    raise ScenarioError(f"{where}: unknown event {head!r} (see the format in tablectl/scenario.py)")


def _floor(words: list[str], where: str) -> FloorCommand:
    kind = FloorKind(words[0].lower())
    if "by" not in words:
        raise ScenarioError(f"{where}: a floor command ends with 'by NAME'")
    by_at = words.index("by")
    by = " ".join(words[by_at + 1 :])
    args = words[1:by_at]
    values: dict[str, Any] = {}
    for name, value in zip(args[::2], args[1::2], strict=False):
        if name in ("seat", "amount", "ante"):
            values[name] = int(value)
        elif name == "blinds":
            values["blinds"] = tuple(int(v) for v in value.split("/"))
        elif name in ("name", "ruling", "decision"):
            values[name] = value
        else:
            raise ScenarioError(
                f"{where}: a floor command takes seat, amount, ante, blinds, name, ruling, decision"
            )
    return FloorCommand(kind, by, **values)


def parse(text: str, path: str = "<scenario>") -> Scenario:
    config: TableConfig | None = None
    players: dict[int, tuple[str, int]] = {}
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
    return Scenario(path, config, players, button, steps, expect)


def _rulings(effects: Iterable[Effect]) -> list[Ruling]:
    return [e for e in effects if isinstance(e, Ruling)]


def _check(check: Check, effects: list[Effect], state: TableState, path: str) -> str | None:
    words = check.text.split()
    where = f"{path}:{check.line}"
    rulings = _rulings(effects)
    said = ", ".join(f"{r.rule} ({r.severity.value})" for r in rulings) or "no ruling"
    head = words[0].lower() if words else ""
    if head == "ruling":
        if not any(r.rule == words[1] and r.severity is not Severity.REFUSED for r in rulings):
            return f"{where}: expected ruling {words[1]}, got {said}"
    elif head == "refused":
        if not any(r.rule == words[1] and r.severity is Severity.REFUSED for r in rulings):
            return f"{where}: expected refusal {words[1]}, got {said}"
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
    everything: list[Effect] = []
    for item in scenario.steps:
        state, effects = step(state, item.event)
        everything.extend(effects)
        for check in item.checks:
            why = _check(check, list(effects), state, scenario.path)
            if why:
                return why
    ordered = [c for c in scenario.expect if c.text.split()[0].lower() == "ruling"]
    position = 0
    all_rulings = [r for r in _rulings(everything) if r.severity is not Severity.REFUSED]
    for check in ordered:
        rule = check.text.split()[1]
        while position < len(all_rulings) and all_rulings[position].rule != rule:
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


def scenario_files(paths: Iterable[str]) -> Iterator[Path]:
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            yield from sorted(path.rglob("*.scn"))
        elif path.is_file():
            yield path
        else:
            raise FileNotFoundError(f"{path}: no such scenario file or folder")


def run_paths(paths: Iterable[str]) -> dict[str, Any]:
    total = 0
    passed = 0
    failed: list[dict[str, str]] = []
    for path in scenario_files(paths):
        total += 1
        try:
            why = run(parse(path.read_text(encoding="utf-8"), str(path)))
        except ScenarioError as exc:
            why = str(exc)
        if why is None:
            passed += 1
        else:
            failed.append({"file": str(path), "why": why})
    return {"scenarios": total, "passed": passed, "failed": failed}
