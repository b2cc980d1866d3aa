"""The journal: every event the table saw, in order, on disk (DESIGN.md: the source of truth).

The state of a table is a fold of :func:`step` over its journal. :class:`Journal` is
an append-only SQLite file in WAL mode; :class:`Controller` puts the journal in
front of a pure step function so that a crash at any moment (``kill -9``, a
watchdog reset) costs nothing: reopening folds every journaled event again and
arrives at exactly the state the table had, with no acknowledged event lost or
applied twice.

The journal knows events (tablectl.core.events) and effects (tablectl.core.effects), never
the table: the step function, the initial state and the table config are given
to it. The config is stored as JSON so that a journal cannot be continued, or
replayed, under a config other than the one it was started with.

Schema (format 1)::

    meta(key, value)                 'format' -> "1", 'config' -> the TableConfig as JSON
    events(seq, hand, body, key)     seq: 1, 2, 3, ... in arrival order; body: the event as
                                     JSON (tablectl.core.events.to_json); key: an optional
                                     idempotency key from the sender (unique)
    outcomes(seq, outcome)           what applying the event did ("applied", "refused: ...");
                                     information for people, never read back by the fold

    snapshots(seq, body)             the state after event seq, at the last two hand boundaries:
                                     a restart folds only what came after (a cache, never the truth)
    checkpoints(seq, hand, body)     a snapshot kept for good every CHECKPOINT_EVERY hands: a full
                                     fold runs the stretches between them in parallel and checks
                                     every checkpoint against the fold (verified_fold)

Rows of ``events`` cannot be changed or deleted (triggers refuse it).
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import json
import logging
import multiprocessing
import os
import signal
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, NamedTuple, Protocol, TypeVar
from urllib.parse import quote

from tablectl.core.effects import Ruling, Severity
from tablectl.core.events import Event, EventError, from_json, to_json

log = logging.getLogger(__name__)

FORMAT_VERSION = 1
APPLICATION_ID = 0x54424C4A  # "TBLJ" in the SQLite header: this file is a tablectl journal
_BATCH = 512  # rows read per query while iterating (no read transaction held across a fold)
_MAX_SEQ = 2**63 - 1
_LOCK_FDS: set[int] = set()  # writers' lock files open in this process (closed in forked workers)
# A checkpoint every this many hands is kept for good (a snapshot of ~7 KB: ~110 KB a day).
# On a Pi's four cores a day of 800 hands is then 16 stretches to fold in parallel.
CHECKPOINT_EVERY = 50
_CHECKPOINTS = (
    "CREATE TABLE IF NOT EXISTS checkpoints "
    "(seq INTEGER PRIMARY KEY, hand INTEGER NOT NULL, body TEXT NOT NULL)"
)

_SCHEMA = (
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE events "
    "(seq INTEGER PRIMARY KEY, hand INTEGER NOT NULL, body TEXT NOT NULL, key TEXT UNIQUE)",
    "CREATE TABLE outcomes (seq INTEGER PRIMARY KEY REFERENCES events(seq), outcome TEXT NOT NULL)",
    "CREATE INDEX events_by_hand ON events (hand, seq)",
    "CREATE TRIGGER events_no_update BEFORE UPDATE ON events BEGIN SELECT RAISE(ABORT, "
    "'the journal is append-only: a journaled event cannot be changed'); END",
    "CREATE TRIGGER events_no_delete BEFORE DELETE ON events BEGIN SELECT RAISE(ABORT, "
    "'the journal is append-only: a journaled event cannot be deleted'); END",
)

# Durability: synchronous=FULL.
#
# In WAL mode a commit is a write() of the new pages to the -wal file; FULL adds an
# fsync() of that file before the commit returns, NORMAL leaves it to the next
# checkpoint. Against a killed process (kill -9, the OOM killer, a crash in a C
# extension) both are equally safe: the write() has reached the kernel's page cache,
# which outlives the process, and the kill test passes with either. They differ on
# power loss and kernel panics, which on a Pi are the common failures: a dealer's
# knee on the power strip, a weak supply browning out under the cameras, an SD card
# pulled. With NORMAL the last commits before the cut roll back on the next start
# (the file stays consistent, but is missing events); yet append() had returned, the
# shoe had been acknowledged ("a card read is never lost", DESIGN.md) and the dealer
# told what to do. The journal is the record a floor supervisor settles disputes
# from (TBL-5), so an acknowledged event must survive the power cut too: FULL.
#
# The price is one fsync per event (the outcome rides in the same transaction): about
# 0.2 ms p50 against 0.03 ms for NORMAL on a development machine's disk, milliseconds on
# an SD card (measure on the Pi). A table produces a handful of events a second at its
# busiest, so the budget is wide. What software cannot fix: SD cards without power-loss
# protection may acknowledge a flush they have not finished; for that, an industrial
# card or a UPS HAT, not a pragma.
SYNCHRONOUS = "FULL"


class JournalError(ValueError):
    """A journal that cannot be opened or written as asked; the message names the file and the fix."""


class OtherCodeSnapshot(ValueError):
    """Raised by a restore function for a snapshot that other code made (another version, other
    rules): not damage, just not usable here. The journal is folded instead."""


class JournalCorrupt(JournalError):
    """A journaled row that cannot be read back. The fold stops: a skipped event would be a lie."""

    def __init__(self, path: str, seq: int, reason: str) -> None:
        super().__init__(
            f"{path}: journaled event seq {seq} cannot be read ({reason}). The table's state cannot "
            f"be rebuilt past it and no event is ever skipped. Keep the file as it is for the "
            f"engineers (copy it with 'sqlite3 {path} .backup COPY', never edit it) and start "
            f"the table on a new journal."
        )
        self.path = path
        self.seq = seq
        self.reason = reason

    def __reduce__(self) -> tuple[type[JournalCorrupt], tuple[str, int, str]]:
        return type(self), (self.path, self.seq, self.reason)  # raised in a worker, read in the parent


class _HasToJson(Protocol):
    def to_json(self) -> dict[str, Any]: ...


ConfigLike = Mapping[str, Any] | _HasToJson


def _config_json(config: ConfigLike) -> dict[str, Any]:
    data = dict(config) if isinstance(config, Mapping) else config.to_json()
    # Normalise through JSON so tuples and lists, int keys and str keys compare equal.
    return json.loads(json.dumps(data, sort_keys=True))  # type: ignore[no-any-return]


def _dumps(data: Any) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


class Entry(NamedTuple):
    """One journaled event. ``hand`` is the table's hand number once the event was applied."""

    seq: int
    hand: int
    event: Event
    outcome: str | None


