"""`tablectl vision calibrate --live`: one camera's frames with its zones and the cards found
drawn, live, in a browser on the Pi's own screen (its kiosk Chromium) or the installer's laptop.

One thread reads the camera and draws each frame as calibrate's image file draws it (the zones,
the cards with their facing and width in pixels); the page shows them as an MJPEG stream beside
what each zone holds now, from /status.json. The stream sends a frame only when a new one is
drawn, so a slow reader slows the stream, never the camera.

A live view of the felt shows the players' cards: it listens on 127.0.0.1 unless told otherwise,
and is for the installer's visit, not for running beside a game.
"""

from __future__ import annotations

import http.server
import json
import threading
import time
from collections.abc import Callable
from typing import Any

BOUNDARY = "tablectl-frame"
KEEPALIVE = 5.0  # seconds: the last frame is sent again so that a stalled camera still shows
JPEG_QUALITY = 80

PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<style>
body {{ margin: 0; background: #111; color: #eee; font: 16px/1.4 sans-serif; display: flex; gap: 1rem; }}
img {{ max-width: 75vw; max-height: 100vh; background: #222; }}
#side {{ padding: 0.5rem 1rem; }}
h1 {{ font-size: 1.2rem; margin: 0 0 0.5rem; }}
#status {{ color: #fb4; }}
td {{ padding: 0 0.6rem 0 0; vertical-align: top; }}
</style></head>
<body><img id="frame" src="/stream.mjpg" alt="{title}">
<div id="side"><h1>{title}</h1><div id="status">connecting</div>
<p>Zones outlined in their colours; cards red face up, blue face down, yellow unknown, with their
width in pixels (a rank is read on a card about 24 px wide or more).</p>
<table id="zones"></table></div>
<script>
async function poll() {{
  try {{
    const s = await (await fetch("/status.json", {{cache: "no-store"}})).json();
    document.getElementById("status").textContent = s.status;
    const rows = s.zones.map(z => `<tr><td>${{z.name}}</td><td>${{
      z.cards.map(c => `${{c.card ?? "?"}} ${{c.facing}}`).join(", ") || "empty"}}</td></tr>`);
    document.getElementById("zones").innerHTML = rows.join("");
  }} catch (e) {{
    document.getElementById("status").textContent = "the calibration has stopped";
  }}
  setTimeout(poll, 500);
}}
poll();
</script></body></html>
"""


class LiveZones:
    """The newest drawn frame of one camera and what its zones hold, for any number of viewers."""

    def __init__(self, camera: Any, reader: Any) -> None:
        from vision.crops import camera_reader

        self.camera = camera
        self.zone_reader = camera_reader(reader, camera)
        self._changed = threading.Condition()
        self.jpeg: bytes | None = None
        self.frames = 0  # frames drawn
        self.status = "waiting for the first frame"
        self.zones: list[dict[str, Any]] = [{"name": z.name, "cards": []} for z in camera.zones]
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> LiveZones:
        self._thread = threading.Thread(target=self._run, name=f"live {self.camera.name}", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()  # the reading thread closes the source: a capture is not for two threads
        if self._thread is not None:
            self._thread.join(timeout=5)
        with self._changed:
            self._changed.notify_all()

    def _run(self) -> None:
        from vision.sources import Frame, SourceError, open_camera

        try:
            source = open_camera(self.camera)
        except SourceError as error:
            self._set_status(f"the {self.camera.device_name} cannot be read: {error}")
            return
        try:
            for item in source.frames():
                if self._stopping.is_set():
                    return
                if isinstance(item, Frame):
                    self._draw(item.image)
                else:
                    self._set_status(f"frame skipped: {item.reason}")
            ended = f"the {self.camera.device_name} gives no more frames"
            self._set_status(f"{self.status} · {ended}: this is its last" if self.frames else ended)
        except SourceError as error:
            self._set_status(f"the {self.camera.device_name} cannot be read: {error}")
        finally:
            source.close()

    def _draw(self, image: Any) -> None:
        import cv2

        from vision.calibrate import draw_zones

        height, width = image.shape[:2]
        if (width, height) != self.camera.size:
            self._set_status(
                f"the frame is {width}x{height}, the zones are drawn on "
                f"{self.camera.size[0]}x{self.camera.size[1]} (cameras.{self.camera.name}.size)"
            )
            return
        started = time.perf_counter()
        cards = self.zone_reader.read(image)
        ok, encoded = cv2.imencode(
            ".jpg", draw_zones(image, self.camera, cards), [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY]
        )
        if not ok:
            self._set_status("a frame could not be encoded")
            return
        zones: dict[str, list[dict[str, Any]]] = {z.name: [] for z in self.camera.zones}
        for card in cards:
            zone = self.camera.zone_at(card.centre)
            if zone is not None:
                zones[zone.name].append(
                    {"card": card.card, "facing": card.facing.value, "confidence": round(card.confidence, 2)}
                )
        took = (time.perf_counter() - started) * 1000
        with self._changed:
            self.jpeg = encoded.tobytes()
            self.frames += 1
            self.zones = [{"name": name, "cards": held} for name, held in zones.items()]
            self.status = (
                f"{self.camera.device_name}, {width}x{height}: frame {self.frames}, "
                f"{len(cards)} card(s), read and drawn in {took:.0f} ms"
            )
            self._changed.notify_all()

    def _set_status(self, text: str) -> None:
        with self._changed:
            self.status = text
            self._changed.notify_all()

    @property
    def stopped(self) -> bool:
        return self._stopping.is_set()

    def next_frame(self, after: int, timeout: float = KEEPALIVE) -> tuple[int, bytes | None]:
        """The newest frame once it is newer than frame ``after`` (or the same one after
        ``timeout``): (its number, its JPEG)."""
        with self._changed:
            self._changed.wait_for(lambda: self.frames > after or self._stopping.is_set(), timeout=timeout)
            return self.frames, self.jpeg

    def status_json(self) -> dict[str, Any]:
        with self._changed:
            return {
                "camera": self.camera.name,
                "size": list(self.camera.size),
                "frames": self.frames,
                "status": self.status,
                "zones": self.zones,
            }


def serve_live(live: LiveZones, host: str, port: int, ready: Callable[[str], None] | None = None) -> None:
    """Serve the live view until interrupted (Ctrl-C)."""
    server = make_server(live, host, port)
    bound_host, bound_port = server.server_address[:2]
    address = f"http://{bound_host!s}:{bound_port}/"
    if ready is not None:
        ready(address)
    try:
        server.serve_forever(poll_interval=0.2)
    finally:
        server.server_close()


def make_server(live: LiveZones, host: str, port: int) -> http.server.ThreadingHTTPServer:
    title = f"Zones of the {live.camera.device_name}"
    page = PAGE.format(title=title).encode()

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base's name
            pass  # a page polling twice a second is not news

        def do_GET(self) -> None:
            if self.path == "/":
                self._send(200, "text/html; charset=utf-8", page)
            elif self.path == "/status.json":
                self._send(200, "application/json", json.dumps(live.status_json()).encode())
            elif self.path == "/stream.mjpg":
                self._stream()
            else:
                self._send(404, "text/plain; charset=utf-8", b"not here: / is the live view\n")

        def _send(self, status: int, kind: str, body: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.send_header(
                "Content-Security-Policy",
                "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'",
            )
            self.end_headers()
            self.wfile.write(body)

        def _stream(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", f"multipart/x-mixed-replace; boundary={BOUNDARY}")
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            seen = 0
            try:
                while not live.stopped:
                    number, jpeg = live.next_frame(seen)
                    seen = number
                    if jpeg is None:
                        continue
                    head = f"--{BOUNDARY}\r\nContent-Type: image/jpeg\r\nContent-Length: {len(jpeg)}\r\n\r\n"
                    self.wfile.write(head.encode() + jpeg + b"\r\n")
                    self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                return  # the viewer went away

    server = http.server.ThreadingHTTPServer((host, port), Handler)
    server.daemon_threads = True
    return server
