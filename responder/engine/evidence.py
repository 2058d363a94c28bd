"""Evidence-weighted identification: rank chemicals by how well they fit, eliminate none.

The paper treats each row of B as an exact fingerprint, so one answer that contradicts a row
removes that object. Real victims show only some of the signs their chemical can cause, and
sometimes signs a source does not list. This module replaces elimination by likelihoods
(the "probabilities of query response" the paper's Section 8 names as future work):

- the *answer model*: P(yes | the chemical lists the sign) = sensitivity s,
  P(yes | it does not) = leak l (a per-symptom leak may override l); "can't tell" is no
  evidence. A row longer than the knowledge base's typical row has a lower sensitivity,
  s_i = s min(1, (L / |B_i|)^a) (the long-row discount, :class:`AnswerModel`): a long row
  is the union of effects over routes, doses and stages, more than one victim shows;
- the *posterior* over objects: prior x product of likelihoods, in log space; a group's
  (class's) probability is the sum over its members. Optionally the victim presents either
  as the field model says or "by the textbook" (shows the row's signs and nothing else, with
  a prior share w): each chemical's likelihood is then the mixture
  (1 - w) P_field(answers | i) + w P_textbook(answers | i), so answers that fit a row
  exactly count for more, and one contradiction hands the chemical back to the field model.
  A row is also the union over routes: with route views each presentation is split again
  into "several routes at once" and each route the row lists, under which another route's
  contact signs (a cough after a splash on the skin) count as occasional (:func:`route_views`);
- *suggestions* by expected information gain, one for each of the paper's policies:
  about the object (generalises GBS, Algorithm 1, via Theorem 1, label
  ``thm:object identification``), about the group (GISA, Algorithm 2, Theorem 2,
  ``thm:group identification``), and averaged over the responder's pick inside a query
  category (GQSA, Algorithm 3, Theorem 5, ``thm:group queries``; GIGQSA, Algorithm 4,
  Theorem 6, ``thm:group identification group queries``);
- *stopping*: the top candidate (or group) reaches a confidence threshold, or no unasked
  query has an expected gain above a floor; either way "no fit" instead when an agent not
  in the knowledge base explains the answers better than every listed one;
- *explanations*: the answers that count against each candidate, and which groups one answer
  lowered sharply.

With s = 1 and l = 0 (:meth:`AnswerModel.exact`) the posterior is the strict candidate mass
pi_i / pi_{Theta_a} and each gain is the strict policy's objective: the gain about the
object is H(rho_a(q)) (Theorem 1, ``thm:object identification``), the gain about the group
is H(rho_a(q)) - sum_i (pi_a^i / pi_a) H(rho_a^i(q)) = 1 - C_a(q) (Theorem 2,
``thm:group identification``), and a category's gain is sum_q p_j(q) times these, i.e.
1 - C_a(j) of Theorems 5 and 6 (``thm:group queries``, ``thm:group identification group
queries``). So the
evidence mode chooses what the paper's policy chooses (ties aside) when answers are exact.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from responder.engine.bounds import binary_entropy, xlog2x
from responder.engine.problem import COMMON, HALLMARK, NOT_LISTED, OCCASIONAL, UNRECORDED, Problem

DEFAULT_SENSITIVITY = 0.8
DEFAULT_LEAK = 0.1
DEFAULT_THRESHOLD = 0.985
DEFAULT_GAIN_FLOOR = 0.01
DEFAULT_UNLISTED_PRIOR = 0.1
# The long-row discount's exponent a (AnswerModel): 0 turns it off. Chosen on half of the
# case vignettes and the simulations (docs/robustness.md, "Why the evidence mode misses on
# the case vignettes").
DEFAULT_LONG_ROW_EXPONENT = 0.25
# Chance of "yes" for a cell graded hallmark or occasional, when not given: halfway from the
# sensitivity s to 1, and OCCASIONAL_SHARE of the way from the leak l to s (0.9 and 0.31 at
# the defaults). A common cell has s.
OCCASIONAL_SHARE = 0.3
# A knowledge-base row is incomplete: a sign many chemicals list is seen anyway (frequency
# leak) and a sign most of a chemical's class lists may be missing from its own row (class
# borrow). Off by default; a knowledge base sets them with the rest of its fitted answer
# model (the bundled one in kb/grades.toml).
DEFAULT_FREQUENCY_LEAK = 0.0
DEFAULT_CLASS_BORROW = 0.0
# The textbook presentation (EvidenceSettings.textbook_model): a victim who shows what the
# chemical's row lists and nothing else, answered with care. Its prior share is 0 (off) by
# default; a knowledge base sets it with the rest of its answer model.
DEFAULT_TEXTBOOK_SHARE = 0.0
DEFAULT_TEXTBOOK_SENSITIVITY = 0.97
DEFAULT_TEXTBOOK_LEAK = 0.01
# Victims exposed by several routes at once (a gas cloud is breathed in and reaches the eyes
# and skin): their signs are the row's union over routes. The rest were exposed by one route
# the row lists (Problem.off_route). 1 (the default) is every victim by every route: no route
# views; a knowledge base sets it with the rest of its answer model.
DEFAULT_SEVERAL_ROUTES_SHARE = 1.0
EVIDENCE_TARGETS = ("object", "group")
PICK_MODELS = ("any", "informed")
STOP_REASONS = ("confident", "no_gain", "no_fit")

# Gains within this many bits of the best count as tied (lowest index wins), as in
# responder.engine.policies.Policy.
_TIE_TOL = 1e-9
_ROUND_OFF = 1e-13
# Objects whose posteriors together are below this share of the total are left out of the
# textbook mixture's gains: far below the tie tolerance, and most of a long interview.
_NEGLIGIBLE_MASS = 1e-13
# Above this many matrix cells the selection pass runs in float32 (see EvidenceModel).
FLOAT32_ABOVE_CELLS = 1 << 20


class EvidenceError(ValueError):
    """Impossible evidence-mode settings; the message names the valid range and ``field``
    the setting at fault (``"sensitivity"``, ``"leak"``, ``"threshold"``, ``"gain_floor"``,
    ``"long_row_exponent"``, ``"hallmark"``, ``"occasional"``, ``"pick"``...), None when
    it is not one setting."""

    def __init__(self, message: str, field: str | None = None):
        super().__init__(message)
        self.field = field


def _number_in(
    name: str,
    value,
    low: float,
    high: float,
    low_included: bool = False,
    what: str = "it",
    unit: str = "",
) -> float:
    """``value`` as a float in (low, high), or [low, high) when ``low_included``;
    EvidenceError naming the range otherwise."""
    if low_included:
        as_type = (
            f"a number of{unit} in [{low:g}, {high:g})"
            if unit
            else f"a number in [{low:g}, {high:g})"
        )
        as_range = f"in [{low:g}, {high:g}){unit}"
    else:
        as_type = f"a number between {low:g} and {high:g} (exclusive)"
        as_range = f"strictly between {low:g} and {high:g}"
    field = name.replace(" ", "_").replace("-", "_")
    if isinstance(value, bool):  # True is 1.0 to float(), but never a setting's number
        raise EvidenceError(f"{name} must be {as_type}, got {value!r}", field)
    try:
        x = float(value)
    except (TypeError, ValueError, OverflowError):
        raise EvidenceError(f"{name} must be {as_type}, got {value!r}", field) from None
    if not ((low <= x if low_included else low < x) and x < high):
        raise EvidenceError(f"{name} is {value}; {what} must lie {as_range}", field)
    return x


def check_probability(name: str, value) -> float:
    """``value`` as a float strictly inside (0, 1); EvidenceError otherwise."""
    return _number_in(name, value, 0.0, 1.0)


def check_threshold(threshold) -> float:
    """The confidence threshold as a float strictly inside (0.5, 1); EvidenceError otherwise."""
    return _number_in("threshold", threshold, 0.5, 1.0, what="the confidence to stop at")


def check_gain_floor(gain_floor) -> float:
    """The gain floor as a float in [0, 1) bits; EvidenceError otherwise."""
    return _number_in("gain floor", gain_floor, 0.0, 1.0, low_included=True, unit=" bits")


def check_evidence_settings(
    sensitivity=DEFAULT_SENSITIVITY,
    leak=DEFAULT_LEAK,
    threshold=DEFAULT_THRESHOLD,
    gain_floor=DEFAULT_GAIN_FLOOR,
) -> tuple[float, float, float, float]:
    """Validate every evidence-mode setting in one place; returns them as floats.

    Raises
    ------
    EvidenceError
        Sensitivity or leak outside (0, 1), leak not below sensitivity (then a "yes" would
        count against the chemicals that list the sign), threshold outside (0.5, 1), or a
        gain floor outside [0, 1) bits.
    """
    s, l_ = check_answer_model(sensitivity, leak)
    return s, l_, check_threshold(threshold), check_gain_floor(gain_floor)


def check_textbook_share(value) -> float:
    """The textbook presentation's prior share as a float in [0, 1); EvidenceError otherwise."""
    return _number_in(
        "textbook share",
        value,
        0.0,
        1.0,
        low_included=True,
        what="the chance of a textbook presentation",
    )


def _in_unit_interval(name: str, field: str, value, note: str) -> float:
    """``value`` as a float in [0, 1] (the ends included); EvidenceError naming ``field``
    and saying what ``note`` says of the range otherwise."""
    try:
        if isinstance(value, bool):
            raise TypeError
        x = float(value)
    except (TypeError, ValueError, OverflowError):
        raise EvidenceError(f"{name} must be a number in [0, 1], got {value!r}", field) from None
    if not 0.0 <= x <= 1.0:
        raise EvidenceError(f"{name} is {value}; it must lie in [0, 1] ({note})", field)
    return x


