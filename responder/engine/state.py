"""An interview in progress: answers so far, candidates, suggestion and status.

Answers may come in any order (a victim volunteers a symptom), be changed or undone, and the
target, policy and noise settings may change mid-interview; the candidates are always
recomputed from the full answer list, so nothing the responder entered is lost.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from enum import Enum

import numpy as np

from responder.engine.belief import Model, Node
from responder.engine.history import AnswerHistory
from responder.engine.noise import NoiseModel
from responder.engine.policies import Choice, Policy
from responder.engine.problem import Problem


class Answer(str, Enum):
    """A responder's answer to one query."""

    YES = "yes"
    NO = "no"
    UNKNOWN = "unknown"  # "can't tell": the query is spent, nobody is eliminated


class Status(str, Enum):
    ASKING = "asking"  # more than one target group possible and some query splits them
    IDENTIFIED = "identified"  # one object (or one group) left
    INDISTINGUISHABLE = "indistinguishable"  # several left that no query can separate
    INCONSISTENT = "inconsistent"  # no candidate fits the answers (within eps under noise)


@dataclass(frozen=True)
class AnswerRecord:
    query: int
    answer: Answer
    at: float = field(default_factory=time.time)
    volunteered: bool = False


@dataclass(frozen=True)
class Candidate:
    """Objects still possible that no query separates, with their combined probability.

    Attributes
    ----------
    objects : tuple of int
        One object, or several with identical rows (reported together, never one picked).
    probability : float
        Their share of the remaining mass.
    mismatches : int
        Answers the objects contradict (0 without noise; up to eps under noise).
    """

    objects: tuple[int, ...]
    probability: float
    mismatches: int


