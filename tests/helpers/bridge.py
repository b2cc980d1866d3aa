"""A table's mosquitto bridged to the card room's central mosquitto, both real processes from the
shipped deploy/mosquitto files: the table's local broker runs bridge.conf rendered as the README's
installer line does (sed), the central broker is made by mkusers for the same room and table, so
the bridge logs in there as table.<T> with the central broker's password, as in production.
Used by tests/integration/test_broker_bridge.py and the central floor dashboard's browser test."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tablectl.adapters.mqtt.broker import LocalBroker, shipped_config
from tests.helpers.brokers import require_mosquitto


def render_bridge(central: LocalBroker, local: LocalBroker) -> str:
    """deploy/mosquitto/bridge.conf with its placeholders filled by the README's sed line."""
    assert central.credentials is not None and local.credentials is not None
    remote = central.credentials.user("table", "1")[1]
    local_password = local.credentials.user("bridge", "1")[1]
    result = subprocess.run(
        [
            "sed",
            "-e", "s/@ROOM@/main/g",
            "-e", "s/@TABLE@/1/g",
            "-e", f"s/@CENTRAL@/{central.host}:{central.port}/",
            "-e", f"s/@REMOTE_PASSWORD@/{remote}/",
            "-e", f"s/@LOCAL_PASSWORD@/{local_password}/",
            str(shipped_config() / "bridge.conf"),
        ],
        capture_output=True,
        text=True,
        check=True,
    )  # fmt: skip
    text = result.stdout
    settings = [line for line in text.splitlines() if line.strip() and not line.startswith("#")]
    assert not [line for line in settings if re.search(r"@[A-Z_]+@", line)], "a placeholder is left"
    return text


@dataclass
class Rig:
    central: LocalBroker
    local: LocalBroker

    def bridge_log(self) -> str:
        local, central = self.local.log()[-3000:], self.central.log()[-3000:]
        return f"--- the table's mosquitto (bridge):\n{local}\n--- the central mosquitto:\n{central}"


def bridge_topics(config: str) -> dict[str, list[str]]:
    """The topic patterns of a rendered bridge.conf by direction: {"out": [...], "in": [...]}."""
    topics: dict[str, list[str]] = {"out": [], "in": [], "both": []}
    for line in config.splitlines():
        words = line.split()
        if len(words) >= 2 and words[0] == "topic":
            topics[words[2] if len(words) > 2 else "out"].append(words[1])
    return topics


@contextmanager
def bridged_rig(folder: Path) -> Iterator[Rig]:
    """The central broker and a table's broker bridged to it, both started."""
    require_mosquitto()
    central = LocalBroker(room="main", tables=("1",), folder=folder / "central")
    local = LocalBroker(room="main", tables=("1",), folder=folder / "table")
    try:
        central.start()
        local.prepare()  # users first (mkusers): the bridge needs bridge.1's password
        local.extra_config = "\n" + render_bridge(central, local)
        local.prepare()  # again, with the bridge: mkusers keeps the passwords, the ports stay
        local.start()
        yield Rig(central, local)
    finally:
        local.cleanup()
        central.cleanup()
