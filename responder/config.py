"""One interview configuration: what to identify, how to suggest, how answers count.

:class:`InterviewConfig` is the single model of an interview's modes, used by the settings
file, the incident store, the JSON-lines protocol and every command line:

- ``target``: ``"chemical"`` or ``"class"`` (the paper's object or group identification;
  ``"object"`` and ``"group"`` are accepted as aliases);
- ``suggest``: ``"symptom"`` (one query at a time) or ``"category"`` (a query category to
  pick from); with the target it fixes the paper's policy (GBS, GISA, GQSA, GIGQSA);
- ``mode``: how answers count: ``"evidence"`` (graded likelihoods, nothing eliminated),
  ``"strict"`` (the paper's elimination) or ``"noise"`` (elimination tolerating up to eps
  wrong answers, Section 6);
- ``noise``: the noise mode's settings (:class:`NoiseSettings`);
- ``evidence``: the evidence mode's settings the user gave (sensitivity, leak, threshold...;
  :data:`~responder.engine.evidence.EvidenceSettings.KEYS`). What is not given comes from the
  knowledge base's fitted answer model (its grades.toml), then the engine's defaults
  (:meth:`InterviewConfig.evidence_settings`).

Every value is validated in one place (:meth:`InterviewConfig.from_dict`), and every error is
a :class:`ConfigError` naming the field at fault, so each entry point can say which key or
option to change. Automatic eps is worked out only by
:func:`responder.engine.diagnostics.auto_eps`. :meth:`InterviewConfig.build_state` is the one
place a configuration becomes engine objects.
"""

from __future__ import annotations

import argparse
import math
from dataclasses import dataclass, field, replace

from responder.engine.diagnostics import auto_eps, min_hamming_distance
from responder.engine.evidence import (
    DEFAULT_CLASS_BORROW,
    DEFAULT_FREQUENCY_LEAK,
    DEFAULT_LEAK,
    DEFAULT_LONG_ROW_EXPONENT,
    DEFAULT_SENSITIVITY,
    DEFAULT_SEVERAL_ROUTES_SHARE,
    DEFAULT_TEXTBOOK_LEAK,
    DEFAULT_TEXTBOOK_SENSITIVITY,
    DEFAULT_TEXTBOOK_SHARE,
    DEFAULT_THRESHOLD,
    PICK_MODELS,
    EvidenceError,
    EvidenceSettings,
)
from responder.engine.noise import NoiseModel, NoiseSettingsError, prone_mask

#: What to identify, in the product's words; the engine's words are aliases.
TARGETS = ("chemical", "class")
TARGET_ALIASES = {"object": "chemical", "group": "class"}
ENGINE_TARGET = {"chemical": "object", "class": "group"}
SUGGEST = ("symptom", "category")
MODES = ("evidence", "strict", "noise")
DEFAULT_MODE = "evidence"
POLICY = {
    ("chemical", "symptom"): "gbs",
    ("class", "symptom"): "gisa",
    ("chemical", "category"): "gqsa",
    ("class", "category"): "gigqsa",
}
NOISE_MODELS = (1, 2)
#: No interview has more questions than this; eps (wrong answers tolerated) above it is
#: certainly a typing error. Against a knowledge base the bound is its number of queries.
MAX_EPS = 10_000


class ConfigError(ValueError):
    """An interview setting is impossible. ``field`` names it as the settings file does
    (``"target"``, ``"noise.eps"``, ``"evidence.leak"``...); the message says what to use."""

    def __init__(self, field: str, message: str, reason: str | None = None):
        super().__init__(message)
        self.field = field
        #: the message without the field's name, for a command line that names its option
        self.reason = reason or message

    def cli_message(self) -> str:
        """``--option: what is wrong`` for the command line."""
        return f"{self.option()}: {self.reason}"

    def option(self) -> str:
        """The command-line option of the field (``--noise-eps``, ``--leak``...)."""
        return OPTION_OF_FIELD.get(self.field, "--" + self.field.split(".")[-1].replace("_", "-"))


