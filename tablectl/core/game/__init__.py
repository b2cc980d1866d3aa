"""The rules core (layers 1 and 2): pure, no I/O, no clock, no randomness."""

from tablectl.core.game.actions import (
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
from tablectl.core.game.engine import (
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
from tablectl.core.game.errors import RuleViolation
from tablectl.core.game.pots import Award, Pot, side_pots, split
from tablectl.core.game.profiles import PROFILES, HouseRules, house_rules
from tablectl.core.game.variants import (
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
