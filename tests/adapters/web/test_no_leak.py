"""No page ever holds a hole card that has not been shown: the dealer's screen, the table display
and the floor dashboard (its opened table too) follow a table dealt by the faulty dealer (boxed,
foreign and duplicate cards, misdeals, floor commands, devices lost) for hundreds of hands. Every
websocket frame each page receives is read as MQTT, and each message is checked against the cards
that were secret when the table published it (tablectl.views.secrecy); the DOM of each page is
checked against the cards secret now, at moments when every page has drawn the newest state."""

from __future__ import annotations

import bisect
import json
import random
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, WebSocket

from tablectl.adapters.mqtt.broker import LocalBroker
from tablectl.cli.audit import cards_named, hands_named, secret_cards
from tablectl.core.cards import CARD_TOKEN
from tests.adapters.web.test_displays import TIMEOUT_MS, open_page
from tests.helpers.browser import WebServer
from tests.helpers.faulty_dealer import Dealer
from tests.helpers.live_table import LiveTable

HANDS = 200


def varint(data: bytes | bytearray, pos: int) -> tuple[int, int] | None:
    value, shift = 0, 0
    while pos < len(data):
        byte = data[pos]
        value |= (byte & 127) << shift
        pos += 1
        if not byte & 128:
            return value, pos
        shift += 7
    return None


class MqttStream:
    """The PUBLISH packets in the bytes a broker sends a page (a websocket frame may carry part of a
    packet or several)."""

    def __init__(self) -> None:
        self.buffer = bytearray()
        self.publishes: list[tuple[str, bytes]] = []

    def feed(self, data: bytes) -> None:
        self.buffer += data
        while len(self.buffer) >= 2:
            length = varint(self.buffer, 1)
            if length is None or len(self.buffer) < length[1] + length[0]:
                return
            header, (size, start) = self.buffer[0], length
            packet = bytes(self.buffer[start : start + size])
            del self.buffer[: start + size]
            if header >> 4 != 3:
                continue
            topic_length = int.from_bytes(packet[:2], "big")
            topic = packet[2 : 2 + topic_length].decode()
            pos = 2 + topic_length + (2 if (header >> 1) & 3 else 0)
            properties = varint(packet, pos)
            assert properties is not None
            self.publishes.append((topic, packet[properties[1] + properties[0] :]))


def watch(page: Page) -> MqttStream:
    stream = MqttStream()

    def on_socket(socket: WebSocket) -> None:
        socket.on(
            "framereceived",
            lambda payload: stream.feed(payload if isinstance(payload, bytes) else payload.encode()),
        )

    page.on("websocket", on_socket)
    return stream


@pytest.fixture
def table(table1_broker: LocalBroker) -> Iterator[LiveTable]:
    # tick_interval None: every message goes out from a publish_state call, so its seq says which
    # state it was made from (no summary held back and sent later by the publisher's own tick).
    live = LiveTable(table1_broker, dealer=Dealer(random.Random(11), 0.04), options={"tick_interval": None})
    live.start()
    try:
        yield live
    finally:
        live.stop()


def drawn(page: Page, selector: str, seq: int) -> None:
    page.wait_for_function(
        "([selector, seq]) => { const e = document.querySelector(selector);"
        " return e && Number((String(e.dataset.seq).match(/(\\d+)/) || [])[1]) >= seq; }",
        arg=[selector, seq],
        timeout=TIMEOUT_MS,
    )
    page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")


# What a page shows of the hand in progress: what it shows of an earlier hand (the floor's alert
# log, a replay: each marked with its data-hand) named the cards face up then, and a card of an
# earlier hand may be a hole card now.
DOM_CARDS = """(hand) => {
  const body = document.body.cloneNode(true);
  for (const old of body.querySelectorAll("[data-hand]")) if (old.dataset.hand !== String(hand)) old.remove();
  const named = [...body.querySelectorAll("[data-card]")].map((e) => e.dataset.card);
  return { named, text: body.textContent };
}"""


