"""The three display pages in Debian's chromium against a real mosquitto, ``tablectl web`` and a
real TablePublisher fed by the simulated dealer (tests/helpers/live_table.py): what a dealer, a
player and a supervisor see as real hands are played, the commands they give, and the pages
showing a table offline and back. Nothing here sleeps: every wait is Playwright's expect or
wait_for_function with a timeout."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tablectl.adapters.mqtt.broker import LocalBroker
from tablectl.core.effects import Ruling
from tablectl.core.events import CardDrawn, DealerInput, DealerKey
from tablectl.core.game.engine import Phase
from tablectl.core.table import TableState
from tests.helpers.browser import WebServer, login_fragment
from tests.helpers.live_table import LiveTable

TIMEOUT_MS = 15_000


@pytest.fixture
def table(table1_broker: LocalBroker) -> Iterator[LiveTable]:
    live = LiveTable(table1_broker).start()
    try:
        yield live
    finally:
        live.stop()


def open_page(browser: Browser, web: WebServer, broker: LocalBroker, path: str, role: str, who: str | None = "1",
              size: tuple[int, int] = (800, 480)) -> Page:
    context = browser.new_context(viewport={"width": size[0], "height": size[1]})
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.console_errors = errors  # type: ignore[attr-defined]
    page.goto(web.url(path) + login_fragment(broker, role, who))
    expect(page.locator("#connection")).to_have_attribute("data-state", "connected", timeout=TIMEOUT_MS)
    return page


def betting(state: TableState) -> bool:
    hand = state.hand
    return (
        hand is not None
        and hand.pending is None
        and hand.game.phase is Phase.BETTING
        and hand.game.actor is not None
        and hand.hole_dealt >= hand.n * 2
    )


def test_a_bet_changes_the_pot_and_the_stack_on_the_dealer_and_table_pages(
    browser: Browser, web: WebServer, table1_broker: LocalBroker, table: LiveTable
) -> None:
    dealer = open_page(browser, web, table1_broker, "/dealer", "dealer")
    tv = open_page(browser, web, table1_broker, "/table", "public", size=(1280, 720))
    state = table.until(betting)
    assert state.hand is not None
    game = state.hand.game
    seat = state.hand.seat(game.actor or 0)
    pot, stack = game.pot, game.stacks[game.actor or 0]
    expect(dealer.locator("#pot .value")).to_have_text(f"{pot:,}", timeout=TIMEOUT_MS)
    expect(dealer.locator("#to-act .value")).to_contain_text(f"Seat {seat}")
    from tablectl.core.game.engine import legal

    options = legal(game)
    assert options is not None and options.can_raise
    to = options.min_raise_to
    table.apply(DealerInput(DealerKey.BET, seat=seat, amount=to))
    put_in = to - game.bets[game.actor or 0]
    expect(dealer.locator("#pot .value")).to_have_text(f"{pot + put_in:,}", timeout=TIMEOUT_MS)
    expect(tv.locator("#pot")).to_have_text(f"Pot {pot + put_in:,}", timeout=TIMEOUT_MS)
    tv_seat = tv.locator(f'.seat[data-seat="{seat}"]')
    expect(tv_seat.locator(".stack")).to_have_text(f"{stack - put_in:,}")
    expect(tv_seat.locator(".bet")).to_have_text(f"{to:,}")
    expect(tv.locator("#last-action")).to_contain_text(f"Seat {seat}")
    assert dealer.console_errors == [] and tv.console_errors == []  # type: ignore[attr-defined]
