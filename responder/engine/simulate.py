"""The one interview simulator, under ``eval``'s Monte Carlo and ``simulate`` (Section 7.3).

A simulated interview has three separable pieces, each replaceable on its own:

- **victims**: which object is true, drawn from a node's masses (:func:`draw_victims`);
- **an answer model**: the answers the responder records for that victim
  (:class:`PersistentNoiseAnswers`, Section 7.3's four steps: 1. the error-prone queries are
  fixed by the noise model; 2. draw the number of errors e in {0, ..., eps'} from the
  probability model; 3. choose e error-prone queries uniformly; 4. flip the true object's
  answers to them, and asking again repeats the flip);
- **an interviewer**: who asks, and when the interview stops (:class:`PolicyInterviewer`,
  a policy on the engine's nodes).

:func:`simulate_interviews` runs them with three random streams (victims, answer errors,
the responder's picks), so every interviewer run with one seed meets the same victims with
the same errors. :func:`responder.engine.evaluate.monte_carlo` estimates E[K] with it;
:func:`run_simulation` measures E[K] and how often the interview ends on the true object,
separately for interviews with at most eps errors and with more (errors beyond eps are drawn
when ``extra_errors`` > 0, to show what happens past the budget).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from responder.engine.belief import Model, Node
from responder.engine.noise import BinomialTable
from responder.engine.policies import Policy, pick_query


def error_count_distribution(n_prone: int, eps_eff: int, model: int, p: float) -> np.ndarray:
    """Pr(e errors) for e = 0..eps' under probability model 1 or 2 (Section 6), shape (eps'+1,).

    The normaliser is the engine's own (:meth:`responder.engine.noise.BinomialTable.error_counts`).
    """
    return BinomialTable.for_counts(n_prone, eps_eff, 0.5 if model == 1 else p).error_counts()


def draw_answers(
    model: Model, true: int, rng: np.random.Generator, n_errors: int | None = None
) -> np.ndarray:
    """The answers a responder would record when the true object is ``true``, shape (N,) bool.

    Without noise, the object's row. Under noise, steps 2-4 above; ``n_errors`` forces the
    number of flips (it may exceed eps, to test what happens past the budget).
    """
    row = model.matrix[true].copy()
    noise = model.noise
    if noise is None:
        return row
    prone = np.flatnonzero(noise.prone)
    if n_errors is None:
        dist = error_count_distribution(noise.n_prone, noise.eps_eff, noise.model, noise.p)
        n_errors = int(rng.choice(dist.size, p=dist))
    n_errors = min(n_errors, prone.size)
    flipped = rng.choice(prone, size=n_errors, replace=False)
    row[flipped] = ~row[flipped]
    return row


@dataclass
class SimulationResult:
    """Outcome of simulated interviews.

    Attributes
    ----------
    interviews : int
    expected_queries : float
    ci95 : (float, float)
    accuracy_within_eps : float or None
        Share of interviews with at most eps errors that ended on the true object alone.
    accuracy_beyond_eps : float or None
        The same for interviews with more than eps errors.
    inconsistent_beyond_eps : float or None
        Share of over-budget interviews where no candidate was consistent within eps (the
        engine says so and ranks candidates; it never silently picks one).
    """

    interviews: int
    expected_queries: float
    ci95: tuple[float, float]
    accuracy_within_eps: float | None
    within_count: int
    accuracy_beyond_eps: float | None
    beyond_count: int
    inconsistent_beyond_eps: float | None
    details: dict = field(default_factory=dict)


def ended_on_truth(model: Model, node, true: int) -> bool:
    """Whether an interview that stopped at ``node`` identified the true object ``true``.

    Correct when the candidates are the true object alone, or the true object and objects
    whose rows equal its row (no query separates them; the interview reports them
    together); for the group target, when every remaining candidate is in the true
    object's group.
    """
    idx = node.idx
    if model.target == "group":
        groups = model.problem.object_groups
        return idx.size > 0 and bool(np.all(groups[idx] == groups[true]))
    if idx.size == 1:  # the usual end: one candidate (fast path)
        return int(idx[0]) == true
    return bool(np.any(idx == true)) and bool(np.all(model.matrix[idx] == model.matrix[true]))


def run_simulation(
    model: Model,
    policy: Policy,
    interviews: int = 1000,
    extra_errors: int = 0,
    seed: int | None = None,
) -> SimulationResult:
    """Simulate ``interviews`` interviews; with ``extra_errors`` > 0, as many again with
    eps + 1 .. eps + extra_errors flips (uniformly), to measure accuracy past the budget.

    An interview is correct when it ends on the truth (see :func:`ended_on_truth`). Victims,
    errors and picks come from the streams :func:`responder.engine.evaluate.monte_carlo`
    uses, so with one seed the within-budget interviews are the ones it simulates.

    Over-budget interviews are drawn only when more than eps' queries are error-prone
    (otherwise every possible error pattern is within the budget); their flips are capped at
    the number of error-prone queries. ``details`` holds three shares:

    - ``several_candidates_within_eps``: within-budget interviews that ended on several
      target groups that no query separates (identical rows);
    - ``wrong_consistent_beyond_eps``: over-budget interviews that ended on a wrong candidate
      that fits every answer given within eps;
    - ``inconsistent_if_all_asked_beyond_eps``: over-budget interviews where no object fits
      all N answers, i.e. what asking every remaining question would reveal. A query policy
      asks only queries that split the candidates, so its interview never runs out of
      candidates by itself.
    """
    streams = random_streams(seed)
    root = model.root()
    noise = model.noise
    plans: list[int | None] = [None] * interviews
    if noise is not None and extra_errors > 0 and noise.n_prone > noise.eps_eff:
        flips = noise.eps_eff + 1 + streams.extra.integers(0, extra_errors, size=interviews)
        plans += [int(f) for f in np.minimum(flips, noise.n_prone)]
    victims = draw_victims(root, len(plans), streams.victims)
    interviewer = PolicyInterviewer(model, policy, start=root)
    outcomes = simulate_interviews(victims, PersistentNoiseAnswers(model), interviewer, streams,
                                   n_errors=plans)
    counts, within, beyond, inconsistent = [], [], [], []
    shared, wrong_consistent, caught = [], [], []
    for n_err, out in zip(plans, outcomes):
        node, ok = out.end, out.correct
        if n_err is None:
            counts.append(out.questions)
            within.append(ok)
            shared.append(node.idx.size > 0 and node.n_target_groups() > 1)
        else:
            beyond.append(ok)
            inconsistent.append(node.idx.size == 0)
            wrong_consistent.append(not ok and node.idx.size > 0)
            full = model.node_from_answers(dict(enumerate(out.answers.tolist())))
            caught.append(full.idx.size == 0)
    counts_a = np.asarray(counts, dtype=float)
    mean = float(counts_a.mean())
    half = 1.96 * float(counts_a.std(ddof=1)) / np.sqrt(counts_a.size) if counts_a.size > 1 else 0.0
    return SimulationResult(
        interviews=interviews,
        expected_queries=mean,
        ci95=(mean - half, mean + half),
        accuracy_within_eps=float(np.mean(within)) if within else None,
        within_count=len(within),
        accuracy_beyond_eps=float(np.mean(beyond)) if beyond else None,
        beyond_count=len(beyond),
        inconsistent_beyond_eps=float(np.mean(inconsistent)) if inconsistent else None,
        details={
            "several_candidates_within_eps": float(np.mean(shared)) if shared else None,
            "wrong_consistent_beyond_eps": (
                float(np.mean(wrong_consistent)) if wrong_consistent else None
            ),
            "inconsistent_if_all_asked_beyond_eps": float(np.mean(caught)) if caught else None,
        },
    )


# -- the simulator's pieces ------------------------------------------------------------------


@dataclass(frozen=True)
class Streams:
    """Independent random streams of one simulation (see :func:`random_streams`)."""

    victims: np.random.Generator
    errors: np.random.Generator
    picks: np.random.Generator
    extra: np.random.Generator  # how many errors an over-budget interview gets


def random_streams(seed: int | None) -> Streams:
    """Victims, answer errors, the responder's picks and over-budget error counts from four
    streams of one seed, so changing how one is used never shifts the others."""
    victims, errors, picks, extra = (
        np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(4)
    )
    return Streams(victims, errors, picks, extra)


def draw_victims(start: Node, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` true objects drawn from the masses of the candidates at ``start``, shape (n,)."""
    weights = start.mass / start.total
    return start.idx[rng.choice(start.idx.size, size=n, p=weights)]


