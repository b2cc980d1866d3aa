"""The shipped ACL (deploy/mosquitto) on a real mosquitto: what each role reads, what it may
publish, another table's topics, and the audit over many hands."""

from __future__ import annotations

import random
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest

from tablectl.adapters.mqtt import Topics
from tablectl.adapters.mqtt.broker import Credentials, LocalBroker, shipped_config
from tablectl.cli.audit import AUDIT_ROLES, may_write, run_audit
from tablectl.core.events import FloorCommand, FloorKind
from tablectl.core.table import TableConfig, step
from tablectl.sim.dealer import SimDealer, seated_table
from tests.helpers.brokers import Listener, require_mosquitto, running_broker, table_publisher

TABLES = ("1", "2")
ANN = "cmd/floor/floor.ann"  # supervisor ann's command topic (LocalBroker: mkusers --floor ann,bob)
# What each role reads, as topic names below cardroom/main/table/<table>/ (docs/mqtt.md).
READS = {
    "table": {ANN, "cmd/dealer", "bridge"},
    "bridge": {
        "status",
        "public",
        "dealer",
        "floor",
        "summary",
        "hands",
        "cmd/dealer",
        "events",
        "alerts",
        "private/hole",
        "broadcast/hole",
        "cmd_result",
        ANN,
        "bridge",
    },
    "dealer": {"status", "public", "dealer", "events", "alerts", "cmd_result"},
    "public": {"status", "public"},
    "floor": {
        "status",
        "public",
        "dealer",
        "floor",
        "summary",
        "hands",
        "events",
        "alerts",
        "cmd_result",
        "bridge",
    },
    "supervisor": {
        "status",
        "public",
        "dealer",
        "floor",
        "summary",
        "hands",
        "events",
        "alerts",
        "cmd_result",
        "bridge",
    },
    "broadcast": {"status", "public", "broadcast/hole"},
    "admin": {
        "status",
        "public",
        "dealer",
        "floor",
        "summary",
        "hands",
        "events",
        "alerts",
        "private/hole",
        "broadcast/hole",
        "cmd_result",
        "bridge",
    },  # no command: admin neither sends nor reads them
}
ROOM_WIDE = {"floor", "broadcast", "admin", "supervisor"}
# The user each role logs in as in these tests: table "1", supervisor ann.
WHO = {role: "ann" if role == "supervisor" else "1" for role in AUDIT_ROLES}


@pytest.fixture(scope="module")
def broker(mosquitto: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalBroker]:
    with running_broker(tmp_path_factory.mktemp("acl") / "broker", tables=TABLES) as running:
        yield running


def test_each_role_reads_what_it_may_and_nothing_else(broker: LocalBroker) -> None:
    listeners = {
        role: Listener(broker, role, WHO[role], client_id=f"reader-{role}").start() for role in AUDIT_ROLES
    }
    publishers = [
        table_publisher(
            broker,
            table,
            broadcast_delay=0,
            hold_live_hand=False,
            tick_interval=None,
            on_command=lambda command, key, done: done(),  # as the journal would, at once
        ).start()
        for table in TABLES
    ]
    try:
        for publisher in publishers:
            assert publisher.wait_connected(10)
            config = TableConfig(room="main", table=publisher.table, seats=9, game="NT", blinds=(50, 100))
            state, sim = seated_table(config, 4), SimDealer(random.Random(1))
            for _ in range(60):
                state, effects = step(state, sim.next_event(state))
                publisher.publish_state(state, effects)
                publisher.tick()
            # An alert and a floor command, so that every topic carries something.
            from tablectl.core.events import DeviceStatus

            state, effects = step(state, DeviceStatus("shoe", ok=False))
            publisher.publish_state(state, effects)
            command = '{"type": "floor", "kind": "deck_check", "by": "Ann", "amount": 52}'
            topic = Topics("main", publisher.table).cmd_floor("floor.ann")
            listeners["supervisor"].client.publish(topic, command, qos=1)
            if publisher.table == "1":  # the dealer's screen of table 1: its own cmd/dealer only
                dealer_command = '{"type": "dealer_command", "action": "call_floor"}'
                listeners["dealer"].client.publish(Topics("main", "1").cmd_dealer, dealer_command, qos=1)
            listeners["admin"].client.publish(Topics("main", publisher.table).bridge, b"1", qos=1)
        for publisher in publishers:
            assert publisher.wait_delivered(10)
        for publisher in publishers:
            publisher.stop()  # the last message, on status, that most roles read
        admin = listeners["admin"]
        assert admin.wait_for(lambda: sum(m.payload.find(b'"stopped"') > 0 for m in admin.on("status")) == 2)
        for role in ("bridge", "dealer", "public", "floor", "broadcast", "supervisor"):
            listener = listeners[role]
            wanted = 1 if role not in ROOM_WIDE else 2
            assert listener.wait_for(
                lambda listener=listener, wanted=wanted: (
                    sum(m.payload.find(b'"stopped"') > 0 for m in listener.on("status")) == wanted
                )
            ), role
    finally:
        for listener in listeners.values():
            listener.stop()
    for role, listener in listeners.items():
        seen = {(m.topic.split("/")[3], "/".join(m.topic.split("/")[4:])) for m in listener.messages}
        tables = TABLES if role in ROOM_WIDE else ("1",)
        expected = {(table, topic) for table in tables for topic in READS[role]}
        assert seen == expected, (role, sorted(seen ^ expected))


