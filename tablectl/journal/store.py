"""The journal's store: every event the table saw, in order, in an append-only SQLite file.

:class:`Journal` is the file: WAL mode, one writer at a time (a lock on the file itself), readers
alongside, and an fsync before an append returns (see SYNCHRONOUS). It stores and reads back
events, their outcomes, snapshots and checkpoints; what they mean is the fold's business
(tablectl.journal.fold), never read here. The table config is stored as JSON so that a journal
cannot be continued, or replayed, under a config other than the one it was started with.

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
import fcntl
import json
import os
import pwd
import sqlite3
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, NamedTuple, Protocol
from urllib.parse import quote

from tablectl.core.events import Event, EventError, from_json, to_json

FORMAT_VERSION = 1
APPLICATION_ID = 0x54424C4A  # "TBLJ" in the SQLite header: this file is a tablectl journal
_BATCH = 512  # rows read per query while iterating (no read transaction held across a fold)
_MAX_SEQ = 2**63 - 1
_LOCK_FDS: set[int] = set()  # descriptors holding a writer's lock in this process (closed in forked workers)
_LOCKED: dict[tuple[int, int], str] = {}  # (device, inode) of the journals this process writes -> path
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


def _with_defaults(stored: dict[str, Any], given: ConfigLike | None) -> dict[str, Any]:
    """A config written by an older version lacks the keys added since: read back through the
    given config's own ``from_json`` (a missing key takes its default), as JSON; else as stored."""
    from_json = getattr(type(given), "from_json", None)
    if from_json is None:
        return stored
    try:
        return _config_json(from_json(stored))
    except (ValueError, TypeError, KeyError, AttributeError):
        return stored


