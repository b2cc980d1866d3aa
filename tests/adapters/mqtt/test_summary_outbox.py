"""The floor grid's summary in the outbox: retained on .../summary, at most once a second with
the newest winning, at once when its alerts change."""

from __future__ import annotations

import json
from typing import Any

from tablectl.adapters.mqtt.outbox import Outbox
from tablectl.adapters.mqtt.topics import Topics

TOPICS = Topics("main", "7")


def ready_box() -> Outbox:
    box = Outbox(TOPICS, "e1", now=0.0)
    box.connected(0.0, 0.0)
    box.poll(0.0, 0.0)
    box.take()
    return box


def tile(hand: int, alerts: int = 0) -> dict[str, Any]:
    worst = {"severity": "floor", "rule": "CALL", "text": "Dana calls the floor"} if alerts else None
    return {"view": "summary", "hand": hand, "alerts": alerts, "worst": worst}


def sent(box: Outbox) -> list[dict[str, Any]]:
    return [json.loads(o.message.payload) for o in box.take() if o.message.topic == TOPICS.summary]


def test_the_summary_is_retained_and_coalesced_to_once_a_second() -> None:
    box = ready_box()
    assert box.summary_changed(tile(1), 10.0) == 1
    (first,) = sent(box)
    assert first["view"] == "summary" and first["state"]["hand"] == 1
    assert box.retained()[TOPICS.summary]
    # Within the second: held back, the newest winning.
    assert box.summary_changed(tile(2), 10.3) == 0
    assert box.summary_changed(tile(3), 10.6) == 0
    assert sent(box) == []
    assert box.tick(10.9) == 0  # still within the second
    assert box.tick(11.1) == 1
    (later,) = sent(box)
    assert later["state"]["hand"] == 3 and later["ts"] == 11.1
    assert box.tick(13.0) == 0  # nothing more held
    assert box.summary_changed(tile(3), 20.0) == 0  # unchanged: nothing


def test_a_change_of_alerts_goes_out_at_once() -> None:
    box = ready_box()
    box.summary_changed(tile(1), 10.0)
    sent(box)
    assert box.summary_changed(tile(1, alerts=1), 10.1) == 1
    assert [s["state"]["alerts"] for s in sent(box)] == [1]
    assert box.summary_changed(tile(1), 10.2) == 1  # answered: cleared at once too
    assert box.summary_changed(tile(2), 10.3) == 0  # the hand number alone waits
    assert box.summary_changed(tile(1), 10.4) == 0  # back to what was sent: nothing held
    assert box.tick(12.0) == 0


def test_a_clock_that_steps_back_does_not_hold_the_summary_for_ever() -> None:
    box = ready_box()
    box.summary_changed(tile(1), 1000.0)
    assert box.summary_changed(tile(2), 10.0) == 1


def test_the_summary_is_sent_again_on_reconnection() -> None:
    box = ready_box()
    box.summary_changed(tile(1), 10.0)
    sent(box)
    box.disconnected()
    box.connected(1.0, 11.0)
    box.poll(10.0, 11.0)
    assert [s["state"]["hand"] for s in sent(box)] == [1]
