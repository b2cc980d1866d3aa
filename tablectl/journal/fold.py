"""The fold: what the table's state is after a run of journaled events (DESIGN.md: the state is
a fold of the step over the journal).

Pure: no file, no process, no clock. It takes the step function and the journaled entries
(``(seq, hand, event, outcome)``, as :meth:`Journal.events <tablectl.journal.store.Journal.events>`
gives them) and decides what each event does, live and on replay alike: what a step that fails
leaves behind, and the outcome recorded for people. It is the one part of the journal inside the
code fingerprint (tablectl.journal.snapshot): a change here changes what a fold gives.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from tablectl.core.effects import Ruling, Severity
from tablectl.core.events import Event

S = TypeVar("S")
Effects = Sequence[Any]
Step = Callable[[S, Event], tuple[S, Effects]]
# One journaled event as the store reads it back: (seq, hand, event, outcome recorded then).
Journaled = tuple[int, int, Event, Any]


def describe_outcome(effects: Iterable[Any]) -> str:
    """The outcome recorded for an event: "applied", "applied; MD-a: ...", or "refused: BET-14 ..."."""
    rulings = [e for e in effects if isinstance(e, Ruling)]
    for ruling in rulings:
        if ruling.severity is Severity.REFUSED:
            return f"refused: {ruling.rule} {ruling.text}"
    if not rulings:
        return "applied"
    return "applied; " + "; ".join(f"{r.rule} {r.severity.value}: {r.text}" for r in rulings)


def error_outcome(exc: BaseException) -> str:
    return f"error: {type(exc).__name__}: {exc}"


def apply_event(step: Step[S], state: S, event: Event) -> tuple[S, Effects, str]:
    """One step of the fold as the controller runs it, live and on replay alike.

    A step that raises is a bug in the step function, not in the event: the state stays
    as it was, and the outcome says so. Doing the same live and in the fold keeps the
    rebuilt state equal to the live one even then.
    """
    try:
        new_state, effects = step(state, event)
    except Exception as exc:  # noqa: BLE001 - see above: same handling live and on replay
        return state, (), error_outcome(exc)
    return new_state, effects, describe_outcome(effects)


def fold(step: Step[S], initial_state: S, entries: Iterable[Journaled]) -> S:
    """The state after applying every journaled event in order (what :class:`Controller` rebuilds)."""
    state = initial_state
    for _seq, _hand, event, _outcome in entries:
        state = apply_event(step, state, event)[0]
    return state


@dataclass
class Divergence:
    """An event whose recorded outcome differs from what the fold made of it now."""

    seq: int
    recorded: str
    now: str


@dataclass
class Tally:
    """What folding a stretch of the journal found besides the state."""

    events: int = 0
    last_seq: int = 0
    divergences: list[Divergence] = field(default_factory=list)
    missing: list[tuple[int, str]] = field(default_factory=list)  # events with no outcome yet

    def add(self, other: Tally) -> None:
        self.events += other.events
        self.last_seq = max(self.last_seq, other.last_seq)
        self.divergences.extend(other.divergences)
        self.missing.extend(other.missing)


def fold_range(entries: Iterable[Journaled], step: Step[S], state: S) -> tuple[S, Tally]:
    """Fold the journaled ``entries`` onto ``state``, in order, comparing each outcome with the
    one recorded when the event was first applied."""
    tally = Tally()
    for seq, _hand, event, recorded in entries:
        state, _effects, outcome = apply_event(step, state, event)
        if recorded is None:
            tally.missing.append((seq, outcome))  # killed between append and record_outcome
        elif recorded != outcome:
            tally.divergences.append(Divergence(seq, recorded, outcome))
        tally.last_seq = seq
        tally.events += 1
    return state, tally
