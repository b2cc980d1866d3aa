"""``tablectl web``: one aiohttp application serving the display pages and relaying ``/mqtt``.

It runs as a process of its own (deploy/tablectl-web.service), never inside the table's
service: two hundred floor dashboards' websockets must not take the interpreter the card path
runs on.
"""

from __future__ import annotations

import logging
import resource
from pathlib import Path

from aiohttp import web

from tablectl.adapters.web.pages import FILES, load_files, serve_file, static_folder
from tablectl.adapters.web.relay import BROKER, OPEN_RELAYS, BrokerAddress, close_open_relays, relay

log = logging.getLogger(__name__)


def make_app(broker: BrokerAddress, folder: Path | None = None) -> web.Application:
    """The pages of ``folder`` (default: the installed static/) and the relay to ``broker``."""
    app = web.Application()
    app[BROKER] = broker
    app[OPEN_RELAYS] = set()
    app[FILES] = load_files(folder or static_folder())
    app.router.add_get("/mqtt", relay, allow_head=False)
    # Only the paths in the table are answered; everything else is 404 (pages.serve_file).
    app.router.add_get("/{path:.*}", serve_file)
    app.on_shutdown.append(close_open_relays)
    return app


def parse_address(text: str, default_host: str) -> tuple[str, int]:
    """``host:port``, ``:port`` or ``port``; a clear error otherwise (IPv6 as ``[::1]:8080``)."""
    host, sep, port = text.rpartition(":")
    if not sep:
        host, port = "", text
    host = host.strip("[]") or default_host
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"{text!r}: expected HOST:PORT, e.g. 0.0.0.0:8080 or 127.0.0.1:1883")
    return host, int(port)


def _raise_open_file_limit() -> None:
    # Each page holds two sockets here (its websocket and its broker connection): 200 floor
    # dashboards need more than the usual soft limit of 1024 descriptors leaves to spare.
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and (hard == resource.RLIM_INFINITY or soft < hard):
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard if hard != resource.RLIM_INFINITY else 65536, hard))


def serve(listen: tuple[str, int], broker: BrokerAddress, folder: Path | None = None) -> None:
    """Serve until SIGINT or SIGTERM; then every open websocket is closed with a reason."""
    _raise_open_file_limit()
    app = make_app(broker, folder)
    host, port = listen

    def announce(_: object) -> None:
        # Printed once the socket listens: the tests and the demo wait for this line.
        print(f"tablectl web: http://{host}:{port}/ (pages), /mqtt relayed to {broker}", flush=True)

    web.run_app(app, host=host, port=port, print=announce, access_log=None, handle_signals=True)


async def run_in_loop(
    listen: tuple[str, int], broker: BrokerAddress, folder: Path | None = None
) -> web.AppRunner:
    """The same application started in a running loop (the benchmark's and tests' in-process server);
    ``await runner.cleanup()`` stops it."""
    runner = web.AppRunner(make_app(broker, folder), access_log=None)
    await runner.setup()
    await web.TCPSite(runner, listen[0], listen[1]).start()
    return runner
