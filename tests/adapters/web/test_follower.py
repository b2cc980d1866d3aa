"""The displays' Follower in both languages against the same cases: tablectl.adapters.mqtt.Follower
in Python and static/js/follower.js in Debian's chromium. follower_cases.json holds cases written
with the verdicts docs/mqtt.md asks for; a stream made at random (repeats, losses, resends out of
order, restarts) is run through both and their answers compared step by step."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from tablectl.adapters.mqtt import Follower
from tablectl.adapters.mqtt.broker import free_port
from tests.helpers.browser import WebServer

CASES = json.loads((Path(__file__).parent / "follower_cases.json").read_text())["cases"]


def run_python(steps: list[dict[str, Any]]) -> list[Any]:
    follower = Follower()
    return [
        follower.accept(s["accept"]["topic"], s["accept"]["payload"])
        if "accept" in s
        else follower.rulings_missed(s["rulings_missed"])
        for s in steps
    ]


RUN_JS = """async (cases) => {
  const { Follower } = await import("/static/js/follower.js");
  return cases.map((steps) => {
    const follower = new Follower();
    return steps.map((s) => s.accept ? follower.accept(s.accept.topic, s.accept.payload)
                                     : follower.rulingsMissed(s.rulings_missed));
  });
}"""


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_the_python_follower_answers_each_case(case: dict[str, Any]) -> None:
    assert run_python(case["steps"]) == [s["expect"] for s in case["steps"]]


def random_stream(rng: random.Random, length: int = 400) -> list[dict[str, Any]]:
    """What a display may receive from one table: snapshots, events and alerts in order, with
    copies, losses, late resends and a restart or two (a new epoch)."""
    base = "cardroom/main/table/7/"
    sent: list[tuple[str, dict[str, Any]]] = []
    epoch, seq, prev = "E0", 0, {"events": 0, "alerts": 0}
    for _ in range(length):
        roll = rng.random()
        if roll < 0.01:
            epoch, seq, prev = f"E{rng.randrange(1000)}", 0, {"events": 0, "alerts": 0}
        seq += 1
        if roll < 0.5:
            topic = rng.choice(("public", "dealer", "floor", "summary"))
            rulings = [
                {"seq": rng.randrange(1, seq + 1), "rule": "MD-a", "severity": "misdeal"}
                for _ in range(rng.randrange(3))
            ]
            body: dict[str, Any] = {
                "type": "snapshot",
                "epoch": epoch,
                "seq": seq,
                "view": topic,
                "state": {"rulings": rulings},
            }
        else:
            topic = rng.choice(("events", "alerts"))
            body = {
                "type": "event" if topic == "events" else "alert",
                "epoch": epoch,
                "seq": seq,
                "prev": prev[topic],
            }
            prev[topic] = seq
        sent.append((base + topic, body))
    received: list[dict[str, Any]] = []
    for index, (topic, body) in enumerate(sent):
        roll = rng.random()
        if roll < 0.1:
            continue  # lost
        received.append({"accept": {"topic": topic, "payload": body}})
        if roll < 0.2:
            received.append({"accept": {"topic": topic, "payload": body}})  # a copy
        if roll < 0.25 and index > 5:
            old_topic, old = sent[index - rng.randrange(1, 6)]
            received.append({"accept": {"topic": old_topic, "payload": old}})  # a late resend
        if body["type"] == "snapshot" and rng.random() < 0.3:
            received.append({"rulings_missed": body})
    return received


@pytest.fixture(scope="module")
def follower_page(browser: Browser) -> Iterator[Page]:
    # The pages' server alone: no broker is needed to load a module.
    server = WebServer(free_port()).start()
    try:
        page = browser.new_page()
        page.goto(server.url("/"))
        yield page
        page.close()
    finally:
        server.stop()


def test_the_javascript_follower_answers_each_case_as_written(follower_page: Page) -> None:
    answers = follower_page.evaluate(RUN_JS, [c["steps"] for c in CASES])
    for case, got in zip(CASES, answers, strict=True):
        assert got == [s["expect"] for s in case["steps"]], case["name"]


def test_the_javascript_follower_answers_as_the_python_one_on_random_streams(follower_page: Page) -> None:
    streams = [random_stream(random.Random(seed)) for seed in range(40)]
    answers = follower_page.evaluate(RUN_JS, streams)
    verdicts = 0
    for seed, (steps, got) in enumerate(zip(streams, answers, strict=True)):
        expected = run_python(steps)
        assert got == expected, f"stream {seed}"
        verdicts += len(expected)
    assert verdicts > 10_000
