"""Reconstructing a hand from the journal for the floor (RULES TBL-5).

"Management may reconstruct the betting to find what was in a pot": the journal
holds every event the table saw, so a hand is reconstructed by folding the very
step function the table ran over it, and reading what each event did: every
action with the pot after it, every ruling with its RULES id (refused inputs
included), every floor command with who gave it, and the result.

    replay_hand(journal, hand=None)      -> lines for a person
    export_hand_phh(journal, hand=None)  -> the hand as a PHH record

The default hand is the last complete one: the last hand played to the end (a
misdealt or voided hand is replayed when asked for by number).
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from tablectl.core.cards import card_str
from tablectl.core.effects import Applied, HandEnded, Ruling, Severity
from tablectl.core.events import (
    CardDrawn,
    CardSeen,
    DealerCommand,
    DealerInput,
    DeviceStatus,
    Event,
    FloorCommand,
    InputRefused,
)
from tablectl.core.game.actions import Action, Kill
from tablectl.core.game.engine import HandState, Phase, apply
from tablectl.core.game.errors import RuleViolation
from tablectl.core.procedure.ledger import run_entry
from tablectl.core.procedure.progress import FirstToAct, Forfeit, HandProgress, LogEntry, Refund
from tablectl.core.table import TableConfig, TableState, new_table, step
from tablectl.journal.controller import CHECKPOINT_EVERY
from tablectl.journal.fold import apply_event
from tablectl.journal.parallel import verified_fold
from tablectl.journal.snapshot import table_restore, table_snapshot
from tablectl.journal.store import Journal
from tablectl.views.narrate import Narrator, chips, with_positions


class ReplayError(ValueError):
    """A hand that cannot be replayed or exported as asked; the message says which and why."""


@dataclass
class HandRecord:
    """One hand as the journal tells it."""

    number: int
    first_seq: int
    button: int | None
    seats_in: tuple[int, ...]
    names: list[str]  # per position, as the narrator says them
    players: list[str]  # per position, the players' names
    table: str
    seat_count: int
    started_at: float
    start: HandState  # the engine state once the blinds were posted
    game: HandState  # the engine state now (the last one, once the hand is over)
    narrator: Narrator
    last_seq: int = 0
    actions: list[Action] = field(default_factory=list)
    # The ledger's own entries (FirstToAct, Refund, Forfeit): moves of the turn or of chips that
    # no action of the engine, and so no PHH action, makes.
    outside: list[FirstToAct | Refund | Forfeit] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    ended: HandEnded | None = None

    @property
    def complete(self) -> bool:
        """Played to the end: the pot was awarded (not a misdeal, not void)."""
        return self.ended is not None and not (self.ended.misdeal or self.ended.voided)


def _players(state: TableState, seats_in: tuple[int, ...]) -> list[str]:
    return [p.name if (p := state.seat(seat)) is not None else "?" for seat in seats_in]


def _is_stacks(line: str) -> bool:
    return line.strip().startswith("Stacks:")


def _local(at: object) -> time.struct_time | None:
    """The local time of an event's ``at``, or None when it is no time: zero, or whatever an
    older version journaled unchecked (NaN, infinity, 1e300, milliseconds past year 9999)."""
    if isinstance(at, bool) or not isinstance(at, (int, float)) or not at:
        return None
    try:
        moment = time.localtime(at)
    except (ValueError, OverflowError, OSError):
        return None
    return moment if moment.tm_year <= 9999 else None


def _clock(at: float) -> str:
    moment = _local(at)
    return time.strftime("%H:%M:%S", moment) if moment is not None else "--:--:--"


def describe_event(event: Event) -> str:
    """An event in a few words, as the journal has it."""
    if isinstance(event, DealerInput):
        words = [f"dealer {event.key.value.replace('_', ' ')}"]
        if event.seat is not None:
            words.append(f"seat {event.seat}")
        if event.amount is not None:
            words.append(chips(event.amount))
        if event.cards:
            words.append(" ".join(card_str(c) for c in event.cards))
        if event.cause:
            words.append(f"({event.cause})")
        return " ".join(words)
    if isinstance(event, FloorCommand):
        # Who: the name typed, and the broker user (the login) that sent it, when it came over MQTT.
        who = f"{event.by} (user {event.user})" if event.user else event.by
        words = [f"floor {event.kind.value.replace('_', ' ')} by {who}"]
        if event.seat is not None:
            words.append(f"seat {event.seat}")
        if event.name:
            words.append(event.name)
        if event.amount is not None:
            words.append(chips(event.amount))
        if event.blinds:
            words.append("/".join(chips(b) for b in event.blinds))
        if event.ruling:
            words.append(f"ruling {event.ruling}")
        if event.decision:
            words.append(f"decision {event.decision}")
        return " ".join(words)
    if isinstance(event, DealerCommand):
        # From the dealer's screen (cmd/dealer), the broker user that sent it when it came over MQTT.
        words = [f"dealer's screen: {event.action.value.replace('_', ' ')}"]
        if event.name:
            words.append(f"by {event.name}")
        if event.reason:
            words.append(f"({event.reason})")
        if event.user:
            words.append(f"(user {event.user})")
        return " ".join(words)
    if isinstance(event, CardDrawn):
        card = card_str(event.card) if event.card is not None else "unread card"
        notes = [n for n, on in (("face up", event.face_up), ("foreign back", event.foreign)) if on]
        return f"shoe: {card}" + (f" ({', '.join(notes)})" if notes else "")
    if isinstance(event, CardSeen):
        card = card_str(event.card) if event.card is not None else "a card"
        where = f"seat {event.seat}" if event.seat is not None else event.zone.value
        return f"camera: {card} {'face up' if event.face_up else 'face down'} at {where}"
    if isinstance(event, InputRefused):
        who = f" by {event.by}" if event.by else ""
        return f"refused {event.source} {event.what.replace('_', ' ')}{who}: {event.reason}"
    if isinstance(event, DeviceStatus):
        return f"{event.device} {'ok' if event.ok else 'lost'}" + (
            f" ({event.detail})" if event.detail else ""
        )
    return repr(event)


class _Reader:
    """Folds the journal and keeps the record of the hand(s) asked for."""

    def __init__(self, journal: Journal, wanted: int | None) -> None:
        self.journal = journal
        self.wanted = wanted
        self.config = TableConfig.from_json(journal.config)
        self.current: HandRecord | None = None
        self.found: HandRecord | None = None  # the hand asked for, or the last complete one
        self.checkpoint: tuple[int, int] | None = None  # (hand, seq) the fold started from

    def run(self) -> HandRecord | None:
        start = self._checkpoint()
        if start is not None:
            found = self._fold(*start)
            if found is not None:
                return found
            self.current = self.found = self.checkpoint = None  # out of reach: from the start
        return self._fold(new_table(self.config), 0)

    def _checkpoint(self) -> tuple[TableState, int] | None:
        """The table before the hand asked for, from the checkpoint nearest before it, so that a
        dispute late in the day folds a few dozen hands, not the day (None: fold from the start).
        For the last complete hand, a checkpoint a full stretch back: a misdeal or two since
        cannot put that hand before it."""
        last_hand = self.journal.last_hand()
        before = last_hand - CHECKPOINT_EVERY if self.wanted is None else self.wanted - 1
        usable = [(seq, hand) for seq, hand in self.journal.checkpoints() if hand <= before]
        if not usable:
            return None
        seq, hand = usable[-1]
        try:
            state = table_restore(self.journal.checkpoint(seq))
        except ValueError:
            return None  # made by other code: fold from the start
        if not isinstance(state, TableState) or state.config != self.config:
            return None
        self.checkpoint = (hand, seq)
        return state, seq + 1

    def _fold(self, state: TableState, first_seq: int) -> HandRecord | None:
        for entry in self.journal.events(first_seq):
            before = state
            state, effects, outcome = apply_event(step, before, entry.event)
            if self.wanted is not None and state.hand_number > self.wanted:
                break  # the hand asked for is over, and so is the time to dispute it (TBL-5)
            started = state.hand is not None and (
                before.hand is None or before.hand.number != state.hand.number
            )
            if started and (self.wanted is None or state.hand_number == self.wanted):
                self.current = self._start(state, entry.seq, entry.event.at)
            record = self.current
            if record is None or state.hand_number != record.number:
                continue
            self._add(record, entry.seq, entry.event, before, state, effects, outcome)
            if self.wanted is not None or record.complete:
                self.found = record
        return self.found

    def _start(self, state: TableState, seq: int, at: float) -> HandRecord:
        hand = state.hand
        assert hand is not None
        game = hand.game
        players = _players(state, hand.seats_in)
        with_button = game.config.variant.game.has_button  # stud has no button, no positions
        seated = [f"Seat {s} {p}" for s, p in zip(hand.seats_in, players, strict=True)]
        names = with_positions(seated, len(game.config.blinds), with_button)
        narrator = Narrator(names)
        record = HandRecord(
            number=hand.number,
            first_seq=seq,
            button=state.button,
            seats_in=hand.seats_in,
            names=names,
            players=players,
            table=self.config.table,
            seat_count=self.config.seats,
            started_at=at,
            start=game,
            game=game,
            narrator=narrator,
        )
        where = f"table {self.config.table} (room {self.config.room})"
        button = f", button seat {state.button}" if with_button else ""
        record.lines.append(f"Hand {hand.number} at {where}{button}")
        record.lines.extend(narrator.opening(game))
        return record

    def _add(
        self,
        record: HandRecord,
        seq: int,
        event: Event,
        before: TableState,
        after: TableState,
        effects: Sequence[Any],
        outcome: str,
    ) -> None:
        record.last_seq = seq
        tag = f"#{seq} {_clock(event.at)} "
        out: list[str] = []
        if isinstance(event, (FloorCommand, DealerCommand, DeviceStatus)):
            out.append(describe_event(event))
        if outcome.startswith("error"):
            error = outcome.removeprefix("error: ")
            out.append(f"ERROR on {describe_event(event)}: {error} (the controller failed; nothing changed)")
        truth = _hand_game(after, record.number)
        # What the event added to the hand's log, in order: the actions the effects name and the
        # entries the ledger applies by itself (an action out of turn's FirstToAct, STUD-10; chips
        # left in the pot, Forfeit), so the replay runs what the table ran. None: the log was
        # rebuilt (BOARD-3) or the hand began with this event; then the actions alone.
        entries = _added_entries(before, after, record.number)
        for effect in effects:
            if isinstance(effect, Applied):
                if entries is not None:
                    self._run_up_to(record, entries, effect.action)
                out.extend(self._action(record, effect.action, truth))
            elif isinstance(effect, Ruling):
                if effect.severity is Severity.REFUSED:
                    head = f"REFUSED {effect.rule}"
                else:
                    head = f"RULING {effect.rule} ({effect.severity.value})"
                out.append(f"{head} on {describe_event(event)}: {effect.text}")
            elif isinstance(effect, HandEnded):
                record.ended = effect
                out.extend(self._ended(record, effect))
        if entries:
            self._run_up_to(record, entries, None)  # the ledger's entries after the last action
        if after.hand is not None and after.hand.number == record.number and after.hand.game != record.game:
            record.game = after.hand.game  # the table moved the game without an action: trust it
        record.lines.extend(
            tag + line.strip() if k == 0 else " " * len(tag) + line.strip() for k, line in enumerate(out)
        )

    def _run_up_to(self, record: HandRecord, entries: list[LogEntry], action: Action | None) -> None:
        """Run the log's entries that come before ``action`` (all of them for None) onto the hand,
        leaving ``action`` itself first in ``entries`` for the caller to tell."""
        while entries and entries[0] != action:
            entry = entries.pop(0)
            if isinstance(entry, (FirstToAct, Refund, Forfeit)):
                record.outside.append(entry)
            record.game = run_entry(record.game, entry)
        if entries:
            entries.pop(0)

    def _action(self, record: HandRecord, action: Action, truth: HandState | None) -> list[str]:
        before = record.game
        try:
            after = apply(before, action)
        except RuleViolation as exc:
            if truth is None:  # cannot happen if the table applied it: say so, do not guess
                return [f"(could not re-apply {action!r}: {exc})"]
            after = truth  # the table's own state after the event
        record.game = after
        record.actions.append(action)
        if isinstance(action, Kill):
            who = record.names[action.player]
            lines = [f"{who}'s hand is dead ({action.rule or 'ruling'})   (pot {chips(after.pot)})"]
            if after.phase is Phase.COMPLETE:
                lines.extend(line for line in record.narrator.result(after) if not _is_stacks(line))
            return lines
        # The narrator closes a hand with its stacks; the Result line (with who won what) says it.
        lines = [line for line in record.narrator.step(before, action, after) if not _is_stacks(line)]
        if lines and "(pot " not in lines[0] and after.phase is not Phase.COMPLETE:
            lines[0] = f"{lines[0].rstrip()}   (pot {chips(after.pot)})"
        return lines

    def _ended(self, record: HandRecord, ended: HandEnded) -> list[str]:
        start = record.start.config.starting_stacks
        parts = []
        for position, seat in enumerate(record.seats_in):
            now = ended.stacks.get(seat, start[position])
            delta = now - start[position]
            change = f" ({'+' if delta > 0 else ''}{chips(delta)})" if delta else ""
            parts.append(f"{record.names[position]} {chips(now)}{change}")
        if ended.misdeal and not record.start.config.variant.game.has_button:
            head = "Result: misdeal, every chip back, redeal (MD-2)"
        elif ended.misdeal:
            head = "Result: misdeal, every chip back, redeal with the same button (MD-2)"
        elif ended.voided:
            head = "Result: hand void, every chip back to who bet it"
        else:
            head = "Result"
        return [f"{head}: " + "; ".join(parts)]


def _added_entries(before: TableState, after: TableState, number: int) -> list[LogEntry] | None:
    """The entries the event added to hand ``number``'s log; None when it was not an addition (a
    log rebuilt from the start, BOARD-3) or the hand was not there before the event."""
    old, new = _hand_of(before, number), _hand_of(after, number)
    if old is None or new is None or new.log[: len(old.log)] != old.log:
        return None
    return list(new.log[len(old.log) :])


def _hand_of(state: TableState, number: int) -> HandProgress | None:
    """Hand ``number`` at the table (in progress, or just played)."""
    for hand in (state.hand, state.last_hand):
        if hand is not None and hand.number == number:
            return hand
    return None


def _hand_game(state: TableState, number: int) -> HandState | None:
    """The engine's state of hand ``number`` at the table (in progress, or just played)."""
    hand = _hand_of(state, number)
    return hand.game if hand is not None else None


