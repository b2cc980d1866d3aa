"""The three display pages in Debian's chromium against a real mosquitto, ``tablectl web`` and a
real TablePublisher fed by the simulated dealer (tests/helpers/live_table.py): what a dealer, a
player and a supervisor see as real hands are played, the commands they give, and the pages
showing a table offline and back. Nothing here sleeps: every wait is Playwright's expect or
wait_for_function with a timeout."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tablectl.adapters.mqtt.broker import LocalBroker
from tablectl.core.effects import Ruling
from tablectl.core.events import CardDrawn, DealerInput, DealerKey
from tablectl.core.game.engine import Phase
from tablectl.core.procedure import HandProgress
from tablectl.core.table import TableState
from tests.helpers.bridge import bridged_rig
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


def open_page(
    browser: Browser,
    web: WebServer,
    broker: LocalBroker,
    path: str,
    role: str,
    who: str | None = "1",
    size: tuple[int, int] = (800, 480),
) -> Page:
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


def test_a_misdeal_shows_its_ruling_and_clears_after_the_confirm(
    browser: Browser, web: WebServer, table1_broker: LocalBroker, table: LiveTable
) -> None:
    dealer = open_page(browser, web, table1_broker, "/dealer", "dealer")
    table.until(lambda s: s.hand is not None and s.hand.hole_dealt == 0 and s.hand.pending is None)
    # Two boxed cards in the deal before the cut-off: MD-c, a misdeal that waits for the confirm
    # (tests/scenarios/md-c-two-boxed-cards-before-cutoff.scn).
    table.apply(CardDrawn(table.dealer.deck.pop(), face_up=True))
    for _ in range(3):
        table.apply(CardDrawn(table.dealer.deck.pop()))
    effects = table.apply(CardDrawn(table.dealer.deck.pop(), face_up=True))
    ruling = next(e for e in effects if isinstance(e, Ruling) and e.needs_confirm)
    assert ruling.rule == "MD-c"
    alert = dealer.locator(f'#open-alerts .open-alert[data-rule="{ruling.rule}"]')
    expect(alert).to_be_visible(timeout=TIMEOUT_MS)
    expect(alert.locator("button.confirm")).to_be_visible()
    from tablectl.views import dealer as dealer_view

    expect(alert.locator(".text")).to_have_text(dealer_view(table.state)["open_alerts"][0]["text"])
    expect(dealer.locator(f'#rulings li[data-rule="{ruling.rule}"]')).to_be_visible()
    table.apply(DealerInput(DealerKey.CONFIRM))  # the panel's confirm key
    expect(alert).to_have_count(0, timeout=TIMEOUT_MS)
    expect(dealer.locator("#prompt")).to_contain_text("new hand")
    assert dealer.console_errors == []  # type: ignore[attr-defined]


def test_the_showdown_names_the_winner_and_the_chips_pushed(
    browser: Browser, web: WebServer, table1_broker: LocalBroker, table: LiveTable
) -> None:
    from tablectl.views import public

    tv = open_page(browser, web, table1_broker, "/table", "public", size=(1920, 1080))
    for _ in range(40):  # hands until one is won at a showdown with a hand named
        table.until(lambda s: s.hand is not None)
        table.until(lambda s: s.hand is None)
        result = public(table.state)["result"]
        if result and any(a["hand"] for a in result["awards"]):
            break
    else:
        pytest.fail("no showdown in 40 hands")
    award = next(a for a in result["awards"] if a["hand"])
    winner = table.state.seat(award["seats"][0])
    assert winner is not None
    box = tv.locator("#result")
    expect(box).to_be_visible(timeout=TIMEOUT_MS)
    expect(box).to_contain_text(f"{winner.name} (seat {award['seats'][0]})")
    expect(box).to_contain_text(award["hand"])
    expect(box).to_contain_text(f"{award['amount']:,}")
    for seat, cards in result["shown"].items():
        for card in cards:
            expect(tv.locator(f'.seat[data-seat="{seat}"] .held .card[data-card="{card}"]')).to_have_count(1)
    expect(tv.locator(f'.seat[data-seat="{award["seats"][0]}"]')).to_have_class("seat winner")
    assert tv.console_errors == []  # type: ignore[attr-defined]


def test_a_floor_command_from_the_dashboard_changes_the_table(
    browser: Browser, web: WebServer, table1_broker: LocalBroker, table: LiveTable
) -> None:
    floor = open_page(browser, web, table1_broker, "/floor", "supervisor", "ann", size=(1600, 900))
    state = table.until(betting)
    hand = state.hand_number
    tile = floor.locator('.tile[data-table="1"]')
    expect(tile.locator(".state")).to_have_text("dealing", timeout=TIMEOUT_MS)
    tile.click()
    expect(floor.locator("#drill-title")).to_contain_text(f"hand {hand}", timeout=TIMEOUT_MS)
    floor.locator("#cmd-by").fill("Ann Smith")
    floor.locator("#cmd-kind").select_option("void_hand")
    floor.locator("#cmd-review").click()
    expect(floor.locator("#cmd-confirm-text")).to_contain_text(
        f"Table 1: void the hand in progress (hand {hand})"
    )
    assert table.commands == []  # nothing sent before the confirmation
    floor.locator("#cmd-send").click()
    expect(floor.locator("#cmd-results li").first).to_have_attribute("data-state", "ok", timeout=TIMEOUT_MS)
    expect(floor.locator("#cmd-results li").first).to_contain_text("taken by table 1")
    assert [c.kind.value for c in table.commands if not hasattr(c, "reason")] == ["void_hand"]
    assert table.state.hand is None
    expect(floor.locator("#drill-title")).to_contain_text("between hands", timeout=TIMEOUT_MS)
    expect(tile.locator(".state")).to_have_text("between hands", timeout=TIMEOUT_MS)
    assert floor.console_errors == []  # type: ignore[attr-defined]


def test_the_pages_show_the_table_offline_and_recover_when_it_returns(
    browser: Browser, web: WebServer, table1_broker: LocalBroker, table: LiveTable
) -> None:
    pages = {
        "dealer": open_page(browser, web, table1_broker, "/dealer", "dealer"),
        "table": open_page(browser, web, table1_broker, "/table", "public", size=(1280, 720)),
        "floor": open_page(browser, web, table1_broker, "/floor", "floor", None, size=(1280, 800)),
    }
    state = table.until(betting)
    for name in ("dealer", "table"):
        expect(pages[name].locator("#offline")).to_be_hidden(timeout=TIMEOUT_MS)
    tile = pages["floor"].locator('.tile[data-table="1"]')
    expect(tile).to_have_attribute("data-state", "dealing", timeout=TIMEOUT_MS)
    table.stop()  # a clean stop: status offline, stopped
    for name in ("dealer", "table"):
        expect(pages[name].locator("#offline")).to_contain_text("TABLE OFFLINE since", timeout=TIMEOUT_MS)
    expect(tile).to_have_attribute("data-state", "offline", timeout=TIMEOUT_MS)
    expect(tile.locator(".worst")).to_contain_text("OFFLINE since")
    # The table comes back (a new run: a new epoch) and deals on.
    back = LiveTable(table1_broker, state=state, dealer=table.dealer).start()
    try:
        back.until(lambda s: s.hand is None)
        back.until(lambda s: s.hand is not None and s.hand.hole_dealt > 0)
        number = back.state.hand_number
        for name in ("dealer", "table"):
            expect(pages[name].locator("#offline")).to_be_hidden(timeout=TIMEOUT_MS)
            expect(pages[name].locator("#title")).to_contain_text(f"hand {number}", timeout=TIMEOUT_MS)
        expect(tile).to_have_attribute("data-state", "dealing", timeout=TIMEOUT_MS)
    finally:
        back.stop()
    for page in pages.values():
        assert page.console_errors == []  # type: ignore[attr-defined]


def test_the_dealers_call_of_the_floor_reaches_the_dashboard_and_the_confirm_button_confirms(
    browser: Browser, web: WebServer, table1_broker: LocalBroker, table: LiveTable
) -> None:
    dealer = open_page(browser, web, table1_broker, "/dealer", "dealer")
    floor = open_page(browser, web, table1_broker, "/floor", "floor", None, size=(1280, 800))
    table.until(betting)
    dealer.locator("#clock-name").fill("Rosa")
    dealer.locator("#clock-in").click()
    expect(dealer.locator("#title")).to_contain_text("dealer Rosa", timeout=5_000)
    dealer.locator("#call-floor").click()
    expect(floor.locator('#alert-log li[data-rule="CALL"]')).to_contain_text(
        "Rosa calls the floor", timeout=5_000
    )
    expect(floor.locator('.tile[data-table="1"] .worst')).to_contain_text("CALL")
    expect(dealer.locator("#cmd-result")).to_have_attribute("data-state", "ok")
    # A misdeal confirmed from the screen's button.
    table.until(lambda s: s.hand is None)
    table.until(lambda s: s.hand is not None and s.hand.hole_dealt == 0 and s.hand.pending is None)
    table.apply(CardDrawn(table.dealer.deck.pop(), face_up=True))
    for _ in range(3):
        table.apply(CardDrawn(table.dealer.deck.pop()))
    table.apply(CardDrawn(table.dealer.deck.pop(), face_up=True))
    dealer.locator("#open-alerts button.confirm").click(timeout=5_000)
    # The misdeal is confirmed; the floor call stays listed until a supervisor answers it.
    expect(dealer.locator("#open-alerts button.confirm")).to_have_count(0, timeout=5_000)
    expect(dealer.locator("#open-alerts .open-alert")).to_have_count(1)
    expect(dealer.locator('#open-alerts .open-alert[data-rule="CALL"]')).to_have_count(1)


def engine_pots(hand: HandProgress) -> list[int]:
    """The pot after each step of a hand as the engine has it, from the hand's own log replayed
    from its start (RULES TBL-5): the blinds, the deal (one step), then every other action."""
    from tablectl.core.game.actions import DealHole
    from tablectl.core.game.engine import apply

    assert hand.start is not None
    game = hand.start
    pots = [game.pot]
    for index, entry in enumerate(hand.log):
        game = apply(game, entry)  # type: ignore[arg-type]  # a SimDealer hand has no refund
        following = hand.log[index + 1] if index + 1 < len(hand.log) else None
        if isinstance(entry, DealHole) and isinstance(following, DealHole):
            continue  # the deal is one step
        pots.append(game.pot)
    return pots


def test_a_supervisor_replays_the_previous_hand_step_by_step_with_the_engines_pot(
    browser: Browser, web: WebServer, table1_broker: LocalBroker, table: LiveTable
) -> None:
    table.until(lambda s: s.hand_number == 3 and s.hand is None)
    previous = table.state.last_hand
    assert previous is not None and previous.number == 3
    expected = engine_pots(previous)
    table.until(lambda s: s.hand is not None and s.hand_number == 4 and len(s.hand.log) >= 8)
    floor = open_page(browser, web, table1_broker, "/floor", "supervisor", "ann", size=(1600, 900))
    floor.locator('.tile[data-table="1"]').click(timeout=TIMEOUT_MS)
    hands = floor.locator("#hands li.hand")
    expect(hands).to_have_count(4, timeout=TIMEOUT_MS)  # the hand in progress and the three before
    expect(hands.first).to_contain_text("Hand 4 ·")
    expect(hands.first).to_contain_text("in progress")
    floor.locator('#hands li[data-hand="3"] button').click()
    replay = floor.locator("#replay")
    expect(replay).to_have_attribute("data-hand", "3")
    record = next(r for r in table.publisher.hands.hands if r.number == 3)
    kinds = [step["kind"] for step in record.steps]
    steps = len(kinds)
    expect(replay).to_have_attribute("data-steps", str(steps))
    # The rulings' own steps leave the pot as it was; every other step is one of the engine's.
    assert [k for k in kinds if k != "ruling"][:2] == ["start", "deal"]
    assert len([k for k in kinds if k != "ruling"]) == len(expected)
    pots = iter(expected)
    pot = None
    for index, kind in enumerate(kinds):
        expect(replay).to_have_attribute("data-step", str(index + 1))
        if kind != "ruling":
            pot = next(pots)
        expect(floor.locator("#replay-pot")).to_have_attribute("data-pot", str(pot))
        expect(floor.locator("#replay-pot")).to_have_text(f"Pot after this step: {pot:,}")
        expect(floor.locator("#replay-step")).to_contain_text(str(record.steps[index]["text"]))
        if index + 1 < steps:
            floor.locator("#replay-next").click()
    expect(floor.locator("#replay-result")).to_contain_text("wins")
    # Back one step, and straight to a step from the list: the table after it.
    floor.locator("#replay-prev").click()
    expect(replay).to_have_attribute("data-step", str(steps - 1))
    floor.locator('#replay-steps li[data-step="2"] button').click()
    expect(replay).to_have_attribute("data-step", "2")
    expect(floor.locator("#replay-step")).to_contain_text("Hole cards dealt")
    expect(floor.locator("#replay-pot")).to_have_attribute("data-pot", str(expected[1]))
    assert floor.console_errors == []  # type: ignore[attr-defined]


def test_an_alert_raised_while_the_dashboard_was_away_reaches_its_log_when_it_reconnects(
    browser: Browser, web: WebServer, table1_broker: LocalBroker, table: LiveTable
) -> None:
    """The page's session outlives the lost connection (connect.js): the broker queues the alert
    for it. The retained snapshot could not give it back: it lists the hand in progress only, and
    the misdeal's hand is over by the time the page returns."""
    floor = open_page(browser, web, table1_broker, "/floor", "floor", None, size=(1280, 800))
    table.until(lambda s: s.hand is not None and s.hand.hole_dealt == 0 and s.hand.pending is None)
    expect(floor.locator('.tile[data-table="1"]')).to_have_attribute(
        "data-state", "dealing", timeout=TIMEOUT_MS
    )
    web.stop()  # the relay goes away; the broker keeps the page's session
    expect(floor.locator("#connection")).not_to_have_attribute("data-state", "connected", timeout=TIMEOUT_MS)
    misdealt = table.state.hand_number
    table.apply(CardDrawn(table.dealer.deck.pop(), face_up=True))
    for _ in range(3):
        table.apply(CardDrawn(table.dealer.deck.pop()))
    effects = table.apply(CardDrawn(table.dealer.deck.pop(), face_up=True))
    assert any(isinstance(e, Ruling) and e.rule == "MD-c" for e in effects)
    table.apply(DealerInput(DealerKey.CONFIRM))
    table.until(lambda s: s.hand is not None and s.hand_number > misdealt and s.hand.hole_dealt > 0)
    web.start()  # the same address: the page reconnects by itself
    expect(floor.locator("#connection")).to_have_attribute("data-state", "connected", timeout=TIMEOUT_MS)
    logged = floor.locator('#alert-log li[data-rule="MD-c"]')
    expect(logged).to_have_count(1, timeout=TIMEOUT_MS)
    expect(logged).to_have_attribute("data-hand", str(misdealt))
    expect(logged.locator(".recovered")).to_have_count(0)  # from the queue, not from a snapshot
    # The browser logs each reconnection tried while the relay was gone; nothing else may be.
    errors = floor.console_errors  # type: ignore[attr-defined]
    assert [e for e in errors if "WebSocket connection to" not in e] == [], errors


