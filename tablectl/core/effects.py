"""What the procedure asks of the world after an event: rulings, prompts, alerts.

Each ruling cites its RULES id and tells the dealer in one short sentence what
to do now. Effects are data; adapters show, sound or publish them.

A ruling's or a prompt's sentence keeps the cards it names apart from its words
(tablectl.core.sentences), so that each audience names only the cards it may see: the views
write every card that is not face up on the table as a blank (tablectl.views.secrecy). ``text``
is the whole sentence, for those who may know every card (the journal's replay, a test rig).
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass

from tablectl.core.game.actions import Action
from tablectl.core.sentences import CardName, Said, render


class Severity(enum.Enum):
    """How serious a ruling is: the one place that says so, for the panel's buzzer and the alerts."""

    INFO = "info"  # something the dealer should know (an exposed card that plays)
    CORRECT = "correct"  # the dealer fixes something and the hand goes on (a boxed card)
    MISDEAL = "misdeal"  # the hand is redealt (MD-2)
    VOID = "void"  # all action void, every chip returned (IRR-1, IRR-2, floor)
    REFUSED = "refused"  # an input that makes no sense now: nothing changed
    FLOOR = "floor"  # the floor supervisor is needed

    @property
    def rank(self) -> int:
        """0 for the most serious: of the rulings of one event, the lowest rank is sounded."""
        return _RANK[self]

    @property
    def is_alert(self) -> bool:
        """Someone is needed now (the floor, a void, a misdeal): an alert, not only an event."""
        return self in _ALERTS


_RANK = {
    severity: rank
    for rank, severity in enumerate(
        (Severity.VOID, Severity.MISDEAL, Severity.FLOOR, Severity.REFUSED, Severity.CORRECT, Severity.INFO)
    )
}
_ALERTS = frozenset({Severity.FLOOR, Severity.VOID, Severity.MISDEAL})


@dataclass(frozen=True, slots=True)
class Ruling:
    rule: str  # a RULES id, or INPUT for input no rule book covers
    said: Said  # one short sentence for the dealer, the cards it names kept apart
    severity: Severity
    needs_confirm: bool = False  # the procedure waits for the dealer's confirm

    @property
    def text(self) -> str:
        """The whole sentence, every card named: not for a display (see tablectl.views)."""
        return render(self.said)

    def render(self, name: CardName) -> str:
        return render(self.said, name)


class Prompt:
    """What the dealer does next ("Deal seat 4", "Burn and deal the flop", "Action: seat 2").

    Every step while a hand is in progress ends with one, but a fold over the journal never
    reads them: :meth:`later` makes one whose sentence is written only when it is first read.
    """

    __slots__ = ("_said", "_write")

    def __init__(self, said: Said) -> None:
        self._said: Said | None = said
        self._write: Callable[[], Said] | None = None

    @classmethod
    def later(cls, write: Callable[[], Said]) -> Prompt:
        prompt = cls.__new__(cls)
        prompt._said = None
        prompt._write = write
        return prompt

    @property
    def said(self) -> Said:
        said = self._said
        if said is None:
            write = self._write  # two threads may write it at once: both get the same sentence
            said = write() if write is not None else self._said
            assert said is not None
            self._said = said
        return said

    @property
    def text(self) -> str:
        """The whole sentence, every card named: not for a display (see tablectl.views)."""
        return render(self.said)

    def render(self, name: CardName) -> str:
        return render(self.said, name)

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
