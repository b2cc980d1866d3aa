"""After the game changes: what follows a complete deal, a complete board round or a dead hand.

The engine gets every hole card once the deal is complete; a board round goes in when all its cards
are out; between rounds, premature cards are settled (BOARD-2, BOARD-5, STUD-12), actions taken in the
dark at a draw are taken in turn (DRAW-6), and the dealer is prompted.
A dead hand (IRR-8, IRR-9, BOARD-6, for the callers that rule it) is killed in the engine.
"""

from __future__ import annotations

from tablectl.core.effects import Applied, Effect, Severity
from tablectl.core.game.actions import UNKNOWN_CARD, BetRaise, CheckCall, DealBoard, DealHole, Kill
from tablectl.core.game.engine import Phase, call_cost
from tablectl.core.game.errors import RuleViolation
from tablectl.core.game.wagers import read_wager
from tablectl.core.procedure.ledger import _apply, _apply_bet
from tablectl.core.procedure.progress import (
    HandProgress,
    Pending,
    _cards,
    _evolve,
    _street_name,
    burn_due,
    first_deal_up_flags,
)
from tablectl.core.procedure.prompts import prompt_for
from tablectl.core.procedure.rulings import _ruling
from tablectl.core.sentences import Said, sentence


def _give_hole_cards(
    hand: HandProgress, effects: tuple[Effect, ...]
) -> tuple[HandProgress, tuple[Effect, ...]]:
    """The deal is complete: the engine gets every hand and the betting opens."""
    out = list(effects)
    for position, cards in enumerate(hand.hole):
        action = DealHole(position, cards, first_deal_up_flags(hand, position))
        hand = _apply(hand, action)
        out.append(Applied(action))
    out.append(prompt_for(hand))
    return hand, tuple(out)


def _commit_board(hand: HandProgress) -> tuple[HandProgress, tuple[Effect, ...]]:
    action = DealBoard(hand.board_pending)
    burned = hand.burned_round and not hand.burn_ready and not hand.no_burn_next and bool(hand.burns)
    hand = _apply(hand, action)
    hand = _evolve(
        hand,
        round_burn=hand.burns[-1] if burned else None,
        board_pending=(),
        burned_round=False,
        burn_ready=False,
        burn_card=None,
        no_burn_next=False,
    )
    return _after_game_change(hand, [Applied(action)])


def _after_game_change(hand: HandProgress, effects: list[Effect]) -> tuple[HandProgress, tuple[Effect, ...]]:
    """Between rounds: settle premature cards (BOARD-2, BOARD-5) and prompt the next step."""
    game = hand.game
    if game.phase is Phase.DEALING_BOARD and hand.reshuffle_after_round:
        text: Said = (
            "Reshuffle the stub with the card taken out of play (not the burn cards or discards), "
            f"cut, and deal the {_street_name(hand, game.street)} without burning."
        )
        hand = _evolve(hand, reshuffle_after_round=False, no_burn_next=True)
        hand = _evolve(hand, pending=Pending("reshuffle", "BOARD-5", text))
        effects.append(_ruling("BOARD-5", text, Severity.CORRECT, True))
        return hand, tuple(effects)
    if game.phase is Phase.DEALING_BOARD and hand.premature and hand.premature_street <= game.street:
        returned = hand.premature
        street_index = hand.premature_street
        hand = _evolve(hand, premature=(), premature_street=-1, dealt=hand.dealt - set(returned))
        shown: Said = _cards(c for c in returned if c != UNKNOWN_CARD) or "the premature cards"
        if street_index == 1:
            # BOARD-2: a premature flop is redealt from a reshuffled stub, the burn staying.
            text = sentence(
                "Mix the premature flop (",
                shown,
                ") with the stub (the burn card stays on the table), "
                "shuffle, cut, and deal a new flop without burning.",
            )
            hand = _evolve(hand, no_burn_next=True, burned_round=False, burn_ready=False, burn_card=None)
            hand = _evolve(hand, pending=Pending("reshuffle", "BOARD-2", text))
            effects.append(_ruling("BOARD-2", text, Severity.CORRECT, True))
            return hand, tuple(effects)
        last = street_index == len(game.config.variant.game.streets) - 1
        if last:
            text = sentence(
                "Premature river (",
                shown,
                "): reshuffle the stub with it (not the burn cards or discards), "
                "cut, and deal the river without burning.",
            )
            hand = _evolve(hand, no_burn_next=True, burned_round=False)
            hand = _evolve(hand, pending=Pending("reshuffle", "BOARD-5", text))
            effects.append(_ruling("BOARD-5", text, Severity.CORRECT, True))
            return hand, tuple(effects)
        # BOARD-5: burn and deal what would have been the next card in its place; reshuffle after.
        text = (
            f"Premature {_street_name(hand, street_index)} ({shown}) set aside: burn and deal the next "
            f"card as the {_street_name(hand, street_index)}; after this round the stub is reshuffled "
            "with the card set aside for the last card."
        )
        hand = _evolve(hand, burned_round=False, reshuffle_after_round=True)
        effects.append(_ruling("BOARD-5", text, Severity.CORRECT))
    if game.phase is Phase.DEALING_HOLE and game.street and hand.premature:
        # STUD-12: a stud street's premature cards (drawn._premature) are buried so that each player
        # gets the card that was coming. A player who kept his last card early is dealt none.
        due = sum(1 for position in game.live if game.cards_due(position) > 0)
        others = max(0, due - len(hand.premature))
        street = _street_name(hand, game.street)
        more = "no more cards" if not others else ("1 more card" if others == 1 else f"{others} more cards")
        then = f"deal {street} without burning again" if hand.burned_round else f"burn and deal {street}"
        text = f"Bury the premature cards with the burn cards, and {more} for the other players, then {then}."
        hand = _evolve(
            hand, burns=hand.burns + hand.premature, premature=(), premature_street=-1, bury_owed=others
        )
        effects.append(_ruling("STUD-12", text, Severity.CORRECT))
    elif game.phase is Phase.BETTING and game.street and hand.premature_street == game.street and game.up:
        # STUD-12: every hand still in kept its last card early, so the last street's betting opened
        # with nothing dealt; a premature card nobody kept is buried all the same.
        if hand.premature:
            street = _street_name(hand, game.street)
            text = (
                f"Bury the premature cards with the burn cards: every player still in has his {street} "
                "card, so its betting begins."
            )
            effects.append(_ruling("STUD-12", text, Severity.CORRECT))
        hand = _evolve(hand, burns=hand.burns + hand.premature, premature=(), premature_street=-1)
    if game.phase is Phase.DEALING_HOLE and game.street and hand.pending is None:
        hand = _stud_short_deck(hand, effects)
    if hand.dark:
        hand = _dark_actions(hand, effects)
    if hand.game.phase is not Phase.COMPLETE:
        effects.append(prompt_for(hand))
    return hand, tuple(effects)


