"""Floor commands off the broker, pure: what is taken, what is refused and why, and the answer
on ``cmd_result`` (docs/mqtt.md, commands). No broker, no clock: the time is an argument."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from jsonschema import ValidationError

from tablectl.adapters.mqtt.commands import (
    MAX_CLOCK_SKEW,
    CommandRefused,
    command_key,
    command_result,
    parse_floor_command,
)
from tablectl.adapters.mqtt.topics import Topics
from tablectl.core.events import (
    MAX_BLINDS,
    MAX_CHIPS,
    MAX_SEAT,
    REASON_LIMIT,
    TEXT_LIMITS,
    DeviceStatus,
    Event,
    FloorCommand,
    FloorKind,
    to_json,
)
from tests.helpers.brokers import schemas
from tests.helpers.paths import ROOT

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


def test_the_idempotency_key_is_the_same_for_every_copy_and_none_without_at_or_correlation() -> None:
    timed = b'{"type": "floor", "kind": "void_hand", "by": "Ann", "at": 1700000000.5}'
    untimed = b'{"type": "floor", "kind": "void_hand", "by": "Ann"}'
    key = command_key(timed, b"\x00\x10")
    assert key is not None and key == command_key(timed, b"\x00\x10")  # a copy the broker resends
    assert command_key(timed, b"\x00\x11") != key  # reused words, other correlation: another command
    assert command_key(untimed, b"\x00\x10") != command_key(timed, b"\x00\x10")
    assert command_key(timed, None) is not None  # its time tells it apart
    assert command_key(untimed, None) is None and command_key(untimed, b"") is None  # nothing does


# -- every field checked at the boundary (issue 10, point 3) ------------------------------------

BAD: list[tuple[dict[str, object], str]] = [
    ({"kind": "void_hand", "by": "Ann", "at": "nan"}, "floor.at"),
    ({"kind": "void_hand", "by": "Ann", "at": "inf"}, "floor.at"),
    ({"kind": "void_hand", "by": "Ann", "at": True}, "floor.at"),
    ({"kind": "void_hand", "by": "Ann", "at": -5}, "floor.at"),
    ({"kind": "void_hand", "by": {"name": "Ann"}}, "by is a text, not dict"),
    ({"kind": "void_hand", "by": "   "}, "names the supervisor"),
    ({"kind": "void_hand", "by": "A" * 41}, "by is 41 characters long: at most 40"),
    ({"kind": "seat_player", "by": "Ann", "seat": 2, "name": {"x": 1}, "amount": 500}, "name is a text"),
    ({"kind": "seat_player", "by": "Ann", "seat": 2, "name": "N" * 41, "amount": 500}, "at most 40"),
    ({"kind": "override", "by": "Ann", "ruling": "R" * 17, "decision": "accept"}, "ruling is 17"),
    ({"kind": "override", "by": "Ann", "ruling": "MD-a", "decision": "d" * 41}, "decision is 41"),
    ({"kind": "set_blinds", "by": "Ann", "blinds": [True, True]}, "floor.blinds"),
    ({"kind": "set_blinds", "by": "Ann", "blinds": [100.7, 200.2]}, "floor.blinds"),
    ({"kind": "set_blinds", "by": "Ann", "blinds": ["100", "200"]}, "floor.blinds"),
    ({"kind": "set_blinds", "by": "Ann", "blinds": [0, 100]}, "blinds are whole numbers of chips from 1"),
    ({"kind": "set_blinds", "by": "Ann", "blinds": [25, 50, 100, 200]}, "at most 3"),
    ({"kind": "set_blinds", "by": "Ann", "blinds": [100, 200], "ante": -1}, "ante is a whole number"),
    ({"kind": "set_blinds", "by": "Ann", "blinds": [100, 200], "ante": 2.5}, "floor.ante"),
    (
        {"kind": "add_chips", "by": "Ann", "seat": 2, "amount": 10**23},
        "out of bounds: 0 to 1,000,000,000,000",
    ),
    ({"kind": "add_chips", "by": "Ann", "seat": 2, "amount": 5.5}, "floor.amount"),
    ({"kind": "add_chips", "by": "Ann", "seat": 2, "amount": -1}, "out of bounds"),
    ({"kind": "sit_out", "by": "Ann", "seat": 0}, "no seat 0"),
    ({"kind": "sit_out", "by": "Ann", "seat": 11}, "no seat 11"),
    ({"kind": "transfer", "by": "Ann", "seat": 1, "to_seat": True, "amount": 5}, "floor.to_seat"),
]
# What the schema cannot say, and the code refuses: the order of the blinds.
UNORDERED: list[tuple[dict[str, object], str]] = [
    ({"kind": "set_blinds", "by": "Ann", "blinds": [200, 100]}, "from the small to the big"),
]
GOOD: list[dict[str, object]] = [
    {"kind": "void_hand", "by": "Ann"},
    {"kind": "void_hand", "by": "A" * 40, "at": NOW - 5},
    {"kind": "void_hand", "by": "Ann", "at": int(NOW)},
    {"kind": "seat_player", "by": "Ann", "seat": 10, "name": "N" * 40, "amount": 10**12},
    {"kind": "set_blinds", "by": "Ann", "blinds": [100, 200], "ante": 25},
    {"kind": "set_blinds", "by": "Ann", "blinds": [100, 100, 200]},
    {"kind": "add_chips", "by": "Ann", "seat": 1, "amount": 0},
    {"kind": "override", "by": "Ann", "ruling": "BOARD-6", "decision": "make_good", "seat": 2, "amount": 50},
    {"kind": "transfer", "by": "Ann", "seat": 1, "to_seat": 2, "amount": 5},
]


def _floor(fields: dict[str, object]) -> bytes:
    return json.dumps({"type": "floor", **fields}).encode()


@pytest.mark.parametrize(("fields", "expected"), BAD + UNORDERED)
def test_every_field_is_checked_and_a_bad_one_is_refused_with_the_reason(
    fields: dict[str, object], expected: str
) -> None:
    result = _parse(_floor(fields))
    assert expected in _reason(result)
    assert isinstance(result, CommandRefused)
    record = result.event  # what the journal keeps: small whatever was sent
    assert record.source == "floor" and record.reason == result.reason and record.at == NOW
    assert record.what == fields["kind"]
    assert len(record.by) <= TEXT_LIMITS["by"]


@pytest.mark.parametrize("fields", GOOD)
def test_commands_within_every_bound_are_taken(fields: dict[str, object]) -> None:
    assert isinstance(_parse(_floor(fields)), FloorCommand)


def test_the_schema_and_the_code_agree_on_every_good_and_bad_command() -> None:
    validate = schemas()
    for fields in GOOD:
        validate("cmd-floor", json.loads(_floor(fields)))
    for fields, _ in BAD:
        with pytest.raises(ValidationError):
            validate("cmd-floor", json.loads(_floor(fields)))
    for fields, _ in UNORDERED:  # the schema says so in words only
        validate("cmd-floor", json.loads(_floor(fields)))
    schema = json.loads((ROOT / "docs" / "schemas" / "cmd-floor.json").read_text())["properties"]
    for key, limit in TEXT_LIMITS.items():
        assert schema[key]["maxLength"] == limit, key
    assert schema["amount"]["maximum"] == schema["ante"]["maximum"] == MAX_CHIPS
    assert schema["blinds"]["items"]["maximum"] == MAX_CHIPS and schema["blinds"]["maxItems"] == MAX_BLINDS
    assert schema["seat"]["maximum"] == schema["to_seat"]["maximum"] == MAX_SEAT


@pytest.mark.parametrize(
    ("at", "expected"),
    [
        (NOW * 1000, "ahead of the table's clock"),  # a dashboard's Date.now(): milliseconds
        (1e300, "ahead of the table's clock"),
        (NOW + MAX_CLOCK_SKEW + 1, "11 s ahead"),
        (NOW - MAX_AGE - 1, "121 s old"),
    ],
)
def test_a_time_is_checked_on_both_sides(at: float, expected: str) -> None:
    payload = _floor({"kind": "void_hand", "by": "Ann", "at": at})
    assert expected in _reason(_parse(payload))
    # Without a maximum age, a time from the future is still refused.
    if "ahead" in expected:
        assert expected in _reason(_parse(payload, max_age=0))


def test_a_small_clock_skew_is_taken() -> None:
    ahead = NOW + MAX_CLOCK_SKEW
    parsed = _parse(_floor({"kind": "void_hand", "by": "Ann", "at": ahead}))
    assert isinstance(parsed, FloorCommand) and parsed.at == ahead


def test_a_seat_beyond_this_table_is_refused_at_the_boundary() -> None:
    payload = _floor({"kind": "sit_out", "by": "Ann", "seat": 7})
    assert "seats are 1 to 6" in _reason(
        parse_floor_command(TOPICS, TOPICS.cmd_floor("floor.ann"), payload, False, NOW, 0, 6)
    )
    assert isinstance(
        parse_floor_command(TOPICS, TOPICS.cmd_floor("floor.ann"), payload, False, NOW, 0, 7), FloorCommand
    )


@pytest.mark.parametrize(
    "fields",
    [
        {"kind": "transfer", "by": "B" * 200_000, "seat": 1, "to_seat": 2, "amount": 5},
        {"kind": "K" * 200_000, "by": "Ann"},
        {"kind": "void_hand", "by": "Ann", "x" * 100_000: 1},
        {"kind": "seat_player", "by": "Ann", "seat": 1, "name": "N" * 250_000, "amount": 5},
        {"kind": "set_blinds", "by": "Ann", "blinds": list(range(1, 30_000))},
    ],
)
def test_a_hostile_size_is_refused_and_what_is_kept_of_it_stays_small(fields: dict[str, object]) -> None:
    result = _parse(_floor(fields))
    assert isinstance(result, CommandRefused)
    assert len(result.reason) <= REASON_LIMIT
    record = result.event
    assert len(json.dumps(to_json(record))) < 600
    body = command_result(TOPICS.cmd_floor("floor.ann"), None, False, result.reason, None)
    assert len(json.dumps(body)) < 600
