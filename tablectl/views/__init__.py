"""What each audience sees (DESIGN.md layer 5): pure projections of the table's state.

Only :func:`private` ever holds a hole card that has not been shown; :mod:`.secrecy` says what is
secret at a given moment and every other view is safe to show its audience as it is.
"""

from tablectl.views.audiences import RecentRuling, dealer, floor, private, public, ruling_body
from tablectl.views.operations import summary

__all__ = ["RecentRuling", "dealer", "floor", "private", "public", "ruling_body", "summary"]
