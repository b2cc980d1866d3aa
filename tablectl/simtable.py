"""A simulated table in the terminal: real hands (PHH records) or random ones, dealt
through the engine with every action, ruling and pot printed as it happens.

The simulated dealer sometimes keys a wrong input (out of turn, a raise below the
minimum, a card already dealt) so that the rulings show too; the engine refuses
each with the rule broken and the hand goes on unchanged.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from tablectl.game.actions import Action, BetRaise, CheckCall, DealBoard, DealHole
from tablectl.game.engine import HandConfig, HandState, Phase, apply, legal, show_down_all, start_hand
from tablectl.game.errors import RuleViolation
from tablectl.game.profiles import HouseRules, house_rules
from tablectl.game.randomplay import next_action
from tablectl.game.variants import HOLDEM, Structure, UnsupportedVariant, Variant
from tablectl.narrate import Narrator, position_names
from tablectl.phh import PhhError, hand_config, iter_sources, parse_action, parse_phh


@dataclass
class SimHand:
    title: str
    config: HandConfig
    names: list[str]
    actions: Iterator[Action] | None  # None: random play


def shared_data_dir() -> Path | None:
    """../shared/data from the project root (a checkout) or from the working directory."""
    here = Path(__file__).resolve().parents[1]
    for root in (Path.cwd(), here):
        candidate = (root / ".." / "shared" / "data").resolve()
        if candidate.is_dir():
            return candidate
    return None


def real_hands(paths: list[Path], rules: HouseRules) -> Iterator[SimHand]:
    for source, text in iter_sources(paths):
        try:
            hand = parse_phh(text, source)
            config = hand_config(hand, rules)
        except (UnsupportedVariant, PhhError):
            continue
        names = [str(n) for n in hand.fields.get("players", [])] or [
            f"Player {k + 1}" for k in range(config.players)
        ]
        labels = position_names(config.players, len(config.blinds))
        names = [f"{name} ({label})" for name, label in zip(names, labels, strict=False)]
        actions = (parse_action(a) for a in hand.fields["actions"])
        yield SimHand(source.split("/phh/")[-1], config, names, actions)


def random_hands(rules: HouseRules, rng: random.Random) -> Iterator[SimHand]:
    number = 0
    while True:
        number += 1
        n = rng.randint(2, 9)
        config = HandConfig(
            Variant(HOLDEM, Structure.NO_LIMIT),
            tuple(rng.randrange(2_000, 30_000, 25) for _ in range(n)),
            blinds=(50, 100),
            rules=rules,
        )
        labels = position_names(n, 2)
        yield SimHand(
            f"random hand {number}", config, [f"Seat {k + 1} ({labels[k]})" for k in range(n)], None
        )


def dealer_slip(state: HandState, rng: random.Random) -> Action | None:
    """A plausible wrong input from a dealer, or None."""
    options = legal(state)
    if state.phase is Phase.BETTING and options is not None:
        roll = rng.random()
        if roll < 0.5 and state.n > 2:
            other = next(p for p in range(state.n) if p != options.player and not state.folded[p])
            return CheckCall(other)  # out of turn (BET-14)
        if options.can_raise and options.min_raise_to > state.high_bet + 1:
            return BetRaise(options.player, state.high_bet + 1)  # below the minimum (BET-3/4)
    if state.phase is Phase.DEALING_BOARD and state.board:
        return DealBoard((state.board[0],))  # a card already on the board (IRR-2)
    if state.phase is Phase.BETTING and state.board:
        return DealBoard((0,))  # a board card before the betting is over (BOARD-4)
    return None


def run_table(
    hands: Iterator[SimHand],
    count: int,
    out: Callable[[str], None],
    pace: float = 0.0,
    slip_rate: float = 0.03,
    seed: int = 0,
) -> dict[str, int]:
    rng = random.Random(seed)
    totals = {"hands": 0, "actions": 0, "rulings": 0}
    for number, hand in zip(range(1, count + 1), hands, strict=False):
        state = start_hand(hand.config)
        narrator = Narrator(hand.names)
        out("")
        out(f"=== Hand {number}: {hand.title} ===")
        for line in narrator.opening(state):
            out(line)
        deck = list(range(52))
        rng.shuffle(deck)
        dealt = set()
        while state.phase is not Phase.COMPLETE:
            if rng.random() < slip_rate:
                slip = dealer_slip(state, rng)
                if slip is not None:
                    try:
                        apply(state, slip)
                    except RuleViolation as error:
                        out(narrator.refused(error))
                        totals["rulings"] += 1
            if hand.actions is not None:
                action = next(hand.actions, None)
                if action is None:
                    if state.phase is Phase.SHOWDOWN:
                        state = show_down_all(state)  # cards speak for hands left unshown
                        for line in narrator.result(state):
                            out(line)
                    break
            else:
                deck = [c for c in deck if c not in dealt]
                action = next_action(state, deck, rng)
                if action is None:
                    break
            if isinstance(action, (DealHole, DealBoard)):
                dealt.update(action.cards)
            before = state
            state = apply(state, action)
            totals["actions"] += 1
            for line in narrator.step(before, action, state):
                out(line)
            if pace:
                time.sleep(pace)  # a human-readable pace for the terminal; not synchronisation
        totals["hands"] += 1
    return totals


def default_hands(rules: HouseRules | None = None, seed: int = 0) -> Iterator[SimHand]:
    """Real hands from ../shared/data when present (WSOP flop games, then Pluribus), else random."""
    rules = rules or house_rules("tda")
    data = shared_data_dir()
    if data is not None:
        sources = [data / "phh" / "wsop-2023-43", data / "phh" / "pluribus.tar.gz"]
        existing = [p for p in sources if p.exists()]
        if existing:
            yield from real_hands(existing, rules)
    yield from random_hands(rules, random.Random(seed))
