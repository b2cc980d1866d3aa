"""The controller: the journal in front of the pure step function, what the service feeds events to.

Every event is stepped, journaled, and only then adopted and its effects released, so that a crash
at any moment (``kill -9``, a watchdog reset) costs nothing: reopening folds the journal again and
arrives at exactly the state the table had, with no acknowledged event lost or applied twice. A
restart folds from the newest usable snapshot; a checkpoint is kept for good every
CHECKPOINT_EVERY hands, for the verified full fold (tablectl.journal.parallel).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic

from tablectl.core.events import Event
from tablectl.journal.fold import Divergence, S, Step, Tally, describe_outcome, error_outcome, fold_range
from tablectl.journal.parallel import VerifiedFold, verified_fold
from tablectl.journal.store import ConfigLike, DuplicateEvent, Journal, JournalError

log = logging.getLogger(__name__)

# A checkpoint every this many hands is kept for good (a snapshot of ~7 KB: ~110 KB a day).
# On a Pi's four cores a day of 800 hands is then 16 stretches to fold in parallel.
CHECKPOINT_EVERY = 50


def default_hand_of(state: Any) -> int:
    return int(getattr(state, "hand_number", 0))


@dataclass
class Controller(Generic[S]):
    """The journal in front of a pure step function: what the service feeds events to.

    ``handle(event)`` steps, journals, and only then adopts the new state and returns the
    effects: nothing is shown to the dealer or published before the event is durable.
    """

    journal: Journal
    step: Step[S]
    state: S
    hand_of: Callable[[S], int] = default_hand_of
    last_seq: int = 0
    replayed: int = 0  # events folded when opening
    divergences: list[Divergence] = field(default_factory=list)
    failed: BaseException | None = None  # an append that failed: the controller has stopped
    # Snapshots: ``snapshot_of(state)`` gives the text to keep after a state (None: not now),
    # ``restore(text)`` reads it back. A restart then folds only the events after the last one.
    snapshot_of: Callable[[S], str | None] | None = None
    restore: Callable[[str], S] | None = None
    snapshot_seq: int = 0  # the journal seq the state was restored from (0: a full fold)
    checkpoint_hand: int = 0  # the hand of the last checkpoint kept (CHECKPOINT_EVERY)
    verified: VerifiedFold[S] | None = None  # how a full fold was checked (full_fold=True)

    @classmethod
    def open(
        cls,
        path: str | os.PathLike[str],
        config: ConfigLike,
        step: Step[S],
        initial_state: S,
        *,
        hand_of: Callable[[S], int] = default_hand_of,
        snapshot_of: Callable[[S], str | None] | None = None,
        restore: Callable[[str], S] | None = None,
        full_fold: bool = False,
    ) -> Controller[S]:
        """Open (or create) the journal at ``path`` and rebuild the state by folding it: from the
        last snapshot when there is one (and ``full_fold`` is not asked), else from the start."""
        journal = Journal(path, config)
        try:
            controller = cls(journal, step, initial_state, hand_of, snapshot_of=snapshot_of, restore=restore)
            controller._rebuild(use_snapshot=not full_fold)
        except BaseException:
            journal.close()
            raise
        return controller

    def _rebuild(self, use_snapshot: bool = True) -> None:
        end = self.journal.last_seq()
        points = [hand for seq, hand in self.journal.checkpoints() if seq <= end]
        self.checkpoint_hand = points[-1] if points else 0
        if not use_snapshot and self.restore is not None and self.snapshot_of is not None:
            self.journal.disconnect()  # no SQLite connection may cross the workers' fork
            self.verified = verified_fold(
                self.journal.path, self.step, self.state, self.restore, self.snapshot_of
            )
            self._adopt(self.verified.state, self.verified.tally)
            return
        state = self.state
        start = 0
        refused: int | None = None  # the newest restart point, when it could not serve
        if use_snapshot and self.restore is not None:
            restarts = self.journal.restart_points(end)
            for seq, body in restarts:
                try:
                    state = self.restore(body)
                except ValueError as exc:  # an unreadable snapshot is only a lost shortcut
                    log.warning("%s: snapshot at seq %d unreadable (%s)", self.journal.path, seq, exc)
                    refused = seq if refused is None else refused
                    continue
                start = seq + 1
                self.snapshot_seq = self.last_seq = seq
                break
            del restarts  # its cursor ends here, before anything is written
        if refused is not None and refused >= start:
            # The newest snapshot could not serve (other code made it: an upgrade; or it is
            # damaged): this fold passes its seq, so write it anew there, and the next restart
            # folds only the hand in progress again.
            state, tally = fold_range(self.journal.events(start, refused), self.step, state)
            self._adopt(state, tally)
            self._snapshot(refused, state)
            start = refused + 1
        state, tally = fold_range(self.journal.events(start), self.step, state)
        self._adopt(state, tally)

    def _snapshot(self, seq: int, state: S, checkpoint_hand: int | None = None) -> bool:
        """Keep ``state`` (the state after event ``seq``) when it is between hands, and also as a
        checkpoint with ``checkpoint_hand``; whether it was kept."""
        if self.snapshot_of is None:
            return False
        try:
            body = self.snapshot_of(state)
            if body is None:
                return False
            self.journal.save_snapshot(seq, body, checkpoint_hand)
        except Exception:  # a snapshot is only a shortcut for restarts: never lose effects for it
            log.warning("%s: snapshot after seq %d failed", self.journal.path, seq, exc_info=True)
            return False
        return True

    def _adopt(self, state: S, tally: Tally) -> None:
        self.state = state
        self.replayed += tally.events
        self.last_seq = max(self.last_seq, tally.last_seq)
        self.divergences.extend(tally.divergences)
        for seq, outcome in tally.missing:
            self.journal.record_outcome(seq, outcome)
        if self.divergences:
            first = self.divergences[0]
            log.warning(
                "%s: %d events had another outcome when first applied than now (first: seq %d, "
                "then %r, now %r); the state is the fold of the journal as this version applies it",
                self.journal.path,
                len(self.divergences),
                first.seq,
                first.recorded,
                first.now,
            )

    def handle(self, event: Event, key: str | None = None) -> tuple[Any, ...]:
        """Apply one event; returns its effects once the event is journaled.

        With ``key`` (the sender's id for the event), an event received again after a lost
        acknowledgement is recognised, not applied twice: it returns no effects.
        """
        if self.failed is not None:
            raise JournalError(
                f"{self.journal.path}: a write to the journal failed ({self.failed}), so whether that "
                f"event is in it is unknown; this controller has stopped. Restart the service: the "
                f"state is rebuilt from what the journal holds."
            )
        if key is not None and self.journal.seq_of_key(key) is not None:
            return ()
        # The step is pure: computing it before the append changes nothing outside, and lets
        # the row carry the hand the event belongs to (a NEW_HAND is journaled in the hand it
        # starts) and its outcome, in one transaction. The new state is adopted and the effects
        # released only once the append has committed.
        try:
            new_state, effects = self.step(self.state, event)
        except Exception as exc:
            self._append(event, self.hand_of(self.state), key, error_outcome(exc))
            raise
        self._append(event, self.hand_of(new_state), key, describe_outcome(effects))
        self.state = new_state
        if self.snapshot_of is not None:
            hand = self.hand_of(new_state)
            checkpoint = hand >= self.checkpoint_hand + CHECKPOINT_EVERY
            if self._snapshot(self.last_seq, new_state, hand if checkpoint else None) and checkpoint:
                self.checkpoint_hand = hand
        return tuple(effects)

    def _append(self, event: Event, hand: int, key: str | None, outcome: str) -> None:
        try:
            self.last_seq = self.journal.append(event, hand, key, outcome)
        except DuplicateEvent:
            raise
        except BaseException as exc:
            # A failed commit (I/O error, disk full, interrupted) may or may not have reached the
            # file; only a fold of what the file holds knows. Stop rather than guess.
            self.failed = exc
            raise

    def close(self) -> None:
        self.journal.close()

    def __enter__(self) -> Controller[S]:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
