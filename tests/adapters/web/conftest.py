"""``tablectl web`` in front of a broker with table 1, and Debian's chromium, for these tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page

from tablectl.adapters.mqtt.broker import LocalBroker
from tests.helpers.browser import WebServer, chromium, web_server


@pytest.fixture
def web(table1_broker: LocalBroker) -> Iterator[WebServer]:
    """``tablectl web`` (its own process) relaying to table1_broker (tests/conftest.py)."""
    with web_server(table1_broker) as server:
        yield server


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as running:
        yield running


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    """A fresh profile (no saved login) at the dealer screen's size; its console errors are
    collected in ``page.console_errors`` (a page that logs one has a bug)."""
    context = browser.new_context(viewport={"width": 800, "height": 480})
    opened = context.new_page()
    errors: list[str] = []
    opened.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    opened.on("pageerror", lambda error: errors.append(str(error)))
    opened.console_errors = errors  # type: ignore[attr-defined]
    try:
        yield opened
    finally:
        context.close()