def check_several_routes_share(value) -> float:
    """The share of victims exposed by several routes at once as a float in [0, 1] (1: no
    route views); EvidenceError otherwise."""
    return _in_unit_interval(
        "several-routes share",
        "several_routes_share",
        value,
        "1: every victim shows the signs of every route",
    )


def check_long_row_exponent(value) -> float:
    """The long-row discount's exponent as a float in [0, 1]; EvidenceError otherwise."""
    return _in_unit_interval("long-row exponent", "long_row_exponent", value, "0: no discount")


def check_grade_probabilities(hallmark, sensitivity, occasional, leak) -> tuple[float, float]:
    """The hallmark and occasional grades' probabilities as floats; EvidenceError unless
    1 > hallmark > sensitivity > occasional > leak (each grade above the next)."""
    h = _number_in("hallmark", hallmark, 0.0, 1.0, what="the chance of a hallmark sign")
    o = _number_in("occasional", occasional, 0.0, 1.0, what="the chance of an occasional sign")
    if not h > sensitivity > o > leak:
        raise EvidenceError(
            f"grades out of order: hallmark {h}, common (sensitivity) {sensitivity}, occasional "
            f"{o}, leak {leak}; each must be above the next",
            "hallmark" if not h > sensitivity else "occasional",
        )
    return h, o


def check_answer_model(sensitivity, leak) -> tuple[float, float]:
    """Sensitivity and leak as floats, each in (0, 1) with leak < sensitivity."""
    s = check_probability("sensitivity", sensitivity)
    l_ = check_probability("leak", leak)
    if not l_ < s:
        raise EvidenceError(
            f"leak ({l_}) must be below sensitivity ({s}): a sign a chemical lists must be "
            "likelier than one it does not",
            "leak",
        )
    return s, l_


@dataclass(frozen=True, eq=False)
class AnswerModel:
    """How a victim's answers relate to the knowledge base.

    Parameters
    ----------
    sensitivity : float
        s = P(yes | the chemical lists the sign), in (0, 1).
    leak : float
        l = P(yes | the chemical does not list the sign), in (0, s).
    symptom_leaks : array-like of shape (N,), optional
        A per-symptom leak overriding ``leak``; NaN where none is given. A sign easy to
        mistake (or common for any cause) may carry a higher leak.
    long_row_exponent : float
        a in [0, 1], the long-row discount: chemical i, whose row lists |B_i| signs, has
        sensitivity s_i = s min(1, (L / |B_i|)^a), with L the prior-weighted mean row length
        (:meth:`sensitivities`). A knowledge-base row is the union of the effects sources
        report over routes, doses and stages of poisoning (VX's lists pinpoint and wide
        pupils, a slow and a fast pulse); one victim shows a bounded number of them, so each
        sign of a long row is shown less often. a = 0 is no discount; a = 1 would say a
        victim shows the same number of signs whatever the row. Rows no longer than L keep s.
        s_i never drops below the midpoint of s and the largest leak, so a "yes" always
        favours the chemicals that list the sign.

    hallmark, occasional : float, optional
        P(yes) for a cell graded hallmark or occasional (``Problem.grades``); a common cell
        has ``sensitivity``. Ordered hallmark > sensitivity > occasional > every leak, so a
        grade never counts against the chemical it is given to. By default halfway from s
        to 1, and 0.3 of the way from l to s. An ungraded problem lists every cell as
        common.

    In a category of alternatives answered per victim (``Problem.split_chance``: onset,
    route), a victim shows one of the category's queries while a row lists every one the
    chemical may show. The chance above the leak of each listed cell is split among the
    k_ic queries the row lists there, l_q + (p_iq - l_q) / k_ic: otherwise a row listing
    every onset gains from each victim's onset as much as a row listing only that one,
    and pooled over victims it wins (docs/robustness.md, top section).

    Use :meth:`exact` for the paper's error-free answers (s = 1, l = 0, no discount).
    """

    sensitivity: float = DEFAULT_SENSITIVITY
    leak: float = DEFAULT_LEAK
    symptom_leaks: np.ndarray | None = None
    long_row_exponent: float = DEFAULT_LONG_ROW_EXPONENT
    hallmark: float | None = None
    occasional: float | None = None
    frequency_leak: float = 0.0
    class_borrow: float = 0.0
    _exact: bool = False

    def __post_init__(self) -> None:
        if self._exact:
            return
        s, l_ = check_answer_model(self.sensitivity, self.leak)
        object.__setattr__(self, "sensitivity", s)
        object.__setattr__(self, "leak", l_)
        object.__setattr__(
            self, "long_row_exponent", check_long_row_exponent(self.long_row_exponent)
        )
        object.__setattr__(
            self,
            "frequency_leak",
            _number_in("frequency leak", self.frequency_leak, 0.0, 2.0, low_included=True),
        )
        object.__setattr__(
            self,
            "class_borrow",
            _number_in("class borrow", self.class_borrow, 0.0, 1.0, low_included=True),
        )
        h, o = check_grade_probabilities(
            (1.0 + s) / 2 if self.hallmark is None else self.hallmark,
            s,
            l_ + OCCASIONAL_SHARE * (s - l_) if self.occasional is None else self.occasional,
            l_,
        )
        object.__setattr__(self, "hallmark", h)
        object.__setattr__(self, "occasional", o)
        if self.symptom_leaks is not None:
            arr = np.asarray(self.symptom_leaks, dtype=float)
            if arr.ndim != 1:
                raise EvidenceError("per-symptom leaks must be a flat list, one per symptom")
            given = arr[~np.isnan(arr)]
            bad = (given <= 0) | (given >= s)
            if bad.any():
                raise EvidenceError(
                    f"a per-symptom leak is {given[bad][0]}; each must lie strictly between 0 "
                    f"and the sensitivity ({s})"
                )
            arr.setflags(write=False)
            object.__setattr__(self, "symptom_leaks", arr)

    @classmethod
    def exact(cls) -> AnswerModel:
        """Error-free answers (s = 1, l = 0): the paper's strict model, for checking."""
        return cls(1.0, 0.0, None, 0.0, 1.0, 1.0, 0.0, 0.0, _exact=True)

    @property
    def is_exact(self) -> bool:
        return self._exact

    def leaks(self, n_queries: int) -> np.ndarray:
        """The leak of every symptom, shape (N,): the override where given, else l."""
        if self.symptom_leaks is None:
            return np.full(n_queries, self.leak)
        if self.symptom_leaks.shape != (n_queries,):
            raise EvidenceError(
                f"there are {self.symptom_leaks.size} per-symptom leaks but {n_queries} "
                "symptoms; give one per symptom (NaN for none)"
            )
        return np.where(np.isnan(self.symptom_leaks), self.leak, self.symptom_leaks)

    def sensitivities(self, row_lengths, typical: float, leaks: np.ndarray) -> np.ndarray:
        """s_i = max(s min(1, (L / n_i)^a), (s + max leak) / 2) for rows of ``row_lengths``
        signs, with L = ``typical`` (the prior-weighted mean row length); s everywhere when
        a = 0 or answers are exact. Same shape as ``row_lengths``."""
        return self._discounted(self.sensitivity, row_lengths, typical, leaks)

    def _discounted(self, p: float, row_lengths, typical: float, leaks: np.ndarray) -> np.ndarray:
        """max(p min(1, (L / n_i)^a), (p + max leak) / 2): the long-row discount of a cell
        whose undiscounted chance of "yes" is ``p``."""
        n = np.asarray(row_lengths, dtype=float)
        if self._exact or self.long_row_exponent == 0.0:
            return np.full(n.shape, p)
        factor = np.minimum(1.0, (typical / np.maximum(n, 1e-12)) ** self.long_row_exponent)
        floor = 0.5 * (p + float(np.max(leaks))) if np.size(leaks) else 0.0
        return np.maximum(p * factor, floor)

    def likelihood(self, problem: Problem) -> np.ndarray:
        """P(yes | object i) for every query, shape (M, N): the answer model on a problem.

        A listed cell answers yes with its grade's probability (``sensitivity`` for a common
        cell, and for every cell of an ungraded problem), discounted on long rows like s
        (:meth:`sensitivities`); an unlisted cell with the query's leak; an unrecorded cell
        (the sources say nothing about that category for the object) with the prior-weighted
        mean over the objects that record it, so that its answer hardly moves the object.
        In a category whose chance is split, a row's chances above the leak are divided by
        the number of its queries it lists (see the class docstring). With exact answers
        this is B.
        """
        B = problem.matrix
        if self._exact:
            return B.astype(np.float64)
        leaks = self.effective_leaks(problem)
        row_lengths = row_signs(problem)
        typical = float(problem.prior @ row_lengths)
        grades = problem.grades
        if grades is None:
            grades = np.where(B, COMMON, NOT_LISTED)
        L = np.broadcast_to(leaks, B.shape).copy()
        for code, p in (
            (OCCASIONAL, self.occasional),
            (COMMON, self.sensitivity),
            (HALLMARK, self.hallmark),
        ):
            cells = grades == code
            if cells.any():
                p_iq = self._discounted(p, row_lengths, typical, leaks)[:, None]
                if code == OCCASIONAL:  # a sign easily seen anyway (leak above p) still
                    # favours the chemicals that list it: halfway from its leak to s
                    p_iq = np.maximum(p_iq, np.where(leaks >= p, (leaks + self.sensitivity) / 2, 0))
                L[cells] = np.broadcast_to(p_iq, B.shape)[cells]
        split = _split_shares(problem)
        L = leaks + (L - leaks) * split
        unrecorded = grades == UNRECORDED
        if unrecorded.any():
            weight = problem.prior[:, None] * ~unrecorded
            mass = weight.sum(axis=0)
            base = np.divide((weight * L).sum(axis=0), mass, out=leaks.copy(), where=mass > 0)
            L[unrecorded] = np.broadcast_to(base[None, :], B.shape)[unrecorded]
        if self.class_borrow and problem.object_groups is not None:
            # An unlisted cell borrows from the chemical's class: a sign most of its
            # siblings list is likely missing from its own (incomplete) row.
            siblings = _class_share(B, problem.object_groups)
            unlisted = grades == NOT_LISTED
            borrowed = self.class_borrow * (self.sensitivity - L) * siblings * split
            L[unlisted] += borrowed[unlisted]
        return L

    def effective_leaks(self, problem: Problem) -> np.ndarray:
        """Each query's leak on ``problem``, shape (N,): the given leak (per query where the
        knowledge base gives one), raised to ``frequency_leak`` times the prior-weighted
        share of chemicals listing the query (a sign many chemicals cause is often seen
        whatever the agent), at most half the sensitivity."""
        leaks = self.leaks(problem.n_queries)
        if self._exact or self.frequency_leak == 0.0:
            return leaks
        listed = problem.prior @ problem.matrix
        return np.minimum(np.maximum(leaks, self.frequency_leak * listed), 0.5 * self.sensitivity)