class Journal:
    """An append-only journal of events in a SQLite file.

    ``Journal(path, config)`` opens the journal for writing, creating it with
    ``config`` when the file is new, and refuses a journal started with another
    config or written in another format. Only one process may write a journal at a
    time (an exclusive lock on ``PATH.lock``). ``Journal(path)`` opens an existing
    journal read-only, whatever its config (for replay), alongside a running writer.
    """

    def __init__(self, path: str | os.PathLike[str], config: ConfigLike | None = None) -> None:
        self.path = str(path)
        self.writable = config is not None
        self._lock_fd: int | None = None
        self._db: sqlite3.Connection | None = None
        self._closed = False
        if not self.writable and not Path(self.path).is_file():
            raise FileNotFoundError(f"{self.path}: no such journal")
        try:
            if self.writable:
                self._lock()
            self._db = self._connect()
            if self.writable:
                assert config is not None
                self._create_or_check(_config_json(config))
            else:
                self._check(None)
        except sqlite3.DatabaseError as exc:
            self.close()
            raise JournalError(
                f"{self.path}: not a readable journal ({exc}). If this is the right file it is damaged: "
                f"keep it for the engineers and start the table on a new journal."
            ) from None
        except BaseException:
            self.close()
            raise

    # -- opening -------------------------------------------------------------------------------
    def _lock(self) -> None:
        lock_path = self.path + ".lock"
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise JournalError(
                f"{self.path}: another process is writing this journal (it holds {lock_path}). "
                f"A table has one controller: stop the other one (systemctl stop tablectl) "
                f"or give this one another journal file."
            ) from None
        self._lock_fd = fd
        _LOCK_FDS.add(fd)

    def _connect(self) -> sqlite3.Connection:
        if self.writable:
            db = sqlite3.connect(self.path, isolation_level=None)  # autocommit: we say BEGIN
        else:
            uri = "file:" + quote(Path(self.path).resolve().as_posix()) + "?mode=ro"
            db = sqlite3.connect(uri, uri=True, isolation_level=None)
        db.execute("PRAGMA busy_timeout = 5000")  # a reader's checkpoint never fails an append
        if self.writable:
            mode = db.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                db.close()
                raise JournalError(
                    f"{self.path}: SQLite could not switch the file to WAL mode (got {mode!r}); "
                    f"put the journal on a local filesystem (not NFS or a FAT USB stick)"
                )
            db.execute(f"PRAGMA synchronous = {SYNCHRONOUS}")
        return db

    def _create_or_check(self, config: dict[str, Any]) -> None:
        db = self._conn()
        db.execute("BEGIN IMMEDIATE")
        try:
            tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            if not tables:
                for statement in _SCHEMA:
                    db.execute(statement)
                db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
                db.executemany(
                    "INSERT INTO meta (key, value) VALUES (?, ?)",
                    [("format", str(FORMAT_VERSION)), ("config", _dumps(config))],
                )
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise
        self._check(config)

    def _check(self, config: dict[str, Any] | None) -> None:
        db = self._conn()
        app_id = db.execute("PRAGMA application_id").fetchone()[0]
        if app_id != APPLICATION_ID:
            raise JournalError(
                f"{self.path}: this SQLite file is not a tablectl journal; give the table a new "
                f"journal file name"
            )
        meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
        version = meta.get("format")
        if version != str(FORMAT_VERSION):
            raise JournalError(
                f"{self.path}: journal format {version}, but this tablectl reads format "
                f"{FORMAT_VERSION}. Replay it with the tablectl version that wrote it, and start "
                f"the table on a new journal file."
            )
        if "config" not in meta:
            raise JournalError(f"{self.path}: the journal has lost its table config; it is damaged")
        stored = json.loads(meta["config"])
        if config is not None and stored != config:
            keys = sorted(k for k in set(stored) | set(config) if stored.get(k) != config.get(k))
            raise JournalError(
                f"{self.path}: this journal was started with another table config (different: "
                f"{', '.join(keys)}). A journal belongs to one config: to start a new session, "
                f"move the journal aside (mv {self.path} {self.path}.old) or give the table a new "
                f"journal file; to continue this one, start with the config it holds "
                f"(sqlite3 {self.path} \"SELECT value FROM meta WHERE key = 'config'\")."
            )
        self.config: dict[str, Any] = stored

    def _conn(self) -> sqlite3.Connection:
        if self._db is None:
            if self._closed:
                raise JournalError(f"{self.path}: the journal is closed")
            self._db = self._connect()
        return self._db

    # -- writing -------------------------------------------------------------------------------
    def append(
        self, event: Event, hand_number: int, key: str | None = None, outcome: str | None = None
    ) -> int:
        """Journal ``event``; returns its seq once it is committed (durable, see SYNCHRONOUS).

        ``key``: an idempotency key from the sender (e.g. the shoe's frame number); an event
        whose key is already journaled is refused with :class:`DuplicateEvent`. ``outcome``,
        when already known, is recorded in the same transaction (one fsync, not two).
        """
        if not self.writable:
            raise JournalError(f"{self.path}: opened read-only (no config given); cannot append")
        body = _dumps(to_json(event))
        db = self._conn()
        db.execute("BEGIN IMMEDIATE")
        try:
            cur = db.execute(
                "INSERT INTO events (hand, body, key) VALUES (?, ?, ?)", (int(hand_number), body, key)
            )
            seq = cur.lastrowid
            assert seq is not None
            if outcome is not None:
                db.execute("INSERT INTO outcomes (seq, outcome) VALUES (?, ?)", (seq, outcome))
            db.execute("COMMIT")  # the durability point: the event is on disk when this returns
        except BaseException as exc:
            if db.in_transaction:
                db.execute("ROLLBACK")
            if isinstance(exc, sqlite3.IntegrityError) and key is not None:
                earlier = self.seq_of_key(key)
                if earlier is not None:
                    raise DuplicateEvent(self.path, key, earlier) from None
            raise
        return seq

    def record_outcome(self, seq: int, outcome: str) -> None:
        """What applying event ``seq`` did, for people reading the journal; never read by the fold."""
        if not self.writable:
            raise JournalError(f"{self.path}: opened read-only (no config given); cannot write")
        self._conn().execute(
            "INSERT INTO outcomes (seq, outcome) VALUES (?, ?) "
            "ON CONFLICT (seq) DO UPDATE SET outcome = excluded.outcome",
            (seq, outcome),
        )

    # -- reading -------------------------------------------------------------------------------
    def events(self, from_seq: int = 0, to_seq: int | None = None) -> Iterator[Entry]:
        """Every journaled event with ``from_seq <= seq <= to_seq``, in order, as (seq, hand,
        event, outcome).

        A row that cannot be read raises :class:`JournalCorrupt` naming its seq.
        """
        db = self._conn()
        next_seq = from_seq
        last = _MAX_SEQ if to_seq is None else to_seq
        while True:
            try:
                rows = db.execute(
                    "SELECT e.seq, e.hand, e.body, o.outcome FROM events e LEFT JOIN outcomes o "
                    "ON o.seq = e.seq WHERE e.seq >= ? AND e.seq <= ? ORDER BY e.seq LIMIT ?",
                    (next_seq, last, _BATCH),
                ).fetchall()
            except sqlite3.DatabaseError as exc:
                raise JournalError(
                    f"{self.path}: reading events from seq {next_seq} failed ({exc}); the file is "
                    f"damaged: keep it for the engineers ('sqlite3 {self.path} .recover' salvages rows) "
                    f"and start the table on a new journal"
                ) from None
            for seq, hand, body, outcome in rows:
                yield Entry(seq, self._hand(seq, hand), self._event(seq, body), outcome)
            if len(rows) < _BATCH:
                return
            next_seq = rows[-1][0] + 1

    def _hand(self, seq: int, hand: Any) -> int:
        if isinstance(hand, bool) or not isinstance(hand, int):
            raise JournalCorrupt(self.path, seq, f"hand number {hand!r} is not a whole number")
        return hand

    def _event(self, seq: int, body: Any) -> Event:
        try:
            return from_json(json.loads(body), journaled=True)
        except json.JSONDecodeError as exc:
            raise JournalCorrupt(self.path, seq, f"not JSON: {exc}") from None
        except (EventError, TypeError) as exc:
            raise JournalCorrupt(self.path, seq, str(exc)) from None

    def save_snapshot(self, seq: int, body: str, checkpoint_hand: int | None = None) -> None:
        """Keep the state as it stands after event ``seq`` (a cache of the fold: never the truth).

        With ``checkpoint_hand`` (the table's hand number then), the snapshot is also kept for
        good as a checkpoint: :func:`verified_fold` folds the stretches between checkpoints in
        parallel and checks each checkpoint against the fold that leads to it.
        """
        db = self._conn()
        db.execute("BEGIN IMMEDIATE")
        try:
            db.execute("CREATE TABLE IF NOT EXISTS snapshots (seq INTEGER PRIMARY KEY, body TEXT NOT NULL)")
            db.execute("INSERT OR REPLACE INTO snapshots (seq, body) VALUES (?, ?)", (seq, body))
            # Only the newest snapshots serve a restart: keep two, so the card's disk does not fill.
            db.execute(
                "DELETE FROM snapshots WHERE seq NOT IN (SELECT seq FROM snapshots ORDER BY seq DESC LIMIT 2)"
            )
            if checkpoint_hand is not None:
                db.execute(_CHECKPOINTS)
                db.execute(
                    "INSERT OR REPLACE INTO checkpoints (seq, hand, body) VALUES (?, ?, ?)",
                    (seq, checkpoint_hand, body),
                )
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise

    def _has_table(self, name: str) -> bool:
        row = (
            self._conn()
            .execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,))
            .fetchone()
        )
        return row is not None

    def checkpoints(self) -> list[tuple[int, int]]:
        """The checkpoints kept, oldest first, as (seq, hand)."""
        if not self._has_table("checkpoints"):
            return []
        rows = self._conn().execute("SELECT seq, hand FROM checkpoints ORDER BY seq").fetchall()
        return [(int(seq), int(hand)) for seq, hand in rows]

    def checkpoint(self, seq: int) -> str:
        """The state kept at checkpoint ``seq`` (a snapshot's text)."""
        row = self._conn().execute("SELECT body FROM checkpoints WHERE seq = ?", (seq,)).fetchone()
        if row is None:
            raise JournalError(f"{self.path}: no checkpoint at seq {seq}")
        return str(row[0])

    def restart_points(self, last_seq: int) -> Iterator[tuple[int, str]]:
        """Where a restart may start, best first: the snapshots (the newest two), then the
        checkpoints, newest first; none after ``last_seq``. As (seq, snapshot text)."""
        for table in ("snapshots", "checkpoints"):
            if not self._has_table(table):
                continue
            # A cursor reads the rows as they are asked for: a restart mostly wants the first.
            rows = self._conn().execute(
                f"SELECT seq, body FROM {table} WHERE seq <= ? ORDER BY seq DESC", (last_seq,)
            )
            for seq, body in rows:
                yield int(seq), str(body)

    def last_hand(self) -> int:
        """The table's hand number after the last journaled event, 0 when there is none."""
        row = self._conn().execute("SELECT hand FROM events ORDER BY seq DESC LIMIT 1").fetchone()
        return 0 if row is None else int(row[0])

    def last_seq(self) -> int:
        """The seq of the last journaled event, 0 when there is none."""
        row = self._conn().execute("SELECT max(seq) FROM events").fetchone()
        return int(row[0] or 0)

    def seq_of_key(self, key: str) -> int | None:
        row = self._conn().execute("SELECT seq FROM events WHERE key = ?", (key,)).fetchone()
        return None if row is None else int(row[0])

    # -- closing -------------------------------------------------------------------------------
    def close(self) -> None:
        self._closed = True
        if self._db is not None:
            self._db.close()
            self._db = None
        if self._lock_fd is not None:
            _LOCK_FDS.discard(self._lock_fd)
            os.close(self._lock_fd)  # releases the writer's lock
            self._lock_fd = None

    def disconnect(self) -> None:
        """Close the SQLite connection and keep the writer's lock (SQLite must not be open
        across a fork: see verified_fold); the next use reconnects."""
        if self._db is not None:
            self._db.close()
            self._db = None

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class DuplicateEvent(JournalError):
    """The sender's idempotency key is already journaled: the event was received before."""

    def __init__(self, path: str, key: str, seq: int) -> None:
        super().__init__(f"{path}: an event with key {key!r} is already journaled as seq {seq}")
        self.path = path
        self.key = key
        self.seq = seq

    def __reduce__(self) -> tuple[type[DuplicateEvent], tuple[str, str, int]]:
        return type(self), (self.path, self.key, self.seq)


