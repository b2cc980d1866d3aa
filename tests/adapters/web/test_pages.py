"""The pages as served: their addresses, content types, caching, nothing outside static/, and no
password in anything the server serves."""

from __future__ import annotations

import asyncio
import gzip
from pathlib import Path
from typing import Any

import pytest
from aiohttp import ClientSession, web
from aiohttp.test_utils import TestClient, TestServer

from tablectl.adapters.mqtt.broker import LocalBroker
from tablectl.adapters.web import BrokerAddress, make_app, parse_address
from tablectl.adapters.web.pages import FILES, PAGE_ROUTES, load_files, static_folder
from tests.helpers.browser import WebServer

NOWHERE = BrokerAddress("127.0.0.1", 9)  # these tests open no websocket


def fetch(path: str, method: str = "GET", headers: dict[str, str] | None = None) -> tuple[int, Any, bytes]:
    async def go() -> tuple[int, Any, bytes]:
        async with TestClient(TestServer(make_app(NOWHERE))) as client:
            # skip_auto_headers: aiohttp's client asks for gzip by itself; each test says what it takes.
            response = await client.request(
                method, path, headers=headers or {}, skip_auto_headers=("Accept-Encoding",)
            )
            return response.status, response.headers, await response.read()

    return asyncio.run(go())


@pytest.mark.parametrize(
    ("path", "content_type", "marker"),
    [
        ("/", "text/html; charset=utf-8", b'href="/dealer"'),
        ("/dealer", "text/html; charset=utf-8", b'data-page="dealer"'),
        ("/table", "text/html; charset=utf-8", b'data-page="table"'),
        ("/floor", "text/html; charset=utf-8", b'data-page="floor"'),
        ("/static/js/connect.js", "text/javascript; charset=utf-8", b"export function connectPage"),
        ("/static/vendor/mqtt.min.js", "text/javascript; charset=utf-8", b"mqtt"),
        ("/static/css/displays.css", "text/css; charset=utf-8", b"body"),
        ("/static/vendor/mqtt.json", "application/json", b'"sha256"'),
        ("/static/vendor/mqtt.LICENSE", "text/plain; charset=utf-8", b"MIT"),
        ("/static/favicon.svg", "image/svg+xml", b"<svg"),
    ],
)
def test_each_address_serves_its_file_with_its_type(path: str, content_type: str, marker: bytes) -> None:
    status, headers, body = fetch(path)
    assert status == 200 and headers["Content-Type"] == content_type and marker in body
    assert headers["Cache-Control"] == "no-cache" and headers["X-Content-Type-Options"] == "nosniff"
    assert "connect-src 'self'" in headers["Content-Security-Policy"]


def test_the_index_links_every_page() -> None:
    _, _, body = fetch("/")
    assert all(f'href="{route}"'.encode() in body for route in PAGE_ROUTES if route != "/")


@pytest.mark.parametrize(
    "path",
    [
        "/static/../pages.py",
        "/static/%2e%2e/relay.py",
        "/static/..%2frelay.py",
        "/static/js/../../server.py",
        "/static//etc/passwd",
        "/../../../../etc/passwd",
        "/static/",
        "/static/js",
        "/static/js/",
        "/static",
        "/dealer.html",
        "/dealer/",
        "/nothing",
    ],
)
def test_nothing_outside_the_table_of_files_is_served(path: str) -> None:
    # Folders are never listed, and no path reaches a file that is not in static/.
    status, _, body = fetch(path)
    assert status == 404, body[:200]


def test_only_get_and_head() -> None:
    assert fetch("/dealer", "POST")[0] == 405
    status, headers, body = fetch("/dealer", "HEAD")
    assert status == 200 and body == b"" and int(headers["Content-Length"]) > 0


def test_a_screen_revalidates_with_the_etag() -> None:
    _, headers, _ = fetch("/static/js/connect.js")
    status, again, body = fetch("/static/js/connect.js", headers={"If-None-Match": headers["ETag"]})
    assert status == 304 and body == b"" and again["ETag"] == headers["ETag"]
    assert fetch("/static/js/connect.js", headers={"If-None-Match": '"other"'})[0] == 200


def test_text_is_gzipped_for_a_browser_that_takes_it() -> None:
    _, plain_headers, plain = fetch("/static/vendor/mqtt.min.js")

    async def go() -> bytes:
        async with TestClient(TestServer(make_app(NOWHERE))) as client:
            response = await client.get("/static/vendor/mqtt.min.js", headers={"Accept-Encoding": "gzip"})
            assert response.headers["Content-Encoding"] == "gzip"
            return await response.read()  # aiohttp's client inflates it

    assert "Content-Encoding" not in plain_headers
    assert asyncio.run(go()) == plain


def test_a_file_of_an_unknown_type_stops_the_server_at_start(tmp_path: Path) -> None:
    (tmp_path / "dealer.html").write_text("<!doctype html>")
    (tmp_path / "notes.md").write_text("# not a page")
    with pytest.raises(ValueError, match=r"notes\.md: no content type for \.md"):
        load_files(tmp_path)


def test_editor_leftovers_are_not_served(tmp_path: Path) -> None:
    (tmp_path / "dealer.html").write_text("<!doctype html>")
    (tmp_path / ".dealer.html.swp").write_text("x")
    assert sorted(load_files(tmp_path)) == ["/dealer", "/static/dealer.html"]


def test_get_on_mqtt_without_a_websocket_says_what_it_is() -> None:
    status, _, body = fetch("/mqtt")
    assert status == 400 and b"MQTT over websockets" in body


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("0.0.0.0:8080", ("0.0.0.0", 8080)),
        (":8080", ("dflt", 8080)),
        ("8080", ("dflt", 8080)),
        ("[::1]:1883", ("::1", 1883)),
    ],
)
def test_addresses(text: str, expected: tuple[str, int]) -> None:
    assert parse_address(text, "dflt") == expected


@pytest.mark.parametrize("text", ["host", "host:", "host:0", "host:70000", "host:http"])
def test_a_bad_address_says_the_form(text: str) -> None:
    with pytest.raises(ValueError, match="expected HOST:PORT"):
        parse_address(text, "dflt")


def test_no_served_file_holds_a_password(table1_broker: LocalBroker, web: WebServer) -> None:
    """Every path the server answers, fetched over HTTP from ``tablectl web`` (plain and gzipped),
    holds none of the passwords mkusers generated for the broker."""
    assert table1_broker.credentials is not None
    passwords = [password for _, password in table1_broker.credentials.users.values()]
    assert len(passwords) >= 6 and all(len(p) >= 16 for p in passwords)
    paths = sorted(load_files(static_folder()))
    assert {"/", "/dealer", "/table", "/floor", "/static/vendor/mqtt.min.js"} <= set(paths)

    async def fetch_all() -> list[tuple[str, bytes]]:
        bodies = []
        async with ClientSession(auto_decompress=False) as session:
            for path in paths:
                for encoding in ("identity", "gzip"):
                    async with session.get(web.url(path), headers={"Accept-Encoding": encoding}) as response:
                        assert response.status == 200, path
                        body = await response.read()
                        if response.headers.get("Content-Encoding") == "gzip":
                            body = gzip.decompress(body)
                        bodies.append((path, body))
        return bodies

    served = asyncio.run(fetch_all())
    leaks = [(path, p[:4] + "...") for path, body in served for p in passwords if p.encode() in body]
    assert not leaks, f"a served file holds a broker password: {leaks}"


def test_the_app_answers_only_from_its_table() -> None:
    app = make_app(NOWHERE)
    assert isinstance(app, web.Application)
    assert set(app[FILES]) == set(load_files(static_folder()))
