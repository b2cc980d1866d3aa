"""The journal: round trip, outcomes, refusals, and exactly-once across kill -9."""

from __future__ import annotations

import os
import queue
import re
import signal
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tablectl.core.cards import parse_card
from tablectl.core.effects import Severity
from tablectl.core.events import (
    CardDrawn,
    CardSeen,
    DealerInput,
    DealerKey,
    DeviceStatus,
    FloorCommand,
    FloorKind,
    Zone,
)
from tablectl.journal import (
    SYNCHRONOUS,
    Controller,
    DuplicateEvent,
    Journal,
    JournalCorrupt,
    JournalError,
    fold,
)
from tests.helpers import journal_child
from tests.helpers.journal_child import TOY_CONFIG, ToyState, state_digest, toy_events, toy_step

CHILD = Path(journal_child.__file__)

EVERY_KIND = [
    CardDrawn(parse_card("As"), at=1.5),
    CardDrawn(None, face_up=True, foreign=True),
    CardSeen(Zone.SEAT, parse_card("Td"), face_up=True, seat=4, at=2.0),
    DealerInput(DealerKey.BET, seat=3, amount=300, at=3.25),
    DealerInput(DealerKey.SHOW, seat=2, cards=(parse_card("Kh"), parse_card("Kc"))),
    FloorCommand(FloorKind.SET_BLINDS, by="Ann", blinds=(100, 200), ante=25),
    FloorCommand(FloorKind.OVERRIDE, by="Bob", ruling="MD-a", decision="hand plays"),
    DeviceStatus("shoe", ok=False, detail="reader timeout"),
]


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "table.journal"


def open_toy(path: Path) -> Controller[ToyState]:
    return Controller.open(path, TOY_CONFIG, toy_step, ToyState())


# -- the journal ---------------------------------------------------------------------------------


def test_round_trip_every_kind_of_event(path: Path) -> None:
    with Journal(path, TOY_CONFIG) as journal:
        seqs = [journal.append(event, hand) for hand, event in enumerate(EVERY_KIND)]
        assert seqs == list(range(1, len(EVERY_KIND) + 1))
        assert journal.last_seq() == len(EVERY_KIND)
    with Journal(path, TOY_CONFIG) as journal:
        entries = list(journal.events())
    assert [e.event for e in entries] == EVERY_KIND
    assert [e.seq for e in entries] == seqs
    assert [e.hand for e in entries] == list(range(len(EVERY_KIND)))
    assert all(e.outcome is None for e in entries)
    seq, hand, event, outcome = entries[3]  # entries unpack as (seq, hand_number, event, outcome)
    assert (seq, hand, event, outcome) == (4, 3, EVERY_KIND[3], None)


def test_journal_is_in_wal_mode_with_the_chosen_synchronous(path: Path) -> None:
    with Journal(path, TOY_CONFIG):
        db = sqlite3.connect(path)
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        db.close()
    assert SYNCHRONOUS in ("FULL", "NORMAL")


