"""A simulated table in the terminal: real hands (PHH records) dealt card by card through
the whole controller (shoe events, dealer panel, the dealing procedure, the engine),
printing every action, ruling and pot as it happens.

The simulated dealer and shoe now and then slip the way real ones do (a boxed card in
the deal, an action keyed out of turn, a card drawn when no hand is running): the
controller rules on each and the hand goes on unchanged.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from tablectl.core.cards import Card
from tablectl.core.effects import Applied, Effect, HandEnded, Prompt, Ruling, Severity
from tablectl.core.events import CardDrawn, DealerInput, DealerKey, Event
from tablectl.core.game.engine import HandState, Phase, apply
from tablectl.core.game.variants import variant_from_code
from tablectl.core.table import TableConfig, TableState, new_table, step
from tablectl.formats.phh import PhhError, iter_sources, parse_phh
from tablectl.sim.dealer import SimDealer, seated_table, simulate
from tablectl.sim.phh_table import TableHand, table_hand
from tablectl.views.narrate import Narrator, with_positions


def shared_data_dir() -> Path | None:
    """../shared/data from the project root (a checkout) or from the working directory."""
    here = Path(__file__).resolve().parents[1]
    for root in (Path.cwd(), here):
        candidate = (root / ".." / "shared" / "data").resolve()
        if candidate.is_dir():
            return candidate
    return None


def real_hands(paths: list[Path], profile: str, seed: int) -> Iterator[tuple[str, TableHand]]:
    rng = random.Random(seed)
    for source, text in iter_sources(paths):
        try:
            yield source.split("/phh/")[-1], table_hand(parse_phh(text, source), rng, profile)
        except (PhhError, ValueError):
            continue  # a record no table can deal (an unknown variant, a hole card unnamed)


def random_hands(profile: str, seed: int) -> Iterator[tuple[str, TableHand]]:
    """Hands from the simulated dealer, when the shared hands are not there."""
    rng = random.Random(seed)
    number = 0
    while True:
        number += 1
        players = rng.randint(2, 9)
        config = TableConfig(seats=9, game="NT", blinds=(50, 100), profile=profile)
        start = seated_table(config, players)
        events = [event for event, _ in simulate(start, SimDealer(rng), 1)]
        names = {k: (s.name, s.stack) for k in range(1, 10) if (s := start.seat(k)) is not None}
        yield f"random hand {number}", TableHand(config, names, players, events)


def _slip(state: TableState, rng: random.Random, deck_cards: set[Card]) -> Event | None:
    """A wrong input a real dealer or shoe might produce now, or None."""
    hand = state.hand
    if hand is None:
        return None
    game = hand.game
    roll = rng.random()
    if game.phase is Phase.BETTING and game.actor is not None and hand.n > 2 and roll < 0.6:
        other = next(p for p in range(hand.n) if p != game.actor and not game.folded[p])
        return DealerInput(DealerKey.CALL, seat=hand.seat(other))  # out of turn: BET-14
    if game.phase is Phase.DEALING_HOLE and hand.boxed == 0 and roll < 0.9:
        unseen = sorted(set(range(52)) - deck_cards - set(hand.dealt))
        if unseen:
            return CardDrawn(rng.choice(unseen), face_up=True)  # a boxed card: IRR-3
    return None


def run_table(
    hands: Iterator[tuple[str, TableHand]],
    count: int,
    out: Callable[[str], None],
    pace: float = 0.0,
    slip_rate: float = 0.04,
    seed: int = 0,
    publish: Callable[[TableState, tuple[Effect, ...]], object] | None = None,
) -> dict[str, int]:
    rng = random.Random(seed)
    totals = {"hands": 0, "events": 0, "rulings": 0, "refused": 0}
    for number, (title, table) in zip(range(1, count + 1), hands, strict=False):
        state = new_table(table.config, table.players, table.button)
        n = len(table.players)
        with_button = variant_from_code(table.config.game).game.has_button
        players = [table.players[k + 1][0] for k in range(n)]
        names = with_positions(players, len(table.config.blinds), with_button)
        narrator = Narrator(names)
        out("")
        out(f"=== Hand {number}: {title} ===")
        known = {e.card for e in table.events if isinstance(e, CardDrawn) and e.card is not None}
        game: HandState | None = None
        queue = list(table.events)
        while queue:
            slip = _slip(state, rng, known) if rng.random() < slip_rate else None
            event = slip if slip is not None else queue.pop(0)
            state_before = state
            state, effects = step(state, event)
            totals["events"] += 1
            if publish is not None:
                publish(state, effects)  # to the displays, over MQTT: never blocks the table
            if state_before.hand is None and state.hand is not None:
                game = state.hand.game
                if with_button:  # stud has none: the bring-in and the up cards decide (STUD-5)
                    out(f"Seat {state.button} has the button.")
                for line in narrator.opening(game):
                    out(line)
            for effect in effects:
                if isinstance(effect, Ruling):
                    refused = effect.severity is Severity.REFUSED
                    totals["refused" if refused else "rulings"] += 1
                    out(f"  {'REFUSED' if refused else 'RULING'} {effect.rule}: {effect.text}")
                elif isinstance(effect, Applied) and game is not None:
                    after = apply(game, effect.action)
                    for line in narrator.step(game, effect.action, after):
                        out(line)
                    game = after
                elif isinstance(effect, HandEnded):
                    totals["hands"] += 1
                elif isinstance(effect, Prompt) and effect.text.startswith("Push the pot"):
                    out(f"  Dealer: {effect.text}")
            if pace:
                time.sleep(pace)  # a human-readable pace for the terminal; not synchronisation
    return totals


def default_hands(profile: str = "tda", seed: int = 0) -> Iterator[tuple[str, TableHand]]:
    """Real hands from ../shared/data when present (WSOP flop games, then Pluribus), else random."""
    data = shared_data_dir()
    if data is not None:
        sources = [data / "phh" / "wsop-2023-43", data / "phh" / "pluribus.tar.gz"]
        existing = [p for p in sources if p.exists()]
        if existing:
            yield from real_hands(existing, profile, seed)
    yield from random_hands(profile, seed)
