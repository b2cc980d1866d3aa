"""Fixtures shared by the test folders, and the ``integration`` marker, put on by folder or fixture.

``integration`` marks every test under tests/integration/ and every test anywhere that starts a real
mosquitto, known by the ``mosquitto`` fixture it asks for (as an argument, through ``table1_broker``
or a module's broker fixture, or with ``@pytest.mark.usefixtures("mosquitto")``). So
``pytest -m "not integration"`` runs where mosquitto is not installed, and ``pytest tests/core`` is
the quick loop.

``slow`` tests are left out unless the ``-m`` expression names ``slow`` (``-m slow`` runs them):
here rather than in pyproject's addopts, where any other ``-m`` would replace ``not slow``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from tablectl.adapters.mqtt.broker import LocalBroker
from tests.helpers.brokers import require_mosquitto, running_broker

INTEGRATION = Path(__file__).resolve().parent / "integration"


@pytest.hookimpl(tryfirst=True)  # before ``-m`` deselects by marker
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.is_relative_to(INTEGRATION) or "mosquitto" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.integration)
    if "slow" not in config.option.markexpr:
        slow = [item for item in items if item.get_closest_marker("slow")]
        if slow:
            config.hook.pytest_deselected(items=slow)
            items[:] = [item for item in items if not item.get_closest_marker("slow")]


@pytest.fixture(scope="session")
def mosquitto() -> None:
    """Asked for by every test that starts a real mosquitto, which marks it ``integration``; fails
    (never skips) where mosquitto is not installed."""
    require_mosquitto()


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
def table1_broker(mosquitto: None, tmp_path: Path) -> Iterator[LocalBroker]:
    """A real mosquitto with the shipped config and ACL, users for table 1 of room main."""
    with running_broker(tmp_path / "broker", tables=("1",)) as running:
        yield running