def _dark_actions(hand: HandProgress, effects: list[Effect]) -> HandProgress:
    """DRAW-6: the actions taken in the dark at the draw, each in its player's turn on the round
    after it. A check stands if nobody has bet, else it lapses and the player acts; a bet stands if
    nobody has bet, else it stays for the player's own action (keyed._dark_bet_settled)."""
    while hand.game.phase is Phase.BETTING and hand.game.actor is not None:
        game = hand.game
        hand = _evolve(hand, dark=tuple(d for d in hand.dark if d.street >= game.street))
        actor = game.actor
        assert actor is not None
        dark = next((d for d in hand.dark if d.player == actor and d.street == game.street), None)
        if dark is None:
            return hand
        seat = hand.seat(actor)
        facing = call_cost(game, actor)
        if facing and dark.bet is not None:
            text = (
                f"Seat {seat} bet {dark.bet:,} in the dark and faces a bet now: the {dark.bet:,} stays "
                f"in the pot. Seat {seat} calls or raises, or folds and leaves it in."
            )
            effects.append(_ruling("DRAW-6", text, Severity.CORRECT))
            return hand
        hand = _evolve(hand, dark=tuple(d for d in hand.dark if d != dark))
        if facing:
            text = f"Seat {seat} checked in the dark, but faces a bet now: seat {seat} acts."
            effects.append(_ruling("DRAW-6", text, Severity.INFO))
            return hand
        action: BetRaise | CheckCall = CheckCall(actor)
        text = f"Seat {seat} checked in the dark: the check stands."
        if dark.bet is not None:
            try:
                reading = read_wager(game, actor, dark.bet)
            except RuleViolation as exc:
                said = sentence(
                    f"Seat {seat}'s bet in the dark of {dark.bet:,} is not a bet here (",
                    exc.said,
                    f"): seat {seat} acts.",
                )
                effects.append(_ruling("DRAW-6", said, Severity.CORRECT))
                return hand
            assert isinstance(reading.action, (BetRaise, CheckCall))
            action = reading.action
            text = f"Seat {seat}'s bet in the dark stands: {dark.bet:,}."
            if reading.rule is not None:
                effects.append(_ruling(reading.rule, reading.note, Severity.CORRECT))
        hand = _apply_bet(hand, action)
        effects.extend((_ruling("DRAW-6", text, Severity.INFO), Applied(action)))
    return hand


def _stud_short_deck(hand: HandProgress, effects: list[Effect]) -> HandProgress:
    """A stud street the deck cannot deal (the bottom card is never dealt): the burn cards and the
    undealt cards make a new deck (STUD-14); still too few, one community card for all (HO-3)."""
    game = hand.game
    due = sum(1 for position in range(hand.n) if game.cards_due(position) > 0)
    if not due or hand.community_next:
        return hand
    burn = 1 if burn_due(hand) else 0
    if hand.stub - 1 >= due + burn + hand.bury_owed:
        return hand
    street = _street_name(hand, game.street)
    stub = hand.stub
    if hand.burns:
        stub += len(hand.burns)
        text = (
            f"Not enough cards for {street}: shuffle the burn cards with the undealt cards "
            "into a new deck, cut, burn and deal."
        )
        hand = _evolve(
            hand,
            stub=stub,
            dealt=hand.dealt - set(hand.burns),
            burns=(),
            bury_owed=0,
            burned_round=False,
            burn_ready=False,
            burn_card=None,
        )
        hand = _evolve(hand, pending=Pending("reshuffle", "STUD-14", text))
        effects.append(_ruling("STUD-14", text, Severity.CORRECT, True))
        if stub - 1 >= due + 1:
            return hand
    burn_first = stub - 1 >= 2  # a burn when there is a card to spare (SS-4)
    text = (
        f"Too few cards for {street} even with the burn cards: "
        f"{'burn, then ' if burn_first else ''}deal one card face up in the centre for all players."
    )
    hand = _evolve(hand, community_next=True, no_burn_next=not burn_first, burned_round=False)
    effects.append(_ruling("HO-3", text, Severity.CORRECT))
    return hand


def _kill(hand: HandProgress, position: int, rule: str, text: str) -> tuple[HandProgress, tuple[Effect, ...]]:
    if hand.game.phase in (Phase.DEALING_HOLE, Phase.COMPLETE) or hand.game.folded[position]:
        return hand, (_ruling(rule, text, Severity.INFO),)
    action = Kill(position, rule)
    hand = _apply(hand, action)
    return _after_game_change(hand, [_ruling(rule, text, Severity.CORRECT), Applied(action)])
