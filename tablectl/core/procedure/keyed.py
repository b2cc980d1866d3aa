"""What the dealer keyed on the panel: confirm, a misdeal, a flashed card, betting, the showdown.

A misdeal called with or without its cause (MD-1, MD-a..MD-j; after the cut-off, IRR-8 kills a hand
without the proper number of cards), a flashed card (IRR-6, IRR-7; at stud, for the seat that has a
premature last down card, that he keeps it, STUD-12), the betting in turn (BET-14, and
the wager's reading; at stud an action out of turn that the next player establishes, STUD-10), and
the showdown: cards shown (POT-4), a hand mucked that played the board (BOARD-7).
"""

from __future__ import annotations

from tablectl.core import evaluator
from tablectl.core.effects import Applied, Effect, Prompt, Severity
from tablectl.core.events import DealerInput, DealerKey
from tablectl.core.game.actions import UNKNOWN_CARD, Action, BetRaise, BringIn, CheckCall, Fold, Show
from tablectl.core.game.engine import HandState, Phase, call_cost, legal
from tablectl.core.game.errors import RuleViolation
from tablectl.core.game.profiles import HouseRules
from tablectl.core.game.variants import Ranking
from tablectl.core.game.wagers import read_wager
from tablectl.core.procedure.drawn import premature_keyed
from tablectl.core.procedure.flow import _after_game_change, _kill
from tablectl.core.procedure.ledger import _apply, _apply_bet, _run
from tablectl.core.procedure.progress import (
    DarkAction,
    FirstToAct,
    Forfeit,
    HandProgress,
    Refused,
    _actions_on,
    _evolve,
    _hole_phase,
    misdeal_allowed,
)
from tablectl.core.procedure.prompts import prompt_for
from tablectl.core.procedure.rulings import _MISDEAL_REASONS, _exposed, _misdeal, _ruling
from tablectl.core.procedure.streets import discard, draw_card_exposed


def _dealer_input(
    hand: HandProgress, event: DealerInput, rules: HouseRules
) -> tuple[HandProgress, tuple[Effect, ...]]:
    key = event.key
    if key is DealerKey.CONFIRM:
        if hand.pending is None:
            raise Refused("INPUT", "nothing to confirm")
        if hand.pending.kind == "reshuffle":
            hand = _evolve(hand, pending=None)
            return hand, (prompt_for(hand),)
        return hand, ()  # misdeal and void confirms end the hand: the table handles them
    if key is DealerKey.MISDEAL:
        return _dealer_misdeal(hand, event, rules)
    if key is DealerKey.CARD_FLASHED:
        by = event.cause or "dealer"
        if by not in ("dealer", "player", "off_table"):
            raise Refused("INPUT", "say who flashed the card: dealer, player or off_table")
        card = event.cards[0] if event.cards else None
        kept = premature_keyed(hand, event.seat, card)  # STUD-12: the seat with a premature last card
        if kept is not None:
            return kept
        if by != "player" and hand.game.config.variant.game.has_draws and not _hole_phase(hand):
            exposed = draw_card_exposed(hand, hand.position(event.seat), card)
            if exposed is not None:
                return exposed
        return _exposed(hand, event.seat, card, "dealer" if by == "off_table" else by, rules)
    if key in (DealerKey.SHOW, DealerKey.MUCK):
        return _showdown_input(hand, event)
    if key is DealerKey.NEW_HAND:
        raise Refused("INPUT", "a hand is in progress: finish it (or the floor voids it) first")
    if key is DealerKey.DISCARD:
        return discard(hand, event.seat, event.amount, event.cards)
    return _betting_input(hand, event)


def _dealer_misdeal(
    hand: HandProgress, event: DealerInput, rules: HouseRules
) -> tuple[HandProgress, tuple[Effect, ...]]:
    """The dealer calls attention to a misdeal cause (MD-a..MD-j) the devices could not see."""
    cause = (event.cause or "").lower().removeprefix("md-")
    if not cause:
        # The panel's misdeal key (a long press) names no cause: the dealer's call, under the
        # cut-off of MD-1; the floor can override it.
        return _misdeal(hand, "MD-1", "the dealer called a misdeal", rules)
    if cause not in _MISDEAL_REASONS:
        raise Refused(
            "MD-1", f"name the misdeal's cause, one of a to j (RULES MD-a..MD-j), not {event.cause!r}"
        )
    rule = f"MD-{cause}"
    why = _MISDEAL_REASONS[cause]
    if event.seat is not None:
        if cause == "i":
            if event.seat in hand.seats_in:
                raise Refused("INPUT", f"seat {event.seat} is entitled to this hand")
        else:
            hand.position(event.seat)
    if misdeal_allowed(hand, rules):
        return _misdeal(hand, rule, why, rules)
    seat = event.seat
    if cause in ("d", "e", "j") and seat is not None:
        # IRR-8: too late for a misdeal; a hand without the proper number of cards is dead.
        position = hand.position(seat)
        _, said = _misdeal(hand, rule, why, rules)
        if hand.game.folded[position]:
            return hand, said
        dead = "DRAW-8" if hand.game.config.variant.game.has_draws else "IRR-8"
        hand, effects = _kill(
            hand, position, dead, f"Seat {seat} has not the proper number of cards: the hand is dead."
        )
        return hand, said + effects
    after = {
        "g": " The floor corrects the button for the next hand (TBL-1).",
        "i": f" The cards at seat {seat} are dead: take them in." if seat is not None else "",
        "h": " The cards play as dealt.",
        "f": " The cards play as dealt.",
    }.get(cause, "")
    return _misdeal(hand, rule, why, rules, after)


