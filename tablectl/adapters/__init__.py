"""The adapters (DESIGN.md layer 5): the outside world in as events, effects out, nothing else.

shoe and decks (the card shoe over firmware_bridge, tag to card), panel (the dealer's buttons,
lights and buzzer on gpiozero), mqtt (publishing the views, floor commands in).
"""
