"""Our hands on PokerKit, written once for the comparison (tests/core/game/test_pokerkit_diff.py)
and the benchmark (bench/engine.py): the automations we let PokerKit run, our cards as its cards,
and a PokerKit game for one of our hand configs.

Apart from hands.py because it imports pokerkit, which the other engine tests do not need.
"""

from __future__ import annotations

from pokerkit import (
    Automation,
    Card,
    FixedLimitDeuceToSevenLowballTripleDraw,
    FixedLimitRazz,
    FixedLimitSevenCardStud,
    FixedLimitSevenCardStudHighLowSplitEightOrBetter,
    Mode,
    NoLimitDeuceToSevenLowballSingleDraw,
    NoLimitTexasHoldem,
    State,
)
from pokerkit.games import PotLimitPokerMixin, TexasHoldemMixin, UnfixedLimitHoldem

from tablectl.core.cards import card_str
from tablectl.core.game import HandConfig, Structure

# PokerKit posts the antes and blinds, collects bets, burns cards, kills hands and pushes and
# pulls the chips; we feed it only the deals and the players' decisions.
AUTOMATIONS = (
    Automation.ANTE_POSTING,
    Automation.BET_COLLECTION,
    Automation.BLIND_OR_STRADDLE_POSTING,
    Automation.CARD_BURNING,
    Automation.HAND_KILLING,
    Automation.CHIPS_PUSHING,
    Automation.CHIPS_PULLING,
)

PK_CARDS = tuple(next(iter(Card.parse(card_str(c)))) for c in range(52))


class _PotLimitTexasHoldem(PotLimitPokerMixin, TexasHoldemMixin, UnfixedLimitHoldem):
    """PokerKit ships pot-limit Omaha but no pot-limit hold'em: composed from its own parts."""


def pokerkit_game(config: HandConfig) -> NoLimitTexasHoldem | _PotLimitTexasHoldem:
    """The PokerKit game for one of our no-limit or pot-limit hold'em configs (same player order:
    PHH's); calling it with the stacks and the number of players starts a hand."""
    game_class = (
        NoLimitTexasHoldem if config.variant.structure is Structure.NO_LIMIT else _PotLimitTexasHoldem
    )
    antes = config.antes
    # Uniform antes are contributions (a player all-in for a short ante wins only what they put
    # in from each opponent, seed 001 "All-in"); a big-blind ante is dead money.
    trimming = not antes or len(set(antes)) == 1
    return game_class(
        AUTOMATIONS,
        trimming,
        antes or 0,
        config.blinds,
        config.opening_min,
        mode=Mode.TOURNAMENT,
    )


# Our stud and draw games -> PokerKit's classes (same player order: PHH's).
STUD_GAMES = {
    "7S": FixedLimitSevenCardStud,
    "7S/8": FixedLimitSevenCardStudHighLowSplitEightOrBetter,
    "R": FixedLimitRazz,
}


def pokerkit_state(config: HandConfig) -> State:
    """The PokerKit state for one of our hand configs: hold'em, stud, razz or 2-7 draw."""
    code = config.variant.game.code
    if code in STUD_GAMES:
        return STUD_GAMES[code](
            AUTOMATIONS,
            True,
            config.antes or 0,
            config.bring_in,
            config.small_bet,
            config.big_bet,
            mode=Mode.TOURNAMENT,
        )(config.starting_stacks, config.players)
    trimming = not config.antes or len(set(config.antes)) == 1
    if code == "2L3D":
        return FixedLimitDeuceToSevenLowballTripleDraw(
            AUTOMATIONS,
            trimming,
            config.antes or 0,
            config.blinds,
            config.small_bet,
            config.big_bet,
            mode=Mode.TOURNAMENT,
        )(config.starting_stacks, config.players)
    if code == "2L1D":
        return NoLimitDeuceToSevenLowballSingleDraw(
            AUTOMATIONS, trimming, config.antes or 0, config.blinds, config.opening_min, mode=Mode.TOURNAMENT
        )(config.starting_stacks, config.players)
    return pokerkit_game(config)(config.starting_stacks, config.players)
