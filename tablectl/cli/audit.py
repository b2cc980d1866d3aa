"""The MQTT security audit: what each role sees and may do, over many simulated hands.

``run_audit(hands, broker)`` deals ``hands`` simulated hands at each of two tables through the
controller (journal, step, views) with a :class:`~tablectl.adapters.mqtt.TablePublisher` per table, on a
broker configured with the shipped ACL (deploy/mosquitto). One client per role subscribes to
``#`` (and, to leave no doubt, to every table topic by name). It counts, per role, everything
that role saw or could do that it must not:

* a hole card or a burn card before it is shown: every card named anywhere in a payload is
  compared with the hole cards and burns of that moment (kept for each seq the tables used);
  folded and mucked hands count too, as they are never shown; on ``hands``, a finished hand's
  record is compared with the cards still hidden when that hand ended (it names the cards face
  up in it, and a card of an earlier hand may be a hole card now);
* a message of another table, for the roles that belong to one table (table, bridge, dealer,
  public);
* a hole card on ``broadcast/hole`` before the broadcast delay, or while its hand is played;
* a write it may not make: each role publishes a marker to every topic of both tables and a
  floor command to each ``cmd/floor/<user>`` of every user the audit knows (a supervisor may
  send only on its own, never as another supervisor) and a marker to each table's
  ``cmd/dealer`` (only that table's dealer may write it); an admin observer, the first table's
  own user (who reads its commands) and the tables' command handlers report what arrived.

The roles are mkusers' (broker.ROLES) and ``supervisor``: one of two supervisors (floor.<name>),
the other being whose topic the first must not write.

The audit's result is ``{"hands": N, "violations": {role: count}, "examples": [...]}``; every
count must be 0. Operators point it at a live deployment with ``tablectl audit --host ...
--credentials FILE`` after creating the two audit tables' users there (see
deploy/mosquitto/README.md); without --host it starts a throwaway mosquitto with the shipped
configuration (:class:`~tablectl.adapters.mqtt.broker.LocalBroker`).
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import random
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from tablectl.adapters.mqtt.broker import ROLES, TABLE_ROLES, BrokerAccess, Credentials
from tablectl.adapters.mqtt.topics import SUPERVISOR
from tablectl.core.cards import CARD_TOKEN, card_str
from tablectl.views import secrecy

# Every role the audit logs in as: mkusers' roles and a supervisor (floor.<name>).
AUDIT_ROLES = (*ROLES, SUPERVISOR)

# The folder holding the tablectl package (a checkout or site-packages), for the observer process.
ROOT = Path(__file__).resolve().parents[2]


class AuditError(ValueError):
    """The audit could not run (no broker, no credentials); the message says what to do."""


# -- what may not be seen -------------------------------------------------------------------------


def secret_cards(state: Any) -> frozenset[str]:
    """The cards nobody but the private topics may name now (tablectl.views.secrecy), as written."""
    return frozenset(card_str(card) for card in secrecy.secret_cards(state))


def cards_named(payload: Any) -> set[str]:
    """Every card named in any string of a JSON document."""
    found: set[str] = set()
    stack = [payload]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if len(item) >= 2:
                found.update(CARD_TOKEN.findall(item))
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


def hands_named(payload: Any) -> tuple[frozenset[str], tuple[tuple[int, frozenset[str]], ...]]:
    """A ``hands`` message's cards: those the hand in progress names (to hold against the cards
    hidden now), and each finished hand's (to hold against those hidden when it ended)."""
    hands = [h for h in (payload.get("state") or {}).get("hands", []) if isinstance(h, dict)]
    live = frozenset(cards_named([h for h in hands if h.get("in_progress")]))
    return live, tuple((int(h["hand"]), frozenset(cards_named(h))) for h in hands if not h.get("in_progress"))


