"""What the procedure holds for later (an action out of turn at stud, STUD-10; actions in the dark at
a draw, DRAW-6; the action button's post, STUD-18) and the log entries the engine never sees
(FirstToAct, Forfeit) survive the journal's snapshots and a rebuild of the hand from its log."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tablectl.core.procedure import HandProgress
from tablectl.core.procedure.ledger import _rebuild
from tablectl.core.procedure.progress import FirstToAct, Forfeit
from tablectl.core.table import TableState, new_table, step
from tablectl.journal.snapshot import dumps, loads
from tablectl.sim.scenario import parse
from tests.helpers.paths import SCENARIOS

Held = Callable[[HandProgress], bool]

CASES: list[tuple[str, str, Held]] = [
    (
        "out-of-turn-held",
        "stud-10-out-of-turn-established-by-the-next-player",
        lambda hand: hand.out_of_turn is not None,
    ),
    (
        "first-to-act-logged",
        "stud-10-out-of-turn-established-by-the-next-player",
        lambda hand: any(isinstance(e, FirstToAct) for e in hand.log),
    ),
    ("dark-bet-held", "draw-6-bet-in-the-dark-stays-in-the-pot-on-a-fold", lambda hand: bool(hand.dark)),
    (
        "forfeit-logged",
        "draw-6-bet-in-the-dark-stays-in-the-pot-on-a-fold",
        lambda hand: any(isinstance(e, Forfeit) for e in hand.log),
    ),
    (
        "action-button-post",
        "stud-18-action-button-post-stands-as-the-raise",
        lambda hand: hand.action_button is not None,
    ),
]


def _states(name: str) -> list[TableState]:
    path = SCENARIOS / f"{name}.scn"
    scenario = parse(path.read_text(encoding="utf-8"), str(path))
    state = new_table(scenario.config, scenario.players, scenario.button)
    states = []
    for one in scenario.steps:
        state, _ = step(state, one.event)  # a refused event is a ruling; the state stays
        states.append(state)
    return states


@pytest.mark.parametrize(("scenario", "is_held"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_what_is_held_survives_a_snapshot_and_a_rebuild(scenario: str, is_held: Held) -> None:
    held = [s for s in _states(scenario) if s.hand is not None and is_held(s.hand)]
    assert held, f"{scenario}: the scenario never holds what this test is about"
    for state in held:
        assert loads(dumps(state)) == state
        hand = state.hand
        assert hand is not None
        assert _rebuild(hand, hand.log).game == hand.game
