"""PHH (Poker Hand History) import, replay, check and export.

PHH is TOML (github.com/uoftcprg/phh-std): ``variant``, ``antes``,
``blinds_or_straddles``, ``min_bet`` or ``small_bet``/``big_bet``, ``bring_in`` (stud),
``starting_stacks``, ``actions`` and usually ``finishing_stacks``. Player
``p1`` is the first seat left of the button, which is our position 0.
"""

from __future__ import annotations

import math
import os
import tarfile
import tomllib
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from tablectl.core.cards import Card, card_str, parse_cards
from tablectl.core.game.actions import (
    UNKNOWN_CARD,
    Action,
    BetRaise,
    BringIn,
    CheckCall,
    DealBoard,
    DealHole,
    Discard,
    Fold,
    Kill,
    Show,
)
from tablectl.core.game.engine import HandConfig, HandState, Phase, apply, show_down_all, start_hand
from tablectl.core.game.errors import RuleViolation
from tablectl.core.game.profiles import HouseRules, house_rules
from tablectl.core.game.variants import Structure, UnsupportedVariant, variant_from_code
from tablectl.formats.files import BadFile, read_capped, read_text, too_large

MAX_HAND_BYTES = 4 * 1024 * 1024  # a hand history is a few kilobytes; anything larger is not read
NO_SUCH_PATH = "no such file or folder"


class PhhError(ValueError):
    """A PHH record we cannot read; the message names the field or action."""


@dataclass(frozen=True)
class PhhHand:
    source: str
    fields: dict[str, Any]

    @property
    def variant_code(self) -> str:
        return str(self.fields.get("variant", ""))

    @property
    def finishing_stacks(self) -> tuple[float, ...] | None:
        stacks = self.fields.get("finishing_stacks")
        return tuple(stacks) if stacks is not None else None


def parse_phh(text: str, source: str = "<text>") -> PhhHand:
    try:
        fields = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise PhhError(f"{source}: not valid TOML: {exc}") from None
    for key in ("variant", "starting_stacks", "actions"):
        if key not in fields:
            raise PhhError(f"{source}: the field {key!r} is missing")
    return PhhHand(source, fields)


Skipped = Callable[[str, str], None]  # (name, reason) of a file that could not be read


def iter_sources(
    paths: Iterable[str | os.PathLike[str]], skipped: Skipped | None = None
) -> Iterator[tuple[str, str]]:
    """(name, text) of every .phh file in the given files, folders and .tar.gz archives.

    A file that cannot be read (not UTF-8, over MAX_HAND_BYTES, a damaged archive, a path that
    does not exist) is passed to ``skipped`` with the reason, and the rest are read; without
    ``skipped`` it raises :class:`PhhError` naming it. Archives are read as a stream, one
    member at a time, never more than MAX_HAND_BYTES of one.
    """

    def bad(name: str, reason: str) -> None:
        if skipped is None:
            raise PhhError(f"{name}: {reason}")
        skipped(name, reason)

    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            for child in sorted(path.rglob("*")):
                if child.is_file() and (child.suffix == ".phh" or child.name.endswith((".tar.gz", ".tgz"))):
                    yield from iter_sources([child], skipped)
        elif path.name.endswith((".tar.gz", ".tgz")):
            yield from _archive(path, bad)
        elif path.is_file():
            try:
                text = read_text(path, MAX_HAND_BYTES, "hand history")
            except BadFile as exc:
                bad(str(path), str(exc))
                continue
            yield str(path), text
        else:
            bad(str(path), NO_SUCH_PATH)


