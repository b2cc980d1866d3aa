"""The serial link to the card shoe's microcontroller (issue 4)."""
