"""Compare the answer modes (strict, persistent noise, evidence) on the same simulated victims.

How simulated victims answer (:class:`Victims`):

- ``flip:F``: each answer is the knowledge base's cell, wrong with probability F;
- ``victim:S,L``: the victim shows each sign its chemical lists with probability S and each
  sign it does not list with probability L (the evidence mode's own answer model);
- ``persistent``: the paper's Section 7.3 steps, up to eps wrong answers on error-prone
  queries (:func:`responder.engine.simulate.draw_answers`).

Answers are persistent: asking again repeats the answer. Everything runs on the one interview
simulator (:mod:`responder.engine.simulate`): the victims are its answer models, the modes its
interviewers, and every mode meets the same victims with the same answers (its victim and
answer streams restart from one seed for each mode).

For each mode :func:`compare_modes` reports, with 95% intervals: top-1 (the truth is the
first candidate when the interview stops), top-5, silently wrong (the interview stopped as
"identified" on a wrong candidate) and the mean number of questions.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from math import sqrt

import numpy as np

from responder.engine.belief import Model, Node
from responder.engine.evidence import Belief, EvidenceModel
from responder.engine.interview import BeliefStepper, run_interview
from responder.engine.noise import NoiseModel
from responder.engine.policies import Policy
from responder.engine.simulate import (
    Outcome,
    PersistentNoiseAnswers,
    PolicyInterviewer,
    draw_victims,
    random_streams,
    simulate_interviews,
)
from responder.engine.state import Answer, ExclusiveGroups, InterviewState

VICTIM_KINDS = ("flip", "victim", "persistent")
Z95 = 1.959963984540054


class VictimsError(ValueError):
    """A malformed ``--answers`` specification; the message shows the valid forms."""


@dataclass(frozen=True)
class Victims:
    """How simulated victims answer.

    Parameters
    ----------
    kind : {"flip", "victim", "persistent"}
    flip : float
        ``flip``: chance each answer is wrong, in [0, 0.5].
    sensitivity, leak : float
        ``victim``: chance of showing a listed sign, and an unlisted one, each in [0, 1].
    noise : NoiseModel or None
        ``persistent``: the error-prone queries, eps and the probability model.

    ``flip`` victims show one observation per category of alternatives of the problem
    (:class:`FlipAnswers`).
    """

    kind: str
    flip: float = 0.0
    sensitivity: float = 1.0
    leak: float = 0.0
    noise: NoiseModel | None = None

    def answers_for(self, problem) -> FlipAnswers | VictimAnswers | PersistentNoiseAnswers:
        """The simulator's answer model for ``problem``."""
        if self.kind == "flip":
            return FlipAnswers(problem.matrix, self.flip, problem.alternative_categories())
        if self.kind == "victim":
            return VictimAnswers(problem.matrix, self.sensitivity, self.leak)
        return PersistentNoiseAnswers(Model(problem, "object", self.noise))

    def describe(self) -> str:
        if self.kind == "flip":
            return f"flip:{self.flip:g}"
        if self.kind == "victim":
            return f"victim:{self.sensitivity:g},{self.leak:g}"
        return "persistent"


@dataclass(frozen=True)
class FlipAnswers:
    """Each answer is the knowledge base's cell, wrong with probability ``flip``.

    With ``alternatives`` (the queries of each category of alternatives,
    :meth:`Problem.alternative_categories`), the victim shows one observation per such
    category, as a real scene has one place and one smell while a chemical's row lists
    every place it is found: one the row lists (chosen at random), or with probability
    ``flip`` one it does not list (a wrong answer); none where the row lists nothing,
    unless wrong. The rest of the category is answered no.
    """

    matrix: np.ndarray
    flip: float
    alternatives: tuple[np.ndarray, ...] = ()

    def draw(self, true: int, rng: np.random.Generator, n_errors: int | None = None) -> np.ndarray:
        row = self.matrix[true]
        answers = row ^ (rng.random(row.size) < self.flip)
        for members in self.alternatives:
            listed = members[row[members]]
            unlisted = members[~row[members]]
            pool = unlisted if rng.random() < self.flip else listed
            answers[members] = False
            if pool.size:
                answers[pool[rng.integers(pool.size)]] = True
        return answers