def _bad(key: str, value, expected: str) -> ConfigError:
    shown = repr(value) if not isinstance(value, str) or len(value) <= 40 else repr(value[:40])
    return ConfigError(key, f"{key} = {shown} is not allowed; use {expected}")


def _check_keys(table: str, data: dict, known) -> None:
    unknown = sorted(str(k) for k in set(data) - set(known))
    if unknown:
        raise ConfigError(
            table or unknown[0],
            f"unknown {table + ' ' if table else ''}key(s) {', '.join(unknown)}; "
            f"valid ones are {', '.join(sorted(known))}",
        )


def canonical_target(value) -> str:
    """``"chemical"`` or ``"class"`` from either vocabulary; ConfigError otherwise."""
    if isinstance(value, str):
        value = TARGET_ALIASES.get(value, value)
    if value not in TARGETS:
        raise _bad("target", value, '"chemical" or "class" ("object" and "group" also work)')
    return value


@dataclass(frozen=True)
class NoiseSettings:
    """Noise tolerance (Section 6) as the responder sets it.

    ``eps`` None means automatic (:func:`responder.engine.diagnostics.auto_eps`); ``prone``
    None means every query may be answered wrongly; ``p`` is used by model 2 only.
    ``enabled`` is kept for settings files written before the noise mode was one of the
    three modes: there ``mode = "strict"`` with ``enabled = true`` meant the noise mode.
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
    def from_dict(cls, data) -> NoiseSettings:
        """Validate a ``[noise]`` table; ConfigError naming the key otherwise."""
        if data is None:
            return cls()
        if not isinstance(data, dict):
            raise _bad("noise", data, "a [noise] table")
        _check_keys("noise", data, cls.KEYS)
        enabled = data.get("enabled", False)
        if not isinstance(enabled, bool):
            raise _bad("noise.enabled", enabled, "true or false")
        eps = data.get("eps", "auto")
        if eps in ("auto", None):
            eps = None
        elif isinstance(eps, bool) or not isinstance(eps, int) or not 0 <= eps <= MAX_EPS:
            raise _bad("noise.eps", eps, f'"auto" or a whole number from 0 to {MAX_EPS}')
        prone = data.get("prone", "all")
        if prone in ("all", None):
            prone = None
        elif (
            isinstance(prone, list)
            and prone
            and all(isinstance(s, str) and s.strip() and s.isprintable() for s in prone)
        ):
            prone = tuple(prone)
        else:
            raise _bad("noise.prone", prone, '"all" or a non-empty list of symptom ids')
        model = data.get("model", 1)
        if isinstance(model, bool) or model not in NOISE_MODELS:
            raise _bad("noise.model", model, "1 (uniform) or 2 (binomial)")
        p = data.get("p", 0.25)
        if (
            isinstance(p, bool)
            or not isinstance(p, (int, float))
            or not math.isfinite(p)
            or not 0 <= p <= 0.5
        ):
            raise _bad("noise.p", p, "a number in [0, 0.5]")
        return cls(enabled, eps, prone, int(model), float(p))

    def with_enabled(self, enabled: bool) -> NoiseSettings:
        return replace(self, enabled=enabled)


def evidence_from_dict(data) -> dict:
    """Validate an ``[evidence]`` table (the settings given, alone); returns them as given.
    ConfigError naming the key otherwise."""
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise _bad("evidence", data, "an [evidence] table")
    _check_keys("evidence", data, EvidenceSettings.KEYS)
    given = {k: data[k] for k in EvidenceSettings.KEYS if k in data and data[k] is not None}
    for key, value in given.items():
        if key != "pick" and isinstance(value, str):
            _quoted_number(key, value)
    resolved = checked_evidence(given)
    return {k: getattr(resolved, k) for k in given}


def _quoted_number(key: str, value: str) -> None:
    """A number setting of the ``[evidence]`` table written as text (``"0.5"``, quoted):
    the engine's validator reads text as a number (the command line's options are text),
    so a settings file's quoted number was taken without a word. ConfigError naming the
    key, the value and what to give; text that is no number is left to the validator."""
    try:
        number = float(value)
    except ValueError:
        return
    field = f"evidence.{key}"
    shown = repr(value) if len(value) <= 40 else repr(value[:40])
    said = f"{field} = {shown} is text, not a number"
    try:
        checked_evidence({key: number})
    except ConfigError as exc:
        raise ConfigError(field, f"{said}; give a number without quotes ({exc.reason})") from None
    raise ConfigError(field, f"{said}; write it without quotes: {key} = {value.strip()}")


def checked_evidence(values: dict, symptom_leaks=None) -> EvidenceSettings:
    """EvidenceSettings from ``values`` (the engine's defaults for the rest); ConfigError
    naming the key at fault."""
    try:
        return EvidenceSettings(**values, symptom_leaks=symptom_leaks)
    except EvidenceError as exc:
        key = f"evidence.{exc.field}" if exc.field else "evidence"
        raise ConfigError(key, f"{key}: {exc}", str(exc)) from None
    except TypeError as exc:  # a value of a type the engine cannot compare
        raise ConfigError("evidence", f"evidence settings: {exc}") from None


@dataclass(frozen=True)
class InterviewConfig:
    """An interview's modes; see the module docstring. Build with :meth:`from_dict` (or
    :meth:`from_args`) to validate; the constructor trusts its arguments."""

    target: str = "chemical"
    suggest: str = "symptom"
    mode: str = DEFAULT_MODE
    noise: NoiseSettings = field(default_factory=NoiseSettings)
    #: the evidence settings given, key -> value; an EvidenceSettings here gives them all
    evidence: dict = field(default_factory=dict)

    KEYS = ("target", "suggest", "mode", "noise", "evidence")

    def __post_init__(self) -> None:
        if isinstance(self.evidence, EvidenceSettings):
            given = {k: getattr(self.evidence, k) for k in EvidenceSettings.KEYS}
            object.__setattr__(self, "evidence", {k: v for k, v in given.items() if v is not None})

    @property
    def policy(self) -> str:
        """The paper's policy for the target and suggestion mode."""
        return POLICY[self.target, self.suggest]

    @property
    def engine_target(self) -> str:
        return ENGINE_TARGET[self.target]

    def with_changes(self, **changes) -> InterviewConfig:
        """A copy with some fields changed, validated like :meth:`from_dict`. A ``mode``
        given here is the mode (the older ``noise.enabled`` spelling does not override it)."""
        data = {**self.to_dict(), **_plain(changes)}
        if "mode" in changes and isinstance(data.get("noise"), dict):
            data["noise"] = {**data["noise"], "enabled": changes["mode"] == "noise"}
        return InterviewConfig.from_dict(data)

    # -- plain data ---------------------------------------------------------------------------

    @classmethod
    def from_dict(cls, data) -> InterviewConfig:
        """Validate a configuration (a settings file's top level, a stored incident's modes,
        protocol options). Unknown keys are refused; missing keys take their defaults.

        Raises
        ------
        ConfigError
            Naming the field and what to use instead.
        """
        if not isinstance(data, dict):
            raise _bad("config", data, "a table of target, suggest, mode, noise, evidence")
        _check_keys("", data, cls.KEYS)
        target = canonical_target(data.get("target", "chemical"))
        suggest = data.get("suggest", "symptom")
        if suggest not in SUGGEST:
            raise _bad("suggest", suggest, '"symptom" or "category"')
        noise = NoiseSettings.from_dict(data.get("noise"))
        mode = data.get("mode", DEFAULT_MODE)
        if mode not in MODES:
            raise _bad("mode", mode, '"evidence", "strict" or "noise"')
        if mode == "strict" and noise.enabled:
            mode = "noise"  # the older spelling of the noise mode
        noise = noise.with_enabled(mode == "noise")
        evidence = evidence_from_dict(data.get("evidence"))
        return cls(target, suggest, mode, noise, evidence)

    def to_dict(self) -> dict:
        """Plain TOML/JSON values; :meth:`from_dict` reads them back to an equal config."""
        return {
            "target": self.target,
            "suggest": self.suggest,
            "mode": self.mode,
            "noise": self.noise.to_dict(),
            "evidence": dict(self.evidence),
        }

    # -- engine objects -----------------------------------------------------------------------

    def eps_for(self, problem) -> int:
        """Wrong answers tolerated on ``problem``: the setting, or automatic."""
        if self.noise.eps is not None:
            return self.noise.eps
        return auto_eps(min_hamming_distance(problem.matrix))

    def noise_model(self, problem) -> NoiseModel | None:
        """The persistent-noise model on ``problem`` in the noise mode, else None.

        Raises
        ------
        ConfigError
            eps above the number of queries, or error-prone ids the problem lacks.
        """
        if self.mode != "noise":
            return None
        eps = self.eps_for(problem)
        if eps > problem.n_queries:
            raise ConfigError(
                "noise.eps",
                f"eps is {eps}, more wrong answers than the {problem.n_queries} questions; "
                f"give a whole number from 0 to {problem.n_queries}, or auto",
            )
        spec = "all" if self.noise.prone is None else ",".join(self.noise.prone)
        try:
            mask = prone_mask(problem.n_queries, spec, problem.query_names)
            return NoiseModel(eps, mask, model=self.noise.model, p=self.noise.p)
        except NoiseSettingsError as exc:
            raise ConfigError("noise", str(exc)) from None

    def evidence_settings(self, defaults=None, symptom_leaks=None) -> EvidenceSettings | None:
        """The evidence settings in the evidence mode, else None: the settings given, over
        ``defaults`` (a knowledge base's fitted answer model, :attr:`KnowledgeBase.
        answer_model`), over the engine's defaults; with the knowledge base's per-query leaks
        (NaN for none). ConfigError when the combination is impossible."""
        if self.mode != "evidence":
            return None
        return self.resolved_evidence(defaults, symptom_leaks)

    def resolved_evidence(self, defaults=None, symptom_leaks=None) -> EvidenceSettings:
        """:meth:`evidence_settings` whatever the mode (for display and the settings form)."""
        leaks = None if symptom_leaks is None else tuple(symptom_leaks)
        return checked_evidence({**(defaults or {}), **self.evidence}, leaks)

    def build_state(self, problem, **extra):
        """An :class:`~responder.engine.state.InterviewState` on ``problem`` in this
        configuration; ``extra`` goes to the state (reported queries, implications...).
        ``symptom_leaks`` and ``evidence_defaults`` in ``extra`` are the knowledge base's
        per-query leaks and fitted answer model."""
        from responder.engine.state import InterviewState  # noqa: PLC0415

        leaks = extra.pop("symptom_leaks", None)
        defaults = extra.pop("evidence_defaults", None)
        return InterviewState(
            problem,
            target=self.engine_target,
            policy=self.policy,
            noise=self.noise_model(problem),
            evidence=self.evidence_settings(defaults, leaks),
            **extra,
        )

    # -- command line -------------------------------------------------------------------------

    @classmethod
    def from_args(cls, args: argparse.Namespace, base: InterviewConfig | None = None):
        """The configuration given by :func:`add_config_arguments`'s options, over ``base``
        (default: the defaults). ConfigError names the option's field."""
        data = (base or cls()).to_dict()
        for key in ("target", "suggest", "mode"):
            if getattr(args, key, None) is not None:
                data[key] = getattr(args, key)
        if getattr(args, "eps", None) is not None:
            if getattr(args, "mode", None) not in (None, "noise"):
                raise ConfigError(
                    "noise.eps",
                    f"it applies only to --mode noise, not --mode {args.mode}; leave --eps out, "
                    "or give --mode noise",
                )
            data["noise"]["eps"] = _eps_value(args.eps)
            data["mode"] = "noise"
        for key in EvidenceSettings.KEYS:
            value = getattr(args, key, None)
            if value is not None:
                data["evidence"][key] = _number_or_text(value)
        return cls.from_dict(data)


