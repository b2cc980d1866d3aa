"""What the operator reads when the table cannot reach its broker: the host, the port and the
reason (refused, DNS, authentication), said once and again only when it changes; paho's own
chatter (its connection state every second) only at DEBUG."""

from __future__ import annotations

import logging
import socket
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tablectl.adapters.mqtt import TablePublisher
from tablectl.adapters.mqtt.broker import LocalBroker
from tests.helpers.brokers import running_broker
from tests.helpers.polling import wait_until


@pytest.fixture
def broker(mosquitto: None, tmp_path: Path) -> Iterator[LocalBroker]:
    with running_broker(tmp_path / "broker") as running:
        yield running


def closed_port() -> int:
    with socket.socket() as probe:  # bound, never listening: a connection to it is refused
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def attempts(caplog: pytest.LogCaptureFixture, what: str) -> Callable[[], int]:
    """How many connection attempts paho has made, from its own DEBUG log."""
    return lambda: sum(what in r.getMessage() for r in caplog.records)


def reports(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.levelno >= logging.INFO and r.name.startswith("tablectl")]


def test_a_refused_connection_is_reported_once_with_host_port_and_reason(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    port = closed_port()
    publisher = TablePublisher("main", "1", host="127.0.0.1", port=port).start()
    try:
        assert wait_until(lambda: attempts(caplog, "Connection failed, retrying")() >= 2, timeout=10.0)
    finally:
        publisher.stop(timeout=0.2)
    said = reports(caplog)
    assert [r.getMessage() for r in said if r.levelno >= logging.WARNING] == [
        f"MQTT broker 127.0.0.1:{port} cannot be reached: connection refused: nothing listens on "
        "that port (is mosquitto running? systemctl status mosquitto); the table keeps retrying"
    ]
    assert not any("Client is not connected" in r.getMessage() for r in said)


def test_a_name_that_does_not_resolve_is_a_dns_failure(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    publisher = TablePublisher("main", "1", host="no-such-broker.invalid", port=1883).start()
    try:
        assert wait_until(lambda: attempts(caplog, "Connection failed, retrying")() >= 2, timeout=10.0)
    finally:
        publisher.stop(timeout=0.2)
    errors = [r.getMessage() for r in reports(caplog) if r.levelno >= logging.WARNING]
    assert len(errors) == 1
    assert (
        "no-such-broker.invalid:1883 cannot be reached: DNS: the name 'no-such-broker.invalid'" in errors[0]
    )


def test_a_wrong_password_is_an_authentication_failure_said_once(
    broker: LocalBroker, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    assert broker.credentials is not None
    user, _password = broker.credentials.user("table", "1")
    publisher = TablePublisher("main", "1", host=broker.host, port=broker.port, username=user, password="x")
    publisher.start()
    try:
        assert wait_until(lambda: attempts(caplog, "Received CONNACK")() >= 2, timeout=10.0)
        errors = [r.getMessage() for r in reports(caplog) if r.levelno >= logging.WARNING]
        assert len(errors) == 1, errors
        assert (
            f"MQTT broker {broker.host}:{broker.port} cannot be reached: authentication failed" in errors[0]
        )
        assert repr(user) in errors[0]
    finally:
        publisher.stop(timeout=0.2)