def _read(journal_path: str | os.PathLike[str], hand: int | None) -> tuple[HandRecord, _Reader]:
    with Journal(journal_path) as journal:
        reader = _Reader(journal, hand)
        record = reader.run()
        if record is None:
            if hand is None:
                raise ReplayError(f"{journal_path}: no hand has been played to the end in this journal yet")
            raise ReplayError(
                f"{journal_path}: no hand {hand} in this journal (hands are numbered from 1; "
                f"the last one dealt is hand {reader.current.number if reader.current else 0})"
            )
    return record, reader


def replay_hand(journal_path: str | os.PathLike[str], hand: int | None = None) -> list[str]:
    """The hand, event by event, for a floor supervisor settling a dispute (TBL-5).

    Each line that comes from an event starts with its journal seq and the time it was seen.
    """
    record, reader = _read(journal_path, hand)
    lines = list(record.lines)
    if record.ended is None:
        lines.append(f"(hand {record.number} is still in progress: pot {chips(record.game.pot)})")
    lines.append(f"Journal events #{record.first_seq} to #{record.last_seq}.")
    if reader.checkpoint is not None:
        after, seq = reader.checkpoint
        lines.append(
            f"(Folded from the checkpoint after hand {after}, journal #{seq}; "
            f"'tablectl replay --verify' checks every checkpoint against the whole journal.)"
        )
    return lines


