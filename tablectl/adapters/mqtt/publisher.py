"""The table's MQTT client: paho, its threads and callbacks, around the pure policy.

:class:`TablePublisher` owns the paho client (MQTT 5, persistent session, the last will,
``TCP_NODELAY``) and a worker thread. Everything about what to publish and when (seq, coalescing,
the replay after a broker loss, the broadcast delay...) is :class:`~.outbox.Outbox`'s; reading a
floor command and writing its answer is :mod:`.commands`'. The publisher feeds them what paho
reports and sends what the outbox returns, mapping paho's message ids to the outbox's.

The floor's commands are read by another process (:mod:`.intake`), so that a flood cannot slow
the card path; the publisher answers them on ``cmd_result`` once the journal has them.
"""

from __future__ import annotations

import errno
import logging
import queue
import secrets
import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties
from paho.mqtt.reasoncodes import ReasonCode
from paho.mqtt.subscribeoptions import SubscribeOptions

from tablectl.adapters.mqtt.broker import shipped_max_packet_size
from tablectl.adapters.mqtt.commands import command_result
from tablectl.adapters.mqtt.intake import CommandIntake, IntakeSettings
from tablectl.adapters.mqtt.outbox import Message, Outbox, OutboxConfig, Outgoing, PublisherStats
from tablectl.adapters.mqtt.ratelimit import Limit
from tablectl.adapters.mqtt.topics import CONTENT_TYPE, PublisherError, Topics
from tablectl.core.effects import Effect, Ruling
from tablectl.core.events import DealerCommand, FloorCommand, InputRefused
from tablectl.core.table import TableState
from tablectl.views import dealer, floor, private, public, secrecy, summary
from tablectl.views.hands import HandBook, hands_view, record_hands

# The package's name, as before the split: logging configured for it keeps working.
log = logging.getLogger("tablectl.adapters.mqtt")

# handler(command, key, done): take the command (journal it) and call done() once it is
# durable, from any thread; raise (e.g. ValueError) to refuse it with the message. A command
# refused at the boundary comes as an InputRefused, to be journaled the same way.
CommandHandler = Callable[
    [FloorCommand | DealerCommand | InputRefused, str | None, Callable[[], None]], object
]

# One supervisor: seating a full table with its buy-ins is about 20 commands in a few seconds;
# after that a few a minute. One table's command topic, all its senders together (the `by` is
# whatever the sender writes, so a flood could vary it): several supervisors at once.
SENDER_LIMIT = Limit(burst=30, per_second=1.0)
TOPIC_LIMIT = Limit(burst=100, per_second=10.0)


@dataclass(frozen=True, slots=True)
class _Delivery:
    """A received message, to acknowledge on the connection it came on (and no other)."""

    mid: int
    qos: int
    link: int  # the publisher's count of connections made and lost when it arrived


# paho's own log (its packets, and its state each second while no broker answers) is for
# debugging only: everything it says is logged at DEBUG under this name. What the operator
# reads about the connection is LinkLog's.
paho_log = logging.getLogger("tablectl.adapters.mqtt.paho")


def _paho_at_debug(record: logging.LogRecord) -> bool:
    record.levelno, record.levelname = logging.DEBUG, "DEBUG"
    return paho_log.isEnabledFor(logging.DEBUG)


paho_log.addFilter(_paho_at_debug)


def connect_error(exc: BaseException, host: str) -> str:
    """Why a TCP connection to the broker failed, in the words an operator acts on."""
    if isinstance(exc, socket.gaierror):
        return f"DNS: the name {host!r} does not resolve ({exc.strerror}): check the broker's host name"
    if isinstance(exc, ConnectionRefusedError):
        return (
            "connection refused: nothing listens on that port "
            "(is mosquitto running? systemctl status mosquitto)"
        )
    if isinstance(exc, TimeoutError):
        return "no answer (timed out): the host is down, or a firewall drops the packets"
    if isinstance(exc, ssl.SSLError):
        return f"TLS failed ({exc.reason or exc}): check the broker's certificate and the table's TLS setting"
    if isinstance(exc, OSError) and exc.errno in (errno.EHOSTUNREACH, errno.ENETUNREACH, errno.EHOSTDOWN):
        return f"no route to the broker ({exc.strerror}): check the network and the broker's address"
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc) or type(exc).__name__


