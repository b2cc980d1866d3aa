"""MQTT over websockets, relayed byte for byte to the broker's TCP listener.

Debian 12's mosquitto (2.0.11) serves its own websockets listener so slowly that a floor
dashboard's retained burst takes tens of seconds (bench/transport.py measures it). The pages
connect here instead: each websocket on ``/mqtt`` (subprotocol ``mqtt``) gets one TCP
connection to the broker, and the bytes go through unread. The broker still sees every
CONNECT, so it authenticates every page and applies its ACL; the relay knows no password.

MQTT over websockets lets a frame hold part of a packet or several (MQTT 5, 6.0), so each TCP
read becomes one binary frame and each frame one TCP write, with no framing of our own.

Backpressure both ways: a frame is written to the broker and drained before the next is read
(aiohttp stops reading the browser's socket while its queue is full), and the next TCP read
waits for the frame before it to be sent (aiohttp drains the browser's socket every 256 KiB):
a page that stops reading stalls only its own broker connection, whose QoS 1 flow the broker
then holds back (its max_inflight_messages), and the relay's memory stays bounded per client.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass

from aiohttp import WSCloseCode, WSMsgType, web

log = logging.getLogger(__name__)

SUBPROTOCOL = "mqtt"  # MQTT 3.1.1 and 5 over websockets (MQTT 5, 6.0)
# A frame bigger than the broker's max_packet_size (256 KiB) could only be refused by it; leave
# room for a packet split across frames arriving with the next one.
MAX_FRAME = 1 << 20
READ_CHUNK = 1 << 16
CONNECT_TIMEOUT = 5.0

# Close codes (RFC 6455, 7.4.1) and reasons the page shows; a reason is at most 123 bytes.
TRY_AGAIN_LATER = 1013  # the broker is down: mqtt.js reconnects by itself


@dataclass(frozen=True)
class BrokerAddress:
    """Where the relay connects: the broker's plain MQTT listener (TCP)."""

    host: str
    port: int

    def __str__(self) -> str:
        return f"{self.host}:{self.port}"


# The open relays, closed with a reason when the server stops (web.AppKey: typed app state).
OPEN_RELAYS = web.AppKey("open_relays", set[web.WebSocketResponse])
BROKER = web.AppKey("broker", BrokerAddress)


async def relay(request: web.Request) -> web.StreamResponse:
    """``GET /mqtt``: one websocket, one TCP connection to the broker, bytes copied both ways."""
    broker = request.app[BROKER]
    socket = web.WebSocketResponse(protocols=(SUBPROTOCOL,), max_msg_size=MAX_FRAME, compress=False)
    if not socket.can_prepare(request).ok:
        raise web.HTTPBadRequest(text="/mqtt is MQTT over websockets: connect with subprotocol mqtt\n")
    await socket.prepare(request)
    peer = request.remote or "?"
    if socket.ws_protocol != SUBPROTOCOL:
        await socket.close(code=WSCloseCode.PROTOCOL_ERROR, message=b"subprotocol mqtt required")
        return socket
    try:
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection(broker.host, broker.port), CONNECT_TIMEOUT
        )
    except (OSError, TimeoutError) as exc:
        log.warning("web: %s: broker %s unreachable: %s", peer, broker, exc)
        await socket.close(code=TRY_AGAIN_LATER, message=f"broker unreachable at {broker}".encode())
        return socket
    opened = request.app[OPEN_RELAYS]
    opened.add(socket)
    log.info("web: %s: relaying to the broker at %s", peer, broker)
    try:
        await _copy_both_ways(socket, reader, writer)
    finally:
        opened.discard(socket)
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()
        log.info("web: %s: closed (%s)", peer, socket.close_code)
    return socket


async def _copy_both_ways(
    socket: web.WebSocketResponse, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
) -> None:
    """Until either side ends: then the other is closed too (a half-open MQTT link is useless)."""
    upstream = asyncio.create_task(browser_to_broker(socket, writer))
    downstream = asyncio.create_task(broker_to_browser(reader, socket))
    try:
        done, pending = await asyncio.wait((upstream, downstream), return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in (upstream, downstream):
            task.cancel()
        await asyncio.gather(upstream, downstream, return_exceptions=True)
    if upstream in done and not socket.closed:
        # The page sent something that is not MQTT's binary frames: say so as it closes.
        await socket.close(code=WSCloseCode.UNSUPPORTED_DATA, message=b"MQTT goes in binary frames")


async def browser_to_broker(socket: web.WebSocketResponse, writer: asyncio.StreamWriter) -> None:
    """Each binary frame to the broker, drained before the next frame is read."""
    async for message in socket:
        if message.type is not WSMsgType.BINARY:
            return  # text: not MQTT (closing, closed and errors end the iteration)
        writer.write(message.data)
        await writer.drain()


async def broker_to_browser(reader: asyncio.StreamReader, socket: web.WebSocketResponse) -> None:
    """Each TCP read as one binary frame; the broker's end (a refused login, a crash, a stop)
    closes the websocket with the reason, and the page reconnects."""
    try:
        while chunk := await reader.read(READ_CHUNK):
            await socket.send_bytes(chunk)
    except ConnectionResetError:
        if not socket.closed:
            await socket.close(code=WSCloseCode.GOING_AWAY, message=b"lost the broker")
        return
    if not socket.closed:
        await socket.close(code=WSCloseCode.GOING_AWAY, message=b"the broker closed the connection")


async def close_open_relays(app: web.Application) -> None:
    """On shutdown: every page is told the server is going, and reconnects to the next one."""
    opened: set[web.WebSocketResponse] = app[OPEN_RELAYS]
    for socket in list(opened):
        await socket.close(code=WSCloseCode.GOING_AWAY, message=b"the web server is stopping")
