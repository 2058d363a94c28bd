"""The one settings model: ``settings.toml`` under :func:`responder.paths.config_dir`.

Example (every key optional)::

    target = "chemical"        # or "class": what a new interview identifies
    suggest = "symptom"        # or "category": one symptom, or one category of symptoms
    theme = "textual-dark"
    kb = "bundled"             # a name from `responder kb list`, or a folder / .csv path
    scene_first = true         # a new interview opens with the scene step (key s any time)
    mode = "evidence"          # or "strict" (the paper's elimination), or "noise"

    [evidence]                 # the evidence mode's answer model (key v in the app)
    sensitivity = 0.8          # chance a victim shows a sign listed as common, in (0, 1)
    leak = 0.1                 # chance of a sign it does not list, in (0, sensitivity)
    threshold = 0.985          # stop when the top candidate reaches this, in (0.5, 1)
    long_row_exponent = 0.25   # long-row discount, in [0, 1]; 0 = none (docs/robustness.md)
    hallmark = 0.9             # chance of a hallmark sign (default halfway from s to 1)
    occasional = 0.31          # chance of an occasional sign (default 0.3 of the way l to s)
    textbook_share = 0.5       # chance a victim shows the row's signs and no others; 0 = off
    several_routes_share = 0.5 # chance a victim was exposed by several routes; 1 = off

    [noise]                    # the noise mode's settings (key e in the app)
    enabled = false            # older files: mode = "strict" with enabled = true is "noise"
    eps = "auto"               # or a whole number of wrong answers tolerated
    prone = "all"              # or a list of symptom ids prone to wrong answers
    model = 1                  # 1 uniform, 2 binomial
    p = 0.25                   # model 2: chance an error-prone answer is wrong

    [keys]                     # remap keys by binding id, e.g.
    "answer.unknown" = "u,space"

The file is read with :mod:`tomllib` and written with tomlkit, so the comments a user wrote
survive a save from the app. The interview's modes are validated in one place
(:meth:`responder.config.InterviewConfig.from_dict`), for the settings file, the incident
store and the command line alike. A bad file never stops the app: it starts with the
defaults and says, in one message, which line to fix; the bad file is copied to
``settings.toml.bad`` before it is overwritten.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from responder import paths
from responder.config import ConfigError, InterviewConfig
from responder.durable import atomic_write_bytes, atomic_write_text
from responder.input_limits import InputRejected, loads_toml, read_bytes, read_text

SETTINGS_FILE = "settings.toml"
DEFAULT_THEME = "textual-dark"
HEADER = "responder settings. Edit here or in the app (Settings: ctrl+s)."


class SettingsError(ValueError):
    """A settings value is wrong; the message says which and how to fix it."""


@dataclass(frozen=True)
class Settings:
    """The app's settings: the interview's modes (:class:`InterviewConfig`, kept at the
    file's top level), the theme, the knowledge base and remapped keys."""

    interview: InterviewConfig = field(default_factory=InterviewConfig)
    theme: str = DEFAULT_THEME
    kb: str | None = None  # None: bundled
    keys: dict[str, str] = field(default_factory=dict)
    #: a new interview opens with the scene step (smell, cloud, place); s opens it any time
    scene_first: bool = True

    KEYS = (*InterviewConfig.KEYS, "theme", "kb", "keys", "scene_first")

    # the interview's modes, read where the app used to keep them
    target = property(lambda self: self.interview.target)
    suggest = property(lambda self: self.interview.suggest)
    mode = property(lambda self: self.interview.mode)
    noise = property(lambda self: self.interview.noise)
    evidence = property(lambda self: self.interview.evidence)

    def with_changes(self, **changes) -> Settings:
        """A copy with some settings changed; interview modes are validated."""
        modes = {k: changes.pop(k) for k in InterviewConfig.KEYS if k in changes}
        interview = self.interview.with_changes(**modes) if modes else self.interview
        return replace(self, interview=interview, **changes)

    @classmethod
    def from_dict(cls, data: dict, where: str = "") -> Settings:
        """Validate a whole settings table; raises :class:`SettingsError`."""
        prefix = f"{where}: " if where else ""
        unknown = sorted(str(k) for k in set(data) - set(cls.KEYS))
        if unknown:
            raise SettingsError(
                f"{prefix}unknown setting key(s) {', '.join(unknown)}; "
                f"valid ones are {', '.join(sorted(cls.KEYS))}"
            )
        try:
            interview = InterviewConfig.from_dict(
                {k: data[k] for k in InterviewConfig.KEYS if k in data}
            )
        except ConfigError as exc:
            raise SettingsError(f"{prefix}{exc}") from None
        theme = data.get("theme", DEFAULT_THEME)
        if not isinstance(theme, str) or not theme or not theme.isprintable():
            raise SettingsError(
                f'{prefix}theme = {theme!r} is not allowed; use a theme name such as "textual-dark"'
            )
        kb = data.get("kb")
        if kb is not None and (not isinstance(kb, str) or not kb.strip() or not kb.isprintable()):
            raise SettingsError(
                f'{prefix}kb = {kb!r} is not allowed; use "bundled", an imported knowledge '
                "base's name, or a path"
            )
        keys = data.get("keys", {})
        if not isinstance(keys, dict) or not all(isinstance(v, str) for v in keys.values()):
            raise SettingsError(
                f"{prefix}keys = {keys!r} is not allowed; use a [keys] table of binding id = "
                '"key,key"'
            )
        scene_first = data.get("scene_first", True)
        if not isinstance(scene_first, bool):
            raise SettingsError(
                f"{prefix}scene_first = {scene_first!r} is not allowed; use true or false"
            )
        return cls(interview, theme, None if kb == "bundled" else kb, dict(keys), scene_first)

    def to_dict(self) -> dict:
        """The settings as TOML values (the [keys] table only when keys are remapped)."""
        out = {
            **self.interview.to_dict(),
            "theme": self.theme,
            "kb": self.kb or "bundled",
            "scene_first": self.scene_first,
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
    import tomlkit  # noqa: PLC0415 (only to write: start-up reads with tomllib)

    doc = tomlkit.parse(previous) if previous is not None else tomlkit.document()
    if previous is None:
        doc.add(tomlkit.comment(HEADER))
    _update(doc, settings.to_dict())
    if not settings.keys and "keys" in doc:
        del doc["keys"]
    return tomlkit.dumps(doc)


def _update(table, values: dict) -> None:
    """Set ``values`` into a tomlkit table in place, keeping what it holds around them."""
    import tomlkit  # noqa: PLC0415

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
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        file = paths.file_in_the_way(path.parent)
        if file is None:
            raise
        raise OSError(
            f"{file} is a file where a folder should be; move it away (the folder is created "
            "when needed)"
        ) from exc
    if path.is_dir():
        raise OSError(f"{path} is a folder where the settings file should be; move it away")
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
