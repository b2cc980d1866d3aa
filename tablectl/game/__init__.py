"""The rules core (layers 1 and 2): pure, no I/O, no clock, no randomness."""

from tablectl.game.actions import (
    UNKNOWN_CARD,
    Action,
    BetRaise,
    CheckCall,
    DealBoard,
    DealHole,
    Fold,
    Kill,
    Show,
)
from tablectl.game.engine import (
    ConfigError,
    HandConfig,
    HandState,
    Legal,
    Phase,
    apply,
    legal,
    show_down_all,
    showdown_order,
    start_hand,
)
from tablectl.game.errors import RuleViolation
from tablectl.game.pots import Award, Pot, side_pots, split
from tablectl.game.profiles import PROFILES, HouseRules, house_rules
from tablectl.game.variants import (
    HOLDEM,
    OMAHA,
    OMAHA_HI_LO,
    Structure,
    UnsupportedVariant,
    Variant,
    variant_from_code,
)

__all__ = [
    "UNKNOWN_CARD",
    "Action",
    "BetRaise",
    "CheckCall",
    "DealBoard",
    "DealHole",
    "Fold",
    "Kill",
    "Show",
    "ConfigError",
    "HandConfig",
    "HandState",
    "Legal",
    "Phase",
    "apply",
    "legal",
    "show_down_all",
    "showdown_order",
    "start_hand",
    "RuleViolation",
    "Award",
    "Pot",
    "side_pots",
    "split",
    "PROFILES",
    "HouseRules",
    "house_rules",
    "HOLDEM",
    "OMAHA",
    "OMAHA_HI_LO",
    "Structure",
    "UnsupportedVariant",
    "Variant",
    "variant_from_code",
]