def _archive(path: Path, bad: Callable[[str, str], None]) -> Iterator[tuple[str, str]]:
    members = 0
    try:
        # "r|gz": a stream, read front to back, no member list kept beyond the one in hand.
        with tarfile.open(path, "r|gz") as archive:
            while (member := archive.next()) is not None:
                # TarFile keeps every member it read (an attribute the stubs leave out): an
                # archive of millions of hands would grow without end.
                archive.members.clear()  # type: ignore[attr-defined]
                members += 1
                if not (member.isfile() and member.name.endswith(".phh")):
                    continue
                name = f"{path}:{member.name}"
                if member.size > MAX_HAND_BYTES:
                    bad(name, str(too_large(member.size, MAX_HAND_BYTES, "hand history")))
                    continue
                handle = archive.extractfile(member)
                if handle is None:
                    continue
                try:
                    text = read_capped(handle, MAX_HAND_BYTES, "hand history")
                except BadFile as exc:
                    bad(name, str(exc))
                    continue
                yield name, text
    except (tarfile.TarError, EOFError, OSError, zlib.error) as exc:
        where = "not a .tar.gz archive" if members == 0 else f"damaged after {members} members"
        rest = "its hands were not read" if members == 0 else "the hands after it were not read"
        bad(str(path), f"{where} ({exc}); {rest}")


def hand_config(hand: PhhHand, rules: HouseRules | None = None) -> HandConfig:
    f = hand.fields
    variant = variant_from_code(hand.variant_code)
    stacks = tuple(_chips(v, "starting_stacks") for v in f["starting_stacks"])
    n = len(stacks)
    blinds = tuple(_chips(v, "blinds_or_straddles") for v in f.get("blinds_or_straddles", ()))
    while blinds and blinds[-1] == 0:
        blinds = blinds[:-1]
    if 0 in blinds:
        raise PhhError(f"{hand.source}: blinds_or_straddles with a gap is not a button game we deal")
    antes = tuple(_chips(v, "antes") for v in f.get("antes", ()))
    if antes and not any(antes):
        antes = ()
    if antes and len(antes) != n:
        antes = (antes + (0,) * n)[:n]
    return HandConfig(
        variant=variant,
        starting_stacks=stacks,
        blinds=blinds,
        antes=antes,
        min_bet=_chips(f.get("min_bet", 0), "min_bet"),
        small_bet=_chips(f.get("small_bet", 0), "small_bet"),
        big_bet=_chips(f.get("big_bet", 0), "big_bet"),
        spread_max=_chips(f.get("spread_max", 0), "spread_max"),
        bring_in=_chips(f.get("bring_in", 0), "bring_in"),
        rules=rules or house_rules("tda"),
    )


def _chips(value: Any, name: str) -> int:
    if isinstance(value, str):
        try:
            value = float(value) if any(ch in value for ch in ".eE") else int(value)
        except ValueError:
            raise PhhError(f"{name}: {value!r} is not a number of chips") from None
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or not math.isfinite(value)
        or value != int(value)
    ):
        raise PhhError(f"{name}: {value!r} is not a whole number of chips")
    return int(value)


def _player(token: str) -> int:
    if not (token.startswith("p") and token[1:].isdigit() and int(token[1:]) >= 1):
        raise PhhError(f"{token!r} is not a player (p1, p2, ...)")
    return int(token[1:]) - 1