#: Evidence models built lately, by (problem identity, target, settings), oldest first; the
#: model holds its problem, so an identity is never reused while its entry stands.
_RECENT_MODELS: dict[tuple, EvidenceModel] = {}
RECENT_MODELS_KEPT = 4


@dataclass(frozen=True)
class EvidenceSettings:
    """Everything the evidence mode needs besides the problem, validated on construction.

    Parameters
    ----------
    sensitivity, leak : float
        The answer model (:class:`AnswerModel`).
    threshold : float
        Confidence at which to stop, in (0.5, 1).
    gain_floor : float
        Stop when no question gains more than this many bits.
    pick : {"any", "informed"}
        How a responder picks inside a suggested category.
    symptom_leaks : tuple of float or None
        Per-symptom leaks (NaN for none), e.g. from the knowledge base.
    long_row_exponent : float
        The long-row discount (:class:`AnswerModel`), in [0, 1]; 0 turns it off.
    hallmark, occasional : float or None
        The chance of a sign graded hallmark or occasional (:class:`AnswerModel`); None
        derives them from the sensitivity and the leak.
    frequency_leak, class_borrow : float
        How much a sign many chemicals cause is seen anyway, and how much an unlisted cell
        borrows from the chemical's class (:class:`AnswerModel`).
    textbook_share : float
        Prior chance, in [0, 1), that the victim presents by the textbook: shows the signs
        the chemical's row lists and no others, answered with care (:meth:`textbook_model`).
        0 turns the mixture off: every answer follows the field model alone.
    textbook_sensitivity, textbook_leak : float
        That presentation's chance of a listed (common) sign and of an unlisted one.
    several_routes_share : float
        Prior chance, in [0, 1], that the victim was exposed by several routes at once and
        may show the signs of each; otherwise by one route the chemical's row lists, whose
        contact signs alone it shows as listed (:func:`route_views`). 1 turns route views
        off; they need a problem with route views (``Problem.off_route``).
    """

    sensitivity: float = DEFAULT_SENSITIVITY
    leak: float = DEFAULT_LEAK
    threshold: float = DEFAULT_THRESHOLD
    gain_floor: float = DEFAULT_GAIN_FLOOR
    pick: str = "informed"
    symptom_leaks: tuple[float, ...] | None = None
    long_row_exponent: float = DEFAULT_LONG_ROW_EXPONENT
    hallmark: float | None = None
    occasional: float | None = None
    frequency_leak: float = DEFAULT_FREQUENCY_LEAK
    class_borrow: float = DEFAULT_CLASS_BORROW
    textbook_share: float = DEFAULT_TEXTBOOK_SHARE
    textbook_sensitivity: float = DEFAULT_TEXTBOOK_SENSITIVITY
    textbook_leak: float = DEFAULT_TEXTBOOK_LEAK
    several_routes_share: float = DEFAULT_SEVERAL_ROUTES_SHARE

    #: The settings a user may give (settings file, journal, command line), in that order.
    KEYS = (
        "sensitivity",
        "leak",
        "threshold",
        "long_row_exponent",
        "hallmark",
        "occasional",
        "frequency_leak",
        "class_borrow",
        "textbook_share",
        "textbook_sensitivity",
        "textbook_leak",
        "several_routes_share",
        "gain_floor",
        "pick",
    )

    def __post_init__(self) -> None:
        s, l_, t, f = check_evidence_settings(
            self.sensitivity, self.leak, self.threshold, self.gain_floor
        )
        _check_pick(self.pick)
        for name, value in (("sensitivity", s), ("leak", l_), ("threshold", t), ("gain_floor", f)):
            object.__setattr__(self, name, value)
        object.__setattr__(
            self, "long_row_exponent", check_long_row_exponent(self.long_row_exponent)
        )
        model = self.answer_model()  # checks the grades, the leaks and the borrowing
        object.__setattr__(self, "frequency_leak", model.frequency_leak)
        object.__setattr__(self, "class_borrow", model.class_borrow)
        if self.hallmark is not None:
            object.__setattr__(self, "hallmark", model.hallmark)
        if self.occasional is not None:
            object.__setattr__(self, "occasional", model.occasional)
        object.__setattr__(self, "textbook_share", check_textbook_share(self.textbook_share))
        try:
            s_t, l_t = check_answer_model(self.textbook_sensitivity, self.textbook_leak)
        except EvidenceError as exc:
            raise EvidenceError(f"textbook {exc}", f"textbook_{exc.field}") from None
        object.__setattr__(self, "textbook_sensitivity", s_t)
        object.__setattr__(self, "textbook_leak", l_t)
        object.__setattr__(
            self, "several_routes_share", check_several_routes_share(self.several_routes_share)
        )
        self.textbook_model()  # checks the knowledge base's leaks against its sensitivity

    def answer_model(self) -> AnswerModel:
        leaks = None if self.symptom_leaks is None else np.asarray(self.symptom_leaks, float)
        return AnswerModel(
            self.sensitivity,
            self.leak,
            leaks,
            self.long_row_exponent,
            self.hallmark,
            self.occasional,
            self.frequency_leak,
            self.class_borrow,
        )

    def textbook_model(self) -> AnswerModel | None:
        """The textbook presentation, None when its share is 0: a victim who shows what the
        row lists, graded as the row grades it, and nothing else: no long-row discount,
        no class borrowing, no frequency leak (a per-symptom leak still holds, as a sign
        easily seen anyway is seen anyway)."""
        if self.textbook_share == 0.0:
            return None
        leaks = None if self.symptom_leaks is None else np.asarray(self.symptom_leaks, float)
        try:
            return AnswerModel(self.textbook_sensitivity, self.textbook_leak, leaks, 0.0)
        except EvidenceError as exc:
            raise EvidenceError(f"textbook presentation: {exc}", "textbook_leak") from None

    def model(self, problem: Problem, target: str = "object") -> EvidenceModel:
        """The evidence model of ``problem`` under these settings. A model never changes once
        built, so interviews of one problem under equal settings share one (the simulator's
        thousands, each vignette in each mode): :data:`_RECENT_MODELS`."""
        key = (id(problem), target, self)
        model = _RECENT_MODELS.pop(key, None)
        if model is None or model.problem is not problem:
            model = EvidenceModel(
                problem,
                self.answer_model(),
                target,
                self.threshold,
                self.gain_floor,
                textbook=(self.textbook_share, self.textbook_model()),
                several_routes_share=self.several_routes_share,
            )
        _RECENT_MODELS[key] = model  # newest last
        while len(_RECENT_MODELS) > RECENT_MODELS_KEPT:
            del _RECENT_MODELS[next(iter(_RECENT_MODELS))]
        return model

    def describe(self) -> dict:
        return {
            "sensitivity": self.sensitivity,
            "leak": self.leak,
            "threshold": self.threshold,
            "gain_floor": self.gain_floor,
            "pick": self.pick,
            "long_row_exponent": self.long_row_exponent,
            "hallmark": self.answer_model().hallmark,
            "occasional": self.answer_model().occasional,
            "frequency_leak": self.frequency_leak,
            "class_borrow": self.class_borrow,
            "textbook_share": self.textbook_share,
            "textbook_sensitivity": self.textbook_sensitivity,
            "textbook_leak": self.textbook_leak,
            "several_routes_share": self.several_routes_share,
        }


@dataclass(frozen=True)
class Stop:
    """Whether to stop asking, and why.

    Attributes
    ----------
    reason : {"confident", "no_gain", "no_fit"} or None
        ``confident``: the top candidate (or group) reached the threshold; ``no_gain``: no
        unasked question has an expected gain above the floor; ``no_fit``: the interview
        would stop, but the answers fit no listed chemical (:meth:`Belief.fit`), or with
        exact answers none is possible; None: keep asking.
    confidence : float
        Probability of the top candidate (object target) or top group (group target).
    """

    reason: str | None
    confidence: float

    @property
    def stopped(self) -> bool:
        return self.reason is not None


