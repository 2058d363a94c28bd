"""A lone Esc in a real terminal, delivered as fast as the terminal allows.

A terminal sends Esc as the same byte that starts an escape sequence (arrow keys, F1...):
only the silence after it tells them apart. Textual's input thread checks for that silence
each time it wakes, and it wakes every 100 ms when no byte comes, so Esc (close a dialog,
skip the scene) took 100-150 ms. Here the thread wakes every ``ESCAPE_DELAY`` (10 ms unless
the user's ESCDELAY says otherwise, see :mod:`responder.app`) instead: the few extra wake-ups
cost nothing measurable.
"""

from __future__ import annotations

import selectors
import types


def quicker_escape() -> bool:
    """Make Textual's Linux driver wake every ESCAPE_DELAY; False where it does not apply."""
    from textual import constants  # noqa: PLC0415
    from textual.drivers import linux_driver  # noqa: PLC0415

    wake = constants.ESCAPE_DELAY
    base = getattr(linux_driver, "selectors", None)
    if base is not selectors or not hasattr(selectors, "SelectSelector"):
        return False  # another Textual, or already done

    class WakingSelector(selectors.SelectSelector):
        def select(self, timeout=None):
            return super().select(wake if timeout is None else min(timeout, wake))

    module = types.ModuleType("selectors")
    module.__dict__.update(vars(selectors))
    module.SelectSelector = WakingSelector
    linux_driver.selectors = module
    return True
