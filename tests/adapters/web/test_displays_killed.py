"""The pages when the controller itself dies: `tablectl serve` killed with SIGKILL (the broker
publishes its last will), then started again on the same journal."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from firmware_bridge.simshoe import SimShoe
from tablectl.adapters.mqtt.broker import LocalBroker
from tests.adapters.web.test_displays import TIMEOUT_MS, open_page
from tests.helpers.bench_table import write_bench_table
from tests.helpers.browser import WebServer
from tests.helpers.child_table import Table


@pytest.fixture
def shoe() -> Iterator[SimShoe]:
    shoe = SimShoe(seed=11).start()
    yield shoe
    shoe.stop()


def test_the_pages_show_a_killed_controller_offline_and_follow_its_next_run(
    tmp_path: Path, browser: Browser, web: WebServer, table1_broker: LocalBroker, shoe: SimShoe
) -> None:
    write_bench_table(tmp_path, shoe.path)
    table = Table(tmp_path, table1_broker)
    try:
        dealer = open_page(browser, web, table1_broker, "/dealer", "dealer")
        tv = open_page(browser, web, table1_broker, "/table", "public", size=(1280, 720))
        floor = open_page(browser, web, table1_broker, "/floor", "floor", None, size=(1280, 800))
        tile = floor.locator('.tile[data-table="1"]')
        for page in (dealer, tv):
            expect(page.locator("#title")).to_contain_text("Table 1", timeout=TIMEOUT_MS)
            expect(page.locator("#offline")).to_be_hidden(timeout=TIMEOUT_MS)
        expect(tile).not_to_have_attribute("data-state", "offline", timeout=TIMEOUT_MS)
        table.kill()  # no goodbye: the broker sends the table's last will
        for page in (dealer, tv):
            expect(page.locator("#offline")).to_contain_text("TABLE OFFLINE since", timeout=TIMEOUT_MS)
        expect(tile).to_have_attribute("data-state", "offline", timeout=TIMEOUT_MS)
        table = Table(tmp_path, table1_broker)  # systemd starts it again: the same journal
        for page in (dealer, tv):
            expect(page.locator("#offline")).to_be_hidden(timeout=TIMEOUT_MS)
        expect(tile).not_to_have_attribute("data-state", "offline", timeout=TIMEOUT_MS)
        for page in (dealer, tv, floor):
            assert page.console_errors == []  # type: ignore[attr-defined]
    finally:
        if table.process.poll() is None:
            table.kill()