@dataclass(frozen=True)
class VictimAnswers:
    """The victim shows each listed sign with probability ``sensitivity`` and each unlisted
    one with probability ``leak``."""

    matrix: np.ndarray
    sensitivity: float
    leak: float

    def draw(self, true: int, rng: np.random.Generator, n_errors: int | None = None) -> np.ndarray:
        row = self.matrix[true]
        return rng.random(row.size) < np.where(row, self.sensitivity, self.leak)


def parse_victims(spec: str, noise: NoiseModel | None = None) -> Victims:
    """Parse ``flip:F``, ``victim:S,L`` or ``persistent`` (which needs ``noise``)."""
    forms = "flip:F (0 <= F <= 0.5), victim:S,L (0 <= L < S <= 1) or persistent"
    text = str(spec).strip().lower()
    kind, _, rest = text.partition(":")
    try:
        if kind == "flip" and rest:
            f = float(rest)
            if not 0.0 <= f <= 0.5:
                raise VictimsError(f"--answers {spec}: F must lie in [0, 0.5]; use {forms}")
            return Victims("flip", flip=f)
        if kind == "victim" and rest.count(",") == 1:
            s, l_ = (float(x) for x in rest.split(","))
            if not (0.0 <= l_ < s <= 1.0):
                raise VictimsError(f"--answers {spec}: need 0 <= L < S <= 1; use {forms}")
            return Victims("victim", sensitivity=s, leak=l_)
        if kind == "persistent" and not rest:
            if noise is None:
                raise VictimsError("--answers persistent needs noise settings (eps, prone queries)")
            return Victims("persistent", noise=noise)
    except ValueError as exc:
        if isinstance(exc, VictimsError):
            raise
    raise VictimsError(f"--answers {spec!r} is not understood; use {forms}")


@dataclass(frozen=True)
class Result:
    """How one simulated interview ended, as the comparison counts it.

    Attributes
    ----------
    questions : int
    rank : int
        0-based rank of the truth's candidate when the interview stopped (a large number when
        it is not listed).
    identified : bool
        The interview stopped as "identified" (strict: one candidate left; evidence: the top
        candidate reached the confidence threshold).
    confidence : float
    no_fit : bool
        The interview ended saying no chemical fits (strict and noise: no candidate left;
        evidence: an unlisted agent explains the answers better).
    """

    questions: int
    rank: int
    identified: bool
    confidence: float
    no_fit: bool = False


_NOT_LISTED = 1 << 30


class StrictMode(PolicyInterviewer):
    """The paper's policies with elimination (``noise=None``) or persistent noise (eps): the
    simulator's policy interviewer, with how its end is ranked."""

    def __init__(
        self,
        problem,
        policy: str = "gbs",
        target: str = "object",
        noise: NoiseModel | None = None,
        name: str | None = None,
    ):
        pol = Policy(policy)
        pol.check(problem)
        super().__init__(Model(problem, target, noise), pol)
        self.target = target
        self.name = name or (policy if noise is None else f"noise eps={noise.eps}")
        self._labels = _labels(problem, target)

    def result(self, outcome: Outcome) -> Result:
        node = outcome.end
        identified = node.idx.size > 0 and node.n_target_groups() == 1
        order = _strict_order(self.model, node, outcome.answers, self._labels)
        rank = _rank_of(order, self._labels[outcome.true])
        return Result(
            outcome.questions, rank, identified, 1.0 if identified else 0.0, node.idx.size == 0
        )


class EvidenceMode:
    """Evidence-weighted suggestions (symptom, or category under a pick model): an
    interviewer for the simulator."""

    def __init__(
        self,
        model: EvidenceModel,
        suggest: str = "symptom",
        pick: str = "informed",
        name: str | None = None,
    ):
        self.model = model
        self.suggest = suggest
        self.pick = pick
        self.name = name or f"evidence s={model.sensitivity:g} l={model.answers.leak:g}"

    def run(self, answers: np.ndarray, rng: np.random.Generator) -> tuple[int, Belief]:
        start = BeliefStepper.root(self.model, suggest=self.suggest, pick=self.pick)
        asked, end = run_interview(start, lambda q: bool(answers[q]), rng)
        return len(asked), end.belief

    def correct(self, end: Belief, true: int) -> bool:
        return evidence_rank(end, true) == 0

    def result(self, outcome: Outcome) -> Result:
        stop = outcome.end.stop()
        return Result(
            outcome.questions,
            evidence_rank(outcome.end, outcome.true),
            stop.reason == "confident",
            stop.confidence,
            stop.reason == "no_fit",
        )


