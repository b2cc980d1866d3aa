"""Devices lost, back, and reporting lost reads (core/table/floor.py): which severity each is."""

from __future__ import annotations

from tablectl.core.effects import Ruling, Severity
from tablectl.core.events import DeviceStatus
from tablectl.core.table import TableConfig, new_table, step


def rulings(events: list[DeviceStatus]) -> list[Ruling]:
    state = new_table(TableConfig())
    out: list[Ruling] = []
    for event in events:
        state, effects = step(state, event)
        out += [e for e in effects if isinstance(e, Ruling)]
    return out


def test_back_after_a_loss_is_information_but_back_with_reads_lost_calls_the_floor() -> None:
    plain = rulings([DeviceStatus("shoe", False, "silent"), DeviceStatus("shoe", True, "back")])
    assert [r.severity for r in plain] == [Severity.FLOOR, Severity.INFO]
    lossy = rulings(
        [DeviceStatus("shoe", False, "silent"), DeviceStatus("shoe", True, "restarted", reads_lost=True)]
    )
    assert [r.severity for r in lossy] == [Severity.FLOOR, Severity.FLOOR]
    assert "call the floor" in lossy[1].text and "restarted" in lossy[1].text


def test_dropped_reads_on_a_working_shoe_call_the_floor_without_losing_the_device() -> None:
    state = new_table(TableConfig())
    state, effects = step(state, DeviceStatus("shoe", True, "dropped 3 read(s)", reads_lost=True))
    assert [e.severity for e in effects if isinstance(e, Ruling)] == [Severity.FLOOR]
    assert dict(state.devices)["shoe"] is True