class InterviewState:
    """Answers and derived state of one interview.

    Parameters
    ----------
    problem : Problem
    target : {"object", "group"}
    policy : str
        A policy name from :data:`responder.engine.policies.POLICIES` (not random).
    noise : NoiseModel or None
    ties : {"first", "random"}
    seed : int or None
    """

    def __init__(
        self,
        problem: Problem,
        target: str = "object",
        policy: str = "gbs",
        noise: NoiseModel | None = None,
        ties: str = "first",
        seed: int | None = None,
    ):
        self.problem = problem
        self._history: AnswerHistory[AnswerRecord] = AnswerHistory(key=lambda r: r.query)
        self._ties, self._seed = ties, seed
        self.configure(target=target, policy=policy, noise=noise)

    # -- settings ----------------------------------------------------------------------------

    def configure(self, target: str | None = None, policy: str | None = None, noise="keep"):
        """Change target, policy or noise (``None`` turns noise off); answers are kept."""
        target = target or getattr(self, "target", "object")
        policy_name = policy or getattr(self, "policy", None) and self.policy.name or "gbs"
        noise = self.noise if noise == "keep" else noise
        model = Model(self.problem, target, noise)
        pol = Policy(policy_name, ties=self._ties, seed=self._seed)
        pol.check(self.problem)
        self.model, self.policy, self.target, self.noise = model, pol, target, noise
        self._invalidate()

    def _invalidate(self) -> None:
        self._node: Node | None = None
        self._choice: Choice | None | bool = False

    # -- answers -----------------------------------------------------------------------------

    @property
    def answers(self) -> list[AnswerRecord]:
        """The answers in the order given (a changed answer moves to the end)."""
        return self._history.records

    def answer(self, query: int, answer: Answer | str, volunteered: bool = False) -> None:
        """Record ``answer`` to ``query``; an earlier answer to the same query is replaced."""
        answer = Answer(answer)
        if not 0 <= query < self.problem.n_queries:
            raise IndexError(f"query {query} is out of range")
        self._history.add(AnswerRecord(query, answer, volunteered=volunteered))
        self._invalidate()

    def undo(self) -> AnswerRecord | None:
        """Remove the last answer; returns it (None if there was none).

        If that answer changed an earlier answer to the same query, the earlier answer is
        put back where it was, so undo restores the previous state exactly.
        """
        record = self._history.undo()
        if record is not None:
            self._invalidate()
        return record

    def remove(self, query: int) -> AnswerRecord | None:
        """Remove the answer to ``query`` wherever it is in the history."""
        record = self._history.remove(query)
        if record is not None:
            self._invalidate()
        return record

    def restore(
        self,
        records: list[AnswerRecord],
        replaced: list[tuple[AnswerRecord, int, AnswerRecord]] | None = None,
    ) -> None:
        """Replace the whole history (resume from a journal).

        ``replaced`` lists (new record, position, record it replaced) for answers that changed
        an earlier one, as :meth:`replacements` gives them, so that undo after a resume puts
        the earlier answer back. Entries whose new record is not in ``records`` are dropped.
        """
        self._history.restore(records, replaced)
        self._invalidate()

    def replacements(self) -> list[tuple[AnswerRecord, int, AnswerRecord]]:
        """(new record, position, record it replaced) for each changed answer, oldest first."""
        return list(self._history.replaced)

    def known_answers(self) -> tuple[dict[int, bool], list[int]]:
        """The yes/no answers as {query: is_yes}, and the skipped ("can't tell") queries."""
        return self._answer_dict()

    def answer_of(self, query: int) -> Answer | None:
        for r in self.answers:
            if r.query == query:
                return r.answer
        return None

    @property
    def asked_count(self) -> int:
        return len(self.answers)

    def _answer_dict(self) -> tuple[dict[int, bool], list[int]]:
        known = {r.query: r.answer is Answer.YES for r in self.answers if r.answer is not Answer.UNKNOWN}
        skipped = [r.query for r in self.answers if r.answer is Answer.UNKNOWN]
        return known, skipped

    # -- derived -----------------------------------------------------------------------------

    @property
    def node(self) -> Node:
        if self._node is None:
            known, skipped = self._answer_dict()
            self._node = self.model.node_from_answers(known, skipped)
        return self._node

    @property
    def status(self) -> Status:
        node = self.node
        if node.idx.size == 0:
            return Status.INCONSISTENT
        if node.n_target_groups() <= 1:
            return Status.IDENTIFIED
        if node.is_resolved():
            return Status.INDISTINGUISHABLE
        return Status.ASKING

    def suggestion(self) -> Choice | None:
        """What the policy suggests now (None when resolved or inconsistent)."""
        if self._choice is False:
            node = self.node
            self._choice = None if node.idx.size == 0 else self.policy.choose(node)
        return self._choice  # type: ignore[return-value]

    def mismatches(self) -> np.ndarray:
        """Answers each object contradicts, shape (M,)."""
        known, _ = self._answer_dict()
        if not known:
            return np.zeros(self.problem.n_objects, dtype=int)
        return self.model.mismatch_counts(known)

    def candidates(self) -> list[Candidate]:
        """Remaining candidates, objects with identical rows merged, most probable first."""
        node = self.node
        if node.idx.size == 0:
            return []
        mism = self.mismatches()
        rows = self.problem.matrix[node.idx]
        _, inverse = np.unique(rows, axis=0, return_inverse=True)
        inverse = inverse.reshape(-1)
        total = node.total
        out = []
        for k in range(int(inverse.max()) + 1):
            members = node.idx[inverse == k]
            mass = float(node.mass[inverse == k].sum())
            out.append(Candidate(tuple(int(i) for i in members), mass / total, int(mism[members[0]])))
        out.sort(key=lambda c: (-c.probability, c.objects[0]))
        return out

    def ranked_by_mismatch(self, limit: int = 10) -> list[tuple[int, int]]:
        """(object, mismatches) for the objects contradicting fewest answers: shown when no
        candidate is consistent, so the engine never silently picks one."""
        mism = self.mismatches()
        order = np.lexsort((-self.problem.prior, mism))
        return [(int(i), int(mism[i])) for i in order[:limit]]

    def group_probabilities(self) -> np.ndarray:
        """Probability of each object group (class), shape (m,); zeros if no labels."""
        if self.problem.object_groups is None:
            return np.zeros(0)
        node = self.node
        masses = np.bincount(
            self.problem.object_groups[node.idx], weights=node.mass, minlength=self.problem.n_groups
        )
        total = masses.sum()
        return masses / total if total > 0 else masses

    def noise_budget_used(self) -> int | None:
        """Fewest contradicted answers among candidates (out of eps); None without noise."""
        if self.noise is None:
            return None
        node = self.node
        if node.delta is None or node.idx.size == 0:
            return None
        return int(node.delta.min())
