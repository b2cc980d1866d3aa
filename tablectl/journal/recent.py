"""The rulings a restarted table shows again: those of the hand in progress, from the journal.

The dealer and floor views list the rulings of the hand being played (between hands: of the
hand just played), and docs/mqtt.md tells displays to recover missed alerts from that list. The
publisher keeps it in memory only, so a restarted controller rebuilds it here: the hand's events
are folded again from the restart point before its first event, with the step the table ran,
and the rulings they produced are read off, in order, with the time of the event that made each.
"""

from __future__ import annotations

from collections import deque
from typing import NamedTuple

from tablectl.core.effects import Ruling
from tablectl.core.table import TableState, step
from tablectl.journal.fold import apply_event
from tablectl.journal.snapshot import table_restore
from tablectl.journal.store import Journal


class PastRuling(NamedTuple):
    """A ruling as the journal's fold gives it: the time of the event that made it, its hand."""

    at: float
    hand: int
    ruling: Ruling


def hand_rulings(journal: Journal, initial_state: TableState, hand: int, limit: int = 20) -> list[PastRuling]:
    """The last ``limit`` rulings of ``hand`` (every event journaled in it, those between hands
    after it included), oldest first. ``initial_state``: the table the journal was started on."""
    first = journal.first_seq_of_hand(hand)
    if first is None or limit <= 0:
        return []
    state, start = _restart_before(journal, first) or (initial_state, 0)
    rulings: deque[PastRuling] = deque(maxlen=limit)
    for entry in journal.events(start):
        state, effects, _ = apply_event(step, state, entry.event)
        if entry.hand == hand:
            rulings.extend(PastRuling(entry.event.at, hand, e) for e in effects if isinstance(e, Ruling))
    return list(rulings)


def _restart_before(journal: Journal, seq: int) -> tuple[TableState, int] | None:
    """The newest snapshot or checkpoint before event ``seq`` as (state, next seq to fold): during
    a hand, the one made at its start; between hands it may be a checkpoint some hands back."""
    for point, body in journal.restart_points(seq - 1):
        try:
            restored = table_restore(body)
        except ValueError:
            continue  # made by other code, or damaged: an older one, or the start, will do
        if isinstance(restored, TableState):
            return restored, point + 1
    return None  # the generator, and its cursor, end with this call