def may_write(role: str, own_table: str, topic: str, room: str, user: str = "") -> bool:
    """What the shipped ACL is meant to allow (docs/mqtt.md): the audit's reference. ``user``:
    the writer's login, for a supervisor (who writes only its own cmd/floor/<user>)."""
    if not topic.startswith(f"cardroom/{room}/"):
        return False  # another room: not even admin (its ACL is this room's)
    parts = topic.split("/")
    is_table_topic = len(parts) >= 5 and parts[2] == "table"
    rest = "/".join(parts[4:]) if is_table_topic else ""
    command = is_table_topic and (rest == "cmd" or rest.startswith("cmd/"))
    if role == "admin":
        return not command  # everything but a command: those come from supervisors
    if not is_table_topic:
        return False
    table = parts[3]
    if role == SUPERVISOR:
        return bool(user) and rest == f"cmd/floor/{user}"
    if role == "table":
        return table == own_table and not command
    if role == "bridge":
        # The bridge brings each command in on the topic its supervisor sent it on (bridge.conf),
        # and the dealer's commands of a dealer's screen logged in centrally.
        forwarded = rest.startswith("cmd/floor/") and rest.count("/") == 2 and rest != f"cmd/floor/{user}"
        return table == own_table and (rest in ("bridge", "cmd/dealer") or forwarded)
    if role == "dealer":
        return table == own_table and rest == "cmd/dealer"  # the dealer's own commands, nothing else
    return False  # floor (a read-only dashboard), public, broadcast


@dataclass
class _Timeline:
    """Per table: the secret cards and the hand being played, for each range of seqs."""

    his: list[int] = field(default_factory=list)
    entries: list[tuple[frozenset[str], int | None]] = field(default_factory=list)

    def at(self, seq: int) -> tuple[frozenset[str], int | None]:
        import bisect

        done = len(self.his)
        if not self.entries:
            return frozenset(), None
        index = bisect.bisect_left(self.his, seq, 0, done)
        if index < done:
            return self.entries[index]
        return self.entries[min(done, len(self.entries) - 1)]


@dataclass
class _Seen:
    """What one payload is, worked out once however many roles receive it."""

    table: str
    rest: str  # the topic below the table: "public", "private/hole", ...
    kind: str
    marker: str = ""
    seq: int = 0
    stopped: bool = False
    named: frozenset[str] = frozenset()  # every card the payload names
    past: tuple[tuple[int, frozenset[str]], ...] = ()  # hands: each finished hand, the cards it names
    broadcast_hand: int | None = None
    held: float = 0.0  # broadcast: seconds between the private snapshot and its copy