class AnswerModel(Protocol):
    """What a victim's answers look like: one full answer vector per simulated interview."""

    def draw(self, true: int, rng: np.random.Generator, n_errors: int | None = None) -> np.ndarray:
        """Answers to every query, shape (N,) bool."""


@dataclass(frozen=True)
class PersistentNoiseAnswers:
    """The true row, with the persistent errors of ``model``'s noise (none without noise)."""

    model: Model

    def draw(self, true: int, rng: np.random.Generator, n_errors: int | None = None) -> np.ndarray:
        return draw_answers(self.model, true, rng, n_errors)


class Interviewer(Protocol):
    """Who asks: runs one interview against fixed answers and judges where it ended."""

    def run(self, answers: np.ndarray, rng: np.random.Generator) -> tuple[int, Any]:
        """(questions asked, where the interview ended)."""

    def correct(self, end: Any, true: int) -> bool:
        """Whether an interview that ended at ``end`` identified ``true``."""


class PolicyInterviewer:
    """A query-selection policy on the engine's nodes, from ``start`` (default the root).

    Suggestions are cached per node state, so each state is scored once however many
    interviews pass through it (``cache=False`` scores every step, e.g. to time a step).
    """

    def __init__(self, model: Model, policy: Policy, start: Node | None = None,
                 cache: bool = True):
        self.model = model
        self.policy = policy
        self.start = start if start is not None else model.root()
        self._cache: dict[bytes, object] | None = {} if cache else None

    def run(self, answers: np.ndarray, rng: np.random.Generator) -> tuple[int, Node]:
        node = self.start
        k = 0
        while True:
            if self._cache is None:
                choice = self.policy.choose(node) or False
            else:
                key = node.key()
                choice = self._cache.get(key)
                if choice is None:
                    choice = self.policy.choose(node) or False
                    self._cache[key] = choice
            if choice is False:
                return k, node
            q = pick_query(choice, rng)
            node = node.child(q, bool(answers[q]))
            k += 1

    def correct(self, end: Node, true: int) -> bool:
        return ended_on_truth(self.model, end, true)


@dataclass(frozen=True)
class Outcome:
    """One simulated interview."""

    true: int
    answers: np.ndarray
    questions: int
    end: Any
    correct: bool


def simulate_interviews(victims: np.ndarray, answers: AnswerModel, interviewer: Interviewer,
                        streams: Streams, n_errors=None) -> list[Outcome]:
    """One interview per victim: draw its answers, let the interviewer ask, judge the end.

    ``n_errors`` (one entry per victim, None for the answer model's own draw) forces the
    number of wrong answers, to measure what happens past the budget.
    """
    plans = [None] * len(victims) if n_errors is None else n_errors
    out = []
    for true, n_err in zip(victims.tolist(), plans):
        row = answers.draw(true, streams.errors, n_err)
        k, end = interviewer.run(row, streams.picks)
        out.append(Outcome(true, row, k, end, interviewer.correct(end, true)))
    return out