# -- the fold ----------------------------------------------------------------------------------
S = TypeVar("S")
Effects = Sequence[Any]
Step = Callable[[S, Event], tuple[S, Effects]]


def default_hand_of(state: Any) -> int:
    return int(getattr(state, "hand_number", 0))


def describe_outcome(effects: Iterable[Any]) -> str:
    """The outcome recorded for an event: "applied", "applied; MD-a: ...", or "refused: BET-14 ..."."""
    rulings = [e for e in effects if isinstance(e, Ruling)]
    for ruling in rulings:
        if ruling.severity is Severity.REFUSED:
            return f"refused: {ruling.rule} {ruling.text}"
    if not rulings:
        return "applied"
    return "applied; " + "; ".join(f"{r.rule} {r.severity.value}: {r.text}" for r in rulings)


def error_outcome(exc: BaseException) -> str:
    return f"error: {type(exc).__name__}: {exc}"


def apply_event(step: Step[S], state: S, event: Event) -> tuple[S, Effects, str]:
    """One step of the fold as the controller runs it, live and on replay alike.

    A step that raises is a bug in the step function, not in the event: the state stays
    as it was, and the outcome says so. Doing the same live and in the fold keeps the
    rebuilt state equal to the live one even then.
    """
    try:
        new_state, effects = step(state, event)
    except Exception as exc:  # noqa: BLE001 - see above: same handling live and on replay
        return state, (), error_outcome(exc)
    return new_state, effects, describe_outcome(effects)


