"""Replaying a hand from the journal for the floor (TBL-5), and exporting it as PHH."""

from __future__ import annotations

import dataclasses
import math
import re
from pathlib import Path

import pytest

from tablectl.core.cards import parse_card
from tablectl.core.effects import HandEnded
from tablectl.core.events import CardDrawn, DealerInput, DealerKey, Event, FloorCommand, FloorKind
from tablectl.core.game.variants import variant_from_code
from tablectl.core.table import TableConfig, TableState, new_table, step
from tablectl.formats import phh
from tablectl.journal import Controller, Journal, JournalCorrupt
from tablectl.journal.replay import ReplayError, export_hand_phh, replay_hand
from tablectl.sim.scenario import parse as parse_scenario
from tests.helpers.journal_child import table_events
from tests.helpers.paths import ROOT

CONFIG = TableConfig()
T0 = 1_700_000_000.0


def cards(text: str) -> list[Event]:
    return [CardDrawn(parse_card(text[k : k + 2])) for k in range(0, len(text), 2)]


def dealer(key: DealerKey, seat: int | None = None, amount: int | None = None, **kw: object) -> Event:
    return DealerInput(key, seat=seat, amount=amount, **kw)  # type: ignore[arg-type]


SEATING: list[Event] = [
    FloorCommand(FloorKind.SEAT_PLAYER, by="Ann", seat=1, name="Alice", amount=5_000),
    FloorCommand(FloorKind.SEAT_PLAYER, by="Ann", seat=2, name="Bob", amount=5_000),
    FloorCommand(FloorKind.SEAT_PLAYER, by="Ann", seat=3, name="Carol", amount=5_000),
    FloorCommand(FloorKind.MOVE_BUTTON, by="Ann", seat=3),
]

# Button seat 3, so seat 1 posts the small blind, seat 2 the big blind, seat 3 acts first.
HAND_1: list[Event] = [
    dealer(DealerKey.NEW_HAND),
    *cards("AsKc2cAdKd7d"),  # seat 1 As Ad, seat 2 Kc Kd, seat 3 2c 7d
    dealer(DealerKey.CALL, 1),  # out of turn: refused (BET-14)
    dealer(DealerKey.CALL, 3),
    dealer(DealerKey.CALL, 1),
    dealer(DealerKey.CHECK, 2),
    *cards("2h3h8s9c"),  # burn, flop
    dealer(DealerKey.CHECK, 1),
    dealer(DealerKey.BET, 2, 200),
    dealer(DealerKey.FOLD, 3),
    dealer(DealerKey.CALL, 1),
    *cards("2sJd"),  # burn, turn
    dealer(DealerKey.CHECK, 1),
    dealer(DealerKey.CHECK, 2),
    *cards("5d4h"),  # burn, river
    dealer(DealerKey.BET, 1, 300),
    dealer(DealerKey.CALL, 2),
    dealer(DealerKey.SHOW, 1, cards=(parse_card("As"), parse_card("Ad"))),
    dealer(DealerKey.MUCK, 2),
]

HAND_2_MISDEAL: list[Event] = [
    dealer(DealerKey.NEW_HAND),
    *cards("QhQs"),
    dealer(DealerKey.MISDEAL, cause="a"),
    dealer(DealerKey.CONFIRM),
]

HAND_3_IN_PROGRESS: list[Event] = [dealer(DealerKey.NEW_HAND), *cards("TcTdTh")]


def timed(events: list[Event]) -> list[Event]:
    import dataclasses

    return [dataclasses.replace(e, at=T0 + k) for k, e in enumerate(events)]  # type: ignore[type-var]


def journal_of(path: Path, events: list[Event]) -> TableState:
    with Controller.open(path, CONFIG, step, new_table(CONFIG)) as controller:
        for event in timed(events):
            controller.handle(event)
        return controller.state


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "table.journal"