OPTION_OF_FIELD = {
    "target": "--target",
    "suggest": "--suggest",
    "mode": "--mode",
    "noise.eps": "--eps",
    "evidence.long_row_exponent": "--long-row-exponent",
    "evidence.frequency_leak": "--frequency-leak",
    "evidence.class_borrow": "--class-borrow",
    "evidence.textbook_share": "--textbook-share",
    "evidence.textbook_sensitivity": "--textbook-sensitivity",
    "evidence.textbook_leak": "--textbook-leak",
    "evidence.several_routes_share": "--several-routes-share",
    "evidence.gain_floor": "--gain-floor",
}


def _eps_value(text):
    text = str(text).strip().lower()
    if text == "auto":
        return "auto"
    if not (text.isascii() and text.isdigit()) or len(text) > 6:  # int() refuses "²"
        shown = text if len(text) <= 12 else text[:12] + "..."
        raise ConfigError(
            "noise.eps", f"eps is {shown}; give a whole number from 0 to {MAX_EPS}, or auto"
        )
    return int(text)


def _number_or_text(value):
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return value
    return value


def _plain(changes: dict) -> dict:
    out = {}
    for key, value in changes.items():
        if isinstance(value, NoiseSettings):
            value = value.to_dict()
        elif isinstance(value, EvidenceSettings):
            value = {
                k: getattr(value, k) for k in EvidenceSettings.KEYS if getattr(value, k) is not None
            }
        out[key] = value
    return out