@dataclass(frozen=True)
class Fit:
    """Whether the answers fit a listed chemical at all (:meth:`Belief.fit`).

    Attributes
    ----------
    unlisted : float
        P(the agent is not in the knowledge base | answers): the posterior of an unlisted
        agent of unknown profile (:meth:`Belief.fit`).
    fits : bool
        ``unlisted`` is below one half: the listed chemicals together explain the answers
        better than an unlisted one.
    candidate : int
        Object index of the most probable listed candidate (-1 if none).
    against : int
        Yes/no answers that count against it.
    answered : int
        Yes/no answers so far ("can't tell" is no evidence).
    """

    unlisted: float
    fits: bool
    candidate: int
    against: int
    answered: int


@dataclass(frozen=True)
class Suggestion:
    """What to ask next.

    Attributes
    ----------
    kind : {"symptom", "category"}
    category : int
        The suggested category; -1 for a symptom suggestion.
    queries : ndarray of shape (k,), int
        Useful queries (gain above the floor), best first; for a category, those inside it.
    gains : ndarray of shape (k,)
        Their expected gains in bits.
    picks : ndarray of shape (k,)
        For a category, the chance the responder picks each (the pick model); a symptom
        suggestion has one pick of probability 1 on ``queries[0]``.
    """

    kind: str
    category: int
    queries: np.ndarray
    gains: np.ndarray
    picks: np.ndarray


class EvidenceModel:
    """A problem under an answer model, with its stopping settings.

    Parameters
    ----------
    problem : Problem
    answers : AnswerModel, optional
    target : {"object", "group"}
        Identify the chemical (object) or only its class (group).
    threshold : float
        Stop when the top candidate (or group) reaches this probability, in (0.5, 1).
    gain_floor : float
        Stop when no unasked query has an expected gain above this many bits.
    unlisted_prior : float
        Prior probability that the agent is not in the knowledge base, in (0, 1): when the
        interview stops, "no fit" if that is then likelier than not (:meth:`Belief.fit`).
    textbook : (float, AnswerModel or None), optional
        The textbook presentation's prior share w and answer model
        (:meth:`EvidenceSettings.textbook_model`): each chemical's likelihood becomes
        (1 - w) P(answers | i) + w P_textbook(answers | i). None, or w = 0, for the answer
        model alone; ignored with exact answers.
    several_routes_share : float
        Prior chance the victim was exposed by several routes at once (shows the union of
        its chemical's signs); otherwise by one route its row lists (:func:`route_views`).
        Below 1, on a problem with route views and without exact answers, each chemical's
        likelihood is the mixture over its routes too.

    Attributes
    ----------
    likelihood : ndarray of shape (M, N)
        P(yes | object i) of every cell under ``answers`` (the field model): what a victim
        drawn for a simulation shows, and what explanations weigh.
    components : ndarray of shape (K, M, N) or None
        With the textbook presentation or route views, the likelihood of each component
        (presentations, field first, each split by route: :func:`route_views`); None
        without either.
    """

    def __init__(
        self,
        problem: Problem,
        answers: AnswerModel | None = None,
        target: str = "object",
        threshold: float = DEFAULT_THRESHOLD,
        gain_floor: float = DEFAULT_GAIN_FLOOR,
        unlisted_prior: float = DEFAULT_UNLISTED_PRIOR,
        textbook: tuple[float, AnswerModel | None] | None = None,
        several_routes_share: float = DEFAULT_SEVERAL_ROUTES_SHARE,
    ):
        answers = answers or AnswerModel()
        if target not in EVIDENCE_TARGETS:
            raise EvidenceError(
                f"unknown target {target!r}; choose one of {', '.join(EVIDENCE_TARGETS)}"
            )
        if target == "group" and problem.object_groups is None:
            raise EvidenceError("the group target needs object group labels")
        threshold, gain_floor = check_threshold(threshold), check_gain_floor(gain_floor)
        self.problem = problem
        self.answers = answers
        self.target = target
        self.threshold = threshold
        self.gain_floor = gain_floor
        self.unlisted_prior = check_probability("unlisted prior", unlisted_prior)
        M, N = problem.n_objects, problem.n_queries
        self.sensitivity = float(answers.sensitivity)  # the common grade's nominal chance
        self.leak_vector = answers.effective_leaks(problem)
        # The long-row discount (AnswerModel): each row's sensitivity s_i, s where the row is
        # no longer than the prior-weighted mean row length.
        row_lengths = row_signs(problem)
        self.typical_row_length = float(problem.prior @ row_lengths)
        self.sensitivities = answers.sensitivities(
            row_lengths, self.typical_row_length, self.leak_vector
        )
        self.sensitivities.setflags(write=False)
        # P(yes | object i) of every cell: everything below is computed from it.
        self.likelihood = answers.likelihood(problem)
        self.likelihood.setflags(write=False)
        self.components: np.ndarray | None = None
        self.route_view_count = 1  # route views per presentation (components)
        self.textbook_share = 0.0
        presentations = [(1.0, answers, self.likelihood)]
        if textbook is not None and textbook[1] is not None and not answers.is_exact:
            share = check_textbook_share(textbook[0])
            if share > 0.0:
                self.textbook_share = share
                presentations = [
                    (1.0 - share, answers, self.likelihood),
                    (share, textbook[1], textbook[1].likelihood(problem)),
                ]
        self.several_routes_share = check_several_routes_share(several_routes_share)
        routes = (
            problem.route_queries is not None
            and not answers.is_exact
            and self.several_routes_share < 1.0
        )
        if routes or len(presentations) > 1:
            # One component per presentation (and per route the chemical lists, Problem.
            # off_route): each chemical's likelihood is the mixture of its components,
            # weighed by log_shares[k, i] = log P(component k | chemical i).
            tables, shares = [], []
            for share, model, table in presentations:
                views, route_shares = (
                    route_views(problem, model, table, self.several_routes_share)
                    if routes
                    else (table[None], np.ones((1, M)))
                )
                tables.append(views)
                shares.append(share * route_shares)
            self.components = np.concatenate(tables)
            self.components.setflags(write=False)
            with np.errstate(divide="ignore"):
                self._log_shares = np.log(np.concatenate(shares))
            # Victims of one incident share its presentation but each has their own route
            # (Belief): the shares as P(presentation | i) times P(route view | presentation, i).
            self.route_view_count = tables[0].shape[0]
            by_presentation = self._log_shares.reshape(len(tables), self.route_view_count, M)
            self._log_presentation_shares = np.logaddexp.reduce(by_presentation, axis=1)
            self._log_route_shares = by_presentation - self._log_presentation_shares[:, None, :]
        # The target's own prior (Problem.ranking_prior); the answer model above and the
        # unlisted agent below keep the population prior, so the likelihoods do not depend
        # on the target. With the object target under its own prior, the classes are still
        # weighed under the population prior: each object's posterior times prior / own.
        ranking = problem.ranking_prior(target)
        self._log_prior = np.log(ranking)
        self._group_reweight = None if ranking is problem.prior else problem.prior / ranking
        # An unlisted chemical: each sign independently, with the chance a victim of a
        # chemical drawn from the prior shows it (Belief.fit).
        self.unlisted_yes = problem.prior @ self.likelihood
        # ... or with signs at random, as many as a listed chemical has: the share of signs
        # each chemical lists, and its prior weight, summed over equal shares (each share
        # with the sensitivity of a row that long).
        counted = counted_queries(problem)
        share = row_lengths / max(counted, 1)
        self.unlisted_shares, where = np.unique(share, return_inverse=True)
        self.unlisted_share_sensitivities = answers.sensitivities(
            self.unlisted_shares * counted, self.typical_row_length, self.leak_vector
        )
        self._log_share_weight = np.log(np.bincount(where.reshape(-1), weights=problem.prior))
        # Chemicals with identical likelihood rows get identical posteriors under any answers:
        # they are reported together as one candidate, never one picked.
        every = (
            self.likelihood
            if self.components is None
            else np.hstack([*self.components, self._log_shares.T])
        )
        self.row_groups = _identical_rows(every)
        # each row group's objects, ascending, found once: one search per group per screen
        # made listing the candidates quadratic in the chemicals
        by_group = np.argsort(self.row_groups, kind="stable")
        ends = np.cumsum(np.bincount(self.row_groups))
        self.row_group_members = tuple(np.split(by_group, ends[:-1]))
        for members in self.row_group_members:
            members.setflags(write=False)
        # The likelihoods and their answer entropies H(P(yes | i)) once, rows in class order
        # (one contiguous block per class), so every selection is matrix-vector products over
        # them: the yes-mass of all queries in one product, per class one product per class
        # block. Small problems use float64 (exact to round-off, so ties match the strict
        # policies within 1e-9 bits); large ones float32, half the memory traffic of this
        # pass, which dominates a selection (docs/performance.md; relative error about 1e-6,
        # far below the gain floor).
        if problem.object_groups is not None:
            self._row_order = np.argsort(problem.object_groups, kind="stable")
            self._class_ends = np.cumsum(
                np.bincount(problem.object_groups, minlength=problem.n_groups)
            )
        else:
            self._row_order = np.arange(problem.n_objects)
            self._class_ends = None
        dtype = np.float32 if problem.matrix.size > FLOAT32_ABOVE_CELLS else np.float64
        B = problem.matrix
        if self.components is not None:
            # Each answer's log-likelihood under each presentation, once (Belief).
            self._log_components = np.log(self.components)
            self._log1m_components = np.log1p(-self.components)
        two_valued = (
            self.components is None
            and target == "object"
            and np.array_equal(
                self.likelihood, np.where(B, self.sensitivities[:, None], self.leak_vector[None, :])
            )
        )
        if two_valued:
            # Every cell is its row's s_i or its query's leak l_q (no grades, no class
            # borrowing: every interchange file). The object target's gains then need one
            # pass over the 0/1 rows for three sums, not one pass each over the likelihoods
            # and their entropies.
            self._rows = np.ascontiguousarray(B[self._row_order], dtype=dtype)
            self._entropy_rows = None
            self._s_sorted = self.sensitivities[self._row_order]
            self._h_sorted = binary_entropy(self._s_sorted)
            self._h_unlisted = binary_entropy(self.leak_vector)
        else:
            sorted_likelihood = self.likelihood[self._row_order]
            self._rows = np.ascontiguousarray(sorted_likelihood, dtype=dtype)
            self._entropy_rows = np.ascontiguousarray(
                binary_entropy(sorted_likelihood), dtype=dtype
            )
            self._entropy_rows.setflags(write=False)
        self._rows.setflags(write=False)
        if problem.query_groups is not None:
            self._category_onehot = np.zeros((problem.n_query_groups, N), dtype=bool)
            self._category_onehot[problem.query_groups, np.arange(N)] = True
        else:
            self._category_onehot = None

    def yes_probability(self, weights: np.ndarray) -> np.ndarray:
        """P(yes) to every query when the chemical is drawn from ``weights`` (shape (M,),
        summing to 1): sum_i w_i P(yes | i), shape (N,)."""
        return np.einsum("k,kn->n", weights, self.likelihood)

    def belief(self, known: Mapping[int, bool], skipped: Iterable[int] = ()) -> Belief:
        """The posterior after ``known`` answers (query -> yes) and ``skipped`` queries.

        Order does not matter; a skipped ("can't tell") query is asked but carries no
        evidence.
        """
        N = self.problem.n_queries
        qs = np.fromiter(known.keys(), dtype=np.int64, count=len(known))
        vals = np.fromiter(known.values(), dtype=bool, count=len(known))
        skipped = np.fromiter(skipped, dtype=np.int64)
        every = np.concatenate([qs, skipped])
        bad = every[(every < 0) | (every >= N)]
        if bad.size:
            raise IndexError(f"query {int(bad[0])} is out of range (0..{N - 1})")
        asked = np.zeros(N, dtype=bool)
        asked[qs] = True
        asked[skipped] = True
        return Belief(self, qs, vals, asked)

    def pooled(
        self,
        queries: np.ndarray,
        values: np.ndarray,
        asked: np.ndarray,
        owners: np.ndarray | None = None,
        current: int = 0,
    ) -> Belief:
        """The posterior after answers from several victims of one agent.

        Victims are independent given the agent, so each (query, answer) pair multiplies
        the likelihood once, and a query may repeat (two victims answered it). ``asked``
        (shape (N,), bool) marks what the victim now being asked has answered, skipped or
        has implied: suggestions leave those out. ``owners`` (shape (k,), int) says whose
        each answer is (-1: the incident's), ``current`` who is being asked: with route
        views each victim has their own route (:class:`_VictimSums`); without
        ``owners`` one view explains every answer.
        """
        queries = np.asarray(queries, dtype=np.int64)
        N = self.problem.n_queries
        bad = queries[(queries < 0) | (queries >= N)]
        if bad.size:
            raise IndexError(f"query {int(bad[0])} is out of range (0..{N - 1})")
        if owners is not None and len(owners) != queries.size:
            raise ValueError(f"{len(owners)} owners for {queries.size} answers; give one each")
        return Belief(
            self,
            queries,
            np.asarray(values, dtype=bool),
            np.asarray(asked, bool),
            owners,
            current,
        )

    def root(self) -> Belief:
        """The belief before any answer (the prior)."""
        return self.belief({})


