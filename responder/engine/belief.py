"""Candidate masses at a node of the decision tree, and the child masses of every query.

A :class:`Model` fixes what is being identified (the *target partition*: each object, or
each object group) and whether answers may be wrong (persistent noise, Section 6). A
:class:`Node` is the state after some answers: the candidates with positive mass, which
queries were asked, and, under noise, each candidate's Hamming distance delta_i to the
answers on the error-prone queries (Appendix II).

:meth:`Node.split` scores every unasked query at once. It returns the masses that each
answer would send to the "no" and "yes" children, in total and per target group, from
which every reduction factor of Definitions 1 and 2 follows.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from responder.engine.bounds import entropy, xlog2x
from responder.engine.noise import BinomialTable, NoiseModel
from responder.engine.problem import Problem

TARGETS = ("object", "group")

# Relative mass below which a child counts as empty (guards float round-off).
_EMPTY = 1e-12


class TargetError(ValueError):
    """The target cannot be used with this problem (e.g. group target without labels)."""


@dataclass(frozen=True)
class SplitStats:
    """Masses produced by splitting a node on each query, for all N queries at once.

    Attributes
    ----------
    total : float
        pi_{Theta_a}, the mass at the node.
    no, yes : ndarray of shape (N,)
        pi_{Theta_l(a)} and pi_{Theta_r(a)} for each query (asked queries: no = total).
    group_total : ndarray of shape (G,)
        pi_{Theta_a^i} for the target groups: without noise, one entry per group present at
        the node (ascending group code; absent groups contribute nothing to any formula).
    group_no, group_yes : ndarray of shape (G, N) or None
        Per-group child masses, rows aligned with ``group_total``. None when every target
        group is a single noise-free object: then each group goes wholly to one side,
        rho_a^i = 1 and H(rho_a^i) = 0.
    unasked : ndarray of shape (N,), bool
    """

    total: float
    no: np.ndarray
    yes: np.ndarray
    group_total: np.ndarray
    group_no: np.ndarray | None
    group_yes: np.ndarray | None
    unasked: np.ndarray

    @cached_property
    def reduction_factor(self) -> np.ndarray:
        """rho_a(q) = max(pi_l, pi_r) / pi_a (Definition 1), shape (N,)."""
        return np.maximum(self.no, self.yes) / self.total

    @cached_property
    def splits(self) -> np.ndarray:
        """Unasked queries that send positive mass to both children, shape (N,) bool."""
        tol = _EMPTY * self.total
        return self.unasked & (self.no > tol) & (self.yes > tol)

    @cached_property
    def group_term(self) -> np.ndarray:
        """sum_i (pi_{Theta_a^i} / pi_{Theta_a}) H(rho_a^i(q)) for each query, shape (N,).

        The group part of GISA's cost C_a (Algorithm 2, from Theorem 2 (thm:group identification)), with rho_a^i from
        Definition 2. Groups with zero mass contribute nothing. Cached: the policy and the
        tree evaluation both need it.

        Computed only for unasked queries that send some mass to both sides: on any other
        column every group goes wholly to one side, so the term is exactly 0 there (for a
        skipped query it is 0 by definition: it splits nothing).
        """
        out = np.zeros_like(self.no)
        if self.group_no is None:
            return out
        cols = np.flatnonzero(self.unasked & (self.no > 0) & (self.yes > 0))
        # pi_a^i H(rho_a^i) = g log g - l log l - r log r with g = l + r the group's mass
        # and l, r its masses in the two children (0 log 0 = 0): no division, no max.
        gt = self.group_total
        term = xlog2x(gt).sum() - (
            xlog2x(self.group_no[:, cols]).sum(axis=0)
            + xlog2x(self.group_yes[:, cols]).sum(axis=0)
        )
        out[cols] = np.maximum(term, 0.0) / self.total
        return out

    @property
    def target_entropy(self) -> float:
        """H of the target groups' masses at this node, in bits (I(Theta_a), eq. 5)."""
        return entropy(self.group_total)


