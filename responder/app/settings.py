"""The app's settings: ``settings.toml`` under :func:`responder.paths.config_dir`.

Example (every key optional)::

    target = "chemical"        # or "class": what a new interview identifies
    suggest = "symptom"        # or "category": one symptom, or one category of symptoms
    theme = "textual-dark"
    kb = "bundled"             # a name from `responder kb list`, or a folder / .csv path

    [noise]                    # defaults for noise tolerance (key e in the app)
    enabled = false
    eps = "auto"               # or a whole number of wrong answers tolerated
    prone = "all"              # or a list of symptom ids prone to wrong answers
    model = 1                  # 1 uniform, 2 binomial
    p = 0.25                   # model 2: chance an error-prone answer is wrong

    [keys]                     # remap keys by binding id, e.g.
    "answer.unknown" = "u,space"

A bad file never stops the app: it starts with the defaults and says, in one message, which
line to fix. The bad file is kept (copied to ``settings.toml.bad``) before it is overwritten.
"""

from __future__ import annotations

import json
import os
import tomllib
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from responder import paths

SETTINGS_FILE = "settings.toml"
TARGETS = ("chemical", "class")
SUGGEST = ("symptom", "category")
DEFAULT_THEME = "textual-dark"


class SettingsError(ValueError):
    """The settings file is unreadable or has a bad value; the message says which and how."""


@dataclass(frozen=True)
class NoiseDefaults:
    enabled: bool = False
    eps: int | None = None  # None: "auto" = floor((delta - 1) / 2)
    prone: tuple[str, ...] | None = None  # None: every symptom
    model: int = 1
    p: float = 0.25


@dataclass(frozen=True)
class Settings:
    target: str = "chemical"
    suggest: str = "symptom"
    theme: str = DEFAULT_THEME
    kb: str | None = None  # None: bundled
    noise: NoiseDefaults = field(default_factory=NoiseDefaults)
    keys: dict[str, str] = field(default_factory=dict)

    def with_changes(self, **changes) -> "Settings":
        return replace(self, **changes)


def settings_path() -> Path:
    return paths.config_dir() / SETTINGS_FILE


def load_settings(path: Path | None = None) -> Settings:
    """Read the settings file; a missing file gives the defaults.

    Raises
    ------
    SettingsError
        The file cannot be read or parsed, or a value is wrong.
    """
    path = path or settings_path()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Settings()
    except (OSError, UnicodeDecodeError) as exc:
        raise SettingsError(f"{path}: cannot read the settings file ({exc}); fix or delete it") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(f"{path}: not valid TOML ({exc}); fix the line or delete the file") from None
    return _parse(data, path)


def _parse(data: dict, path: Path) -> Settings:
    def bad(key: str, value, expected: str) -> SettingsError:
        return SettingsError(f"{path}: {key} = {value!r} is not allowed; use {expected}")

    known = {"target", "suggest", "theme", "kb", "noise", "keys"}
    unknown = sorted(set(data) - known)
    if unknown:
        raise SettingsError(
            f"{path}: unknown setting(s) {', '.join(unknown)}; valid ones are {', '.join(sorted(known))}"
        )
    target = data.get("target", "chemical")
    if target not in TARGETS:
        raise bad("target", target, '"chemical" or "class"')
    suggest = data.get("suggest", "symptom")
    if suggest not in SUGGEST:
        raise bad("suggest", suggest, '"symptom" or "category"')
    theme = data.get("theme", DEFAULT_THEME)
    if not isinstance(theme, str) or not theme:
        raise bad("theme", theme, 'a theme name such as "textual-dark"')
    kb = data.get("kb")
    if kb is not None and (not isinstance(kb, str) or not kb.strip()):
        raise bad("kb", kb, '"bundled", an imported knowledge base\'s name, or a path')
    if kb == "bundled":
        kb = None
    noise = data.get("noise", {})
    if not isinstance(noise, dict):
        raise bad("noise", noise, "a [noise] table")
    unknown = sorted(set(noise) - {"enabled", "eps", "prone", "model", "p"})
    if unknown:
        raise SettingsError(f"{path}: unknown [noise] key(s) {', '.join(unknown)}; valid ones are "
                            "enabled, eps, prone, model, p")
    enabled = noise.get("enabled", False)
    if not isinstance(enabled, bool):
        raise bad("noise.enabled", enabled, "true or false")
    eps = noise.get("eps", "auto")
    if eps == "auto":
        eps = None
    elif isinstance(eps, bool) or not isinstance(eps, int) or eps < 0:
        raise bad("noise.eps", eps, '"auto" or a whole number 0 or more')
    prone = noise.get("prone", "all")
    if prone == "all":
        prone = None
    elif isinstance(prone, list) and prone and all(isinstance(s, str) for s in prone):
        prone = tuple(prone)
    else:
        raise bad("noise.prone", prone, '"all" or a non-empty list of symptom ids')
    model = noise.get("model", 1)
    if model not in (1, 2) or isinstance(model, bool):
        raise bad("noise.model", model, "1 (uniform) or 2 (binomial)")
    p = noise.get("p", 0.25)
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0 <= p <= 0.5:
        raise bad("noise.p", p, "a number from 0 to 0.5")
    keys = data.get("keys", {})
    if not isinstance(keys, dict) or not all(isinstance(v, str) for v in keys.values()):
        raise bad("keys", keys, 'a [keys] table of binding id = "key,key"')
    return Settings(target, suggest, theme, kb, NoiseDefaults(enabled, eps, prone, int(model), float(p)),
                    dict(keys))


def dumps(settings: Settings) -> str:
    """The settings as TOML text (strings are written as JSON strings, valid TOML)."""
    q = json.dumps
    lines = [
        "# responder settings. Edit here or in the app (Settings: ctrl+s).",
        f"target = {q(settings.target)}",
        f"suggest = {q(settings.suggest)}",
        f"theme = {q(settings.theme)}",
        f"kb = {q(settings.kb or 'bundled')}",
        "",
        "[noise]",
        f"enabled = {'true' if settings.noise.enabled else 'false'}",
        f"eps = {q('auto') if settings.noise.eps is None else settings.noise.eps}",
        "prone = " + (q("all") if settings.noise.prone is None
                      else "[" + ", ".join(q(s) for s in settings.noise.prone) + "]"),
        f"model = {settings.noise.model}",
        f"p = {settings.noise.p!r}",
    ]
    if settings.keys:
        lines += ["", "[keys]"] + [f"{q(k)} = {q(v)}" for k, v in sorted(settings.keys.items())]
    return "\n".join(lines) + "\n"


def save_settings(settings: Settings, path: Path | None = None) -> Path:
    """Write the settings atomically (a temporary file renamed over the old one).

    A settings file that does not parse is copied to ``settings.toml.bad`` first, so a hand
    edit is never lost.

    Raises
    ------
    OSError
        The folder cannot be written.
    """
    path = path or settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists():
        try:
            load_settings(path)
        except SettingsError:
            backup = path.with_name(path.name + ".bad")
            backup.write_bytes(path.read_bytes())
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(dumps(settings))
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
    return path


def as_dict(settings: Settings) -> dict:
    return asdict(settings)