def fold(step: Step[S], initial_state: S, entries: Iterable[Entry | tuple[int, int, Event, Any]]) -> S:
    """The state after applying every journaled event in order (what :class:`Controller` rebuilds)."""
    state = initial_state
    for _seq, _hand, event, _outcome in entries:
        state = apply_event(step, state, event)[0]
    return state


@dataclass
class Divergence:
    """An event whose recorded outcome differs from what the fold made of it now."""

    seq: int
    recorded: str
    now: str


@dataclass
class Tally:
    """What folding a stretch of the journal found besides the state."""

    events: int = 0
    last_seq: int = 0
    divergences: list[Divergence] = field(default_factory=list)
    missing: list[tuple[int, str]] = field(default_factory=list)  # events with no outcome yet

    def add(self, other: Tally) -> None:
        self.events += other.events
        self.last_seq = max(self.last_seq, other.last_seq)
        self.divergences.extend(other.divergences)
        self.missing.extend(other.missing)


def fold_range(
    journal: Journal, step: Step[S], state: S, first_seq: int = 0, last_seq: int | None = None
) -> tuple[S, Tally]:
    """Fold the journaled events ``first_seq..last_seq`` onto ``state``, comparing each outcome
    with the one recorded when the event was first applied."""
    tally = Tally()
    for entry in journal.events(first_seq, last_seq):
        state, _effects, outcome = apply_event(step, state, entry.event)
        if entry.outcome is None:
            tally.missing.append((entry.seq, outcome))  # killed between append and record_outcome
        elif entry.outcome != outcome:
            tally.divergences.append(Divergence(entry.seq, entry.outcome, outcome))
        tally.last_seq = entry.seq
        tally.events += 1
    return state, tally


