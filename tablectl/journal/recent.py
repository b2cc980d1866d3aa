"""What a restarted table shows again from the journal: the rulings of the hand in progress, and
the record of that hand and the last hands (tablectl.views.hands) for the floor.

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
from tablectl.views.hands import HANDS_KEPT, HandBook, record_hands


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


def hand_book(journal: Journal, initial_state: TableState, hand: int, kept: int = HANDS_KEPT) -> HandBook:
    """The hands' record as the running table had built it: hand ``hand`` (the table's
    hand_number: in progress, or the one just played) and the ``kept`` before it, folded again
    from the journal with the step the table ran, each step at the time of its event."""
    first = None
    for number in range(max(1, hand - kept), hand + 1):  # the oldest hand the journal still has
        first = journal.first_seq_of_hand(number)
        if first is not None:
            break
    if first is None:
        return HandBook()
    state, start = _restart_before(journal, first) or (initial_state, 0)
    book = HandBook()
    for entry in journal.events(start):
        state, effects, _ = apply_event(step, state, entry.event)
        book = record_hands(book, state, effects, entry.event.at)
    return book


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
