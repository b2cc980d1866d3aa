"""The verified full fold: the journal folded on every core, each checkpoint checked.

The controller keeps a checkpoint every CHECKPOINT_EVERY hands (tablectl.journal.controller).
:func:`verified_fold` folds the stretches between them in forked worker processes, each from the
checkpoint before it, and checks that every checkpoint equals the fold of the stretch that ends
there; the chain is then the full fold. Everything that forks lives here: the pool, the module
globals a worker inherits its job through, a worker's death with its parent (prctl), and closing
the writer's lock file it inherited. What a fold gives is decided by tablectl.journal.fold alone.
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import multiprocessing
import os
import signal
import threading
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any, Generic

from tablectl.journal.fold import S, Step, Tally, fold_range
from tablectl.journal.snapshot import OtherCodeSnapshot
from tablectl.journal.store import Journal, JournalCorrupt, JournalError, close_inherited_locks

log = logging.getLogger(__name__)


@dataclass
class VerifiedFold(Generic[S]):
    """The state after every journaled event, and how it was checked."""

    state: S
    tally: Tally
    checkpoints: int  # checkpoints found equal to the fold that leads to them
    stretches: int  # stretches folded (1: a plain fold from the start)
    workers: int  # worker processes that folded them (the caller folds the last stretch too)
    mismatch: str | None = None  # a checkpoint the fold disagreed with (then: a plain fold)
    skipped: int = 0  # checkpoints other code made: not used as boundaries


@dataclass(frozen=True)
class _StretchJob(Generic[S]):
    path: str
    step: Step[S]
    initial_state: S
    restore: Callable[[str], S]
    snapshot_of: Callable[[S], str | None]
    bounds: tuple[tuple[int, int, int], ...]  # (first seq, last seq, checkpoint seq it starts from)


_JOB: _StretchJob[Any] | None = None  # given to forked workers by inheritance, never pickled


def _fold_stretch(job: _StretchJob[S], journal: Journal, index: int) -> tuple[int, str | None, Tally]:
    first, last, start_checkpoint = job.bounds[index]
    state = job.initial_state if start_checkpoint == 0 else job.restore(journal.checkpoint(start_checkpoint))
    state, tally = fold_range(journal.events(first, last), job.step, state)
    return index, job.snapshot_of(state), tally


_WORKER_JOURNAL: Journal | None = None
_WORKER_JOB: _StretchJob[Any] | None = None


def _worker_fold(index: int) -> tuple[int, str | None, Tally]:
    global _WORKER_JOURNAL
    job = _WORKER_JOB
    assert job is not None, "a stretch folded outside a worker started by _start_pool"
    if _WORKER_JOURNAL is None:
        _WORKER_JOURNAL = Journal(job.path)  # read-only, beside the writer (WAL)
    return _fold_stretch(job, _WORKER_JOURNAL, index)


def _can_fork() -> bool:
    # Forking a process that runs other threads (paho's, the service's) copies their locks in
    # whatever state they are: only a single-threaded process forks its workers.
    return "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1


def verified_fold(
    path: str | os.PathLike[str],
    step: Step[S],
    initial_state: S,
    restore: Callable[[str], S],
    snapshot_of: Callable[[S], str | None],
    workers: int | None = None,
) -> VerifiedFold[S]:
    """Every journaled event folded from the start, the stretches between checkpoints in
    parallel, each checkpoint checked against the fold of the stretch that ends there.

    The first stretch starts from ``initial_state``, each later one from the checkpoint that
    the stretch before it must reproduce, so the chain is the full fold: if every checkpoint
    equals the fold leading to it, the state is the one a single pass would give. A checkpoint
    the fold disagrees with, or one this version cannot read, is reported and the journal is
    folded in one pass instead; so is a worker process that died. An unreadable event stops
    the fold (JournalCorrupt), in a worker as in one pass. ``workers``: processes (default:
    one per core). No SQLite connection may be open in this process when it is called with
    more than one worker (SQLite must not cross a fork: Controller disconnects first).
    """
    with Journal(path) as journal:
        end = journal.last_seq()
        points, skipped = _usable_checkpoints(journal, restore, end)
    starts = [0, *points]
    bounds = tuple(
        (start + 1 if start else 0, stop, start) for start, stop in zip(starts, points, strict=False)
    )
    job = _StretchJob(str(path), step, initial_state, restore, snapshot_of, bounds)
    last_start = points[-1] if points else 0
    cores = workers or os.cpu_count() or 1
    count = min(cores, len(bounds)) if cores > 1 and _can_fork() else 0
    pool = None
    if count:
        try:
            pool = _start_pool(job, count)  # forked before this process opens the file
        except (BrokenProcessPool, OSError) as exc:  # fork refused (memory), a worker died at once
            log.warning("%s: no worker processes (%s); folding in this process", path, exc)
            count = 0
    try:
        with Journal(path) as journal:
            try:
                final_state = restore(journal.checkpoint(last_start)) if last_start else initial_state
                if pool is not None:
                    futures = [pool.submit(_worker_fold, index) for index in range(len(bounds))]
                    # This process folds the stretch after the last checkpoint meanwhile.
                    try:
                        final_state, final_tally = fold_range(
                            journal.events(last_start + 1), step, final_state
                        )
                    except JournalError as last_error:
                        _raise_first_unreadable(futures, last_error)
                        raise
                    results = [future.result() for future in futures]
                else:
                    results = [_fold_stretch(job, journal, index) for index in range(len(bounds))]
                    first = last_start + 1 if last_start else 0
                    final_state, final_tally = fold_range(journal.events(first), step, final_state)
            except JournalError:
                raise  # an unreadable event: never skipped, never folded around
            except BrokenProcessPool as exc:
                return _plain_fold(journal, step, initial_state, f"a worker process died ({exc})")
            except ValueError as exc:  # a damaged checkpoint
                return _plain_fold(journal, step, initial_state, f"checkpoint unreadable: {exc}")
            tally = Tally()
            for index, end_text, stretch_tally in results:
                first, last, _start = bounds[index]
                if not _same_state(restore, end_text, journal.checkpoint(last)):
                    mismatch = f"the checkpoint at seq {last} differs from the fold of events {first}-{last}"
                    return _plain_fold(journal, step, initial_state, mismatch)
                tally.add(stretch_tally)
            tally.add(final_tally)
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
    tally.divergences.sort(key=lambda d: d.seq)
    tally.missing.sort()
    stretches = len(bounds) + (1 if final_tally.events or not bounds else 0)
    return VerifiedFold(final_state, tally, len(bounds), stretches, max(count, 1), skipped=skipped)


def _usable_checkpoints(journal: Journal, restore: Callable[[str], Any], end: int) -> tuple[list[int], int]:
    """The checkpoints this code can start a stretch from, and how many other code made (before an
    upgrade): those are no boundary, the stretch around them is folded whole. A damaged one is
    kept, so that the fold reports it."""
    usable: list[int] = []
    skipped = 0
    for seq, _hand in journal.checkpoints():
        if seq > end:
            continue
        try:
            restore(journal.checkpoint(seq))
        except OtherCodeSnapshot:
            skipped += 1
            continue
        except JournalError:
            raise
        except ValueError:
            pass  # damaged: folding up to it shows the mismatch
        usable.append(seq)
    return usable, skipped


def _raise_first_unreadable(futures: list[Future[Any]], error: JournalError) -> None:
    """An unreadable event is reported at the first seq that cannot be read: a worker's earlier
    stretch may hold one before the one this process met."""
    first: JournalError = error
    for future in futures:
        try:
            future.result()
        except JournalCorrupt as exc:
            if not isinstance(first, JournalCorrupt) or exc.seq < first.seq:
                first = exc
        except Exception:  # noqa: BLE001 - any other failure of a stretch is not the first error
            continue
    if first is not error:
        raise first from None


def _same_state(restore: Callable[[str], Any], folded: str | None, kept: str) -> bool:
    if folded == kept:
        return True
    try:  # the same state may be written with its parts in another order
        return folded is not None and restore(folded) == restore(kept)
    except ValueError:
        return False


def _start_pool(job: _StretchJob[S], count: int) -> ProcessPoolExecutor:
    """Worker processes forked now, each holding ``job`` (inherited, never pickled)."""
    global _JOB, _PARENT
    _JOB, _PARENT = job, os.getpid()
    pool: ProcessPoolExecutor | None = None
    try:
        pool = ProcessPoolExecutor(count, multiprocessing.get_context("fork"), initializer=_worker_start)
        # With fork, every worker is started at the first submit: start them while _JOB is set.
        pool.submit(int).result()
    except BaseException:
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)
        raise
    finally:
        _JOB = None  # the workers have their copy; this process does not keep the job alive
    return pool


_PARENT = 0  # the process that started the workers


def _worker_start() -> None:
    global _WORKER_JOB
    _WORKER_JOB = _JOB
    _die_with_parent()
    close_inherited_locks()  # a worker must not keep a killed writer's lock alive


def _die_with_parent() -> None:
    """A worker whose parent is killed (kill -9) stops too, rather than fold on for nobody."""
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG (Linux)
    if os.getppid() != _PARENT:  # the parent died before the request took effect
        os._exit(1)


def _plain_fold(journal: Journal, step: Step[S], initial_state: S, why: str) -> VerifiedFold[S]:
    log.warning("%s: %s; folding the journal in one pass", journal.path, why)
    state, tally = fold_range(journal.events(), step, initial_state)
    return VerifiedFold(state, tally, 0, 1, 1, mismatch=why)