def _publish_all(client: mqtt.Client, topics: list[str]) -> dict[str, str]:
    """Publish to each topic at QoS 1 and return each PUBACK's reason."""
    results: dict[int, str] = {}
    done = threading.Condition()

    def on_publish(c: mqtt.Client, u: Any, mid: int, reason: Any, props: Any) -> None:
        with done:
            results[mid] = str(reason)
            done.notify_all()

    client.on_publish = on_publish
    mids = {}
    for topic in topics:
        mids[topic] = client.publish(topic, b'{"acl_test": true}', qos=1).mid
    with done:
        assert done.wait_for(lambda: all(mid in results for mid in mids.values()), 10)
    return {topic: results[mid] for topic, mid in mids.items()}


def test_each_role_publishes_only_where_it_may(broker: LocalBroker) -> None:
    assert broker.credentials is not None
    logins = {role: broker.credentials.user(role, WHO[role])[0] for role in AUDIT_ROLES}
    users = sorted({*logins.values(), "floor.bob", "table.2", "dealer.2"})
    topics = [
        t
        for table in TABLES
        for t in (
            *Topics("main", table).all_published(),
            *(Topics("main", table).cmd_floor(user) for user in users),
            f"cardroom/main/table/{table}/cmd/floor",
            Topics("main", table).bridge,
            f"cardroom/main/table/{table}/cmd/dealer",
        )
    ]
    topics += ["cardroom/other/table/1/public", "cardroom/main/elsewhere"]
    for role in AUDIT_ROLES:
        with Listener(
            broker, role, WHO[role], topics=("nothing/here",), client_id=f"writer-{role}"
        ) as writer:
            reasons = _publish_all(writer.client, topics)
        for topic, reason in reasons.items():
            allowed = may_write(role, "1", topic, "main", logins[role])
            assert (reason != "Not authorized") == allowed, (role, topic, reason)
    # The essentials, spelled out: a supervisor sends commands as itself only, at any table; no
    # display, table, dashboard or admin sends one; no table writes another's topics.
    for table in TABLES:
        assert may_write("supervisor", "1", Topics("main", table).cmd_floor("floor.ann"), "main", "floor.ann")
        assert not may_write(
            "supervisor", "1", Topics("main", table).cmd_floor("floor.bob"), "main", "floor.ann"
        )
    for role in ("dealer", "public", "broadcast", "table", "floor", "admin"):
        for user in users:
            assert not may_write(role, "1", Topics("main", "1").cmd_floor(user), "main", logins[role])
    assert not may_write("table", "1", Topics("main", "2").view("public"), "main")
    # The dealer's screen writes its own table's cmd/dealer and nothing else; no other display does.
    assert may_write("dealer", "1", Topics("main", "1").cmd_dealer, "main", "dealer.1")
    assert not may_write("dealer", "1", Topics("main", "2").cmd_dealer, "main", "dealer.1")
    for role in ("public", "broadcast", "table", "floor", "admin", "supervisor"):
        assert not may_write(role, "1", Topics("main", "1").cmd_dealer, "main", logins[role])


def test_anonymous_and_wrong_passwords_are_refused(broker: LocalBroker) -> None:
    for username, password in ((None, None), ("public.1", "wrong"), ("nobody", "x")):
        client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
        if username is not None:
            client.username_pw_set(username, password)
        answer: list[Any] = []
        ready = threading.Event()
        client.on_connect = lambda c, u, f, reason, p, answer=answer, ready=ready: (
            answer.append(reason),
            ready.set(),
        )
        client.connect(broker.host, broker.port)
        client.loop_start()
        ready.wait(10)
        client.loop_stop()
        assert answer and answer[0].is_failure, username


