"""How long a noisy evaluation or simulation will take, estimated before it starts.

Under persistent noise the exact tree grows with every tolerated error: a path that asks L
questions of object i can meet any of the sum_{e <= eps'} C(L, e) error patterns, and each
one ends in its own leaf. On 1000 x 200 with eps = 33 that is beyond any computer, and
Monte Carlo interviews grow long too (about 100 questions each). So the commands measure a
few interviews first (:func:`measure_interviews`) and turn the figures into time estimates
(:class:`Workload`), to refuse or cap with a message instead of running for hours.

Measuring itself is bounded: an interview still running when the budget is spent is cut
short and its length bounded from below (:func:`min_questions`), and on a large matrix one
step is first timed on a sample of the rows, so that no single step can outlast the budget
(on 10,000 x 500 under noise one step takes about 0.4 s). Memory is estimated from the
matrix's size (:func:`run_bytes`), from figures measured per cell.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from responder.engine.belief import Model, Node
from responder.engine.diagnostics import hamming_scan, known_delta, remember_delta
from responder.engine.noise import log_binomial_coefficients
from responder.engine.policies import Policy
from responder.engine.simulate import (
    PersistentNoiseAnswers,
    PolicyInterviewer,
    draw_victims,
    random_streams,
)


@dataclass(frozen=True)
class Workload:
    """Measured cost of simulated interviews on one model and policy.

    Attributes
    ----------
    seconds_per_interview : float
        Mean CPU time of one simulated interview.
    mean_questions : float
        Mean number of questions per interview (L).
    interviews : int
        How many were measured in full (0 when even the first was cut short).
    n_objects : int
    eps_eff : int
        eps' of the noise model (0 without noise).
    complete : bool
        False when the figures are a lower bound: an interview was cut short when the
        measuring budget ran out (its length is then at least what it had asked, and at
        least what identification needs), or a step was timed on a sample of the rows and
        scaled up because one full step alone would outlast the budget.
    """

    seconds_per_interview: float
    mean_questions: float
    interviews: int
    n_objects: int
    eps_eff: int
    complete: bool = True

    @property
    def seconds_per_node(self) -> float:
        """Time of one tree node (one split and choice), from the interviews' steps."""
        return self.seconds_per_interview / max(self.mean_questions, 1.0)

    def exact_tree_nodes(self) -> float:
        """Estimated nodes of the exact tree: 2 M sum_{e <= eps'} C(L, e) (one leaf per
        object and error pattern along a typical path of L questions; a binary tree has
        about twice as many nodes as leaves)."""
        length = max(int(round(self.mean_questions)), 1)
        log_c = log_binomial_coefficients(length, self.eps_eff)
        log_leaves = math.log(self.n_objects) + float(np.logaddexp.reduce(log_c))
        return 2.0 * math.exp(min(log_leaves, 700.0))

    def exact_seconds(self) -> float:
        return self.exact_tree_nodes() * self.seconds_per_node

    def interviews_seconds(self, n: int) -> float:
        return n * self.seconds_per_interview


#: A model with more cells than this has its step timed first on a sample of its rows, so
#: that measuring never starts a step that alone would outlast the budget.
CALIBRATION_CELLS = 200_000


class _OutOfTime(Exception):  # noqa: N818 (control flow, not an error)
    pass


class _TimedAnswers:
    """A victim's answers that stop the interview once the measuring budget is spent.

    Every interviewer reads the answer to each question it asks (``answers[q]``), right
    after choosing it; that is where the budget is checked.
    """

    def __init__(self, answers: np.ndarray, deadline: float):
        self.answers = answers
        self.deadline = deadline
        self.asked = 0

    def __getitem__(self, query):
        if time.process_time() > self.deadline:
            raise _OutOfTime
        self.asked += 1
        return self.answers[query]


def min_questions(model: Model) -> int:
    """A lower bound on an interview's length: identifying one of T targets takes at least
    log2(T) yes/no answers, and under noise every other candidate must be contradicted by
    more than eps' answers."""
    targets = max(int(model.n_target), 1)
    bound = math.ceil(math.log2(targets)) if targets > 1 else 0
    if model.noise is not None and targets > 1:
        bound = max(bound, model.noise.eps_eff + 1)
    return max(bound, 1)


