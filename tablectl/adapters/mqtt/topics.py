"""The table's MQTT names: its topics and the envelope every payload carries (docs/mqtt.md). Pure."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

SCHEMA_VERSION: Final = 1
CONTENT_TYPE: Final = "application/json"
VIEW_NAMES: Final = ("public", "dealer", "floor")
_NAME = re.compile(r"^[A-Za-z0-9_-]{1,32}$")
# A supervisor's broker user is floor.<name> (deploy/mosquitto/mkusers --floor NAME): the only
# users that give floor commands, each on its own topic cmd/floor/floor.<name>. In mkusers'
# credentials file its role is "supervisor".
SUPERVISOR: Final = "supervisor"
SUPERVISOR_PREFIX: Final = "floor."


def supervisor_user(name: str) -> str:
    """The broker user of supervisor ``name``."""
    return SUPERVISOR_PREFIX + name


def supervisor_name(username: str) -> str | None:
    """The supervisor whose broker user ``username`` is, or None: ``floor.ann`` -> ``ann``; the
    plain ``floor`` (a read-only dashboard), a table's users and admin are no supervisors."""
    name = username.removeprefix(SUPERVISOR_PREFIX)
    return name if name != username and _NAME.match(name) else None


class PublisherError(ValueError):
    """A publisher that cannot work as configured; the message names the setting and the fix."""


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
        """What the table subscribes to: every supervisor's command topic."""
        return self.base + "cmd/floor/+"

    def cmd_floor(self, user: str) -> str:
        """Where broker user ``user`` sends floor commands: ``cmd/floor/<user>``, which the ACL
        lets only that user write (deploy/mosquitto/acl.room.in), e.g. ``cmd/floor/floor.ann``."""
        return self.base + "cmd/floor/" + user

    def cmd_floor_user(self, topic: str) -> str | None:
        """The user whose command topic ``topic`` is (its last level), or None for any other topic."""
        prefix = self.base + "cmd/floor/"
        user = topic.removeprefix(prefix)
        return user if user != topic and user and "/" not in user else None

    @property
    def cmd_dealer(self) -> str:
        """Where the dealer's screen sends the dealer's own commands: ``cmd/dealer``, which the ACL
        lets only this table's dealer user write (deploy/mosquitto/acl.table.in)."""
        return self.base + "cmd/dealer"

    @property
    def dealer_user(self) -> str:
        """The broker user of this table's dealer's screen, who alone writes :attr:`cmd_dealer`."""
        return "dealer." + self.table

    @property
    def summary(self) -> str:
        """The small retained summary the floor's grid reads (tablectl.views.summary)."""
        return self.base + "summary"

    @property
    def hands(self) -> str:
        """The record of the hand in progress and the last hands, for the floor (tablectl.views.hands)."""
        return self.base + "hands"

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
            self.summary,
            self.hands,
            self.events,
            self.alerts,
            self.private_hole,
            self.broadcast_hole,
            self.cmd_result,
        )


def envelope(kind: str, room: str, table: str, epoch: str, seq: int, now: float) -> dict[str, Any]:
    """The fields every payload starts with (docs/mqtt.md, Every payload)."""
    return {
        "schema": SCHEMA_VERSION,
        "type": kind,
        "room": room,
        "table": table,
        "epoch": epoch,
        "seq": seq,
        "ts": round(now, 6),
    }


def dumps(data: Mapping[str, Any]) -> bytes:
    """A payload as it goes on the wire: compact UTF-8 JSON."""
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode()
