"""The headless interview core: everything the screens show, testable without a terminal.

- :mod:`responder.core.session`: one interview (answers, modes, noise, journal writes, resume).
- :mod:`responder.core.views`: pure functions from an interview to what a screen shows.
- :mod:`responder.core.journal`: the append-only, fsync'd interview journal.
- :mod:`responder.core.export`: Markdown and JSON reports.
- :mod:`responder.core.remaining`: expected questions left, computed in a helper process.

The core imports the engine, the knowledge base and the settings model; it never imports
textual (``tests/test_layers.py`` checks).
"""
