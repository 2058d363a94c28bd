"""Simulated incidents with several victims of one agent, interviewed together.

Each incident draws its agent from the prior, then ``victims`` victims who each show each
observation with the probability the evidence model gives it for that agent (its graded
likelihood, :attr:`responder.engine.evidence.EvidenceModel.likelihood`); observations
answered once per incident (the scene) are drawn once and shared. Optionally the scene step
comes first: every scene observation is answered from the draw before any question (one
page per scene category in the app). The interview then asks the victims in turn
(:class:`responder.engine.interview.PooledStepper`) until the evidence mode stops, or each
victim has been asked ``per_victim`` questions, pooling every answer into one posterior. For the simulator with one victim and the
paper's answer models see :mod:`responder.engine.simulate` and :mod:`responder.engine.compare`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from responder.engine.compare import wilson
from responder.engine.evidence import EvidenceModel
from responder.engine.interview import PooledStepper, mean_interval, run_interview


@dataclass(frozen=True)
class IncidentSummary:
    """Figures over ``incidents`` simulated incidents of ``victims`` victims each.

    ``top1``, ``top5`` and ``class_top1`` are shares of incidents with (share, 95% Wilson
    interval); ``questions_per_victim`` the mean questions asked divided by the victims,
    with its 95% interval.
    """

    victims: int
    incidents: int
    top1: tuple[float, tuple[float, float]]
    top5: tuple[float, tuple[float, float]]
    class_top1: tuple[float, tuple[float, float]]
    questions_per_victim: tuple[float, tuple[float, float]]

    def as_dict(self) -> dict:
        def share(x):
            return {"share": x[0], "ci95": list(x[1])}

        return {
            "victims": self.victims,
            "incidents": self.incidents,
            "top1": share(self.top1),
            "top5": share(self.top5),
            "class_top1": share(self.class_top1),
            "questions_per_victim": {
                "mean": self.questions_per_victim[0],
                "ci95": list(self.questions_per_victim[1]),
            },
        }


def draw_incident_answers(
    model: EvidenceModel, agent: int, victims: int, shared: np.ndarray, rng: np.random.Generator
) -> np.ndarray:
    """Each victim's answer to every query, shape (victims, N), bool: yes with the agent's
    likelihood; queries in ``shared`` (N,) answered once for all."""
    p = model.likelihood[agent]
    answers = rng.random((victims, p.size)) < p[None, :]
    answers[:, shared] = answers[0, shared]
    return answers


def simulate_incidents(
    model: EvidenceModel,
    victims: int,
    incidents: int,
    shared: np.ndarray | None = None,
    scene: np.ndarray | None = None,
    per_victim: int | None = None,
    seed: int | None = None,
) -> IncidentSummary:
    """Simulate ``incidents`` incidents of ``victims`` victims of one agent each (the agent
    drawn from the prior) and interview them together; see the module docstring.

    Parameters
    ----------
    shared, scene : ndarray of shape (N,), bool, optional
        Queries answered once per incident; queries answered in the scene step first
        (not counted as questions).
    per_victim : int, optional
        At most this many questions per victim (all victims together: ``per_victim *
        victims``).
    """
    problem = model.problem
    N = problem.n_queries
    shared = np.zeros(N, dtype=bool) if shared is None else np.asarray(shared, bool)
    scene = np.zeros(N, dtype=bool) if scene is None else np.asarray(scene, bool)
    rng = np.random.default_rng(seed)
    agents = rng.choice(problem.n_objects, size=incidents, p=problem.prior)
    top1 = top5 = class_top1 = 0
    questions = np.empty(incidents)
    cap = None if per_victim is None else per_victim * victims
    for k, agent in enumerate(agents.tolist()):
        answers = draw_incident_answers(model, agent, victims, shared, rng)
        start = _after_scene(model, answers, victims, shared, scene)
        asked, end = run_interview(
            start, lambda code, a=answers: bool(a[divmod(code, N)]), rng, cap=cap
        )
        questions[k] = len(asked) / victims
        order, _ = end.belief.candidate_probabilities()
        rank = int(np.flatnonzero(order == model.row_groups[agent])[0])
        top1 += rank == 0
        top5 += rank < 5
        if problem.object_groups is not None:
            groups = end.belief.group_probabilities()
            class_top1 += int(np.argmax(groups) == problem.object_groups[agent])
    n = incidents
    return IncidentSummary(
        victims,
        n,
        (top1 / n, wilson(top1, n)),
        (top5 / n, wilson(top5, n)),
        (class_top1 / n, wilson(class_top1, n)),
        mean_interval(questions),
    )


def _after_scene(model, answers, victims, shared, scene) -> PooledStepper:
    """The interview once the scene step is answered: the incident's scene observations
    once, each victim's own (onset, route) per victim."""
    start = PooledStepper(model.root(), victims, shared)
    if not scene.any():
        return start
    once, each = np.flatnonzero(scene & shared), np.flatnonzero(scene & ~shared)
    queries = np.concatenate([once, np.tile(each, victims)])
    values = np.concatenate([answers[0, once], answers[:, each].reshape(-1)])
    start.asked[:, scene] = True
    start.belief = model.pooled(queries, values, np.zeros(scene.size, dtype=bool))
    return start
