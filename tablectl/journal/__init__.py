"""The journal: every event the table saw, in order, on disk (DESIGN.md: the source of truth).

The state of a table is a fold of the step function over its journal. The journal knows events
(tablectl.core.events) and effects (tablectl.core.effects), never the table: the step function,
the initial state and the table config are given to it. One module a job:

    store.py       Journal: the append-only SQLite file (schema, triggers, the writer's lock)
    fold.py        apply_event, fold, fold_range: what a fold gives (pure; in the code fingerprint)
    parallel.py    verified_fold: the stretches between checkpoints folded on every core, checked
    controller.py  Controller: the journal in front of the step, so that a crash costs nothing;
                   the checkpoint policy (CHECKPOINT_EVERY)
    snapshot.py    the table's state as JSON, for restarts and checkpoints; the code fingerprint
    replay.py      a hand reconstructed for the floor (TBL-5)

The settings re-exported here (SYNCHRONOUS, CHECKPOINT_EVERY) are read where they are defined: to
change one, set it on its own module (tablectl.journal.store, tablectl.journal.controller).
"""

from tablectl.journal.controller import CHECKPOINT_EVERY, Controller
from tablectl.journal.fold import (
    Divergence,
    Step,
    Tally,
    apply_event,
    describe_outcome,
    fold,
    fold_range,
)
from tablectl.journal.parallel import VerifiedFold, verified_fold
from tablectl.journal.snapshot import OtherCodeSnapshot
from tablectl.journal.store import (
    SYNCHRONOUS,
    DuplicateEvent,
    Entry,
    Journal,
    JournalCorrupt,
    JournalError,
)

__all__ = [
    "CHECKPOINT_EVERY",
    "SYNCHRONOUS",
    "Controller",
    "Divergence",
    "DuplicateEvent",
    "Entry",
    "Journal",
    "JournalCorrupt",
    "JournalError",
    "OtherCodeSnapshot",
    "Step",
    "Tally",
    "VerifiedFold",
    "apply_event",
    "describe_outcome",
    "fold",
    "fold_range",
    "verified_fold",
]
