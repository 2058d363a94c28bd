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

:func:`simulate_batch` (and :func:`simulate_interviews`, the same as a list) runs them with
three random streams (victims, answer errors, the responder's picks), so every interviewer
run with one seed meets the same victims with the same errors. A :class:`PolicyInterviewer`
runs its interviews together (:meth:`PolicyInterviewer.run_batch`): the policy's choice is
computed once per distinct node for all the trials standing there, and each interview draws
its picks from its own row of uniforms. :func:`responder.engine.evaluate.monte_carlo`
estimates E[K] with it; :func:`run_simulation` measures E[K] and how often the interview
ends on the true object, separately for interviews with at most eps errors and with more
(errors beyond eps are drawn when ``extra_errors`` > 0, to show what happens past the
budget).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Protocol

import numpy as np

from responder.engine.belief import Model, Node, NodeBatch
from responder.engine.interview import NodeStepper, run_interview, run_interview_batch
from responder.engine.noise import BinomialTable
from responder.engine.policies import Policy


@lru_cache(maxsize=256)
def error_count_distribution(n_prone: int, eps_eff: int, model: int, p: float) -> np.ndarray:
    """Pr(e errors) for e = 0..eps' under probability model 1 or 2 (Section 6), shape (eps'+1,).

    The normaliser is the engine's own (:meth:`responder.engine.noise.BinomialTable.error_counts`).
    Cached (read-only): every simulated victim of a model draws from the same distribution.
    """
    out = BinomialTable.for_counts(n_prone, eps_eff, 0.5 if model == 1 else p).error_counts()
    out.setflags(write=False)
    return out


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
    outcomes = simulate_interviews(
        victims, PersistentNoiseAnswers(model), interviewer, streams, n_errors=plans
    )
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


#: Largest matrix (objects x queries) whose interviews run together. A step scores its
#: distinct nodes on every object and query (one dense product), where the per-trial walk
#: scores only each node's remaining candidates; with many objects that wins. Measured (CPU,
#: 300 interviews): 3-7x faster batched at 300 x 80, 1.4-3x at 1,000 x 200, between 1.5x
#: slower (GISA, group target) and 1.4x faster at 3,000 x 300.
BATCH_MAX_CELLS = 500_000


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
    :func:`simulate_batch` runs noise-free interviews together (:meth:`run_batch`);
    ``batch=False`` keeps them one by one (:meth:`run`), the reference the tests compare with.
    """

    def __init__(
        self,
        model: Model,
        policy: Policy,
        start: Node | None = None,
        cache: bool = True,
        batch: bool = True,
    ):
        self.model = model
        self.policy = policy
        self.start = start if start is not None else model.root()
        self._cache: dict[bytes, object] | None = {} if cache else None
        self._batch = batch

    def run(self, answers: np.ndarray, rng: np.random.Generator) -> tuple[int, Node]:
        start = NodeStepper(self.start, self.policy, self._cache)
        asked, end = run_interview(start, lambda q: bool(answers[q]), rng)
        return len(asked), end.node

    def correct(self, end: Node, true: int) -> bool:
        return ended_on_truth(self.model, end, true)

    @property
    def batchable(self) -> bool:
        """Whether :meth:`run_batch` runs these interviews: the engine's own policy and
        interviewer (subclasses that change either run one by one), without noise or under
        noise for the object target."""
        return (
            self._batch
            and self._cache is not None
            and self.model.matrix.size <= BATCH_MAX_CELLS
            and (self.model.noise is None or self.model.singleton_target)
            and type(self) is PolicyInterviewer
            and type(self.policy).choose is Policy.choose
        )

    def run_batch(self, answers: np.ndarray, uniforms: np.ndarray) -> tuple[np.ndarray, NodeBatch]:
        """Run one interview per row of ``answers`` (T, N), all together
        (:func:`responder.engine.interview.run_interview_batch`); returns the questions
        asked (T,) and the nodes where the interviews ended."""
        return run_interview_batch(self.model, self.policy, self.start, answers, uniforms)


@dataclass(frozen=True)
class Outcome:
    """One simulated interview."""

    true: int
    answers: np.ndarray
    questions: int
    end: Any
    correct: bool


@dataclass(frozen=True)
class Interviews:
    """Simulated interviews as arrays, one entry per victim (:func:`simulate_batch`).

    ``outcomes()`` gives them as :class:`Outcome` objects, with their end nodes.
    """

    victims: np.ndarray
    answers: np.ndarray  # (T, N) bool
    questions: np.ndarray  # (T,) int
    correct: np.ndarray  # (T,) bool
    _ends: Any  # () -> list of end states

    def outcomes(self) -> list[Outcome]:
        return [
            Outcome(int(t), row, int(k), end, bool(ok))
            for t, row, k, end, ok in zip(
                self.victims.tolist(),
                self.answers,
                self.questions.tolist(),
                self._ends(),
                self.correct.tolist(),
            )
        ]


def simulate_batch(
    victims: np.ndarray,
    answers: AnswerModel,
    interviewer: Interviewer,
    streams: Streams,
    n_errors=None,
) -> Interviews:
    """One interview per victim: draw its answers, let the interviewer ask, judge the end.

    ``n_errors`` (one entry per victim, None for the answer model's own draw) forces the
    number of wrong answers, to measure what happens past the budget.

    The answers are drawn victim by victim from the errors stream, as always. A
    :class:`PolicyInterviewer` on a noise-free model then runs all the interviews together
    (:meth:`PolicyInterviewer.run_batch`), with one row of pick uniforms per interview from the
    picks stream; any other interviewer runs them one by one with the picks stream itself.
    Both draw each pick from the policy's choice at the node, so the interviews have the same
    distribution; single-query policies (no picks) ask exactly the same questions either way.
    """
    plans = [None] * len(victims) if n_errors is None else n_errors
    if (
        isinstance(answers, PersistentNoiseAnswers)
        and answers.model.noise is None
        and all(p is None for p in plans)
    ):
        rows = answers.model.matrix[victims]  # no errors to draw: the true rows
    else:
        rows = np.array(
            [
                answers.draw(true, streams.errors, n_err)
                for true, n_err in zip(victims.tolist(), plans)
            ]
        )
    if isinstance(interviewer, PolicyInterviewer) and interviewer.batchable and len(victims):
        model = interviewer.model
        uniforms = streams.picks.random(rows.shape)
        k, end = interviewer.run_batch(rows, uniforms)
        correct = ended_on_truth_batch(model, end.cand, victims)

        def ends():
            out = []
            for d in range(len(victims)):
                idx = np.flatnonzero(end.cand[d])
                if end.delta is None:
                    out.append(Node(model, idx, model.problem.prior[idx], end.asked[d].copy()))
                else:
                    out.append(
                        Node(
                            model,
                            idx,
                            end.mass[d, idx],
                            end.asked[d].copy(),
                            end.delta[d, idx],
                            int(end.n_unanswered[d]),
                        )
                    )
            return out

        return Interviews(victims, rows, k, correct, ends)
    runs = [interviewer.run(row, streams.picks) for row in rows]
    k = np.array([r[0] for r in runs], dtype=np.int64)
    correct = np.array(
        [interviewer.correct(r[1], t) for r, t in zip(runs, victims.tolist())], dtype=bool
    )
    return Interviews(victims, rows, k, correct, lambda: [r[1] for r in runs])


def simulate_interviews(
    victims: np.ndarray,
    answers: AnswerModel,
    interviewer: Interviewer,
    streams: Streams,
    n_errors=None,
) -> list[Outcome]:
    """:func:`simulate_batch` as a list of :class:`Outcome` (with the end nodes)."""
    return simulate_batch(victims, answers, interviewer, streams, n_errors).outcomes()


def ended_on_truth_batch(model: Model, cand: np.ndarray, victims: np.ndarray) -> np.ndarray:
    """:func:`ended_on_truth` for T interviews that ended with candidates ``cand`` (T, M),
    shape (T,) bool."""
    if model.target == "group":
        groups = model.problem.object_groups
        other = groups[None, :] != groups[victims][:, None]
        return cand.any(axis=1) & ~(cand & other).any(axis=1)
    rows = np.arange(victims.size)
    return cand[rows, victims] & ~(cand & ~model.twins[victims]).any(axis=1)