def _betting_input(hand: HandProgress, event: DealerInput) -> tuple[HandProgress, tuple[Effect, ...]]:
    game = hand.game
    if game.phase is Phase.DRAWING and event.key in (DealerKey.CHECK, DealerKey.BET):
        position = hand.position(event.seat)
        if game.to_draw[position] >= 0 and not game.folded[position]:
            return _in_the_dark(hand, event, position)  # he has said how many cards
    if game.phase is Phase.DRAWING and event.key is DealerKey.CHECK:
        # HO-11, DRAW-13: a rap at the draw is a check, never "pat"; the player must say it.
        raise Refused("HO-11", "a rap is not pat: the player says 'pat' (key 0 cards) or how many cards")
    if game.phase is not Phase.BETTING:
        where = "the deal is not complete" if _hole_phase(hand) else f"the hand is at {game.phase.value}"
        raise Refused("BET-14", f"no betting now: {where}")
    position = hand.position(event.seat)
    if game.folded[position]:
        raise Refused("INPUT", f"seat {event.seat} has folded: no action from that seat")
    actor = game.actor
    assert actor is not None  # betting with nobody to act is the next phase: refused above
    if hand.out_of_turn is not None and _stud_first_action(hand):
        return _after_out_of_turn(hand, event, position)
    if hand.out_of_turn is not None:
        hand = _evolve(hand, out_of_turn=None)  # the round it was keyed on is over
    if position != actor:
        if game.stacks[position] == 0:
            raise Refused("INPUT", f"seat {event.seat} is all-in: no action from that seat")
        if _stud_first_action(hand):
            return _hold_out_of_turn(hand, event, position)
        raise Refused("BET-14", f"action is on seat {hand.seat(actor)}, not seat {event.seat}: out of turn")
    return _bet_in_turn(hand, event, position)


Wager = BetRaise | CheckCall | Fold | BringIn  # what a betting key becomes


def _stud_first_action(hand: HandProgress) -> bool:
    """Stud from fourth street: nobody has acted on the street yet, so a player may take himself
    for the first to act (the best hand showing, STUD-8) and act out of turn (STUD-10)."""
    game = hand.game
    return (
        not game.config.variant.game.has_button
        and game.street >= 1
        and game.phase is Phase.BETTING
        and _actions_on(hand, game.street) == 0
    )


def _as_first(
    hand: HandProgress, event: DealerInput, position: int
) -> tuple[HandProgress, tuple[Effect, ...]]:
    """``event``'s action as if ``position`` were first to act this round (STUD-10); Refused when it
    is not one he could take there. The prompt is left out: the caller's action comes next."""
    hand = _apply(_evolve(hand, out_of_turn=None), FirstToAct(position))
    hand, effects = _bet_in_turn(hand, event, position)
    return hand, tuple(e for e in effects if not isinstance(e, Prompt))


def _hold_out_of_turn(
    hand: HandProgress, event: DealerInput, position: int
) -> tuple[HandProgress, tuple[Effect, ...]]:
    """STUD-10: an action by a player who thinks he is first to act is held, not applied: it is
    established once the next player acts behind him (002 action out of turn)."""
    game = hand.game
    assert game.actor is not None
    trial, _ = _as_first(hand, event, position)
    behind = trial.game.actor
    seat, first = event.seat, hand.seat(game.actor)
    if behind is None or trial.game.phase is not Phase.BETTING:
        # Nobody is left to act behind him: there is nothing that could establish it.
        raise Refused("BET-14", f"action is on seat {first}, not seat {seat}: out of turn")
    hand = _evolve(hand, out_of_turn=event)
    text = (
        f"Seat {seat} acted out of turn: seat {first} is first to act. It stands once seat "
        f"{hand.seat(behind)} acts behind it, and the betting goes on from seat {seat}; if seat {first} "
        "acts first, it is not established (BET-14)."
    )
    return hand, (_ruling("STUD-10", text, Severity.INFO), prompt_for(hand))