def test_events_from_seq_and_across_read_batches(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("tablectl.journal.store._BATCH", 16)
    events = toy_events(40)  # two full read batches and a part
    with Journal(path, TOY_CONFIG) as journal:
        for event in events:
            journal.append(event, 0)
        assert [e.event for e in journal.events()] == events
        assert [e.seq for e in journal.events(from_seq=30)] == list(range(30, 41))
        assert list(journal.events(from_seq=41)) == []
    monkeypatch.setattr("tablectl.journal.store._BATCH", 20)  # a last batch that is exactly full
    with Journal(path) as journal:
        assert [e.event for e in journal.events()] == events


def test_outcome_is_recorded_and_can_be_restated(path: Path) -> None:
    with Journal(path, TOY_CONFIG) as journal:
        a = journal.append(EVERY_KIND[0], 1)
        b = journal.append(EVERY_KIND[3], 1)
        journal.record_outcome(b, "refused: BET-14 not your turn")
        assert [e.outcome for e in journal.events()] == [None, "refused: BET-14 not your turn"]
        journal.record_outcome(a, "applied")
        journal.record_outcome(a, "applied; IRR-7 info: exposed")
        assert [e.outcome for e in journal.events()] == [
            "applied; IRR-7 info: exposed",
            "refused: BET-14 not your turn",
        ]


def test_journaled_events_cannot_be_changed_or_deleted(path: Path) -> None:
    with Journal(path, TOY_CONFIG) as journal:
        journal.append(EVERY_KIND[0], 1)
    db = sqlite3.connect(path)
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        db.execute("UPDATE events SET hand = 2")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        db.execute("DELETE FROM events")
    db.close()


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ('{"type": "card_drawn", "card": "As"', "not JSON"),
        ('{"type": "card_drawn", "card": "Zz"}', "card"),
        ('{"type": "teleport"}', "unknown event type"),
        ('["card_drawn"]', "JSON object"),
    ],
)
def test_a_corrupt_row_stops_the_read_naming_its_seq(path: Path, body: str, reason: str) -> None:
    with Journal(path, TOY_CONFIG) as journal:
        journal.append(EVERY_KIND[0], 1)
        journal.append(EVERY_KIND[1], 1)
    db = sqlite3.connect(path)
    db.execute("INSERT INTO events (hand, body) VALUES (1, ?)", (body,))
    db.commit()
    db.close()
    with Journal(path, TOY_CONFIG) as journal:
        journal.append(EVERY_KIND[2], 1)  # a good event after the bad one is never reached
        read = []
        with pytest.raises(JournalCorrupt) as caught:
            for entry in journal.events():
                read.append(entry.seq)
    assert read == [1, 2]  # everything before it, nothing skipped past it
    assert caught.value.seq == 3
    message = str(caught.value)
    assert "seq 3" in message and str(path) in message and reason in message
    with pytest.raises(JournalCorrupt, match="seq 3"):
        open_toy(path)  # the controller refuses to rebuild a state past it


def test_a_journal_with_another_config_is_refused(path: Path) -> None:
    Journal(path, TOY_CONFIG).close()
    Journal(path, dict(TOY_CONFIG)).close()  # the same config again is fine
    with pytest.raises(JournalError) as caught:
        Journal(path, {**TOY_CONFIG, "seats": 9})
    message = str(caught.value)
    assert str(path) in message and "seats" in message and "mv " in message
    with Journal(path) as reader:  # read-only, any config: for replay
        assert reader.config == TOY_CONFIG


def test_a_config_object_with_to_json_is_accepted(path: Path) -> None:
    class Config:
        def to_json(self) -> dict[str, object]:
            return {"blinds": (50, 100), "seats": 9}

    Journal(path, Config()).close()
    Journal(path, {"seats": 9, "blinds": [50, 100]}).close()  # tuples and lists are the same JSON


def test_a_key_added_since_the_journal_was_started_is_read_at_its_default(path: Path) -> None:
    """An older version wrote its config without the keys added since (here, as if it had no
    `profile` and no `bring_in`): at their defaults it is the same config, at another value not."""
    from tablectl.core.table import TableConfig

    older = {k: v for k, v in TableConfig(seats=6).to_json().items() if k not in ("profile", "bring_in")}
    Journal(path, older).close()
    Journal(path, TableConfig(seats=6)).close()  # profile "tda", no bring-in: what the old code did
    with pytest.raises(JournalError, match="different: profile"):
        Journal(path, TableConfig(seats=6, profile="btr"))
    with pytest.raises(JournalError, match="different: seats"):
        Journal(path, TableConfig(seats=9))


def test_a_journal_of_another_format_is_refused(path: Path) -> None:
    Journal(path, TOY_CONFIG).close()
    db = sqlite3.connect(path)
    db.execute("UPDATE meta SET value = '99' WHERE key = 'format'")
    db.commit()
    db.close()
    with pytest.raises(JournalError, match="format 99") as caught:
        Journal(path, TOY_CONFIG)
    assert str(path) in str(caught.value)


def test_a_file_that_is_not_a_journal_is_refused(tmp_path: Path) -> None:
    other = tmp_path / "other.db"
    db = sqlite3.connect(other)
    db.execute("CREATE TABLE t (x)")
    db.commit()
    db.close()
    with pytest.raises(JournalError, match="not a tablectl journal"):
        Journal(other, TOY_CONFIG)
    garbage = tmp_path / "garbage.journal"
    garbage.write_bytes(b"this is not SQLite at all" * 100)
    with pytest.raises(JournalError, match="garbage.journal"):
        Journal(garbage, TOY_CONFIG)
    with pytest.raises(FileNotFoundError, match="missing.journal"):
        Journal(tmp_path / "missing.journal")


