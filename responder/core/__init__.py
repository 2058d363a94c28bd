"""The headless interview core: everything the screens show, testable without a terminal.

- :mod:`responder.core.session`: one interview (answers, modes, noise, storage, resume).
- :mod:`responder.core.views`: pure functions from an interview to what a screen shows.
- :mod:`responder.core.store`: the incident database (SQLite): every change committed
  durably, one writer per incident, resume, damage set aside.
- :mod:`responder.core.journal_import`: earlier versions' JSON-lines journals, imported once.
- :mod:`responder.core.export`: Markdown and JSON reports.
- :mod:`responder.core.remaining`: expected questions left, computed in a helper process.

The core imports the engine, the knowledge base and the settings model; it never imports
textual (``tests/test_layers.py`` checks).
"""
