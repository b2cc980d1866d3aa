"""The demo's dealer on the pure step: the records are dealt as recorded (stacks as the records
end), each irregularity of the schedule is ruled on, and a misdeal or a void deals the record again."""

from __future__ import annotations

import dataclasses
import itertools
import random
from collections import Counter
from pathlib import Path

import pytest

from tablectl.core.effects import HandEnded, Ruling, Severity
from tablectl.core.events import CardDrawn, DealerInput, Event
from tablectl.core.table import TableConfig, TableState, new_table, step
from tablectl.formats.phh import iter_sources, parse_phh
from tablectl.service.tablefile import parse_table_config
from tablectl.sim.demo import shared_data_dir
from tablectl.sim.room import plan_tables, table_file_text
from tablectl.sim.room_dealer import (
    SCHEDULE,
    CallFloor,
    DrawCard,
    Floor,
    HandScript,
    Irregularity,
    IrregularitySchedule,
    PressKey,
    RoomDealer,
    phh_scripts,
    random_scripts,
    rotation_script,
)
from tablectl.sim.room_table import floor_answers_call, floor_call

DATA = shared_data_dir()
PLURIBUS = DATA / "phh" / "pluribus.tar.gz" if DATA else None
needs_records = pytest.mark.skipif(PLURIBUS is None or not PLURIBUS.exists(), reason="no ../shared/data")


def event_of(move: DrawCard | PressKey | Floor) -> Event:
    if isinstance(move, DrawCard):
        return CardDrawn(move.card, face_up=move.face_up, foreign=move.foreign)
    if isinstance(move, PressKey):
        return DealerInput(move.key, seat=move.seat, amount=move.amount)
    return move.command


def deal(
    scripts: list[HandScript], schedule: IrregularitySchedule, hands: int
) -> tuple[TableState, list[Ruling], list[HandEnded]]:
    config = dataclasses.replace(scripts[0].config, seats=9)
    state = new_table(config)
    dealer = RoomDealer(iter(scripts), random.Random(7), schedule)
    rulings: list[Ruling] = []
    ended: list[HandEnded] = []
    for _ in range(100_000):
        if len(ended) >= hands:
            break
        move = dealer.next_move(state, at=1.0)
        if isinstance(move, CallFloor):  # from the dealer's screen; the floor answers at once
            for event in (floor_call(move.seat, 1.0), floor_answers_call(1.0)):
                state, effects = step(state, event)
                rulings += [e for e in effects if isinstance(e, Ruling)]
            continue
        state, effects = step(state, event_of(move))
        rulings += [e for e in effects if isinstance(e, Ruling)]
        ended += [e for e in effects if isinstance(e, HandEnded)]
    return state, rulings, ended


@needs_records
def test_the_records_are_dealt_as_recorded_without_irregularities() -> None:
    assert PLURIBUS is not None
    scripts = list(itertools.islice(phh_scripts(PLURIBUS), 40))
    finishing = [
        [int(s) for s in parse_phh(text, source).fields["finishing_stacks"]]
        for source, text in itertools.islice(iter_sources([PLURIBUS]), 40)
    ]
    _, rulings, ended = deal(scripts, IrregularitySchedule(every=0), len(scripts))
    assert not [r for r in rulings if r.severity is Severity.REFUSED]
    for hand, stacks in zip(ended, finishing, strict=True):
        assert [hand.stacks[seat] for seat in sorted(hand.stacks)] == stacks


def test_every_irregularity_is_ruled_on_and_the_deal_goes_on() -> None:
    scripts = list(itertools.islice(random_scripts(3), 30))
    state, rulings, ended = deal(scripts, IrregularitySchedule(every=1), 25)
    rules = Counter(r.rule for r in rulings)
    assert {"IRR-3", "IRR-6", "MD-1", "IRR-1", "CALL"} <= set(rules)
    assert not state.floor_calls  # every call answered
    assert not [r for r in rulings if r.severity is Severity.REFUSED]
    # A misdeal and a void end the deal and the same record is dealt again.
    assert sum(1 for e in ended if e.misdeal or e.voided) == rules["MD-1"] + rules["IRR-1"] // 2


def test_the_schedule_takes_turns_with_the_dealer_calling_the_floor() -> None:
    schedule = IrregularitySchedule(every=3, offset=1)
    kinds = [schedule.for_deal(deal) for deal in range(0, 3 * len(SCHEDULE), 3)]
    assert set(kinds) == set(Irregularity) and Irregularity.CALLS_FLOOR in kinds
    assert [schedule.for_deal(deal) for deal in (1, 2, 4)] == [None, None, None]
    assert IrregularitySchedule(every=0).for_deal(0) is None


def test_six_tables_get_table_files_that_serve_reads(tmp_path: Path) -> None:
    plans = plan_tables(6, DATA)
    assert [p.config.table for p in plans] == ["1", "2", "3", "4", "5", "6"]
    for plan in plans:
        table_file = parse_table_config(table_file_text(plan.config, tmp_path, fast=True), base=tmp_path)
        assert table_file.table == plan.config
        assert table_file.panel is not None and table_file.shoe.port == str(tmp_path / "shoe")
    without = plan_tables(2, None)
    assert [p.config for p in without] == [
        TableConfig(room="main", table=str(k), seats=9, game="NT", blinds=(50, 100)) for k in (1, 2)
    ]


def test_the_demo_table_of_mixed_games_deals_each_game_an_orbit() -> None:
    """HO-13 at the demo: the last of six tables is a "PLO / NLH" rotation by orbit; its dealer
    keeps the players seated, lets the table move the button and deals random hands of the game
    in play, irregularities included."""
    plans = plan_tables(6, DATA)
    rotation = plans[-1].config.rotation
    assert rotation is not None and rotation.title == "PLO / NLH"
    assert [p.config.rotation for p in plans[:-1]] == [None] * 5
    state = new_table(plans[-1].config)
    dealer = RoomDealer(iter(()), random.Random(5), IrregularitySchedule(every=4), deal_for=rotation_script)
    dealt: list[tuple[int, str, int | None]] = []
    refused: list[Ruling] = []
    changes = 0
    for _ in range(60_000):
        if len(dealt) >= 20:
            break
        move = dealer.next_move(state, at=1.0)
        if isinstance(move, CallFloor):
            for event in (floor_call(move.seat, 1.0), floor_answers_call(1.0)):
                state, _ = step(state, event)
            continue
        before = state.hand
        state, effects = step(state, event_of(move))
        refused += [e for e in effects if isinstance(e, Ruling) and e.severity is Severity.REFUSED]
        changes += sum(1 for e in effects if isinstance(e, Ruling) and e.rule == "HO-13")
        if before is None and state.hand is not None:
            dealt.append((state.hand.number, state.hand.game.config.variant.code, state.button))
    assert not refused
    played: list[tuple[str, int | None]] = []
    for _, code, button in dealt:  # a redeal (MD-2) is the same game with the same button
        if not played or played[-1] != (code, button):
            played.append((code, button))
    assert len(played) < len(dealt)  # the schedule's misdeals and voids were redealt
    assert [code for code, _ in played][:13] == ["PO"] * 6 + ["NT"] * 6 + ["PO"]  # six hands a game
    assert [button for _, button in played][:13] == [1, 2, 3, 4, 5, 6] * 2 + [1]
    assert changes >= 2