class _Observer:
    """One client per role, in a process of its own (the checks cost a core): every message
    each role receives is sorted out here; the parent, which knows the secret cards of every
    seq, settles what named a hidden card."""

    def __init__(
        self,
        host: str,
        port: int,
        users: dict[str, tuple[str, str]],
        room: str,
        tables: tuple[str, str],
        delay: float,
        run_id: str,
        logins: Sequence[str] = (),
    ) -> None:
        self.host, self.port, self.users, self.room = host, port, users, room
        self.tables, self.delay, self.run_id = tables, delay, run_id
        # Every user whose command topic each role tries: its own and everyone else's.
        self.logins = sorted({*logins, *(user for user, _ in users.values())})
        self.own = {role: tables[0] for role in TABLE_ROLES}
        self.lock = threading.Lock()
        self.cache: dict[tuple[str, bytes], _Seen] = {}
        self.violations = {role: 0 for role in AUDIT_ROLES}
        self.examples: list[dict[str, Any]] = []
        self.received = {role: 0 for role in AUDIT_ROLES}
        self.by_kind: dict[str, dict[str, int]] = {role: {} for role in AUDIT_ROLES}
        self.markers: list[tuple[str, str, str]] = []  # (writer, topic, seen by)
        self.sentinels: dict[str, set[str]] = {role: set() for role in AUDIT_ROLES}
        self.facts: dict[tuple[str, int], tuple[_Seen, int]] = {}  # (table, seq) -> (seen, roles bitmask)
        self.changed = threading.Condition(self.lock)
        self.clients: dict[str, mqtt.Client] = {}
        self.public_seq: dict[tuple[str, str], int] = {}  # (role, table) -> last public seq received
        self.admin_seen: dict[str, int] = {}  # messages of each table the admin received

    def violation(self, role: str, what: str, topic: str, detail: str) -> None:
        self.violations[role] += 1
        if len(self.examples) < 20:
            self.examples.append({"role": role, "what": what, "topic": topic, "detail": detail})

    def connect(self) -> None:
        access = BrokerAccess(self.host, self.port, Credentials(self.room, {}))
        for role in AUDIT_ROLES:
            username, password = self.users[role]
            client = _client(access, username, password, f"audit-{role}-{self.run_id}")
            client.on_message = lambda c, u, m, role=role: self.receive(role, m.topic, m.payload)
            _connect(client, access)
            # "#" covers every topic of the room: mosquitto grants it to everyone and filters
            # each message by the ACL. $SYS is the broker's own.
            done = threading.Event()
            client.on_subscribe = lambda c, u, mid, codes, props, done=done: done.set()
            client.subscribe([("#", 1), ("$SYS/#", 1)])
            if not done.wait(10):
                raise AuditError(f"{role}: no answer to SUBSCRIBE")
            self.clients[role] = client

    def analyse(self, topic: str, payload: bytes) -> _Seen:
        parts = topic.split("/")
        if parts[0] != "cardroom":
            return _Seen("", topic, "broker")  # $SYS and the like
        table = parts[3] if len(parts) > 4 and parts[2] == "table" else ""
        rest = "/".join(parts[4:])
        data = json.loads(payload)
        if isinstance(data, dict) and "audit_marker" in data:
            return _Seen(table, rest, "marker", marker=str(data["audit_marker"]))
        if (
            rest.startswith("cmd/")
            and isinstance(data, dict)
            and str(data.get("by", "")).startswith("audit-")
        ):
            # A command the audit sent (only the table's own user reads them): who wrote it.
            return _Seen(table, rest, "marker", marker=str(data["by"]).removeprefix("audit-"))
        if not isinstance(data, dict):
            return _Seen(table, rest, rest)
        seen = _Seen(table, rest, str(data.get("type", rest)))
        seen.stopped = rest == "status" and data.get("reason") == "stopped"
        if table in self.tables and "seq" in data:
            seen.seq = int(data["seq"])
            seen.named = frozenset(cards_named(data))
            if rest == "hands":  # the hand in progress against now, each finished one on its own
                seen.named, seen.past = hands_named(data)
            if rest.startswith("broadcast/"):
                seen.held = float(data.get("ts", 0)) - float(data.get("of_ts", 0))
                hand = (data.get("state") or {}).get("hand")
                seen.broadcast_hand = hand if isinstance(hand, int) else None
        return seen

    def receive(self, role: str, topic: str, payload: bytes) -> None:
        if not payload:
            return  # an empty retained message clearing a topic, or a round trip
        key = (topic, payload)
        with self.lock:
            seen = self.cache.get(key)
        if seen is None:
            try:
                seen = self.analyse(topic, payload)
            except (ValueError, TypeError) as exc:
                with self.lock:
                    self.violation(role, "unreadable payload", topic, repr(exc))
                return
        with self.lock:
            if len(self.cache) > 50_000:
                self.cache.clear()
            self.cache[key] = seen
            own = self.own.get(role)
            if own is not None and seen.kind != "broker" and seen.table != own:
                self.violation(role, "another table's topic", topic, f"{role} of table {own} received it")
            if seen.kind == "marker":
                self.markers.append((seen.marker, topic, role))
                self.changed.notify_all()
                return
            self.received[role] += 1
            self.by_kind[role][seen.kind] = self.by_kind[role].get(seen.kind, 0) + 1
            if seen.rest == "private/hole" and role not in ("admin", "bridge"):
                self.violation(role, "private hole cards", topic, f"seq {seen.seq}")
            if seen.rest.startswith("broadcast/"):
                if role not in ("admin", "bridge", "broadcast"):
                    self.violation(role, "the broadcast feed", topic, f"seq {seen.seq}")
                if seen.seq and seen.held + 1e-6 < self.delay:
                    self.violation(
                        role,
                        "hole cards before the broadcast delay",
                        topic,
                        f"seq {seen.seq} held {seen.held:.0f} s",
                    )
            if (
                seen.seq
                and (seen.named or seen.past or seen.broadcast_hand is not None)
                and seen.rest != "private/hole"
            ):
                fact_key = (seen.table, seen.seq)
                old = self.facts.get(fact_key)
                self.facts[fact_key] = (seen, (old[1] if old else 0) | (1 << AUDIT_ROLES.index(role)))
            if seen.stopped:
                self.sentinels[role].add(seen.table)
                self.changed.notify_all()
            if role == "admin" and seen.seq:
                self.admin_seen[seen.table] = self.admin_seen.get(seen.table, 0) + 1
            if seen.rest == "public" and seen.seq:
                public_key = (role, seen.table)
                if seen.seq > self.public_seq.get(public_key, 0):
                    self.public_seq[public_key] = seen.seq
                    self.changed.notify_all()

    def wait_for(self, predicate: Any, timeout: float, what: str) -> None:
        deadline = time.monotonic() + timeout
        with self.changed:
            while not predicate():
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AuditError(f"timed out after {timeout:.0f} s waiting for {what}")
                self.changed.wait(left)

    def sync(self, public_seqs: dict[str, int]) -> None:
        """Wait until every role that reads a table's public snapshot has received the one with
        this seq (and so, in order, everything before it): the tables never get so far ahead
        that the broker drops messages for a slow observer (max_queued_messages)."""
        wanted = [
            (role, table, seq)
            for role in AUDIT_ROLES
            if role != "table"
            for table, seq in public_seqs.items()
            if role not in TABLE_ROLES or table == self.tables[0]
        ]
        self.wait_for(
            lambda: all(self.public_seq.get((role, table), 0) >= seq for role, table, seq in wanted),
            120,
            "the observers to catch up with the tables",
        )

    def try_writes(self) -> int:
        """Each role publishes a marker to every topic of both tables and a floor command to each
        table's command topic of every user; returns once the broker has routed them all."""
        from tablectl.adapters.mqtt import Topics

        sent = 0
        for role, client in self.clients.items():
            marker = json.dumps({"audit_marker": role, "run": self.run_id}).encode()
            for table in self.tables:
                topics = Topics(self.room, table)
                for topic in (*topics.all_published(), topics.bridge, topics.cmd_dealer):
                    client.publish(topic, marker, qos=1)
                    sent += 1
                command = {"type": "floor", "kind": "deck_check", "by": f"audit-{role}", "amount": 52}
                for user in self.logins:
                    client.publish(
                        topics.cmd_floor(user), json.dumps(command).encode(), qos=1, properties=_once()
                    )
                    sent += 1
        # QoS 1 acknowledgements come in order on a connection: once a last publish of each
        # client is acknowledged, the broker has routed everything that client sent before.
        for client in self.clients.values():
            client.publish(f"cardroom/{self.room}/audit/{self.run_id}", b"", qos=1).wait_for_publish(30)
        return sent

    def last_commands(self) -> None:
        from tablectl.adapters.mqtt import Topics

        command = {"type": "floor", "kind": "deck_check", "by": "audit-last", "amount": 52}
        user = self.users[SUPERVISOR][0]
        for table in self.tables:
            info = self.clients[SUPERVISOR].publish(
                Topics(self.room, table).cmd_floor(user),
                json.dumps(command).encode(),
                qos=1,
                properties=_once(),
            )
            info.wait_for_publish(30)

    def finish(self) -> dict[str, Any]:
        from tablectl.adapters.mqtt import Topics

        wanted = {
            role: ({self.tables[0]} if role in TABLE_ROLES else set(self.tables))
            for role in AUDIT_ROLES
            if role != "table"
        }
        self.wait_for(
            lambda: all(t <= self.sentinels[r] for r, t in wanted.items()),
            60,
            "every role to receive the tables' last messages",
        )
        admin = self.clients["admin"]
        end = json.dumps({"audit_marker": "admin-end", "run": self.run_id}).encode()
        admin.publish(f"cardroom/{self.room}/table/{self.tables[0]}/bridge", end, qos=1).wait_for_publish(30)
        self.wait_for(
            lambda: any(m[0] == "admin-end" and m[2] == "admin" for m in self.markers),
            30,
            "the admin observer's own last message",
        )
        for table in self.tables:  # clear what the audit tables left retained
            topics = Topics(self.room, table)
            for topic in (
                topics.status,
                *(topics.view(v) for v in ("public", "dealer", "floor")),
                topics.summary,
                topics.hands,
                topics.private_hole,
                topics.broadcast_hole,
            ):
                admin.publish(topic, b"", qos=1, retain=True).wait_for_publish(30)
        for client in self.clients.values():
            client.disconnect()
            client.loop_stop()
        with self.lock:
            return {
                "violations": self.violations,
                "examples": self.examples,
                "received": self.received,
                "by_kind": self.by_kind,
                # What the admin saw, and the commands the first table's own user saw (admin
                # reads no commands).
                "markers": [list(m) for m in self.markers if m[2] == "admin" or m[1].count("/cmd/")],
                "admin_seen": self.admin_seen,
                "facts": [
                    [
                        t,
                        seq,
                        sorted(seen.named),
                        seen.broadcast_hand,
                        mask,
                        [[h, sorted(c)] for h, c in seen.past],
                    ]
                    for (t, seq), (seen, mask) in self.facts.items()
                ],
            }


