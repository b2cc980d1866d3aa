"""The /mqtt relay: MQTT bytes through unchanged, the broker still the judge of logins and ACL,
both sides closed together with a reason, backpressure, and hundreds of pages at once.

The clients speak MQTT 3.1.1 packets built by hand (a few bytes each), so every byte the broker
sees is one the test wrote: the relay is checked as a pipe, not through a client library.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import struct
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import aiohttp
import pytest
from aiohttp import WSMsgType, web

from tablectl.adapters.mqtt.broker import LocalBroker, free_port
from tablectl.adapters.web import BrokerAddress, run_in_loop
from tablectl.adapters.web.relay import OPEN_RELAYS
from tests.helpers.brokers import Listener
from tests.helpers.browser import WebServer

TIMEOUT = 15.0


# -- MQTT 3.1.1 packets, by hand -------------------------------------------------------------


def _text(value: str) -> bytes:
    data = value.encode()
    return struct.pack("!H", len(data)) + data


def _length(n: int) -> bytes:
    out = bytearray()
    while True:
        n, digit = divmod(n, 128)
        out.append(digit | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _packet(kind: int, body: bytes) -> bytes:
    return bytes([kind]) + _length(len(body)) + body


def connect(user: str, password: str, client_id: str, will: tuple[str, bytes] | None = None) -> bytes:
    flags = 0xC2 | (0x04 if will else 0)  # user name, password, clean session (and a will)
    payload = _text(client_id)
    if will:
        payload += _text(will[0]) + struct.pack("!H", len(will[1])) + will[1]
    payload += _text(user) + _text(password)
    return _packet(0x10, _text("MQTT") + bytes([4, flags]) + struct.pack("!H", 30) + payload)


def subscribe(packet_id: int, *topics: str) -> bytes:
    return _packet(0x82, struct.pack("!H", packet_id) + b"".join(_text(t) + b"\x01" for t in topics))


def publish(topic: str, payload: bytes) -> bytes:
    return _packet(0x30, _text(topic) + payload)  # QoS 0, not retained


class Packets:
    """MQTT packets out of websocket frames, which may split or join them."""

    def __init__(self, socket: aiohttp.ClientWebSocketResponse) -> None:
        self.socket, self.buffer = socket, b""

    async def next(self) -> tuple[int, bytes]:
        while True:
            parsed = self._parse()
            if parsed is not None:
                return parsed
            message = await asyncio.wait_for(self.socket.receive(), TIMEOUT)
            assert message.type is WSMsgType.BINARY, (message.type, message.data, message.extra)
            self.buffer += message.data

    def _parse(self) -> tuple[int, bytes] | None:
        length, multiplier, index = 0, 1, 1
        while True:
            if index >= len(self.buffer):
                return None
            byte = self.buffer[index]
            length += (byte & 0x7F) * multiplier
            multiplier, index = multiplier * 128, index + 1
            if not byte & 0x80:
                break
        if len(self.buffer) < index + length:
            return None
        kind, body = self.buffer[0], self.buffer[index : index + length]
        self.buffer = self.buffer[index + length :]
        return kind, body

    async def expect(self, kind: int) -> bytes:
        got, body = await self.next()
        assert got >> 4 == kind >> 4, f"expected packet type {kind >> 4}, got {got >> 4}: {body!r}"
        return body


def published(kind: int, body: bytes) -> tuple[str, bytes, bool]:
    """(topic, payload, retained) of a PUBLISH packet at QoS 0 or 1."""
    (size,) = struct.unpack("!H", body[:2])
    topic = body[2 : 2 + size].decode()
    rest = body[2 + size + (2 if kind & 0x06 else 0) :]
    return topic, rest, bool(kind & 0x01)


# -- the relay, in this test's loop or as its own process ------------------------------------


@asynccontextmanager
async def relay_to(port: int) -> AsyncIterator[tuple[str, web.Application]]:
    listen = ("127.0.0.1", free_port())
    runner = await run_in_loop(listen, BrokerAddress("127.0.0.1", port))
    try:
        yield f"ws://127.0.0.1:{listen[1]}/mqtt", runner.app
    finally:
        await runner.cleanup()


@asynccontextmanager
async def page_socket(url: str) -> AsyncIterator[aiohttp.ClientWebSocketResponse]:
    async with aiohttp.ClientSession() as session, session.ws_connect(url, protocols=("mqtt",)) as socket:
        assert socket.protocol == "mqtt"
        yield socket


def login(broker: LocalBroker, role: str, table: str | None = "1") -> tuple[str, str]:
    assert broker.credentials is not None
    return broker.credentials.user(role, table)


def retain_status(broker: LocalBroker, text: str = "online") -> None:
    """A retained status and dealer snapshot on table 1, as the table leaves them."""
    with Listener(broker, "admin", None, topics=("cardroom/main/table/1/#",)) as admin:
        for topic, payload in (("status", {"state": text}), ("dealer", {"view": "dealer"})):
            info = admin.client.publish(f"cardroom/main/table/1/{topic}", json.dumps(payload), 1, retain=True)
            info.wait_for_publish(TIMEOUT)


async def closed(socket: aiohttp.ClientWebSocketResponse) -> tuple[int | None, str]:
    """Read to the close frame: its code and reason."""
    while True:
        message = await asyncio.wait_for(socket.receive(), TIMEOUT)
        if message.type in (WSMsgType.CLOSE, WSMsgType.CLOSED, WSMsgType.CLOSING):
            return socket.close_code, str(message.extra or "")


async def relays_ended(app: web.Application) -> bool:
    """Whether the relay's handlers (in this loop) all finish, given the loop a few turns: the
    page may read the close frame before the handler has closed the broker's side."""
    for _ in range(10_000):
        if not app[OPEN_RELAYS]:
            return True
        await asyncio.sleep(0)
    return False


