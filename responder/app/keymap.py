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


def split_key(key: str) -> tuple[list[str], str]:
    """(modifiers, key) of ``"ctrl+n"``; the plus key itself is ``"+"`` or ``"ctrl++"``."""
    if key.endswith("+") and (key == "+" or key.endswith("++")):
        return (key[:-2].split("+") if key != "+" else []), "+"
    *mods, base = key.split("+")
    return mods, base


def key_name(key: str) -> str:
    """``key`` as the bindings name it: a character by its name ("/" is "slash", "+" is
    "plus"), so that a key written either way is one key."""
    mods, base = split_key(key)
    if len(base) == 1:
        base = _character_to_key(base)
    return "+".join([*mods, base])


def key_problem(key: str) -> str | None:
    """Why ``key`` (e.g. ``"ctrl+n"``, ``"y"``, ``"f5"``) is not a key name; None if it is."""
    if not key:
        return "an empty key name"
    mods, base = split_key(key)
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
        owner: dict[str, tuple[str, str]] = {}  # key name -> (binding id, key as written)
        clash = None
        for binding_id, binding in by_id.items():
            spec = accepted.get(binding_id, binding.key)
            for key in (k.strip() for k in spec.split(",")):
                name = key_name(key)
                if name in owner and owner[name][0] != binding_id:
                    clash = (owner[name], (binding_id, key))
                    break
                owner[name] = (binding_id, key)
            if clash:
                break
        if clash is None:
            return accepted, problems
        (first, first_key), (second, second_key) = clash
        culprit = second if second in accepted else first
        if culprit not in accepted:  # the defaults themselves clash: nothing of ours to undo
            return accepted, problems
        other = first if culprit == second else second
        key = second_key if culprit == second else first_key
        problems.append(
            f'"{culprit}" = "{accepted.pop(culprit)}": {key!r} already triggers '
            f'"{other}"; the key stays "{by_id[culprit].key}"'
        )


def caps_lock_hint(character: str | None, bound: dict[str, str]) -> str | None:
    """What to say when a capital letter that is no key on a screen is pressed while its
    small letter is one (``bound``: key -> what it does): Caps Lock is likely on, and the key
    did nothing. None for any other key. A capital that is a key of its own ("E", the noise
    settings) is left to its binding."""
    if (
        not character
        or len(character) != 1
        or not character.isalpha()
        or not character.isupper()
        or character in bound
        or character.lower() not in bound
    ):
        return None
    small = character.lower()
    return (
        f"{character} does nothing here: is Caps Lock on? The key is {small} "
        f"({bound[small]}); nothing was answered."
    )