def measure_interviewer(
    interviewer,
    answers,
    start: Node,
    *,
    seed: int | None = 0,
    budget_seconds: float = 0.5,
    max_interviews: int = 10,
    n_objects: int,
    eps_eff: int = 0,
    least_questions: int = 1,
) -> Workload:
    """Run ``interviewer`` (any of the simulator's: :meth:`run(answers, rng)`) on victims
    drawn from ``start`` with ``answers`` (an answer model) for at most ``budget_seconds``
    of CPU time (at least one question, at most ``max_interviews`` interviews).

    An interview still running when the budget is spent is cut short: the cost per
    question measured so far is then multiplied by a lower bound on its length (what it
    had asked, ``least_questions``, the completed interviews' mean), and the result is
    marked incomplete. Times are this process's CPU time, so that a busy machine does not
    inflate the estimate.
    """
    streams = random_streams(seed)
    lengths: list[int] = []
    cut: int | None = None
    begin = time.process_time()
    deadline = begin + budget_seconds
    while len(lengths) < max_interviews:
        true = int(draw_victims(start, 1, streams.victims)[0])
        timed = _TimedAnswers(answers.draw(true, streams.errors), deadline)
        try:
            k, _ = interviewer.run(timed, streams.picks)
        except _OutOfTime:
            cut = timed.asked
            break
        lengths.append(k)
        if time.process_time() >= deadline:
            break
    elapsed = time.process_time() - begin
    if cut is None:
        return Workload(
            seconds_per_interview=elapsed / len(lengths),
            mean_questions=float(np.mean(lengths)),
            interviews=len(lengths),
            n_objects=n_objects,
            eps_eff=eps_eff,
        )
    # every interview chooses once per question, and once more to find it is done
    choices = sum(lengths) + len(lengths) + cut + 1
    per_question = elapsed / choices
    length = max(cut + 1, least_questions, float(np.mean(lengths)) if lengths else 0.0)
    return Workload(
        seconds_per_interview=per_question * length,
        mean_questions=float(length),
        interviews=len(lengths),
        n_objects=n_objects,
        eps_eff=eps_eff,
        complete=False,
    )