def test_replay_tells_the_hand_action_by_action_with_the_pot(path: Path) -> None:
    journal_of(path, SEATING + HAND_1)
    lines = replay_hand(path)
    text = "\n".join(lines)
    assert lines[0] == "Hand 1 at table 1 (room main), button seat 3"
    betting = [line for line in lines if re.search(r"(checks|calls|bets|raises|folds)\b", line)]
    expected = [
        ("Seat 3 Carol (BTN) calls 100", 250),
        ("Seat 1 Alice (SB) calls 50", 300),
        ("Seat 2 Bob (BB) checks", 300),
        ("Seat 1 Alice (SB) checks", 300),
        ("Seat 2 Bob (BB) bets 200", 500),
        ("Seat 3 Carol (BTN) folds", 500),
        ("Seat 1 Alice (SB) calls 200", 700),
        ("Seat 1 Alice (SB) checks", 700),
        ("Seat 2 Bob (BB) checks", 700),
        ("Seat 1 Alice (SB) bets 300", 1_000),
        ("Seat 2 Bob (BB) calls 300", 1_300),
    ]
    assert len(betting) == len(expected)
    for line, (action, pot) in zip(betting, expected, strict=True):
        assert action in line and line.endswith(f"(pot {pot:,})"), line
    # Every line from an event names its journal seq: the out-of-turn call is #12.
    assert re.search(r"^#12 \S+ REFUSED BET-14 on dealer call seat 1: action is on seat 3", text, re.M)
    assert "Flop: 3h 8s 9c   (pot 300)" in text
    assert "Turn: 3h 8s 9c Jd   (pot 700)" in text
    assert "River: 3h 8s 9c Jd 4h   (pot 700)" in text
    assert "Seat 1 Alice (SB) shows As Ad" in text
    assert "The pot 1,300: Seat 1 Alice (SB) 1,300" in text
    result = "Seat 1 Alice (SB) 5,700 (+700); Seat 2 Bob (BB) 4,400 (-600); Seat 3 Carol (BTN) 4,900 (-100)"
    assert f"Result: {result}" in text
    assert lines[-1] == "Journal events #5 to #33."


def test_every_ruling_appears_with_its_id(path: Path) -> None:
    journal_of(path, SEATING + HAND_1 + HAND_2_MISDEAL)
    text = "\n".join(replay_hand(path, 2))
    assert "RULING MD-a (misdeal) on dealer misdeal (a):" in text
    assert "RULING MD-2 (misdeal) on dealer confirm:" in text
    assert "Result: misdeal, every chip back" in text


def test_the_default_hand_is_the_last_complete_one(path: Path) -> None:
    state = journal_of(path, SEATING + HAND_1 + HAND_2_MISDEAL + HAND_3_IN_PROGRESS)
    assert state.hand_number == 3 and state.hand is not None
    assert replay_hand(path)[0].startswith("Hand 1 ")  # 2 was a misdeal, 3 is not over
    assert replay_hand(path, 3)[-2] == "(hand 3 is still in progress: pot 150)"
    with pytest.raises(ReplayError, match="no hand 7"):
        replay_hand(path, 7)


def test_a_journal_without_a_finished_hand(path: Path) -> None:
    journal_of(path, SEATING + HAND_3_IN_PROGRESS)
    with pytest.raises(ReplayError, match="no hand has been played to the end"):
        replay_hand(path)


def test_floor_commands_and_their_supervisor_are_in_the_replay(path: Path) -> None:
    events = SEATING + HAND_1[:8] + [FloorCommand(FloorKind.VOID_HAND, by="Ann")]
    journal_of(path, events)
    text = "\n".join(replay_hand(path, 1))
    assert "floor void hand by Ann" in text and "(user" not in text
    assert "Result: hand void, every chip back" in text


def test_a_command_over_mqtt_is_replayed_with_the_name_typed_and_the_login(path: Path) -> None:
    events = SEATING + HAND_1[:8] + [FloorCommand(FloorKind.VOID_HAND, by="Ann Smith", user="floor.ann")]
    journal_of(path, events)
    assert "floor void hand by Ann Smith (user floor.ann)" in "\n".join(replay_hand(path, 1))


