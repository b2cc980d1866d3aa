"""Real hands through the whole controller: shoe events card by card, burns, the dealer's
panel, the dealing procedure and the engine, to the recorded finishing stacks."""

from __future__ import annotations

import itertools
import random
from pathlib import Path

from tablectl.core.effects import HandEnded, Ruling, Severity
from tablectl.formats.phh import PhhError, iter_sources, parse_phh
from tablectl.sim.phh_table import play, table_hand
from tests.helpers.paths import DATA as SHARED_DATA

DATA = SHARED_DATA / "phh"


def replay_at_table(paths: list[Path], limit: int | None = None) -> tuple[int, int, list[str]]:
    matched = unsupported = 0
    failures: list[str] = []
    for source, text in itertools.islice(iter_sources(paths), limit):
        hand = parse_phh(text, source)
        try:
            table = table_hand(hand, random.Random(source))
        except (PhhError, ValueError):
            unsupported += 1
            continue
        refused: list[str] = []
        ended = False
        final = None
        for _event, _before, after, effects in play(table):
            refused += [
                f"{e.rule}: {e.text}"
                for e in effects
                if isinstance(e, Ruling) and e.severity is Severity.REFUSED
            ]
            ended = ended or any(isinstance(e, HandEnded) for e in effects)
            final = after
        assert final is not None
        recorded = hand.finishing_stacks or ()
        ours = [final.seat(k + 1).stack for k in range(len(recorded))]  # type: ignore[union-attr]
        # Half-chip records are paid in whole chips (POT-6): within half a chip.
        if ended and not refused and all(abs(o - r) <= 0.5 for o, r in zip(ours, recorded, strict=True)):
            matched += 1
        else:
            failures.append(f"{source}: ours {ours} recorded {list(recorded)} refused {refused[:2]}")
    return matched, unsupported, failures


def test_wsop_every_game_dealt_card_by_card_at_a_table() -> None:
    matched, unsupported, failures = replay_at_table([DATA / "wsop-2023-43"])
    assert failures == []
    assert (matched, unsupported) == (83, 0)


def test_pluribus_hands_dealt_card_by_card_at_a_table() -> None:
    matched, unsupported, failures = replay_at_table([DATA / "pluribus.tar.gz"], limit=1500)
    assert failures == []
    assert (matched, unsupported) == (1500, 0)
