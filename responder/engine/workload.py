"""How long a noisy evaluation or simulation will take, estimated before it starts.

Under persistent noise the exact tree grows with every tolerated error: a path that asks L
questions of object i can meet any of the sum_{e <= eps'} C(L, e) error patterns, and each
one ends in its own leaf. On 1000 x 200 with eps = 33 that is beyond any computer, and
Monte Carlo interviews grow long too (about 100 questions each). So the commands measure a
few interviews first (:func:`measure_interviews`) and turn the figures into time estimates
(:class:`Workload`), to refuse or cap with a message instead of running for hours.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from responder.engine.belief import Model
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
        Mean wall time of one simulated interview.
    mean_questions : float
        Mean number of questions per interview (L).
    interviews : int
        How many were measured.
    n_objects : int
    eps_eff : int
        eps' of the noise model (0 without noise).
    """

    seconds_per_interview: float
    mean_questions: float
    interviews: int
    n_objects: int
    eps_eff: int

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


def measure_interviews(
    model: Model,
    policy: Policy,
    seed: int | None = 0,
    budget_seconds: float = 0.5,
    max_interviews: int = 10,
) -> Workload:
    """Run simulated interviews until ``budget_seconds`` have passed (at least one, at most
    ``max_interviews``) and return their mean cost. One interview that alone takes longer
    than the budget is still measured in full: its time is the estimate.

    Times are this process's CPU time, not wall time, so that a busy machine does not
    inflate the estimate (the engine runs on one core).
    """
    streams = random_streams(seed)
    root = model.root()
    # No suggestion cache: every step is scored, as it would be in a tree node.
    interviewer = PolicyInterviewer(model, policy, start=root, cache=False)
    answers = PersistentNoiseAnswers(model)
    lengths: list[int] = []
    start = time.process_time()
    while len(lengths) < max_interviews:
        true = int(draw_victims(root, 1, streams.victims)[0])
        k, _ = interviewer.run(answers.draw(true, streams.errors), streams.picks)
        lengths.append(k)
        if time.process_time() - start >= budget_seconds:
            break
    elapsed = time.process_time() - start
    noise = model.noise
    return Workload(
        seconds_per_interview=elapsed / len(lengths),
        mean_questions=float(np.mean(lengths)),
        interviews=len(lengths),
        n_objects=model.problem.n_objects,
        eps_eff=0 if noise is None else noise.eps_eff,
    )


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
