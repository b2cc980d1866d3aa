"""`tablectl serve` in a child process (tests/helpers/serve_child.py), for the tests that kill it:
its log collected as it comes, SIGKILL and SIGTERM, and a dealer's finger on its panel."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from tablectl.adapters.mqtt.broker import LocalBroker
from tests.helpers.paths import ROOT


class Table:
    """`tablectl serve` in a child process; its log collected as it comes."""

    def __init__(self, folder: Path, broker: LocalBroker, cli: bool = False) -> None:
        assert broker.credentials is not None
        user, password = broker.credentials.user("table", "1")
        self.argv = [
            sys.executable,
            str(ROOT / "tests" / "helpers" / "serve_child.py"),
            str(folder / "table.toml"),
            str(folder / "table.journal"),
            broker.host,
            str(broker.port),
            user,
            password,
        ]
        if cli:  # the command systemd runs, as it runs it
            (folder / "mqtt-password").write_text(password + "\n")
            self.argv = [
                str(Path(sys.executable).parent / "tablectl"),
                "serve",
                "--config",
                str(folder / "table.toml"),
                "--journal",
                str(folder / "table.journal"),
                "--mqtt-host",
                broker.host,
                "--mqtt-port",
                str(broker.port),
                "--mqtt-user",
                user,
                "--mqtt-password-file",
                str(folder / "mqtt-password"),
                "--mock-gpio",
            ]
        self.lines: list[str] = []
        self.changed = threading.Condition()
        self.process = subprocess.Popen(
            self.argv,
            stdin=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            text=True,
            cwd=ROOT,
        )
        threading.Thread(target=self._read, daemon=True).start()
        assert self.wait_log("serving", 30), "".join(self.lines)
        # A command sent before the intake process first subscribes has no subscriber to reach.
        assert self.wait_log("taking floor commands", 30), "".join(self.lines)

    def _read(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            with self.changed:
                self.lines.append(line)
                self.changed.notify_all()

    def wait_log(self, text: str, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        with self.changed:
            while not any(text in line for line in self.lines):
                left = deadline - time.monotonic()
                if left <= 0 or self.process.poll() is not None and not any(text in x for x in self.lines):
                    return any(text in line for line in self.lines)
                self.changed.wait(min(left, 0.2))
            return True

    def kill(self) -> None:
        self.process.kill()
        self.process.wait(10)

    def terminate(self, timeout: float) -> int | str:
        """The exit code after SIGTERM, or where the child is stuck (its threads' stacks)."""
        self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.send_signal(signal.SIGUSR1)
            self.wait_log("most recent call first", 5)
            time.sleep(0.5)  # the stacks are being written (only for the failure message)
            self.kill()
            return self.log()

    def log(self) -> str:
        with self.changed:
            return "".join(self.lines)

    def hold(self, pin: int, seconds: float) -> None:
        """Hold a panel button down for ``seconds`` (serve_child.py only, not the cli)."""
        assert self.process.stdin is not None
        done = sum("released" in line for line in self.lines)
        self.process.stdin.write(f"hold {pin} {seconds}\n")
        self.process.stdin.flush()
        deadline = time.monotonic() + seconds + 10
        with self.changed:
            while sum("released" in line for line in self.lines) <= done:
                left = deadline - time.monotonic()
                assert left > 0, "the button was not released"
                self.changed.wait(left)
