"""tablectl web: the display pages, the /mqtt relay, and the pages in a real browser."""