def test_one_writer_at_a_time_readers_alongside(path: Path) -> None:
    with Journal(path, TOY_CONFIG) as writer:
        writer.append(EVERY_KIND[0], 1)
        with pytest.raises(JournalError, match="this process is writing this journal already"):
            Journal(path, TOY_CONFIG)
        with Journal(path) as reader:
            assert [e.event for e in reader.events()] == EVERY_KIND[:1]
            with pytest.raises(JournalError, match="read-only"):
                reader.append(EVERY_KIND[1], 1)
        writer.append(EVERY_KIND[1], 1)
    Journal(path, TOY_CONFIG).close()  # the lock went with the writer


WRITER = """
import sys
from tablectl.journal import Journal
from tests.helpers.journal_child import TOY_CONFIG
journal = Journal(sys.argv[1], TOY_CONFIG)
print("ready", flush=True)
sys.stdin.read()  # hold the writer's lock until the test closes stdin
journal.close()
"""


@pytest.fixture
def other_writer(path: Path) -> Iterator[subprocess.Popen[str]]:
    """Another process writing the journal at ``path`` (until the test ends)."""
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=Path(journal_child.__file__).resolve().parents[2],
    )
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline() == "ready\n", proc.stderr.read() if proc.stderr else ""
        yield proc
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        proc.wait(timeout=30)


