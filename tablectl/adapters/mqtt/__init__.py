"""Publishing the table over MQTT (DESIGN.md, Contracts: MQTT; docs/mqtt.md for the topics).

:class:`TablePublisher` puts the views of the table's state on the broker, under
``cardroom/<room>/table/<table>/``:

* ``status``: retained, ``online`` on every (re)connection, ``offline`` by the last will
  when the broker loses the table (and explicitly when it stops);
* ``public``, ``dealer``, ``floor``: retained QoS 1 snapshots of the views, published when
  they change, with an MQTT 5 message expiry so that a dead table's state disappears;
* ``events`` and ``alerts``: rulings and ended hands as non-retained QoS 1 messages; alerts
  are the rulings that need someone now (floor, void, misdeal);
* ``private/hole``: the hole cards (the ``private`` view), retained, and nowhere else;
* ``broadcast/hole``: the same, held back for the broadcast delay (30 minutes by default);
* ``cmd/floor`` in, ``cmd_result`` out: floor commands, parsed and handed to a callback.

Every payload is JSON with ``schema``, ``epoch`` (this run of the table: it changes on every
restart, so displays re-read), ``seq`` (one counter per table and epoch, over everything the
table publishes) and ``ts``. Events and alerts also carry ``prev``, the seq of the previous
message on the same topic: a display whose last seq there differs has missed one and re-reads
the retained snapshot (the dealer and floor snapshots list the recent rulings with their seq).

Publishing never blocks the caller: paho's network loop runs in its own thread, and
:meth:`TablePublisher.publish_state` only computes the views and queues what changed. While
the broker is away the queue keeps the newest snapshot per topic and every event; when the
connection comes back, paho first delivers what was in flight, then the table publishes its
status, sends again the events and alerts the broker acknowledged in the last
``replay_window`` s before the connection was lost (a broker killed loses what it acknowledged
since it last saved its database), and republishes every retained snapshot as it stands now,
so the broker holds current state even if it lost everything (killed, restarted without its
database). Displays drop the repeats by seq. Hole cards never leave the
private topics: ruling texts in the dealer and floor snapshots, events and alerts name only
cards that are face up on the table; any other card is written ``[card]``.
"""

from __future__ import annotations

import json
import logging
import queue
import re
import secrets
import socket
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final, Literal

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties
from paho.mqtt.reasoncodes import ReasonCode
from paho.mqtt.subscribeoptions import SubscribeOptions

from tablectl.core.effects import Effect, HandEnded, Ruling, Severity
from tablectl.core.events import EventError, FloorCommand, from_json
from tablectl.core.table import TableState
from tablectl.views.audiences import dealer, floor, private, public

log = logging.getLogger(__name__)

SCHEMA_VERSION: Final = 1
CONTENT_TYPE: Final = "application/json"
ALERT_SEVERITIES: Final = frozenset({Severity.FLOOR, Severity.VOID, Severity.MISDEAL})
# Messages each of which counts (never replaced by a newer one on its topic): sent again after a
# reconnection if the broker may have lost them.
SEQUENCED_KINDS: Final = frozenset({"event", "alert", "cmd_result", "broadcast_hole"})
VIEW_NAMES: Final = ("public", "dealer", "floor")
HIDDEN_CARD: Final = "[card]"
_CARD_TOKEN = re.compile(r"(?<![A-Za-z0-9])[2-9TJQKA][cdhs](?![A-Za-z0-9])")
_NAME = re.compile(r"^[A-Za-z0-9_-]{1,32}$")


class PublisherError(ValueError):
    """A publisher that cannot work as configured; the message names the setting and the fix."""


# -- topics ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Topics:
    """The topics of one table (docs/mqtt.md)."""

    room: str
    table: str

    def __post_init__(self) -> None:
        for key, value in (("room", self.room), ("table", self.table)):
            if not _NAME.match(value):
                raise PublisherError(
                    f"{key} name {value!r} cannot be a topic level: use 1-32 letters, digits, '_' or '-' "
                    f"(the same names as deploy/mosquitto/mkusers)"
                )

    @property
    def base(self) -> str:
        return f"cardroom/{self.room}/table/{self.table}/"

    @property
    def status(self) -> str:
        return self.base + "status"

    def view(self, name: str) -> str:
        return self.base + name

    @property
    def events(self) -> str:
        return self.base + "events"

    @property
    def alerts(self) -> str:
        return self.base + "alerts"

    @property
    def private_hole(self) -> str:
        return self.base + "private/hole"

    @property
    def broadcast_hole(self) -> str:
        return self.base + "broadcast/hole"

    @property
    def cmd(self) -> str:
        return self.base + "cmd/#"

    @property
    def cmd_floor(self) -> str:
        return self.base + "cmd/floor"

    @property
    def cmd_result(self) -> str:
        return self.base + "cmd_result"

    @property
    def bridge(self) -> str:
        return self.base + "bridge"

    def all_published(self) -> tuple[str, ...]:
        """Every topic the table itself publishes."""
        return (
            self.status,
            *(self.view(v) for v in VIEW_NAMES),
            self.events,
            self.alerts,
            self.private_hole,
            self.broadcast_hole,
            self.cmd_result,
        )


