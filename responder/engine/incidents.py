"""Simulated incidents with several victims of one agent, interviewed together as the app
interviews them, and the questions an interview in progress may still take.

Each incident draws its agent from the prior the target ranks under
(:meth:`~responder.engine.problem.Problem.ranking_prior`), then ``victims`` victims who each
show each observation with the probability the evidence model gives it for that agent (its graded
likelihood, :attr:`responder.engine.evidence.EvidenceModel.likelihood`). In a category of
alternatives (:attr:`responder.engine.problem.Problem.alternatives`: one place, one smell,
one onset) they show one observation when the agent's row lists any of the category: a
listed one in proportion to those probabilities, or, with the answer model's leak, one the
row does not list. Observations answered once per incident (the scene)
are drawn once and shared. Optionally the scene step comes first: every scene observation
drawn yes is ticked before any question, as on the app's scene pages (the others stay open to
be asked). The interview is the app's own (:class:`responder.engine.interview.IncidentStepper`
on an :class:`~responder.engine.state.InterviewState`, a question on an exclusive group
answered in one key) until the evidence mode stops, or each victim has been asked
``per_victim`` questions, pooling every answer into one posterior. For the simulator with one
victim and the paper's answer models see :mod:`responder.engine.simulate` and
:mod:`responder.engine.compare`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from responder.engine.compare import wilson
from responder.engine.evidence import EvidenceModel
from responder.engine.interview import IncidentStepper, mean_interval, run_interview
from responder.engine.state import Answer, ExclusiveGroups, InterviewState


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
    model: EvidenceModel,
    agent: int,
    victims: int,
    shared: np.ndarray,
    rng: np.random.Generator,
    chances: np.ndarray | None = None,
) -> np.ndarray:
    """Each victim's answer to every query, shape (victims, N), bool: yes with the agent's
    likelihood (or ``chances``, shape (N,), e.g. one presentation's), or one observation per
    category of alternatives (in proportion to it, where the agent's row lists any); queries
    in ``shared`` (N,) answered once for all."""
    p = model.likelihood[agent] if chances is None else chances
    answers = rng.random((victims, p.size)) < p[None, :]
    row = model.problem.matrix[agent]
    for members in model.problem.alternative_categories():
        answers[:, members] = False
        listed = row[members]
        if not listed.any():
            continue
        # one listed observation in proportion to its chance, or with the leak's chance
        # one the row does not list (not the sum of every unlisted one's leak)
        weights = np.where(listed, p[members] / p[members][listed].sum(), 0.0)
        if not listed.all():
            weights *= 1.0 - model.answers.leak
            weights[~listed] = model.answers.leak / (~listed).sum()
        picks = rng.choice(members, size=victims, p=weights)
        answers[np.arange(victims), picks] = True
    answers[:, shared] = answers[0, shared]
    return answers


def simulate_incidents(
    new_state: Callable[[], InterviewState],
    victims: int,
    incidents: int,
    groups: ExclusiveGroups | None = None,
    scene: np.ndarray | None = None,
    per_victim: int | None = None,
    seed: int | None = None,
) -> IncidentSummary:
    """Simulate ``incidents`` incidents of ``victims`` victims of one agent each (the agent
    drawn from the prior) and interview them together; see the module docstring.

    Parameters
    ----------
    new_state : callable
        A fresh interview state in evidence mode (its model draws the victims; its shared
        queries are the incident's).
    groups : ExclusiveGroups, optional
        Exclusive groups, each asked as one question.
    scene : ndarray of shape (N,), bool, optional
        Queries ticked on the scene step first (not counted as questions).
    per_victim : int, optional
        At most this many questions per victim.
    """
    groups = groups or ExclusiveGroups()
    probe = new_state()
    model, problem = probe.model, probe.problem
    if not isinstance(model, EvidenceModel):
        raise ValueError("simulated incidents need an interview state in evidence mode")
    N = problem.n_queries
    shared = probe.shared
    scene = np.zeros(N, dtype=bool) if scene is None else np.asarray(scene, bool)
    rng = np.random.default_rng(seed)
    agents = rng.choice(problem.n_objects, size=incidents, p=problem.ranking_prior(probe.target))
    top1 = top5 = class_top1 = 0
    questions = np.empty(incidents)
    for k, agent in enumerate(agents.tolist()):
        answers = draw_incident_answers(model, agent, victims, shared, rng)
        state = _after_scene(new_state(), answers, victims, scene)
        asked, _ = run_interview(
            IncidentStepper(state, per_victim), _responder(state, answers, groups), rng
        )
        questions[k] = len(asked) / victims
        order, _ = state.belief.candidate_probabilities()
        rank = int(np.flatnonzero(order == model.row_groups[agent])[0])
        top1 += rank == 0
        top5 += rank < 5
        if problem.object_groups is not None:
            class_top1 += int(
                np.argmax(state.group_probabilities()) == problem.object_groups[agent]
            )
    n = incidents
    return IncidentSummary(
        victims,
        n,
        (top1 / n, wilson(top1, n)),
        (top5 / n, wilson(top5, n)),
        (class_top1 / n, wilson(class_top1, n)),
        mean_interval(questions),
    )


def expected_questions_left(
    state: InterviewState,
    groups: ExclusiveGroups | None = None,
    trials: int = 200,
    seed: int = 0,
) -> tuple[float, tuple[float, float]]:
    """Expected questions still to ask the current victim of ``state`` (evidence mode), by
    Monte Carlo, with a 95% interval: the app's own interview run on.

    Each trial draws the agent from the posterior (with the textbook presentation, also how
    the victim presents, given the agent and the answers so far) and the victim's answers to
    the rest from the answer model, one observation per category of alternatives
    (:func:`draw_incident_answers`); then a :meth:`~InterviewState.fork` of the state asks
    as the app does (exclusive groups in one question, nothing implied or settled asked)
    until it stops. Answers already given stay as they are.
    """
    belief = state.belief
    if not belief.fits:
        return 0.0, (0.0, 0.0)
    model, posterior = belief.model, belief.posterior
    groups = groups or ExclusiveGroups()
    shared = state.shared
    rng = np.random.default_rng(seed)
    counts = np.empty(trials)
    for t in range(trials):
        agent = int(rng.choice(posterior.size, p=posterior))
        chances = None
        if belief.presentation is not None:
            k = int(rng.choice(belief.presentation.shape[0], p=belief.presentation[:, agent]))
            chances = model.components[k][agent]
        answers = draw_incident_answers(model, agent, 1, shared, rng, chances)[0]
        trial = state.fork()

        def answer_of(m: int, answers=answers) -> Answer:
            return Answer.YES if answers[m] else Answer.NO

        asked, _ = run_interview(trial, groups.respond_to(trial, answer_of), rng)
        counts[t] = len(asked)
    return mean_interval(counts)


def _after_scene(state: InterviewState, answers, victims: int, scene) -> InterviewState:
    """The state with ``victims`` victims once the scene step is done: every scene
    observation a victim shows ticked yes (the incident's once)."""
    for _ in range(victims - 1):
        state.add_victim()
    for q in np.flatnonzero(scene).tolist():
        for v in range(victims if not state.is_shared(q) else 1):
            if answers[v, q]:
                state.answer(q, Answer.YES, victim=v)
    state.select_victim(0)
    return state


def _responder(state: InterviewState, answers: np.ndarray, groups: ExclusiveGroups):
    """Victim v's answer to code v * N + q, an exclusive group in one key."""
    N = answers.shape[1]

    def respond(code: int):
        v, q = divmod(code, N)
        victim = groups.respond_to(state, lambda m: Answer.YES if answers[v, m] else Answer.NO, v)
        return tuple((v * N + m, a) for m, a in victim(q))

    return respond