def test_phh_export_replays_to_the_same_result(path: Path) -> None:
    journal_of(path, SEATING + HAND_1 + HAND_2_MISDEAL)
    record = phh.parse_phh(export_hand_phh(path), "export")
    assert record.fields["hand"] == 1 and record.fields["players"] == ["Alice", "Bob", "Carol"]
    assert record.fields["seats"] == [1, 2, 3]
    replayed = phh.replay(record, CONFIG.rules())
    assert replayed.state.finishing_stacks == (5_700, 4_400, 4_900)
    assert record.finishing_stacks == (5_700, 4_400, 4_900)
    assert export_hand_phh(path, 1) == export_hand_phh(path)
    with pytest.raises(ReplayError, match="misdeal"):
        export_hand_phh(path, 2)


def test_replay_reads_a_journal_while_the_table_writes_it(path: Path) -> None:
    with Controller.open(path, CONFIG, step, new_table(CONFIG)) as controller:
        for event in timed(SEATING + HAND_1):
            controller.handle(event)
        assert replay_hand(path)[0].startswith("Hand 1 ")
        for event in timed(HAND_2_MISDEAL):
            controller.handle(event)
        assert "MD-a" in "\n".join(replay_hand(path, 2))


def test_a_corrupt_journal_is_not_replayed_past_the_bad_row(path: Path) -> None:
    import sqlite3

    journal_of(path, SEATING + HAND_1)
    db = sqlite3.connect(path)
    db.execute("INSERT INTO events (hand, body) VALUES (1, '{oops')")
    db.commit()
    db.close()
    with pytest.raises(JournalCorrupt, match="seq 34"):
        replay_hand(path)


