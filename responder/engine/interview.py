"""The one interview loop: ask, answer, until the interview stops.

Every simulated or replayed interview runs through :func:`run_interview`: the simulator's
per-trial interviewer, the evidence mode's comparisons, the expected questions left in an
interview in progress, and validation on case vignettes. What differs between them is the
position the loop walks (a :class:`Stepper`): an elimination node under a policy
(:class:`NodeStepper`), an evidence belief (:class:`BeliefStepper`), a whole
:class:`~responder.engine.state.InterviewState`, or one holding several victims of an
incident (:class:`IncidentStepper`).
(The batched simulator, :meth:`responder.engine.simulate.PolicyInterviewer.run_batch`,
advances many interviews in lock step for speed; the tests check it asks what this loop
asks.)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import numpy as np

from responder.engine.belief import Model, Node, NodeBatch
from responder.engine.evidence import Belief, EvidenceModel, next_query
from responder.engine.policies import Policy, choose_batch, pick_query
from responder.engine.state import Answer, InterviewState


class Stepper(Protocol):
    """A position in an interview: what to ask next, and the position after an answer."""

    def next_query(self, rng: np.random.Generator | None) -> int | None:
        """The query to ask now (drawn with ``rng`` where the responder picks); None once
        the interview stops."""

    def after(self, query: int, answer: Answer) -> Stepper:
        """The position once ``query`` is answered."""


def run_interview(
    start: Stepper,
    respond: Callable[[int], Answer | bool],
    rng: np.random.Generator | None = None,
    cap: int | None = None,
) -> tuple[list[tuple[int, Answer]], Stepper]:
    """Ask until the interview stops (or ``cap`` questions).

    Parameters
    ----------
    start : Stepper
    respond : callable
        The answer to a query: an :class:`Answer`, a bool (yes/no), or the (query, Answer)
        pairs one question enters (:meth:`responder.engine.state.ExclusiveGroups.one_question`:
        one key can settle an exclusive group).
    rng : Generator, optional
        Draws the responder's pick inside a suggested category.
    cap : int, optional
        At most this many questions.

    Returns
    -------
    asked : list of (query, Answer)
        One per question, in order: the query asked and its answer, or the value of its
        exclusive group the responder chose instead.
    end : Stepper
        The position where the interview stopped.
    """
    asked: list[tuple[int, Answer]] = []
    position = start
    while cap is None or len(asked) < cap:
        query = position.next_query(rng)
        if query is None:
            break
        entries = _entries(query, respond(query))
        for q, answer in entries:
            position = position.after(q, answer)
        asked.append(entries[0])
    return asked, position


def _entries(query: int, response) -> tuple[tuple[int, Answer], ...]:
    """A response as the (query, Answer) pairs it enters."""
    if isinstance(response, (bool, np.bool_)):
        return ((query, Answer.YES if response else Answer.NO),)
    if isinstance(response, Answer):
        return ((query, response),)
    return tuple(response)


class NodeStepper:
    """An elimination node under a policy (the paper's interviews). ``cache`` holds the
    policy's choice per node state, shared by every interview that passes through it
    (None: score every step)."""

    def __init__(self, node: Node, policy: Policy, cache: dict | None = None):
        self.node = node
        self.policy = policy
        self.cache = cache

    def next_query(self, rng):
        node = self.node
        if self.cache is None:
            choice = self.policy.choose(node)
        else:
            key = node.key()
            choice = self.cache.get(key)
            if choice is None:
                choice = self.policy.choose(node) or False
                self.cache[key] = choice
        if not choice:
            return None
        return pick_query(choice, rng)

    def after(self, query, answer):
        if answer is Answer.UNKNOWN:
            return NodeStepper(self.node.skip(query), self.policy, self.cache)
        return NodeStepper(self.node.child(query, answer is Answer.YES), self.policy, self.cache)


class BeliefStepper:
    """An evidence belief: the best symptom, or a pick inside the best category, until the
    stopping rule (:meth:`responder.engine.evidence.Belief.stop`)."""

    def __init__(
        self,
        belief: Belief,
        suggest: str = "symptom",
        pick: str = "informed",
        available: np.ndarray | None = None,
    ):
        self.belief = belief
        self.suggest = suggest
        self.pick = pick
        self.available = available

    @classmethod
    def root(cls, model: EvidenceModel, **kw) -> BeliefStepper:
        return cls(model.root(), **kw)

    def next_query(self, rng):
        if self.belief.stop(self.available).stopped:
            return None
        return next_query(self.belief, rng, self.suggest, self.pick, self.available)

    def after(self, query, answer):
        b = self.belief
        queries, values = b.queries, b.values
        if answer is not Answer.UNKNOWN:
            queries = np.append(queries, query)
            values = np.append(values, answer is Answer.YES)
        asked = b.asked.copy()
        asked[query] = True
        return BeliefStepper(
            b.model.pooled(queries, values, asked), self.suggest, self.pick, self.available
        )


def mean_interval(values: np.ndarray) -> tuple[float, tuple[float, float]]:
    """The mean of ``values`` and its normal 95% interval (mean +- 1.96 SE)."""
    values = np.asarray(values, dtype=float)
    mean = float(values.mean())
    if values.size < 2:
        return mean, (mean, mean)
    half = 1.959963984540054 * float(values.std(ddof=1)) / np.sqrt(values.size)
    return mean, (mean - half, mean + half)


def run_interview_batch(
    model: Model, policy: Policy, start_node: Node, answers: np.ndarray, uniforms: np.ndarray
) -> tuple[np.ndarray, NodeBatch]:
    """Run one interview per row of ``answers`` (T, N), all together.

    The interviews advance one question at a time in step. At each step the trials are
    grouped by the node they stand at (trials that gave the same answers to the same
    questions), the policy's choice is computed once per distinct node for all of them
    at once (:func:`responder.engine.policies.choose_batch`), and every trial draws its
    pick from its node's choice with its own uniform: the k-th question of interview t
    uses ``uniforms[t, k]`` (inverse CDF over the choice's ``probs``), so an interview
    depends on its own answers and uniforms only. Each interview asks what
    :func:`run_interview` with a :class:`NodeStepper` would ask with picks drawn from the same distribution.

    Returns the questions asked (T,) and the nodes where the interviews ended.
    """
    T, N = answers.shape
    start = NodeBatch.of(model, [start_node])
    rows0 = np.zeros(T, dtype=np.int64)
    end = start.take(rows0)  # every trial's state; rows of the active ones move on
    k = np.zeros(T, dtype=np.int64)
    active = np.arange(T)
    here = start.take(rows0)  # the active trials' nodes
    node = np.zeros(T, dtype=np.int64)  # which distinct node each active trial is at
    while active.size:
        _, rep, inverse = np.unique(node, return_index=True, return_inverse=True)
        resolved, probs = choose_batch(policy, here.take(rep))
        go = ~resolved[inverse]
        if not go.all():
            _store(end, active[~go], here.take(np.flatnonzero(~go)))
        active, inverse = active[go], inverse[go]
        if not active.size:
            break
        here = here.take(np.flatnonzero(go))
        q = draw_picks(probs[inverse], uniforms[active, k[active]])
        a = answers[active, q]
        here = here.children(q, a)
        k[active] += 1
        node = inverse * (2 * N) + 2 * q + a
    return k, end


def _store(into: NodeBatch, rows: np.ndarray, nodes: NodeBatch) -> None:
    into.cand[rows] = nodes.cand
    into.asked[rows] = nodes.asked
    if into.delta is not None:
        into.mass[rows] = nodes.mass
        into.delta[rows] = nodes.delta
        into.n_unanswered[rows] = nodes.n_unanswered


def draw_picks(probs: np.ndarray, uniforms: np.ndarray) -> np.ndarray:
    """One query per row of ``probs`` (R, N), drawn with that row's chances by inverse CDF
    from ``uniforms`` (R,) in [0, 1), shape (R,). A query of chance 0 is never drawn."""
    cdf = np.cumsum(probs, axis=1)
    q = (cdf <= (uniforms * cdf[:, -1])[:, None]).sum(axis=1)
    last = probs.shape[1] - 1 - np.argmax(probs[:, ::-1] > 0, axis=1)
    return np.minimum(q, last)  # u * total rounded up to the total


class IncidentStepper:
    """Several victims of one incident, asked as the app asks them: an
    :class:`~responder.engine.state.InterviewState` with one entry per victim, each question
    put to the victim :meth:`~responder.engine.state.InterviewState.victim_to_ask` names
    among those asked fewer than ``per_victim`` questions. A query is encoded
    ``victim * N + q``; queries answered once per incident (the scene) are the incident's
    whoever answers them. The state is changed in place.
    """

    def __init__(self, state: InterviewState, per_victim: int | None = None):
        self.state = state
        self.per_victim = per_victim
        self.count = [0] * state.n_victims

    def next_query(self, rng):
        st = self.state
        open_ = [
            v for v, k in enumerate(self.count) if self.per_victim is None or k < self.per_victim
        ]
        if not open_:
            return None
        v = st.victim_to_ask(open_)
        st.select_victim(v)
        q = st.next_query(rng)
        if q is None:
            return None
        self.count[v] += 1
        return v * st.problem.n_queries + q

    def after(self, query, answer):
        v, q = divmod(query, self.state.problem.n_queries)
        self.state.answer(q, answer, victim=v)
        return self