def _same_with_defaults(stored: dict[str, Any], given: ConfigLike | None) -> bool:
    """The same config, the keys added since it was stored at their defaults: a key added later
    never changes the old behaviour at its default."""
    return given is not None and _with_defaults(stored, given) == _config_json(given)


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
    time (an exclusive flock on the journal file itself, whatever path, symlink or hard
    link it was opened by), and only by a file with one name (see _one_name). ``Journal(path)``
    opens an existing journal read-only, whatever its config (for replay), alongside a running
    writer.
    """

    def __init__(self, path: str | os.PathLike[str], config: ConfigLike | None = None) -> None:
        self.path = str(path)
        self.writable = config is not None
        self._lock_fd: int | None = None
        self._lock_key: tuple[int, int] | None = None
        self._db: sqlite3.Connection | None = None
        self._closed = False
        self._sqlite_path = self.path  # the name SQLite opens (its -wal and -shm files are beside it)
        if not self.writable and not Path(self.path).is_file():
            raise FileNotFoundError(f"{self.path}: no such journal")
        try:
            if self.writable:
                check_writable_place(self.path)
                self._lock()
                self._one_name()
            else:
                self._sqlite_path = self._reader_path()
            self._db = self._connect()
            if self.writable:
                assert config is not None
                self._create_or_check(_config_json(config), config)
                self._probe_write()
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
        # The lock is taken on the journal file itself (flock on its inode), not on a name made
        # from the path as typed: through a symlink, a hard link or another relative path the
        # same file is the same lock. flock is apart from SQLite's own locks (POSIX fcntl
        # locks), and the descriptor stays open until close(): closing a descriptor of the file
        # would drop the POSIX locks SQLite holds on it in this process.
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            st = None
        if st is not None and (st.st_dev, st.st_ino) in _LOCKED:
            other = _LOCKED[(st.st_dev, st.st_ino)]
            raise JournalError(
                f"{self.path}: this process is writing this journal already (it opened it as {other}); "
                f"a table has one controller: close that one first or give this one another journal file"
            )
        fd = os.open(self.path, os.O_RDONLY | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            writer = _writer_of(os.fstat(fd))
            os.close(fd)
            holder = "the lock on the file is taken" if writer is None else writer.describe()
            raise JournalError(
                f"{self.path}: another process is writing this journal ({holder}). A table has one "
                f"controller: stop the other one (systemctl stop tablectl) or give this one another "
                f"journal file."
            ) from None
        st = os.fstat(fd)
        self._lock_fd = fd
        self._lock_key = (st.st_dev, st.st_ino)
        _LOCK_FDS.add(fd)
        _LOCKED[self._lock_key] = self.path

    def _one_name(self) -> None:
        # SQLite keeps the write-ahead log beside the name the file is opened by (it follows
        # symlinks, it cannot follow hard links): opened by a second name after a kill -9, the
        # journal would lack its newest events, and the old log could later be replayed onto it.
        assert self._lock_fd is not None
        links = os.fstat(self._lock_fd).st_nlink
        if links > 1:
            raise JournalError(
                f"{self.path}: this journal file has {links} names (hard links). SQLite keeps its "
                f"newest events in a log beside the name it is opened by, so another name could "
                f"open it without them. Keep one name: find the others with 'find / -xdev -samefile "
                f"{self.path}' and remove them (for a backup: sqlite3 {self.path} '.backup COPY'; "
                f"for a second name: ln -s)."
            )

    def _reader_path(self) -> str:
        # A reader must open the file by the writer's name, whose log holds the newest events
        # (see _one_name); by a hard link, it is found from the running writer.
        st = os.stat(self.path)
        if st.st_nlink == 1:
            return self.path
        writer = _writer_of(st)
        if writer is not None and writer.path is not None:
            return writer.path
        raise JournalError(
            f"{self.path}: this journal file has {st.st_nlink} names (hard links) and its writer's "
            f"name cannot be found here; its newest events are in a log beside that name. Open it "
            f"by the name the table writes it by (tablectl serve --journal), as the same user."
        )

    def _connect(self) -> sqlite3.Connection:
        if self.writable:
            db = sqlite3.connect(self.path, isolation_level=None)  # autocommit: we say BEGIN
        else:
            uri = "file:" + quote(Path(self._sqlite_path).resolve().as_posix()) + "?mode=ro"
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

    def _create_or_check(self, config: dict[str, Any], given: ConfigLike | None = None) -> None:
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
        self._check(config, given)

    def _check(self, config: dict[str, Any] | None, given: ConfigLike | None = None) -> None:
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
        if config is not None and stored != config and not _same_with_defaults(stored, given):
            then = _with_defaults(stored, given)
            keys = sorted(k for k in set(then) | set(config) if then.get(k) != config.get(k))
            raise JournalError(
                f"{self.path}: this journal was started with another table config (different: "
                f"{', '.join(keys)}). A journal belongs to one config: to start a new session, "
                f"move the journal aside (mv {self.path} {self.path}.old) or give the table a new "
                f"journal file; to continue this one, start with the config it holds "
                f"(sqlite3 {self.path} \"SELECT value FROM meta WHERE key = 'config'\")."
            )
        self.config: dict[str, Any] = stored

    def _probe_write(self) -> None:
        """Write a row in a transaction that is rolled back: a file SQLite opened read-only (its
        mode, a read-only mount) passes every read and fails only at the first append, after
        the table has said it is serving. The free space is checked too: a rolled-back write
        puts nothing on the disk, so a full one would pass it."""
        db = self._conn()
        try:
            db.execute("BEGIN IMMEDIATE")
            try:
                db.execute("INSERT INTO meta (key, value) VALUES ('write probe', '1')")
            finally:
                if db.in_transaction:
                    db.execute("ROLLBACK")
        except sqlite3.OperationalError as exc:
            raise JournalError(_unwritable(self.path, str(exc))) from None
        _check_free_space(self.path)

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
            if isinstance(exc, sqlite3.OperationalError):  # full, read-only, I/O error: say which file
                raise JournalError(_unwritable(self.path, str(exc))) from exc
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

    def first_seq_of_hand(self, hand: int) -> int | None:
        """The seq of the first event journaled in ``hand`` (its NEW_HAND), None when there is none."""
        row = self._conn().execute("SELECT min(seq) FROM events WHERE hand = ?", (hand,)).fetchone()
        return None if row is None or row[0] is None else int(row[0])

    def keys_starting(self, prefix: str) -> list[str]:
        """The idempotency keys journaled that start with ``prefix`` (non-empty), in key order."""
        end = prefix[:-1] + chr(ord(prefix[-1]) + 1)  # the first string after every prefix+...
        rows = self._conn().execute(
            "SELECT key FROM events WHERE key >= ? AND key < ? ORDER BY key", (prefix, end)
        )
        return [str(key) for (key,) in rows]

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
            os.close(self._lock_fd)  # releases the writer's lock (after SQLite's connection is closed)
            self._lock_fd = None
        if self._lock_key is not None:
            _LOCKED.pop(self._lock_key, None)
            self._lock_key = None

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


# Less free space than this beside the journal and the table is not started: a day's events and
# snapshots take a few MB, and SQLite needs room for its write-ahead log before it can commit.
MIN_FREE_BYTES = 4 * 1024 * 1024


def _whoami() -> str:
    uid = os.geteuid()
    try:
        return f"user {pwd.getpwuid(uid).pw_name} (uid {uid})"
    except KeyError:
        return f"uid {uid}"


def _unwritable(path: str, reason: str, full: bool = False) -> str:
    folder = os.path.dirname(os.path.abspath(path))
    if full or "full" in reason.lower():
        return (
            f"{path}: the journal cannot be written: the disk is full ({reason}). Free space on the "
            f"filesystem that holds {folder} (df -h {folder}), then start the table again."
        )
    return (
        f"{path}: the journal cannot be written ({reason}) as {_whoami()}. Fix: make it writable "
        f"(chown tablectl:tablectl {path}; chmod u+rw {path}), remount its filesystem read-write, "
        f"or give the table another journal path (--journal)."
    )


def check_writable_place(path: str) -> None:
    """Refuse, naming the file and the fix, a journal the service could not write: a folder that
    does not exist or that this user cannot write (SQLite creates the lock, -wal and -shm files
    beside the journal), a journal file this user cannot write, a disk without free space."""
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise JournalError(
            f"{path}: the journal's folder {folder} does not exist. Create it (install -d -o tablectl "
            f"-g tablectl {folder}; the systemd unit's StateDirectory makes /var/lib/tablectl) or "
            f"give the table another journal path (--journal)."
        )
    if not os.access(folder, os.W_OK | os.X_OK):
        raise JournalError(
            f"{path}: the journal's folder {folder} is not writable by {_whoami()} (SQLite writes "
            f"its lock and log files beside the journal). Fix: chown tablectl:tablectl {folder}, "
            f"remount it read-write, or give the table a journal path in a writable folder (--journal)."
        )
    for name in (path, path + "-wal", path + "-shm"):
        if os.path.exists(name) and not os.access(name, os.R_OK | os.W_OK):
            raise JournalError(_unwritable(path, f"{name} is read-only"))
    _check_free_space(path)


def _check_free_space(path: str) -> None:
    folder = os.path.dirname(os.path.abspath(path))
    try:
        fs = os.statvfs(folder)
    except OSError:
        return  # nothing to say: the write itself will
    # Root may use the blocks reserved for it; the service's user may not.
    free = (fs.f_bfree if os.geteuid() == 0 else fs.f_bavail) * fs.f_frsize
    if free < MIN_FREE_BYTES:
        need = MIN_FREE_BYTES // (1024 * 1024)
        raise JournalError(
            _unwritable(path, f"{free // 1024} KiB free, at least {need} MiB needed", full=True)
        )


class DuplicateEvent(JournalError):
    """The sender's idempotency key is already journaled: the event was received before."""

    def __init__(self, path: str, key: str, seq: int) -> None:
        super().__init__(f"{path}: an event with key {key!r} is already journaled as seq {seq}")
        self.path = path
        self.key = key
        self.seq = seq

    def __reduce__(self) -> tuple[type[DuplicateEvent], tuple[str, str, int]]:
        return type(self), (self.path, self.key, self.seq)


