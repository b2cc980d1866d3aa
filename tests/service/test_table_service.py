"""The service: adapters in any thread, one thread owning the controller, sinks that fail
without stopping the table."""

from __future__ import annotations

import random
import threading
from pathlib import Path

from tablectl.core.events import DealerInput, DealerKey
from tablectl.core.table import TableConfig
from tablectl.service.table_service import open_service
from tablectl.sim.dealer import SimDealer, seated_table

CONFIG = TableConfig(seats=6, game="NT", blinds=(50, 100))


def test_events_from_threads_are_journaled_and_reach_the_sinks(tmp_path: Path) -> None:
    seen: list[int] = []
    done = threading.Event()

    def sink(state, effects):  # noqa: ANN001, ANN202
        seen.append(state.hand_number)
        if state.hand_number >= 1:
            done.set()

    def broken_sink(state, effects):  # noqa: ANN001, ANN202
        raise RuntimeError("display unplugged")

    service = open_service(str(tmp_path / "t.journal"), seated_table(CONFIG, 3), [broken_sink, sink])
    service.start()
    try:
        threading.Thread(target=service.submit, args=(DealerInput(DealerKey.NEW_HAND),)).start()
        assert done.wait(5.0)
    finally:
        service.stop()  # the service thread closes its controller
    assert service.sink_errors >= 1  # the broken display did not stop the table
    assert seen and seen[-1] == 1


def test_a_restarted_service_has_the_same_table(tmp_path: Path) -> None:
    path = str(tmp_path / "t.journal")
    service = open_service(path, seated_table(CONFIG, 4))
    sim = SimDealer(random.Random(4))
    for _ in range(300):
        service.submit(sim.next_event(service.state))
        service.process(timeout=1.0)
    before = service.state
    service.controller.close()
    again = open_service(path, seated_table(CONFIG, 4))
    try:
        assert again.state == before
        assert all(e.at > 0 for _, _, e, _ in again.controller.journal.events())  # stamped
    finally:
        again.controller.close()


def test_a_step_that_fails_on_one_event_does_not_stop_the_table(tmp_path: Path) -> None:
    from tablectl.core.events import DeviceStatus
    from tablectl.core.table import step
    from tablectl.journal import Controller
    from tablectl.service.table_service import TableService

    def fragile_step(state, event):  # noqa: ANN001, ANN202
        if isinstance(event, DeviceStatus):
            raise RuntimeError("a bug for this one event")
        return step(state, event)

    path = tmp_path / "t.journal"
    dealt = threading.Event()

    def sink(state, effects):  # noqa: ANN001, ANN202
        if state.hand_number == 1:
            dealt.set()

    service = TableService(
        lambda: Controller.open(path, CONFIG, fragile_step, seated_table(CONFIG, 3)), [sink]
    )
    service.start()
    try:
        service.submit(DeviceStatus("camera", False))  # the step raises on this one
        service.submit(DealerInput(DealerKey.NEW_HAND))  # and the table goes on
        assert dealt.wait(5.0)
        assert service.step_errors == 1 and not service.failed.is_set()
    finally:
        service.stop()
    assert service.error is None
