"""Who gave a floor command is who logged in (issue 10, point 10): `tablectl serve` with the
simulated shoe on a real mosquitto with the shipped ACL and users from mkusers --floor ann,bob.

Supervisor ann's command on her own topic (cmd/floor/floor.ann) is applied and journaled with
user floor.ann beside the name she typed; ann publishing on bob's topic, and the read-only
``floor`` dashboard publishing on any, are refused by the broker and never reach the table."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt

from firmware_bridge.simshoe import SimShoe
from tablectl.adapters.mqtt import Topics
from tablectl.adapters.mqtt.broker import LocalBroker
from tablectl.core.events import FloorCommand, FloorKind, to_json
from tablectl.journal.store import Journal
from tablectl.service.serve import BrokerSettings, RunningTable, start_table
from tablectl.service.tablefile import load_table_config
from tests.helpers.brokers import Listener
from tests.helpers.paths import ROOT

TOPICS = Topics("main", "1")


def _serve(tmp_path: Path, broker: LocalBroker, shoe: SimShoe) -> RunningTable:
    example = (ROOT / "deploy" / "table.example.toml").read_text()
    config = (
        example.replace('table = "12"', 'table = "1"')
        .replace('port = "/dev/tablectl-shoe"', f'port = "{shoe.path}"')
        .replace('registry = "/var/lib/tablectl/decks.json"', f'registry = "{tmp_path / "decks.json"}"')
        .replace("start_without_decks = false", "start_without_decks = true")
    )
    (tmp_path / "table.toml").write_text(config)
    assert broker.credentials is not None
    user, password = broker.credentials.user("table", "1")
    return start_table(
        load_table_config(tmp_path / "table.toml"),
        tmp_path / "table.journal",
        BrokerSettings(broker.host, broker.port, user, password),
    )


def _publish(client: mqtt.Client, topic: str, command: FloorCommand) -> str:
    """Publish at QoS 1 and return the broker's PUBACK reason ("Success", "Not authorized")."""
    done = threading.Event()
    reasons: dict[int, str] = {}

    def on_publish(c: mqtt.Client, u: Any, mid: int, reason: Any, props: Any) -> None:
        reasons[mid] = str(reason)
        done.set()

    client.on_publish = on_publish
    info = client.publish(topic, json.dumps(to_json(command)), qos=1)
    assert done.wait(10) and info.mid in reasons, f"no PUBACK for {topic}"
    return reasons[info.mid]


def test_a_supervisor_sends_as_herself_only_and_the_journal_names_her_login(
    tmp_path: Path, table1_broker: LocalBroker, pins: Any
) -> None:
    broker = table1_broker
    shoe = SimShoe(seed=5).start()
    running = _serve(tmp_path, broker, shoe)
    ann = Listener(broker, "supervisor", "ann", topics=(TOPICS.cmd_result, TOPICS.view("floor"))).start()
    dashboard = Listener(broker, "floor", None, topics=("nothing/here",)).start()
    try:
        assert running.publisher.wait_connected(10)
        now = time.time()
        seat = FloorCommand(FloorKind.SEAT_PLAYER, "Ann Smith", seat=1, name="Pat", amount=5000, at=now)
        # Forged first: had the broker let either through, the table would answer it before the
        # commands ann sends after it on the same connection (QoS 1 keeps the order).
        as_bob = FloorCommand(FloorKind.SEAT_PLAYER, "Bob Jones", seat=1, name="Mallory", amount=9, at=now)
        assert _publish(ann.client, TOPICS.cmd_floor("floor.bob"), as_bob) == "Not authorized"
        from_dashboard = FloorCommand(FloorKind.SEAT_PLAYER, "Wall", seat=1, name="Eve", amount=9, at=now)
        for user in ("floor", "floor.ann", "floor.bob"):
            assert _publish(dashboard.client, TOPICS.cmd_floor(user), from_dashboard) == "Not authorized"
        assert _publish(ann.client, TOPICS.cmd_floor("floor.ann"), seat) == "Success"
        second = FloorCommand(FloorKind.SEAT_PLAYER, "Ann Smith", seat=2, name="Quin", amount=5000, at=now)
        assert _publish(ann.client, TOPICS.cmd_floor("floor.ann"), second) == "Success"
        transfer = FloorCommand(FloorKind.TRANSFER, "Ann Smith", seat=1, amount=100, to_seat=2, at=now)
        assert _publish(ann.client, TOPICS.cmd_floor("floor.ann"), transfer) == "Success"

        def transferred() -> bool:
            views = ann.payloads("floor")
            return bool(views) and any(o["ruling"] == "TBL-5" for o in views[-1]["state"]["overrides"])

        assert ann.wait_for(transferred), ann.payloads("cmd_result")
        results = ann.payloads("cmd_result")
        assert [(r["ok"], r["by"], r["user"]) for r in results] == [(True, "Ann Smith", "floor.ann")] * 3
        assert {r["topic"] for r in results} == {TOPICS.cmd_floor("floor.ann")}
        override = ann.payloads("floor")[-1]["state"]["overrides"][-1]
        assert (override["by"], override["user"]) == ("Ann Smith", "floor.ann")
    finally:
        ann.stop()
        dashboard.stop()
        running.stop()
        shoe.stop()
    with Journal(tmp_path / "table.journal") as journal:
        commands = [e.event for e in journal.events() if isinstance(e.event, FloorCommand)]
    assert [(c.kind, c.by, c.user) for c in commands] == [
        (FloorKind.SEAT_PLAYER, "Ann Smith", "floor.ann"),
        (FloorKind.SEAT_PLAYER, "Ann Smith", "floor.ann"),
        (FloorKind.TRANSFER, "Ann Smith", "floor.ann"),
    ]
    assert [c.name for c in commands[:2]] == ["Pat", "Quin"]  # neither Mallory nor Eve was seated