def export_hand_phh(journal_path: str | os.PathLike[str], hand: int | None = None) -> str:
    """The hand as a PHH record (tablectl.formats.phh.export_phh), with its finishing stacks."""
    from tablectl.formats.phh import export_phh

    record, _ = _read(journal_path, hand)
    if record.ended is not None and not record.complete:
        what = "a misdeal" if record.ended.misdeal else "void"
        raise ReplayError(f"hand {record.number} was {what}: no hand was played, nothing to export")
    killed = [a for a in record.actions if isinstance(a, Kill)]
    if killed:
        seat = record.seats_in[killed[0].player]
        raise ReplayError(
            f"hand {record.number}: seat {seat}'s hand was ruled dead ({killed[0].rule}); PHH has no "
            f"action for a hand killed out of turn, so the record would not replay. Use the replay instead."
        )
    if record.outside:
        entry = record.outside[0]
        seat = record.seats_in[entry.player]
        what = (
            f"seat {seat}'s action out of turn was established, so the betting went on from him"
            if isinstance(entry, FirstToAct)
            else f"chips of seat {seat} moved outside a wager"
        )
        raise ReplayError(
            f"hand {record.number}: {what} ({entry.rule}); PHH has no action for that, so the record "
            "would not replay. Use the replay instead."
        )
    finishing = record.game.finishing_stacks if record.game.phase is Phase.COMPLETE else None
    extra: dict[str, Any] = {"table": record.table, "hand": record.number}
    day = _local(record.started_at)
    if day is not None:
        extra.update(year=day.tm_year, month=day.tm_mon, day=day.tm_mday)
    extra.update(
        seat_count=record.seat_count,
        seats=list(record.seats_in),
        players=list(record.players),
        _journal_seqs=[record.first_seq, record.last_seq],
    )
    return export_phh(record.start.config, record.actions, finishing, extra=extra)


