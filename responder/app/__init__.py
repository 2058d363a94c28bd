"""The full-screen interview app (``responder`` with no subcommand)."""

import os

# A lone Esc closes a dialog: the terminal parser waits this long (ms) for the rest of an
# escape sequence first. Textual's 100 ms is made for slow remote links; a field laptop's own
# terminal needs far less. A user's ESCDELAY still wins. Set before Textual is imported.
os.environ.setdefault("ESCDELAY", "10")