class InterviewMode:
    """The evidence mode as the app runs it, for the simulator.

    Each interview is an :class:`~responder.engine.state.InterviewState` from ``new_state``
    (with the knowledge base's implications, the observable-first rule and what an
    unconscious victim cannot report), asking until it stops; a question on an exclusive
    group is answered as the app shows it, one key for the whole group
    (:meth:`~responder.engine.state.ExclusiveGroups.one_question`). With ``scene`` (query
    indices), the scene step comes first: every one of those observations that holds is
    ticked yes, as on the app's scene pages, and none of them counts as a question.
    """

    def __init__(
        self,
        new_state: Callable[[], InterviewState],
        groups: ExclusiveGroups | None = None,
        scene: np.ndarray | None = None,
        name: str = "evidence",
    ):
        self.new_state = new_state
        self.groups = groups or ExclusiveGroups()
        self.scene = None if scene is None else np.asarray(scene, dtype=np.int64)
        self.name = name

    def run(self, answers, rng: np.random.Generator) -> tuple[int, InterviewEnd]:
        state = self.new_state()
        if self.scene is not None:
            for q in self.scene.tolist():
                if answers[q]:
                    state.answer(q, Answer.YES)

        def answer_of(q: int) -> Answer:
            return Answer.YES if answers[q] else Answer.NO

        asked, _ = run_interview(state, self.groups.respond_to(state, answer_of), rng)
        return len(asked), InterviewEnd.of(state)

    def correct(self, end: InterviewEnd, true: int) -> bool:
        return end.rank(true) == 0

    def result(self, outcome: Outcome) -> Result:
        end = outcome.end
        return Result(
            outcome.questions,
            end.rank(outcome.true),
            end.reason == "confident",
            end.confidence,
            end.reason == "no_fit",
        )


@dataclass(frozen=True)
class InterviewEnd:
    """How an :class:`InterviewMode` interview ended: the candidates' order (row groups,
    most probable first, or classes for the group target), the stop reason and the
    confidence. Kept instead of the state, whose answer model is its own: a run holds every
    interview's end."""

    order: np.ndarray
    labels: np.ndarray  # each object's row group (object target) or class (group target)
    reason: str | None
    confidence: float

    @classmethod
    def of(cls, state: InterviewState) -> InterviewEnd:
        order, labels = _evidence_order(state.belief)
        return cls(order, labels, state.stop_reason, state.confidence())

    def rank(self, true: int) -> int:
        """Rank of the truth's candidate (or class), 0 = first."""
        return _rank_of(self.order, self.labels[true])


def evidence_rank(belief: Belief, true: int) -> int:
    """Rank of the truth's candidate (object target) or class (group target), 0 = first."""
    order, labels = _evidence_order(belief)
    return _rank_of(order, labels[true])


def _evidence_order(belief: Belief) -> tuple[np.ndarray, np.ndarray]:
    """The candidates most probable first, and each object's label among them: row groups
    (identical rows are one candidate), or classes for the group target."""
    model = belief.model
    if model.target == "group":
        g = belief.group_probabilities()
        return np.lexsort((np.arange(g.size), -g)), model.problem.object_groups
    return belief.candidate_probabilities()[0], model.row_groups


def _labels(problem, target: str) -> np.ndarray:
    """What counts as the same answer: the class, or the row (identical rows are one)."""
    if target == "group":
        return problem.object_groups
    _, inverse = np.unique(problem.matrix, axis=0, return_inverse=True)
    return inverse.reshape(-1)


