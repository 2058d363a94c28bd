"""Reproduce the experiments of Section 7 of the paper (``responder experiments``).

Modules: :mod:`datasets` (the random data models), :mod:`group_id`, :mod:`query_groups`,
:mod:`noise`, :mod:`diagnostic` (one per experiment), :mod:`runner` (seeds, processes,
progress bar), :mod:`report` (tables, JSON, plots), :mod:`settings`; the command is
:mod:`responder.cli.experiments`.
"""
