"""Floor and dealer commands from the broker, pure: reading one off ``cmd/floor/<user>`` or
``cmd/dealer`` and writing its answer for ``cmd_result`` (docs/mqtt.md, commands). No paho and
no clock: the caller passes the message's parts and the time.

Who sent a command is the topic's last level: the broker's ACL lets each user write only its own
``cmd/floor/<user>`` (deploy/mosquitto/acl.room.in), so the user is vouched for by the login,
and only supervisors' users (``floor.<name>``) give commands.

Every field is checked here, at the boundary, before anything reaches the table: its type,
its bounds (tablectl.core.events.floor_command_problem: texts, chips, seats, blinds) and the
time it was sent, on both sides. A command refused is answered with the reason and journaled
as :class:`~tablectl.core.events.InputRefused` (small, whatever was sent): it changes nothing."""

from __future__ import annotations

import contextlib
import hashlib
import json
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from tablectl.adapters.mqtt.topics import Topics, supervisor_name
from tablectl.core.events import (
    MAX_SEAT,
    REASON_LIMIT,
    DealerCommand,
    EventError,
    FloorCommand,
    InputRefused,
    dealer_command_problem,
    floor_command_problem,
    from_json,
    input_refused,
    shorten,
)

# s a command's ``at`` may be ahead of the table's clock: NTP keeps a Pi and a tablet within a
# second or two; a command from further ahead is refused (a dashboard that sends Date.now(), in
# milliseconds, would otherwise have every command taken whatever its age).
MAX_CLOCK_SKEW = 10.0


@dataclass(frozen=True, slots=True)
class CommandRefused:
    """A message on the command topics that is not applied; ``reason`` goes to ``cmd_result``
    and ``event`` (the same reason, what was sent and by whom, shortened) to the journal."""

    reason: str
    event: InputRefused


def parse_floor_command(
    topics: Topics,
    topic: str,
    payload: bytes,
    retained: bool,
    now: float,
    max_age: float,
    seats: int = MAX_SEAT,
) -> FloorCommand | CommandRefused:
    """The floor command in a message received on ``topic`` at ``now``, or why it is refused.

    The command carries the topic's user (``user``). Every field is checked for its type and
    bounds at a table of ``seats`` seats. A command without ``at`` is stamped ``now``; one whose
    ``at`` is more than ``max_age`` s old was queued while the table was away and is refused (0:
    any age), and so is one from more than MAX_CLOCK_SKEW s ahead of ``now``."""
    data: object = None
    user = topics.cmd_floor_user(topic)

    def refused(reason: str) -> CommandRefused:
        fields = data if isinstance(data, dict) else {}
        reason = shorten(reason, REASON_LIMIT)
        event = input_refused("floor", fields.get("kind"), fields.get("by"), reason, now, user or "")
        return CommandRefused(reason, event)

    if user is None:
        return refused(
            f"unknown command topic {topic}: floor commands go to {topics.cmd_floor('<your user>')}, "
            f"e.g. {topics.cmd_floor('floor.ann')} for supervisor ann"
        )
    if supervisor_name(user) is None:
        return refused(
            f"user {user} gives no floor commands: only a supervisor's user floor.<name> does "
            f"(deploy/mosquitto/mkusers --floor NAME); log in as yours and send on "
            f"{topics.cmd_floor('floor.<name>')}"
        )
    data, event = _command_of(payload, retained, topic, FloorCommand, "floor", "floor")
    if isinstance(event, str):
        return refused(event)
    if event.user and event.user != user:
        return refused(
            f"'user' is {event.user!r:.40} but the command came from {user}: the table takes the user "
            f"from the topic (the login); leave 'user' out"
        )
    event = replace(event, user=user)
    problem = floor_command_problem(event, seats)
    if problem is not None:
        return refused(f"{event.kind.value}: {problem}")
    late = _time_problem(f"{event.kind.value} from {event.by}", event.at, now, max_age)
    if late is not None:
        return refused(late)
    return event if event.at else replace(event, at=now)