def refusal_reason(reason: ReasonCode, username: str | None) -> str:
    """Why the broker refused the table's CONNECT (a CONNACK with a failure reason code)."""
    name = str(reason)
    if reason.value in (0x86, 0x87, 0x8C):  # bad user name or password, not authorized, bad auth method
        return (
            f"authentication failed ({name}) for user {username!r}: check the table's MQTT user and "
            f"password file against deploy/mosquitto/mkusers' credentials"
        )
    return f"the broker refused the connection ({name})"


class LinkLog:
    """What the operator reads about the connection to the broker: why it cannot be made, once,
    and again only when the reason changes; when it is made after failures; when it is lost.
    Touched only from paho's network thread."""

    def __init__(self, where: str, who: str = "the table") -> None:
        self.where = where
        self.who = who
        self.up = False
        self.reason: str | None = None  # the failure last reported
        self.failures = 0

    def failed(self, reason: str) -> None:
        self.failures += 1
        if reason == self.reason:
            return
        self.reason = reason
        log.error("MQTT broker %s cannot be reached: %s; %s keeps retrying", self.where, reason, self.who)

    def connected(self) -> None:
        if self.failures:
            log.info("MQTT broker %s reached after %d failed attempt(s)", self.where, self.failures)
        else:
            log.info("MQTT broker %s connected", self.where)
        self.up, self.reason, self.failures = True, None, 0

    def lost(self, reason: str, stopping: bool) -> None:
        if self.up and not stopping:  # a clean stop disconnects on purpose
            log.warning("MQTT connection to %s lost (%s); retrying", self.where, reason)
        self.up = False


class RawClient(mqtt.Client):
    """paho's client, telling why a connection could not be made (its on_connect_fail says only
    that it failed)."""

    socket_error: Callable[[OSError], None] | None = None

    def _create_socket(self) -> Any:
        try:
            return super()._create_socket()
        except OSError as exc:
            if self.socket_error is not None:
                self.socket_error(exc)
            raise


def tcp_nodelay(sock: Any) -> None:
    """Without TCP_NODELAY a small QoS 1 publish waits for the previous segment's ACK (Nagle
    against delayed ACKs): a 40 ms tail on the round trip."""
    raw = sock if isinstance(sock, socket.socket) else getattr(sock, "_socket", None)
    if isinstance(raw, socket.socket) and raw.family in (socket.AF_INET, socket.AF_INET6):
        raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


def correlation_of(message: mqtt.MQTTMessage) -> bytes | None:
    """A received message's MQTT 5 correlation data, if it has any."""
    props = getattr(message, "properties", None)
    raw = getattr(props, "CorrelationData", None) if props is not None else None
    return bytes(raw) if isinstance(raw, (bytes, bytearray)) else None


def new_properties(packet_type: int) -> Properties:
    return Properties(packet_type)  # type: ignore[no-untyped-call]  # paho leaves it unannotated


def _properties(expiry: int | None) -> Properties:
    props = new_properties(PacketTypes.PUBLISH)
    props.ContentType = CONTENT_TYPE
    props.PayloadFormatIndicator = 1  # UTF-8 text
    if expiry:
        props.MessageExpiryInterval = int(expiry)
    return props


def new_epoch(now: float) -> str:
    """A run id: the start time (UTC) and a random part, e.g. ``20260129T101500Z-3fa2c1``."""
    return time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(now)) + "-" + secrets.token_hex(3)