@pytest.mark.usefixtures("mosquitto")
def test_mkusers_keeps_passwords_adds_tables_and_refuses_bad_names(tmp_path: Path) -> None:
    require_mosquitto()
    script = str(shipped_config() / "mkusers")
    subprocess.run([script, "--dir", str(tmp_path), "main", "1"], check=True, capture_output=True)
    first = Credentials.read(tmp_path / "credentials")
    subprocess.run([script, "--dir", str(tmp_path), "main", "2"], check=True, capture_output=True)
    second = Credentials.read(tmp_path / "credentials")
    assert second.tables() == ["1", "2"]
    assert second.user("table", "1") == first.user("table", "1")
    acl = (tmp_path / "acl").read_text()
    assert "user table.1" in acl and "user table.2" in acl and acl.count("user floor\n") == 1
    assert oct((tmp_path / "credentials").stat().st_mode & 0o777) == "0o600"
    for bad in ("a/b", "t+1", "#", "x y"):
        result = subprocess.run([script, "--dir", str(tmp_path), "main", bad], capture_output=True, text=True)
        assert result.returncode == 2 and "table name" in result.stderr
    # Supervisors: --floor adds floor.<name> users, kept (with their passwords) on later runs.
    subprocess.run([script, "--dir", str(tmp_path), "--floor", "ann,bob", "main"], check=True)
    subprocess.run([script, "--dir", str(tmp_path), "--floor=cy", "main", "3"], check=True)
    third = Credentials.read(tmp_path / "credentials")
    assert third.supervisors() == ["ann", "bob", "cy"] and third.tables() == ["1", "2", "3"]
    assert third.user("supervisor", "ann")[0] == "floor.ann"
    assert third.user("table", "1") == first.user("table", "1")
    acl = (tmp_path / "acl").read_text()
    assert all(f"user floor.{name}\n" in acl for name in ("ann", "bob", "cy"))
    assert acl.count("pattern write cardroom/main/table/+/cmd/floor/%u") == 1
    for bad in ("a.b", "a/b", "+", "#", "x y", "", "a" * 33):
        result = subprocess.run(
            [script, "--dir", str(tmp_path), "--floor", f"ok,{bad}" if bad else ",", "main"],
            capture_output=True,
            text=True,
        )
        if bad:
            assert result.returncode == 2 and f"supervisor name '{bad}'" in result.stderr, bad
    assert Credentials.read(tmp_path / "credentials").supervisors() == ["ann", "bob", "cy"]
    other = subprocess.run([script, "--dir", str(tmp_path), "other", "1"], capture_output=True, text=True)
    assert other.returncode == 2 and "one room per directory" in other.stderr


def _audit(tmp_path: Path, hands: int) -> dict[str, Any]:
    with running_broker(tmp_path / "broker", tables=("audit-a", "audit-b")) as broker:
        return run_audit(hands, broker.access())


@pytest.mark.usefixtures("mosquitto")
def test_audit_finds_nothing_any_role_must_not_see_or_do(tmp_path: Path) -> None:
    result = _audit(tmp_path, 120)
    assert result["hands"] == 120
    assert result["violations"] == {role: 0 for role in AUDIT_ROLES}, result["examples"]
    received = result["received_by_kind"]
    assert received["public"].get("snapshot", 0) > 100  # every role was really listening
    assert received["broadcast"].get("broadcast_hole", 0) > 0
    assert received["floor"].get("alert", 0) > 0 and received["dealer"].get("event", 0) > 0
    assert received["supervisor"].get("alert", 0) > 0
    # The tables took commands only on a supervisor's topic: ann's own (and the last ones), and
    # the bridge's forwarding on the first table (what bridge.conf carries in from the central
    # broker). Never the dashboard's, the displays', admin's, nor ann's on bob's topic.
    arrived = {tuple(a) for a in result["commands_arrived"]}
    ann, bob = (f"floor.{name}" for name in result["supervisors"])
    assert arrived == {
        ("audit-supervisor", ann),
        ("audit-last", ann),
        ("audit-bridge", ann),
        ("audit-bridge", bob),
    }
    assert result["unobserved"] == {"audit-a": 0, "audit-b": 0}  # the observers saw every message


@pytest.mark.slow
@pytest.mark.usefixtures("mosquitto")
def test_audit_over_a_thousand_hands(tmp_path: Path) -> None:
    result = _audit(tmp_path, 1000)
    assert result["violations"] == {role: 0 for role in AUDIT_ROLES}, result["examples"]
    assert result["unobserved"] == {"audit-a": 0, "audit-b": 0}


@pytest.mark.usefixtures("mosquitto")
def test_audit_catches_a_leak(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The audit is not blind: with ruling texts left as they are, it finds the hole cards."""
    import tablectl.views.secrecy

    monkeypatch.setattr(tablectl.views.secrecy, "face_up", lambda state: frozenset(range(52)))
    result = _audit(tmp_path, 40)
    assert result["violations"]["dealer"] > 0 and result["violations"]["public"] == 0
    assert any(e["what"] == "a hidden card" for e in result["examples"])


def test_floor_command_parsing_is_the_events_module(broker: LocalBroker) -> None:
    from tablectl.core.events import from_json, to_json

    command = FloorCommand(FloorKind.SET_BLINDS, by="Ann", blinds=(100, 200), ante=25)
    assert from_json(to_json(command)) == command
