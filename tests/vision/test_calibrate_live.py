"""tablectl vision calibrate --live: the camera's frames with the zones drawn, in a real browser,
with what each zone holds; a folder of frames stands in for the camera."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import cv2
import numpy as np
from playwright.sync_api import expect

from tests.helpers.browser import chromium, playwright_driver
from tests.helpers.camera_frames import felt, with_card, write_frames
from tests.helpers.paths import ROOT
from tests.vision.test_calibrate import CONFIG
from vision.calibrate import ZONE_COLOURS

TIMEOUT = 60


def start_live(tmp_path: Path, *extra: str) -> tuple[subprocess.Popen[str], str]:
    write_frames(tmp_path / "frames", [with_card(felt(), "Qd", (106, 360))] * 3)
    config = tmp_path / "table.toml"
    config.write_text(CONFIG)
    child = subprocess.Popen(
        [sys.executable, "-m", "tablectl.cli", "vision", "calibrate", "--config", str(config), *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    assert child.stdout is not None
    line = child.stdout.readline()  # blocks until the server listens (or the child fails)
    match = re.search(r"live zones at (http://\S+/)", line)
    if match is None:
        child.kill()
        raise AssertionError(f"no address: {line!r} {child.communicate(timeout=TIMEOUT)[1]}")
    return child, match.group(1)


def stop(child: subprocess.Popen[str]) -> int:
    child.send_signal(signal.SIGINT)
    return child.wait(timeout=TIMEOUT)


def test_the_live_view_shows_the_zones_and_the_cards_in_a_browser(tmp_path: Path) -> None:
    child, address = start_live(tmp_path, "--camera", "table", "--live", "127.0.0.1:0")
    try:
        with playwright_driver() as playwright, chromium(playwright) as browser:
            page = browser.new_page(viewport={"width": 1280, "height": 720})
            page.goto(address)
            expect(page.locator("#zones")).to_contain_text("seat1Qd up", timeout=TIMEOUT * 1000)
            expect(page.locator("#zones")).to_contain_text("seat2empty")
            expect(page.locator("#status")).to_contain_text("table camera, 640x480: frame 3, 1 card(s)")
            expect(page.locator("#status")).to_contain_text("gives no more frames: this is its last")
            page.wait_for_function(
                "document.getElementById('frame').naturalWidth === 640", timeout=TIMEOUT * 1000
            )
        # The stream's frame is the one calibrate's image file draws: the board's edge in its colour.
        with urllib.request.urlopen(address + "stream.mjpg", timeout=TIMEOUT) as stream:
            assert stream.headers["Content-Type"].startswith("multipart/x-mixed-replace")
            head = b""
            while b"\r\n\r\n" not in head:
                head += stream.read(1)
            length = int(re.search(rb"Content-Length: (\d+)", head).group(1))  # type: ignore[union-attr]
            frame = cv2.imdecode(np.frombuffer(stream.read(length), np.uint8), cv2.IMREAD_COLOR)
        assert frame.shape == (480, 640, 3)
        assert np.abs(frame[20, 300].astype(int) - ZONE_COLOURS["board"]).max() < 60  # JPEG
    finally:
        assert stop(child) == 0


def test_the_live_view_needs_one_camera(tmp_path: Path) -> None:
    write_frames(tmp_path / "frames", [felt()])
    config = tmp_path / "table.toml"
    mouth = """
[cameras.mouth]
source = "frames"
size = [640, 480]
[cameras.mouth.zones]
shoe = [0, 0, 100, 100]
"""
    config.write_text(CONFIG + mouth)
    result = subprocess.run(
        [sys.executable, "-m", "tablectl.cli", "vision", "calibrate", "--config", str(config), "--live"],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    assert result.returncode != 0
    assert "--live shows one camera: name it with --camera" in result.stderr + result.stdout
