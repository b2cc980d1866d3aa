"""Floor commands from the broker, pure: reading one off ``cmd/floor`` and writing its answer
for ``cmd_result`` (docs/mqtt.md, commands). No paho and no clock: the caller passes the
message's parts and the time."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, replace
from typing import Any

from tablectl.adapters.mqtt.topics import Topics
from tablectl.core.events import EventError, FloorCommand, from_json


@dataclass(frozen=True, slots=True)
class CommandRefused:
    """A message on the command topics that is not applied; ``reason`` goes to ``cmd_result``."""

    reason: str


def parse_floor_command(
    topics: Topics, topic: str, payload: bytes, retained: bool, now: float, max_age: float
) -> FloorCommand | CommandRefused:
    """The floor command in a message received on ``topic`` at ``now``, or why it is refused.

    A command without ``at`` is stamped ``now``; one whose ``at`` is more than ``max_age`` s
    old was queued while the table was away and is refused (0: any age)."""
    if topic != topics.cmd_floor:
        return CommandRefused(f"unknown command topic {topic}: floor commands go to {topics.cmd_floor}")
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
            f"only floor commands (type 'floor') are taken on {topics.cmd_floor}, "
            f"not {data.get('type')!r} events"
        )
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


def command_key(payload: bytes, correlation: bytes | None) -> str | CommandRefused:
    """The journal's idempotency key for a command message, the same for every copy of it.

    The broker resends a command the table did not acknowledge (the table acknowledges once it
    is journaled), byte for byte: the key is a digest of the payload and the correlation data,
    so a copy is journaled once, and a dashboard that reuses its correlation data for another
    command is not taken for a repeat. A command with neither ``at`` nor correlation data has
    nothing that tells a copy from a second command of the same words: it is refused."""
    if not correlation:
        try:
            data = json.loads(payload.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            data = None
        if not (isinstance(data, dict) and data.get("at")):
            return CommandRefused(
                "a command needs its time 'at' (seconds since the epoch) or MQTT 5 correlation data, "
                "so that a copy the broker resends is applied once: send it again with 'at'"
            )
    digest = hashlib.sha256(len(correlation or b"").to_bytes(4, "big") + (correlation or b"") + payload)
    return "cmd:" + digest.hexdigest()[:40]


def command_result(
    topic: str, command: FloorCommand | None, ok: bool, error: str | None, correlation: bytes | None
) -> dict[str, Any]:
    """The body of a ``cmd_result`` message (the envelope aside): what was done with a command.
    ``ok`` means journaled; the rules' answer follows as events."""
    return {
        "ok": ok,
        "topic": topic,
        "command": command.kind.value if command is not None else None,
        "by": command.by if command is not None else None,
        "error": error,
        "correlation": correlation.hex() if correlation is not None else None,
    }