def verify_journal(journal_path: str | os.PathLike[str], workers: int | None = None) -> dict[str, Any]:
    """Fold the whole journal from its first event, the stretches between checkpoints on every
    core, and check each checkpoint against the fold that leads to it (see verified_fold)."""
    with Journal(journal_path) as journal:
        config = TableConfig.from_json(journal.config)
    started = time.perf_counter()
    fold = verified_fold(journal_path, step, new_table(config), table_restore, table_snapshot, workers)
    seconds = time.perf_counter() - started
    state = fold.state
    return {
        "journal": str(journal_path),
        "events": fold.tally.events,
        "hands": state.hand_number,
        "in_progress": state.hand is not None,
        "checkpoints_verified": fold.checkpoints,
        "checkpoints_skipped": fold.skipped,  # made by other code (before an upgrade)
        "checkpoint_mismatch": fold.mismatch,
        "divergences": [{"seq": d.seq, "recorded": d.recorded, "now": d.now} for d in fold.tally.divergences],
        "outcomes_missing": len(fold.tally.missing),
        "workers": fold.workers,
        "seconds": round(seconds, 3),
        "stacks": {str(number): seat.stack for number, seat in enumerate(state.seats, 1) if seat is not None},
        "ok": fold.mismatch is None and not fold.tally.divergences,
    }