@dataclass
class VerifiedFold(Generic[S]):
    """The state after every journaled event, and how it was checked."""

    state: S
    tally: Tally
    checkpoints: int  # checkpoints found equal to the fold that leads to them
    stretches: int  # stretches folded (1: a plain fold from the start)
    workers: int  # worker processes that folded them (the caller folds the last stretch too)
    mismatch: str | None = None  # a checkpoint the fold disagreed with (then: a plain fold)
    skipped: int = 0  # checkpoints other code made: not used as boundaries


@dataclass(frozen=True)
class _StretchJob(Generic[S]):
    path: str
    step: Step[S]
    initial_state: S
    restore: Callable[[str], S]
    snapshot_of: Callable[[S], str | None]
    bounds: tuple[tuple[int, int, int], ...]  # (first seq, last seq, checkpoint seq it starts from)


_JOB: _StretchJob[Any] | None = None  # given to forked workers by inheritance, never pickled


def _fold_stretch(job: _StretchJob[S], journal: Journal, index: int) -> tuple[int, str | None, Tally]:
    first, last, start_checkpoint = job.bounds[index]
    state = job.initial_state if start_checkpoint == 0 else job.restore(journal.checkpoint(start_checkpoint))
    state, tally = fold_range(journal, job.step, state, first, last)
    return index, job.snapshot_of(state), tally


