"""The full-screen interview app (``responder`` with no subcommand)."""
