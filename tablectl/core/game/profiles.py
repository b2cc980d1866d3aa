"""House-rule profiles (RULES.md): where the seeds disagree, a card room picks.

``btr`` is seed 000 as written, ``classic`` seeds 001, 002 and 004, ``tda`` the
Poker TDA rules. A card room picks a profile and overrides single options.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class HouseRules:
    profile: str
    # BET-2: most raises in one no-limit or pot-limit round (None = unlimited).
    big_bet_max_raises: int | None
    # BET-6: bets in a capped limit round, counting the opening bet (5 = a bet and four raises).
    limit_cap_bets: int
    # BET-6 option: no cap when the round starts heads-up.
    limit_no_cap_heads_up: bool
    # BET-5 at limit (002 half-bet rule): an all-in of at least half a bet reopens the betting.
    limit_half_bet_reopens: bool
    # BET-8: after a bet and four raises, big-bet raises must be at least half the pot.
    whipsaw_half_pot: bool
    # BET-10 option: the small blind counts as a big blind in pot-limit arithmetic preflop.
    pot_limit_small_blind_as_big: bool
    # BET-10 option: round the pot up to this unit in pot-limit arithmetic (0 = exact).
    pot_limit_round_to: int
    # MD-1: "two_players" (two players after the blinds acted) or "substantial" (TDA).
    misdeal_cutoff: str
    # MD-3: every card exposed by dealer error is a misdeal (btr) or only the first two (classic).
    every_exposed_card_misdeals: bool
    # POT-5: tournament rules turn all hands face up once a player is all-in and betting is over.
    tournament: bool
    # STUD-9 option (seven-card stud high only, SS-3): with an open pair on fourth street a player
    # may bet or raise the big bet, and once one does, later raises that round are big bets.
    stud_open_pair_big_bet: bool = False
    # STUD-9 option (California, X-1): the small bet on the first three stud rounds, not two.
    stud_small_bet_rounds: int = 2

    def with_options(self, **options: Any) -> HouseRules:
        """This profile with single options overridden; unknown options name the valid ones."""
        valid = {f.name for f in dataclasses.fields(self)} - {"profile"}
        for key, value in options.items():
            if key not in valid:
                raise ValueError(
                    f"unknown house-rule option {key!r}; valid options: {', '.join(sorted(valid))}"
                )
            expected = type(getattr(self, key))
            if key == "big_bet_max_raises" and (value is None or isinstance(value, int)):
                continue
            if not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
                raise ValueError(f"house-rule option {key!r} must be {expected.__name__}, got {value!r}")
        if options.get("stud_small_bet_rounds", self.stud_small_bet_rounds) not in (2, 3):
            raise ValueError("house-rule option 'stud_small_bet_rounds' must be 2 or 3")
        if options.get("misdeal_cutoff", self.misdeal_cutoff) not in ("two_players", "substantial"):
            raise ValueError("house-rule option 'misdeal_cutoff' must be 'two_players' or 'substantial'")
        return dataclasses.replace(self, **options)


# btr: seed 000 as written. The other profiles are written as their differences from it.
BTR = HouseRules(
    profile="btr",
    big_bet_max_raises=3,
    limit_cap_bets=4,
    limit_no_cap_heads_up=False,
    limit_half_bet_reopens=True,
    whipsaw_half_pot=False,
    pot_limit_small_blind_as_big=False,
    pot_limit_round_to=0,
    misdeal_cutoff="two_players",
    every_exposed_card_misdeals=True,
    tournament=False,
)

# classic: seeds 001, 002 and 004 where they differ from 000.
CLASSIC = dataclasses.replace(
    BTR,
    profile="classic",
    big_bet_max_raises=None,  # BET-2: unlimited (004 rule 1)
    limit_cap_bets=5,  # BET-6: a bet and four raises (002)
    whipsaw_half_pot=True,  # BET-8: raises of half the pot after a bet and four raises (002)
    every_exposed_card_misdeals=False,  # MD-3: a later exposed card is replaced (IRR-6; 001 rule 1)
)

# tda: the Poker TDA rules where they differ from 000.
TDA = dataclasses.replace(
    BTR,
    profile="tda",
    big_bet_max_raises=None,  # BET-2: unlimited (004 rule 1)
    limit_cap_bets=5,  # BET-6: a bet and four raises (002)
    misdeal_cutoff="substantial",  # MD-1: substantial action instead of two players (TDA)
    every_exposed_card_misdeals=False,  # MD-3: as classic, a later exposed card is replaced (001 rule 1)
    tournament=True,  # POT-5: hands face up once all-in and betting is over (000 §7 rule 21)
)

PROFILES: dict[str, HouseRules] = {"btr": BTR, "classic": CLASSIC, "tda": TDA}


def house_rules(profile: str = "tda", **options: Any) -> HouseRules:
    try:
        base = PROFILES[profile]
    except KeyError:
        raise ValueError(
            f"unknown house-rule profile {profile!r}; choose one of {', '.join(PROFILES)}"
        ) from None
    return base.with_options(**options) if options else base