# -- the tests --------------------------------------------------------------------------------


def test_a_page_logs_in_through_the_relay_and_reads_what_its_role_may(table1_broker: LocalBroker) -> None:
    retain_status(table1_broker)

    async def go() -> None:
        async with relay_to(table1_broker.port) as (url, _), page_socket(url) as socket:
            packets = Packets(socket)
            await socket.send_bytes(connect(*login(table1_broker, "public"), "relay-test-public"))
            assert (await packets.expect(0x20))[1] == 0  # CONNACK: accepted
            # public.1 may not read the dealer view: mosquitto grants the subscription but
            # delivers nothing the ACL denies, so the retained status is the first message (the
            # dealer snapshot, subscribed to first, would have come before it).
            await socket.send_bytes(
                subscribe(1, "cardroom/main/table/1/dealer") + subscribe(2, "cardroom/main/table/1/status")
            )
            await packets.expect(0x90)
            await packets.expect(0x90)
            kind, body = await packets.next()
            assert published(kind, body) == ("cardroom/main/table/1/status", b'{"state": "online"}', True)

    asyncio.run(go())


def test_a_wrong_password_is_refused_by_the_broker_and_the_socket_closed(table1_broker: LocalBroker) -> None:
    async def go() -> None:
        async with relay_to(table1_broker.port) as (url, _), page_socket(url) as socket:
            packets = Packets(socket)
            user, _ = login(table1_broker, "dealer")
            await socket.send_bytes(connect(user, "not-the-password", "relay-test-wrong"))
            assert (await packets.expect(0x20))[1] in (4, 5)  # bad user name or password / not authorised
            assert await closed(socket) == (1001, "the broker closed the connection")

    asyncio.run(go())


def test_a_broker_that_is_down_closes_the_socket_with_the_reason() -> None:
    port = free_port()  # nothing listens there

    async def go() -> None:
        async with relay_to(port) as (url, app), page_socket(url) as socket:
            assert await closed(socket) == (1013, f"broker unreachable at 127.0.0.1:{port}")
            assert not app[OPEN_RELAYS]

    asyncio.run(go())


def test_a_broker_killed_mid_session_closes_the_page_too(table1_broker: LocalBroker) -> None:
    async def go() -> None:
        async with relay_to(table1_broker.port) as (url, app), page_socket(url) as socket:
            packets = Packets(socket)
            await socket.send_bytes(connect(*login(table1_broker, "dealer"), "relay-test-killed"))
            await packets.expect(0x20)
            assert len(app[OPEN_RELAYS]) == 1
            table1_broker.kill()
            code, reason = await closed(socket)
            assert code == 1001 and reason in ("lost the broker", "the broker closed the connection")
            assert await relays_ended(app)

    asyncio.run(go())