class Belief:
    """The posterior after some answers, and everything derived from it.

    Attributes
    ----------
    model : EvidenceModel
    queries : ndarray of shape (k,), int
        Answered (yes/no) queries.
    values : ndarray of shape (k,), bool
        Their answers (True = yes).
    asked : ndarray of shape (N,), bool
        Queries answered or skipped.
    log_weights : ndarray of shape (M,)
        log prior + log likelihood (unnormalised; -inf only with exact answers).
    posterior : ndarray of shape (M,)
        Normalised; all zeros when no object is possible (exact answers only).
    presentation : ndarray of shape (K, M) or None
        With the textbook presentation or route views: P(component k | object i, answers)
        for the victim being asked, in the order of ``EvidenceModel.components`` (field
        first).
    owners : ndarray of shape (k,), int, or None
        With route views and answers from several victims: whose each answer is (the
        incident's count as the first victim's, :func:`victims_of`); None when one view
        explains every answer.
    current : int
        The victim being asked (suggestions are for them).
    """

    def __init__(self, model: EvidenceModel, queries, values, asked, owners=None, current=0):
        self.model = model
        self.queries = queries
        self.values = values
        self.asked = asked
        self.current = int(current)
        self.presentation: np.ndarray | None = None
        self._given_owners = owners
        self._victim_sums: _VictimSums | None = None
        self.owners = victims_of(owners, self.current, model.route_view_count)
        # One pass over the answered columns: log P(answer | i) summed over the answers.
        if model.components is None:
            L = model.likelihood[:, queries]  # (M, k)
            with np.errstate(divide="ignore"):
                loglik = np.where(values[None, :], np.log(L), np.log1p(-L)).sum(axis=1)
        else:
            terms = np.where(
                values[None, None, :],
                model._log_components[:, :, queries],
                model._log1m_components[:, :, queries],
            )  # (K, M, k)
            if self.owners is None:
                by_presentation = model._log_shares + terms.sum(axis=2)  # (K, M)
                loglik = np.logaddexp.reduce(by_presentation, axis=0)
                self.presentation = np.exp(by_presentation - loglik[None, :])
            else:
                self._victim_sums = _VictimSums.of(
                    terms, self.owners, model._log_route_shares, model._log_presentation_shares
                )
                loglik = self._victim_sums.loglik
                self.presentation = self._victim_sums.views_of(self.current)
        self.log_weights = model._log_prior + loglik
        top = self.log_weights.max()
        if np.isfinite(top):
            w = np.exp(self.log_weights - top)
            self.posterior = w / w.sum()
        else:
            self.posterior = np.zeros_like(self.log_weights)
        self._gains: np.ndarray | None = None
        self._chances: tuple[np.ndarray, np.ndarray] | None = None
        self._fit: Fit | None = None

    def as_victim(self, victim: int, asked: np.ndarray) -> Belief:
        """The same posterior with ``victim`` being asked (``asked``, shape (N,): what they
        have answered, skipped or has implied): their view weights, for their suggestions,
        without summing every answer's likelihood again."""
        if self._victim_sums is None and self.model.route_view_count > 1:
            return self.model.pooled(self.queries, self.values, asked, self._given_owners, victim)
        twin = copy.copy(self)
        twin.current, twin.asked = int(victim), np.asarray(asked, bool)
        twin._gains = twin._chances = None
        if self._victim_sums is not None:
            twin.presentation = self._victim_sums.views_of(victim)
        return twin

    # -- probabilities -------------------------------------------------------------------

    @property
    def fits(self) -> bool:
        """Whether any object is possible (always, unless answers are exact)."""
        return bool(self.posterior.sum() > 0)

    def group_probabilities(self) -> np.ndarray:
        """Probability of each object group (class), shape (m,): sums of the posterior, under
        the problem's prior when the object target ranks under its own
        (:meth:`Problem.ranking_prior`)."""
        m = self.model
        p = m.problem
        if p.object_groups is None:
            return np.zeros(0)
        if m._group_reweight is None:
            return np.bincount(p.object_groups, weights=self.posterior, minlength=p.n_groups)
        g = np.bincount(
            p.object_groups, weights=self.posterior * m._group_reweight, minlength=p.n_groups
        )
        total = g.sum()
        return g / total if total > 0 else g

    def candidate_probabilities(self) -> tuple[np.ndarray, np.ndarray]:
        """Objects merged by identical rows.

        Returns
        -------
        groups : ndarray of shape (R,), int
            Row-group code of each candidate, most probable first (ties: lowest object).
        probs : ndarray of shape (R,)
        """
        codes = self.model.row_groups
        probs = np.bincount(codes, weights=self.posterior)
        first = np.full(probs.size, codes.size)
        np.minimum.at(first, codes, np.arange(codes.size))
        order = np.lexsort((first, -probs))
        return order, probs[order]

    def members(self, row_group: int) -> np.ndarray:
        """Objects of one row group (identical rows), ascending."""
        return self.model.row_group_members[row_group]

    def confidence(self) -> float:
        """Probability of the top candidate (object target) or top group (group target)."""
        if self.model.target == "group":
            g = self.group_probabilities()
            return float(g.max()) if g.size else 0.0
        probs = np.bincount(self.model.row_groups, weights=self.posterior)
        return float(probs.max()) if probs.size else 0.0

    # -- expected information gain -------------------------------------------------------

    def gains(self) -> np.ndarray:
        """Expected information gain of each query about the target, in bits, shape (N,).

        Object target: I(theta; Y_q) = H(P(yes)) - sum_i w_i H(P(yes | theta_i)); with exact
        answers H(rho_a(q)) (Theorem 1, ``thm:object identification``), so the best query is
        GBS's (Algorithm 1).

        Group target: I(y; Y_q) = H(P(yes)) - sum_c w_c H(P(yes | class c)); with exact answers
        H(rho_a(q)) - sum_i (pi_a^i / pi_a) H(rho_a^i(q)) = 1 - C_a(q) of GISA (Algorithm 2,
        Theorem 2, ``thm:group identification``).

        With the textbook presentation P(yes | theta_i) is the chance given the answers so far
        (:meth:`answer_chances`), so the gain stays the mutual information about the target
        (objects of negligible mass left out).

        Asked queries and queries of zero mass gain 0. Cached.
        """
        if self._gains is not None:
            return self._gains
        total = float(self.posterior.sum())
        if self.presentation is not None:
            p_yes, h_given = self._mixture_chance_sums()
        else:
            p_yes, h_given = self._fixed_chance_sums(total)
        h_answer = _entropy_of_split(p_yes, total)
        gain = np.maximum(h_answer - h_given, 0.0) / total if total > 0 else np.zeros_like(p_yes)
        # Round-off (about 1e-16) on queries that split nothing is no gain; a real split of
        # even 1e-12 of the mass gains about 4e-11 bits.
        gain[self.asked | (gain < _ROUND_OFF)] = 0.0
        gain.setflags(write=False)
        self._gains = gain
        return gain

    def _mixture_chance_sums(self) -> tuple[np.ndarray, np.ndarray]:
        """The same sums with the textbook presentation, whose chances depend on the answers
        (:meth:`answer_chances`): over the objects that carry mass. einsum, not BLAS, as in
        :func:`_class_sums`: on a shared machine a threaded product waited for a busy core,
        40 times as long as the product itself on 2,000 x 500."""
        m = self.model
        objects, chances = self.answer_chances()
        weights = self.posterior[objects]
        if m.target == "group":
            groups = m.problem.object_groups[objects]
            order = np.argsort(groups, kind="stable")
            ends = np.cumsum(np.bincount(groups, minlength=m.problem.n_groups))
            Y = _class_sums(weights[order], chances[order], ends)
            return Y.sum(axis=0), _entropy_of_split(Y, self.group_probabilities()[:, None]).sum(
                axis=0
            )
        return (
            np.einsum("k,kn->n", weights, chances),
            np.einsum("k,kn->n", weights, binary_entropy(chances)),
        )

    def _fixed_chance_sums(self, total: float) -> tuple[np.ndarray, np.ndarray]:
        """P(yes) mass and answer entropy of every query when each cell's chance is fixed
        (no textbook presentation): matrix-vector products over the precomputed rows."""
        m = self.model
        w = self.posterior[m._row_order].astype(m._rows.dtype, copy=False)
        if m.target == "group":
            # Per class c: its mass W_c and yes-mass Y_c = sum_{i in c} w_i P(yes | i).
            Y = _class_sums(w, m._rows, m._class_ends)
            W = self.group_probabilities()
            return Y.sum(axis=0), _entropy_of_split(Y, W[:, None]).sum(axis=0)
        if m._entropy_rows is None:
            # Two-valued cells: the listed mass G_q = sum_i w_i B_iq, its yes-mass
            # sum_i w_i s_i B_iq and its answer entropy sum_i w_i H(s_i) B_iq in one pass;
            # the unlisted mass answers yes with l_q.
            weights = np.stack(
                [w, w * m._s_sorted.astype(w.dtype), w * m._h_sorted.astype(w.dtype)]
            )
            listed, listed_yes, h_listed = np.einsum("jk,kn->jn", weights, m._rows).astype(
                np.float64
            )
            p_yes = m.leak_vector * (total - listed) + listed_yes
            return p_yes, h_listed + (total - listed) * m._h_unlisted
        # The yes-mass sum_i w_i P(yes | i) and the answer entropy sum_i w_i H(P(yes | i)).
        p_yes = np.einsum("k,kn->n", w, m._rows).astype(np.float64)
        return p_yes, np.einsum("k,kn->n", w, m._entropy_rows).astype(np.float64)

    def answer_chances(self) -> tuple[np.ndarray, np.ndarray]:
        """With the textbook presentation: P(yes | object i, the answers so far) for every
        query, the presentations' chances weighed by how well each explains the answers so
        far (a victim who has shown exactly a row's signs likely shows the rest by the
        textbook too).

        Returns
        -------
        objects : ndarray of shape (A,), int
            The objects that carry mass: all but those below ``_NEGLIGIBLE_MASS`` / M of the
            posterior each (together less than ``_NEGLIGIBLE_MASS``: they could move no gain
            by as much as the tie tolerance).
        chances : ndarray of shape (A, N)
        """
        if self._chances is None:
            post = self.posterior
            objects = np.flatnonzero(post > _NEGLIGIBLE_MASS * post.sum() / post.size)
            r = self.presentation[:, objects]
            chances = np.einsum("km,kmn->mn", r, self.model.components[:, objects])
            self._chances = objects, chances
        return self._chances

    def yes_probability(self) -> np.ndarray:
        """P(yes) to every query under the posterior, shape (N,)."""
        if self.presentation is None:
            return self.model.yes_probability(self.posterior)
        objects, chances = self.answer_chances()
        return np.einsum("k,kn->n", self.posterior[objects], chances)

    def answer_weights(self, objects) -> np.ndarray:
        """How much each answer counts for each of ``objects``: log P(answers | i) minus log
        P(the other answers | i), shape (len(objects), k), in natural logs, answers in the
        order of :attr:`queries`. Without the textbook presentation this is log P(answer |
        i) (answers are independent given the chemical); with it, an answer is weighed in
        the company of the others, as the posterior weighs it. The difference between two
        objects' rows is the log likelihood ratio the answer contributes."""
        m = self.model
        objects = np.asarray(objects, dtype=np.int64)
        with np.errstate(divide="ignore"):
            if m.components is None:
                L = m.likelihood[np.ix_(objects, self.queries)]
                return np.where(self.values[None, :], np.log(L), np.log1p(-L))
            terms = np.where(
                self.values[None, None, :],
                m._log_components[:, objects][:, :, self.queries],
                m._log1m_components[:, objects][:, :, self.queries],
            )  # (K, n, k)
        if self.owners is not None:
            return self._victims_answer_weights(objects, terms)
        totals = m._log_shares[:, objects] + terms.sum(axis=2)  # (K, n)
        full = np.logaddexp.reduce(totals, axis=0)  # (n,)
        without = np.logaddexp.reduce(totals[:, :, None] - terms, axis=0)  # (n, k)
        return full[:, None] - without

    def _victims_answer_weights(self, objects: np.ndarray, terms: np.ndarray) -> np.ndarray:
        """:meth:`answer_weights` with a route per victim (:class:`_VictimSums`): each
        answer left out of its own victim's sum."""
        m = self.model
        route = m._log_route_shares[:, :, objects]  # (P, R, n)
        sums = _VictimSums.of(terms, self.owners, route, m._log_presentation_shares[:, objects])
        full = sums.loglik  # (n,)
        P, R, n = route.shape
        each_answer = np.moveaxis(terms.reshape(P, R, n, -1), 3, 0)  # (k, P, R, n)
        rest = np.logaddexp.reduce(route[None] + sums.per[sums.slot] - each_answer, axis=2)
        by_presentation = sums.by_presentation[None] - sums.each[sums.slot] + rest  # (k, P, n)
        without = np.logaddexp.reduce(by_presentation, axis=1).T  # (n, k)
        return full[:, None] - without

    def useful(self, available: np.ndarray | None = None) -> np.ndarray:
        """Queries worth asking: unasked, available, gain above the floor; shape (N,) bool."""
        ok = self.gains() > self.model.gain_floor
        return ok if available is None else ok & available

    def pick_matrix(self, pick: str = "any", available: np.ndarray | None = None) -> np.ndarray:
        """P[j, q]: the chance the responder picks q when offered category j, shape (n, N).

        ``pick="any"``: any unasked (available) query of the category, weighted by the
        problem's pick weights (the paper's p_j(q), Section 4). ``pick="informed"``: only
        the useful ones (gain above the floor), as the app greys out the rest.
        """
        _check_pick(pick)
        m = self.model
        if m._category_onehot is None:
            raise EvidenceError("category suggestions need query categories")
        allowed = ~self.asked if available is None else ~self.asked & available
        if pick == "informed":
            allowed = allowed & self.useful()
        P = m._category_onehot * (m.problem.pick_weights * allowed)[None, :]
        sums = P.sum(axis=1, keepdims=True)
        return np.divide(P, sums, out=np.zeros_like(P), where=sums > 0)

    def category_gains(self, pick: str = "any", available: np.ndarray | None = None) -> np.ndarray:
        """Expected gain of offering each category, sum_q p_j(q) I(q), shape (n,).

        With exact answers this is 1 - C_a(j) of GQSA (Algorithm 3, Theorem 5,
        ``thm:group queries``) for the object target and of GIGQSA (Algorithm 4, Theorem 6,
        ``thm:group identification group queries``) for the group target.
        """
        return self.pick_matrix(pick, available) @ self.gains()

    # -- suggestion and stopping ---------------------------------------------------------

    def stop(self, available: np.ndarray | None = None) -> Stop:
        """Whether to stop: confident, no question gains enough, or nothing fits.

        The fit (:meth:`fit`) is judged when the interview would stop: a result that fits
        no listed chemical is reported as ``no_fit``, never as identified.
        """
        if not self.fits:
            return Stop("no_fit", 0.0)
        conf = self.confidence()
        if conf >= self.model.threshold:
            reason = "confident"
        elif not self.useful(available).any():
            reason = "no_gain"
        else:
            return Stop(None, conf)
        return Stop(reason if self.fit().fits else "no_fit", conf)

    def fit(self) -> Fit:
        """Whether the answers fit any listed chemical: a test against "none of them".

        Bayesian model comparison with one more hypothesis, theta_0 = "a chemical not in
        the knowledge base", prior pi_0 (``unlisted_prior``):

            P(theta_0 | answers) = pi_0 L_0 / (pi_0 L_0 + (1 - pi_0) sum_i pi_i L_i),

        with L_i the likelihood of the answers under chemical i (the posterior's own) and
        L_0 the likelihood under theta_0. An unlisted agent's profile is unknown; L_0 is the
        mean of two models of it: each sign listed with its frequency in the knowledge base,
        f_q = sum_i pi_i B_iq (answers yes with r_q = sum_i pi_i (B_iq s_i + (1 - B_iq) l_q),
        i.e. l_q + (s - l_q) f_q without the long-row discount), and each sign listed with one
        chance rho, the share of signs a listed chemical has, rho_i = |B_i| / N with chemical
        i drawn from the prior (a profile of any listed size, on signs at random, shown with
        the sensitivity of a row that long). "No fit" when P(theta_0 | answers) >= 1/2. (An earlier version
        drew rho ~ U(0, 1); that admits agents with nearly every sign, which out-explain a
        true victim who shows many of its chemical's signs plus one the sources miss.)
        This is the evidence mode's counterpart of the persistent-noise model's error
        budget (Section 6, ``sec:QL with persistent noise``): rather than tolerating up to
        eps contradictions, weigh the contradictions against the chance that the agent is
        missing. With exact answers (s = 1, l = 0) there is no such hypothesis: nothing
        fits only when no candidate is possible, as in the paper.
        """
        if self._fit is not None:
            return self._fit
        m = self.model
        k = int(self.queries.size)
        if not self.fits:
            self._fit = Fit(1.0, False, -1, 0, k)
            return self._fit
        top = int(np.argmax(self.posterior))
        against = int(self.against()[top].sum())
        if m.answers.is_exact:
            self._fit = Fit(0.0, True, top, against, k)
            return self._fit
        # L_0: half "signs as common as in the knowledge base", half "signs at random, as
        # many as a listed chemical has" (a mixture over the listed chemicals' shares).
        r = m.unlisted_yes[self.queries]
        log_freq = float(np.where(self.values, np.log(r), np.log1p(-r)).sum())
        leak = m.leak_vector[self.queries][None, :]
        s_share = m.unlisted_share_sensitivities[:, None]
        r_share = leak + (s_share - leak) * m.unlisted_shares[:, None]  # (D, k)
        log_share = np.where(self.values[None, :], np.log(r_share), np.log1p(-r_share)).sum(axis=1)
        log_exch = float(np.logaddexp.reduce(log_share + m._log_share_weight))
        log_l0 = float(np.logaddexp(log_freq, log_exch)) - np.log(2.0)
        log_listed = float(np.logaddexp.reduce(self.log_weights))  # log sum_i pi_i L_i
        log_odds = np.log(m.unlisted_prior) + log_l0 - np.log1p(-m.unlisted_prior) - log_listed
        unlisted = float(1.0 / (1.0 + np.exp(-log_odds)))
        self._fit = Fit(unlisted, unlisted < 0.5, top, against, k)
        return self._fit

    def suggest_symptom(self, available: np.ndarray | None = None) -> Suggestion | None:
        """The useful queries, best first (ties: lowest index); None if none is useful."""
        useful = np.flatnonzero(self.useful(available))
        if useful.size == 0:
            return None
        g = self.gains()[useful]
        order = best_first(g)
        qs = useful[order]
        picks = np.zeros(qs.size)
        picks[0] = 1.0
        return Suggestion("symptom", -1, qs, g[order], picks)

    def suggest_category(
        self, pick: str = "any", available: np.ndarray | None = None
    ) -> Suggestion | None:
        """The category with the largest expected gain under the pick model.

        Only categories holding a useful query are eligible (as the strict policies offer
        only categories with a query that splits). Ties go to the lowest index.
        """
        m = self.model
        if m._category_onehot is None:
            raise EvidenceError("category suggestions need query categories")
        useful = self.useful(available)
        eligible = (m._category_onehot & useful[None, :]).any(axis=1)
        if not eligible.any():
            return None
        P = self.pick_matrix(pick, available)
        scores = np.where(eligible, P @ self.gains(), -np.inf)
        j = int(best_first(scores)[0])
        inside = np.flatnonzero(m._category_onehot[j] & useful)
        g = self.gains()[inside]
        order = best_first(g)
        return Suggestion("category", j, inside[order], g[order], P[j, inside[order]])

    # -- explanations --------------------------------------------------------------------

    def against(self) -> np.ndarray:
        """A[i, t]: answer t counts against object i, shape (M, k).

        A "yes" to a sign the chemical does not list, or a "no" to one it lists as common or
        hallmark (every listed sign of an ungraded problem): under the answer model each
        multiplies its weight by less than the answer does for the chemicals that fit it. A
        "no" to an occasional sign, or any answer in a category the sources say nothing about
        for the chemical, counts against nothing; with route views, neither does a "no" to a
        contact sign of another route than the one the victim was exposed by (for the
        chemicals listing that route).
        """
        problem = self.model.problem
        grades = problem.grades
        if grades is None:
            grades = problem.matrix.astype(np.int8) * COMMON
        G = grades[:, self.queries]
        if self.model.several_routes_share < 1.0 and problem.route_queries is not None:
            # With route views, a "no" to a contact sign of another route than the victim's
            # counts as a "no" to an occasional sign for the chemicals listing that route;
            # with several victims, the route of the victim who gave the answer.
            owners = np.zeros(self.queries.size, np.int64) if self.owners is None else self.owners
            victims = np.unique(owners)
            routes = problem.route_queries
            said = np.zeros((victims.size, routes.size), dtype=bool)  # (V, R)
            mine = np.searchsorted(victims, owners)
            yes = self.values[:, None] & (self.queries[:, None] == routes[None, :])  # (k, R)
            np.logical_or.at(said, mine, yes)
            if said.any():
                # off[v, q]: q is a contact sign of none of victim v's routes
                off = ~(said[:, :, None] & ~problem.off_route[None]).any(axis=1)
                off &= said.any(axis=1)[:, None]
                by_route = (problem.matrix[:, routes].astype(np.int64) @ said.T) > 0  # (M, V)
                cap = off[mine, self.queries][None, :] & by_route[:, mine]
                G = np.where(cap, np.minimum(G, OCCASIONAL), G)
        return np.where(self.values[None, :], G == NOT_LISTED, G >= COMMON)

    def answers_against(self, obj: int) -> np.ndarray:
        """The answered queries counting against object ``obj``, in answer order."""
        return self.queries[self.against()[obj]]