def _after_out_of_turn(
    hand: HandProgress, event: DealerInput, position: int
) -> tuple[HandProgress, tuple[Effect, ...]]:
    """The next betting key after an action held out of turn (STUD-10): by the player behind it,
    the held action stands as the round's first and the betting goes on from there; by the player
    in turn, it is not established (BET-14); anyone else is out of turn."""
    held = hand.out_of_turn
    assert held is not None and hand.game.actor is not None
    held_position = hand.position(held.seat)
    try:
        established, applied = _as_first(hand, held, held_position)
    except Refused:
        # The hand has moved on under it (a hand killed by the floor): it can no longer stand.
        return _betting_input(_evolve(hand, out_of_turn=None), event)
    behind = established.game.actor
    first = hand.seat(hand.game.actor)
    if position == behind:
        after, effects = _bet_in_turn(established, event, position)
        text = (
            f"Seat {event.seat} acted behind seat {held.seat}: seat {held.seat}'s action out of turn "
            f"stands, and the betting goes on as if seat {held.seat} were first to act."
        )
        return after, (_ruling("STUD-10", text, Severity.INFO),) + applied + effects
    if position == hand.game.actor:
        after, effects = _bet_in_turn(_evolve(hand, out_of_turn=None), event, position)
        text = (
            f"Seat {first} acted in turn before anyone acted behind seat {held.seat}: seat {held.seat}'s "
            f"action out of turn is not established. Seat {held.seat} acts in turn (the same action, if "
            "nobody bets or raises before it)."
        )
        return after, (_ruling("BET-14", text, Severity.INFO),) + effects
    assert behind is not None
    raise Refused(
        "BET-14",
        f"seat {held.seat} acted out of turn: the next to act is seat {hand.seat(behind)} "
        f"(behind seat {held.seat}) or seat {first} (in turn), not seat {event.seat}",
    )


def _bet_in_turn(
    hand: HandProgress, event: DealerInput, position: int
) -> tuple[HandProgress, tuple[Effect, ...]]:
    """A betting key for the player in turn: the wager read, the action given to the engine and
    counted toward the misdeal cut-off (MD-1)."""
    game = hand.game
    call_amount = call_cost(game, position)  # legal() would also work out the raises
    effects: list[Effect] = []
    action: Wager
    key = event.key
    if key is DealerKey.FOLD:
        action = Fold(position)
    elif key is DealerKey.CHECK:
        if call_amount:
            raise Refused("INPUT", f"seat {event.seat} faces {call_amount:,} to call: call, raise or fold")
        action = CheckCall(position)
    elif key is DealerKey.CALL:
        # Facing the bring-in owed, the call key posts it (the cheapest choice, STUD-5).
        action = BringIn(position) if game.bringing_in else CheckCall(position)
    elif key is DealerKey.ALL_IN:
        options = legal(game)
        assert options is not None
        action = BetRaise(position, options.max_raise_to) if options.can_raise else CheckCall(position)
    elif key is DealerKey.BET:
        if event.amount is None:
            raise Refused("INPUT", "a bet needs an amount")
        try:
            reading = read_wager(game, position, event.amount)
        except RuleViolation as exc:
            raise Refused(exc.rule, exc.said) from None
        action = reading.action
        if reading.rule is not None:
            effects.append(_ruling(reading.rule, reading.note, Severity.CORRECT))
    else:
        raise Refused("INPUT", f"{key.value} is not a betting action")
    if hand.action_button == position and game.street == 0:
        hand, action, said = _action_button_post(hand, action, position)
        effects.extend(said)
    dark = _dark_bet_overtaken(hand, position)
    if dark is not None:
        hand, said = _dark_bet_settled(hand, action, dark)
        effects.extend(said)
    hand = _apply_bet(hand, action)
    effects.append(Applied(action))
    return _after_game_change(hand, effects)


def _action_button_post(
    hand: HandProgress, action: Wager, position: int
) -> tuple[HandProgress, Wager, tuple[Effect, ...]]:
    """STUD-18: at its holder's first turn on third street, the action button's post (a full
    completion, posted before the deal) stands as the raise of the bring-in, and he may raise
    further (003 glossary action button). A completion made before him: the post goes toward his
    call, and if he folds it stays in the pot."""
    game = hand.game
    seat = hand.seat(position)
    post = min(game.bet_unit, game.bets[position] + game.stacks[position])
    hand = _evolve(hand, action_button=None)
    if game.high_bet < post:
        if isinstance(action, (Fold, CheckCall, BringIn)):
            if isinstance(action, Fold):
                raise Refused(
                    "STUD-18",
                    f"seat {seat}'s action button post stands as the raise of the bring-in: call it in",
                )
            text = f"Seat {seat}'s action button post stands as the raise of the bring-in: {post:,}."
            return hand, BetRaise(position, post), (_ruling("STUD-18", text, Severity.INFO),)
        return hand, action, ()
    if isinstance(action, Fold):
        left = min(post - game.bets[position], game.stacks[position])
        if left > 0:
            hand = _apply(hand, Forfeit(position, left, "STUD-18"))
            text = f"Seat {seat} folds: the action button's {post:,} stays in the pot."
            return hand, action, (_ruling("STUD-18", text, Severity.INFO),)
    return hand, action, ()