def test_the_central_brokers_floor_dashboard_follows_a_bridged_table_and_commands_it(
    browser: Browser, tmp_path: Path
) -> None:
    """The room's dashboards run on the central broker's host (docs/displays.md): the table
    publishes on its own Pi's broker, bridged by the shipped bridge.conf; the page reads the
    central copies through ``tablectl web`` there, and its command crosses the bridge back in."""
    with bridged_rig(tmp_path) as rig:
        table = LiveTable(rig.local).start()
        web = WebServer(rig.central.port).start()
        try:
            floor = open_page(browser, web, rig.central, "/floor", "supervisor", "ann", size=(1600, 900))
            state = table.until(lambda s: s.hand_number == 2 and betting(s))
            tile = floor.locator('.tile[data-table="1"]')
            expect(tile.locator(".state")).to_have_text("dealing", timeout=TIMEOUT_MS)
            expect(tile.locator(".stakes")).to_contain_text("NT")
            # The tiles' clocks go to the minute (a wall of texts changing every second is slow).
            clocks = floor.evaluate(
                "import('/static/js/display.js').then((m) => [0, 59, 61, 3599, 3700]"
                ".map((s) => m.sinceMinutes(1000 - s, 1000)))"
            )
            assert clocks == ["< 1 min", "< 1 min", "1 min", "59 min", "1 h 01"]
            tile.click()
            expect(floor.locator("#drill-title")).to_contain_text(
                f"hand {state.hand_number}", timeout=TIMEOUT_MS
            )
            # The hands' record crossed the bridge too: the hand in progress and the one before.
            expect(floor.locator("#hands li.hand")).to_have_count(2, timeout=TIMEOUT_MS)
            floor.locator("#cmd-by").fill("Ann Smith")
            floor.locator("#cmd-kind").select_option("void_hand")
            floor.locator("#cmd-review").click()
            floor.locator("#cmd-send").click()
            result = floor.locator("#cmd-results li").first
            expect(result).to_have_attribute("data-state", "ok", timeout=TIMEOUT_MS)
            assert [c.kind.value for c in table.commands if not hasattr(c, "reason")] == ["void_hand"]
            expect(tile.locator(".state")).to_have_text("between hands", timeout=TIMEOUT_MS)
            assert floor.console_errors == []  # type: ignore[attr-defined]
        finally:
            web.stop()
            table.stop()