_WORKER_JOURNAL: Journal | None = None
_WORKER_JOB: _StretchJob[Any] | None = None


def _worker_fold(index: int) -> tuple[int, str | None, Tally]:
    global _WORKER_JOURNAL
    job = _WORKER_JOB
    assert job is not None, "a stretch folded outside a worker started by _start_pool"
    if _WORKER_JOURNAL is None:
        _WORKER_JOURNAL = Journal(job.path)  # read-only, beside the writer (WAL)
    return _fold_stretch(job, _WORKER_JOURNAL, index)


def _can_fork() -> bool:
    # Forking a process that runs other threads (paho's, the service's) copies their locks in
    # whatever state they are: only a single-threaded process forks its workers.
    return "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1


def verified_fold(
    path: str | os.PathLike[str],
    step: Step[S],
    initial_state: S,
    restore: Callable[[str], S],
    snapshot_of: Callable[[S], str | None],
    workers: int | None = None,
) -> VerifiedFold[S]:
    """Every journaled event folded from the start, the stretches between checkpoints in
    parallel, each checkpoint checked against the fold of the stretch that ends there.

    The first stretch starts from ``initial_state``, each later one from the checkpoint that
    the stretch before it must reproduce, so the chain is the full fold: if every checkpoint
    equals the fold leading to it, the state is the one a single pass would give. A checkpoint
    the fold disagrees with, or one this version cannot read, is reported and the journal is
    folded in one pass instead; so is a worker process that died. An unreadable event stops
    the fold (JournalCorrupt), in a worker as in one pass. ``workers``: processes (default:
    one per core). No SQLite connection may be open in this process when it is called with
    more than one worker (SQLite must not cross a fork: Controller disconnects first).
    """
    with Journal(path) as journal:
        end = journal.last_seq()
        points, skipped = _usable_checkpoints(journal, restore, end)
    starts = [0, *points]
    bounds = tuple(
        (start + 1 if start else 0, stop, start) for start, stop in zip(starts, points, strict=False)
    )
    job = _StretchJob(str(path), step, initial_state, restore, snapshot_of, bounds)
    last_start = points[-1] if points else 0
    cores = workers or os.cpu_count() or 1
    count = min(cores, len(bounds)) if cores > 1 and _can_fork() else 0
    pool = None
    if count:
        try:
            pool = _start_pool(job, count)  # forked before this process opens the file
        except (BrokenProcessPool, OSError) as exc:  # fork refused (memory), a worker died at once
            log.warning("%s: no worker processes (%s); folding in this process", path, exc)
            count = 0
    try:
        with Journal(path) as journal:
            try:
                final_state = restore(journal.checkpoint(last_start)) if last_start else initial_state
                if pool is not None:
                    futures = [pool.submit(_worker_fold, index) for index in range(len(bounds))]
                    # This process folds the stretch after the last checkpoint meanwhile.
                    try:
                        final_state, final_tally = fold_range(journal, step, final_state, last_start + 1)
                    except JournalError as last_error:
                        _raise_first_unreadable(futures, last_error)
                        raise
                    results = [future.result() for future in futures]
                else:
                    results = [_fold_stretch(job, journal, index) for index in range(len(bounds))]
                    first = last_start + 1 if last_start else 0
                    final_state, final_tally = fold_range(journal, step, final_state, first)
            except JournalError:
                raise  # an unreadable event: never skipped, never folded around
            except BrokenProcessPool as exc:
                return _plain_fold(journal, step, initial_state, f"a worker process died ({exc})")
            except ValueError as exc:  # a damaged checkpoint
                return _plain_fold(journal, step, initial_state, f"checkpoint unreadable: {exc}")
            tally = Tally()
            for index, end_text, stretch_tally in results:
                first, last, _start = bounds[index]
                if not _same_state(restore, end_text, journal.checkpoint(last)):
                    mismatch = f"the checkpoint at seq {last} differs from the fold of events {first}-{last}"
                    return _plain_fold(journal, step, initial_state, mismatch)
                tally.add(stretch_tally)
            tally.add(final_tally)
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
    tally.divergences.sort(key=lambda d: d.seq)
    tally.missing.sort()
    stretches = len(bounds) + (1 if final_tally.events or not bounds else 0)
    return VerifiedFold(final_state, tally, len(bounds), stretches, max(count, 1), skipped=skipped)