def sharp_group_drops(
    before: np.ndarray, after: np.ndarray, relevant: float = 0.1, factor: float = 5.0
) -> np.ndarray:
    """Groups that one answer lowered sharply, largest prior share first.

    A group counts when it held at least ``relevant`` of the probability before and at most
    1/``factor`` of that after.

    Parameters
    ----------
    before, after : ndarray of shape (m,)
        Group probabilities before and after the answer.

    Returns
    -------
    ndarray of shape (r,), int
    """
    before = np.asarray(before, dtype=float)
    after = np.asarray(after, dtype=float)
    hit = (before >= relevant) & (after * factor <= before)
    idx = np.flatnonzero(hit)
    return idx[np.argsort(-before[idx], kind="stable")]


def _identical_rows(rows: np.ndarray) -> np.ndarray:
    """A code per row, equal for identical rows (numbered in order of first appearance):
    rows compared by their bytes in one dictionary, where np.unique(axis=0) sorted them
    field by field (a third of a second at 2,000 x 1,000, at every start)."""
    rows = np.ascontiguousarray(rows, dtype=np.float64) + 0.0  # -0.0 is 0.0
    seen: dict[bytes, int] = {}
    return np.fromiter(
        (seen.setdefault(row.tobytes(), len(seen)) for row in rows), dtype=np.intp, count=len(rows)
    )


