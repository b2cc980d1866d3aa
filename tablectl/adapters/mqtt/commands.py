"""Floor commands from the broker, pure: reading one off ``cmd/floor/<user>`` and writing its
answer for ``cmd_result`` (docs/mqtt.md, commands). No paho and no clock: the caller passes the
message's parts and the time.

Who sent a command is the topic's last level: the broker's ACL lets each user write only its own
``cmd/floor/<user>`` (deploy/mosquitto/acl.room.in), so the user is vouched for by the login,
and only supervisors' users (``floor.<name>``) give commands."""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any

from tablectl.adapters.mqtt.topics import Topics, supervisor_name
from tablectl.core.events import EventError, FloorCommand, from_json


@dataclass(frozen=True, slots=True)
class CommandRefused:
    """A message on the command topics that is not applied; ``reason`` goes to ``cmd_result``."""

    reason: str


def parse_floor_command(
    topics: Topics, topic: str, payload: bytes, retained: bool, now: float, max_age: float
) -> FloorCommand | CommandRefused:
    """The floor command in a message received on ``topic`` at ``now``, or why it is refused.

    The command carries the topic's user (``user``). A command without ``at`` is stamped
    ``now``; one whose ``at`` is more than ``max_age`` s old was queued while the table was away
    and is refused (0: any age)."""
    user = topics.cmd_floor_user(topic)
    if user is None:
        return CommandRefused(
            f"unknown command topic {topic}: floor commands go to {topics.cmd_floor('<your user>')}, "
            f"e.g. {topics.cmd_floor('floor.ann')} for supervisor ann"
        )
    if supervisor_name(user) is None:
        return CommandRefused(
            f"user {user} gives no floor commands: only a supervisor's user floor.<name> does "
            f"(deploy/mosquitto/mkusers --floor NAME); log in as yours and send on "
            f"{topics.cmd_floor('floor.<name>')}"
        )
    if retained:
        return CommandRefused(
            "a command must not be retained (it would be applied again on every reconnection): "
            "ignored; publish it without the retain flag, and clear the retained one with an empty "
            "retained message"
        )
    try:
        data = json.loads(payload.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        return CommandRefused(f"a command is a JSON object (tablectl.core.events.to_json): {exc}")
    try:
        event = from_json(data)
    except EventError as exc:
        return CommandRefused(f"not a floor command: {exc}")
    if not isinstance(event, FloorCommand):
        return CommandRefused(
            f"only floor commands (type 'floor') are taken on {topic}, not {data.get('type')!r} events"
        )
    if event.user and event.user != user:
        return CommandRefused(
            f"'user' is {event.user!r} but the command came from {user}: the table takes the user "
            f"from the topic (the login); leave 'user' out"
        )
    event = replace(event, user=user)
    if not event.at:
        return replace(event, at=now)
    if max_age and now - event.at > max_age:
        return CommandRefused(
            f"command {event.kind.value} from {event.by} is {now - event.at:.0f} s old (its 'at'); "
            f"commands older than {max_age:.0f} s are not applied: send it again"
        )
    return event


def correlation_key(correlation: bytes | None) -> str | None:
    """The sender's MQTT 5 correlation data as the journal's idempotency key (hex), if given."""
    return correlation.hex() if correlation else None


def command_result(
    topic: str, command: FloorCommand | None, ok: bool, error: str | None, correlation: bytes | None
) -> dict[str, Any]:
    """The body of a ``cmd_result`` message (the envelope aside): what was done with a command.
    ``ok`` means handed to the controller; the rules' answer follows as events."""
    return {
        "ok": ok,
        "topic": topic,
        "command": command.kind.value if command is not None else None,
        "by": command.by if command is not None else None,
        "user": command.user if command is not None else None,
        "error": error,
        "correlation": correlation.hex() if correlation is not None else None,
    }
