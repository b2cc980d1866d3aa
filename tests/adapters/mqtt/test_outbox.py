"""The MQTT publisher's policy, pure: the outbox driven by a fake clock, no broker, no threads.

``now`` is the table's clock (payload ``ts``, the broadcast delay, the snapshot refresh), ``at``
the link's monotonic clock (the replay window, the resynchronisation's wait). What the outbox
returns from take() is what the publisher hands to paho; acknowledged() is paho's PUBACK.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tablectl.adapters.mqtt.outbox import Outbox, OutboxConfig, Outgoing
from tablectl.adapters.mqtt.topics import Topics
from tablectl.core.effects import HandEnded, Ruling, Severity
from tablectl.core.sentences import render

T = Topics("main", "7")
START = 1_800_000_000.0
RETAINED_VIEWS = (T.view("public"), T.view("dealer"), T.view("floor"), T.private_hole)


def make(**config: Any) -> Outbox:
    return Outbox(T, "epoch-1", now=START, config=OutboxConfig(**config))


def body(out: Outgoing) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(out.message.payload)
    return data


def topics(sent: list[Outgoing]) -> list[str]:
    return [out.message.topic for out in sent]


def seqs(sent: list[Outgoing]) -> list[int]:
    return [out.message.seq for out in sent]


def connect(box: Outbox, at: float = 0.0, now: float = START) -> list[Outgoing]:
    """A connection with nothing in flight, resynchronised at once; what goes out, which the
    broker then acknowledges at ``at``."""
    box.connected(at, now)
    box.poll(at, now)
    sent = box.take()
    ack_all(box, sent, at)
    return sent


def ack_all(box: Outbox, sent: list[Outgoing], at: float) -> None:
    for out in sent:
        box.acknowledged(out.id, True, at)


def views(n: int) -> dict[str, dict[str, Any]]:
    return {"public": {"n": n}, "dealer": {"n": n, "who": "dealer"}, "floor": {"n": n, "who": "floor"}}


def hole(hand: int, cards: str, folded: tuple[int, ...] = ()) -> dict[str, Any]:
    return {"hand": hand, "hole": {"1": [cards]}, "folded": list(folded), "burns": ["2c"]}


def info(text: str) -> Ruling:
    return Ruling("DEAL-1", text, Severity.INFO)


def alert(text: str) -> Ruling:
    return Ruling("IRR-1", text, Severity.VOID)


# -- seq, prev, and nothing before the link is ready ------------------------------------------------


def test_nothing_goes_out_before_the_first_resync_which_starts_with_status_online() -> None:
    box = make()
    box.record_effects([info("deal seat 1")], 1, START)
    box.state_changed(views(1), hole(1, "As"), 1, START)
    assert box.take() == [] and not box.ready
    sent = connect(box, now=START + 5)
    assert topics(sent) == [T.status, T.events, *RETAINED_VIEWS]
    status = body(sent[0])
    assert status["state"] == "online" and status["reason"] == "connected" and status["since"] == START + 5
    assert box.ready and box.take() == []


def test_one_seq_over_everything_and_prev_chains_each_event_topic() -> None:
    box = make()
    connect(box)
    box.record_effects(
        [info("a"), alert("b"), HandEnded(1, {2: 100, 1: 50}), info("c"), alert("d")], 1, START
    )
    sent = box.take()
    assert topics(sent) == [T.events, T.alerts, T.events, T.events, T.alerts]
    assert seqs(sent) == list(range(seqs(sent)[0], seqs(sent)[0] + 5))  # one counter, in order
    prev = {out.message.seq: body(out)["prev"] for out in sent}
    e1, a1, e2, e3, a2 = seqs(sent)
    assert [prev[e1], prev[e2], prev[e3]] == [0, e1, e2]
    assert [prev[a1], prev[a2]] == [0, a1]
    ended = body(sent[2])
    assert ended["kind"] == "hand_ended" and ended["hand_ended"]["stacks"] == {"1": 50, "2": 100}
    assert all(body(out)["epoch"] == "epoch-1" and not out.message.retain for out in sent)


def test_a_snapshot_goes_out_only_when_its_content_changed_unless_forced() -> None:
    box = make()
    connect(box)
    assert box.state_changed(views(1), hole(1, "As"), 1, START) == 4
    box.take()
    assert box.state_changed(views(1), hole(1, "As"), 1, START + 1) == 0
    changed = {**views(1), "dealer": {"n": 2}}
    assert box.state_changed(changed, hole(1, "As"), 1, START + 2) == 1
    assert topics(box.take()) == [T.view("dealer")]
    assert box.state_changed(changed, hole(1, "As"), 1, START + 3, force=True) == 4
    assert topics(box.take()) == list(RETAINED_VIEWS)


def test_expiry_is_in_seconds_per_kind_and_zero_means_none() -> None:
    box = make(snapshot_expiry=600, event_expiry=0)
    sent = connect(box)
    box.record_effects([info("a")], 1, START)
    box.state_changed(views(1), hole(1, "As"), 1, START)
    sent += box.take()
    expiry = {out.message.topic: out.message.expiry for out in sent}
    assert expiry[T.status] is None and expiry[T.events] is None and expiry[T.view("public")] == 600
    assert all(out.message.qos == 1 for out in sent)


# -- while the broker is away: coalescing and the cap -----------------------------------------------


def test_retained_snapshots_are_coalesced_to_the_newest_while_away() -> None:
    box = make()
    for n in range(5):
        box.state_changed(views(n), hole(1, "As"), 1, START + n)
    sent = connect(box)
    # One each, not five; a replaced snapshot moves to the end (the hole cards never changed).
    assert topics(sent) == [T.status, T.private_hole, T.view("public"), T.view("dealer"), T.view("floor")]
    assert [body(out)["state"]["n"] for out in sent[2:]] == [4, 4, 4]
    assert box.stats.coalesced == 4 * 3  # public, dealer and floor replaced four times each


def test_the_pending_cap_drops_the_oldest_events_never_a_snapshot() -> None:
    box = make(max_pending_events=3)
    box.state_changed(views(1), hole(1, "As"), 1, START)
    box.record_effects([info(f"r{i}") for i in range(5)], 1, START)
    sent = connect(box)
    texts = [body(out)["ruling"]["text"] for out in sent if out.message.topic == T.events]
    assert texts == ["r2", "r3", "r4"]
    assert box.stats.dropped_events == 2
    assert set(RETAINED_VIEWS) <= set(topics(sent))


# -- after a broker loss: the replay window and the resync -----------------------------------------


def test_what_was_acknowledged_within_the_window_is_resent_oldest_first_and_older_is_not() -> None:
    box = make(replay_window=65)
    connect(box)
    box.state_changed(views(1), hole(1, "As"), 1, START)
    ack_all(box, box.take(), 0.0)
    acked_at = {"old": 0.0, "edge": 24.0, "mid": 30.0, "new": 89.0}
    sent: dict[str, Outgoing] = {}
    for name, at in acked_at.items():
        box.record_effects([alert(name)], 1, START + at)
        (out,) = box.take()
        box.acknowledged(out.id, True, at)
        sent[name] = out
    box.record_effects([alert("refused")], 1, START + 90)
    (refused,) = box.take()
    box.acknowledged(refused.id, False, 90.0)  # the broker said no: not something it holds
    box.disconnected()
    again = connect(box, at=200.0, now=START + 200)
    # Within 65 s of the newest acknowledgement (89): 24 (just), 30 and 89, by seq; 0 is older,
    # and the refused one was never the broker's.
    assert topics(again)[0] == T.status
    assert [o.message for o in again[1:4]] == [sent["edge"].message, sent["mid"].message, sent["new"].message]
    assert box.stats.replayed == 3
    assert sent["old"].message not in [o.message for o in again]
    assert refused.message not in [o.message for o in again]
    assert topics(again)[4:] == list(RETAINED_VIEWS)  # then every snapshot as it is now


def test_a_replay_survives_a_connection_lost_again_before_the_resync() -> None:
    box = make()
    connect(box)
    box.record_effects([alert("a")], 1, START)
    (out,) = box.take()
    box.acknowledged(out.id, True, 10.0)
    box.disconnected()
    box.connected(20.0, START + 20)  # the ledger moves to the replay...
    box.disconnected()  # ...and the link drops before the resync
    box.poll(21.0, START + 21)
    assert box.take() == []
    again = connect(box, at=30.0, now=START + 30)
    assert [o.message for o in again[1:]] == [out.message]


def test_a_replay_the_broker_refuses_is_not_replayed_again() -> None:
    box = make()
    connect(box)
    box.record_effects([alert("a")], 1, START)
    (out,) = box.take()
    box.acknowledged(out.id, True, 1.0)
    box.disconnected()
    box.connected(2.0, START + 2)
    box.poll(2.0, START + 2)
    status, replay = box.take()
    assert replay.message == out.message
    box.acknowledged(status.id, True, 3.0)
    box.acknowledged(replay.id, False, 3.0)
    box.disconnected()
    assert topics(connect(box, at=4.0, now=START + 4)) == [T.status]


def test_resync_waits_for_what_was_in_flight_then_sends_the_current_snapshots() -> None:
    box = make(resync_timeout=5.0)
    connect(box)
    box.state_changed(views(1), hole(1, "As"), 1, START)
    in_flight = box.take()  # handed to paho, never acknowledged: the link went
    box.disconnected()
    box.state_changed(views(2), hole(1, "As"), 1, START + 1)
    box.connected(100.0, START + 100)
    box.poll(100.0, START + 100)
    assert box.take() == []  # paho resends those first: wait for their acknowledgement
    box.acknowledged(in_flight[0].id, True, 100.5)
    box.poll(100.5, START + 100.5)
    assert box.take() == [] and not box.ready
    ack_all(box, in_flight[1:], 101.0)
    box.poll(101.0, START + 101)
    sent = box.take()
    assert topics(sent) == [T.status, T.view("public"), T.view("dealer"), T.view("floor"), T.private_hole]
    assert [body(out)["state"].get("n") for out in sent[1:4]] == [2, 2, 2]
    # The hole snapshot did not change: the one in flight is sent again, same seq and payload.
    assert sent[4].message == in_flight[3].message


def test_resync_gives_up_waiting_after_the_timeout() -> None:
    box = make(resync_timeout=5.0)
    connect(box)
    box.state_changed(views(1), hole(1, "As"), 1, START)
    box.take()
    box.disconnected()
    box.connected(100.0, START + 100)
    box.poll(105.0, START + 105)
    assert box.take() == []
    box.poll(105.1, START + 105.1)
    assert topics(box.take()) == [T.status, *RETAINED_VIEWS]
    assert box.ready


# -- the broadcast feed ------------------------------------------------------------------------------


def test_broadcast_copies_wait_for_the_delay_and_for_the_end_of_the_live_hand() -> None:
    box = make(broadcast_delay=100.0, snapshot_expiry=0)
    connect(box)
    box.state_changed(views(1), hole(1, "As Kd"), 1, START)
    (priv,) = [out for out in box.take() if out.message.topic == T.private_hole]
    assert box.tick(START + 99) == 0  # not due yet
    assert box.tick(START + 150) == 0  # due, but hand 1 is still being played
    box.state_changed(views(1), hole(1, "As Kd", folded=(1,)), 1, START + 160)
    box.take()
    box.state_changed(views(2), hole(1, "As Kd", folded=(1,)), None, START + 170)  # hand 1 ended
    box.take()
    assert box.tick(START + 170) == 1  # the first copy; the second is due at 260
    (copy,) = box.take()
    data = body(copy)
    assert copy.message.topic == T.broadcast_hole and copy.message.retain
    assert data["of_seq"] == priv.message.seq and data["of_ts"] == START and data["delay_s"] == 100.0
    assert data["state"] == {"hand": 1, "hole": {"1": ["As Kd"]}, "folded": []}  # no burns
    assert box.tick(START + 259) == 0
    assert box.tick(START + 260) == 1
    assert body(box.take()[0])["state"]["folded"] == [1]
    assert json.loads(box.retained()[T.broadcast_hole])["state"]["folded"] == [1]  # the newest copy


def test_a_new_live_hand_does_not_hold_back_the_copies_of_the_last_one() -> None:
    box = make(broadcast_delay=10.0, snapshot_expiry=0)
    connect(box)
    box.state_changed(views(1), hole(1, "As"), 1, START)
    box.state_changed(views(2), hole(2, "Kd"), 2, START + 1)  # hand 2 is being played
    assert box.tick(START + 20) == 1  # hand 1's copy goes; hand 2's waits
    assert box.tick(START + 30) == 0


def test_without_hold_live_hand_the_copies_go_at_the_delay() -> None:
    box = make(broadcast_delay=10.0, hold_live_hand=False, snapshot_expiry=0)
    connect(box)
    box.state_changed(views(1), hole(1, "As"), 1, START)
    assert box.tick(START + 10) == 1


def test_broadcast_copies_are_never_coalesced_and_are_replayed() -> None:
    box = make(broadcast_delay=10.0, snapshot_expiry=0)
    connect(box)
    for n in range(3):
        box.state_changed(views(n), hole(1, f"{n + 2}c"), None, START + n)
    ack_all(box, box.take(), 0.5)
    box.disconnected()
    assert box.tick(START + 20) == 3
    box.connected(1.0, START + 21)
    box.poll(1.0, START + 21)
    sent = box.take()
    copies = [out for out in sent if out.message.topic == T.broadcast_hole]
    assert [body(out)["state"]["hole"]["1"] for out in copies] == [["2c"], ["3c"], ["4c"]]  # all three
    ack_all(box, sent, 2.0)
    box.disconnected()
    again = connect(box, at=3.0, now=START + 23)
    assert [o.message for o in again[1:4]] == [o.message for o in copies[:3]]


# -- refreshing, the bridge, the will, stopping, command results ------------------------------------


def test_snapshots_are_refreshed_at_half_their_expiry_with_the_same_seq() -> None:
    box = make(snapshot_expiry=100)
    connect(box)
    box.state_changed(views(1), hole(1, "As"), 1, START)
    first = box.take()
    assert box.tick(START + 49) == 0
    assert box.tick(START + 50) == 4
    refreshed = box.take()
    assert [o.message for o in refreshed] == [o.message for o in first]
    assert box.tick(START + 60) == 0 and box.tick(START + 100) == 4


def test_no_refresh_without_an_expiry() -> None:
    box = make(snapshot_expiry=0)
    connect(box)
    box.state_changed(views(1), hole(1, "As"), 1, START)
    box.take()
    assert box.tick(START + 10**6) == 0


def test_the_bridge_coming_back_requeues_the_snapshots_only_when_ready() -> None:
    box = make()
    box.state_changed(views(1), hole(1, "As"), 1, START)
    connect(box)
    assert box.bridge_up() == 4
    assert topics(box.take()) == list(RETAINED_VIEWS)
    box.disconnected()
    assert box.bridge_up() == 0  # the resync after the reconnection sends them anyway


def test_the_will_takes_a_seq_and_says_since_when_connected() -> None:
    box = make()
    will = box.will(START)
    data = json.loads(will.payload)
    assert (data["state"], data["reason"], data["seq"], data["since"]) == (
        "offline",
        "connection lost",
        1,
        START,
    )
    assert will.retain and will.topic == T.status and will.expiry is None
    connect(box, now=START + 7)
    assert json.loads(box.will(START + 9).payload)["since"] == START + 7
    assert box.take() == []  # composed for paho, never queued


def test_stop_sends_status_offline_and_what_is_queued_even_without_a_link() -> None:
    box = make()
    box.record_effects([info("a")], 1, START)
    sent = box.stop(START + 1)
    assert topics(sent) == [T.events, T.status]
    assert (body(sent[1])["state"], body(sent[1])["reason"]) == ("offline", "stopped")
    assert body(sent[1])["seq"] == box.seq
    assert box.take() == []  # still no link: stop() alone sends regardless


def test_a_command_result_carries_its_correlation_and_is_replayed() -> None:
    box = make(event_expiry=900)
    connect(box)
    box.command_result({"ok": True, "error": None}, b"\x07", START)
    (out,) = box.take()
    assert out.message.correlation == b"\x07" and out.message.expiry == 900 and not out.message.retain
    assert body(out)["type"] == "cmd_result" and body(out)["ok"] is True
    box.acknowledged(out.id, True, 5.0)
    box.disconnected()
    assert [o.message for o in connect(box, at=6.0)[1:2]] == [out.message]


def test_rulings_are_kept_as_written_and_published_as_hidden() -> None:
    box = make(recent_rulings=2)
    connect(box)
    box.record_effects(
        [info("a Kh came out"), info("b"), info("c")], 1, START, say=lambda s: render(s).upper()
    )
    box.record_effects([info("other hand")], 2, START)
    events = box.take()
    assert [body(out)["ruling"]["text"] for out in events] == ["A KH CAME OUT", "B", "C", "other hand"]
    kept = box.recent_rulings(1)
    assert [r.ruling.text for r in kept] == ["c"]  # two kept, one of them of hand 2
    assert kept[0].seq == events[2].message.seq and kept[0].ruling.severity.value == "info"
    assert [r.ruling.text for r in box.recent_rulings(2)] == ["other hand"]


def test_delivered_once_everything_sent_is_acknowledged() -> None:
    box = make()
    assert not box.delivered  # the first resync is still to come
    box.connected(0.0, START)
    box.poll(0.0, START)
    sent = box.take()
    assert not box.delivered
    ack_all(box, sent, 1.0)
    assert box.delivered
    assert box.acknowledged(10**6, True, 1.0) is None  # an id never sent


@pytest.mark.parametrize("window", [0.0, -1.0])
def test_no_replay_window_means_no_replay(window: float) -> None:
    box = make(replay_window=window)
    connect(box)
    box.record_effects([alert("a")], 1, START)
    ack_all(box, box.take(), 1.0)
    box.disconnected()
    assert topics(connect(box, at=2.0)) == [T.status]
    assert box.stats.replayed == 0


def test_restored_rulings_are_listed_with_seqs_of_this_epoch_and_not_sent_again() -> None:
    box = make(recent_rulings=2)
    first = Ruling("IRR-3", "Boxed card.", Severity.CORRECT)
    second = Ruling("INPUT", "The shoe lost reads.", Severity.FLOOR)
    third = Ruling("TBL-3", "Cy sits in seat 3.", Severity.INFO)
    kept = box.restore_rulings([(START - 30, 4, first), (START - 20, 4, second), (START - 10, 4, third)])
    assert kept == 2  # the last ones, as many as the views list
    listed = box.recent_rulings(4)
    assert [r.ruling for r in listed] == [second, third]
    assert [r.ts for r in listed] == [START - 20, START - 10]
    assert [r.seq for r in listed] == [2, 3] and box.seq == 3
    box.connected(0.0, START)
    box.poll(0.0, START)
    assert {out.message.kind for out in box.take()} == {"status"}  # no event, no alert
    box.record_effects([first], 4, START)  # a new ruling: a later seq, prev 0 on its topic
    assert box.recent_rulings(4)[-1].seq > 3
