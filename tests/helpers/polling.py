"""Waiting for what sends no event: a file another process writes (a journal, mosquitto's log),
a log another thread captures. Polled every 20 ms up to a deadline; anything that can be waited
on (a Condition, a Listener, Playwright's expect) is waited on instead."""

from __future__ import annotations

import time
from collections.abc import Callable


def wait_until(condition: Callable[[], bool], timeout: float = 10.0) -> bool:
    """True as soon as ``condition()`` is; False once ``timeout`` s have passed without it."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True
