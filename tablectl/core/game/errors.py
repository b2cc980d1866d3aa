"""The one error the rules core raises: a refused action that names the rule broken."""

from __future__ import annotations

from tablectl.core.sentences import Said, render


class RuleViolation(ValueError):
    """An action the rules do not allow now. The state it was applied to is unchanged.

    ``rule`` is an id of RULES.md (``BET-4``) or ``INPUT`` for input that no rule
    book covers (a seat that does not exist, a negative amount). ``said`` is the sentence, the
    cards it names kept apart (tablectl.core.sentences); ``message`` writes every card.
    """

    def __init__(self, rule: str, said: Said) -> None:
        super().__init__(f"{rule}: {render(said)}")
        self.rule = rule
        self.said = said

    @property
    def message(self) -> str:
        return render(self.said)
