"""The table's configuration (layer 4): seats, game, stakes and the house-rule profile.

``TableConfig`` checks itself when made: a configuration that cannot work is a
``TableConfigError`` naming the key and the fix. No RULES id of its own: it picks the
house-rule profile and options (RULES.md, House options) that every ruling reads. A table
that plays mixed games has a ``rotation`` (tablectl.core.table.rotation, HO-13): its games
and their stakes replace ``game`` and the single game's stakes.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass
from typing import Any

from tablectl.core.game.profiles import HouseRules, house_rules
from tablectl.core.game.variants import STUD_HI_LO, Structure, variant_from_code
from tablectl.core.table.rotation import Rotation, RotationError


class TableConfigError(ValueError):
    """A table configuration that cannot work; the message names the key and the fix."""


@functools.lru_cache(maxsize=64)
def _rules_for(profile: str, options: tuple[tuple[str, Any], ...]) -> HouseRules:
    """House rules for a table (cached: every event asks)."""
    try:
        return house_rules(profile, **dict(options))
    except ValueError as exc:
        raise TableConfigError(f"profile/options: {exc}") from None


@dataclass(frozen=True, slots=True)
class TableConfig:
    room: str = "main"
    table: str = "1"
    seats: int = 9
    game: str = "NT"  # PHH variant code: NT, PT, FT, NO, PO, FO, PO/8, FO/8, ...
    blinds: tuple[int, ...] = (50, 100)
    ante: int = 0  # every player's ante
    big_blind_ante: int = 0  # one ante posted by the big blind for the table
    small_bet: int = 0  # fixed limit
    big_bet: int = 0
    bring_in: int = 0  # stud and razz: the forced bet of the lowest (razz: highest) up card (STUD-5)
    spread_max: int = 0  # spread limit
    chip_unit: int = 1
    profile: str = "tda"
    options: tuple[tuple[str, Any], ...] = ()  # house-rule overrides
    rotation: Rotation | None = None  # mixed games (HO-13): the games in turn, each with its stakes
    # STUD-18, a house option of stud eight-or-better: the winner of a scooped pot of more than this
    # many chips takes the action button and posts a completion on the next deal; 0: not played.
    action_button: int = 0

    def __post_init__(self) -> None:
        if not 2 <= self.seats <= 10:
            raise TableConfigError(f"seats: a table has 2 to 10 seats, got {self.seats!r}")
        if self.rotation is not None and not isinstance(self.rotation, Rotation):
            raise TableConfigError("rotation: a Rotation (tablectl.core.table.rotation)")
        try:
            variant = variant_from_code(self.game)
        except ValueError as exc:
            raise TableConfigError(f"game: {exc}") from None
        if not variant.game.has_button and not 0 < self.bring_in < self.small_bet:
            # Stud has no blinds: antes and the bring-in open the pot (STUD-5, STUD-6).
            raise TableConfigError(
                f"bring_in: {self.game!r} needs a bring-in above 0 and below the small bet, "
                "e.g. small_bet = 200, big_bet = 400, bring_in = 50"
            )
        if variant.game.has_button and self.bring_in:
            raise TableConfigError("bring_in: only stud and razz have a bring-in; this game posts blinds")
        if not self.blinds or any(not isinstance(b, int) or b <= 0 for b in self.blinds):
            raise TableConfigError("blinds: give the blinds as whole chips > 0, e.g. blinds = [50, 100]")
        if variant.structure is Structure.FIXED_LIMIT and not (0 < self.small_bet <= self.big_bet):
            raise TableConfigError("small_bet, big_bet: a fixed-limit game needs both, e.g. 100 and 200")
        if variant.structure is Structure.SPREAD_LIMIT and self.spread_max <= 0:
            raise TableConfigError("spread_max: a spread-limit game needs its largest bet")
        if type(self.action_button) is not int or self.action_button < 0:
            raise TableConfigError(
                "action_button: the pot a scoop must exceed, in chips (0: no action button), "
                f"got {self.action_button!r}"
            )
        if self.action_button and not self._deals_stud_hi_lo():
            raise TableConfigError(
                "action_button: the action button is stud eight-or-better's (STUD-18) and this table "
                "does not deal F7S/8: set action_button = 0"
            )
        self.rules()  # unknown profile or option: the message names it

    @property
    def has_button(self) -> bool:
        """A flop or draw game with blinds; a stud table posts antes and a bring-in (STUD-5), and
        its ``blinds`` are the unused default (GameStakes.has_button for a rotation's game)."""
        return variant_from_code(self.game).game.has_button

    def _deals_stud_hi_lo(self) -> bool:
        codes = [self.game] if self.rotation is None else [entry.game for entry in self.rotation.games]
        return any(variant_from_code(code).game is STUD_HI_LO for code in codes)

    def rules(self) -> HouseRules:
        return _rules_for(self.profile, self.options)

    def to_json(self) -> dict[str, Any]:
        out = dataclasses.asdict(self)
        out["blinds"] = list(self.blinds)
        out["options"] = dict(self.options)
        if self.rotation is None:
            del out["rotation"]
        else:
            out["rotation"] = self.rotation.to_json()
        for added in ("bring_in", "action_button"):  # added for stud (STUD-5, STUD-18): left out at 0,
            if not out[added]:  # as older versions wrote it (a journal reads a missing key at its default)
                del out[added]
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TableConfig:
        if not isinstance(data, dict):
            raise TableConfigError("a table configuration is a mapping of keys to values")
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise TableConfigError(
                f"unknown key(s) {', '.join(sorted(unknown))}; valid keys: {', '.join(sorted(known))}"
            )
        values = dict(data)
        if "blinds" in values:
            values["blinds"] = tuple(values["blinds"])
        if "options" in values:
            options = values["options"]
            if not isinstance(options, dict):
                raise TableConfigError("options: a mapping of house-rule option to value")
            values["options"] = tuple(sorted(options.items()))
        if values.get("rotation") is not None:
            try:
                values["rotation"] = Rotation.from_json(values["rotation"])
            except RotationError as exc:
                raise TableConfigError(f"rotation: {exc}") from None
        for key in (
            "seats",
            "ante",
            "big_blind_ante",
            "small_bet",
            "big_bet",
            "bring_in",
            "spread_max",
            "chip_unit",
        ):
            if key in values and (isinstance(values[key], bool) or not isinstance(values[key], int)):
                raise TableConfigError(f"{key}: expected a whole number, got {values[key]!r}")
        return cls(**values)