def _class_sums(w_sorted: np.ndarray, rows: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """G[c, q] = sum of w_i B_iq over the members i of class c, shape (m, N); for weights of
    shape (J, M), one such table per weight vector, shape (J, m, N), in the same pass.

    ``rows`` is B as floats with its rows sorted by class and ``ends`` the cumulative class
    sizes: one matrix-vector product per class block, one pass over the matrix in all (a
    loop over classes, never over symptoms). einsum, not BLAS: as fast on one core here and
    steady on a shared machine, where threaded BLAS waits for a busy core.
    """
    if w_sorted.ndim == 2:
        G = np.zeros((w_sorted.shape[0], ends.size, rows.shape[1]), dtype=rows.dtype)
        start = 0
        for c, end in enumerate(ends.tolist()):
            if end > start:
                np.einsum("jk,kn->jn", w_sorted[:, start:end], rows[start:end], out=G[:, c])
            start = end
        return G.astype(np.float64, copy=False)
    G = np.zeros((ends.size, rows.shape[1]), dtype=rows.dtype)
    start = 0
    for c, end in enumerate(ends.tolist()):
        if end > start:
            np.einsum("k,kn->n", w_sorted[start:end], rows[start:end], out=G[c])
        start = end
    return G.astype(np.float64, copy=False)


def row_signs(problem: Problem) -> np.ndarray:
    """How many signs each object's row lists, shape (M,), for the long-row discount: the
    cells in queries every object records (the symptoms). Scene facts, recorded only where a
    source was read, say nothing of how many signs one victim shows."""
    return problem.matrix[:, _counted_columns(problem)].sum(axis=1).astype(float)


def counted_queries(problem: Problem) -> int:
    """How many queries :func:`row_signs` counts."""
    return int(_counted_columns(problem).sum())


def _counted_columns(problem: Problem) -> np.ndarray:
    if problem.grades is None:
        return np.ones(problem.n_queries, dtype=bool)
    return ~(problem.grades == UNRECORDED).any(axis=0)


def victims_of(owners, current: int, route_view_count: int) -> np.ndarray | None:
    """Each answer's victim for :class:`Belief`, the incident's (-1) counted as the first
    victim's; None when one view serves every answer: no route views, or every answer is
    the victim being asked's. Answers about the incident (the smell, the place) are the same
    under every route view, so whose they count as changes nothing but the bookkeeping."""
    if owners is None or route_view_count < 2:
        return None
    victims = np.maximum(np.asarray(owners, dtype=np.int64), 0)
    if np.all(victims == current):
        return None
    return victims


@dataclass(frozen=True)
class _VictimSums:
    """The likelihood of answers from several victims, summed per victim and view.

    The incident's presentation p (field or textbook) is shared, and each victim v has their
    own route view r_v given it (one victim splashed on the skin, another who breathed the
    vapour):

        P(answers | i) = sum_p P(p | i) prod_v sum_r P(r | p, i) prod_{t of v} P(a_t | p, r, i),

    which for one victim is the mixture over the components :class:`Belief` uses. Victims are
    independent given the chemical and the presentation; a victim with no answers yet
    contributes 1.

    Attributes
    ----------
    who : ndarray of shape (U,), int
        The victims with answers, ascending.
    slot : ndarray of shape (k,), int
        Each answer's index into ``who``.
    per : ndarray of shape (U, P, R, M)
        Each victim's answers' log likelihood under presentation p and route view r.
    each : ndarray of shape (U, P, M)
        Each victim's log likelihood given p (their route views mixed).
    by_presentation : ndarray of shape (P, M)
        log P(p | i) plus the victims' sum of ``each``.
    route : ndarray of shape (P, R, M)
        log P(r | p, i).
    """

    who: np.ndarray
    slot: np.ndarray
    per: np.ndarray
    each: np.ndarray
    by_presentation: np.ndarray
    route: np.ndarray

    @classmethod
    def of(cls, terms, victims, route, log_presentation) -> _VictimSums:
        """From ``terms`` (K, M, k), log P(a_t | component, i) of each answer t with the
        components presentation-major, and each answer's victim (k,)."""
        P, R, M = route.shape
        order = np.argsort(victims, kind="stable")
        who, starts, sorted_slot = np.unique(victims[order], return_index=True, return_inverse=True)
        sums = np.add.reduceat(terms[:, :, order], starts, axis=2)  # (K, M, U)
        per = np.moveaxis(sums.reshape(P, R, M, who.size), 3, 0)
        each = np.logaddexp.reduce(route[None] + per, axis=2)
        slot = np.empty_like(sorted_slot)
        slot[order] = sorted_slot
        return cls(who, slot, per, each, log_presentation + each.sum(axis=0), route)

    @property
    def loglik(self) -> np.ndarray:
        """log P(answers | i), shape (M,)."""
        return np.logaddexp.reduce(self.by_presentation, axis=0)

    def views_of(self, victim: int) -> np.ndarray:
        """P(p, r_victim | i, answers), shape (K, M): ``victim``'s view weights."""
        mine = np.flatnonzero(self.who == victim)
        if mine.size:
            own, others = self.per[mine[0]], self.by_presentation - self.each[mine[0]]
        else:
            own, others = np.zeros(self.route.shape), self.by_presentation
        joint = others[:, None, :] + self.route + own - self.loglik[None, None, :]
        return np.exp(joint).reshape(-1, joint.shape[-1])


def route_views(
    problem: Problem, answers: AnswerModel, likelihood: np.ndarray, several: float
) -> tuple[np.ndarray, np.ndarray]:
    """A chemical's likelihood for a victim exposed by each route, and each route's share.

    A row is the union of its chemical's effects over every route (``Problem.off_route``).
    A victim exposed by route r alone shows a sign of another route's contact site (a cough
    when a liquid only touched the skin) at most with the chance of an occasional sign (and
    never less than its leak), route r itself with the row's whole chance of it, unsplit, and
    the row's other routes with their leak (a route it does not list keeps its chance).

    With share ``several`` the victim was exposed by several routes at once and answers as
    ``likelihood`` says (the union; its routes split). The rest is shared among the routes
    the row lists in proportion to each one's chance above its leak, so a route graded
    hallmark (chlorine breathed in) weighs more than one graded occasional (chlorine's
    liquid on the skin). Routes of one grade share equally, and the mixture's chance of each
    route is then the split chance of :meth:`AnswerModel.likelihood`. A row listing no route
    (or with its routes unrecorded) keeps ``likelihood`` alone.

    Parameters
    ----------
    problem : Problem
        With route views (``route_queries``, ``off_route``).
    answers : AnswerModel
        Gives the occasional chance (long-row discounted) and the leaks.
    likelihood : ndarray of shape (M, N)
        ``answers.likelihood(problem)``.
    several : float
        The share of victims exposed by several routes at once, in [0, 1].

    Returns
    -------
    views : ndarray of shape (R + 1, M, N)
        Per route, then the union (``likelihood``).
    shares : ndarray of shape (R + 1, M)
        P(view | chemical); each column sums to 1.
    """
    routes = problem.route_queries
    R = routes.size
    leaks = answers.effective_leaks(problem)
    listed = problem.matrix[:, routes]  # (M, R)
    counts = listed.sum(axis=1)
    row_lengths = row_signs(problem)
    typical = float(problem.prior @ row_lengths)
    occasional = answers._discounted(answers.occasional, row_lengths, typical, leaks)  # (M,)
    capped = np.maximum(np.minimum(likelihood, occasional[:, None]), leaks[None, :])
    views = np.broadcast_to(likelihood, (R + 1, *likelihood.shape)).copy()
    route_leaks = leaks[routes]
    other_routes = np.where(listed, route_leaks[None, :], likelihood[:, routes])  # (M, R)
    # each listed route's own chance, unsplit: k_i times its split chance above the leak
    above = (likelihood[:, routes] - route_leaks[None, :]) * np.maximum(counts, 1)[:, None]
    whole = np.minimum(route_leaks[None, :] + above, 1.0 - 1e-9)
    for r in range(R):
        off = problem.off_route[r]
        views[r][:, off] = capped[:, off]
        views[r][:, routes] = other_routes
        views[r][:, routes[r]] = whole[:, r]
    # a route graded hallmark is the way most victims meet the chemical: shares in
    # proportion to each listed route's chance above its leak
    weight = np.where(listed, np.maximum(above, 0.0), 0.0)
    total = weight.sum(axis=1)
    one_route = np.where(total > 0, 1.0 - several, 0.0)
    shares = np.zeros((R + 1, problem.n_objects))
    shares[:R] = (weight * (one_route / np.where(total > 0, total, 1.0))[:, None]).T
    shares[R] = 1.0 - one_route
    return views, shares


def _split_shares(problem: Problem) -> np.ndarray:
    """1 / k_ic for each cell of a category whose chance is split, where object i lists
    k_ic of its queries (1 where it lists none), and 1 elsewhere; shape (M, N)."""
    shares = np.ones(problem.matrix.shape)
    for cols in problem.alternative_categories(split=True):
        listed = problem.matrix[:, cols].sum(axis=1)
        shares[:, cols] = 1.0 / np.maximum(listed, 1)[:, None]
    return shares


def _class_share(B: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """S[i, q]: the share of the other members of object i's group that list query q, shape
    (M, N) (0 for an object alone in its group); one pass per group."""
    S = np.zeros(B.shape)
    for g in np.unique(groups):
        members = groups == g
        n = int(members.sum())
        if n > 1:
            listed = B[members].sum(axis=0)
            S[members] = (listed[None, :] - B[members]) / (n - 1)
    return S


def _check_pick(pick: str) -> None:
    if pick not in PICK_MODELS:
        raise EvidenceError(
            f"unknown pick model {pick!r}; choose one of {', '.join(PICK_MODELS)}", "pick"
        )


def _entropy_of_split(yes, total) -> np.ndarray:
    """total * H(yes / total) without dividing: T log T - y log y - (T-y) log (T-y), bits."""
    yes = np.asarray(yes, dtype=float)
    total = np.broadcast_to(np.asarray(total, dtype=float), yes.shape)
    yes = np.clip(yes, 0.0, total)
    return xlog2x(total) - xlog2x(yes) - xlog2x(total - yes)


def best_first(scores: np.ndarray) -> np.ndarray:
    """Indices by score, best first.

    The first is the lowest index within the tie tolerance of the best, as the strict
    policies choose (:class:`responder.engine.policies.Policy`); the rest follow by score.
    """
    if scores.size == 0:
        return np.zeros(0, dtype=np.int64)
    order = np.lexsort((np.arange(scores.size), -scores))
    first = int(np.flatnonzero(scores >= scores[order[0]] - _TIE_TOL)[0])
    return np.concatenate(([first], order[order != first]))


def next_query(
    belief: Belief,
    rng: np.random.Generator | None,
    suggest: str = "symptom",
    pick: str = "informed",
    available: np.ndarray | None = None,
) -> int:
    """The query a simulated responder asks next: the best symptom, or a pick inside the
    best category drawn from the pick model (a single offered query needs no draw)."""
    if suggest == "symptom":
        return int(belief.suggest_symptom(available).queries[0])
    sug = belief.suggest_category(pick, available)
    if rng is None:  # no responder to draw a pick: the category's best query
        return int(sug.queries[0])
    P = belief.pick_matrix(pick, available)[sug.category]
    qs = np.flatnonzero(P > 0)
    return int(qs[rng.choice(qs.size, p=P[qs])]) if qs.size > 1 else int(qs[0])
