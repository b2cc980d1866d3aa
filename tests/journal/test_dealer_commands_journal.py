"""The dealer's commands in the journal: journaled with their user, folded back to the same
state on restart (floor calls, the dealer clocked in, the hands' end times), told in a replay."""

from __future__ import annotations

from pathlib import Path

from tablectl.core.events import DealerAction, DealerCommand, DealerKey, FloorCommand, FloorKind
from tablectl.core.table import new_table, step
from tablectl.journal import Controller
from tablectl.journal.replay import replay_hand
from tablectl.journal.snapshot import table_restore, table_snapshot
from tests.journal.test_replay import CONFIG, HAND_1, HAND_2_MISDEAL, SEATING, dealer, timed

SCREEN = "dealer.1"


def commands() -> list:  # type: ignore[type-arg]
    return [
        *SEATING,
        DealerCommand(DealerAction.CLOCK_IN, name="Dana", user=SCREEN),
        *HAND_1[:8],
        DealerCommand(DealerAction.CALL_FLOOR, reason="seat 2 asks for a ruling", user=SCREEN),
        *HAND_1[8:],
        DealerCommand(DealerAction.CONFIRM, user=SCREEN),  # nothing waits: refused, journaled
        *HAND_2_MISDEAL[:3],
        DealerCommand(DealerAction.CONFIRM, user=SCREEN),  # confirms the misdeal, as the key would
        FloorCommand(FloorKind.OVERRIDE, by="Ann", ruling="CALL", decision="resolve", user="floor.ann"),
        DealerCommand(DealerAction.CALL_FLOOR, name="Dana", user=SCREEN),
        dealer(DealerKey.NEW_HAND),
    ]


def test_the_dealer_s_commands_fold_back_to_the_same_state(tmp_path: Path) -> None:
    path = tmp_path / "table.journal"
    with Controller.open(
        path, CONFIG, step, new_table(CONFIG), snapshot_of=table_snapshot, restore=table_restore
    ) as controller:
        for event in timed(commands()):
            controller.handle(event)
        live = controller.state
    assert live.dealer is not None and live.dealer.name == "Dana"
    assert [c.by for c in live.floor_calls] == ["Dana"]  # the first was answered
    assert len(live.hand_times) == 1  # hand 1 played out; the misdeal is no hand played
    for full_fold in (False, True):
        with Controller.open(
            path,
            CONFIG,
            step,
            new_table(CONFIG),
            snapshot_of=table_snapshot,
            restore=table_restore,
            full_fold=full_fold,
        ) as again:
            assert again.state == live
            assert again.divergences == []


def test_a_replay_tells_the_dealer_s_commands_and_their_outcome(tmp_path: Path) -> None:
    path = tmp_path / "table.journal"
    with Controller.open(path, CONFIG, step, new_table(CONFIG)) as controller:
        for event in timed(commands()):
            controller.handle(event)
    text = "\n".join(replay_hand(path, 1))
    assert "dealer's screen: call floor (seat 2 asks for a ruling) (user dealer.1)" in text
    assert "RULING CALL (floor)" in text
    assert "REFUSED INPUT on dealer's screen: confirm (user dealer.1): nothing waits for confirmation" in text
