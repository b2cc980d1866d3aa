"""Screenshots of each page at the sizes it is made for (docs/screenshots/, linked from the README
and docs/displays.md), taken from real hands: the dealer's screen at 800x480, the table display at
1920x1080 and 1280x720, the floor dashboard on a desktop with a room of tables around the live one.

Into a temporary folder, so that a test run leaves the checkout as it was; to refresh the ones in
docs/: ``TABLECTL_SCREENSHOTS=docs/screenshots ./run tests tests/adapters/web/test_screenshots.py``."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tablectl.adapters.mqtt.broker import LocalBroker
from tablectl.core.events import CardDrawn, DealerAction, DealerCommand, DeviceStatus
from tablectl.views import public
from tests.adapters.web.test_displays import TIMEOUT_MS, betting, open_page
from tests.helpers.browser import WebServer
from tests.helpers.live_table import LiveTable
from tests.helpers.paths import ROOT
from tests.helpers.room import Room

SHOTS: list[Path] = []  # the folder of this run's screenshots
NAMES = (
    "dealer-800x480.png",
    "table-1920x1080.png",
    "table-1280x720.png",
    "floor-1920x1080.png",
    "floor-table-1920x1080.png",
    "table-showdown-1920x1080.png",
    "dealer-misdeal-800x480.png",
)


@pytest.fixture
def shots(tmp_path: Path) -> Iterator[Path]:
    chosen = os.environ.get("TABLECTL_SCREENSHOTS")
    folder = ROOT / chosen if chosen else tmp_path
    SHOTS[:] = [folder]
    yield folder
    SHOTS.clear()


@pytest.fixture
def table(table1_broker: LocalBroker) -> Iterator[LiveTable]:
    live = LiveTable(table1_broker).start()
    try:
        yield live
    finally:
        live.stop()


def shoot(page: Page, name: str) -> None:
    SHOTS[0].mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS[0] / name))


def settle(page: Page, table: LiveTable, leaf: str) -> None:
    """Wait until the page has drawn the table's newest message on ``leaf`` (its raw panel)."""
    topic = f"cardroom/main/table/1/{leaf}"
    seq = json.loads(table.publisher.retained()[topic])["seq"]
    page.wait_for_function(
        "([topic, seq]) => { const e = document.querySelector(`[data-topic='${topic}']`);"
        " return e && Number((e.dataset.seq.match(/seq (\\d+)/) || [])[1]) >= seq; }",
        arg=[topic, seq],
        timeout=TIMEOUT_MS,
    )
    page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")


def test_screenshots(
    browser: Browser, web: WebServer, table1_broker: LocalBroker, table: LiveTable, shots: Path
) -> None:
    dealer = open_page(browser, web, table1_broker, "/dealer", "dealer")
    tv_big = open_page(browser, web, table1_broker, "/table", "public", size=(1920, 1080))
    tv_small = open_page(browser, web, table1_broker, "/table", "public", size=(1280, 720))
    room = Room(table1_broker, 47)
    room.fill()
    floor = open_page(browser, web, table1_broker, "/floor", "supervisor", "ann", size=(1920, 1080))
    expect(floor.locator(".tile")).to_have_count(48, timeout=TIMEOUT_MS)  # and the live table 1
    room.alert("5", "misdeal", "MD-c", "Misdeal: two boxed cards. Confirm, then reshuffle: the button stays.")
    room.alert("9", "floor", "CALL", "Marek calls the floor: player dispute")
    room.alert("12", "void", "IRR-1", "A card with a different back: the hand is void.")
    try:
        table.apply(DealerCommand(DealerAction.CLOCK_IN, name="Rosa", at=table.publisher.clock()))
        # Mid-hand: a few actions on the flop, so that bets and the last action show.
        table.until(
            lambda s: (
                betting(s) and s.hand is not None and len(s.hand.game.board) >= 3 and any(s.hand.game.bets)
            )
        )
        table.apply(DeviceStatus("camera", ok=False, detail="test"))
        for page in (tv_big, tv_small):
            settle(page, table, "public")
        settle(dealer, table, "dealer")
        shoot(dealer, "dealer-800x480.png")
        shoot(tv_big, "table-1920x1080.png")
        shoot(tv_small, "table-1280x720.png")
        expect(floor.locator(".tile")).to_have_count(48, timeout=TIMEOUT_MS)
        expect(floor.locator("#alert-log li")).to_have_count(4, timeout=TIMEOUT_MS)  # 3 + the camera
        shoot(floor, "floor-1920x1080.png")
        floor.locator('.tile[data-table="1"]').click()
        expect(floor.locator("#drill-title")).to_contain_text("hand", timeout=TIMEOUT_MS)
        table.apply(DeviceStatus("camera", ok=True, detail="test"))
        for _ in range(6):
            table.step()
        floor.locator("#hands li button").first.click()
        shoot(floor, "floor-table-1920x1080.png")
        # A showdown on the TV.
        for _ in range(40):
            table.until(lambda s: s.hand is not None)
            table.until(lambda s: s.hand is None)
            result = public(table.state)["result"]
            if result and len(result["shown"]) >= 2 and any(a["hand"] for a in result["awards"]):
                break
        settle(tv_big, table, "public")
        shoot(tv_big, "table-showdown-1920x1080.png")
        # A misdeal waiting for the dealer's confirm.
        table.until(lambda s: s.hand is not None and s.hand.hole_dealt == 0 and s.hand.pending is None)
        table.apply(CardDrawn(table.dealer.deck.pop(), face_up=True))
        for _ in range(3):
            table.apply(CardDrawn(table.dealer.deck.pop()))
        table.apply(CardDrawn(table.dealer.deck.pop(), face_up=True))
        expect(dealer.locator("#open-alerts button.confirm")).to_be_visible(timeout=TIMEOUT_MS)
        shoot(dealer, "dealer-misdeal-800x480.png")
    finally:
        room.close()
    for name in NAMES:  # each a real picture, not an empty page
        assert (shots / name).stat().st_size > 20_000, name
