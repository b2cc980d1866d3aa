"""What the table publishes, and when: the MQTT publisher's policy as a pure state machine.

:class:`Outbox` knows nothing of paho, sockets, threads or the time of day. The caller
(:class:`~tablectl.adapters.mqtt.publisher.TablePublisher`) feeds it what happened and sends
what :meth:`Outbox.take` returns, the way :class:`firmware_bridge.protocol.ReliableEndpoint`
is driven for the shoe's serial line::

    box = Outbox(Topics("main", "7"), epoch, now=clock())
    box.record_effects(effects, hand, now)          # rulings and ended hands: events, alerts
    box.state_changed(views, hole, live_hand, now)  # the snapshots whose content changed
    box.summary_changed(summary, now)               # the floor grid's tile, at most once a second
    box.connected(at, now); box.acknowledged(id, ok, at); box.disconnected(); box.poll(at, now)
    box.tick(now)                                   # the broadcast delay, the snapshot refresh
    for out in box.take(): send(out) and remember which transport id is out.id

It owns one ``seq`` counter over everything (docs/mqtt.md, Every payload), ``prev`` per event
topic, the last content of each view (a snapshot goes out only when it changed), the newest
retained message per topic (queued once: a newer one replaces it), the cap on queued events,
the ledger of sequenced messages the broker acknowledged within ``replay_window`` (sent again
after a reconnection, oldest first: a broker killed loses what it acknowledged since its last
save), the resynchronisation after a reconnection, the broadcast copies of the hole cards with
their delay (never while that hand is played, with ``hold_live_hand``) and the refresh of the
retained snapshots at half their expiry.

Two clocks come in. ``now`` is the table's clock (the publisher's ``clock``): it stamps every
payload's ``ts`` and runs the broadcast delay and the refresh. ``at`` is a monotonic clock for
the link alone (how long a resynchronisation waits, the replay window), so that a wall clock
that steps (NTP at a Pi's boot) moves neither.

No message goes out bigger than the broker takes (``max_packet_size``, the shipped
mosquitto.conf's): mosquitto drops the connection of a client that sends one, and a table that
reconnects and sends it again is off the air for good. Such a message is not queued; the floor
gets one alert per topic until a message on it fits again, and :meth:`Outbox.notices` gives the
publisher the line to log.
"""

from __future__ import annotations

from collections import OrderedDict, deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from tablectl.adapters.mqtt.topics import CONTENT_TYPE, Topics, dumps, envelope
from tablectl.core.effects import Effect, HandEnded, Ruling, Severity
from tablectl.core.sentences import Said, render
from tablectl.views import RecentRuling, ruling_body

ALERT_SEVERITIES: Final = frozenset(severity for severity in Severity if severity.is_alert)
# Messages each of which counts (never replaced by a newer one on its topic): sent again after a
# reconnection if the broker may have lost them.
SEQUENCED_KINDS: Final = frozenset({"event", "alert", "cmd_result", "broadcast_hole"})

# A queued message's key: its topic for a retained snapshot or the status (a newer one replaces
# it), or (what, seq) for a message that counts on its own.
_Key = str | tuple[str, int]


@dataclass(frozen=True, slots=True)
class OutboxConfig:
    """The publisher's settings that the policy reads (TablePublisher documents each)."""

    snapshot_expiry: int = 3600  # s; the snapshots are refreshed at half that; 0: no expiry
    event_expiry: int = 3600  # s; 0: no expiry
    broadcast_delay: float = 1800.0
    hold_live_hand: bool = True
    recent_rulings: int = 20
    max_pending_events: int = 10_000
    resync_timeout: float = 5.0
    replay_window: float = 65.0
    max_packet_size: int = 0  # bytes: no message over it is sent (the broker's limit); 0: none
    # s: the floor grid's summary goes out at most once in this time (the newest wins), except
    # when its alerts change, which go out at once.
    summary_interval: float = 1.0


@dataclass
class PublisherStats:
    """Counters for the service's health page and for tests. The outbox counts ``coalesced``,
    ``dropped_events`` and ``replayed``; the publisher the others."""

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
    oversize: int = 0  # messages not sent: over the broker's max_packet_size


@dataclass(frozen=True, slots=True)
class Message:
    """One message as the table publishes it. The same message (same seq) may be sent more than
    once: a retained snapshot on every reconnection and refresh, a sequenced one in a replay."""

    topic: str
    payload: bytes
    retain: bool
    expiry: int | None  # s: the MQTT 5 message expiry interval; None: none
    seq: int
    kind: str  # status, snapshot, hole, broadcast_hole, event, alert, cmd_result
    correlation: bytes | None = None  # MQTT 5 correlation data (a command's result echoes it)
    qos: int = 1


