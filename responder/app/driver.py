"""A lone Esc in a real terminal, delivered as fast as the terminal allows.

A terminal sends Esc as the same byte that starts an escape sequence (arrow keys, F1...):
only the silence after it tells them apart. Textual's input thread checks for that silence
each time it wakes, and it wakes every 100 ms when no byte comes, so Esc (close a dialog,
skip the scene) took 100-150 ms. Here the thread wakes every ``ESCAPE_DELAY`` (10 ms unless
the user's ESCDELAY says otherwise, see :mod:`responder.app`) instead: the few extra wake-ups
cost nothing measurable.
"""

from __future__ import annotations

import os
import selectors
import signal
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


def hang_up_at_end_of_input() -> bool:
    """Make the end of the terminal's input a hang-up (SIGHUP to this process, once).

    A terminal closed without a SIGHUP reaching the app (its window killed by some
    terminals, a pseudo-terminal whose other end went away) leaves every read returning
    nothing at once: Textual's input thread took that for piped input and looped, and the
    app ran on unseen at two-thirds of a CPU. False where it does not apply."""
    from textual.drivers import linux_driver  # noqa: PLC0415

    if getattr(linux_driver, "os", None) is not os:
        return False  # another Textual, or already done
    told: list[bool] = []

    def read(fd: int, size: int) -> bytes:
        data = os.read(fd, size)
        if not data and size and not told:
            told.append(True)
            os.kill(os.getpid(), signal.SIGHUP)
        return data

    module = types.ModuleType("os")
    module.__dict__.update(vars(os))
    module.read = read
    linux_driver.os = module
    return True