# -- hiding cards in texts ------------------------------------------------------------------------


def visible_cards(public_view: Mapping[str, Any]) -> frozenset[str]:
    """The cards face up on the table: the board and the hands shown."""
    seen: set[str] = set(public_view.get("board") or ())
    for seat in public_view.get("seats") or ():
        shown = seat.get("shown")
        if shown:
            seen.update(shown)
    return frozenset(seen)


def redact(text: str, visible: frozenset[str]) -> str:
    """``text`` with every card that is not face up on the table written ``[card]``.

    Ruling texts name cards ("a second Kh came out", "Misdeal: 7c was dealt out of sequence");
    the card named may be a hole card or a burn. Only the private topics may carry those.
    """
    if not _CARD_TOKEN.search(text):
        return text
    return _CARD_TOKEN.sub(lambda m: m.group(0) if m.group(0) in visible else HIDDEN_CARD, text)


def _redact_view(view: dict[str, Any], visible: frozenset[str]) -> dict[str, Any]:
    """The dealer and floor views carry the procedure's texts: the prompt, the pending ruling."""
    prompt = view.get("prompt")
    if isinstance(prompt, str):
        view["prompt"] = redact(prompt, visible)
    pending = view.get("pending")
    if isinstance(pending, dict) and isinstance(pending.get("text"), str):
        view["pending"] = {**pending, "text": redact(pending["text"], visible)}
    return view


# -- messages -------------------------------------------------------------------------------------


@dataclass(slots=True)
class Outgoing:
    topic: str
    payload: bytes
    retain: bool
    properties: Properties
    seq: int
    kind: str  # status, snapshot, hole, broadcast_hole, event, alert, cmd_result


@dataclass(slots=True)
class _Delayed:
    due: float
    hand: int | None
    state: dict[str, Any]
    of_seq: int
    of_ts: float


def _new_properties(packet_type: int) -> Properties:
    return Properties(packet_type)  # type: ignore[no-untyped-call]  # paho leaves it unannotated


def _dumps(data: Mapping[str, Any]) -> bytes:
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode()


def _properties(expiry: int | None) -> Properties:
    props = _new_properties(PacketTypes.PUBLISH)
    props.ContentType = CONTENT_TYPE
    props.PayloadFormatIndicator = 1  # UTF-8 text
    if expiry:
        props.MessageExpiryInterval = int(expiry)
    return props


def new_epoch(now: float) -> str:
    """A run id: the start time (UTC) and a random part, e.g. ``20260129T101500Z-3fa2c1``."""
    return time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(now)) + "-" + secrets.token_hex(3)


CommandHandler = Callable[[FloorCommand, str | None], object]


@dataclass
class PublisherStats:
    """Counters for the service's health page and for tests."""

    published: int = 0  # messages handed to paho
    acknowledged: int = 0  # PUBACKs
    refused: int = 0  # PUBACKs with an error (an ACL that does not let the table write)
    connects: int = 0
    disconnects: int = 0
    coalesced: int = 0  # snapshots replaced by a newer one before they were sent
    dropped_events: int = 0  # events over max_pending_events while disconnected
    replayed: int = 0  # acknowledged events and alerts sent again after a reconnection
    commands: int = 0
    commands_rejected: int = 0
    last_refusal: str = ""


