"""The dealer's commands read off cmd/dealer at the boundary: every field checked, refusals
journaled as InputRefused with source "dealer"; and their cmd_result."""

from __future__ import annotations

import json

import pytest

from tablectl.adapters.mqtt.commands import CommandRefused, command_result, parse_dealer_command
from tablectl.adapters.mqtt.topics import Topics
from tablectl.core.events import DealerAction, DealerCommand, InputRefused

TOPICS = Topics("main", "7")
NOW = 1_800_000_000.0


def parse(payload: object, topic: str = TOPICS.cmd_dealer, retained: bool = False, max_age: float = 120.0):  # type: ignore[no-untyped-def]
    raw = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    return parse_dealer_command(TOPICS, topic, raw, retained, NOW, max_age)


def test_a_good_command_carries_the_topic_user_and_a_time() -> None:
    command = parse({"type": "dealer_command", "action": "clock_in", "name": "Dana"})
    assert command == DealerCommand(DealerAction.CLOCK_IN, name="Dana", at=NOW, user="dealer.7")
    sent = parse({"type": "dealer_command", "action": "call_floor", "reason": "dispute", "at": NOW - 3})
    assert isinstance(sent, DealerCommand) and sent.at == NOW - 3 and sent.user == "dealer.7"
    assert TOPICS.cmd_dealer == "cardroom/main/table/7/cmd/dealer"


@pytest.mark.parametrize(
    ("payload", "words"),
    [
        (b"\xff", "a command is a JSON object"),
        (b"[1]", "not a dealer command"),
        ({"type": "floor", "kind": "void_hand", "by": "x"}, "only dealer commands"),
        ({"type": "dealer_command", "action": "shuffle"}, "not a dealer command"),
        ({"type": "dealer_command"}, "not a dealer command"),
        ({"type": "dealer_command", "action": "confirm", "extra": 1}, "no field 'extra'"),
        ({"type": "dealer_command", "action": "clock_in"}, "give the dealer's name"),
        ({"type": "dealer_command", "action": "clock_in", "name": ["x"]}, "name is a text"),
        ({"type": "dealer_command", "action": "call_floor", "reason": "x" * 500}, "at most 80"),
        ({"type": "dealer_command", "action": "confirm", "name": "Dana"}, "confirm takes no name"),
        ({"type": "dealer_command", "action": "confirm", "user": "dealer.8"}, "'user' is 'dealer.8'"),
        ({"type": "dealer_command", "action": "confirm", "at": "now"}, "expected a time"),
        ({"type": "dealer_command", "action": "confirm", "at": float("nan")}, "expected a time"),
        ({"type": "dealer_command", "action": "confirm", "at": NOW * 1000}, "not milliseconds"),
        ({"type": "dealer_command", "action": "confirm", "at": NOW - 121}, "121 s old"),
    ],
)
def test_bad_commands_are_refused_with_the_reason_and_journaled_small(payload: object, words: str) -> None:
    refused = parse(payload)
    assert isinstance(refused, CommandRefused), refused
    assert words in refused.reason
    record = refused.event
    assert isinstance(record, InputRefused)
    assert record.source == "dealer" and record.user == "dealer.7" and record.at == NOW
    assert len(record.reason) <= 300 and len(record.by) <= 40


def test_a_retained_command_or_another_topic_is_refused() -> None:
    ok = {"type": "dealer_command", "action": "confirm"}
    refused = parse(ok, retained=True)
    assert isinstance(refused, CommandRefused) and "must not be retained" in refused.reason
    other = parse(ok, topic=Topics("main", "8").cmd_dealer)
    assert isinstance(other, CommandRefused) and "unknown command topic" in other.reason
    assert isinstance(parse({**ok, "at": NOW - 10_000}, max_age=0), DealerCommand)  # 0: any age


def test_its_result_names_the_action_and_the_dealer() -> None:
    command = DealerCommand(DealerAction.CLOCK_OUT, name="Dana", at=NOW, user="dealer.7")
    body = command_result(TOPICS.cmd_dealer, command, True, None, b"\x01")
    assert body == {
        "ok": True,
        "topic": TOPICS.cmd_dealer,
        "command": "clock_out",
        "by": "Dana",
        "user": "dealer.7",
        "error": None,
        "correlation": "01",
    }
