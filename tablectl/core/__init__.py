"""The pure core, DESIGN.md layers 1 to 4: cards and hand evaluation (cards, evaluator), the
game rules (game/), the contracts with the adapters (events, effects), the dealing procedure
(procedure) and the table (table).

Nothing here does I/O, reads a clock or draws a random number: time comes in on the events
and every choice is the caller's. tests/test_layers.py keeps it so.
"""