def test_one_writer_whatever_the_path_to_the_file(
    path: Path, tmp_path: Path, other_writer: subprocess.Popen[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The lock is the file's, not the name's: a symlink, a hard link or a relative path to a
    journal another process writes are refused, naming the path and the other writer."""
    symlink = tmp_path / "by-symlink.journal"
    symlink.symlink_to(path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    hard_link = elsewhere / "by-hard-link.journal"
    os.link(path, hard_link)
    monkeypatch.chdir(elsewhere)
    relative = Path("..") / path.name
    for name in (symlink, hard_link, relative, path):
        with pytest.raises(JournalError) as refused:
            Journal(name, TOY_CONFIG)
        message = str(refused.value)
        assert message.startswith(f"{name}: another process is writing this journal"), message
        assert f"process {other_writer.pid}" in message and "systemctl stop tablectl" in message
        assert f"opened it as {path}" in message  # the other writer's own name for the file
    for name in (symlink, hard_link, relative):  # readers (tablectl replay) are never refused
        with Journal(name) as reader:
            assert reader.last_seq() == 0
    assert other_writer.poll() is None  # the writer went on, untouched


def test_a_journal_with_two_names_is_not_written(path: Path, tmp_path: Path) -> None:
    """SQLite's log is beside the name the file is opened by: after a kill -9 a second name (a
    hard link) would open the journal without its newest events. A writer refuses such a file."""
    with Journal(path, TOY_CONFIG) as journal:
        journal.append(EVERY_KIND[0], 1)
    backup = tmp_path / "backup.journal"
    os.link(path, backup)
    for name in (path, backup):
        with pytest.raises(JournalError, match=rf"^{re.escape(str(name))}: this journal file has 2 names"):
            Journal(name, TOY_CONFIG)
    backup.unlink()
    with Journal(path, TOY_CONFIG) as journal:
        assert journal.last_seq() == 1


def test_the_lock_goes_with_the_writer_not_with_its_forked_workers(path: Path, tmp_path: Path) -> None:
    """A process forked from the writer (verified_fold's workers) drops the inherited lock: once
    the writer closes (or is killed), another writer may start while the worker still runs."""
    from tablectl.journal.store import close_inherited_locks

    writer = Journal(path, TOY_CONFIG)
    ready_r, ready_w = os.pipe()
    hold_r, hold_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the worker
        try:
            os.close(hold_w)
            close_inherited_locks()
            os.write(ready_w, b"x")
            os.read(hold_r, 1)  # alive until the test closes its end
        finally:
            os._exit(0)
    try:
        assert os.read(ready_r, 1) == b"x"
        writer.close()
        link = tmp_path / "link.journal"
        link.symlink_to(path)
        with Journal(link, TOY_CONFIG) as second:  # would be refused if the worker kept the lock
            second.append(EVERY_KIND[0], 1)
    finally:
        os.close(hold_w)
        os.waitpid(pid, 0)  # the worker was alive until here
        for fd in (ready_r, ready_w, hold_r):
            os.close(fd)


# -- the controller ------------------------------------------------------------------------------


def test_fold_equals_live_state_and_reopening_rebuilds_it(path: Path) -> None:
    events = toy_events(200)
    with open_toy(path) as controller:
        for event in events:
            controller.handle(event)
        live = controller.state
        assert controller.last_seq == 200
    with Journal(path) as journal:
        assert fold(toy_step, ToyState(), journal.events()) == live
        assert [e.event for e in journal.events()] == events
        hands = [e.hand for e in journal.events()]
    assert hands[0] == 1 and hands[12] == 2  # a NEW_HAND is journaled in the hand it starts
    with open_toy(path) as reopened:
        assert reopened.state == live
        assert reopened.replayed == 200 and reopened.last_seq == 200
        assert reopened.divergences == []


def test_outcomes_say_applied_or_refused(path: Path) -> None:
    with open_toy(path) as controller:
        controller.handle(DealerInput(DealerKey.NEW_HAND))
        before = controller.state
        effects = controller.handle(DealerInput(DealerKey.BET, seat=2))
        assert controller.state == before
        assert [e.severity for e in effects] == [Severity.REFUSED]
        outcomes = [e.outcome for e in controller.journal.events()]
    assert outcomes == ["applied", "refused: INPUT Key the amount of the bet"]


def test_a_step_that_raises_leaves_the_state_and_the_fold_agrees(path: Path) -> None:
    with open_toy(path) as controller:
        controller.handle(DealerInput(DealerKey.NEW_HAND))
        before = controller.state
        with pytest.raises(RuntimeError, match="a bug on misdeal"):
            controller.handle(DealerInput(DealerKey.MISDEAL, cause="a"))
        assert controller.state == before
        controller.handle(CardDrawn(parse_card("2c")))
        live = controller.state
        (_, bug, _) = list(controller.journal.events())
        assert bug.outcome == "error: RuntimeError: toy step: a bug on misdeal"
    with open_toy(path) as reopened:
        assert reopened.state == live


def test_an_outcome_lost_to_a_crash_is_filled_in_on_reopening(path: Path) -> None:
    with Journal(path, TOY_CONFIG) as journal:  # as if killed between append and record_outcome
        journal.append(DealerInput(DealerKey.NEW_HAND), 1)
        journal.append(DealerInput(DealerKey.BET, seat=1), 1)
    with open_toy(path) as controller:
        outcomes = [e.outcome for e in controller.journal.events()]
    assert outcomes == ["applied", "refused: INPUT Key the amount of the bet"]


def test_a_changed_outcome_is_reported_not_hidden(path: Path) -> None:
    with open_toy(path) as controller:
        controller.handle(DealerInput(DealerKey.NEW_HAND))
        controller.journal.record_outcome(1, "refused: something an older version said")
    with open_toy(path) as reopened:
        assert [(d.seq, d.now) for d in reopened.divergences] == [(1, "applied")]


def test_an_event_sent_again_with_its_key_is_not_applied_twice(path: Path) -> None:
    with open_toy(path) as controller:
        controller.handle(DealerInput(DealerKey.NEW_HAND), key="shoe:1")
        controller.handle(DealerInput(DealerKey.BET, seat=1, amount=100), key="panel:7")
        state = controller.state
        assert controller.handle(DealerInput(DealerKey.BET, seat=1, amount=100), key="panel:7") == ()
        assert controller.state == state and controller.last_seq == 2
        with pytest.raises(DuplicateEvent, match="seq 2"):
            controller.journal.append(DealerInput(DealerKey.CHECK), 1, key="panel:7")
    with open_toy(path) as reopened:  # keys survive a restart
        assert reopened.handle(DealerInput(DealerKey.NEW_HAND), key="shoe:1") == ()
        assert reopened.state == state


# -- kill -9 -------------------------------------------------------------------------------------


class Child:
    """The child controller process, its output read line by line on a thread."""

    def __init__(self, path: Path, mode: str, count: int) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, str(CHILD), str(path), mode, str(count)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.acks: dict[int, str] = {}  # seq -> digest of the live state after it
        self.ready: tuple[int, str] | None = None
        self.done = False

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def _take(self, line: str | None) -> None:
        if line is None or not line.endswith("\n"):
            raise AssertionError(f"the child ended early: {self._stderr()}")
        word, *rest = line.split()
        if word == "ready":
            self.ready = (int(rest[0]), rest[1])
        elif word == "ack":
            self.acks[int(rest[0])] = rest[1]
        elif word == "done":
            self.done = True

    def _stderr(self) -> str:
        self.proc.wait(timeout=30)
        assert self.proc.stderr is not None
        return self.proc.stderr.read()

    def wait_for(self, acks: int, timeout: float = 60.0) -> None:
        """Block until the child has printed ``ready`` and ``acks`` acknowledgements (or finished)."""
        while self.ready is None or (len(self.acks) < acks and not self.done):
            self._take(self.lines.get(timeout=timeout))

    def kill(self) -> None:
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=30)
        assert self.proc.returncode == -signal.SIGKILL or self.done
        while (line := self.lines.get(timeout=30)) is not None:  # acks printed before the kill
            if line.endswith("\n"):
                self._take(line)

    def finish(self, timeout: float = 120.0) -> None:
        while not self.done:
            self._take(self.lines.get(timeout=timeout))
        assert self.proc.wait(timeout=timeout) == 0, self._stderr()


def check_journal(path: Path, child: Child, stream: list, config: object, step, initial) -> int:  # noqa: ANN001
    """Every acknowledged seq present once, in order, as sent; live states equal the fold."""
    with Journal(path, config) as journal:  # the child is dead: its writer's lock went with it
        entries = list(journal.events())
    seqs = [e.seq for e in entries]
    assert seqs == list(range(1, len(entries) + 1)), "seqs are 1..n: none duplicated, none missing"
    assert [e.event for e in entries] == stream[: len(entries)], "the events as sent, in order"
    assert set(child.acks) <= set(seqs), "every acknowledged event is journaled"
    if child.acks:
        assert max(child.acks) <= len(entries)
    # The live state the child acknowledged at each seq is the fold of the journal up to it.
    state = initial
    for entry in entries:
        state = fold(step, state, [entry])
        if entry.seq in child.acks:
            assert state_digest(state) == child.acks[entry.seq], f"live != fold at seq {entry.seq}"
    with Controller.open(path, config, step, initial) as reopened:
        assert reopened.state == state
        assert reopened.last_seq == len(entries)
    return len(entries)


def run_kill_rounds(path: Path, mode: str, stream: list, config: object, step, initial, kills) -> None:  # noqa: ANN001
    count = len(stream)
    previous = 0
    for acks in kills:
        child = Child(path, mode, count)
        if acks is None:  # kill at once: while it starts, opens or folds the journal
            child.kill()
        else:
            child.wait_for(acks)
            assert child.ready is not None and child.ready[0] == previous, "it resumed where it stopped"
            child.kill()
        journaled = check_journal(path, child, stream, config, step, initial)
        assert journaled >= previous + (acks or 0) or child.done
        previous = journaled
    child = Child(path, mode, count)  # and a run to the end
    child.finish()
    assert check_journal(path, child, stream, config, step, initial) == count


def test_kill_9_at_any_point_loses_no_acknowledged_event_toy(path: Path) -> None:
    stream = toy_events(600)
    kills = [None, 0, 1, 2, 5, None, 13, 1, 40, 3, 0, 77, 8]
    run_kill_rounds(path, "toy", stream, TOY_CONFIG, toy_step, ToyState(), kills)


def test_kill_9_at_any_point_loses_no_acknowledged_event_real_table(path: Path) -> None:
    from tablectl.core.table import TableConfig, new_table, step
    from tests.helpers.journal_child import table_events

    stream = table_events(700)
    kills = [None, 0, 3, 1, 31, None, 9, 120, 2, 0, 57]
    run_kill_rounds(path, "table", stream, TableConfig(), step, new_table(TableConfig()), kills)


def test_a_failed_write_stops_the_controller_until_it_is_reopened(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    controller = open_toy(path)
    controller.handle(DealerInput(DealerKey.NEW_HAND))
    state = controller.state

    def disk_error(*args: object) -> int:
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(controller.journal, "append", disk_error)
    with pytest.raises(sqlite3.OperationalError):
        controller.handle(CardDrawn(parse_card("Ks")))
    assert controller.state == state  # not adopted: the event was never acknowledged
    monkeypatch.undo()
    with pytest.raises(JournalError, match="Restart the service"):
        controller.handle(CardDrawn(parse_card("Ks")))
    controller.close()
    with open_toy(path) as reopened:
        assert reopened.state == state
