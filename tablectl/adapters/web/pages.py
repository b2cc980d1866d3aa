"""The display pages: the files of ``static/``, served from memory by exact path.

The table of files is made once at start: a request names a file in it or gets 404, so no
path can leave the folder, no folder is listed, and only types named here are served (a file
of another type in ``static/`` stops the server at start, so it is never served by accident).
No file may hold a password: the pages take their credentials from the address's fragment or
the login form (static/js/connect.js), never from the server.

Caching: every response carries an ETag and ``Cache-Control: no-cache``: a screen revalidates
(a 304 on the LAN costs nothing) and so shows the new pages after an upgrade at its next load.
"""

from __future__ import annotations

import gzip
import hashlib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from aiohttp import web

CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",  # ES modules need a JavaScript type
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".ico": "image/x-icon",
    ".LICENSE": "text/plain; charset=utf-8",
    ".txt": "text/plain; charset=utf-8",
}
COMPRESSIBLE = (".html", ".js", ".css", ".json", ".svg", ".LICENSE", ".txt")
# The short addresses a screen is pointed at; the pages themselves live under /static/ too.
PAGE_ROUTES = {"/": "index.html", "/dealer": "dealer.html", "/table": "table.html", "/floor": "floor.html"}

# The pages talk only to this server (their scripts, and the websocket on /mqtt), and no other
# site may frame them.
SECURITY_HEADERS = {
    "Content-Security-Policy": "; ".join(
        (
            "default-src 'self'",
            "connect-src 'self'",
            "img-src 'self' data:",
            # mqtt.js keeps its keepalive timer in a worker made from a blob, which background
            # tabs do not throttle
            "worker-src 'self' blob:",
            "frame-ancestors 'none'",
            "base-uri 'none'",
        )
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


def static_folder() -> Path:
    """The pages' folder, installed with the package (pyproject.toml names it as package data)."""
    folder = resources.files("tablectl.adapters.web") / "static"
    if not isinstance(folder, Path):
        raise ValueError(f"the display pages are not on disk ({folder}): install tablectl unzipped")
    return folder


@dataclass(frozen=True)
class ServedFile:
    body: bytes
    gzipped: bytes | None  # None: not worth compressing (images)
    content_type: str
    etag: str


def _kind(path: Path) -> str:
    return ".LICENSE" if path.name.endswith(".LICENSE") else path.suffix


def load_files(folder: Path) -> dict[str, ServedFile]:
    """Every file under ``folder`` by its URL path (``/static/js/connect.js``), plus the pages'
    short addresses (``/dealer``); a file of a type not in CONTENT_TYPES is an error."""
    files: dict[str, ServedFile] = {}
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        relative = path.relative_to(folder).as_posix()
        if any(part.startswith(".") for part in path.relative_to(folder).parts):
            continue  # editor and VCS leftovers are nothing a page loads
        kind = _kind(path)
        if kind not in CONTENT_TYPES:
            raise ValueError(
                f"{path}: no content type for {kind or 'a file without an extension'}: "
                f"add it to CONTENT_TYPES in {__file__} or move the file out of static/"
            )
        body = path.read_bytes()
        files[f"/static/{relative}"] = ServedFile(
            body,
            gzip.compress(body, 9, mtime=0) if kind in COMPRESSIBLE else None,
            CONTENT_TYPES[kind],
            '"' + hashlib.sha256(body).hexdigest()[:32] + '"',
        )
    for route, name in PAGE_ROUTES.items():
        if f"/static/{name}" in files:
            files[route] = files[f"/static/{name}"]
    return files


FILES = web.AppKey("files", dict[str, ServedFile])


async def serve_file(request: web.Request) -> web.StreamResponse:
    served = request.app[FILES].get(request.path)
    if served is None:
        raise web.HTTPNotFound(text="no such page: the displays are /dealer, /table and /floor\n")
    headers = {"ETag": served.etag, "Cache-Control": "no-cache", "Vary": "Accept-Encoding"}
    headers.update(SECURITY_HEADERS)
    if served.etag in _etags(request.headers.get("If-None-Match", "")):
        return web.Response(status=304, headers=headers)
    body = served.body
    if served.gzipped is not None and "gzip" in request.headers.get("Accept-Encoding", ""):
        body = served.gzipped
        headers["Content-Encoding"] = "gzip"
    headers["Content-Type"] = served.content_type
    return web.Response(body=body, headers=headers)


def _etags(header: str) -> set[str]:
    return {tag.strip().removeprefix("W/") for tag in header.split(",")}