def add_config_arguments(
    parser: argparse.ArgumentParser,
    *,
    target_default: str | None = None,
    suggest: bool = True,
    modes: bool = True,
    fitted: dict | None = None,
) -> None:
    """The one set of interview options for every command: ``--target`` (chemical|class;
    object|group as aliases), ``--suggest``, ``--mode``, ``--eps`` and the evidence mode's
    options. Read back with :meth:`InterviewConfig.from_args`; defaults come from the
    configuration the command starts from."""
    parser.add_argument(
        "--target",
        type=lambda v: TARGET_ALIASES.get(v, v),
        choices=TARGETS,
        default=target_default,
        metavar="{chemical,class}",
        help="identify the chemical (default) or only its class (object/group also accepted)",
    )
    if suggest:
        parser.add_argument(
            "--suggest",
            choices=SUGGEST,
            default=None,
            help="suggest one symptom (default) or a category to pick from",
        )
    if modes:
        parser.add_argument(
            "--mode",
            choices=MODES,
            default=None,
            help="evidence (default: nothing eliminated, ranked by fit), strict (the paper's "
            "elimination) or noise (up to --eps wrong answers)",
        )
        parser.add_argument(
            "--eps",
            default=None,
            metavar="N|auto",
            help="noise mode: wrong answers tolerated (default auto: floor((delta-1)/2), at "
            "least 1); giving it turns the noise mode on",
        )
    add_evidence_arguments(parser, fitted)


