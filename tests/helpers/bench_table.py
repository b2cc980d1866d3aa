"""A table's config file for a bench: the shipped example (deploy/table.example.toml) as table 1 of
room main, its shoe on a simulated shoe's pseudo-terminal and a deck registry with one deck that
the simulated shoe's tags belong to. What the integration tests start `tablectl serve` with."""

from __future__ import annotations

from pathlib import Path

from firmware_bridge.tags import tag_id
from tablectl.adapters.decks import Deck, DeckRegistry, save_registry
from tests.helpers.paths import ROOT

SIM_DECK = "sim-red"  # firmware_bridge.simshoe.SimShoe's default deck


def write_bench_table(folder: Path, shoe_port: str | Path, *, decks: bool = True) -> Path:
    """``folder``/table.toml (and, with ``decks``, ``folder``/decks.json); returns the file's path.
    Without ``decks`` the table starts with none (start_without_decks = true)."""
    example = (ROOT / "deploy" / "table.example.toml").read_text()
    config = (
        example.replace('table = "12"', 'table = "1"')
        .replace('port = "/dev/tablectl-shoe"', f'port = "{shoe_port}"')
        .replace('registry = "/var/lib/tablectl/decks.json"', f'registry = "{folder / "decks.json"}"')
    )
    if decks:
        registry = DeckRegistry()
        registry.add_deck(Deck(SIM_DECK, "red", {tag_id(SIM_DECK, c): c for c in range(52)}), active=True)
        save_registry(registry, folder / "decks.json")
    else:
        config = config.replace("start_without_decks = false", "start_without_decks = true")
    path = folder / "table.toml"
    path.write_text(config)
    return path
