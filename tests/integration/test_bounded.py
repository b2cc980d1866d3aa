"""No payload takes a table off the air, and every field of a command is checked at the boundary
(issue 10, points 1 and 3), on the real service: ``start_table`` with the simulated shoe and a
real mosquitto with the shipped configuration (its max_packet_size included)."""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path
from typing import Any

from gpiozero.pins.mock import MockFactory

from firmware_bridge.simshoe import SimShoe
from tablectl.adapters.mqtt import TablePublisher
from tablectl.adapters.mqtt.broker import LocalBroker, shipped_max_packet_size
from tablectl.core.events import InputRefused, to_json
from tablectl.core.table import TableConfig, new_table
from tablectl.journal import Journal
from tablectl.service.serve import BrokerSettings, start_table
from tablectl.service.tablefile import load_table_config
from tests.helpers.brokers import Listener, schemas
from tests.helpers.paths import ROOT

CMD = "cardroom/main/table/1/cmd/floor/floor.ann"


def test_hostile_commands_are_refused_journaled_and_the_table_stays_online(
    tmp_path: Path, table1_broker: LocalBroker, pins: MockFactory
) -> None:
    broker = table1_broker
    shoe = SimShoe(seed=5).start()
    example = (ROOT / "deploy" / "table.example.toml").read_text()
    config = example.replace('table = "12"', 'table = "1"').replace(
        'port = "/dev/tablectl-shoe"', f'port = "{shoe.path}"'
    )
    (tmp_path / "table.toml").write_text(
        config.replace("\nregistry = ", "\n# registry = ").replace(
            "start_without_decks = false", "start_without_decks = true"
        )
    )
    table_file = load_table_config(tmp_path / "table.toml")
    assert broker.credentials is not None
    user, password = broker.credentials.user("table", "1")
    journal = tmp_path / "table.journal"
    running = start_table(table_file, journal, BrokerSettings(broker.host, broker.port, user, password))
    validate = schemas()
    floor = Listener(broker, "supervisor", "ann", topics=("cardroom/main/table/1/#",)).start()
    try:
        assert running.publisher.wait_connected(10)

        def send(data: dict[str, Any]) -> None:
            floor.client.publish(CMD, json.dumps({"type": "floor", **data}), qos=1)

        now = time.time()
        sent = [
            {"kind": "seat_player", "by": "Jane", "seat": 1, "name": "Ann", "amount": 5000, "at": now},
            {"kind": "seat_player", "by": "Jane", "seat": 2, "name": "Bob", "amount": 5000, "at": now},
            # Hostile: each under the broker's limit, each refused whole.
            {"kind": "transfer", "by": "B" * 200_000, "seat": 1, "to_seat": 2, "amount": 5, "at": now},
            {"kind": "transfer", "by": "C" * 120_000, "seat": 2, "to_seat": 1, "amount": 5, "at": now},
            {"kind": "seat_player", "by": "Jane", "seat": 3, "name": {"first": "Cy"}, "amount": 50},
            {"kind": "void_hand", "by": {"who": "Jane"}},
            {"kind": "set_blinds", "by": "Jane", "blinds": [True, True]},
            {"kind": "set_blinds", "by": "Jane", "blinds": [200, 100]},
            {"kind": "add_chips", "by": "Jane", "seat": 1, "amount": 10**23},
            {"kind": "add_chips", "by": "Jane", "seat": 1, "amount": 100, "at": now * 1000},  # Date.now()
            {"kind": "sit_out", "by": "Jane", "seat": 12},
            {"kind": "add_chips", "by": "Jane", "seat": 1, "amount": 100, "at": now},
        ]
        for data in sent:
            send(data)
        assert floor.wait_for(lambda: len(floor.payloads("cmd_result")) >= len(sent), timeout=15)
        results = floor.payloads("cmd_result")
        for result in results:
            validate("cmd-result", result)
        oks = [r["ok"] for r in results]
        assert oks == [True, True] + [False] * 9 + [True], results
        reasons = [r["error"] for r in results[2:11]]
        assert "by is 200,000 characters long: at most 40" in reasons[0]
        assert "name is a text" in reasons[2] and "by is a text" in reasons[3]
        assert "floor.blinds" in reasons[4] and "from the small to the big" in reasons[5]
        assert "out of bounds" in reasons[6] and "ahead of the table's clock" in reasons[7]
        assert "no seat 12" in reasons[8]
        assert all(len(json.dumps(r)) < 1000 for r in results)

        def stacks() -> bool:
            views = [p["state"] for p in floor.payloads("public")]
            return bool(views) and [s.get("stack") for s in views[-1]["seats"][:2]] == [5100, 5000]

        assert floor.wait_for(stacks, timeout=10)  # only the good add_chips changed anything
        assert running.publisher.connected and running.publisher.stats.disconnects == 0
        assert running.publisher.stats.oversize == 0
        status = floor.payloads("status")
        assert status and status[-1]["state"] == "online"
        snapshot = floor.on("floor")[-1]
        assert len(snapshot.payload) < 10_000
    finally:
        floor.stop()
        running.stop()
        shoe.stop()
    with Journal(journal) as book:
        entries = list(book.events())
    outcomes = dict(query(journal, "SELECT seq, outcome FROM outcomes"))
    refused = [e for e in entries if isinstance(e.event, InputRefused)]
    assert len(refused) == 9
    assert all(outcomes[e.seq].startswith("refused: INPUT floor") for e in refused)
    assert all(len(json.dumps(to_json(e.event))) < 600 for e in refused)
    assert max(len(body) for (body,) in query(journal, "SELECT body FROM events")) < 1000


def query(path: Path, sql: str) -> list[tuple[Any, ...]]:
    with sqlite3.connect(path) as db:
        return db.execute(sql).fetchall()


def test_the_publisher_stays_connected_after_trying_to_publish_something_huge(
    table1_broker: LocalBroker,
) -> None:
    """A state whose views are over the broker's max_packet_size (names no command can carry now,
    say from an old journal): not sent, one alert, and the table stays connected and current."""
    broker = table1_broker
    assert broker.credentials is not None
    user, password = broker.credentials.user("table", "1")
    publisher = TablePublisher(
        "main", "1", host=broker.host, port=broker.port, username=user, password=password, client_id="big"
    ).start()
    config = TableConfig(room="main", table="1", seats=6)
    with Listener(broker, "floor", None, topics=("cardroom/main/table/1/#",)) as floor:
        assert publisher.wait_connected(10)
        huge = new_table(config, {1: ("A" * shipped_max_packet_size(), 100), 2: ("Bob", 100)})
        publisher.publish_state(huge)
        assert floor.wait_for(lambda: bool(floor.payloads("alerts")), timeout=10)
        alert = floor.payloads("alerts")[0]["ruling"]
        assert alert["severity"] == "floor" and "over the broker's limit" in alert["text"]
        fine = new_table(config, {1: ("Ann", 100), 2: ("Bob", 100)})
        publisher.publish_state(fine)
        assert publisher.wait_delivered(10)
        assert floor.wait_for(
            lambda: any(p["state"]["seats"][0].get("name") == "Ann" for p in floor.payloads("public"))
        )
        assert publisher.connected and publisher.stats.disconnects == 0
        assert publisher.stats.connects == 1 and publisher.stats.oversize >= 3
    publisher.stop()