def add_evidence_arguments(parser: argparse.ArgumentParser, fitted: dict | None = None) -> None:
    """The evidence mode's options; each defaults to the configuration's value: what the
    knowledge base's grades.toml sets, else the engine's default. ``fitted`` (the bundled
    knowledge base's grades.toml, :func:`responder.kb.grades.bundled_grades`) lets the help
    say both."""
    bundled = fitted or {}

    def default(key: str, engine) -> str:
        if key in bundled:
            return (
                f"(default: the knowledge base's grades.toml, bundled: {bundled[key]:g}; "
                f"else {engine})"
            )
        return f"(default {engine})"

    g = parser.add_argument_group("evidence mode")
    g.add_argument(
        "--sensitivity",
        default=None,
        metavar="S",
        help="chance a victim shows a sign the chemical lists as common, in (0, 1) "
        + default("sensitivity", DEFAULT_SENSITIVITY),
    )
    g.add_argument(
        "--leak",
        default=None,
        metavar="L",
        help="chance a victim shows a sign the chemical does not list, in (0, S) "
        + default("leak", DEFAULT_LEAK),
    )
    g.add_argument(
        "--hallmark",
        default=None,
        metavar="H",
        help="chance of a sign graded hallmark, in (S, 1) (default halfway from S to 1)",
    )
    g.add_argument(
        "--occasional",
        default=None,
        metavar="O",
        help="chance of a sign graded occasional, in (L, S) (default 0.3 of the way from L to S)",
    )
    g.add_argument(
        "--frequency-leak",
        dest="frequency_leak",
        default=None,
        metavar="F",
        help="a sign listed by a share f of the chemicals is seen anyway with chance F f "
        "(at most S/2), in [0, 2) " + default("frequency_leak", DEFAULT_FREQUENCY_LEAK),
    )
    g.add_argument(
        "--class-borrow",
        dest="class_borrow",
        default=None,
        metavar="C",
        help="a sign a chemical's row lacks but a share f of its class lists is seen with "
        "chance raised by C f of the way to S, in [0, 1) "
        + default("class_borrow", DEFAULT_CLASS_BORROW),
    )
    g.add_argument(
        "--textbook-share",
        dest="textbook_share",
        default=None,
        metavar="W",
        help="prior chance the victim presents by the textbook (shows the row's signs and no "
        "others), in [0, 1), 0 = off " + default("textbook_share", DEFAULT_TEXTBOOK_SHARE),
    )
    g.add_argument(
        "--textbook-sensitivity",
        dest="textbook_sensitivity",
        default=None,
        metavar="S",
        help="that presentation's chance of a listed sign, in (0, 1) "
        + default("textbook_sensitivity", DEFAULT_TEXTBOOK_SENSITIVITY),
    )
    g.add_argument(
        "--textbook-leak",
        dest="textbook_leak",
        default=None,
        metavar="L",
        help="that presentation's chance of an unlisted sign, in (0, S) "
        + default("textbook_leak", DEFAULT_TEXTBOOK_LEAK),
    )
    g.add_argument(
        "--several-routes-share",
        dest="several_routes_share",
        default=None,
        metavar="W",
        help="prior chance the victim was exposed by several routes at once (shows the "
        "signs of each); otherwise by one route, showing another route's contact signs "
        "(a cough after a skin splash) only occasionally; in [0, 1], 1 = off "
        + default("several_routes_share", DEFAULT_SEVERAL_ROUTES_SHARE),
    )
    g.add_argument(
        "--threshold",
        default=None,
        metavar="T",
        help="stop when the top candidate reaches this probability, in (0.5, 1) "
        f"(default {DEFAULT_THRESHOLD})",
    )
    g.add_argument(
        "--long-row-exponent",
        dest="long_row_exponent",
        default=None,
        metavar="A",
        help="long-row discount: a chemical whose row lists more signs than the typical row "
        "shows each less often, s (typical/length)^A; in [0, 1], 0 = none "
        + default("long_row_exponent", DEFAULT_LONG_ROW_EXPONENT),
    )
    g.add_argument(
        "--pick",
        choices=PICK_MODELS,
        default=None,
        help="category suggestions: the responder picks among useful symptoms (informed, "
        "default) or any unasked one (any, the paper's model)",
    )


def symptom_leaks(kb) -> tuple[float, ...] | None:
    """Per-query leaks from the knowledge base (NaN where none), or None if none given."""
    leaks = [getattr(s, "leak", None) for s in kb.symptoms]
    if all(v is None for v in leaks):
        return None
    return tuple(float("nan") if v is None else float(v) for v in leaks)


__all__ = [
    "DEFAULT_MODE",
    "ENGINE_TARGET",
    "MODES",
    "POLICY",
    "SUGGEST",
    "TARGETS",
    "ConfigError",
    "InterviewConfig",
    "NoiseSettings",
    "add_config_arguments",
    "add_evidence_arguments",
    "canonical_target",
    "symptom_leaks",
]
