"""Floor commands off the broker, pure: what is taken, what is refused and why, and the answer
on ``cmd_result`` (docs/mqtt.md, commands). No broker, no clock: the time is an argument."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from tablectl.adapters.mqtt.commands import (
    CommandRefused,
    command_result,
    correlation_key,
    parse_floor_command,
)
from tablectl.adapters.mqtt.topics import Topics
from tablectl.core.events import DeviceStatus, Event, FloorCommand, FloorKind, to_json

TOPICS = Topics("main", "7")
NOW = 1_800_000_000.0
MAX_AGE = 120.0
ANN = TOPICS.cmd_floor("floor.ann")  # supervisor ann's own command topic


def _payload(event: Event) -> bytes:
    return json.dumps(to_json(event)).encode()


def _parse(payload: bytes, topic: str = ANN, retained: bool = False, max_age: float = MAX_AGE) -> object:
    return parse_floor_command(TOPICS, topic, payload, retained, NOW, max_age)


def _reason(result: object) -> str:
    assert isinstance(result, CommandRefused), result
    return result.reason


def test_a_fresh_command_is_taken_as_sent_with_the_user_of_its_topic() -> None:
    command = FloorCommand(FloorKind.SET_BLINDS, by="Ann", blinds=(100, 200), ante=25, at=NOW - 3)
    assert _parse(_payload(command)) == replace(command, user="floor.ann")
    assert _parse(_payload(command), topic=TOPICS.cmd_floor("floor.bob")) == replace(
        command, user="floor.bob"
    )


@pytest.mark.parametrize("user", ["floor", "table.7", "dealer.7", "bridge.7", "admin", "floor.a.b"])
def test_a_command_from_a_user_who_is_no_supervisor_is_refused(user: str) -> None:
    command = FloorCommand(FloorKind.VOID_HAND, by="Ann", at=NOW)
    reason = _reason(_parse(_payload(command), topic=TOPICS.cmd_floor(user)))
    assert reason.startswith(f"user {user} gives no floor commands") and "floor.<name>" in reason


@pytest.mark.parametrize("rest", ["cmd/floor", "cmd/floor/", "cmd/floor/floor.ann/x", "cmd/dealer"])
def test_a_command_off_a_supervisors_own_topic_is_refused(rest: str) -> None:
    command = FloorCommand(FloorKind.VOID_HAND, by="Ann", at=NOW)
    reason = _reason(_parse(_payload(command), topic=TOPICS.base + rest))
    assert reason.startswith(f"unknown command topic {TOPICS.base}{rest}") and ANN in reason


def test_a_user_written_in_the_command_must_be_the_topics() -> None:
    forged = FloorCommand(FloorKind.VOID_HAND, by="Ann", at=NOW, user="floor.bob")
    assert "came from floor.ann" in _reason(_parse(_payload(forged)))
    same = FloorCommand(FloorKind.VOID_HAND, by="Ann", at=NOW, user="floor.ann")
    assert _parse(_payload(same)) == same


def test_a_command_without_at_is_stamped_with_the_time_it_arrived() -> None:
    command = FloorCommand(FloorKind.VOID_HAND, by="Ann")
    parsed = _parse(_payload(command))
    assert isinstance(parsed, FloorCommand)
    assert parsed.at == NOW and parsed.kind is FloorKind.VOID_HAND and parsed.by == "Ann"
    assert parsed.user == "floor.ann"


def test_a_command_older_than_the_maximum_age_is_refused_and_one_at_the_limit_is_not() -> None:
    old = FloorCommand(FloorKind.VOID_HAND, by="Ann", at=NOW - 121)
    reason = _reason(_parse(_payload(old)))
    assert "void_hand from Ann is 121 s old" in reason and "older than 120 s" in reason
    at_limit = FloorCommand(FloorKind.VOID_HAND, by="Ann", at=NOW - MAX_AGE)
    assert _parse(_payload(at_limit)) == replace(at_limit, user="floor.ann")


def test_a_maximum_age_of_zero_takes_a_command_of_any_age() -> None:
    ancient = FloorCommand(FloorKind.VOID_HAND, by="Ann", at=NOW - 86_400)
    assert _parse(_payload(ancient), max_age=0) == replace(ancient, user="floor.ann")


def test_a_retained_command_is_refused_even_when_fresh() -> None:
    command = FloorCommand(FloorKind.VOID_HAND, by="Ann", at=NOW)
    assert "must not be retained" in _reason(_parse(_payload(command), retained=True))


@pytest.mark.parametrize(
    ("payload", "expected"),
    [
        (b"\xff\xfe", "a command is a JSON object"),  # not UTF-8
        (b"{not json", "a command is a JSON object"),
        (b"[1, 2]", "not a floor command: an event is a JSON object"),
        (b'{"type": "floor", "kind": "void_hand"}', "not a floor command: floor"),  # no "by"
        (b'{"type": "floor", "kind": "no_such_kind", "by": "Ann"}', "not a floor command: floor.kind"),
        (b'{"type": "floor", "kind": "void_hand", "by": "Ann", "colour": 1}', "no field 'colour'"),
    ],
)
def test_a_malformed_command_is_refused_with_what_is_wrong(payload: bytes, expected: str) -> None:
    assert expected in _reason(_parse(payload))


def test_an_event_that_is_not_a_floor_command_is_refused() -> None:
    reason = _reason(_parse(_payload(DeviceStatus("shoe", ok=False, at=NOW))))
    assert reason == f"only floor commands (type 'floor') are taken on {ANN}, not 'device' events"


def test_the_result_names_the_command_and_echoes_the_correlation_in_hex() -> None:
    command = FloorCommand(FloorKind.KILL_HAND, by="Bob", seat=3, user="floor.bob")
    assert command_result(TOPICS.cmd_floor("floor.bob"), command, True, None, b"\x01\xab") == {
        "ok": True,
        "topic": TOPICS.cmd_floor("floor.bob"),
        "command": "kill_hand",
        "by": "Bob",
        "user": "floor.bob",
        "error": None,
        "correlation": "01ab",
    }
    refused = command_result(ANN, None, False, "a command is a JSON object", None)
    assert refused["command"] is None and refused["by"] is None and refused["correlation"] is None
    assert refused["user"] is None
    assert refused["ok"] is False and refused["error"] == "a command is a JSON object"


def test_the_idempotency_key_is_the_correlation_in_hex_and_none_without_one() -> None:
    assert correlation_key(b"\x00\x10") == "0010"
    assert correlation_key(b"") is None and correlation_key(None) is None
