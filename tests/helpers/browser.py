"""The display pages in a real browser: a broker, ``tablectl web`` and Debian's chromium.

``WebServer`` runs ``tablectl web`` as its own process (as deployed) on a free port, relaying to
a LocalBroker; ``chromium()`` is Playwright driving /usr/bin/chromium (Playwright cannot
download its own browser here; ``./run tests`` installs Debian's). ``login_fragment`` is the
address fragment a kiosk is first opened with. The fixtures that use these are in
tests/adapters/web/conftest.py.
"""

from __future__ import annotations

import os
import selectors
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode

import pytest
from playwright.sync_api import Browser, sync_playwright

from tablectl.adapters.mqtt.broker import LocalBroker, free_port
from tests.helpers.paths import ROOT

CHROMIUM = Path(os.environ.get("TABLECTL_CHROMIUM", "/usr/bin/chromium"))


@dataclass
class WebServer:
    """``tablectl web`` in a child process, listening on 127.0.0.1:``port``."""

    broker_port: int
    port: int = 0
    process: subprocess.Popen[str] | None = None

    def start(self, timeout: float = 20.0) -> WebServer:
        self.port = self.port or free_port()
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tablectl.cli",
                "web",
                "--listen",
                f"127.0.0.1:{self.port}",
                "--broker",
                f"127.0.0.1:{self.broker_port}",
            ],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None
        # The server prints one line once it listens: wait for it, with a deadline.
        with selectors.DefaultSelector() as selector:
            selector.register(self.process.stdout, selectors.EVENT_READ)
            if not selector.select(timeout):
                self.stop()
                pytest.fail(f"tablectl web printed nothing within {timeout} s")
        line = self.process.stdout.readline()
        if not line.startswith("tablectl web:"):
            _, errors = self.process.communicate(timeout=10)
            pytest.fail(f"tablectl web did not start: {line!r}\n{errors}")
        return self

    def url(self, path: str = "/") -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        self.process = None


@contextmanager
def web_server(broker: LocalBroker) -> Iterator[WebServer]:
    server = WebServer(broker.port).start()
    try:
        yield server
    finally:
        server.stop()


def require_chromium() -> None:
    if not CHROMIUM.exists():
        # Failed, never skipped, as a missing mosquitto is: ./run tests installs it.
        pytest.fail(f"{CHROMIUM} is missing: apt-get install chromium (./run tests does it)")


@contextmanager
def chromium() -> Iterator[Browser]:
    """A headless Debian chromium under Playwright."""
    require_chromium()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True)
        try:
            yield browser
        finally:
            browser.close()


def login_fragment(broker: LocalBroker, role: str, table: str | None = "1") -> str:
    """``#user=...&pass=...&table=...&room=...``: what a screen is first opened with."""
    assert broker.credentials is not None
    user, password = broker.credentials.user(role, table)
    fields = {"user": user, "pass": password, "room": broker.room}
    if table is not None and role in ("dealer", "public", "table", "bridge"):
        fields["table"] = table
    return "#" + urlencode(fields)