def test_the_table_display_shows_stud_up_cards_and_draw_counts(
    browser: Browser, web: WebServer, table1_broker: LocalBroker
) -> None:
    """Stud's up cards lie face up for everyone and its down cards are backs; in a draw game how
    many cards each seat drew is public, never which (tablectl.views.secrecy)."""
    from tablectl.core.table import TableConfig
    from tablectl.sim.dealer import seated_table
    from tablectl.views import public as public_view

    stud = TableConfig(
        room="main", table="1", seats=8, game="F7S", ante=10, bring_in=25, small_bet=50, big_bet=100
    )
    live = LiveTable(table1_broker, state=seated_table(stud, 5)).start()
    try:
        page = open_page(browser, web, table1_broker, "/table", "public", size=(1280, 720))
        # Fourth street under way: the seats hold two down cards and one or two up.
        state = live.until(lambda s: s.hand is not None and bool(s.hand.game.up) and s.hand.game.street >= 1)
        view = public_view(state)
        seat = next(e for e in view["seats"] if e.get("up") and e.get("in_hand"))
        cards = page.locator(f'.seat[data-seat="{seat["seat"]}"] .held .card')
        expect(cards).to_have_count(seat["cards_held"], timeout=TIMEOUT_MS)
        expect(cards.locator("xpath=self::*[contains(@class, 'back')]")).to_have_count(
            seat["cards_held"] - len(seat["up"])
        )
        for card in seat["up"]:
            expect(page.locator(f'.seat[data-seat="{seat["seat"]}"] .held')).to_contain_text(card[0])
        # Stud has no button and no blinds (STUD-5: antes and the bring-in open the pot).
        assert view["button"] is None and view["blind_seats"] is None
        expect(page.locator(".badge.button, .badge.blind")).to_have_count(0)
        assert page.console_errors == []  # type: ignore[attr-defined]
    finally:
        live.stop()
    draw = TableConfig(
        room="main", table="1", seats=6, game="F2L3D", blinds=(25, 50), small_bet=50, big_bet=100
    )
    live = LiveTable(table1_broker, state=seated_table(draw, 4)).start()
    try:
        page = open_page(browser, web, table1_broker, "/table", "public", size=(1280, 720))
        state = live.until(lambda s: any(e.get("drew") for e in public_view(s)["seats"]))
        seat = next(e for e in public_view(state)["seats"] if e.get("drew"))
        badge = page.locator(f'.seat[data-seat="{seat["seat"]}"] .badge.drew')
        expect(badge).to_have_text(f"drew {' · '.join(str(n) for n in seat['drew'])}", timeout=TIMEOUT_MS)
    finally:
        live.stop()