@dataclass
class TablePublisher:
    """The table's MQTT adapter. ``start()``, then ``publish_state(state, effects)`` after every
    event the controller handled; ``republish(state)`` after a restart; ``stop()``.

    ``on_command(command, key, done)`` receives each floor command from ``cmd/floor/<user>``,
    parsed, with ``user`` the topic's (which the broker's ACL vouches for); ``key`` is the
    journal's idempotency key (the same for a copy the broker sends again). It is called from the
    publisher's worker thread: hand the command to the controller's thread and return, and call
    ``done()`` once it is journaled: only then is the message acknowledged to the broker and
    answered ``ok`` on ``cmd_result``. Raising (e.g. ``ValueError``) refuses it with the message.
    A command never done is never acknowledged: the broker sends it again when the table
    reconnects. A command refused at the boundary comes as an ``InputRefused`` (key None), to be
    journaled; once it is, it is answered ``ok: false`` with the reason and acknowledged.

    ``backlog()``, when given, is the number of events waiting for the controller: while it is
    not 0, the dealer and floor snapshots are sent at most every ``coalesce_interval`` s (the
    newest state wins; events and alerts still go out each).
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
    # Commands the broker may send before the table acknowledges them (MQTT 5 Receive Maximum):
    # the most floor commands ever waiting in the table's queue.
    command_window: int = 20
    sender_limit: Limit | None = SENDER_LIMIT  # None: no limit (tests, benchmarks)
    topic_limit: Limit | None = TOPIC_LIMIT
    backlog: Callable[[], int] | None = None
    coalesce_interval: float = 0.25
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
    # bytes: the largest MQTT packet the broker takes (mosquitto's max_packet_size; None: the
    # shipped deploy/mosquitto/mosquitto.conf's). A message over it is not sent (the outbox
    # raises an alert instead): the broker would drop the connection, and every reconnection
    # would send it again.
    max_packet_size: int | None = None
    stats: PublisherStats = field(default_factory=PublisherStats)

    def __post_init__(self) -> None:
        self.topics = Topics(self.room, self.table)
        if self.epoch is None:
            self.epoch = new_epoch(self.clock())
        if self.client_id is None:
            self.client_id = f"tablectl-{self.room}-{self.table}"
        if self.broadcast_delay < 0:
            raise PublisherError("broadcast_delay: a delay in seconds >= 0")
        config = OutboxConfig(
            snapshot_expiry=self.snapshot_expiry,
            event_expiry=self.event_expiry,
            broadcast_delay=self.broadcast_delay,
            hold_live_hand=self.hold_live_hand,
            recent_rulings=self.recent_rulings,
            max_pending_events=self.max_pending_events,
            resync_timeout=self.resync_timeout,
            replay_window=self.replay_window,
            max_packet_size=self.max_packet_size
            if self.max_packet_size is not None
            else shipped_max_packet_size(),
        )
        # The outbox is touched only under the lock, by the caller's thread, the worker and
        # on_pre_connect; paho's other callbacks only leave notes in the inbox.
        self._lock = threading.Lock()
        self._idle = threading.Condition(self._lock)
        self._outbox = Outbox(self.topics, self.epoch, now=self.clock(), config=config, stats=self.stats)
        self._ids: dict[int, int] = {}  # paho's mid -> the outbox's id of that sending
        self._inbox: queue.SimpleQueue[tuple[Any, ...]] = queue.SimpleQueue()
        self._wake = threading.Event()
        # Connections made and lost as paho reported them (its thread), and how many of those the
        # outbox has been told (the worker). Nothing goes to paho directly while they differ: from
        # the moment paho is connected again, the outbox must resynchronise first.
        self._link_changes = 0
        self._link_seen = 0
        self._stopping = False
        self._worker: threading.Thread | None = None
        self._props: dict[int | None, Properties] = {}
        # Taken around a manual acknowledgement and when the connection changes (paho's thread):
        # an acknowledgement never goes out on a connection other than the message's.
        self._ack_lock = threading.Lock()
        self._intake: CommandIntake | None = None  # the floor's commands' process, once started
        self._views_at = -1e9  # monotonic time the dealer and floor snapshots were last computed
        # The hands' record, built from every event handed to publish_state (never coalesced),
        # and the book last published on P/hands (its publishing is coalesced with the views').
        self._hands = HandBook()
        self._hands_sent: HandBook | None = None
        self._stray_logged = False
        self._link_log = LinkLog(f"{self.host}:{self.port}")
        self._client = self._make_client()

    # -- the paho client ------------------------------------------------------------------------
    def _make_client(self) -> mqtt.Client:
        transport: Literal["tcp", "websockets"] = "websockets" if self.transport == "websockets" else "tcp"
        client = RawClient(
            CallbackAPIVersion.VERSION2,
            client_id=self.client_id or "",
            protocol=mqtt.MQTTv5,
            transport=transport,
            manual_ack=True,  # a stray command is acknowledged only once answered
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
        client.socket_error = lambda exc: self._link_log.failed(connect_error(exc, self.host))
        client.enable_logger(paho_log)
        self._set_will(client)
        return client

    def _set_will(self, client: mqtt.Client) -> None:
        with self._lock:
            will = self._outbox.will(self.clock())
        props = new_properties(PacketTypes.WILLMESSAGE)
        props.ContentType = CONTENT_TYPE
        props.PayloadFormatIndicator = 1
        client.will_set(will.topic, will.payload, qos=will.qos, retain=will.retain, properties=props)

    def _properties_of(self, message: Message) -> Properties:
        if message.correlation is None:
            props = self._props.get(message.expiry)
            if props is None:
                props = self._props[message.expiry] = _properties(message.expiry)
            return props
        props = _properties(message.expiry)
        props.CorrelationData = message.correlation
        return props

    def _link_in_step(self) -> bool:
        return self._link_seen == self._link_changes

    def _flush_locked(self) -> None:
        for notice in self._outbox.notices():
            log.error("%s", notice)
        if self._link_in_step():
            self._send_locked(self._outbox.take())

    def _send_locked(self, sendings: Sequence[Outgoing]) -> None:
        client = self._client
        for out in sendings:
            message = out.message
            info = client.publish(
                message.topic,
                message.payload,
                qos=message.qos,
                retain=message.retain,
                properties=self._properties_of(message),
            )
            # MQTT_ERR_NO_CONN: paho keeps a QoS 1 message and sends it after reconnecting.
            self._ids[info.mid] = out.id
            self.stats.published += 1

    # Callbacks run in paho's network thread. Those but on_pre_connect never take self._lock
    # (on_publish is called while paho holds its own message lock, and the caller's thread holds
    # self._lock while it calls paho's publish): they leave a note in the inbox and wake the
    # worker. paho calls on_pre_connect from reconnect() holding none of its locks.

    def _on_socket_open(self, client: mqtt.Client, userdata: Any, sock: Any) -> None:
        tcp_nodelay(sock)

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
            self._link_log.failed(refusal_reason(reason, self.username))
            return
        self._link_log.connected()
        # Until the worker has told the outbox, the caller's thread must not publish directly.
        with self._ack_lock:
            self._link_changes += 1
        # The commands are the intake process's: a session kept from before it took them would
        # still hold the subscription.
        client.unsubscribe(self.topics.cmd)
        client.subscribe([(self.topics.bridge, SubscribeOptions(qos=1))])
        self._inbox.put(("connected", self._link_changes))
        self._wake.set()

    def _on_disconnect(
        self,
        client: mqtt.Client,
        userdata: Any,
        flags: mqtt.DisconnectFlags,
        reason: ReasonCode,
        properties: Properties | None,
    ) -> None:
        self._link_log.lost(str(reason), self._stopping)
        with self._ack_lock:
            self._link_changes += 1
        self._inbox.put(("disconnected", self._link_changes, str(reason)))
        self._wake.set()

    def _on_publish(
        self, client: mqtt.Client, userdata: Any, mid: int, reason: ReasonCode, properties: Properties
    ) -> None:
        self._inbox.put(("puback", mid, reason.is_failure, str(reason), time.monotonic()))
        self._wake.set()

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        delivery = _Delivery(message.mid, message.qos, self._link_changes)
        if message.topic == self.topics.bridge:
            self._ack(delivery)  # news of the bridge is taken on receipt: nothing to keep
        self._inbox.put(("message", message, delivery))
        self._wake.set()

    def _ack(self, delivery: _Delivery) -> None:
        """Acknowledge a received message to the broker, if it came on this connection: after a
        reconnection the broker sends it again (same packet id) and that copy is acknowledged."""
        if delivery.qos == 0:
            return
        with self._ack_lock:
            if delivery.link == self._link_changes:
                self._client.ack(delivery.mid, delivery.qos)

    # -- life cycle -----------------------------------------------------------------------------
    def start(self) -> TablePublisher:
        """Connect in the background (retrying until the broker answers) and start the worker."""
        if self._worker is not None:
            return self
        props = new_properties(PacketTypes.CONNECT)
        props.SessionExpiryInterval = int(self.session_expiry)
        props.ReceiveMaximum = max(1, int(self.command_window))
        self._client.connect_async(
            self.host, self.port, keepalive=self.keepalive, clean_start=False, properties=props
        )
        self._client.loop_start()
        self._worker = threading.Thread(target=self._run, name=f"mqtt-{self.table}", daemon=True)
        self._worker.start()
        if self.on_command is not None:
            self._intake = CommandIntake(
                self._intake_settings(), self.on_command, self._command_result, self._count
            ).start()
        return self

    def _intake_settings(self) -> IntakeSettings:
        def pair(limit: Limit | None) -> tuple[int, float] | None:
            return (limit.burst, limit.per_second) if limit is not None else None

        return IntakeSettings(
            room=self.room,
            table=self.table,
            host=self.host,
            port=self.port,
            username=self.username,
            password=self.password,
            client_id=f"{self.client_id}-intake",
            transport=self.transport,
            keepalive=self.keepalive,
            session_expiry=self.session_expiry,
            tls=self.tls,
            command_window=self.command_window,
            command_max_age=self.command_max_age,
            sender_limit=pair(self.sender_limit),
            topic_limit=pair(self.topic_limit),
        )

    def _count(self, taken: int, refused: int) -> None:
        with self._lock:
            self.stats.commands += taken
            self.stats.commands_rejected += refused

    def close_intake(self, timeout: float = 5.0) -> bool:
        """Stop taking commands (before a shutdown): those received so far are handed to the
        handler, later ones are left unacknowledged, for the broker to send again to the next
        run. Answers and acknowledgements still go out until :meth:`stop`. True once done."""
        return self._intake.close(timeout) if self._intake is not None else True

    def stop(self, timeout: float = 5.0) -> None:
        """Say offline (retained), deliver what is queued (up to ``timeout`` s) and disconnect."""
        if self._worker is None:
            return
        with self._lock:
            self._send_locked(self._outbox.stop(self.clock()))
        self.wait_delivered(timeout)
        if self._intake is not None:  # the answers are delivered: now their acknowledgements
            self._intake.stop(timeout)
            self._intake = None
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
        with self._lock:
            return self._link_in_step() and self._outbox.ready

    def retained(self) -> dict[str, bytes]:
        """The payload each retained topic should hold now (status aside): what a display that
        subscribes now must receive."""
        with self._lock:
            return self._outbox.retained()

    @property
    def seq(self) -> int:
        """The last seq given out."""
        return self._outbox.seq

    def wait_connected(self, timeout: float) -> bool:
        """True once connected and resynchronised, and the command intake subscribed (for tests,
        tools and the service's start)."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while not (self._link_in_step() and self._outbox.ready):
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._idle.wait(left)
        intake = self._intake
        return intake is None or intake.subscribed.wait(max(0.0, deadline - time.monotonic()))

    def wait_delivered(self, timeout: float) -> bool:
        """True once everything queued so far has been acknowledged by the broker."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while not self._outbox.delivered:
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

    def restore_rulings(self, rulings: Iterable[tuple[float, int | None, Ruling]]) -> int:
        """After a restart, before :meth:`republish`: the rulings of the hand in progress as the
        journal has them (time, hand, ruling), listed again in the dealer and floor views and
        not published again (Outbox.restore_rulings). Returns the number kept."""
        with self._lock:
            return self._outbox.restore_rulings(rulings)

    def restore_hands(self, book: HandBook) -> None:
        """After a restart, before :meth:`republish`: the record of the hand in progress and the
        last hands as the journal has them (tablectl.journal.recent.hand_book)."""
        with self._lock:
            self._hands = book
            self._hands_sent = None

    @property
    def hands(self) -> HandBook:
        """The hands' record as it stands (what P/hands shows, or will once coalescing is over)."""
        return self._hands

    def _publish(self, state: TableState, effects: Sequence[Effect], force: bool) -> int:
        now = self.clock()
        # Every event's steps go into the record, whatever is published now.
        book = self._hands = record_hands(self._hands, state, effects, now)
        if self._intake is not None:
            self._intake.set_seats(len(state.seats))  # commands are checked against the table's seats
        pub = public(state)
        priv = private(state)
        hand_number = state.hand_number if state.hand_number else None
        # Ruling sentences name only the cards face up now (the views' secrecy): a card shown in
        # an earlier hand may be someone's hole card in this one.
        say = secrecy.speaker(state)
        # Under load (events waiting for the controller) the dealer and floor snapshots, the
        # largest, wait for the last of them, or coalesce_interval at most: the newest wins.
        tick = time.monotonic()
        busy = self.backlog is not None and self.backlog() > 0
        later = busy and not force and tick - self._views_at < self.coalesce_interval
        with self._lock:
            box = self._outbox
            count = box.record_effects(effects, hand_number, now, say)
            views: dict[str, dict[str, Any]] = {"public": pub}
            if not later:
                self._views_at = tick
                # The rulings of this hand (and, between hands, of the hand just played).
                rulings = box.recent_rulings(hand_number)
                # Every view is computed before the first is handed to paho (whose network thread
                # would otherwise compete for the interpreter while they are); public goes first.
                views["dealer"] = dealer_view = dealer(state, rulings, base=pub)
                views["floor"] = floor(state, rulings, base=dealer_view, now=now)
                if force:
                    views["hands"] = hands_view(book, self.table)
                    self._hands_sent = book
            live_hand = state.hand_number if state.hand is not None else None
            count += box.state_changed(views, priv, live_hand, now, force)
            count += box.summary_changed(summary(state, say, now), now, force)
            self._flush_locked()
            return count

    # -- timed work: the broadcast feed and refreshing snapshots before they expire --------------
    def tick(self, now: float | None = None) -> int:
        """Release the broadcast copies that are due, and refresh snapshots at half their expiry.
        Called every ``tick_interval`` s by the worker, or by the owner when that is None.
        Returns the number of messages queued."""
        now = self.clock() if now is None else now
        # The hands' record (tens of KB of JSON) goes out from here, at most once a tick: made on
        # the service thread after every event it took 4x the time of all the other views.
        book = self._hands
        hands = hands_view(book, self.table) if book is not self._hands_sent else None
        with self._lock:
            count = self._outbox.tick(now)
            if hands is not None:
                self._hands_sent = book
                count += self._outbox.view_changed("hands", hands, now)
            if count:
                self._flush_locked()
            return count

    # -- the worker -------------------------------------------------------------------------------
    def _run(self) -> None:
        ticked = -1e9  # monotonic time of the last tick
        while not self._stopping:
            self._wake.wait(self.tick_interval if self.tick_interval else 1.0)
            self._wake.clear()
            try:
                for message, delivery in self._service():
                    self._stray_command(message, delivery)
                # Every tick_interval, not at every wake: paho's notes wake the worker thousands
                # of times a second under a flood, and a tick makes the hands' record (tens of KB).
                due = time.monotonic()
                if self.tick_interval and not 0 <= due - ticked < self.tick_interval:
                    ticked = due
                    self.tick()
            except Exception:  # noqa: BLE001 - the worker must outlive a bug in one message
                log.exception("MQTT worker: unexpected error (the publisher goes on)")

    def _service(self) -> list[tuple[mqtt.MQTTMessage, _Delivery]]:
        """Tell the outbox what paho reported. Returns the messages that are not the bridge's
        (to answer outside the lock)."""
        commands: list[tuple[mqtt.MQTTMessage, _Delivery]] = []
        with self._lock:
            box = self._outbox
            while True:
                try:
                    note = self._inbox.get_nowait()
                except queue.Empty:
                    break
                kind = note[0]
                if kind == "puback":
                    _, mid, failed, reason, acked_at = note
                    sent = self._ids.pop(mid, None)
                    self.stats.acknowledged += 1
                    message = box.acknowledged(sent, not failed, acked_at) if sent is not None else None
                    if failed and message is not None:
                        self.stats.refused += 1
                        self.stats.last_refusal = f"{message.topic}: {reason}"
                        log.error(
                            "MQTT broker refused %s (%s): the broker's ACL does not let user %r write "
                            "it; regenerate the ACL with deploy/mosquitto/mkusers",
                            message.topic,
                            reason,
                            self.username,
                        )
                elif kind == "connected":
                    self.stats.connects += 1
                    # paho resends what was in flight after on_connect: the outbox waits for
                    # those acknowledgements, so that no old snapshot lands after the current one.
                    box.connected(time.monotonic(), self.clock())
                    self._link_seen = note[1]
                elif kind == "disconnected":
                    self.stats.disconnects += 1
                    box.disconnected()
                    self._link_seen = note[1]
                elif kind == "message":
                    message = note[1]
                    if message.topic == self.topics.bridge:
                        if message.payload == b"1":
                            box.bridge_up()  # the central broker is back: make it current
                    else:
                        commands.append((message, note[2]))
            if self._link_in_step():
                box.poll(time.monotonic(), self.clock())
            self._flush_locked()
            self._idle.notify_all()
        return commands

    # -- commands ---------------------------------------------------------------------------------
    def _stray_command(self, message: mqtt.MQTTMessage, delivery: _Delivery) -> None:
        """A command on the publisher's own connection, from a session kept from before the
        intake process took them: not applied, and answered so that the sender sends it again."""
        if not self._stray_logged:
            self._stray_logged = True
            log.warning("a command reached the publisher's own connection (an old session): refused")
        correlation = correlation_of(message)
        reason = "this command was not applied (the table's command intake was restarting): send it again"
        self._command_result(message.topic, None, False, reason, correlation, False)
        self._ack(delivery)

    def _command_result(
        self,
        topic: str,
        command: FloorCommand | DealerCommand | None,
        ok: bool,
        error: str | None,
        correlation: bytes | None,
        quiet: bool = False,
    ) -> None:
        now = self.clock()
        with self._lock:
            self._outbox.command_result(
                command_result(topic, command, ok, error, correlation), correlation, now
            )
            self._flush_locked()
        if not ok and not quiet:
            log.warning("command on %s rejected: %s", topic, error)
