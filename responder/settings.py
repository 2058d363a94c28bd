"""The one settings model: ``settings.toml`` under :func:`responder.paths.config_dir`.

Example (every key optional)::

    target = "chemical"        # or "class": what a new interview identifies
    suggest = "symptom"        # or "category": one symptom, or one category of symptoms
    theme = "textual-dark"
    kb = "bundled"             # a name from `responder kb list`, or a folder / .csv path
    mode = "evidence"          # or "strict": the paper's elimination (noise: [noise] enabled)

    [evidence]                 # the evidence mode's answer model (key v in the app)
    sensitivity = 0.8          # chance a victim shows a sign the chemical lists, in (0, 1)
    leak = 0.1                 # chance of a sign it does not list, in (0, sensitivity)
    threshold = 0.95           # stop when the top candidate reaches this, in (0.5, 1)
    long_row_exponent = 0.25   # long-row discount, in [0, 1]; 0 = none (docs/robustness.md)

    [noise]                    # defaults for noise tolerance (key e in the app)
    enabled = false
    eps = "auto"               # or a whole number of wrong answers tolerated
    prone = "all"              # or a list of symptom ids prone to wrong answers
    model = 1                  # 1 uniform, 2 binomial
    p = 0.25                   # model 2: chance an error-prone answer is wrong

    [keys]                     # remap keys by binding id, e.g.
    "answer.unknown" = "u,space"

The file is read with :mod:`tomllib` and written with tomlkit, so the comments a user wrote
survive a save from the app. Every value is validated in one place
(:meth:`Settings.from_dict` and :meth:`NoiseSettings.from_dict`), for the settings file and
for the modes a journal records alike. A bad file never stops the app: it starts with the
defaults and says, in one message, which line to fix; the bad file is copied to
``settings.toml.bad`` before it is overwritten.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

import tomlkit

from responder import paths
from responder.durable import atomic_write_bytes, atomic_write_text
from responder.engine.evidence import EvidenceError, EvidenceSettings
from responder.input_limits import InputRejected, loads_toml, read_bytes, read_text

SETTINGS_FILE = "settings.toml"
TARGETS = ("chemical", "class")
SUGGEST = ("symptom", "category")
ANSWER_MODES = ("evidence", "strict")  # noise tolerance is the [noise] table's switch
EVIDENCE_SETTING_KEYS = ("sensitivity", "leak", "threshold", "long_row_exponent")
NOISE_MODELS = (1, 2)
DEFAULT_THEME = "textual-dark"
HEADER = "responder settings. Edit here or in the app (Settings: ctrl+s)."


class SettingsError(ValueError):
    """A settings value (from the file or a journal) is wrong; the message says which and how."""


def _bad(where: str, key: str, value, expected: str) -> SettingsError:
    prefix = f"{where}: " if where else ""
    return SettingsError(f"{prefix}{key} = {value!r} is not allowed; use {expected}")


def _check_keys(where: str, table: str, data: dict, known: tuple[str, ...]) -> None:
    unknown = sorted(set(data) - set(known))
    if unknown:
        prefix = f"{where}: " if where else ""
        raise SettingsError(
            f"{prefix}unknown {table}key(s) {', '.join(map(str, unknown))}; "
            f"valid ones are {', '.join(sorted(known))}"
        )


@dataclass(frozen=True)
class NoiseSettings:
    """Noise tolerance (Section 6) as the responder sets it.

    ``eps`` None means automatic (:func:`responder.engine.diagnostics.auto_eps`); ``prone``
    None means every symptom may be answered wrongly; ``p`` is used by model 2 only.
    """

    enabled: bool = False
    eps: int | None = None
    prone: tuple[str, ...] | None = None
    model: int = 1
    p: float = 0.25

    KEYS = ("enabled", "eps", "prone", "model", "p")

    def to_dict(self) -> dict:
        """Plain TOML/JSON values: eps ``"auto"``, prone ``"all"`` for the defaults."""
        return {
            "enabled": self.enabled,
            "eps": "auto" if self.eps is None else self.eps,
            "prone": "all" if self.prone is None else list(self.prone),
            "model": self.model,
            "p": self.p,
        }

    @classmethod
    def from_dict(cls, data, where: str = "") -> NoiseSettings:
        """Validate a ``[noise]`` table (or a journal's noise modes).

        Raises
        ------
        SettingsError
            Naming the key, the bad value and what to use instead.
        """
        if data is None:
            return cls()
        if not isinstance(data, dict):
            raise _bad(where, "noise", data, "a [noise] table")
        _check_keys(where, "[noise] ", data, cls.KEYS)
        enabled = data.get("enabled", False)
        if not isinstance(enabled, bool):
            raise _bad(where, "noise.enabled", enabled, "true or false")
        eps = data.get("eps", "auto")
        if eps in ("auto", None):
            eps = None
        elif isinstance(eps, bool) or not isinstance(eps, int) or eps < 0:
            raise _bad(where, "noise.eps", eps, '"auto" or a whole number 0 or more')
        prone = data.get("prone", "all")
        if prone in ("all", None):
            prone = None
        elif isinstance(prone, list) and prone and all(isinstance(s, str) for s in prone):
            prone = tuple(prone)
        else:
            raise _bad(where, "noise.prone", prone, '"all" or a non-empty list of symptom ids')
        model = data.get("model", 1)
        if isinstance(model, bool) or model not in NOISE_MODELS:
            raise _bad(where, "noise.model", model, "1 (uniform) or 2 (binomial)")
        p = data.get("p", 0.25)
        if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0 <= p <= 0.5:
            raise _bad(where, "noise.p", p, "a number from 0 to 0.5")
        return cls(enabled, eps, prone, int(model), float(p))

    def with_enabled(self, enabled: bool) -> NoiseSettings:
        return replace(self, enabled=enabled)


@dataclass(frozen=True)
class Settings:
    target: str = "chemical"
    suggest: str = "symptom"
    theme: str = DEFAULT_THEME
    kb: str | None = None  # None: bundled
    noise: NoiseSettings = field(default_factory=NoiseSettings)
    keys: dict[str, str] = field(default_factory=dict)
    mode: str = "evidence"
    evidence: EvidenceSettings = field(default_factory=EvidenceSettings)

    KEYS = ("target", "suggest", "theme", "kb", "noise", "keys", "mode", "evidence")

    def with_changes(self, **changes) -> Settings:
        return replace(self, **changes)

    @classmethod
    def from_dict(cls, data: dict, where: str = "") -> Settings:
        """Validate a whole settings table; raises :class:`SettingsError`."""
        _check_keys(where, "setting ", data, cls.KEYS)
        target = data.get("target", "chemical")
        if target not in TARGETS:
            raise _bad(where, "target", target, '"chemical" or "class"')
        suggest = data.get("suggest", "symptom")
        if suggest not in SUGGEST:
            raise _bad(where, "suggest", suggest, '"symptom" or "category"')
        theme = data.get("theme", DEFAULT_THEME)
        if not isinstance(theme, str) or not theme:
            raise _bad(where, "theme", theme, 'a theme name such as "textual-dark"')
        kb = data.get("kb")
        if kb is not None and (not isinstance(kb, str) or not kb.strip()):
            raise _bad(where, "kb", kb, '"bundled", an imported knowledge base\'s name, or a path')
        noise = NoiseSettings.from_dict(data.get("noise", {}), where)
        keys = data.get("keys", {})
        if not isinstance(keys, dict) or not all(isinstance(v, str) for v in keys.values()):
            raise _bad(where, "keys", keys, 'a [keys] table of binding id = "key,key"')
        mode = data.get("mode", "evidence")
        if mode not in ANSWER_MODES:
            raise _bad(
                where, "mode", mode, '"evidence" or "strict" (noise tolerance: [noise] enabled)'
            )
        ev = data.get("evidence", {})
        if not isinstance(ev, dict):
            raise _bad(where, "evidence", ev, "an [evidence] table")
        _check_keys(where, "[evidence] ", ev, EVIDENCE_SETTING_KEYS)
        try:
            evidence = EvidenceSettings(**{k: ev[k] for k in EVIDENCE_SETTING_KEYS if k in ev})
        except EvidenceError as exc:
            name = str(exc).split(" ", 1)[0]
            name = "long_row_exponent" if name == "long-row" else name
            key = f"evidence.{name}" if name in EVIDENCE_SETTING_KEYS else "evidence"
            raise SettingsError(f"{where}: {key}: {exc}" if where else f"{key}: {exc}") from None
        return cls(
            target,
            suggest,
            theme,
            None if kb == "bundled" else kb,
            noise,
            dict(keys),
            mode,
            evidence,
        )

    def to_dict(self) -> dict:
        """The settings as TOML values (the [keys] table only when keys are remapped)."""
        out = {
            "target": self.target,
            "suggest": self.suggest,
            "theme": self.theme,
            "kb": self.kb or "bundled",
            "mode": self.mode,
            "evidence": {k: getattr(self.evidence, k) for k in EVIDENCE_SETTING_KEYS},
            "noise": self.noise.to_dict(),
        }
        if self.keys:
            out["keys"] = dict(sorted(self.keys.items()))
        return out


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
        # a regular file of at most 1 MB, UTF-8, nesting and numbers in range
        data = loads_toml(read_text(path, "settings file"), str(path))
    except InputRejected as exc:
        if exc.kind == "missing" and not path.is_symlink():
            return Settings()
        raise SettingsError(f"{exc}; or delete the file to start from the defaults") from None
    return Settings.from_dict(data, str(path))


def dumps(settings: Settings, previous: str | None = None) -> str:
    """The settings as TOML text; with ``previous`` (the file as it was), its comments,
    layout and key order are kept and only the values change."""
    doc = tomlkit.parse(previous) if previous is not None else tomlkit.document()
    if previous is None:
        doc.add(tomlkit.comment(HEADER))
    _update(doc, settings.to_dict())
    if not settings.keys and "keys" in doc:
        del doc["keys"]
    return tomlkit.dumps(doc)


def _update(table, values: dict) -> None:
    """Set ``values`` into a tomlkit table in place, keeping what it holds around them."""
    for key, value in values.items():
        if isinstance(value, dict):
            if key not in table or not isinstance(table[key], dict):
                table[key] = tomlkit.table()
            sub = table[key]
            for old in [k for k in sub if k not in value]:
                del sub[old]
            _update(sub, value)
        else:
            current = table.get(key)
            current = current.unwrap() if hasattr(current, "unwrap") else current
            if current != value or type(current) is not type(value):  # 1 == 1.0 == True
                table[key] = value


def save_settings(settings: Settings, path: Path | None = None) -> Path:
    """Write the settings atomically (a temporary file renamed over the old one), keeping
    the comments of the file already there.

    A settings file that does not parse is copied to ``settings.toml.bad`` first and then
    replaced by a fresh one, so a hand edit is never lost.

    Raises
    ------
    OSError
        The folder cannot be written.
    """
    path = path or settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    previous = None
    if path.is_file():
        try:
            load_settings(path)
            previous = read_text(path, "settings file")
        except SettingsError:
            try:  # keep the hand edit; a FIFO or an oversized file is not copied
                atomic_write_bytes(
                    path.with_name(path.name + ".bad"), read_bytes(path, "settings file")
                )
            except (InputRejected, OSError):
                pass
    # a unique temporary name per write: two windows saving at once never share one
    return atomic_write_text(path, dumps(settings, previous))