def sampled_step_seconds(model: Model, policy: Policy, seed: int | None = 0) -> float | None:
    """CPU seconds of one full-size interview step, estimated from the first step on a
    sample of :data:`CALIBRATION_CELLS` cells' worth of rows (a step's work grows with
    candidates x queries); None for a model small enough to measure directly."""
    problem = model.problem
    cells = problem.n_objects * problem.n_queries
    if cells <= CALIBRATION_CELLS:
        return None
    rows = max(2, CALIBRATION_CELLS // problem.n_queries)
    pick = np.sort(np.random.default_rng(seed).choice(problem.n_objects, rows, replace=False))
    sample = Model(problem.subset(objects=pick), model.target, model.noise)
    begin = time.process_time()
    policy.choose(sample.root())
    return (time.process_time() - begin) * problem.n_objects / rows


def measure_interviews(
    model: Model,
    policy: Policy,
    seed: int | None = 0,
    budget_seconds: float = 0.5,
    max_interviews: int = 10,
) -> Workload:
    """The cost of ``policy``'s simulated interviews on ``model`` (noisy answers as the
    model's noise draws them), within ``budget_seconds`` of CPU time
    (:func:`measure_policy_interviews`). No suggestion cache: every step is scored, as it
    would be in a tree node."""
    root = model.root()
    return measure_policy_interviews(
        PolicyInterviewer(model, policy, start=root, cache=False),
        PersistentNoiseAnswers(model),
        root,
        seed=seed,
        budget_seconds=budget_seconds,
        max_interviews=max_interviews,
    )


def measure_policy_interviews(
    interviewer,
    answers,
    start: Node,
    seed: int | None = 0,
    budget_seconds: float = 0.5,
    max_interviews: int = 10,
) -> Workload:
    """:func:`measure_interviewer` for an interviewer with a ``model`` and a ``policy``
    (:class:`~responder.engine.simulate.PolicyInterviewer` and its subclasses).

    On a large model one step is first timed on a sample of the rows
    (:func:`sampled_step_seconds`); when one full step would take more than a quarter of
    the budget, the estimate is that step times :func:`min_questions`, marked incomplete,
    and no full-size step is run.
    """
    model = interviewer.model
    least = min_questions(model)
    eps_eff = 0 if model.noise is None else model.noise.eps_eff
    step = sampled_step_seconds(model, interviewer.policy, seed)
    if step is not None and step > budget_seconds / 4:
        return Workload(
            seconds_per_interview=step * least,
            mean_questions=float(least),
            interviews=0,
            n_objects=model.problem.n_objects,
            eps_eff=eps_eff,
            complete=False,
        )
    return measure_interviewer(
        interviewer,
        answers,
        start,
        seed=seed,
        budget_seconds=budget_seconds,
        max_interviews=max_interviews,
        n_objects=model.problem.n_objects,
        eps_eff=eps_eff,
        least_questions=least,
    )


# -- delta ---------------------------------------------------------------------------------


class DeltaTooSlow(Exception):  # noqa: N818 (a refusal, not a bug)
    """Computing delta would take longer than allowed; ``seconds`` is the estimate."""

    def __init__(self, seconds: float):
        super().__init__(f"estimated {seconds:.0f} s")
        self.seconds = seconds


def min_hamming_within(matrix, budget_seconds: float, block: int = 1024) -> int:
    """:func:`~responder.engine.diagnostics.min_hamming_distance` within ``budget_seconds``
    of CPU time: after the first block the whole is estimated from it, and
    :class:`DeltaTooSlow` raised if it would take longer. The result is remembered, so the
    noise options' own call costs nothing."""
    delta = known_delta(matrix)
    if delta is not None:
        return delta
    begin = time.process_time()
    best = 0
    for best, done in hamming_scan(matrix, block):  # noqa: B007 (the last one is delta)
        if done < 1.0:
            estimate = (time.process_time() - begin) / done
            if estimate > budget_seconds:
                raise DeltaTooSlow(estimate)
    remember_delta(matrix, best)
    return best


# -- memory ----------------------------------------------------------------------------------

MiB = 1024 * 1024
#: Default ``--memory-limit``: runs estimated to need more are refused up front.
DEFAULT_MEMORY_LIMIT_MB = 1024
#: The interpreter, numpy, the command's modules and a knowledge base, before any matrix.
BASE_BYTES = 100 * MiB
#: Bytes per matrix cell, measured with tracemalloc on random matrices (1,000-4,000 rows,
#: 200-400 queries; tests/engine/test_workload.py checks that the estimates cover what
#: the engine allocates): a Model's float copy of the matrix; an evidence model's
#: likelihood tables and its interviews' working arrays; one step under persistent noise (child masses, binomial terms and
#: the policy's scores, (candidates x queries) float arrays each); one noise-free step.
MODEL_BYTES_PER_CELL = 8
EVIDENCE_BYTES_PER_CELL = 58
NOISE_STEP_BYTES_PER_CELL = 96
STEP_BYTES_PER_CELL = 4
#: Interviews run together (:meth:`PolicyInterviewer.run_batch`) hold per interview about
#: this many bytes per cell, on top of BATCH_BYTES_PER_CELL.
BATCH_BYTES_PER_CELL_PER_INTERVIEW = 0.7
BATCH_BYTES_PER_CELL = 40
#: Noise-free Monte Carlo holds per interview about this many bytes per query and per
#: object (peak RSS of ``eval --method monte-carlo`` at 10,000 and 40,000 trials on random
#: 1000 x 200, 2000 x 100 and 300 x 600 matrices and the bundled 274 x 151: 5.8-18.3 KB
#: per interview, each under 32 n + 8 m).
MONTE_CARLO_BYTES_PER_QUERY = 32
MONTE_CARLO_BYTES_PER_OBJECT = 8


def run_bytes(
    n_objects: int,
    n_queries: int,
    *,
    models: int = 1,
    evidence: int = 0,
    noise: bool = False,
    batch: int = 0,
) -> int:
    """Estimated peak memory of a run, in bytes: :data:`BASE_BYTES`, the matrix, ``models``
    engine models and ``evidence`` evidence models held together, and the largest step:
    under ``noise`` (one interview at a time), or ``batch`` interviews run together."""
    cells = n_objects * n_queries
    held = cells * (1 + MODEL_BYTES_PER_CELL * models + EVIDENCE_BYTES_PER_CELL * evidence)
    if batch:
        step = BATCH_BYTES_PER_CELL + BATCH_BYTES_PER_CELL_PER_INTERVIEW * batch
    else:
        step = NOISE_STEP_BYTES_PER_CELL if noise else STEP_BYTES_PER_CELL
    return int(BASE_BYTES + held + cells * step)


def monte_carlo_bytes(n_objects: int, n_queries: int, trials: int) -> int:
    """Estimated peak memory, in bytes, of a noise-free Monte Carlo evaluation of
    ``trials`` interviews (they run together and keep every interview's path)."""
    per_interview = (
        MONTE_CARLO_BYTES_PER_QUERY * n_queries + MONTE_CARLO_BYTES_PER_OBJECT * n_objects
    )
    return run_bytes(n_objects, n_queries) + trials * per_interview


def size_text(n_bytes: float) -> str:
    """``"850 MB"``, ``"2.4 GB"``."""
    if n_bytes < 1000 * MiB:
        return f"{n_bytes / MiB:.0f} MB"
    return f"{n_bytes / (1024 * MiB):.1f} GB"


def duration_text(seconds: float) -> str:
    """``"40 s"``, ``"2.5 min"``, ``"12 min"``, ``"3.2 h"``, ``"12 days"``, ``"more than a million years"``."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 600:
        return f"{seconds / 60:.1f} min"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    if seconds < 48 * 3600:
        return f"{seconds / 3600:.1f} h"
    days = seconds / 86400
    if days < 2 * 365:
        return f"{days:.0f} days"
    years = days / 365
    if years < 1e6:
        return f"{years:,.0f} years"
    return "more than a million years"
