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
WSOP = DATA / "phh" / "wsop-2023-43" if DATA else None
needs_records = pytest.mark.skipif(PLURIBUS is None or not PLURIBUS.exists(), reason="no ../shared/data")


def event_of(move: DrawCard | PressKey | Floor) -> Event:
    if isinstance(move, DrawCard):
        return CardDrawn(move.card, face_up=move.face_up, foreign=move.foreign)
    if isinstance(move, PressKey):
        return DealerInput(move.key, seat=move.seat, amount=move.amount, cards=move.cards)
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


@needs_records
@pytest.mark.parametrize("codes", [("F7S", "F7S/8", "FR"), ("F2L3D", "N2L1D")], ids=["stud", "draw"])
def test_stud_and_draw_records_are_dealt_as_recorded(codes: tuple[str, ...]) -> None:
    """The final table's stud and draw hands, street by street and draw by draw, each at a table of
    its own game: every one ends on the record's stacks, nothing refused."""
    assert WSOP is not None
    records = {
        source: [int(s) for s in parse_phh(text, source).fields["finishing_stacks"]]
        for source, text in iter_sources([WSOP])
    }
    scripts = [s for s in phh_scripts(WSOP) if s.config.game in codes]
    assert {s.config.game for s in scripts} == set(codes)
    for script in scripts:
        _, rulings, ended = deal([script], IrregularitySchedule(every=0), 1)
        assert not [r for r in rulings if r.severity is Severity.REFUSED], script.title
        stacks = next(v for k, v in records.items() if k.endswith(script.title))
        assert [ended[0].stacks[seat] for seat in sorted(ended[0].stacks)] == stacks, script.title


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
    """HO-13 at the demo: the last of six tables deals the eight-game mix by orbit; its dealer
    keeps the players seated, lets the table move the button (frozen through the stud games) and
    deals random hands of the game in play, draws and stud streets included, irregularities too."""
    plans = plan_tables(6, DATA)
    rotation = plans[-1].config.rotation
    assert rotation is not None and rotation.title == "8-game"
    assert [p.config.rotation for p in plans[:-1]] == [None] * 5
    state = new_table(plans[-1].config)
    dealer = RoomDealer(iter(()), random.Random(5), IrregularitySchedule(every=4), deal_for=rotation_script)
    dealt: list[tuple[str, int | None]] = []  # (game, button) of each deal
    redealt = 0
    rules: Counter[str] = Counter()
    refused: list[Ruling] = []
    changes = 0
    for _ in range(400_000):
        if len(dealt) - redealt >= 48:
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
        rules.update(e.rule for e in effects if isinstance(e, Ruling))
        if any(isinstance(e, HandEnded) and (e.misdeal or e.voided) for e in effects):
            redealt += 1
            dealt[-1] = ("redealt", dealt[-1][1])
        if before is None and state.hand is not None:
            dealt.append((state.hand.game.config.variant.code, state.button))
    assert not refused
    # No card is dealt twice (IRR-2), not even after a draw's short deck was reshuffled (HO-9).
    assert "IRR-2" not in rules and rules["HO-9"] >= 1
    assert redealt >= 4  # the schedule's misdeals and voids, each dealt again
    played = [(code, button) for code, button in dealt if code != "redealt"]
    games = [g.game for g in rotation.games]
    assert [code for code, _ in played] == [g for g in games for _ in range(6)]  # six hands a game
    studs = ("FR", "F7S", "F7S/8")
    assert all(button == 6 for code, button in played if code in studs)  # frozen through stud
    # The button resumes one seat on from where Omaha/8's orbit left it, as if no stud was dealt.
    assert [button for code, button in played if code not in studs] == [1, 2, 3, 4, 5, 6] * 5
    assert changes == 7