def parse_dealer_command(
    topics: Topics,
    topic: str,
    payload: bytes,
    retained: bool,
    now: float,
    max_age: float,
) -> DealerCommand | CommandRefused:
    """The dealer's command in a message received on ``topic`` (``cmd/dealer``) at ``now``, or
    why it is refused: the same shape and checks as :func:`parse_floor_command`.

    Only this table's dealer user writes ``cmd/dealer`` (the broker's ACL; the bridge brings in
    the central broker's copy on the same topic), so the command carries that user
    (``dealer.<table>``). Every field is checked (tablectl.core.events.dealer_command_problem);
    a command without ``at`` is stamped ``now``; one more than ``max_age`` s old (0: any age) or
    more than MAX_CLOCK_SKEW s ahead is refused. A refusal is journaled as ``InputRefused``
    with source ``dealer``."""
    data: object = None
    user = topics.dealer_user

    def refused(reason: str) -> CommandRefused:
        fields = data if isinstance(data, dict) else {}
        reason = shorten(reason, REASON_LIMIT)
        event = input_refused("dealer", fields.get("action"), fields.get("name"), reason, now, user)
        return CommandRefused(reason, event)

    if topic != topics.cmd_dealer:
        return refused(f"unknown command topic {topic}: the dealer's commands go to {topics.cmd_dealer}")
    data, event = _command_of(payload, retained, topic, DealerCommand, "dealer", "dealer_command")
    if isinstance(event, str):
        return refused(event)
    if event.user and event.user != user:
        return refused(
            f"'user' is {event.user!r:.40} but the command came on {user}'s topic: the table takes "
            f"the user from the topic; leave 'user' out"
        )
    event = replace(event, user=user)
    what = event.action.value.replace("_", " ")
    problem = dealer_command_problem(event)
    if problem is not None:
        return refused(f"{what}: {problem}")
    late = _time_problem(what, event.at, now, max_age)
    if late is not None:
        return refused(late)
    return event if event.at else replace(event, at=now)


_Command = TypeVar("_Command", FloorCommand, DealerCommand)


def _command_of(
    payload: bytes, retained: bool, topic: str, wanted: type[_Command], who: str, type_name: str
) -> tuple[object, _Command | str]:
    """The JSON a command message holds (for the journal, even when refused) and the command in
    it, or why there is none: retained, not JSON, not an event, or not a ``who`` command."""
    data: object = None
    if retained:
        with contextlib.suppress(ValueError):  # only to journal what it was and who sent it
            data = json.loads(payload)
        return data, (
            "a command must not be retained (it would be applied again on every reconnection): "
            "ignored; publish it without the retain flag, and clear the retained one with an empty "
            "retained message"
        )
    try:
        data = json.loads(payload.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        return None, f"a command is a JSON object (tablectl.core.events.to_json): {exc}"
    try:
        event = from_json(data)  # type: ignore[arg-type]  # from_json checks it is an object
    except EventError as exc:
        return data, f"not a {who} command: {exc}"
    if not isinstance(event, wanted):
        kind = data.get("type") if isinstance(data, dict) else None
        return data, f"only {who} commands (type '{type_name}') are taken on {topic}, not {kind!r:.40} events"
    return data, event


def _time_problem(what: str, at: float, now: float, max_age: float) -> str | None:
    """Why a command sent at ``at`` is not applied at ``now`` (None: it may be; 0: no time)."""
    if not at:
        return None
    if at - now > MAX_CLOCK_SKEW:
        return (
            f"command {what} is dated {at - now:.6g} s ahead of the table's clock (its 'at', "
            f"{at:.15g}): 'at' is in seconds since the epoch, not milliseconds; check the sender's clock"
        )
    if max_age and now - at > max_age:
        return (
            f"command {what} is {now - at:.0f} s old (its 'at'); commands older than {max_age:.0f} s "
            f"are not applied: send it again"
        )
    return None


# Why a command without a key is refused (command_key gives None).
NO_KEY = (
    "a command needs its time 'at' (seconds since the epoch) or MQTT 5 correlation data, "
    "so that a copy the broker resends is applied once: send it again with 'at'"
)


def command_key(payload: bytes, correlation: bytes | None) -> str | None:
    """The journal's idempotency key for a command message, the same for every copy of it.

    The broker resends a command the table did not acknowledge (the table acknowledges once it
    is journaled), byte for byte: the key is a digest of the payload and the correlation data,
    so a copy is journaled once, and a dashboard that reuses its correlation data for another
    command is not taken for a repeat. A command with neither ``at`` nor correlation data has
    nothing that tells a copy from a second command of the same words: None (it is refused,
    :data:`NO_KEY`)."""
    if not correlation:
        try:
            data = json.loads(payload.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            data = None
        if not (isinstance(data, dict) and data.get("at")):
            return None
    digest = hashlib.sha256(len(correlation or b"").to_bytes(4, "big") + (correlation or b"") + payload)
    return "cmd:" + digest.hexdigest()[:40]


def command_result(
    topic: str,
    command: FloorCommand | DealerCommand | None,
    ok: bool,
    error: str | None,
    correlation: bytes | None,
) -> dict[str, Any]:
    """The body of a ``cmd_result`` message (the envelope aside): what was done with a command
    (a dealer's: ``command`` is its action, ``by`` the name it gives). ``ok`` means journaled;
    the rules' answer follows as events."""
    what: str | None
    by: str | None
    if isinstance(command, DealerCommand):
        what, by = command.action.value, command.name
    else:
        what, by = (command.kind.value, command.by) if command is not None else (None, None)
    return {
        "ok": ok,
        "topic": topic,
        "command": what,
        "by": by,
        "user": command.user if command is not None else None,
        "error": error,
        "correlation": correlation.hex() if correlation is not None else None,
    }
