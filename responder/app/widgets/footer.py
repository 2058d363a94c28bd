"""Quit kept in a full screen's footer on a narrow terminal: the palette's hint gives way
first, then the keys the screen names (they still work, and stay in the help and ctrl+p)."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import replace

from textual.screen import Screen
from textual.widgets import Footer

#: the footer's "▏^p palette" at its right end
PALETTE_WIDTH = 14


def keys_width(screen: Screen, give_way: Collection[str], hidden: Collection[str] = ()) -> int:
    """Columns the compact footer needs for the keys it lists now (quit included), each drawn
    as "key label" and a blank, counting ``give_way`` keys as shown unless ``hidden``."""
    app = screen.app
    actions, width = set(), 0
    for _node, binding, _enabled, _tooltip in screen.active_bindings.values():
        shown = binding.show or binding.id in give_way
        if not shown or binding.id in hidden or binding.action in actions:
            continue
        actions.add(binding.action)
        width += len(app.get_key_display(binding)) + len(binding.description) + 2
    return width


def fit_footer(screen: Screen, width: int, give_way: Sequence[str]) -> None:
    """Show the palette's hint only where every key fits beside it, then leave out the keys
    ``give_way`` names, first named first, until the rest and quit fit ``width``."""
    hidden: list[str] = []
    palette = keys_width(screen, give_way) + PALETTE_WIDTH <= width
    if not palette:
        for binding_id in give_way:
            if keys_width(screen, give_way, hidden) <= width:
                break
            hidden.append(binding_id)
    screen.query_one(Footer).show_command_palette = palette
    changed = False
    for key, bindings in screen._bindings.key_to_bindings.items():
        fitted = [replace(b, show=b.id not in hidden) if b.id in give_way else b for b in bindings]
        if fitted != bindings:
            screen._bindings.key_to_bindings[key] = fitted
            changed = True
    if changed:
        screen.refresh_bindings()
