"""`tablectl serve` in a child process, for the kill -9 and SIGTERM tests of floor commands.

    python tests/helpers/serve_child.py CONFIG JOURNAL HOST PORT USER PASSWORD

Runs :func:`tablectl.service.serve.serve` (what ``tablectl serve`` runs after reading its
arguments) with mock GPIO pins and without the floor commands' rate limits, so that a test can
flood it with a few hundred commands from one sender. Logs to stderr; the test kills it anywhere.
A line ``hold PIN SECONDS`` on its standard input holds that panel button down (as a dealer's
finger would) and lets it go.
"""

from __future__ import annotations

import faulthandler
import inspect
import logging
import signal
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from gpiozero import Device  # type: ignore[import-untyped]  # noqa: E402
from gpiozero.pins.mock import MockFactory  # type: ignore[import-untyped]  # noqa: E402

from tablectl.service.serve import BrokerSettings, serve  # noqa: E402
from tablectl.service.tablefile import load_table_config  # noqa: E402


def _buttons() -> None:
    """The dealer's finger: ``hold PIN SECONDS`` lines on stdin (none when stdin is closed)."""
    for line in sys.stdin:
        words = line.split()
        if len(words) == 3 and words[0] == "hold":
            pin = Device.pin_factory.pin(int(words[1]))
            pin.drive_low()
            time.sleep(float(words[2]))  # the button is held this long: what is being simulated
            pin.drive_high()
            print(f"released {words[1]}", file=sys.stderr, flush=True)


def main(argv: list[str]) -> int:
    config, journal, host, port, user, password = argv
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    Device.pin_factory = MockFactory()
    faulthandler.register(signal.SIGUSR1)  # a test that finds it stuck asks where it is
    threading.Thread(target=_buttons, name="buttons", daemon=True).start()
    broker = BrokerSettings(host, int(port), user, password)
    table = load_table_config(config)
    if "publisher_options" not in inspect.signature(serve).parameters:
        return serve(table, journal, broker)  # a version before the limits (to show a test fail)
    limits = {"sender_limit": None, "topic_limit": None}
    return serve(table, journal, broker, publisher_options=limits)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
