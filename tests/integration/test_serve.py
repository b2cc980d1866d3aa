"""`tablectl serve` on a bench: the table's config file, the simulated shoe on a pty, mock GPIO
buttons, a real mosquitto with the shipped ACL; the floor seats players over MQTT, the dealer
long-presses new hand, the shoe deals, and a public display sees the hand."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from gpiozero.pins.mock import MockFactory

from firmware_bridge.simshoe import SimShoe
from tablectl.adapters.mqtt.broker import LocalBroker
from tablectl.core.events import FloorCommand, FloorKind, to_json
from tablectl.service.serve import BrokerSettings, start_table
from tablectl.service.tablefile import load_table_config
from tests.helpers.bench_table import write_bench_table
from tests.helpers.brokers import Listener
from tests.helpers.paths import ROOT


def test_serve_a_table_on_a_bench(tmp_path: Path, table1_broker: LocalBroker, pins: MockFactory) -> None:
    broker = table1_broker
    shoe = SimShoe(seed=3).start()
    write_bench_table(tmp_path, shoe.path)
    table_file = load_table_config(tmp_path / "table.toml")
    assert broker.credentials is not None
    user, password = broker.credentials.user("table", "1")
    now = [100.0]
    running = start_table(
        table_file,
        tmp_path / "table.journal",
        BrokerSettings(broker.host, broker.port, user, password),
        clock=lambda: now[0],  # the panel's clock: a long press without waiting for it
    )
    # A command sent before the table's command intake first subscribes reaches nobody.
    assert running.publisher.wait_connected(10.0)
    display = Listener(broker, "public", "1").start()
    floor = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
    floor.username_pw_set(*broker.credentials.user("supervisor", "ann"))  # supervisor ann: floor.ann
    floor.connect(broker.host, broker.port)
    floor.loop_start()
    try:
        for seat, name in ((1, "Ann"), (2, "Bob"), (3, "Cy")):
            command = FloorCommand(
                FloorKind.SEAT_PLAYER, "Jane", seat=seat, name=name, amount=5000, at=time.time()
            )
            floor.publish("cardroom/main/table/1/cmd/floor/floor.ann", json.dumps(to_json(command)), qos=1)
        command = FloorCommand(FloorKind.MOVE_BUTTON, "Jane", seat=3, at=time.time())
        floor.publish("cardroom/main/table/1/cmd/floor/floor.ann", json.dumps(to_json(command)), qos=1)

        def seated() -> bool:  # and the button placed: the dealer's keys go ahead of floor commands
            views = [p["state"] for p in display.payloads("public")]
            return (
                bool(views)
                and sum(1 for s in views[-1]["seats"] if s.get("name")) == 3
                and views[-1]["button"] == 3
            )

        assert display.wait_for(seated, timeout=10.0)
        new_hand = pins.pin(25)  # deploy/table.example.toml: new_hand = 25, a long press
        new_hand.drive_low()
        assert running.panel is not None
        now[0] += 2.0  # held past hold_time (1.5 s)
        running.panel.poll()
        new_hand.drive_high()
        assert shoe.wait_connected(10.0)
        for card in range(6):
            shoe.deal(card)

        def dealt() -> bool:
            views = [p["state"] for p in display.payloads("public")]
            return bool(views) and views[-1].get("hand") == 1 and views[-1].get("to_act") is not None

        assert display.wait_for(dealt, timeout=10.0)
        assert not display.on("private/hole")
    finally:
        floor.loop_stop()
        display.stop()
        running.stop()
        shoe.stop()


def bench_config(tmp_path: Path, shoe: SimShoe) -> Path:
    """The example table file for table 1 on this bench: the simulated shoe, a registry with one deck."""
    return write_bench_table(tmp_path, shoe.path)


def test_a_second_serve_on_the_same_journal_by_any_path_is_refused(
    tmp_path: Path, table1_broker: LocalBroker
) -> None:
    """One journal, one writer: a second `tablectl serve` reaching the journal by a symlink, a hard
    link or a relative path exits 2 naming the path and the serving process; replay still reads."""
    broker = table1_broker
    assert broker.credentials is not None
    user, password = broker.credentials.user("table", "1")
    (tmp_path / "password").write_text(password)
    shoe = SimShoe(seed=3).start()
    journal = tmp_path / "journals" / "table.journal"
    journal.parent.mkdir()

    def serve(journal_path: Path | str, cwd: Path = ROOT, **popen: Any) -> subprocess.Popen[str]:
        command = [
            sys.executable,
            "-m",
            "tablectl.cli",
            "serve",
            "--config",
            str(bench_config(tmp_path, shoe)),
        ]
        command += [
            "--journal",
            str(journal_path),
            "--mqtt-host",
            broker.host,
            "--mqtt-port",
            str(broker.port),
        ]
        command += ["--mqtt-user", user, "--mqtt-password-file", str(tmp_path / "password"), "--mock-gpio"]
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        return subprocess.Popen(command, cwd=cwd, env=env, text=True, stderr=subprocess.PIPE, **popen)

    first = serve(journal)
    serving = threading.Event()
    log: list[str] = []

    def read_log() -> None:
        assert first.stderr is not None
        for line in first.stderr:
            log.append(line)
            if " serving: " in line:
                serving.set()

    reader = threading.Thread(target=read_log, daemon=True)
    reader.start()
    try:
        assert serving.wait(30.0), "".join(log)
        symlink = tmp_path / "by-symlink.journal"
        symlink.symlink_to(journal)
        hard_link = tmp_path / "by-hard-link.journal"
        os.link(journal, hard_link)
        for name, cwd in ((symlink, ROOT), (hard_link, ROOT), (Path("journals/table.journal"), tmp_path)):
            second = serve(name, cwd=cwd)
            try:
                _, err = second.communicate(timeout=30)
            except subprocess.TimeoutExpired:
                second.kill()
                second.communicate()
                raise AssertionError(f"a second tablectl serve runs on the journal by {name}") from None
            assert second.returncode == 2, err
            assert f"tablectl: {name}: another process is writing this journal (process {first.pid}" in err
            assert f"opened it as {journal}" in err and "Traceback" not in err
        for name in (symlink, hard_link):  # a reader is never refused, even by another name
            replay = subprocess.run(
                [sys.executable, "-m", "tablectl.cli", "replay", str(name), "--verify", "--json"],
                capture_output=True,
                text=True,
                timeout=60,
                cwd=ROOT,
                check=False,
            )
            assert replay.returncode == 0, replay.stderr
            assert json.loads(replay.stdout)["ok"] is True
        assert first.poll() is None, "".join(log)  # the first table served on throughout
    finally:
        first.send_signal(signal.SIGTERM)
        first.wait(timeout=60)
        reader.join(timeout=10)
        shoe.stop()