def test_a_page_that_goes_away_ends_its_broker_connection(table1_broker: LocalBroker) -> None:
    # The broker publishes a client's will when its connection ends without a DISCONNECT: here
    # that shows the relay closed the TCP side when the page vanished.
    will_topic = "cardroom/main/table/1/relay-test-will"
    with Listener(table1_broker, "admin", None, topics=(will_topic,)) as admin:

        async def go() -> None:
            async with relay_to(table1_broker.port) as (url, app):
                async with page_socket(url) as socket:
                    packets = Packets(socket)
                    will = (will_topic, b"page gone")
                    await socket.send_bytes(connect(*login(table1_broker, "admin", None), "relay-will", will))
                    assert (await packets.expect(0x20))[1] == 0
                # The page's websocket is closed here, with no MQTT DISCONNECT.
                assert await asyncio.to_thread(admin.wait_for, lambda: bool(admin.on("relay-test-will")))
                assert await relays_ended(app)

        asyncio.run(go())
    assert admin.on("relay-test-will")[0].payload == b"page gone"


def test_text_frames_are_refused() -> None:
    async def broker(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read()  # a broker that never answers
        writer.close()

    async def go() -> None:
        server = await asyncio.start_server(broker, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        async with server, relay_to(port) as (url, _), page_socket(url) as socket:
            await socket.send_str("CONNECT")
            assert await closed(socket) == (1003, "MQTT goes in binary frames")

    asyncio.run(go())


def test_bytes_go_through_unchanged_and_a_page_that_stops_reading_holds_the_broker_back() -> None:
    """A stand-in broker writes 64 MiB to a page that reads nothing: the relay does not swallow
    it (its writes to the relay stall well short of the whole), and once the page reads, every
    byte arrives in order."""
    total, chunk = 64 << 20, 1 << 16
    data = os.urandom(chunk)
    progress: dict[str, int] = {"written": 0}

    async def go() -> None:
        stall = asyncio.Event()
        expected = hashlib.sha256()

        async def broker(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            while progress["written"] < total:
                writer.write(data)
                try:
                    await asyncio.wait_for(writer.drain(), 2.0)
                except TimeoutError:
                    stall.set()  # the page's backlog reached back here
                    await writer.drain()
                progress["written"] += chunk
            writer.close()

        for _ in range(total // chunk):
            expected.update(data)
        server = await asyncio.start_server(broker, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        async with server, relay_to(port) as (url, _), page_socket(url) as socket:
            await asyncio.wait_for(stall.wait(), TIMEOUT)
            assert progress["written"] < total // 2, progress  # buffered on the way: bounded
            received = hashlib.sha256()
            count = 0
            while count < total:
                message = await asyncio.wait_for(socket.receive(), TIMEOUT)
                assert message.type is WSMsgType.BINARY
                received.update(message.data)
                count += len(message.data)
            assert count == total and received.digest() == expected.digest()

    asyncio.run(go())


def test_two_hundred_and_fifty_pages_at_once(table1_broker: LocalBroker, web: WebServer) -> None:
    """250 floor screens through one ``tablectl web`` process: each logs in and reads the retained
    status; then they all leave and the broker has them all disconnected."""
    retain_status(table1_broker, "online-250")
    url = web.url("/mqtt").replace("http://", "ws://")
    floor = login(table1_broker, "floor", None)

    async def one(session: aiohttp.ClientSession, number: int) -> bytes:
        async with session.ws_connect(url, protocols=("mqtt",)) as socket:
            packets = Packets(socket)
            await socket.send_bytes(connect(*floor, f"relay-many-{number}"))
            assert (await packets.expect(0x20))[1] == 0
            await socket.send_bytes(subscribe(1, "cardroom/main/table/1/status"))
            await packets.expect(0x90)
            kind, body = await packets.next()
            return published(kind, body)[1]

    async def go() -> list[bytes]:
        connector = aiohttp.TCPConnector(limit=0)
        async with aiohttp.ClientSession(connector=connector) as session:
            return await asyncio.gather(*(one(session, n) for n in range(250)))

    assert asyncio.run(go()) == [b'{"state": "online-250"}'] * 250


@pytest.mark.parametrize("offered", [(), ("mqttv3.1",)])
def test_the_mqtt_subprotocol_is_required(offered: tuple[str, ...]) -> None:
    async def go() -> None:
        async with (
            relay_to(free_port()) as (url, _),
            aiohttp.ClientSession() as session,
            session.ws_connect(url, protocols=offered) as socket,
        ):
            assert await closed(socket) == (1002, "subprotocol mqtt required")

    asyncio.run(go())