def close_inherited_locks() -> None:
    """In a process forked from a writer: close the writers' lock files it inherited, so that it
    never keeps a killed writer's lock alive (the lock is the writer's, not its children's)."""
    for fd in list(_LOCK_FDS):
        with contextlib.suppress(OSError):
            os.close(fd)
    _LOCK_FDS.clear()
    _LOCKED.clear()


class _Writer(NamedTuple):
    """The process holding a journal's writer's lock, as far as Linux tells."""

    pid: int
    command: str | None  # its command line
    path: str | None  # the name it opened the file by

    def describe(self) -> str:
        who = f"process {self.pid}"
        if self.command:
            who += f": {self.command}"
        if self.path:
            who += f", which opened it as {self.path}"
        return who


def _writer_of(st: os.stat_result) -> _Writer | None:
    """Who holds the writer's lock on the file ``st`` describes: /proc/locks lists flock locks
    by device and inode with the taker's pid; its command line and open files (readable for a
    process of the same user) say what it is and by which name it opened the file."""
    wanted = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}"
    pid = None
    with contextlib.suppress(OSError), open("/proc/locks", encoding="ascii", errors="replace") as handle:
        for line in handle:
            words = line.split()
            # "1: FLOCK  ADVISORY  WRITE 4242 b3:02:131090 0 EOF" (a waiter's line has "->")
            if len(words) >= 6 and words[1] == "FLOCK" and words[5] == wanted and words[4].isdigit():
                pid = int(words[4])
                break
    if pid is None:
        return None
    command = None
    with contextlib.suppress(OSError), open(f"/proc/{pid}/cmdline", "rb") as handle:
        command = handle.read().replace(b"\0", b" ").decode("utf-8", "replace").strip()[:200] or None
    path = None
    with contextlib.suppress(OSError):
        for fd in os.listdir(f"/proc/{pid}/fd"):
            link = f"/proc/{pid}/fd/{fd}"
            with contextlib.suppress(OSError):
                target = os.stat(link)
                if (target.st_dev, target.st_ino) == (st.st_dev, st.st_ino):
                    path = os.readlink(link)
                    break
    return _Writer(pid, command, path)
