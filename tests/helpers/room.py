"""A room of tables on the floor dashboard without a Pi each: an admin client publishes, retained,
the per-table summary and status that real tables publish (the admin role may write every
table's topics but cmd/), and alerts with their seq and prev, in the shapes of docs/schemas."""

from __future__ import annotations

import json
import random
import time
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from tablectl.adapters.mqtt.broker import LocalBroker

GAMES = (("NT", "50/100"), ("NT", "100/200"), ("PO", "25/50"), ("NT", "200/400 ante 50"), ("FT", "100/200"))
DEALERS = ("Rosa", "Marek", "Ines", "Tom", "Aiko", "Lars", "Nadia", "Ben")
WORST = (
    ("misdeal", "MD-c", "Misdeal: two boxed cards. Confirm, then reshuffle: the button stays."),
    ("floor", "CALL", "Rosa calls the floor: player dispute"),
    ("floor", "INPUT", "The shoe is lost: reads may be missed."),
    ("void", "IRR-1", "A card with a different back: the hand is void."),
)


class Room:
    def __init__(self, broker: LocalBroker, count: int, seed: int = 3, first: int = 2) -> None:
        assert broker.credentials is not None
        user, password = broker.credentials.user("admin")
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5, client_id=f"room-{seed}")
        self.client.username_pw_set(user, password)
        self.client.connect(broker.host, broker.port)
        self.client.loop_start()
        self.rng = random.Random(seed)
        self.tables = [str(n) for n in range(first, first + count)]
        self.epoch = f"20260129T101500Z-room{seed:02d}"
        self.seq = 0
        self.prev: dict[str, int] = {}
        self.now = time.time()

    def _send(self, table: str, leaf: str, body: dict[str, Any], kind: str, retain: bool) -> None:
        self.seq += 1
        payload = {
            "schema": 1,
            "type": kind,
            "room": "main",
            "table": table,
            "epoch": self.epoch,
            "seq": self.seq,
            "ts": time.time(),
            **body,
        }
        props = Properties(PacketTypes.PUBLISH)
        props.ContentType = "application/json"
        self.client.publish(
            f"cardroom/main/table/{table}/{leaf}", json.dumps(payload), qos=1, retain=retain, properties=props
        )

    def summary(self, table: str, **changes: Any) -> dict[str, Any]:
        rng = self.rng
        game, stakes = rng.choice(GAMES)
        state = rng.choice(("dealing", "dealing", "dealing", "between_hands", "paused"))
        worst = rng.choice(WORST) if state == "paused" or rng.random() < 0.08 else None
        seats = 9 if game != "PO" else 6
        dealer = rng.choice(DEALERS) if rng.random() < 0.85 else None
        view = {
            "view": "summary",
            "game": game,
            "stakes": stakes,
            "seats_taken": rng.randint(2, seats),
            "seats": seats,
            "dealer": dealer,
            "dealer_since": self.now - rng.randint(60, 3000) if dealer else None,
            "hands_per_hour": rng.randint(18, 38),
            "last_hand_at": self.now - rng.randint(5, 400),
            "table_state": state,
            "hand": rng.randint(1, 400),
            "alerts": 1 if worst else 0,
            "worst": {"severity": worst[0], "rule": worst[1], "text": worst[2]} if worst else None,
        }
        view.update(changes)
        self._send(table, "summary", {"view": "summary", "state": view}, "snapshot", True)
        return view

    def status(self, table: str, online: bool = True) -> None:
        state = "online" if online else "offline"
        reason = "connected" if online else "connection lost"
        self._send(
            table, "status", {"state": state, "reason": reason, "since": self.now - 600}, "status", True
        )

    def alert(self, table: str, severity: str, rule: str, text: str) -> None:
        seq = self.seq + 1
        self._send(
            table,
            "alerts",
            {
                "prev": self.prev.get(table, 0),
                "hand": 12,
                "kind": "ruling",
                "ruling": {"rule": rule, "text": text, "severity": severity, "needs_confirm": False},
            },
            "alert",
            False,
        )
        self.prev[table] = seq

    def fill(self, offline: int = 2) -> None:
        for number, table in enumerate(self.tables):
            self.status(table, online=number >= offline)
            self.summary(table)

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()
