"""What the procedure asks of the world after an event: rulings, prompts, alerts.

Each ruling cites its RULES id and tells the dealer in one short sentence what
to do now. Effects are data; adapters show, sound or publish them.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass

from tablectl.core.game.actions import Action


class Severity(enum.Enum):
    INFO = "info"  # something the dealer should know (an exposed card that plays)
    CORRECT = "correct"  # the dealer fixes something and the hand goes on (a boxed card)
    MISDEAL = "misdeal"  # the hand is redealt (MD-2)
    VOID = "void"  # all action void, every chip returned (IRR-1, IRR-2, floor)
    REFUSED = "refused"  # an input that makes no sense now: nothing changed
    FLOOR = "floor"  # the floor supervisor is needed


@dataclass(frozen=True, slots=True)
class Ruling:
    rule: str  # a RULES id, or INPUT for input no rule book covers
    text: str  # one short sentence for the dealer
    severity: Severity
    needs_confirm: bool = False  # the procedure waits for the dealer's confirm


class Prompt:
    """What the dealer does next ("Deal seat 4", "Burn and deal the flop", "Action: seat 2").

    Every step while a hand is in progress ends with one, but a fold over the journal never
    reads them: :meth:`later` makes one whose text is written only when it is first read.
    """

    __slots__ = ("_text", "_write")

    def __init__(self, text: str) -> None:
        self._text: str | None = text
        self._write: Callable[[], str] | None = None

    @classmethod
    def later(cls, write: Callable[[], str]) -> Prompt:
        prompt = cls.__new__(cls)
        prompt._text = None
        prompt._write = write
        return prompt

    @property
    def text(self) -> str:
        text = self._text
        if text is None:
            write = self._write  # two threads may write it at once: both get the same text
            text = write() if write is not None else self._text
            assert text is not None
            self._text = text
        return text

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Prompt):
            return NotImplemented
        return self.text == other.text

    def __hash__(self) -> int:
        return hash(self.text)

    def __repr__(self) -> str:
        return f"Prompt(text={self.text!r})"


@dataclass(frozen=True, slots=True)
class Applied:
    """The procedure applied this action to the hand (for narration and replay)."""

    action: Action


@dataclass(frozen=True, slots=True)
class HandEnded:
    hand: int
    stacks: dict[int, int]  # seat -> chips after the hand
    voided: bool = False
    misdeal: bool = False


Effect = Ruling | Prompt | Applied | HandEnded