@dataclass(frozen=True)
class SplitStatsBatch:
    """:class:`SplitStats` of D noise-free nodes at once, one row per node (the batched
    simulator's, :meth:`responder.engine.simulate.PolicyInterviewer.run_batch`).

    Attributes
    ----------
    total : ndarray of shape (D,)
    no, yes : ndarrays of shape (D, N)
        As in :class:`SplitStats` (asked queries: no = total, yes = 0).
    group_total : ndarray of shape (D, G) or None
        Masses of every target group (absent groups 0: they add nothing to any formula).
    group_no, group_yes : ndarrays of shape (D, G, N) or None
        None for the object target (each group one object: H(rho_a^i) = 0).
    unasked : ndarray of shape (D, N), bool
    """

    total: np.ndarray
    no: np.ndarray
    yes: np.ndarray
    group_total: np.ndarray | None
    group_no: np.ndarray | None
    group_yes: np.ndarray | None
    unasked: np.ndarray

    @cached_property
    def reduction_factor(self) -> np.ndarray:
        """rho_a(q) = max(pi_l, pi_r) / pi_a (Definition 1, ``defn:rhor``), shape (D, N)."""
        return np.maximum(self.no, self.yes) / self.total[:, None]

    @cached_property
    def splits(self) -> np.ndarray:
        """Unasked queries that send positive mass to both children, shape (D, N) bool (the
        same relative tolerance as :attr:`SplitStats.splits`)."""
        tol = _EMPTY * self.total[:, None]
        return self.unasked & (self.no > tol) & (self.yes > tol)

    @cached_property
    def group_term(self) -> np.ndarray:
        """sum_i (pi_a^i / pi_a) H(rho_a^i(q)), shape (D, N): the group part of GISA's cost
        (Algorithm 2, Definition 2 (``defn:grhor``), Theorem 2 (``thm:group
        identification``)), computed as :attr:`SplitStats.group_term` (g log g - l log l -
        r log r per group, 0 on columns that send no mass to one side)."""
        out = np.zeros_like(self.no)
        if self.group_no is None:
            return out
        term = xlog2x(self.group_total).sum(axis=1)[:, None] - (
            xlog2x(self.group_no).sum(axis=1) + xlog2x(self.group_yes).sum(axis=1)
        )
        cols = self.unasked & (self.no > 0) & (self.yes > 0)
        np.divide(np.maximum(term, 0.0), self.total[:, None], out=out, where=cols)
        return out


#: Rows per block in :func:`rows_times`: small enough that OpenBLAS runs each product on the
#: calling thread (its worker threads thrash on a busy 2-core machine), large enough that the
#: Python loop costs little.
_ROW_BLOCK_CELLS = 200_000


