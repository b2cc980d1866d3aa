"""File formats for hands: PHH (Poker Hand History) import and export."""