def _dark_bet_overtaken(hand: HandProgress, position: int) -> DarkAction | None:
    """The bet ``position`` made in the dark for this round, which a bet reached before his turn."""
    game = hand.game
    for dark in hand.dark:
        if dark.player == position and dark.street == game.street and dark.bet is not None:
            return dark
    return None


def _dark_bet_settled(
    hand: HandProgress, action: Action, dark: DarkAction
) -> tuple[HandProgress, tuple[Effect, ...]]:
    """DRAW-6: a bet made in the dark may not be taken back (002 action out of turn). Facing a bet at
    his turn the player calls or raises for at least as much, or folds and leaves it in the pot."""
    assert dark.bet is not None
    game = hand.game
    position = dark.player
    seat = hand.seat(position)
    hand = _evolve(hand, dark=tuple(d for d in hand.dark if d != dark))
    if isinstance(action, Fold):
        left = min(dark.bet - game.bets[position], game.stacks[position])
        if left <= 0:
            return hand, ()
        hand = _apply(hand, Forfeit(position, left))
        text = f"Seat {seat} folds: the {dark.bet:,} bet in the dark stays in the pot."
        return hand, (_ruling("DRAW-6", text, Severity.INFO),)
    after = _run(game, action)
    total = game.bets[position] + game.stacks[position] - after.stacks[position]
    if total < dark.bet and after.stacks[position] > 0:
        raise Refused(
            "DRAW-6",
            f"seat {seat} bet {dark.bet:,} in the dark: it stays in the pot; call or raise for at least "
            f"{dark.bet:,}, or fold and leave it in",
        )
    return hand, ()


def _in_the_dark(
    hand: HandProgress, event: DealerInput, position: int
) -> tuple[HandProgress, tuple[Effect, ...]]:
    """DRAW-6: a player who has said how many cards he takes may check or bet in the dark, before he
    sees them: the action is his, in his turn, on the betting round after the draw, and a bet stays
    in the pot (003 glossary dark, 002 action out of turn)."""
    game = hand.game
    seat = event.seat
    street = game.street  # a street's draw comes before its betting (Street.draw)
    if any(d.player == position and d.street == street for d in hand.dark):
        raise Refused("DRAW-6", f"seat {seat} has already acted in the dark for this round")
    if game.stacks[position] == 0:
        raise Refused("INPUT", f"seat {seat} is all-in: no action from that seat")
    bet = None
    if event.key is DealerKey.BET:
        if event.amount is None or event.amount <= 0:
            raise Refused("INPUT", "a bet needs an amount")
        bet = min(event.amount, game.stacks[position])
        text = (
            f"Seat {seat} bets {bet:,} in the dark: it is the bet in seat {seat}'s turn after the draw, "
            "and it stays in the pot."
        )
    else:
        text = f"Seat {seat} checks in the dark: it is the check in seat {seat}'s turn after the draw."
    hand = _evolve(hand, dark=hand.dark + (DarkAction(position, street, bet),))
    return hand, (_ruling("DRAW-6", text, Severity.INFO), prompt_for(hand))


def _showdown_input(hand: HandProgress, event: DealerInput) -> tuple[HandProgress, tuple[Effect, ...]]:
    game = hand.game
    position = hand.position(event.seat)
    effects: list[Effect] = []
    if event.key is DealerKey.MUCK:
        if game.config.variant.game.ranking is Ranking.HOLDEM and _plays_the_board(game, position):
            text = (
                f"Seat {event.seat} threw the hand away without declaring the board: "
                "they relinquish all claim to the pot."
            )
            effects.append(_ruling("BOARD-7", text, Severity.INFO))
        action: Action = Show(position, None)
    else:
        cards = event.cards or game.hole[position]
        if UNKNOWN_CARD in cards:
            raise Refused(
                "POT-4", f"the reader did not identify seat {event.seat}'s cards: enter the cards shown"
            )
        action = Show(position, tuple(cards))
    hand = _apply(hand, action)
    effects.append(Applied(action))
    return hand, tuple(effects)


def _plays_the_board(game: HandState, position: int) -> bool:
    board = game.board
    hole = game.hole[position]
    if len(board) != 5 or UNKNOWN_CARD in hole:
        return False
    return evaluator.evaluate_high(tuple(hole) + tuple(board)) == evaluator.evaluate_high(board)