def rows_times(weights: np.ndarray, matrix: np.ndarray) -> np.ndarray:
    """weights @ matrix, shape (D, N), in row blocks that each run on the calling thread."""
    D, K = weights.shape
    out = np.empty((D, matrix.shape[1]))
    step = max(1, _ROW_BLOCK_CELLS // max(1, K * matrix.shape[1]))
    for s in range(0, D, step):
        np.matmul(weights[s:s + step], matrix, out=out[s:s + step])
    return out


def split_batch(model: "Model", weights: np.ndarray, asked: np.ndarray,
                groups: bool = True) -> SplitStatsBatch:
    """Split statistics of D noise-free nodes, each given by its candidates' masses.

    ``weights`` (D, M) holds each node's mass of every object (0 for non-candidates), ``asked``
    (D, N) its asked queries. The "yes" mass of every query at every node is one product
    weights @ B (the sum over the candidates answering yes, as :meth:`Node.split`); per
    target group, one product per group on the group's columns (skipped with
    ``groups=False``, for costs without the group term: then ``group_term`` is 0).
    """
    if model.noise is not None:
        raise ValueError("split_batch is for noise-free models")
    unasked = ~asked
    total = weights.sum(axis=1)
    yes = rows_times(weights, model.matrix_f)
    gtot = gno = gyes = None
    if groups and not model.singleton_target:
        order, starts = model.group_blocks
        W = weights[:, order]
        Bs = model.matrix_f[order]
        G = starts.size - 1
        gyes = np.empty((weights.shape[0], G, yes.shape[1]))
        gtot = np.empty((weights.shape[0], G))
        for g in range(G):
            a, b = starts[g], starts[g + 1]
            gyes[:, g, :] = rows_times(W[:, a:b], Bs[a:b])
            gtot[:, g] = W[:, a:b].sum(axis=1)
        gno = gtot[:, :, None] - gyes
    no = np.where(unasked, total[:, None] - yes, total[:, None])
    yes = np.where(unasked, yes, 0.0)
    return SplitStatsBatch(total, no, yes, gtot, gno, gyes, unasked)


def resolved_batch(model: "Model", cand: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """:meth:`Node.is_resolved` for D noise-free nodes, shape (D,) bool.

    ``cand`` (D, M) marks each node's candidates, ``weights`` (D, M) their masses. A node is
    resolved when it has at most one candidate, when one target group is left, or when no
    unasked query splits its candidates. Without noise every candidate agrees with the answers
    given, so no unasked query splits them exactly when all candidates of positive mass share
    one row: the test compares each node's candidates with its first one (O(M) per node, no
    product over the queries). Exact zero is the only mass treated as empty here; the split
    statistics' relative tolerance (1e-12) differs from it only for priors spanning twelve
    orders of magnitude.
    """
    count = cand.sum(axis=1)
    rows = np.arange(cand.shape[0])
    first = cand.argmax(axis=1)
    codes = model.target_codes
    one_group = ~(cand & (codes[None, :] != codes[first][:, None])).any(axis=1)
    positive = weights > 0
    first_pos = positive.argmax(axis=1)
    twins = model.twins[first_pos]
    no_split = ~(positive & ~twins).any(axis=1) | ~positive[rows, first_pos]
    return (count <= 1) | one_group | no_split


class Model:
    """A problem, a target and, optionally, persistent noise: what the tree is built on.

    Parameters
    ----------
    problem : Problem
    target : {"object", "group"}
        Identify the object itself, or only its group (class).
    noise : NoiseModel or None
        Persistent-noise settings; None for error-free answers.
    """

    def __init__(self, problem: Problem, target: str = "object", noise: NoiseModel | None = None):
        if target not in TARGETS:
            raise TargetError(f"unknown target {target!r}; choose one of {', '.join(TARGETS)}")
        if target == "group" and problem.object_groups is None:
            raise TargetError(
                "the group target needs object group labels; add 'groups' to the input"
            )
        if noise is not None and noise.prone.shape != (problem.n_queries,):
            raise TargetError(
                f"the noise settings cover {noise.prone.size} queries but the problem has "
                f"{problem.n_queries}"
            )
        self.problem = problem
        self.target = target
        self.noise = noise
        self.matrix = problem.matrix
        self.matrix_f = problem.matrix.astype(float)
        if target == "group":
            self.target_codes = problem.object_groups
            self.n_target = problem.n_groups
        else:
            self.target_codes = np.arange(problem.n_objects)
            self.n_target = problem.n_objects
        self.singleton_target = target == "object"
        self.table = BinomialTable(noise) if noise is not None else None

    @cached_property
    def twins(self) -> np.ndarray:
        """twins[i, k]: objects i and k have identical rows, shape (M, M) bool."""
        B = self.matrix
        _, inverse = np.unique(B, axis=0, return_inverse=True)
        inverse = inverse.reshape(-1)
        return inverse[:, None] == inverse[None, :]

    @cached_property
    def group_blocks(self) -> tuple[np.ndarray, np.ndarray]:
        """Objects sorted by target group (stable) and where each group's block starts,
        shape (M,) and (n_target + 1,)."""
        order = np.argsort(self.target_codes, kind="stable")
        counts = np.bincount(self.target_codes, minlength=self.n_target)
        return order, np.concatenate([[0], np.cumsum(counts)])

    # -- nodes ---------------------------------------------------------------------------

    def root(self) -> "Node":
        """The node before any answer."""
        M, N = self.problem.n_objects, self.problem.n_queries
        idx = np.arange(M)
        asked = np.zeros(N, dtype=bool)
        if self.noise is None:
            return Node(self, idx, self.problem.prior.copy(), asked)
        delta = np.zeros(M, dtype=np.int64)
        return self._noisy_node(idx, delta, asked, self.noise.n_prone)

    def node_from_answers(self, answers: dict[int, bool], skipped=()) -> "Node":
        """The node reached by the given answers (query -> yes/no) and skipped queries.

        Computed from scratch, in any order; equal to following the same answers from the
        root with :meth:`Node.child`.
        """
        N = self.problem.n_queries
        asked = np.zeros(N, dtype=bool)
        qs = np.fromiter(answers.keys(), dtype=np.int64, count=len(answers))
        vals = np.fromiter(answers.values(), dtype=bool, count=len(answers))
        asked[qs] = True
        asked[list(skipped)] = True
        mismatch = self.matrix[:, qs] != vals[None, :]  # (M, |answers|)
        if self.noise is None:
            ok = ~mismatch.any(axis=1)
            idx = np.flatnonzero(ok)
            return Node(self, idx, self.problem.prior[idx], asked)
        prone = self.noise.prone[qs]
        hard = mismatch[:, ~prone].any(axis=1)
        delta = mismatch[:, prone].sum(axis=1)
        ok = ~hard & (delta <= self.noise.eps_eff)
        idx = np.flatnonzero(ok)
        n_unanswered = self.noise.n_prone - int(prone.sum())
        return self._noisy_node(idx, delta[idx], asked, n_unanswered)

    def _noisy_node(self, idx, delta, asked, n_unanswered) -> "Node":
        mass = self.problem.prior[idx] * self.table.mass(n_unanswered, delta)
        keep = mass > 0
        return Node(self, idx[keep], mass[keep], asked, delta[keep], n_unanswered)

    def mismatch_counts(self, answers: dict[int, bool]) -> np.ndarray:
        """How many answers each object contradicts, shape (M,): for ranking when none fit."""
        qs = np.fromiter(answers.keys(), dtype=np.int64, count=len(answers))
        vals = np.fromiter(answers.values(), dtype=bool, count=len(answers))
        return (self.matrix[:, qs] != vals[None, :]).sum(axis=1)


class Node:
    """Candidates and their masses after some answers.

    Attributes
    ----------
    idx : ndarray of shape (K,), int
        Candidate objects (positive mass), ascending.
    mass : ndarray of shape (K,)
        Their masses: pi_i without noise; pi_i times the dilated group mass under noise.
    asked : ndarray of shape (N,), bool
        Queries already asked (answered or skipped).
    delta : ndarray of shape (K,) or None
        Under noise, delta_i^a: mismatches on error-prone queries (Appendix II).
    n_unanswered : int
        Under noise, n_a: error-prone queries not yet answered.
    """

    __slots__ = ("model", "idx", "mass", "asked", "delta", "n_unanswered", "_stats")

    def __init__(self, model, idx, mass, asked, delta=None, n_unanswered=0):
        self.model = model
        self.idx = idx
        self.mass = mass
        self.asked = asked
        self.delta = delta
        self.n_unanswered = n_unanswered
        self._stats: SplitStats | None = None

    @property
    def total(self) -> float:
        return float(self.mass.sum())

    def target_masses(self) -> np.ndarray:
        """Mass of each target group at this node, shape (T,)."""
        return np.bincount(
            self.model.target_codes[self.idx], weights=self.mass, minlength=self.model.n_target
        )

    def n_target_groups(self) -> int:
        """How many target groups still have candidates."""
        return int(np.unique(self.model.target_codes[self.idx]).size)

    # -- splitting ---------------------------------------------------------------------------

    def child_masses(self) -> tuple[np.ndarray, np.ndarray]:
        """Mass each candidate sends to the "no" and "yes" child of every query.

        Returns
        -------
        no, yes : ndarrays of shape (K, N)
            Without noise, candidate i goes wholly to the side of its answer b_i(q). Under
            noise, for an error-prone unasked q, its group splits (Appendix II):
            no: r^{delta_i + b_i(q)} S[n_a - 1, tau] and yes: r^{delta_i + 1 - b_i(q)}
            S[n_a - 1, tau], each zero past eps'.
        """
        B = self.model.matrix_f[self.idx]
        yes = self.mass[:, None] * B
        no = self.mass[:, None] - yes
        if self.delta is None or self.model.noise is None:
            return no, yes
        noise = self.model.noise
        prone = noise.prone & ~self.asked
        if self.n_unanswered == 0 or not prone.any():
            return no, yes
        table = self.model.table
        Bp = self.model.matrix[np.ix_(self.idx, np.flatnonzero(prone))]
        pi = self.model.problem.prior[self.idx][:, None]
        d = self.delta[:, None]
        n = self.n_unanswered - 1
        no[:, prone] = pi * table.mass(n, d + Bp)
        yes[:, prone] = pi * table.mass(n, d + ~Bp)
        return no, yes

    def split(self) -> SplitStats:
        """Child masses of all queries at once, total and per target group (cached)."""
        if self._stats is not None:
            return self._stats
        model = self.model
        unasked = ~self.asked
        codes = model.target_codes[self.idx]
        group_total = np.bincount(codes, weights=self.mass, minlength=model.n_target)
        noisy = self.delta is not None
        if not noisy:
            # Noise-free fast path: one vector-matrix product gives every "yes" mass, per
            # group present at the node (candidates sorted by group, one contiguous block
            # each). einsum on the boolean rows: a 1-byte gather, and no BLAS call, whose
            # threads thrash when the machine is busy; its sums are exact float64 sums.
            total = float(self.mass.sum())
            if model.singleton_target:
                yes = np.einsum("k,kn->n", self.mass, model.matrix[self.idx])
                gno = gyes = None
            else:
                order = np.argsort(codes, kind="stable")
                B = model.matrix[self.idx[order]]
                mass = self.mass[order]
                present = np.flatnonzero(group_total > 0)
                ends = np.cumsum(np.bincount(codes, minlength=model.n_target)[present])
                gyes = np.empty((present.size, B.shape[1]))
                start = 0
                for r, end in enumerate(ends.tolist()):  # groups, not queries
                    np.einsum("k,kn->n", mass[start:end], B[start:end], out=gyes[r])
                    start = end
                group_total = group_total[present]
                gno = group_total[:, None] - gyes
                yes = gyes.sum(axis=0)
            no = total - yes
        else:
            cno, cyes = self.child_masses()
            total = float(self.mass.sum())
            no, yes = cno.sum(axis=0), cyes.sum(axis=0)
            if model.singleton_target:
                # Each dilated group is one object: rows are already per-group.
                gno, gyes = cno, cyes
                group_total = self.mass
            else:
                onehot = _onehot(codes, model.n_target)
                gno, gyes = onehot @ cno, onehot @ cyes
        # Asked queries split nothing.
        no = np.where(unasked, no, total)
        yes = np.where(unasked, yes, 0.0)
        self._stats = SplitStats(total, no, yes, group_total, gno, gyes, unasked)
        return self._stats

    def is_resolved(self) -> bool:
        """Stopping rule: one target group left, or no unasked query splits the candidates."""
        if self.idx.size <= 1:
            return True
        codes = self.model.target_codes[self.idx]
        if (codes == codes[0]).all():  # one target group left
            return True
        return not self.split().splits.any()

    # -- children ----------------------------------------------------------------------------

    def child(self, q: int, answer: bool) -> "Node":
        """The node after answering query ``q`` (True = yes)."""
        asked = self.asked.copy()
        asked[q] = True
        col = self.model.matrix[self.idx, q]
        noise = self.model.noise
        if self.delta is None or noise is None:
            keep = col == answer
            return Node(self.model, self.idx[keep], self.mass[keep], asked)
        if noise.prone[q]:
            delta = self.delta + (col != answer)
            n_unanswered = self.n_unanswered - 1
            keep = delta <= noise.eps_eff
            return self.model._noisy_node(self.idx[keep], delta[keep], asked, n_unanswered)
        keep = col == answer
        return Node(
            self.model, self.idx[keep], self.mass[keep], asked, self.delta[keep],
            self.n_unanswered,
        )

    def skip(self, q: int) -> "Node":
        """The node after "can't tell" on ``q``: asked, but nobody is eliminated.

        Under noise the skipped answer stays unobserved, so n_a is unchanged (its possible
        errors are summed over, exactly as for a query not yet asked).
        """
        asked = self.asked.copy()
        asked[q] = True
        return Node(self.model, self.idx, self.mass, asked, self.delta, self.n_unanswered)

    def key(self) -> bytes:
        """Hashable identity of the node's state, for memoisation (Section 4 trees)."""
        parts = [np.packbits(self.asked).tobytes(), self.idx.astype(np.int32).tobytes()]
        if self.delta is not None:
            parts.append(self.delta.astype(np.int16).tobytes())
        return b"|".join(parts)


def _onehot(codes: np.ndarray, n: int) -> np.ndarray:
    """One-hot matrix of shape (n, K) with a 1 at (codes[k], k)."""
    out = np.zeros((n, codes.size))
    out[codes, np.arange(codes.size)] = 1.0
    return out