def _usable_checkpoints(journal: Journal, restore: Callable[[str], Any], end: int) -> tuple[list[int], int]:
    """The checkpoints this code can start a stretch from, and how many other code made (before an
    upgrade): those are no boundary, the stretch around them is folded whole. A damaged one is
    kept, so that the fold reports it."""
    usable: list[int] = []
    skipped = 0
    for seq, _hand in journal.checkpoints():
        if seq > end:
            continue
        try:
            restore(journal.checkpoint(seq))
        except OtherCodeSnapshot:
            skipped += 1
            continue
        except JournalError:
            raise
        except ValueError:
            pass  # damaged: folding up to it shows the mismatch
        usable.append(seq)
    return usable, skipped


def _raise_first_unreadable(futures: list[Future[Any]], error: JournalError) -> None:
    """An unreadable event is reported at the first seq that cannot be read: a worker's earlier
    stretch may hold one before the one this process met."""
    first: JournalError = error
    for future in futures:
        try:
            future.result()
        except JournalCorrupt as exc:
            if not isinstance(first, JournalCorrupt) or exc.seq < first.seq:
                first = exc
        except Exception:  # noqa: BLE001 - any other failure of a stretch is not the first error
            continue
    if first is not error:
        raise first from None


def _same_state(restore: Callable[[str], Any], folded: str | None, kept: str) -> bool:
    if folded == kept:
        return True
    try:  # the same state may be written with its parts in another order
        return folded is not None and restore(folded) == restore(kept)
    except ValueError:
        return False


def _start_pool(job: _StretchJob[S], count: int) -> ProcessPoolExecutor:
    """Worker processes forked now, each holding ``job`` (inherited, never pickled)."""
    global _JOB, _PARENT
    _JOB, _PARENT = job, os.getpid()
    pool: ProcessPoolExecutor | None = None
    try:
        pool = ProcessPoolExecutor(count, multiprocessing.get_context("fork"), initializer=_worker_start)
        # With fork, every worker is started at the first submit: start them while _JOB is set.
        pool.submit(int).result()
    except BaseException:
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)
        raise
    finally:
        _JOB = None  # the workers have their copy; this process does not keep the job alive
    return pool


_PARENT = 0  # the process that started the workers


def _worker_start() -> None:
    global _WORKER_JOB
    _WORKER_JOB = _JOB
    _die_with_parent()
    # The writer's lock file is inherited: a worker must not keep a killed writer's lock alive.
    for fd in list(_LOCK_FDS):
        with contextlib.suppress(OSError):
            os.close(fd)
    _LOCK_FDS.clear()


def _die_with_parent() -> None:
    """A worker whose parent is killed (kill -9) stops too, rather than fold on for nobody."""
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG (Linux)
    if os.getppid() != _PARENT:  # the parent died before the request took effect
        os._exit(1)


def _plain_fold(journal: Journal, step: Step[S], initial_state: S, why: str) -> VerifiedFold[S]:
    log.warning("%s: %s; folding the journal in one pass", journal.path, why)
    state, tally = fold_range(journal, step, initial_state)
    return VerifiedFold(state, tally, 0, 1, 1, mismatch=why)


