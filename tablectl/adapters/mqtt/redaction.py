"""Hiding cards in the texts the displays read: every card not face up on the table becomes
``[card]``. Kept apart so that it can move, whole, into tablectl/views/ (the views will then
own the secrecy, and this module goes)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any, Final

HIDDEN_CARD: Final = "[card]"
_CARD_TOKEN = re.compile(r"(?<![A-Za-z0-9])[2-9TJQKA][cdhs](?![A-Za-z0-9])")


def visible_cards(public_view: Mapping[str, Any]) -> frozenset[str]:
    """The cards face up on the table: the board and the hands shown."""
    seen: set[str] = set(public_view.get("board") or ())
    for seat in public_view.get("seats") or ():
        shown = seat.get("shown")
        if shown:
            seen.update(shown)
    return frozenset(seen)


def redact(text: str, visible: frozenset[str]) -> str:
    """``text`` with every card that is not face up on the table written ``[card]``.

    Ruling texts name cards ("a second Kh came out", "Misdeal: 7c was dealt out of sequence");
    the card named may be a hole card or a burn. Only the private topics may carry those.
    """
    if not _CARD_TOKEN.search(text):
        return text
    return _CARD_TOKEN.sub(lambda m: m.group(0) if m.group(0) in visible else HIDDEN_CARD, text)


def redact_view(
    view: dict[str, Any], visible: frozenset[str], redact: Callable[[str, frozenset[str]], str] = redact
) -> dict[str, Any]:
    """The dealer and floor views carry the procedure's texts: the prompt, the pending ruling.
    ``view`` is changed in place and returned."""
    prompt = view.get("prompt")
    if isinstance(prompt, str):
        view["prompt"] = redact(prompt, visible)
    pending = view.get("pending")
    if isinstance(pending, dict) and isinstance(pending.get("text"), str):
        view["pending"] = {**pending, "text": redact(pending["text"], visible)}
    return view