def _cards(text: str) -> tuple[Card, ...]:
    if set(text) <= {"?"}:
        return (UNKNOWN_CARD,) * (len(text) // 2)
    if "?" in text:
        known = parse_cards(text.replace("?", ""))
        return known + (UNKNOWN_CARD,) * (text.count("?") // 2)
    return parse_cards(text)


def parse_action(text: str) -> Action:
    """One PHH action: ``d dh p1 AcKd``, ``d db JcTs2d``, ``p3 f``, ``p2 cc``, ``p1 cbr 300``,
    ``p4 sm 6d5h`` (``p4 sm`` alone mucks), ``p2 pb`` (the bring-in), ``p1 sd QdJc`` (discard;
    ``p1 sd`` alone stands pat)."""
    words = text.split("#", 1)[0].split()
    if len(words) >= 3 and words[0] == "d" and words[1] == "dh":
        return DealHole(_player(words[2]), _cards(words[3]) if len(words) > 3 else ())
    if len(words) == 3 and words[0] == "d" and words[1] == "db":
        return DealBoard(_cards(words[2]))
    if len(words) >= 2 and words[0].startswith("p"):
        player = _player(words[0])
        verb = words[1]
        if verb == "f" and len(words) == 2:
            return Fold(player)
        if verb == "cc" and len(words) == 2:
            return CheckCall(player)
        if verb == "cbr" and len(words) == 3:
            return BetRaise(player, _chips(words[2], "cbr amount"))
        if verb == "pb" and len(words) == 2:
            return BringIn(player)
        if verb == "sd" and len(words) in (2, 3):
            return Discard(player, _cards(words[2]) if len(words) == 3 else ())
        if verb == "sm" and len(words) in (2, 3):
            if len(words) == 2:
                return Show(player, None)
            cards = _cards(words[2])
            return Show(player, cards)
    raise PhhError(f"cannot read the PHH action {text!r}")


@dataclass
class Replay:
    state: HandState
    actions: list[Action] = field(default_factory=list)


def replay(hand: PhhHand, rules: HouseRules | None = None) -> Replay:
    """Play a PHH record through the engine; refused actions raise RuleViolation."""
    state = start_hand(hand_config(hand, rules))
    record = Replay(state)
    for index, text in enumerate(hand.fields["actions"]):
        action = parse_action(text)
        try:
            state = apply(state, action)
        except RuleViolation as exc:
            raise RuleViolation(exc.rule, f"action {index + 1} {text!r}: {exc.message}") from None
        record.actions.append(action)
    if state.phase is Phase.SHOWDOWN:
        state = show_down_all(state)  # cards speak for hands the record leaves unshown
    record.state = state
    return record


@dataclass
class CheckReport:
    files: int = 0
    matched: int = 0
    unsupported: dict[str, int] = field(default_factory=dict)
    mismatched: list[dict[str, Any]] = field(default_factory=list)
    odd_chip: list[dict[str, Any]] = field(default_factory=list)
    no_result: int = 0
    unreadable: list[dict[str, str]] = field(default_factory=list)  # files not read, with the reason

    def as_json(self) -> dict[str, Any]:
        return {
            "files": self.files,
            "matched": self.matched,
            "unsupported": dict(sorted(self.unsupported.items())),
            "mismatched": self.mismatched,
            "odd_chip": self.odd_chip,
            "no_finishing_stacks": self.no_result,
            "unreadable": self.unreadable,
        }


def check(paths: Sequence[str], rules: HouseRules | None = None) -> CheckReport:
    """Replay every hand and compare the finishing stacks with the record; a file that cannot
    be read is listed in ``unreadable`` with the reason, and the rest are checked."""
    report = CheckReport()

    def skipped(name: str, reason: str) -> None:
        report.unreadable.append({"file": name, "reason": reason})

    for source, text in iter_sources(paths, skipped):
        report.files += 1
        try:
            hand = parse_phh(text, source)
            variant_from_code(hand.variant_code)
        except UnsupportedVariant:
            code = str(tomllib.loads(text).get("variant", "?"))
            report.unsupported[code] = report.unsupported.get(code, 0) + 1
            continue
        except PhhError as exc:
            report.mismatched.append({"file": source, "difference": str(exc)})
            continue
        try:
            state = replay(hand, rules).state
        except (RuleViolation, PhhError, ValueError, TypeError, KeyError, OverflowError) as exc:
            # One bad record is reported, never the end of a run over thousands.
            report.mismatched.append({"file": source, "difference": f"refused: {exc}"})
            continue
        recorded = hand.finishing_stacks
        if recorded is None:
            report.no_result += 1
            continue
        if not state.is_complete:
            report.mismatched.append(
                {"file": source, "difference": f"the record ends with the hand {state.phase.value}"}
            )
            continue
        ours = state.finishing_stacks
        if tuple(ours) == tuple(recorded):
            report.matched += 1
            continue
        explained = _odd_chip_explanation(state, ours, recorded)
        if explained is not None:
            report.matched += 1
            report.odd_chip.append({"file": source, **explained})
            continue
        report.mismatched.append(
            {
                "file": source,
                "difference": {
                    f"p{i + 1}": {"ours": o, "recorded": r}
                    for i, (o, r) in enumerate(zip(ours, recorded, strict=False))
                    if o != r
                },
            }
        )
    return report


def _odd_chip_explanation(
    state: HandState, ours: Sequence[int], recorded: Sequence[float]
) -> dict[str, Any] | None:
    """A record that split a pot into half chips: we paid whole chips by POT-6 instead.

    Explained when the totals agree, every stack is within half a chip, and the
    players we gave the extra chip are winners of a split pot, the first clockwise
    from the button.
    """
    if len(ours) != len(recorded):
        return None
    diffs = [Fraction(o) - Fraction(r) for o, r in zip(ours, recorded, strict=True)]
    if sum(diffs) != 0 or any(abs(d) > Fraction(1, 2) for d in diffs):
        return None
    if all(float(r).is_integer() for r in recorded):
        return None
    gainers = [i for i, d in enumerate(diffs) if d > 0]
    split_winners = {p for a in state.awards if len(a.shares) > 1 for p, _ in a.shares}
    if not set(gainers) <= split_winners:
        return None
    return {
        "recorded": list(recorded),
        "ours": list(ours),
        "odd_chip_to": [f"p{i + 1}" for i in gainers],
        "rule": "POT-6: the odd chip goes to the first hand clockwise from the button",
    }


# -- export --------------------------------------------------------------------------------------


def action_text(action: Action) -> str:
    def cards(cs: Sequence[Card]) -> str:
        return "".join("??" if c == UNKNOWN_CARD else card_str(c) for c in cs)

    if isinstance(action, DealHole):
        return f"d dh p{action.player + 1} {cards(action.cards)}"
    if isinstance(action, DealBoard):
        return f"d db {cards(action.cards)}"
    if isinstance(action, Fold):
        return f"p{action.player + 1} f"
    if isinstance(action, CheckCall):
        return f"p{action.player + 1} cc"
    if isinstance(action, BetRaise):
        return f"p{action.player + 1} cbr {action.to}"
    if isinstance(action, BringIn):
        return f"p{action.player + 1} pb"
    if isinstance(action, Discard):
        return f"p{action.player + 1} sd {cards(action.cards)}".rstrip()
    if isinstance(action, Kill):
        # PHH has no dead-hand action: write the fold it amounts to, with the ruling as a comment.
        return f"p{action.player + 1} f # dead hand {action.rule}".rstrip()
    if action.cards:
        return f"p{action.player + 1} sm {cards(action.cards)}"
    return f"p{action.player + 1} sm"


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        escaped = value.replace("\\", "\\\\").replace('"', '\\"')
        return f'"{escaped}"'
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise TypeError(f"cannot write {value!r} as TOML")


def export_phh(
    config: HandConfig,
    actions: Sequence[Action],
    finishing_stacks: Sequence[int] | None = None,
    extra: dict[str, Any] | None = None,
) -> str:
    """A PHH record of a hand: the config, the actions and the result."""
    n = config.players
    structure = config.variant.structure
    fields: dict[str, Any] = {
        "variant": config.variant.code,
        "antes": list(config.antes) or [0] * n,
        "blinds_or_straddles": list(config.blinds) + [0] * (n - len(config.blinds)),
    }
    if config.bring_in:
        fields["bring_in"] = config.bring_in
    if structure is Structure.FIXED_LIMIT:
        fields["small_bet"] = config.small_bet
        fields["big_bet"] = config.big_bet
    else:
        fields["min_bet"] = config.opening_min
    if structure is Structure.SPREAD_LIMIT:
        fields["spread_max"] = config.spread_max  # not in the PHH standard: our spread-limit games
    fields["starting_stacks"] = list(config.starting_stacks)
    fields["actions"] = [action_text(a) for a in actions]
    if finishing_stacks is not None:
        fields["finishing_stacks"] = list(finishing_stacks)
    fields.update(extra or {})
    return "".join(f"{key} = {_toml_value(value)}\n" for key, value in fields.items())