def test_no_page_ever_holds_a_hole_card_not_yet_shown(
    browser: Browser, web: WebServer, table1_broker: LocalBroker, table: LiveTable
) -> None:
    pages = {
        "dealer": open_page(browser, web, table1_broker, "/dealer", "dealer"),
        "table": open_page(browser, web, table1_broker, "/table", "public", size=(1280, 720)),
        "floor": open_page(browser, web, table1_broker, "/floor", "floor", None, size=(1280, 800)),
    }
    streams = {name: watch(page) for name, page in pages.items()}
    for page in pages.values():
        page.reload()  # the websocket is watched from its first frame
    for page in pages.values():
        page.wait_for_selector('#connection[data-state="connected"]', timeout=TIMEOUT_MS)
    pages["floor"].locator('.tile[data-table="1"]').click(timeout=TIMEOUT_MS)
    pages["floor"].wait_for_selector("#drill[data-seq]", timeout=TIMEOUT_MS)

    dom_checks = 0
    for hand in range(HANDS):
        table.until(lambda s: s.hand is not None)
        if hand % 25 == 0:
            # Mid-hand, hole cards out: every page has drawn the newest state, then its DOM is read.
            table.until(lambda s: s.hand is None or s.hand.hole_dealt >= 4)
            retained = table.publisher.retained()
            seq = {
                leaf: json.loads(retained[f"cardroom/main/table/1/{leaf}"])["seq"]
                for leaf in ("public", "dealer", "floor")
            }
            drawn(pages["dealer"], '[data-topic="cardroom/main/table/1/dealer"]', seq["dealer"])
            drawn(pages["table"], '[data-topic="cardroom/main/table/1/public"]', seq["public"])
            drawn(pages["floor"], "#drill", seq["floor"])
            secret = secret_cards(table.state)
            assert secret, "a check while no card is secret checks nothing"
            for name, page in pages.items():
                dom: dict[str, Any] = page.evaluate(DOM_CARDS, table.state.hand_number)
                leaked = (set(dom["named"]) | set(CARD_TOKEN.findall(dom["text"]))) & secret
                assert not leaked, f"{name} page shows {leaked} in hand {table.state.hand_number}"
            dom_checks += 1
        table.until(lambda s: s.hand is None)
    assert table.publisher.wait_delivered(20)
    # Every page has drawn the last state: the frames read below hold all it was sent.
    retained = table.publisher.retained()
    last = {
        leaf: json.loads(retained[f"cardroom/main/table/1/{leaf}"])["seq"]
        for leaf in ("public", "dealer", "floor")
    }
    drawn(pages["dealer"], '[data-topic="cardroom/main/table/1/dealer"]', last["dealer"])
    drawn(pages["table"], '[data-topic="cardroom/main/table/1/public"]', last["public"])
    drawn(pages["floor"], "#drill", last["floor"])
    seqs = [seq for seq, _ in table.secrets]
    checked = 0
    for name, stream in streams.items():
        assert stream.publishes, f"{name} received nothing"
        for topic, payload in stream.publishes:
            try:
                message = json.loads(payload)
            except ValueError:
                continue  # the bridge's 1 or 0
            if not isinstance(message, dict) or message.get("epoch") != table.publisher.epoch:
                continue
            index = bisect.bisect_left(seqs, message["seq"])
            secret = table.secrets[min(index, len(seqs) - 1)][1]
            named = cards_named(message)
            if topic.endswith("/hands"):  # a finished hand names what was face up in it
                named, past = hands_named(message)
                for hand, cards in past:
                    leaked_then = cards & table.hidden_at_end[hand]
                    assert not leaked_then, f"{name} received {leaked_then} of hand {hand} on {topic}"
            leaked = named & secret
            assert not leaked, f"{name} received {leaked} on {topic} (seq {message['seq']})"
            checked += 1
    hands = table.state.hand_number
    rulings = sum(1 for e in table.effects if type(e).__name__ == "Ruling")
    assert hands >= HANDS and dom_checks >= HANDS // 25 and checked > 5_000 and rulings > 100, (
        hands,
        checked,
        rulings,
    )
