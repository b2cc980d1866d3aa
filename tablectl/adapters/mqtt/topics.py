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