def test_every_hand_of_a_long_session_exports_to_phh_that_agrees_with_the_table(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Cross-check: the table's result of each complete hand equals the engine's replay of its PHH."""
    monkeypatch.setattr("tablectl.journal.store.SYNCHRONOUS", "OFF")  # speed; durability is not tested here
    events = table_events(2_500)
    results: dict[int, dict[int, int]] = {}
    with Journal(path, CONFIG) as journal:
        state = new_table(CONFIG)
        for event in events:
            state, effects = step(state, event)
            journal.append(event, state.hand_number)
            for effect in effects:
                if isinstance(effect, HandEnded) and not (effect.misdeal or effect.voided):
                    results[effect.hand] = effect.stacks
    assert len(results) > 40
    for number in sorted(results)[-6:]:  # the last ones: each replay folds from the start
        text = export_hand_phh(path, number)
        record = phh.parse_phh(text, f"hand {number}")
        finishing = phh.replay(record, CONFIG.rules()).state.finishing_stacks
        seats = record.fields["seats"]
        assert dict(zip(seats, finishing, strict=True)) == results[number]
        lines = replay_hand(path, number)
        assert lines[0].startswith(f"Hand {number} ")
        assert any(line.strip().startswith("Result: ") for line in lines)


def test_a_hand_killed_by_the_floor_replays_but_does_not_export(path: Path) -> None:
    preflop = HAND_1[:11]
    killed = [*preflop, FloorCommand(FloorKind.KILL_HAND, by="Ann", seat=3, ruling="IRR-9")]
    finish = [*cards("2h3h8s9c"), dealer(DealerKey.CHECK, 1), dealer(DealerKey.CHECK, 2)]
    journal_of(path, SEATING + killed + finish)
    text = "\n".join(replay_hand(path, 1))
    assert "floor kill hand by Ann seat 3 ruling IRR-9" in text
    assert "Seat 3 Carol (BTN)'s hand is dead (IRR-9)   (pot 300)" in text
    with pytest.raises(ReplayError, match="seat 3's hand was ruled dead"):
        export_hand_phh(path, 1)


@pytest.mark.parametrize("at", [math.nan, math.inf, -math.inf, 1e300, 1.7e12])
def test_replay_shows_a_hand_whatever_times_an_older_version_journaled(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], at: float
) -> None:
    """Before the boundary checked 'at', a command's time went to the journal as sent: NaN,
    infinity, 1e300, milliseconds. The hand it is in must still be shown and exported."""
    from tablectl.cli import main

    path = tmp_path / "t.journal"
    events = timed([*SEATING, *HAND_1])
    odd = len(SEATING) + 7  # the call out of turn in hand 1, and the first seating
    events[odd] = dataclasses.replace(events[odd], at=at)  # type: ignore[type-var]
    events[0] = dataclasses.replace(events[0], at=at)  # type: ignore[type-var]
    with Controller.open(path, CONFIG, step, new_table(CONFIG)) as controller:
        for event in events:
            controller.handle(event)  # journaled as the old reader journaled it: no check
    with Journal(path) as journal:
        bodies = [e.event.at for e in journal.events()]
    assert repr(bodies[odd]) == repr(at)  # the journal holds the odd time
    assert main(["replay", str(path), "--hand", "1"]) == 0
    out = capsys.readouterr().out
    assert f"#{odd + 1} --:--:-- REFUSED BET-14 on dealer call seat 1" in out, out
    assert "Journal events" in out
    assert main(["replay", str(path), "--hand", "1", "--phh"]) == 0
    assert "players" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("scenario", "told"),
    [
        # STUD-10: the procedure moved the turn itself; the replay follows the table's state
        ("stud-10-out-of-turn-established-by-the-next-player.scn", "Seat 2 Bob calls 100"),
        # DRAW-6: a dark bet left in the pot on a fold (the ledger moved the chips itself)
        ("draw-6-bet-in-the-dark-stays-in-the-pot-on-a-fold.scn", "Seat 2 Bob (BB) folds   (pot 500)"),
    ],
)
def test_a_hand_the_procedure_changed_by_itself_replays_without_gaps(
    path: Path, scenario: str, told: str
) -> None:
    from tablectl.sim.scenario import parse

    scn = parse((ROOT / "tests" / "scenarios" / scenario).read_text(), scenario)
    seating: list[Event] = [
        FloorCommand(FloorKind.SEAT_PLAYER, "floor", seat=seat, name=name, amount=stack)
        for seat, (name, stack) in scn.players.items()
    ]
    if scn.button is not None:
        seating.append(FloorCommand(FloorKind.MOVE_BUTTON, "floor", seat=scn.button))
    with Controller.open(path, scn.config, step, new_table(scn.config)) as controller:
        for event in timed(seating + [s.event for s in scn.steps]):
            controller.handle(event)
        number = (controller.state.hand or controller.state.last_hand).number  # type: ignore[union-attr]
    text = "\n".join(replay_hand(path, number))
    assert "could not re-apply" not in text
    assert told in text
    if not variant_from_code(scn.config.game).game.has_button:
        assert "(SB)" not in text and "button" not in text  # stud: no button, no positions


@pytest.mark.parametrize(
    ("scenario", "said"),
    [
        ("stud-10-out-of-turn-established-by-the-next-player", "seat 1's action out of turn was established"),
        ("draw-6-bet-in-the-dark-stays-in-the-pot-on-a-fold", "chips of seat 2 moved outside a wager"),
    ],
)
def test_a_hand_the_ledger_moved_the_turn_or_chips_of_replays_but_does_not_export(
    path: Path, scenario: str, said: str
) -> None:
    # STUD-10's established action out of turn and DRAW-6's dark bet left in the pot are the
    # ledger's, not actions: a PHH record of the hand's actions alone would not replay.
    played = parse_scenario((ROOT / "tests" / "scenarios" / f"{scenario}.scn").read_text(encoding="utf-8"))
    seating: list[Event] = [
        FloorCommand(FloorKind.SEAT_PLAYER, by="Ann", seat=seat, name=name, amount=stack)
        for seat, (name, stack) in played.players.items()
    ]
    if played.button is not None:
        seating.append(FloorCommand(FloorKind.MOVE_BUTTON, by="Ann", seat=played.button))
    config = played.config
    with Controller.open(path, config, step, new_table(config)) as controller:
        for event in timed(seating + [item.event for item in played.steps]):
            controller.handle(event)
    assert replay_hand(path, 1)[0].startswith("Hand 1 ")
    with pytest.raises(ReplayError, match=re.escape(said)):
        export_hand_phh(path, 1)
