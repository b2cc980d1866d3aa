"""The one error the rules core raises: a refused action that names the rule broken."""

from __future__ import annotations


class RuleViolation(ValueError):
    """An action the rules do not allow now. The state it was applied to is unchanged.

    ``rule`` is an id of RULES.md (``BET-4``) or ``INPUT`` for input that no rule
    book covers (a seat that does not exist, a negative amount).
    """

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(f"{rule}: {message}")
        self.rule = rule
        self.message = message