def _observer_main() -> None:
    """The observer process (``python -m tablectl.cli.audit``): one JSON line of arguments on stdin,
    then one order per line; one JSON line answers each on stdout."""
    import sys

    def answer(status: str, value: Any) -> None:
        sys.stdout.write(json.dumps([status, value]) + "\n")
        sys.stdout.flush()

    try:
        host, port, users, room, tables, delay, run_id, logins = json.loads(sys.stdin.readline())
        observer = _Observer(
            host, port, {r: tuple(u) for r, u in users.items()}, room, tuple(tables), delay, run_id, logins
        )
        observer.connect()
        answer("ok", "ready")
        for line in sys.stdin:
            order = line.strip()
            if order.startswith("sync "):
                observer.sync(json.loads(order[5:]))
                answer("ok", None)
            elif order == "writes":
                answer("ok", observer.try_writes())
            elif order == "last_commands":
                observer.last_commands()
                answer("ok", None)
            elif order == "finish":
                answer("ok", observer.finish())
                return
    except BaseException as exc:  # noqa: BLE001 - reported to the parent, which raises it
        answer("error", f"{type(exc).__name__}: {exc}")


# -- the audit ------------------------------------------------------------------------------------


def _once() -> Properties:
    """A command's MQTT 5 correlation data: what makes it one command (the tables run on the
    audit's simulated clock, so the commands carry no time of their own)."""
    props = Properties(PacketTypes.PUBLISH)  # type: ignore[no-untyped-call]  # paho leaves it unannotated
    props.CorrelationData = os.urandom(8)
    return props