@dataclass
class Controller(Generic[S]):
    """The journal in front of a pure step function: what the service feeds events to.

    ``handle(event)`` steps, journals, and only then adopts the new state and returns the
    effects: nothing is shown to the dealer or published before the event is durable.
    """

    journal: Journal
    step: Step[S]
    state: S
    hand_of: Callable[[S], int] = default_hand_of
    last_seq: int = 0
    replayed: int = 0  # events folded when opening
    divergences: list[Divergence] = field(default_factory=list)
    failed: BaseException | None = None  # an append that failed: the controller has stopped
    # Snapshots: ``snapshot_of(state)`` gives the text to keep after a state (None: not now),
    # ``restore(text)`` reads it back. A restart then folds only the events after the last one.
    snapshot_of: Callable[[S], str | None] | None = None
    restore: Callable[[str], S] | None = None
    snapshot_seq: int = 0  # the journal seq the state was restored from (0: a full fold)
    checkpoint_hand: int = 0  # the hand of the last checkpoint kept (CHECKPOINT_EVERY)
    verified: VerifiedFold[S] | None = None  # how a full fold was checked (full_fold=True)

    @classmethod
    def open(
        cls,
        path: str | os.PathLike[str],
        config: ConfigLike,
        step: Step[S],
        initial_state: S,
        *,
        hand_of: Callable[[S], int] = default_hand_of,
        snapshot_of: Callable[[S], str | None] | None = None,
        restore: Callable[[str], S] | None = None,
        full_fold: bool = False,
    ) -> Controller[S]:
        """Open (or create) the journal at ``path`` and rebuild the state by folding it: from the
        last snapshot when there is one (and ``full_fold`` is not asked), else from the start."""
        journal = Journal(path, config)
        try:
            controller = cls(journal, step, initial_state, hand_of, snapshot_of=snapshot_of, restore=restore)
            controller._rebuild(use_snapshot=not full_fold)
        except BaseException:
            journal.close()
            raise
        return controller

    def _rebuild(self, use_snapshot: bool = True) -> None:
        end = self.journal.last_seq()
        points = [hand for seq, hand in self.journal.checkpoints() if seq <= end]
        self.checkpoint_hand = points[-1] if points else 0
        if not use_snapshot and self.restore is not None and self.snapshot_of is not None:
            self.journal.disconnect()  # no SQLite connection may cross the workers' fork
            self.verified = verified_fold(
                self.journal.path, self.step, self.state, self.restore, self.snapshot_of
            )
            self._adopt(self.verified.state, self.verified.tally)
            return
        state = self.state
        start = 0
        if use_snapshot and self.restore is not None:
            for seq, body in self.journal.restart_points(end):
                try:
                    state = self.restore(body)
                except ValueError as exc:  # an unreadable snapshot is only a lost shortcut
                    log.warning("%s: snapshot at seq %d unreadable (%s)", self.journal.path, seq, exc)
                    continue
                start = seq + 1
                self.snapshot_seq = self.last_seq = seq
                break
        state, tally = fold_range(self.journal, self.step, state, start)
        self._adopt(state, tally)

    def _adopt(self, state: S, tally: Tally) -> None:
        self.state = state
        self.replayed += tally.events
        self.last_seq = max(self.last_seq, tally.last_seq)
        self.divergences.extend(tally.divergences)
        for seq, outcome in tally.missing:
            self.journal.record_outcome(seq, outcome)
        if self.divergences:
            first = self.divergences[0]
            log.warning(
                "%s: %d events had another outcome when first applied than now (first: seq %d, "
                "then %r, now %r); the state is the fold of the journal as this version applies it",
                self.journal.path,
                len(self.divergences),
                first.seq,
                first.recorded,
                first.now,
            )

    def handle(self, event: Event, key: str | None = None) -> tuple[Any, ...]:
        """Apply one event; returns its effects once the event is journaled.

        With ``key`` (the sender's id for the event), an event received again after a lost
        acknowledgement is recognised, not applied twice: it returns no effects.
        """
        if self.failed is not None:
            raise JournalError(
                f"{self.journal.path}: a write to the journal failed ({self.failed}), so whether that "
                f"event is in it is unknown; this controller has stopped. Restart the service: the "
                f"state is rebuilt from what the journal holds."
            )
        if key is not None and self.journal.seq_of_key(key) is not None:
            return ()
        # The step is pure: computing it before the append changes nothing outside, and lets
        # the row carry the hand the event belongs to (a NEW_HAND is journaled in the hand it
        # starts) and its outcome, in one transaction. The new state is adopted and the effects
        # released only once the append has committed.
        try:
            new_state, effects = self.step(self.state, event)
        except Exception as exc:
            self._append(event, self.hand_of(self.state), key, error_outcome(exc))
            raise
        self._append(event, self.hand_of(new_state), key, describe_outcome(effects))
        self.state = new_state
        if self.snapshot_of is not None:
            try:
                body = self.snapshot_of(new_state)
                if body is not None:
                    hand = self.hand_of(new_state)
                    checkpoint = hand >= self.checkpoint_hand + CHECKPOINT_EVERY
                    self.journal.save_snapshot(self.last_seq, body, hand if checkpoint else None)
                    if checkpoint:
                        self.checkpoint_hand = hand
            except Exception:  # a snapshot is only a shortcut for restarts: never lose effects for it
                log.warning(
                    "%s: snapshot after seq %d failed", self.journal.path, self.last_seq, exc_info=True
                )
        return tuple(effects)

    def _append(self, event: Event, hand: int, key: str | None, outcome: str) -> None:
        try:
            self.last_seq = self.journal.append(event, hand, key, outcome)
        except DuplicateEvent:
            raise
        except BaseException as exc:
            # A failed commit (I/O error, disk full, interrupted) may or may not have reached the
            # file; only a fold of what the file holds knows. Stop rather than guess.
            self.failed = exc
            raise

    def close(self) -> None:
        self.journal.close()

    def __enter__(self) -> Controller[S]:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
