"""Starting and ending hands (layer 4): the deal of a new hand, a misdeal or void hand, a hand played out.

Between hands the table deals the next hand when the dealer presses new hand: at least two
players with chips (TBL-3), the button moved (TBL-1) or first drawn for (DEAL-5), a new level
of blinds from this deal (TBL-2). A stray card between hands is put back (DEAL-6) or, with a
different back, ruled on (IRR-1). A misdeal (MD-2) or a void hand (IRR-1, IRR-2, the floor)
gives every chip back and is redealt with the same button and blinds; a hand played out pays
its pots, places players out on the same hand (TBL-4) and stays the last hand (TBL-5).
"""

from __future__ import annotations

import dataclasses

from tablectl.core.effects import Effect, HandEnded, Prompt, Ruling, Severity
from tablectl.core.events import CardDrawn, CardSeen, DealerInput, DealerKey, Event
from tablectl.core.game.engine import ConfigError, HandConfig, start_hand
from tablectl.core.game.variants import Structure, variant_from_code
from tablectl.core.procedure import Refused, new_hand, prompt_for
from tablectl.core.table.button import (
    _draw_for_button,
    _fair_button,
    _next_active,
    _orbit_before_deal,
    _positions,
)
from tablectl.core.table.state import ButtonFix, TableState, _active_seats, _evolve, _kept_remedies


def _between_hands(state: TableState, event: Event) -> tuple[TableState, tuple[Effect, ...]]:
    if isinstance(event, CardSeen):
        return state, ()  # the camera sees cards gathered and shuffled between hands
    if isinstance(event, CardDrawn) and state.button_draw is not None:
        return _draw_for_button(state, event)
    if isinstance(event, DealerInput) and event.key is DealerKey.NEW_HAND:
        return _start_hand(state)
    if isinstance(event, CardDrawn):
        if event.foreign:
            text = (
                "A card with a different back was found in the stub: the action stands. "
                "Remove it from the deck."
            )
            return state, (Ruling("IRR-1", text, Severity.FLOOR),)
        raise Refused("DEAL-6", "no hand in progress: the next card is not shown; put it back face down")
    raise Refused("INPUT", "no hand in progress: press new hand to deal")


def _start_hand(state: TableState) -> tuple[TableState, tuple[Effect, ...]]:
    active = _active_seats(state)
    if len(active) < 2:
        raise Refused("TBL-3", "a hand needs at least two players with chips in their seats")
    if state.button is None:
        # DEAL-5: the button goes to the first ace dealt face up, clockwise from seat 1.
        draw = tuple(active)
        text = "New game: deal one card face up to each player from the first seat until an ace appears."
        return _evolve(state, button_draw=draw), (Ruling("DEAL-5", text, Severity.INFO), Prompt(text))
    effects: list[Effect] = []
    orbit, new_round = _orbit_before_deal(state, active)
    fix = state.button_fix
    if state.redeal or state.keep_button:
        button = state.button if state.button in active else _next_active(state, state.button, active)
    elif fix is not ButtonFix.OFF:
        button, ruling = _fair_button(state, orbit, active)  # TBL-1: a misplaced button corrected
        effects.extend(ruling)
        fix = ButtonFix.ROUND
    else:
        button = _next_active(state, state.button, active)  # TBL-1: one seat on each hand
    if new_round:
        fix = ButtonFix.OFF  # the round of the correction is over
    blinds, ante, bb_ante = state.blinds, state.ante, state.big_blind_ante
    if state.next_level is not None and not state.redeal:
        (blinds, ante), bb_ante = state.next_level, state.big_blind_ante
        effects.append(
            Ruling(
                "TBL-2",
                f"New level from this deal: blinds {'/'.join(f'{b:,}' for b in blinds)}.",
                Severity.INFO,
            )
        )
    start = active.index(button) + 1
    seats_in = tuple(active[(start + k) % len(active)] for k in range(len(active)))
    n = len(seats_in)
    stacks = tuple(state.seats[s - 1].stack for s in seats_in)  # type: ignore[union-attr]
    antes: tuple[int, ...] = ()
    if ante:
        antes = (ante,) * n
    elif bb_ante:
        # The engine takes antes in posting order: index 1 is the big blind's, heads-up too.
        antes = tuple(bb_ante if p == 1 else 0 for p in range(n))
    cfg = state.config
    variant = variant_from_code(cfg.game)
    try:
        hand_config = HandConfig(
            variant=variant,
            starting_stacks=stacks,
            # A straddle needs a player to post it; stud has no blinds (the bring-in, STUD-5).
            blinds=blinds[: 2 if n == 2 else n] if variant.game.has_button else (),
            bring_in=cfg.bring_in,
            antes=antes,
            min_bet=blinds[-1] if variant.structure is Structure.SPREAD_LIMIT else 0,
            small_bet=cfg.small_bet,
            big_bet=cfg.big_bet,
            spread_max=cfg.spread_max,
            chip_unit=cfg.chip_unit,
            rules=cfg.rules(),
        )
    except ConfigError as exc:
        raise Refused("INPUT", f"this hand cannot be dealt ({exc}): the floor sets blinds that fit") from None
    number = state.hand_number + 1
    hand = new_hand(number, seats_in, start_hand(hand_config))
    state = _evolve(
        state,
        button=button,
        blinds=blinds,
        ante=ante,
        big_blind_ante=bb_ante,
        next_level=None if not state.redeal else state.next_level,
        hand_number=number,
        overrides=_kept_remedies(state.overrides, number),
        hand=hand,
        last_hand=None,
        redeal=False,
        keep_button=False,
        orbit=(*orbit, _positions(button, active)),
        button_fix=fix,
        vacated=(),
    )
    effects.append(Prompt(f"Hand {number}: button at seat {button}. " + prompt_for(hand).text))
    return state, tuple(effects)


