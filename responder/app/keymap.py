"""Checking the ``[keys]`` settings before they are applied.

Textual's ``set_keymap`` accepts anything: ``"answer.yes" = "notakey"`` left no yes key, and
``"answer.no" = "y"`` made y answer no while the footer still said yes. Here each entry is
checked: an unknown binding id, an unknown key name, or a key that would then trigger two
actions on the interview screen is refused with a message, and the rest is applied.
"""

from __future__ import annotations

import difflib

from textual.binding import Binding
from textual.keys import KEY_ALIASES, Keys, _character_to_key

MODIFIERS = {"ctrl", "shift", "alt", "meta", "super", "hyper"}
KEY_NAMES = (
    {k.value.split("+")[-1] for k in Keys}
    | {_character_to_key(chr(c)) for c in range(33, 127)}
    | set(KEY_ALIASES)
    | {"space", "enter", "backspace", "tab", "escape", "delete"}
    | {f"f{n}" for n in range(1, 25)}
)


def key_problem(key: str) -> str | None:
    """Why ``key`` (e.g. ``"ctrl+n"``, ``"y"``, ``"f5"``) is not a key name; None if it is."""
    if not key:
        return "an empty key name"
    *mods, base = key.split("+")
    bad = [m for m in mods if m not in MODIFIERS]
    if bad:
        return f"unknown modifier {bad[0]!r} in {key!r} (use ctrl, shift, alt)"
    if (len(base) == 1 and base.isprintable() and not base.isspace()) or base in KEY_NAMES:
        return None
    close = difflib.get_close_matches(base, sorted(KEY_NAMES), n=2, cutoff=0.7)
    hint = (
        f"; did you mean {' or '.join(repr(c) for c in close)}?"
        if close
        else " (a single character, or a name such as f5, up, pageup, space, ctrl+n)"
    )
    return f"{key!r} is not a key name{hint}"


def check_keymap(keys: dict[str, str], bindings: list[Binding]) -> tuple[dict[str, str], list[str]]:
    """The entries of ``keys`` (binding id -> "key,key") that are safe to apply, and one
    sentence per refused entry.

    ``bindings`` are those that share one screen (the app's and the interview screen's): a
    key may trigger only one of them after the change.
    """
    by_id = {b.id: b for b in bindings if b.id}
    accepted: dict[str, str] = {}
    problems: list[str] = []
    for binding_id, spec in keys.items():
        if binding_id not in by_id:
            close = difflib.get_close_matches(binding_id, list(by_id), n=1, cutoff=0.6)
            problems.append(
                f'"{binding_id}" is not a key binding id'
                + (f'; did you mean "{close[0]}"?' if close else "")
            )
            continue
        names = [k.strip() for k in spec.split(",")]
        bad = next((p for p in map(key_problem, names) if p), None)
        if bad:
            problems.append(
                f'"{binding_id}" = "{spec}": {bad}; the key stays "{by_id[binding_id].key}"'
            )
            continue
        accepted[binding_id] = ",".join(names)
    # A key bound to two actions: refuse the remapping that introduced it.
    while True:
        owner: dict[str, str] = {}
        clash = None
        for binding_id, binding in by_id.items():
            spec = accepted.get(binding_id, binding.key)
            for key in (k.strip() for k in spec.split(",")):
                if key in owner and owner[key] != binding_id:
                    clash = (key, owner[key], binding_id)
                    break
                owner[key] = binding_id
            if clash:
                break
        if clash is None:
            return accepted, problems
        key, first, second = clash
        culprit = second if second in accepted else first
        if culprit not in accepted:  # the defaults themselves clash: nothing of ours to undo
            return accepted, problems
        other = first if culprit == second else second
        problems.append(
            f'"{culprit}" = "{accepted.pop(culprit)}": {key!r} already triggers '
            f'"{other}"; the key stays "{by_id[culprit].key}"'
        )