def packet_size(message: Message) -> int:
    """An upper bound of the size in bytes of the MQTT 5 PUBLISH packet that carries ``message``
    as the publisher sends it (fixed header, topic, packet id, its properties, the payload)."""
    properties = 4 + 2 + 3 + len(CONTENT_TYPE) + 5  # length, format indicator, content type, expiry
    if message.correlation is not None:
        properties += 3 + len(message.correlation)
    return 5 + 2 + len(message.topic.encode()) + 2 + properties + len(message.payload)


@dataclass(frozen=True, slots=True)
class Outgoing:
    """One sending of a message; :meth:`Outbox.acknowledged` takes ``id`` back."""

    id: int
    message: Message


@dataclass(slots=True)
class _Delayed:
    due: float
    hand: int | None
    state: dict[str, Any]
    of_seq: int
    of_ts: float


class Outbox:
    """The policy of one table's publisher, for one epoch. Not thread-safe: one caller at a time.

    ``now`` is the table's clock at creation (the snapshot refresh counts from there); ``stats``
    the counters to update, shared with the publisher."""

    def __init__(
        self,
        topics: Topics,
        epoch: str,
        *,
        now: float,
        config: OutboxConfig | None = None,
        stats: PublisherStats | None = None,
    ) -> None:
        self.topics = topics
        self.epoch = epoch
        self.config = cfg = config or OutboxConfig()
        self.stats = stats if stats is not None else PublisherStats()
        self._snapshot_expiry = int(cfg.snapshot_expiry) if cfg.snapshot_expiry else None
        self._event_expiry = int(cfg.event_expiry) if cfg.event_expiry else None
        self._seq = 0
        self._prev: dict[str, int] = {}
        self._last_views: dict[str, dict[str, Any]] = {}
        self._current: dict[str, Message] = {}  # the retained message per topic, sent or not
        self._pending: OrderedDict[_Key, Message] = OrderedDict()
        self._pending_events = 0
        self._next_id = 0
        self._in_flight: dict[int, Message] = {}
        # Sequenced messages the broker acknowledged within replay_window of the newest
        # acknowledgement (link time of the acknowledgement, message), and those to send again
        # after the reconnection in progress (by seq).
        self._acked: deque[tuple[float, Message]] = deque()
        self._replay: dict[int, Message] = {}
        self._connected = False
        self._resyncing = True  # until the first connection has been resynchronised
        self._resync_wait: set[int] = set()
        self._resync_since = 0.0
        self._connected_at = 0.0
        self._rulings: deque[RecentRuling] = deque(maxlen=max(cfg.recent_rulings, 0))
        self._delayed: deque[_Delayed] = deque()
        self._live_hand: int | None = None
        self._last_refresh = now
        self._oversize: set[str] = set()  # topics whose last message was too big (alerted once)
        self._summary_at: float | None = None  # when the last summary was queued (table clock)
        self._summary_held: dict[str, Any] | None = None  # a newer summary, waiting for the interval
        self._notices: list[str] = []

    # -- queries ----------------------------------------------------------------------------------
    @property
    def seq(self) -> int:
        """The last seq given out."""
        return self._seq

    @property
    def ready(self) -> bool:
        """Connected and resynchronised: what is queued goes out at once."""
        return self._connected and not self._resyncing

    @property
    def delivered(self) -> bool:
        """Nothing queued, nothing unacknowledged, no resynchronisation to come."""
        return not self._pending and not self._in_flight and not self._resyncing

    def notices(self) -> list[str]:
        """What the publisher should log (a message too big for the broker), once each; emptied."""
        notices, self._notices = self._notices, []
        return notices

    def retained(self) -> dict[str, bytes]:
        """The payload each retained topic should hold now (status aside)."""
        return {topic: message.payload for topic, message in self._current.items()}

    def recent_rulings(self, hand: int | None) -> list[RecentRuling]:
        """The rulings recorded for ``hand`` (the dealer and floor views list them), oldest first."""
        return [r for r in self._rulings if r.hand == hand]

    # -- what happened at the table ---------------------------------------------------------------
    def restore_rulings(self, rulings: Iterable[tuple[float, int | None, Ruling]]) -> int:
        """After a restart: the rulings (time, hand, ruling) the journal says were made in the
        hand in progress, oldest first, listed again in the dealer and floor views but not
        published again as events or alerts. Each takes a seq of this epoch (below those of the
        snapshots that list it), as a display that follows the rules expects: a new epoch means
        forget and re-read, and a seq it has not seen in the list is a ruling it has not shown.
        Returns the number kept."""
        count = 0
        for ts, hand, ruling in rulings:
            if self._rulings.maxlen:
                self._rulings.append(RecentRuling(self._next_seq(), round(ts, 6), hand, ruling))
                count += 1
        return min(count, self._rulings.maxlen or 0)

    def record_effects(
        self, effects: Iterable[Effect], hand: int | None, now: float, say: Callable[[Said], str] = render
    ) -> int:
        """Queue the rulings (alerts when they need someone now) and ended hands of one step of
        ``hand``; ruling sentences are published as ``say`` writes them (the views' secrecy.speaker),
        and the rulings kept for :meth:`recent_rulings`. Returns the number of messages queued."""
        count = 0
        for effect in effects:
            if isinstance(effect, Ruling):
                alert = effect.severity.is_alert
                topic = self.topics.alerts if alert else self.topics.events
                body = ruling_body(effect, say)
                seq = self._event(topic, "alert" if alert else "event", "ruling", body, hand, now)
                if self._rulings.maxlen:
                    self._rulings.append(RecentRuling(seq, round(now, 6), hand, effect))
                count += 1
            elif isinstance(effect, HandEnded):
                ended: dict[str, Any] = {
                    "hand": effect.hand,
                    "stacks": {str(seat): chips for seat, chips in sorted(effect.stacks.items())},
                    "voided": effect.voided,
                    "misdeal": effect.misdeal,
                }
                self._event(self.topics.events, "event", "hand_ended", ended, hand, now)
                count += 1
        return count

    def state_changed(
        self,
        views: Mapping[str, dict[str, Any]],
        hole: dict[str, Any],
        live_hand: int | None,
        now: float,
        force: bool = False,
    ) -> int:
        """Queue a snapshot of each view (by name: public, dealer, floor) and of the hole cards
        (the private view) whose content changed, or of every one with ``force``. Each hole
        snapshot is copied to the broadcast feed after the delay. ``live_hand``: the hand being
        played, if any (its hole cards are held back from the broadcast). Returns the number of
        messages queued."""
        count = 0
        for name, view in views.items():
            count += self._snapshot(self.topics.view(name), "snapshot", view, now, force, name)
        count += self._snapshot(self.topics.private_hole, "hole", hole, now, force)
        self._live_hand = live_hand
        return count

    def view_changed(self, name: str, view: dict[str, Any], now: float) -> int:
        """Queue one view's snapshot if its content changed (the hands' record, which the
        publisher sends from its tick). Returns the number of messages queued."""
        return self._snapshot(self.topics.view(name), "snapshot", view, now, False, name)

    def summary_changed(self, summary: Mapping[str, Any], now: float, force: bool = False) -> int:
        """Queue the floor grid's summary (tablectl.views.summary) on ``summary``, retained: at
        most once every ``summary_interval`` s, the newest winning (a newer one waits for
        :meth:`tick`), but at once when its open alerts (count or worst) changed, or with
        ``force``. Returns the number of messages queued."""
        view = dict(summary)
        topic = self.topics.summary
        last = self._last_views.get(topic)
        if not force and last == view:
            self._summary_held = None
            return 0
        alerts_changed = last is None or (last.get("alerts"), last.get("worst")) != (
            view.get("alerts"),
            view.get("worst"),
        )
        since = None if self._summary_at is None else now - self._summary_at
        due = since is None or not 0 <= since < self.config.summary_interval  # a clock step back: due
        if not (force or alerts_changed or due):
            self._summary_held = view
            return 0
        self._summary_held = None
        self._summary_at = now
        return self._snapshot(topic, "snapshot", view, now, force, "summary")

    def command_result(self, body: Mapping[str, Any], correlation: bytes | None, now: float) -> None:
        """Queue the answer to a floor command (commands.command_result writes ``body``)."""
        seq = self._next_seq()
        payload = {**self._envelope("cmd_result", seq, now), **body}
        message = Message(
            self.topics.cmd_result, dumps(payload), False, self._event_expiry, seq, "cmd_result", correlation
        )
        if self._fits(message, None, now):
            self._queue(message, ("cmd_result", seq))

    def tick(self, now: float) -> int:
        """Release the broadcast copies that are due and a summary held back by its interval, and
        queue the retained snapshots again at half their expiry. Returns the number queued."""
        count = self._release_broadcast(now)
        held = self._summary_held
        if held is not None:
            count += self.summary_changed(held, now)
        expiry = self.config.snapshot_expiry
        if expiry and now - self._last_refresh >= expiry / 2:
            self._last_refresh = now
            count += self._requeue_retained()
        return count

    def bridge_up(self) -> int:
        """The bridge to the central broker came back: queue the retained snapshots again so
        that its copies are current. Returns the number queued."""
        return self._requeue_retained() if self.ready else 0

    # -- the link -----------------------------------------------------------------------------------
    def will(self, now: float) -> Message:
        """The last will for the connection about to be made (``offline``, ``connection lost``):
        the broker publishes it, so it is composed now and never queued."""
        seq = self._next_seq()
        return Message(
            self.topics.status,
            self._status("offline", "connection lost", seq, now),
            True,
            None,
            seq,
            "status",
        )

    def connected(self, at: float, now: float) -> None:
        """The broker accepted the connection. Nothing more goes out until :meth:`poll` finds the
        messages the transport resends on its own (those in flight) acknowledged, or
        ``resync_timeout`` over: an old snapshot resent late must not land after the current one."""
        self._connected = True
        self._resyncing = True
        self._connected_at = now
        self._resync_wait = set(self._in_flight)
        self._resync_since = at
        # An acknowledgement is not durability: a broker killed and restarted from its last save
        # has lost what it acknowledged since (and a display's queue with it). Send those again
        # after the resends; displays drop repeats by seq.
        for _, message in self._acked:
            self._replay[message.seq] = message
        self._acked.clear()

    def disconnected(self) -> None:
        """The connection is lost: queue, and coalesce, until the next one is resynchronised."""
        self._connected = False

    def acknowledged(self, id: int, ok: bool, at: float) -> Message | None:
        """The broker acknowledged sending ``id`` at ``at`` (``ok``: without an error). Returns the
        message, or None for an id not in flight."""
        message = self._in_flight.pop(id, None)
        self._resync_wait.discard(id)
        if message is not None and ok and message.kind in SEQUENCED_KINDS:
            self._remember_acked(message, at)
        return message

    def poll(self, at: float, now: float) -> None:
        """Finish the resynchronisation when its wait is over: status online, the messages to
        send again (oldest first), what was queued meanwhile, every retained message as it is."""
        if not (self._resyncing and self._connected):
            return
        if self._resync_wait and at - self._resync_since <= self.config.resync_timeout:
            return
        seq = self._next_seq()
        status = Message(
            self.topics.status, self._status("online", "connected", seq, now), True, None, seq, "status"
        )
        self._pending.pop(self.topics.status, None)
        for old_seq in sorted(self._replay, reverse=True):
            key = ("replay", old_seq)
            self._pending[key] = self._replay[old_seq]
            self._pending.move_to_end(key, last=False)
            self._pending_events += 1
            self.stats.replayed += 1
        self._replay.clear()
        self._pending[self.topics.status] = status
        self._pending.move_to_end(self.topics.status, last=False)
        self._requeue_retained()
        self._resync_wait = set()
        self._resyncing = False

    def take(self) -> list[Outgoing]:
        """What to send now, in order: everything queued once the link is ready, else nothing."""
        return self._take_all() if self.ready else []

    def stop(self, now: float) -> list[Outgoing]:
        """A clean stop: status ``offline``, ``stopped``, and everything queued, sent whatever the
        state of the link (the transport keeps QoS 1 messages for the next connection)."""
        seq = self._next_seq()
        status = Message(
            self.topics.status, self._status("offline", "stopped", seq, now), True, None, seq, "status"
        )
        self._queue(status, self.topics.status)
        return self._take_all()

    # -- inside -------------------------------------------------------------------------------------
    def _next_seq(self) -> int:
        self._seq += 1
        return self._seq

    def _envelope(self, kind: str, seq: int, now: float) -> dict[str, Any]:
        return envelope(kind, self.topics.room, self.topics.table, self.epoch, seq, now)

    def _status(self, state: str, reason: str, seq: int, now: float) -> bytes:
        return dumps(
            {
                **self._envelope("status", seq, now),
                "state": state,
                "reason": reason,
                "since": self._connected_at or now,
            }
        )

    def _event(
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
        message = Message(topic, dumps(payload), False, self._event_expiry, seq, kind)
        if self._fits(message, hand, now):
            self._prev[topic] = seq
            self._queue(message, ("event", seq))
        return seq

    def _snapshot(
        self, topic: str, kind: str, view: dict[str, Any], now: float, force: bool, name: str | None = None
    ) -> int:
        if not force and self._last_views.get(topic) == view:
            return 0
        self._last_views[topic] = view
        seq = self._next_seq()
        payload = self._envelope(kind, seq, now)
        if name is not None:
            payload["view"] = name
        payload["state"] = view
        message = Message(topic, dumps(payload), True, self._snapshot_expiry, seq, kind)
        if not self._fits(message, view.get("hand"), now):
            return 0  # the topic keeps its last snapshot that fitted
        self._current[topic] = message
        self._queue(message, topic)
        if kind == "hole":
            state = {"hand": view.get("hand"), "hole": view.get("hole", {}), "folded": view.get("folded", [])}
            self._delayed.append(
                _Delayed(now + self.config.broadcast_delay, view.get("hand"), state, seq, now)
            )
        return 1

    def _release_broadcast(self, now: float) -> int:
        count = 0
        while self._delayed and self._delayed[0].due <= now:
            entry = self._delayed[0]
            if self.config.hold_live_hand and entry.hand is not None and entry.hand == self._live_hand:
                break  # that hand is still being played: its cards wait for its end
            self._delayed.popleft()
            seq = self._next_seq()
            payload = {
                **self._envelope("broadcast_hole", seq, now),
                "delay_s": self.config.broadcast_delay,
                "of_seq": entry.of_seq,
                "of_ts": round(entry.of_ts, 6),
                "state": entry.state,
            }
            message = Message(
                self.topics.broadcast_hole, dumps(payload), True, self._snapshot_expiry, seq, "broadcast_hole"
            )
            if not self._fits(message, entry.hand, now):
                continue
            self._current[message.topic] = message
            # Not coalesced: the broadcast replays the hand card by card.
            self._queue(message, ("broadcast", seq))
            count += 1
        return count

    def _fits(self, message: Message, hand: object, now: float) -> bool:
        """Whether ``message`` is within the broker's max_packet_size. If not, it is counted, and
        the first time on its topic (until one fits again) logged and told the floor."""
        limit = self.config.max_packet_size
        size = packet_size(message)
        if not limit or size <= limit:
            self._oversize.discard(message.topic)
            return True
        self.stats.oversize += 1
        if message.topic in self._oversize or message.topic == self.topics.alerts:
            return False
        self._oversize.add(message.topic)
        what = f"{message.kind} on {message.topic} (seq {message.seq})"
        self._notices.append(
            f"{what} is {size:,} bytes, over the broker's max_packet_size of {limit:,} "
            f"(deploy/mosquitto/mosquitto.conf): not sent, so that the broker keeps the table connected. "
            f"This is a bug: keep the journal for the engineers"
        )
        text = (
            f"The table could not publish its {message.kind} ({size:,} bytes, over the broker's limit of "
            f"{limit:,}): displays may show an older one. Call the engineers."
        )
        body = {"rule": "INPUT", "text": text, "severity": "floor", "needs_confirm": False}
        self._event(self.topics.alerts, "alert", "ruling", body, hand if type(hand) is int else None, now)
        return False

    def _queue(self, message: Message, key: _Key) -> None:
        """Queue a message; a retained topic keeps only its newest message (moved to the end)."""
        if isinstance(key, str):
            if self._pending.pop(key, None) is not None:
                self.stats.coalesced += 1
        else:
            self._pending_events += 1
            if self._pending_events > self.config.max_pending_events:
                for old_key in list(self._pending):
                    if not isinstance(old_key, str):
                        self._pending.pop(old_key)
                        self._pending_events -= 1
                        self.stats.dropped_events += 1
                        break
        self._pending[key] = message

    def _requeue_retained(self) -> int:
        """Queue every retained message as it stands (same payload, same seq) unless it is queued."""
        queued = {message.seq for message in self._pending.values()}
        count = 0
        for topic, message in self._current.items():
            if message.seq not in queued:
                self._pending.pop(topic, None)
                self._pending[topic] = message
                count += 1
        return count

    def _remember_acked(self, message: Message, at: float) -> None:
        window = self.config.replay_window
        if window <= 0:
            return
        self._acked.append((at, message))
        while self._acked and self._acked[0][0] < at - window:
            self._acked.popleft()

    def _take_all(self) -> list[Outgoing]:
        sent: list[Outgoing] = []
        while self._pending:
            key, message = self._pending.popitem(last=False)
            if not isinstance(key, str):
                self._pending_events -= 1
            self._next_id += 1
            self._in_flight[self._next_id] = message
            sent.append(Outgoing(self._next_id, message))
        return sent
