"""Fixtures shared by the tests that drive the hardware stand-ins and a real broker."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from tablectl.adapters.mqtt.broker import LocalBroker
from tests.helpers.brokers import running_broker


@pytest.fixture
def pins() -> Iterator[MockFactory]:
    """gpiozero's mock pins for the test, the previous factory restored after it."""
    previous = Device.pin_factory
    Device.pin_factory = MockFactory()
    try:
        yield Device.pin_factory
    finally:
        Device.pin_factory.reset()
        Device.pin_factory = previous


@pytest.fixture
def table1_broker(tmp_path: Path) -> Iterator[LocalBroker]:
    """A real mosquitto with the shipped config and ACL, users for table 1 of room main."""
    with running_broker(tmp_path / "broker", tables=("1",)) as running:
        yield running