@dataclass
class TablePublisher:
    """The table's MQTT adapter. ``start()``, then ``publish_state(state, effects)`` after every
    event the controller handled; ``republish(state)`` after a restart; ``stop()``.

    ``on_command(command, key)`` receives each floor command from ``cmd/floor``, parsed; ``key``
    is the sender's correlation data (hex) when given, for the journal's idempotency key. It is
    called from the publisher's worker thread: hand the command to the controller's thread and
    return; raising (e.g. ``ValueError``) rejects it with the message on ``cmd_result``.
    """

    room: str
    table: str
    host: str = "localhost"
    port: int = 1883
    username: str | None = None
    password: str | None = None
    client_id: str | None = None
    transport: str = "tcp"  # or "websockets"
    keepalive: int = 15
    session_expiry: int = 3600  # s the broker keeps the session (and queued commands) while away
    snapshot_expiry: int = 3600  # s a retained snapshot outlives its table; refreshed at half that
    event_expiry: int = 3600  # s an event waits in an absent display's queue; 0: forever
    broadcast_delay: float = 1800.0  # s between a private snapshot and its broadcast copy
    hold_live_hand: bool = True  # never release a hand's hole cards to broadcast while it is played
    command_max_age: float = 120.0  # s: an older command (its ``at``) is refused, not applied
    recent_rulings: int = 20  # rulings listed in the dealer and floor snapshots
    max_pending_events: int = 10_000
    resync_timeout: float = 5.0
    # s: the events and alerts the broker acknowledged in this time up to its last
    # acknowledgement before the connection was lost are sent again on reconnection. A broker
    # that is killed loses what it acknowledged since it last saved its database (mosquitto's
    # autosave_interval, 60 s in deploy/mosquitto), and the table cannot tell a broker that kept
    # them from one that did not. At least that interval plus a margin; 0: never.
    replay_window: float = 65.0
    tick_interval: float | None = 1.0  # None: the owner calls tick() (tests, a simulated clock)
    clock: Callable[[], float] = time.time
    epoch: str | None = None
    on_command: CommandHandler | None = None
    tls: bool = False
    stats: PublisherStats = field(default_factory=PublisherStats)

    def __post_init__(self) -> None:
        self.topics = Topics(self.room, self.table)
        if self.epoch is None:
            self.epoch = new_epoch(self.clock())
        if self.client_id is None:
            self.client_id = f"tablectl-{self.room}-{self.table}"
        if self.broadcast_delay < 0:
            raise PublisherError("broadcast_delay: a delay in seconds >= 0")
        self._lock = threading.Lock()
        self._seq_lock = threading.Lock()
        self._seq = 0
        self._prev: dict[str, int] = {}
        self._last_views: dict[str, dict[str, Any]] = {}
        self._current: dict[str, Outgoing] = {}  # the retained message per topic, sent or not
        self._pending: OrderedDict[Any, Outgoing] = OrderedDict()
        self._pending_events = 0
        self._inflight: dict[int, Outgoing] = {}
        # Sequenced messages the broker acknowledged within replay_window of the newest
        # acknowledgement (monotonic time of the PUBACK, message), and those to send again after
        # the reconnection in progress (by seq).
        self._acked: deque[tuple[float, Outgoing]] = deque()
        self._replay: dict[int, Outgoing] = {}
        self._inbox: queue.SimpleQueue[tuple[Any, ...]] = queue.SimpleQueue()
        self._wake = threading.Event()
        self._idle = threading.Condition(self._lock)
        self._connected = False
        self._resyncing = True
        self._resync_wait: set[int] = set()
        self._resync_since = 0.0
        self._connected_at = 0.0
        self._rulings: deque[dict[str, Any]] = deque(maxlen=max(self.recent_rulings, 0))
        self._delayed: deque[_Delayed] = deque()
        self._live_hand: int | None = None
        self._last_refresh = self.clock()
        self._stopping = False
        self._worker: threading.Thread | None = None
        self._props_snapshot = _properties(self.snapshot_expiry)
        self._props_event = _properties(self.event_expiry)
        self._props_status = _properties(None)
        self._client = self._make_client()

    # -- the paho client ------------------------------------------------------------------------
    def _make_client(self) -> mqtt.Client:
        transport: Literal["tcp", "websockets"] = "websockets" if self.transport == "websockets" else "tcp"
        client = mqtt.Client(
            CallbackAPIVersion.VERSION2,
            client_id=self.client_id or "",
            protocol=mqtt.MQTTv5,
            transport=transport,
        )
        if self.username is not None:
            client.username_pw_set(self.username, self.password)
        if self.tls:
            client.tls_set()
        client.reconnect_delay_set(1, 10)
        client.on_socket_open = self._on_socket_open
        client.on_pre_connect = self._on_pre_connect
        client.on_connect = self._on_connect
        client.on_disconnect = self._on_disconnect
        client.on_publish = self._on_publish
        client.on_message = self._on_message
        client.enable_logger(log)
        self._set_will(client)
        return client

    def _status_payload(self, state: str, reason: str, seq: int, now: float) -> bytes:
        return _dumps(
            {
                **self._envelope("status", seq, now),
                "state": state,
                "reason": reason,
                "since": self._connected_at or now,
            }
        )

    def _set_will(self, client: mqtt.Client) -> None:
        now = self.clock()
        payload = self._status_payload("offline", "connection lost", self._next_seq(), now)
        client.will_set(self.topics.status, payload, qos=1, retain=True, properties=self._will_properties())

    def _will_properties(self) -> Properties:
        props = _new_properties(PacketTypes.WILLMESSAGE)
        props.ContentType = CONTENT_TYPE
        props.PayloadFormatIndicator = 1
        return props

    # Callbacks run in paho's network thread. They never take self._lock (on_publish is called
    # while paho holds its own message lock, and the caller's thread holds self._lock while it
    # calls paho's publish): they leave a note in the inbox and wake the worker.

    def _on_socket_open(self, client: mqtt.Client, userdata: Any, sock: Any) -> None:
        # Without TCP_NODELAY a small QoS 1 publish waits for the previous segment's ACK
        # (Nagle against delayed ACKs): a 40 ms tail on the round trip.
        raw = sock if isinstance(sock, socket.socket) else getattr(sock, "_socket", None)
        if isinstance(raw, socket.socket) and raw.family in (socket.AF_INET, socket.AF_INET6):
            raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def _on_pre_connect(self, client: mqtt.Client, userdata: Any) -> None:
        self._set_will(client)  # the will carries the seq and time of this connection

    def _on_connect(
        self,
        client: mqtt.Client,
        userdata: Any,
        flags: mqtt.ConnectFlags,
        reason: ReasonCode,
        properties: Properties | None,
    ) -> None:
        if reason.is_failure:
            log.error(
                "MQTT broker %s:%s refused the table (%s): check the username and password in the "
                "table's config against deploy/mosquitto/mkusers' credentials file",
                self.host,
                self.port,
                reason,
            )
            return
        # Until the worker has republished, the caller's thread must not publish directly.
        self._resyncing = True
        self._connected = True
        # Commands: never the retained ones (a retained command would be applied again at every
        # reconnection), and with the retain flag as published, so that one is refused.
        options = SubscribeOptions(
            qos=1, retainAsPublished=True, retainHandling=SubscribeOptions.RETAIN_DO_NOT_SEND
        )
        client.subscribe([(self.topics.cmd, options), (self.topics.bridge, SubscribeOptions(qos=1))])
        self._inbox.put(("connected", bool(flags.session_present)))
        self._wake.set()

    def _on_disconnect(
        self,
        client: mqtt.Client,
        userdata: Any,
        flags: mqtt.DisconnectFlags,
        reason: ReasonCode,
        properties: Properties | None,
    ) -> None:
        self._connected = False
        self._inbox.put(("disconnected", str(reason)))
        self._wake.set()

    def _on_publish(
        self, client: mqtt.Client, userdata: Any, mid: int, reason: ReasonCode, properties: Properties
    ) -> None:
        self._inbox.put(("puback", mid, reason.is_failure, str(reason), time.monotonic()))
        self._wake.set()

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        self._inbox.put(("message", message))
        self._wake.set()

    # -- life cycle -----------------------------------------------------------------------------
    def start(self) -> TablePublisher:
        """Connect in the background (retrying until the broker answers) and start the worker."""
        if self._worker is not None:
            return self
        props = _new_properties(PacketTypes.CONNECT)
        props.SessionExpiryInterval = int(self.session_expiry)
        self._client.connect_async(
            self.host, self.port, keepalive=self.keepalive, clean_start=False, properties=props
        )
        self._client.loop_start()
        self._worker = threading.Thread(target=self._run, name=f"mqtt-{self.table}", daemon=True)
        self._worker.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        """Say offline (retained), deliver what is queued (up to ``timeout`` s) and disconnect."""
        if self._worker is None:
            return
        with self._lock:
            seq = self._next_seq()
            now = self.clock()
            out = Outgoing(
                self.topics.status,
                self._status_payload("offline", "stopped", seq, now),
                True,
                self._props_status,
                seq,
                "status",
            )
            self._queue(out, key=self.topics.status)
            self._flush_locked()
        self.wait_delivered(timeout)
        self._stopping = True
        self._wake.set()
        self._worker.join(timeout)
        self._worker = None
        self._client.disconnect()
        self._client.loop_stop()

    def __enter__(self) -> TablePublisher:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def connected(self) -> bool:
        return self._connected and not self._resyncing

    def retained(self) -> dict[str, bytes]:
        """The payload each retained topic should hold now (status aside): what a display that
        subscribes now must receive."""
        with self._lock:
            return {topic: out.payload for topic, out in self._current.items()}

    @property
    def seq(self) -> int:
        """The last seq given out."""
        return self._seq

    def wait_connected(self, timeout: float) -> bool:
        """True once connected and resynchronised (for tests, tools and the service's start)."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while not (self._connected and not self._resyncing):
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._idle.wait(left)
            return True

    def wait_delivered(self, timeout: float) -> bool:
        """True once everything queued so far has been acknowledged by the broker."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while self._pending or self._inflight or self._resyncing:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._idle.wait(left)
            return True

    # -- publishing -----------------------------------------------------------------------------
    def publish_state(self, state: TableState, effects: Iterable[Effect] = ()) -> int:
        """Queue what changed after one event: its rulings and ended hands as events or alerts,
        then each view whose content changed. Returns the number of messages queued. Never
        waits for the network."""
        return self._publish(state, tuple(effects), force=False)

    def republish(self, state: TableState) -> int:
        """Publish every snapshot of ``state`` whether it changed or not: after a restart of the
        controller (the journal is the source of truth: fold it, then republish), or by hand."""
        return self._publish(state, (), force=True)

    def _publish(self, state: TableState, effects: Sequence[Effect], force: bool) -> int:
        now = self.clock()
        pub = public(state)
        visible = visible_cards(pub)
        priv = private(state)
        hand_number = state.hand_number if state.hand_number else None
        with self._lock:
            count = 0
            for effect in effects:
                if isinstance(effect, Ruling):
                    count += self._ruling_locked(effect, visible, hand_number, now)
                elif isinstance(effect, HandEnded):
                    body = {
                        "hand": effect.hand,
                        "stacks": {str(seat): chips for seat, chips in sorted(effect.stacks.items())},
                        "voided": effect.voided,
                        "misdeal": effect.misdeal,
                    }
                    self._event_locked(self.topics.events, "event", "hand_ended", body, hand_number, now)
                    count += 1
            # The rulings of this hand (and, between hands, of the hand just played), with their
            # texts hidden against the cards face up now: a card shown in an earlier hand may be
            # someone's hole card in this one.
            rulings = [
                {**r, "text": redact(r["text"], visible)} for r in self._rulings if r["hand"] == hand_number
            ]
            # Every view is computed before the first is handed to paho (whose network thread
            # would otherwise compete for the interpreter while they are); public goes first.
            dealer_view = dealer(state, rulings, base=pub)
            floor_view = floor(state, rulings, base=dealer_view)
            for name, view in (
                ("public", pub),
                ("dealer", _redact_view(dealer_view, visible)),
                ("floor", _redact_view(floor_view, visible)),
            ):
                count += self._snapshot_locked(self.topics.view(name), "snapshot", view, now, force, name)
            count += self._snapshot_locked(self.topics.private_hole, "hole", priv, now, force)
            self._live_hand = state.hand_number if state.hand is not None else None
            if self._connected and not self._resyncing:
                self._flush_locked()
            return count

    def _next_seq(self) -> int:
        with self._seq_lock:
            self._seq += 1
            return self._seq

    def _envelope(self, kind: str, seq: int, now: float) -> dict[str, Any]:
        return {
            "schema": SCHEMA_VERSION,
            "type": kind,
            "room": self.room,
            "table": self.table,
            "epoch": self.epoch,
            "seq": seq,
            "ts": round(now, 6),
        }

    def _ruling_locked(self, ruling: Ruling, visible: frozenset[str], hand: int | None, now: float) -> int:
        alert = ruling.severity in ALERT_SEVERITIES
        body = {
            "rule": ruling.rule,
            "text": redact(ruling.text, visible),
            "severity": ruling.severity.value,
            "needs_confirm": ruling.needs_confirm,
        }
        topic = self.topics.alerts if alert else self.topics.events
        seq = self._event_locked(topic, "alert" if alert else "event", "ruling", body, hand, now)
        if self._rulings.maxlen:
            self._rulings.append({"seq": seq, "ts": round(now, 6), "hand": hand, **body, "text": ruling.text})
        return 1

    def _event_locked(
        self, topic: str, kind: str, what: str, body: dict[str, Any], hand: int | None, now: float
    ) -> int:
        seq = self._next_seq()
        payload = {
            **self._envelope(kind, seq, now),
            "prev": self._prev.get(topic, 0),
            "hand": hand,
            "kind": what,
            what: body,
        }
        self._prev[topic] = seq
        out = Outgoing(topic, _dumps(payload), False, self._props_event, seq, kind)
        self._queue(out, key=("event", seq))
        return seq

    def _snapshot_locked(
        self,
        topic: str,
        kind: str,
        view: dict[str, Any],
        now: float,
        force: bool,
        name: str | None = None,
    ) -> int:
        if not force and self._last_views.get(topic) == view:
            return 0
        self._last_views[topic] = view
        seq = self._next_seq()
        payload = self._envelope(kind, seq, now)
        if name is not None:
            payload["view"] = name
        payload["state"] = view
        out = Outgoing(topic, _dumps(payload), True, self._props_snapshot, seq, kind)
        self._current[topic] = out
        self._queue(out, key=topic)
        if kind == "hole":
            self._delay_for_broadcast(view, seq, now)
        return 1

    def _delay_for_broadcast(self, view: dict[str, Any], seq: int, now: float) -> None:
        state = {"hand": view.get("hand"), "hole": view.get("hole", {}), "folded": view.get("folded", [])}
        self._delayed.append(_Delayed(now + self.broadcast_delay, view.get("hand"), state, seq, now))

    def _queue(self, out: Outgoing, key: Any) -> None:
        """Queue a message; a retained topic keeps only its newest message (moved to the end)."""
        if isinstance(key, str):
            if self._pending.pop(key, None) is not None:
                self.stats.coalesced += 1
        else:
            self._pending_events += 1
            if self._pending_events > self.max_pending_events:
                for old_key in list(self._pending):
                    if not isinstance(old_key, str):
                        self._pending.pop(old_key)
                        self._pending_events -= 1
                        self.stats.dropped_events += 1
                        break
        self._pending[key] = out

    def _flush_locked(self) -> None:
        client = self._client
        while self._pending:
            key, out = self._pending.popitem(last=False)
            if not isinstance(key, str):
                self._pending_events -= 1
            info = client.publish(out.topic, out.payload, qos=1, retain=out.retain, properties=out.properties)
            # MQTT_ERR_NO_CONN: paho keeps a QoS 1 message and sends it after reconnecting.
            self._inflight[info.mid] = out
            self.stats.published += 1

    # -- timed work: the broadcast feed and refreshing snapshots before they expire --------------
    def tick(self, now: float | None = None) -> int:
        """Release the broadcast copies that are due, and refresh snapshots at half their expiry.
        Called every ``tick_interval`` s by the worker, or by the owner when that is None.
        Returns the number of messages queued."""
        now = self.clock() if now is None else now
        with self._lock:
            count = self._release_broadcast_locked(now)
            if self.snapshot_expiry and now - self._last_refresh >= self.snapshot_expiry / 2:
                self._last_refresh = now
                count += self._requeue_retained_locked()
            if count and self._connected and not self._resyncing:
                self._flush_locked()
            return count

    def _release_broadcast_locked(self, now: float) -> int:
        count = 0
        while self._delayed and self._delayed[0].due <= now:
            entry = self._delayed[0]
            if self.hold_live_hand and entry.hand is not None and entry.hand == self._live_hand:
                break  # that hand is still being played: its cards wait for its end
            self._delayed.popleft()
            seq = self._next_seq()
            payload = {
                **self._envelope("broadcast_hole", seq, now),
                "delay_s": self.broadcast_delay,
                "of_seq": entry.of_seq,
                "of_ts": round(entry.of_ts, 6),
                "state": entry.state,
            }
            out = Outgoing(
                self.topics.broadcast_hole, _dumps(payload), True, self._props_snapshot, seq, "broadcast_hole"
            )
            self._current[out.topic] = out
            # Not coalesced: the broadcast replays the hand card by card.
            self._queue(out, key=("broadcast", seq))
            count += 1
        return count

    # -- the worker -------------------------------------------------------------------------------
    def _run(self) -> None:
        while not self._stopping:
            self._wake.wait(self.tick_interval if self.tick_interval else 1.0)
            self._wake.clear()
            try:
                commands = self._service()
                for message in commands:
                    self._command(message)
                if self.tick_interval:
                    self.tick()
            except Exception:  # noqa: BLE001 - the worker must outlive a bug in one message
                log.exception("MQTT worker: unexpected error (the publisher goes on)")

    def _service(self) -> list[mqtt.MQTTMessage]:
        """Act on what paho reported. Returns the command messages to handle (outside the lock)."""
        commands: list[mqtt.MQTTMessage] = []
        with self._lock:
            while True:
                try:
                    note = self._inbox.get_nowait()
                except queue.Empty:
                    break
                kind = note[0]
                if kind == "puback":
                    _, mid, failed, reason, acked_at = note
                    out = self._inflight.pop(mid, None)
                    self._resync_wait.discard(mid)
                    self.stats.acknowledged += 1
                    if out is not None and not failed and out.kind in SEQUENCED_KINDS:
                        self._remember_acked_locked(out, acked_at)
                    if failed and out is not None:
                        self.stats.refused += 1
                        self.stats.last_refusal = f"{out.topic}: {reason}"
                        log.error(
                            "MQTT broker refused %s (%s): the broker's ACL does not let user %r write "
                            "it; regenerate the ACL with deploy/mosquitto/mkusers",
                            out.topic,
                            reason,
                            self.username,
                        )
                elif kind == "connected":
                    self.stats.connects += 1
                    self._connected_at = self.clock()
                    # paho resends what was in flight after on_connect: wait for those
                    # acknowledgements, so that no old snapshot lands after the current one.
                    self._resync_wait = set(self._inflight)
                    self._resync_since = time.monotonic()
                    # An acknowledgement is not durability: a broker killed and restarted from its
                    # last save has lost what it acknowledged since (and a display's queue with
                    # it). Send those again after the resends; displays drop repeats by seq.
                    for _, out in self._acked:
                        self._replay[out.seq] = out
                    self._acked.clear()
                elif kind == "disconnected":
                    self.stats.disconnects += 1
                    log.warning("MQTT connection to %s:%s lost (%s); retrying", self.host, self.port, note[1])
                elif kind == "message":
                    message = note[1]
                    if message.topic == self.topics.bridge:
                        if message.payload == b"1" and self._connected and not self._resyncing:
                            self._requeue_retained_locked()  # the central broker is back: make it current
                    else:
                        commands.append(message)
            if self._resyncing and self._connected:
                waited = time.monotonic() - self._resync_since
                if not self._resync_wait or waited > self.resync_timeout:
                    self._resync_locked()
            if self._connected and not self._resyncing and self._pending:
                self._flush_locked()
            if not self._pending and not self._inflight:
                self._idle.notify_all()
        return commands

    def _resync_locked(self) -> None:
        """After a (re)connection: status online, then every retained message as it stands now."""
        seq = self._next_seq()
        now = self.clock()
        status = Outgoing(
            self.topics.status,
            self._status_payload("online", "connected", seq, now),
            True,
            self._props_status,
            seq,
            "status",
        )
        self._pending.pop(self.topics.status, None)
        # The messages to send again go first, oldest first, then what was queued while away.
        for old_seq in sorted(self._replay, reverse=True):
            key = ("replay", old_seq)
            self._pending[key] = self._replay[old_seq]
            self._pending.move_to_end(key, last=False)
            self._pending_events += 1
            self.stats.replayed += 1
        self._replay.clear()
        self._pending[self.topics.status] = status
        self._pending.move_to_end(self.topics.status, last=False)
        self._requeue_retained_locked()
        self._resync_wait = set()
        self._resyncing = False
        self._flush_locked()
        self._idle.notify_all()

    def _remember_acked_locked(self, out: Outgoing, acked_at: float) -> None:
        if self.replay_window <= 0:
            return
        self._acked.append((acked_at, out))
        while self._acked and self._acked[0][0] < acked_at - self.replay_window:
            self._acked.popleft()

    def _requeue_retained_locked(self) -> int:
        """Queue every retained message as it stands (same payload, same seq) unless it is queued."""
        queued = {out.seq for out in self._pending.values()}
        count = 0
        for topic, out in self._current.items():
            if out.seq not in queued:
                self._pending.pop(topic, None)
                self._pending[topic] = out
                count += 1
        return count

    # -- commands ---------------------------------------------------------------------------------
    def _command(self, message: mqtt.MQTTMessage) -> None:
        props = getattr(message, "properties", None)
        correlation = getattr(props, "CorrelationData", None) if props is not None else None
        key = correlation.hex() if isinstance(correlation, (bytes, bytearray)) and correlation else None
        command: FloorCommand | None = None
        try:
            command = self._parse_command(message)
            if self.on_command is None:
                raise PublisherError("this table takes no commands (no handler is set)")
            self.on_command(command, key)
        except (ValueError, TypeError) as exc:
            self.stats.commands_rejected += 1
            self._command_result(message.topic, command, False, str(exc), correlation)
            return
        except Exception as exc:  # noqa: BLE001 - a bug in the handler is reported, not swallowed
            log.exception("command handler failed on %s", message.topic)
            self.stats.commands_rejected += 1
            self._command_result(message.topic, command, False, f"internal error: {exc!r}", correlation)
            return
        self.stats.commands += 1
        self._command_result(message.topic, command, True, None, correlation)

    def _parse_command(self, message: mqtt.MQTTMessage) -> FloorCommand:
        if message.topic != self.topics.cmd_floor:
            raise PublisherError(
                f"unknown command topic {message.topic}: floor commands go to {self.topics.cmd_floor}"
            )
        if message.retain:
            raise PublisherError(
                "a command must not be retained (it would be applied again on every reconnection): "
                "ignored; publish it without the retain flag, and clear the retained one with an empty "
                "retained message"
            )
        try:
            data = json.loads(message.payload.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise PublisherError(
                f"a command is a JSON object (tablectl.core.events.to_json): {exc}"
            ) from None
        try:
            event = from_json(data)
        except EventError as exc:
            raise PublisherError(f"not a floor command: {exc}") from None
        if not isinstance(event, FloorCommand):
            raise PublisherError(
                f"only floor commands (type 'floor') are taken on {self.topics.cmd_floor}, "
                f"not {data.get('type')!r} events"
            )
        now = self.clock()
        if not event.at:
            event = replace(event, at=now)
        elif self.command_max_age and now - event.at > self.command_max_age:
            raise PublisherError(
                f"command {event.kind.value} from {event.by} is {now - event.at:.0f} s old (its 'at'); "
                f"commands older than {self.command_max_age:.0f} s are not applied: send it again"
            )
        return event

    def _command_result(
        self,
        topic: str,
        command: FloorCommand | None,
        ok: bool,
        error: str | None,
        correlation: Any,
    ) -> None:
        now = self.clock()
        with self._lock:
            seq = self._next_seq()
            payload = {
                **self._envelope("cmd_result", seq, now),
                "ok": ok,
                "topic": topic,
                "command": command.kind.value if command is not None else None,
                "by": command.by if command is not None else None,
                "error": error,
                "correlation": correlation.hex() if isinstance(correlation, (bytes, bytearray)) else None,
            }
            props = self._props_event
            if isinstance(correlation, (bytes, bytearray)):
                props = _properties(self.event_expiry)
                props.CorrelationData = bytes(correlation)
            out = Outgoing(self.topics.cmd_result, _dumps(payload), False, props, seq, "cmd_result")
            self._queue(out, key=("cmd_result", seq))
            if self._connected and not self._resyncing:
                self._flush_locked()
        if not ok:
            log.warning("command on %s rejected: %s", topic, error)


# -- for displays: ordering, duplicates and gaps --------------------------------------------------


@dataclass
class Follower:
    """What a display does with the table's messages: drop repeats, notice gaps.

    ``accept(topic, payload)`` answers ``"new"`` (show it), ``"repeat"`` (seen: QoS 1 may deliver
    twice, and the table republishes its snapshots on reconnection), ``"stale"`` (an older
    snapshot than the one shown) or ``"gap"`` (an event or alert after a missed one: show it,
    and re-read the retained snapshot, whose recent rulings list the missed ones). A new epoch
    (the table restarted) starts afresh.
    """

    epoch: str | None = None
    last: dict[str, int] = field(default_factory=dict)
    seen_events: set[int] = field(default_factory=set)

    def accept(self, topic: str, payload: Mapping[str, Any]) -> str:
        epoch = payload.get("epoch")
        seq = int(payload.get("seq", 0))
        if epoch != self.epoch:
            self.epoch = epoch if isinstance(epoch, str) else None
            self.last.clear()
            self.seen_events.clear()
        kind = payload.get("type")
        if kind in ("event", "alert"):
            if seq in self.seen_events:
                return "repeat"
            self.seen_events.add(seq)
            expected = self.last.get(topic)
            self.last[topic] = max(seq, expected or 0)
            prev = int(payload.get("prev", 0))
            if expected is not None and prev > expected:
                return "gap"
            return "new"
        last = self.last.get(topic)
        if last is not None and seq < last:
            return "stale"
        if last is not None and seq == last:
            return "repeat"
        self.last[topic] = seq
        return "new"

    def rulings_missed(self, snapshot: Mapping[str, Any]) -> list[dict[str, Any]]:
        """The rulings of a dealer or floor snapshot that this display has not shown yet."""
        state = snapshot.get("state") or {}
        missed = []
        for ruling in state.get("rulings") or ():
            seq = ruling.get("seq")
            if isinstance(seq, int) and seq not in self.seen_events:
                self.seen_events.add(seq)
                missed.append(dict(ruling))
        return missed
