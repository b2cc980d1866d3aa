"""The floor's commands, taken in a process of their own, so that a flood cannot slow the cards.

Measured (bench/commands.py): with the command topic read by the table's own paho client, a flood
of 10,000 commands over the rate limits raised a card read's p99 from 2 ms to 16-50 ms, though
every one was refused before its payload was read: paho's Python code for each message (and the
acknowledgement) competes with the card path for the interpreter and the cores. With the same
work in this process, at a lower priority, the card p99 stays within 2x of idle.

The child (``intake.main`` in a new interpreter) logs in as the table (its own client id,
a persistent session), subscribes to ``cmd/floor/+`` and the dealer's ``cmd/dealer``, and
decides each message with :class:`CommandGate`: over the rate limits it is acknowledged at
once (the first of each second per user answered with the wait), otherwise its payload is read
and checked. What passes, and
what is refused at the boundary, goes to the table process (:class:`CommandIntake`) as one JSON
line on the child's stdout; the table journals it and then answers it on ``cmd_result`` and
tells the child to acknowledge it, as before: a command is acknowledged only once journaled, and
one never acknowledged is sent again by the broker to the next connection.

Lines, table -> child (stdin): the settings (first line, with the password: never on the command
line), then ``{"ack": id}``, ``{"seats": n}``, ``{"close": true}`` (stop handing commands on:
later ones are left for the next run), ``{"stop": true}``. Child -> table (stdout):
``{"take": id, "topic", "correlation", "event", "key"}`` (an event to journal: a FloorCommand,
or an InputRefused with its ``reason``), ``{"answer": id, "topic", "correlation", "reason"}`` (a
flood's refusal: answer, then acknowledge), ``{"dropped": n}`` (acknowledged unanswered),
``{"closed": true}``, ``{"subscribed": true}``. If the table process dies the child reads
end-of-file and exits; if the child dies the table starts another, and the broker sends it what
was not acknowledged.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import IO, Any, NamedTuple

from tablectl.adapters.mqtt.commands import (
    NO_KEY,
    CommandRefused,
    command_key,
    parse_dealer_command,
    parse_floor_command,
)
from tablectl.adapters.mqtt.ratelimit import Limit, RateLimiter, seconds_to_say
from tablectl.adapters.mqtt.topics import Topics
from tablectl.core.events import (
    MAX_SEAT,
    DealerCommand,
    FloorCommand,
    InputRefused,
    from_json,
    input_refused,
    to_json,
)

log = logging.getLogger("tablectl.adapters.mqtt")

# The child's niceness above the table's: the card path (shoe, panel, journal) gets the cores
# first; the floor's commands are taken when there is time, and wait in the broker meanwhile.
INTAKE_NICENESS = 10


# -- the decision, pure -----------------------------------------------------------------------------
class Take(NamedTuple):
    """To journal: a command (with its idempotency key), or a refusal (key None) with its reason."""

    event: FloorCommand | DealerCommand | InputRefused
    key: str | None
    reason: str | None = None


class Answer(NamedTuple):
    """Over the rate limits, the first of its second from this user: told to wait, not journaled."""

    reason: str


class Drop(NamedTuple):
    """Over the rate limits: acknowledged unanswered (answering each would let a flood cost more)."""


Decision = Take | Answer | Drop


class CommandGate:
    """What is done with each message on the command topics: the rate limits first, before the
    payload is read (the sender is the topic's user, whom the broker's ACL vouches for), then the
    checks of every field (commands.parse_floor_command). No clock and no I/O: the caller passes
    the time."""

    def __init__(
        self,
        topics: Topics,
        max_age: float,
        sender_limit: Limit | None,
        topic_limit: Limit | None,
    ) -> None:
        self.topics = topics
        self.max_age = max_age
        self.seats = MAX_SEAT  # the table's, as its process last said
        self._senders = RateLimiter(sender_limit) if sender_limit else None
        self._table_load = RateLimiter(topic_limit) if topic_limit else None
        self._told: dict[str, float] = {}  # when each topic was last told to wait
        self.limited = 0  # messages over the limits so far

    def decide(
        self, topic: str, payload: bytes, retained: bool, correlation: bytes | None, now: float
    ) -> Decision:
        busy = self._over_limit(topic, now)
        if busy is not None:
            self.limited += 1
            if now - self._told.get(topic, -1e9) >= 1.0:
                self._told[topic] = now
                if len(self._told) > 1024:  # invented topics cannot grow it
                    self._told.clear()
                return Answer(busy)
            return Drop()
        parsed: FloorCommand | DealerCommand | CommandRefused
        if topic == self.topics.cmd_dealer:
            parsed = parse_dealer_command(self.topics, topic, payload, retained, now, self.max_age)
        else:
            parsed = parse_floor_command(self.topics, topic, payload, retained, now, self.max_age, self.seats)
        if isinstance(parsed, CommandRefused):
            return Take(parsed.event, None, parsed.reason)
        key = command_key(payload, correlation)
        if key is None:
            if isinstance(parsed, DealerCommand):
                record = input_refused("dealer", parsed.action.value, parsed.name, NO_KEY, now, parsed.user)
            else:
                record = input_refused("floor", parsed.kind.value, parsed.by, NO_KEY, now, parsed.user)
            return Take(record, None, NO_KEY)
        return Take(parsed, key)

    def _over_limit(self, topic: str, now: float) -> str | None:
        """Why a command on ``topic`` must wait (None: it may go), counting it if it may. The
        table's own cap counts every user's commands together."""
        if topic == self.topics.cmd_dealer:
            user = self.topics.dealer_user
        else:
            user = self.topics.cmd_floor_user(topic) or topic
        checks = [
            (self._senders, topic, f"from {user}"),
            (self._table_load, self.topics.cmd, "at this table"),
        ]
        for limiter, key, whose in checks:
            if limiter is None:
                continue
            wait = limiter.wait(key, now)
            if wait > 0:
                return (
                    f"too many commands {whose}: the table takes {limiter.limit.describe()}; "
                    f"this one was not applied: send it again in {seconds_to_say(wait)} s"
                )
        for limiter, key, _ in checks:
            if limiter is not None:
                limiter.take(key, now)
        return None


@dataclass(frozen=True, slots=True)
class IntakeSettings:
    """What the child needs to log in and decide; sent on its stdin (it holds the password)."""

    room: str
    table: str
    host: str
    port: int
    username: str | None
    password: str | None
    client_id: str
    transport: str
    keepalive: int
    session_expiry: int
    tls: bool
    command_window: int
    command_max_age: float
    sender_limit: tuple[int, float] | None
    topic_limit: tuple[int, float] | None
    niceness: int = INTAKE_NICENESS


def _limit(pair: Any) -> Limit | None:
    return Limit(int(pair[0]), float(pair[1])) if pair else None


# -- the table's side ---------------------------------------------------------------------------------
# take(event, key, done): journal it and call done() once it is; raise ValueError to refuse it.
Handler = Callable[[FloorCommand | DealerCommand | InputRefused, "str | None", Callable[[], None]], object]
# answer(topic, command, ok, error, correlation, quiet): publish its cmd_result.
Answerer = Callable[
    [str, "FloorCommand | DealerCommand | None", bool, "str | None", "bytes | None", bool], None
]


class CommandIntake:
    """The intake child, from the table's process: starts it (again, if it dies), hands each
    command it reads to ``handler`` and, once journaled, answers it and has it acknowledged."""

    def __init__(
        self,
        settings: IntakeSettings,
        handler: Handler,
        answer: Answerer,
        counted: Callable[[int, int], None],
    ) -> None:
        self.settings = settings
        self.handler = handler
        self.answer = answer
        self.counted = counted  # (taken ok, refused) deltas, for the publisher's stats
        self._child: subprocess.Popen[bytes] | None = None
        self._write_lock = threading.Lock()
        self._stopping = False
        self._closing = False  # close() was asked: a child started after it is told at once
        self._closed = threading.Event()
        self.subscribed = threading.Event()  # the child's session holds the subscription
        self._reader: threading.Thread | None = None
        self._seats: int | None = None
        self.restarts = 0

    # -- life cycle ----------------------------------------------------------------------------
    def start(self) -> CommandIntake:
        if self._reader is None:
            self._reader = threading.Thread(
                target=self._run, name=f"intake-{self.settings.table}", daemon=True
            )
            self._spawn()
            self._reader.start()
        return self

    def _spawn(self) -> None:
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        child = subprocess.Popen(
            # Not -m: the package imports this module first, and runpy would warn of it.
            [
                sys.executable,
                "-c",
                "import sys; from tablectl.adapters.mqtt.intake import main; sys.exit(main())",
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
        )
        self._child = child
        self._send(asdict(self.settings))
        if self._seats is not None:
            self._send({"seats": self._seats})
        if self._closing:
            self._send({"close": True})

    def close(self, timeout: float = 5.0) -> bool:
        """Stop taking commands: those the child read so far are handed to the handler before
        this returns True; later ones are left unacknowledged for the next run."""
        if self._reader is None:
            return True
        self._closing = True
        self._send({"close": True})
        return self._closed.wait(timeout)

    def stop(self, timeout: float = 5.0) -> None:
        """After the last answer: the child sends the acknowledgements asked so far and leaves."""
        self._stopping = True
        child = self._child
        if child is None:
            return
        self._send({"stop": True})
        try:
            child.wait(timeout)
        except subprocess.TimeoutExpired:
            log.error("the command intake did not stop within %.0f s: killed", timeout)
            child.kill()
            child.wait()
        if self._reader is not None:
            self._reader.join(timeout)
        self._reader = None

    def set_seats(self, seats: int) -> None:
        if seats != self._seats:
            self._seats = seats
            self._send({"seats": seats})

    # -- lines -----------------------------------------------------------------------------------
    def _send(self, line: dict[str, Any]) -> None:
        child = self._child
        if child is None or child.stdin is None:
            return
        data = (json.dumps(line) + "\n").encode()
        with self._write_lock:
            try:
                child.stdin.write(data)
                child.stdin.flush()
            except (BrokenPipeError, ValueError, OSError):
                pass  # the child is gone: the reader starts another; the broker resends

    def _run(self) -> None:
        backoff = 1.0
        while True:
            child = self._child
            assert child is not None and child.stdout is not None
            started = time.monotonic()
            self._read(child, child.stdout)
            code = child.wait()
            with self._write_lock:
                for pipe in (child.stdin, child.stdout):
                    if pipe is not None:
                        pipe.close()
            if self._stopping:
                return
            log.error(
                "the command intake stopped (exit code %s); starting it again: the broker resends "
                "what was not acknowledged",
                code,
            )
            if time.monotonic() - started > 30:
                backoff = 1.0
            threading.Event().wait(backoff)  # a child that dies at once is not restarted in a loop
            backoff = min(backoff * 2, 10.0)
            if self._stopping:
                return
            self.restarts += 1
            self._spawn()

    def _read(self, child: subprocess.Popen[bytes], stdout: IO[bytes]) -> None:
        for raw in stdout:
            try:
                line = json.loads(raw)
                self._dispatch(child, line)
            except Exception:  # noqa: BLE001 - one bad line must not stop the commands
                log.exception("command intake: could not handle %r", raw[:200])

    def _dispatch(self, child: subprocess.Popen[bytes], line: dict[str, Any]) -> None:
        if "take" in line:
            self._take(child, line)
        elif "answer" in line:
            correlation = bytes.fromhex(line["correlation"]) if line.get("correlation") else None
            self.counted(0, 1)
            self.answer(line["topic"], None, False, line["reason"], correlation, True)
            self._ack(child, line["answer"])
        elif "dropped" in line:
            self.counted(0, int(line["dropped"]))
        elif "closed" in line:
            self._closed.set()
        elif "subscribed" in line:
            if not self.subscribed.is_set():
                log.info(
                    "taking floor commands on %s (intake process %d)",
                    Topics(self.settings.room, self.settings.table).cmd,
                    child.pid,
                )
            self.subscribed.set()

    def _ack(self, child: subprocess.Popen[bytes], ident: int) -> None:
        if child is self._child:  # a later child has its own ids; the broker resent the message
            self._send({"ack": ident})

    def _take(self, child: subprocess.Popen[bytes], line: dict[str, Any]) -> None:
        ident = line["take"]
        topic = line["topic"]
        correlation = bytes.fromhex(line["correlation"]) if line.get("correlation") else None
        event = from_json(line["event"])
        assert isinstance(event, (FloorCommand, DealerCommand, InputRefused))
        command = event if isinstance(event, (FloorCommand, DealerCommand)) else None

        def answered(ok: bool, error: str | None) -> None:
            self.counted(1 if ok else 0, 0 if ok else 1)
            self.answer(topic, command, ok, error, correlation, False)
            # After the answer: a crash between the two leaves the broker a copy to resend,
            # which the journal recognises and answers again, rather than silence.
            self._ack(child, ident)

        reason = line.get("reason")
        try:
            if reason is not None:  # refused at the boundary: journaled, then answered
                self.handler(event, None, lambda: answered(False, reason))
            else:
                self.handler(event, line.get("key"), lambda: answered(True, None))
        except (ValueError, TypeError) as exc:
            answered(False, str(exc))
        except Exception as exc:  # noqa: BLE001 - a bug in the handler is reported, not swallowed
            log.exception("command handler failed on %s", topic)
            answered(False, f"internal error: {exc!r}")


# -- the child ------------------------------------------------------------------------------------------
def run_child(stdin: IO[str], stdout: IO[str]) -> int:
    """The intake process: see the module's docstring."""
    import paho.mqtt.client as mqtt
    from paho.mqtt.enums import CallbackAPIVersion
    from paho.mqtt.packettypes import PacketTypes
    from paho.mqtt.subscribeoptions import SubscribeOptions

    from tablectl.adapters.mqtt.publisher import (
        LinkLog,
        RawClient,
        connect_error,
        correlation_of,
        new_properties,
        refusal_reason,
        tcp_nodelay,
    )

    first = stdin.readline()
    if not first:
        return 0
    settings = IntakeSettings(**json.loads(first))
    if settings.niceness:
        with contextlib.suppress(OSError):  # lower only; never fails as the same user
            os.nice(settings.niceness)
    topics = Topics(settings.room, settings.table)
    gate = CommandGate(
        topics, settings.command_max_age, _limit(settings.sender_limit), _limit(settings.topic_limit)
    )
    lock = threading.Lock()  # the gate, the pending table, the link count, writing stdout
    pending: dict[int, tuple[int, int, int]] = {}  # id -> (mid, qos, link)
    state = {"link": 0, "next": 0, "closed": False, "dropped": 0}
    link_log = LinkLog(f"{settings.host}:{settings.port}", "command intake")
    stopped = threading.Event()

    def write(line: dict[str, Any]) -> None:
        stdout.write(json.dumps(line) + "\n")
        stdout.flush()

    client = RawClient(
        CallbackAPIVersion.VERSION2,
        client_id=settings.client_id,
        protocol=mqtt.MQTTv5,
        transport="websockets" if settings.transport == "websockets" else "tcp",
        manual_ack=True,
    )
    if settings.username is not None:
        client.username_pw_set(settings.username, settings.password)
    if settings.tls:
        client.tls_set()
    client.reconnect_delay_set(1, 10)
    client.socket_error = lambda exc: link_log.failed(connect_error(exc, settings.host))

    def ack(mid: int, qos: int, link: int) -> None:  # under lock
        if qos and link == state["link"]:  # after a reconnection the broker resends it
            client.ack(mid, qos)

    def on_connect(c: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        if reason.is_failure:
            link_log.failed(refusal_reason(reason, settings.username))
            return
        link_log.connected()
        with lock:
            state["link"] += 1
        # Never the retained ones (a retained command would be applied again at every
        # reconnection), and with the retain flag as published, so that one is refused.
        options = SubscribeOptions(
            qos=1, retainAsPublished=True, retainHandling=SubscribeOptions.RETAIN_DO_NOT_SEND
        )
        c.subscribe([(topics.cmd, options), (topics.cmd_dealer, options)])

    def on_disconnect(c: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        link_log.lost(str(reason), stopped.is_set())
        with lock:
            state["link"] += 1

    def on_message(c: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        correlation = correlation_of(message)
        with lock:
            if state["closed"]:
                return  # not acknowledged: the broker sends it to the next run
            decision = gate.decide(
                message.topic, bytes(message.payload), bool(message.retain), correlation, time.time()
            )
            if isinstance(decision, Drop):
                state["dropped"] += 1
                ack(message.mid, message.qos, state["link"])
                return
            ident = state["next"] = state["next"] + 1
            pending[ident] = (message.mid, message.qos, state["link"])
            base = {
                "topic": message.topic,
                "correlation": correlation.hex() if correlation is not None else None,
            }
            if isinstance(decision, Answer):
                write({"answer": ident, **base, "reason": decision.reason})
            else:
                write(
                    {
                        "take": ident,
                        **base,
                        "event": to_json(decision.event),
                        "key": decision.key,
                        "reason": decision.reason,
                    }
                )

    def report_dropped() -> None:  # under lock
        if state["dropped"]:
            write({"dropped": state["dropped"]})
            state["dropped"] = 0

    def reporter() -> None:
        while not stopped.wait(0.2):
            with lock:
                report_dropped()

    def on_subscribe(c: mqtt.Client, userdata: Any, mid: int, reasons: Any, properties: Any) -> None:
        if all(not reason.is_failure for reason in reasons):
            with lock:
                write({"subscribed": True})
        else:
            log.error(
                "the broker refused the command topic %s to %s: %s", topics.cmd, settings.username, reasons
            )

    client.on_connect = on_connect
    client.on_subscribe = on_subscribe
    client.on_disconnect = on_disconnect
    client.on_message = on_message
    client.on_socket_open = lambda c, userdata, sock: tcp_nodelay(sock)
    props = new_properties(PacketTypes.CONNECT)
    props.SessionExpiryInterval = int(settings.session_expiry)
    props.ReceiveMaximum = max(1, int(settings.command_window))
    client.connect_async(
        settings.host, settings.port, keepalive=settings.keepalive, clean_start=False, properties=props
    )
    client.loop_start()
    threading.Thread(target=reporter, daemon=True).start()
    try:
        for raw in stdin:
            line = json.loads(raw)
            with lock:
                if "ack" in line:
                    delivery = pending.pop(int(line["ack"]), None)
                    if delivery is not None:
                        ack(*delivery)
                elif "seats" in line:
                    gate.seats = int(line["seats"])
                elif "close" in line:
                    state["closed"] = True
                    report_dropped()
                    write({"closed": True})
                elif "stop" in line:
                    break
    except BrokenPipeError:
        pass  # the table process is gone
    finally:
        stopped.set()
        # A clean disconnect keeps the session: what was not acknowledged is sent to the next run.
        client.disconnect()
        client.loop_stop()
    return 0


def main() -> int:
    # Ctrl-C in a terminal and systemd's stop reach the whole process group: the table's process
    # stops this one once the commands it journaled are answered (stop), or it reads end-of-file.
    for number in (signal.SIGINT, signal.SIGTERM):
        signal.signal(number, signal.SIG_IGN)
    logging.basicConfig(
        level=logging.INFO, format="tablectl intake: %(levelname)s %(message)s", stream=sys.stderr
    )
    logging.getLogger("tablectl.adapters.mqtt.paho").setLevel(logging.WARNING)
    return run_child(sys.stdin, sys.stdout)


if __name__ == "__main__":
    sys.exit(main())