def _client(access: BrokerAccess, username: str, password: str, client_id: str) -> mqtt.Client:
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id, protocol=mqtt.MQTTv5)
    client.username_pw_set(username, password)
    return client


def _connect(client: mqtt.Client, access: BrokerAccess, timeout: float = 10.0) -> None:
    ready = threading.Event()
    failure: list[str] = []

    def on_connect(c: mqtt.Client, u: Any, flags: Any, reason: Any, props: Any) -> None:
        if reason.is_failure:
            failure.append(str(reason))
        ready.set()

    client.on_connect = on_connect
    client.connect(access.host, access.port, keepalive=30)
    client.loop_start()
    if not ready.wait(timeout) or failure:
        client.loop_stop()
        raise AuditError(
            f"could not connect to {access.host}:{access.port}: "
            f"{failure[0] if failure else 'no answer'}; check the credentials"
        )


class _Child:
    """The observer process, driven over its standard input and output."""

    def __init__(self, args: Sequence[Any]) -> None:
        import sys

        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tablectl.cli.audit"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
            text=True,
        )
        self.answers: queue.SimpleQueue[str] = queue.SimpleQueue()
        threading.Thread(target=self._read, daemon=True).start()
        self._send(json.dumps(list(args)))

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.answers.put(line)
        self.answers.put("")

    def _send(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def ask(self, order: str | None, timeout: float) -> Any:
        if order is not None:
            self._send(order)
        try:
            line = self.answers.get(timeout=timeout)
        except queue.Empty:
            raise AuditError(
                f"the observer process did not answer {order or 'ready'!r} within {timeout:.0f} s"
            ) from None
        if not line:
            raise AuditError(f"the observer process ended (exit code {self.process.wait(5)})")
        status, value = json.loads(line)
        if status == "error":
            raise AuditError(f"observer process: {value}")
        return value

    def close(self) -> None:
        if self.process.stdin is not None:
            with contextlib.suppress(OSError):
                self.process.stdin.close()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(5)


def run_audit(
    hands: int,
    broker: BrokerAccess,
    *,
    seed: int = 2026,
    broadcast_delay: float = 1800.0,
    seconds_per_event: float = 4.0,
    slips: bool = True,
) -> dict[str, Any]:
    """Deal ``hands`` simulated hands (shared between two tables dealt side by side) through the
    controller and a TablePublisher per table, watched by every role; see the module doc."""
    from tablectl.adapters.mqtt import TablePublisher, Topics
    from tablectl.core.events import (
        CardDrawn,
        CardSeen,
        DealerCommand,
        DeviceStatus,
        FloorCommand,
        InputRefused,
        Zone,
    )
    from tablectl.core.table import TableConfig, step
    from tablectl.journal import Controller
    from tablectl.journal.snapshot import table_restore, table_snapshot
    from tablectl.sim.dealer import SimDealer, seated_table

    creds = broker.credentials
    room = creds.room
    tables = broker.audit_tables()
    supervisors = broker.audit_supervisors()
    rng = random.Random(seed)
    clock = [1_700_000_000.0]  # simulated time: the broadcast delay passes during the audit

    def now() -> float:
        return clock[0]

    run_id = f"{os.getpid()}-{rng.randrange(1 << 30):x}"
    users = {role: creds.user(role, tables[0]) for role in ROLES}
    users[SUPERVISOR] = creds.user(SUPERVISOR, supervisors[0])
    other_supervisor = creds.user(SUPERVISOR, supervisors[1])[0]  # whose topic the first must not write
    child = _Child(
        (broker.host, broker.port, users, room, tables, broadcast_delay, run_id, [other_supervisor])
    )
    timelines = {table: _Timeline() for table in tables}
    # Per table: the cards still hidden when each hand ended (its record may name no other).
    hidden_at_end: dict[str, dict[int, frozenset[str]]] = {table: {} for table in tables}
    publishers: dict[str, TablePublisher] = {}
    controllers: dict[str, Any] = {}
    commands_seen: list[tuple[str, str, str]] = []  # (table, by, user)
    hands_dealt = {table: 0 for table in tables}
    events_done = 0
    shm = "/dev/shm" if os.path.isdir("/dev/shm") else None
    journal_dir = tempfile.mkdtemp(prefix="tablectl-audit-", dir=shm)
    try:
        child.ask(None, 60)
        for table in tables:
            username, password = creds.user("table", table)

            def handler(
                command: FloorCommand | DealerCommand | InputRefused,
                key: str | None,
                done: Callable[[], None],
                table: str = table,
            ) -> None:
                if isinstance(command, FloorCommand):  # refused at the boundary: nothing reached it
                    commands_seen.append((table, command.by, command.user))
                elif isinstance(command, DealerCommand):
                    commands_seen.append((table, command.name or "", command.user))
                done()  # taken: acknowledged, or the broker stops sending at the receive maximum
                raise ValueError("audit: command received and not applied")

            publisher = TablePublisher(
                room,
                table,
                host=broker.host,
                port=broker.port,
                username=username,
                password=password,
                client_id=f"audit-table-{table}-{run_id}",
                clock=now,
                tick_interval=None,
                broadcast_delay=broadcast_delay,
                on_command=handler,
                command_max_age=0,
            )
            publishers[table] = publisher.start()
            if not publisher.wait_connected(10):
                raise AuditError(f"table {table}'s publisher could not connect as {username}")
            config = TableConfig(room=room, table=table, seats=9, game="NT", blinds=(50, 100))
            controllers[table] = Controller.open(
                Path(journal_dir) / f"{table}.journal",
                config,
                step,
                seated_table(config, 6),
                snapshot_of=table_snapshot,
                restore=table_restore,
            )

        dealers = {table: SimDealer(random.Random(rng.randrange(1 << 30))) for table in tables}
        while sum(hands_dealt.values()) < hands:
            for table in tables:
                if sum(hands_dealt.values()) >= hands:
                    break
                controller = controllers[table]
                state = controller.state
                event: Any = dealers[table].next_event(state)
                hand = state.hand
                if slips and hand is not None and hand.pending is None and rng.random() < 0.03:
                    # Slips whose rulings name cards: the texts must not give a hole card away.
                    roll = rng.random()
                    dealt = sorted(hand.dealt)
                    if roll < 0.4:
                        event = DeviceStatus("shoe", ok=rng.random() < 0.5, detail="audit")
                    elif roll < 0.7 and dealt:
                        event = CardDrawn(rng.choice(dealt))  # a second card of a kind: IRR-2
                    elif dealt:
                        event = CardSeen(Zone.BURN, rng.choice(dealt))
                clock[0] += seconds_per_event
                effects = controller.handle(event)
                after = controller.state
                timeline = timelines[table]
                live = after.hand_number if after.hand is not None else None
                timeline.entries.append((secret_cards(after), live))
                publisher = publishers[table]
                publisher.publish_state(after, effects)
                publisher.tick()
                timeline.his.append(publisher.seq)
                if hand is not None and after.hand is None:
                    hands_dealt[table] += 1
                    hidden_at_end[table][hand.number] = timeline.entries[-1][0]
                events_done += 1
            if events_done % 64 < len(tables):
                seqs = {}
                for table, publisher in publishers.items():
                    payload = publisher.retained().get(Topics(room, table).view("public"))
                    if payload is not None:
                        seqs[table] = json.loads(payload)["seq"]
                child.ask("sync " + json.dumps(seqs), 180)
        for publisher in publishers.values():
            if not publisher.wait_delivered(120):
                raise AuditError("the broker did not acknowledge the tables' messages within 120 s")

        writes = child.ask("writes", 120)
        child.ask("last_commands", 60)
        deadline = time.monotonic() + 30
        while {t for t, by, _ in list(commands_seen) if by == "audit-last"} != set(tables):
            if time.monotonic() > deadline:
                raise AuditError("the tables did not receive the floor's last command within 30 s")
            time.sleep(0.01)  # waiting on the tables' command handlers, with a deadline
        for publisher in publishers.values():
            publisher.stop()  # status "stopped": the last message every role waits for
        seen = child.ask("finish", 300)
    finally:
        for publisher in publishers.values():
            with contextlib.suppress(Exception):
                publisher.stop(timeout=2)
        for controller in controllers.values():
            controller.close()
        shutil.rmtree(journal_dir, ignore_errors=True)
        child.close()

    violations: dict[str, int] = seen["violations"]
    examples: list[dict[str, Any]] = seen["examples"]

    def violation(role: str, what: str, topic: str, detail: str) -> None:
        violations[role] += 1
        if len(examples) < 20:
            examples.append({"role": role, "what": what, "topic": topic, "detail": detail})

    published = {table: publisher.stats.published for table, publisher in publishers.items()}
    unobserved = {table: published[table] - seen["admin_seen"].get(table, 0) for table in tables}
    for table, seq, named, broadcast_hand, mask, past in seen["facts"]:
        secrets, live_hand = timelines[table].at(seq)
        roles = [role for bit, role in enumerate(ROLES) if mask >> bit & 1]
        topic = f"cardroom/{room}/table/{table}/..."
        for number, cards in past:
            hidden = hidden_at_end[table].get(number)
            leaked_then = sorted(set(cards) & hidden) if hidden is not None else []
            if hidden is None and cards:
                leaked_then = ["(a hand the audit did not see end)"]
            for role in roles if leaked_then else ():
                violation(
                    role, "a hidden card", topic, f"seq {seq} hand {number} names {', '.join(leaked_then)}"
                )
        if broadcast_hand is not None:
            if broadcast_hand == live_hand:
                for role in roles:
                    violation(
                        role, "hole cards of a hand still played", topic, f"seq {seq} hand {broadcast_hand}"
                    )
            continue
        leaked = sorted(set(named) & secrets)
        if leaked:
            for role in roles:
                violation(role, "a hidden card", topic, f"seq {seq} names {', '.join(leaked)}")
    for writer, topic, _seen_by in seen["markers"]:
        if writer in AUDIT_ROLES and not may_write(writer, tables[0], topic, room, users[writer][0]):
            violation(writer, "a write the ACL must refuse", topic, f"{writer} published it")
    for table, by, user in commands_seen:
        # What the tables took: on whose topic (user), sent by whom (by).
        role = by.removeprefix("audit-")
        topic = Topics(room, table).cmd_floor(user)
        if role in AUDIT_ROLES and not may_write(role, tables[0], topic, room, users[role][0]):
            violation(role, "a command it may not send", topic, f"{by} sent it as {user}")
    return {
        "hands": sum(hands_dealt.values()),
        "violations": violations,
        "examples": examples,
        "tables": hands_dealt,
        "events": events_done,
        "received": seen["received"],
        "received_by_kind": seen["by_kind"],
        "writes_tried": writes,
        "unobserved": unobserved,  # messages the admin observer did not receive: must be 0
        # Commands the tables took: [by, user] (who the audit had send it, whose topic it came on).
        "commands_arrived": sorted({(by, user) for _, by, user in commands_seen}),
        "supervisors": list(supervisors),
    }


if __name__ == "__main__":
    _observer_main()