def _strict_order(model: Model, node: Node, answers: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Candidate labels as the strict modes list them: remaining ones by mass; when none is
    left, every label by fewest contradicted answers (then prior)."""
    if node.idx.size:
        mass = np.bincount(labels[node.idx], weights=node.mass, minlength=labels.max() + 1)
        present = np.flatnonzero(mass > 0)
        return present[np.lexsort((present, -mass[present]))]
    asked = np.flatnonzero(node.asked)
    mism = (model.matrix[:, asked] != answers[asked][None, :]).sum(axis=1)
    prior = model.problem.prior
    objs = np.lexsort((-prior, mism))
    _, first = np.unique(labels[objs], return_index=True)
    return labels[objs][np.sort(first)]


def _rank_of(order: np.ndarray, label: int) -> int:
    hit = np.flatnonzero(order == label)
    return int(hit[0]) if hit.size else _NOT_LISTED


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a proportion successes / n (95% by default)."""
    if n <= 0:
        return (0.0, 1.0)
    phat = successes / n
    denom = 1.0 + z * z / n
    centre = (phat + z * z / (2 * n)) / denom
    half = z * sqrt(phat * (1 - phat) / n + z * z / (4 * n * n)) / denom
    lo = 0.0 if successes == 0 else max(0.0, centre - half)
    hi = 1.0 if successes == n else min(1.0, centre + half)
    return (lo, hi)


@dataclass
class ModeSummary:
    """One mode's figures over the simulated interviews, each with a 95% interval."""

    name: str
    interviews: int
    top1: float
    top1_ci: tuple[float, float]
    top5: float
    top5_ci: tuple[float, float]
    silently_wrong: float
    silently_wrong_ci: tuple[float, float]
    mean_questions: float
    mean_questions_ci: tuple[float, float]
    no_fit: float = 0.0
    no_fit_ci: tuple[float, float] = (0.0, 1.0)
    median_questions: float = 0.0
    p90_questions: float = 0.0
    outcomes: list[Result] = field(default_factory=list, repr=False)

    def as_dict(self) -> dict:
        def prop(x, ci):
            return {"share": x, "ci95": [ci[0], ci[1]]}

        return {
            "mode": self.name,
            "interviews": self.interviews,
            "top1": prop(self.top1, self.top1_ci),
            "top5": prop(self.top5, self.top5_ci),
            "silently_wrong": prop(self.silently_wrong, self.silently_wrong_ci),
            "no_fit": prop(self.no_fit, self.no_fit_ci),
            "mean_questions": {"mean": self.mean_questions, "ci95": list(self.mean_questions_ci)},
            "median_questions": self.median_questions,
            "p90_questions": self.p90_questions,
        }


def summarise(name: str, outcomes: list[Result]) -> ModeSummary:
    n = len(outcomes)
    ranks = np.array([o.rank for o in outcomes])
    wrong = np.array([o.identified and o.rank != 0 for o in outcomes])
    q = np.array([o.questions for o in outcomes], dtype=float)
    half = Z95 * q.std(ddof=1) / sqrt(n) if n > 1 else 0.0
    top1, top5 = int((ranks == 0).sum()), int((ranks < 5).sum())
    no_fit = int(sum(o.no_fit for o in outcomes))
    return ModeSummary(
        name,
        n,
        top1 / n,
        wilson(top1, n),
        top5 / n,
        wilson(top5, n),
        float(wrong.mean()),
        wilson(int(wrong.sum()), n),
        float(q.mean()),
        (float(q.mean() - half), float(q.mean() + half)),
        no_fit / n,
        wilson(no_fit, n),
        float(np.median(q)),
        float(np.percentile(q, 90)),
        outcomes,
    )


def compare_modes(
    problem,
    victims: Victims,
    modes: list,
    interviews: int = 1000,
    seed: int | None = 0,
    population: np.ndarray | None = None,
) -> list[ModeSummary]:
    """Run every mode on the same ``interviews`` simulated victims; truth drawn from the prior.

    Parameters
    ----------
    problem : Problem
    victims : Victims
    modes : list of StrictMode or EvidenceMode
    interviews : int
    population : ndarray of shape (M,), optional
        The prior the truth is drawn from (default ``problem.prior``): the simulator gives
        the target's own, :meth:`Problem.ranking_prior`.
    seed : int or None
        Each mode gets the simulator's streams from this seed, so all meet the same victims
        with the same answers; only the responder's picks (category suggestions) differ.

    Returns
    -------
    list of ModeSummary, in the order of ``modes``
    """
    if interviews < 1:
        raise ValueError("interviews must be at least 1")
    answers = victims.answers_for(problem)
    root = Model(problem if population is None else problem.with_prior(population)).root()
    out = []
    for mode in modes:
        streams = random_streams(seed)
        who = draw_victims(root, interviews, streams.victims)
        outcomes = simulate_interviews(who, answers, mode, streams)
        out.append(summarise(mode.name, [mode.result(o) for o in outcomes]))
    return out
