"""The camera pipeline (later issues)."""