def _end_without_play(state: TableState, kind: str, rule: str) -> tuple[TableState, tuple[Effect, ...]]:
    """A misdeal (MD-2) or a void hand (IRR-1, IRR-2, floor): every chip goes back."""
    hand = state.hand
    assert hand is not None
    stacks = {seat: hand.game.config.starting_stacks[p] for p, seat in enumerate(hand.seats_in)}
    # MD-2: a misdeal is redealt with the same button and blinds; so is a void hand.
    state = _evolve(state, hand=None, last_hand=hand, redeal=True)
    text = (
        "Misdeal: every chip goes back; redeal with the same button and blinds."
        if kind == "misdeal"
        else "Hand void: every chip goes back to who bet it; redeal."
    )
    effects: tuple[Effect, ...] = (
        Ruling(
            "MD-2" if kind == "misdeal" else rule,
            text,
            Severity.MISDEAL if kind == "misdeal" else Severity.VOID,
        ),
        HandEnded(hand.number, stacks, voided=(kind == "void"), misdeal=(kind == "misdeal")),
        Prompt("Press new hand to redeal."),
    )
    return state, effects


def _hand_complete(state: TableState, effects: tuple[Effect, ...]) -> tuple[TableState, tuple[Effect, ...]]:
    hand = state.hand
    assert hand is not None
    finishing = hand.game.finishing_stacks
    seats = list(state.seats)
    result: dict[int, int] = {}
    for position, seat in enumerate(hand.seats_in):
        current = seats[seat - 1]
        assert current is not None
        seats[seat - 1] = dataclasses.replace(current, stack=finishing[position])
        result[seat] = finishing[position]
    out = list(effects)
    broke = [p for p in range(hand.n) if finishing[p] == 0]
    if len(broke) >= 2 and state.config.rules().tournament:
        # TBL-4: more chips at the start of the hand places higher; equal: first left of the dealer.
        order = sorted(broke, key=lambda p: (-hand.game.config.starting_stacks[p], p))
        places = ", ".join(f"seat {hand.seat(p)}" for p in order)
        out.append(
            Ruling("TBL-4", f"Players out on the same hand, higher place first: {places}.", Severity.INFO)
        )
    out.append(HandEnded(hand.number, result))
    won: dict[int, int] = {}
    for award in hand.game.awards:
        for position, chips in award.shares:
            won[hand.seat(position)] = won.get(hand.seat(position), 0) + chips
    pushes = ", ".join(f"seat {seat} {chips:,}" for seat, chips in sorted(won.items()))
    out.append(Prompt(f"Push the pot: {pushes}. Press new hand to deal the next one."))
    return _evolve(state, seats=tuple(seats), hand=None, last_hand=hand), tuple(out)
