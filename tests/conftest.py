"""Settings shared by the whole suite: the Hypothesis profiles.

Every property runs under a profile chosen by ``HYPOTHESIS_PROFILE``:

- ``ci`` (the default): ``derandomize=True`` and no example database, so every run on every
  machine tries the same examples, and a failure is reproducible from the test alone
  (``print_blob`` adds the ``@reproduce_failure`` line to the report). The examples change
  when the test, the code under test or Hypothesis changes.
- ``explore``: new random examples on each run, kept in Hypothesis' local database
  (``.hypothesis/``, git-ignored) so a failure found once is tried first next time. Use it
  to hunt for bugs (``HYPOTHESIS_PROFILE=explore python -m pytest tests/engine``); a
  failure it finds belongs in the test as an ``@example``.

A test's own ``@settings`` (its ``max_examples``, ``deadline``) apply on top of the profile.
This file is imported before any test module, so the profile is loaded before any
``@settings`` is built.

Hypothesis also tries constants it finds in the source of the code under test, taken from
every module of it loaded so far. So that the examples a property tries do not depend on
which tests ran before it in the same process (the order differs between ``-n 2`` workers
and a single file), every module of ``responder`` is imported here first.
"""

from __future__ import annotations

import importlib
import os
import pkgutil

from hypothesis import settings

import responder

settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
settings.register_profile("explore", derandomize=False, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

for _module in pkgutil.walk_packages(responder.__path__, "responder."):
    if not _module.name.endswith("__main__"):
        importlib.import_module(_module.name)
