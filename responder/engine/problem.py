"""The query learning problem (B, Pi, y, z, p) of the paper, Sections 1.2, 3 and 4.

A :class:`Problem` is immutable and validated once, at the boundary; everything downstream
trusts its arrays.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np


class ProblemError(ValueError):
    """The inputs do not form a valid problem. The message says what is wrong and how to fix it."""


@dataclass(frozen=True, eq=False)
class Problem:
    """Binary objects-by-queries matrix with a prior and optional labels.

    Parameters
    ----------
    matrix : array-like of shape (M, N)
        ``B[i, j] = 1`` when object ``i`` answers yes to query ``j`` (Section 1.2).
    prior : array-like of shape (M,), optional
        Positive weights, normalised to the prior Pi. Uniform when omitted.
    object_groups : array-like of shape (M,), optional
        Group label ``y_i`` of each object (Section 3). Any hashable labels; they are coded
        ``0..m-1`` in order of first appearance unless ``group_names`` fixes the order.
    query_groups : array-like of shape (N,), optional
        Category label ``z_j`` of each query (Section 4), coded like ``object_groups``.
    pick_weights : array-like of shape (N,), optional
        Relative chance ``p_i(q)`` that the responder picks query ``q`` inside its category,
        renormalised over the category's unasked queries (Section 4). Uniform when omitted.
    object_names, query_names : sequence of str, optional
    group_names, query_group_names : sequence of str, optional
        Names of the coded groups; when given, labels must be among them.

    grades : array-like of shape (M, N), optional
        Graded cells for the evidence mode (:mod:`responder.engine.evidence`): how often a
        victim of object ``i`` shows query ``j``, coded :data:`GRADE_CODES` (``UNRECORDED``
        where the source says nothing about the query's category for that object). When
        given, ``matrix`` must be its binary view, ``grades > 0``: the strict and noise modes
        see a cell exactly when it is graded.
    alternatives : array-like of shape (N,), bool, optional
        Queries in a category of alternatives: a victim shows one of its queries (one
        place, one smell, one onset), while a row lists every one it may show. Once one of
        them holds, the interview stops suggesting the rest of its category
        (:meth:`responder.engine.state.InterviewState.available`), and simulated victims
        show one per category (:class:`responder.engine.compare.FlipAnswers`). Needs
        ``query_groups``; a category is all or nothing.
    split_chance : array-like of shape (N,), bool, optional
        Categories of alternatives whose chance the evidence mode splits among the queries
        a row lists (:class:`responder.engine.evidence.AnswerModel`): those answered per
        victim (onset, route), where a row listing several would otherwise gain again from
        each victim's answer. A subset of ``alternatives``, whole categories.
    object_prior : array-like of shape (M,), optional
        Positive weights, normalised, for the evidence mode's object target alone: the
        chemical ranked under its own prior while ``prior`` stays the one the answer model,
        the classes and the paper's modes use (a knowledge base's "split" prior: every class
        equally likely for the class, every chemical for the chemical). None: ``prior``.
    route_queries : array-like of shape (R,), int, optional
        The queries of the routes of exposure (inhaled, on the skin, swallowed...): one whole
        category whose chance is split (``split_chance``). With ``off_route``, the evidence
        mode weighs each chemical's answers under each route it lists
        (:class:`responder.engine.evidence.EvidenceModel`).
    off_route : array-like of shape (R, N), bool, optional
        ``off_route[r, q]``: sign q appears where a chemical touches the body by another
        route, not by route r (a cough from a gas breathed in, a burn where a liquid
        touched), so a victim exposed by route r shows it only occasionally although the
        chemical's row, the union over its routes, lists it. A route whose row is all False
        restricts nothing. Needs ``route_queries``; route queries are never off-route.

    Attributes
    ----------
    matrix : ndarray of shape (M, N), dtype bool
    prior : ndarray of shape (M,), float64, sums to 1
    object_groups : ndarray of shape (M,), int64, or None
    query_groups : ndarray of shape (N,), int64, or None
    pick_weights : ndarray of shape (N,), float64 (all ones when uniform)
    grades : ndarray of shape (M, N), int8, or None
    alternatives, split_chance : ndarray of shape (N,), bool, or None
    object_prior : ndarray of shape (M,), float64, sums to 1, or None
    route_queries : ndarray of shape (R,), int64, or None
    off_route : ndarray of shape (R, N), bool, or None
    """

    matrix: np.ndarray
    prior: np.ndarray
    object_groups: np.ndarray | None = None
    query_groups: np.ndarray | None = None
    pick_weights: np.ndarray = field(default=None)  # type: ignore[assignment]
    object_names: tuple[str, ...] = ()
    query_names: tuple[str, ...] = ()
    group_names: tuple[str, ...] = ()
    query_group_names: tuple[str, ...] = ()
    grades: np.ndarray | None = None
    alternatives: np.ndarray | None = None
    split_chance: np.ndarray | None = None
    object_prior: np.ndarray | None = None
    route_queries: np.ndarray | None = None
    off_route: np.ndarray | None = None

    @classmethod
    def build(
        cls,
        matrix,
        prior=None,
        object_groups=None,
        query_groups=None,
        pick_weights=None,
        object_names: Sequence[str] | None = None,
        query_names: Sequence[str] | None = None,
        group_names: Sequence[str] | None = None,
        query_group_names: Sequence[str] | None = None,
        grades=None,
        alternatives=None,
        split_chance=None,
        object_prior=None,
        route_queries=None,
        off_route=None,
    ) -> Problem:
        """Validate raw inputs and return a :class:`Problem`; raises :class:`ProblemError`."""
        B = _binary_matrix(matrix)
        M, N = B.shape
        pi = _prior(prior, M)
        y, gnames = _codes(object_groups, M, "object group", "objects", group_names)
        z, qgnames = _codes(query_groups, N, "query group", "queries", query_group_names)
        w = _pick_weights(pick_weights, N)
        onames = _names(object_names, M, "object name", "objects", default="object {}")
        qnames = _names(query_names, N, "query name", "queries", default="query {}")
        G = _grades(grades, B)
        alt = _alternatives(alternatives, z, N)
        split = _alternatives(split_chance, z, N, "split_chance")
        if split is not None and (alt is None or (split & ~alt).any()):
            raise ProblemError("split_chance may mark only categories of alternatives")
        own = None if object_prior is None else _prior(object_prior, M)
        routes, off = _route_views(route_queries, off_route, z, split, N)
        return cls(B, pi, y, z, w, onames, qnames, gnames, qgnames, G, alt, split, own, routes, off)

    def __post_init__(self) -> None:
        for name in (
            "matrix",
            "prior",
            "object_groups",
            "query_groups",
            "pick_weights",
            "grades",
            "alternatives",
            "split_chance",
            "object_prior",
            "route_queries",
            "off_route",
        ):
            value = getattr(self, name)
            if isinstance(value, np.ndarray):
                value.setflags(write=False)

    @property
    def n_objects(self) -> int:
        return int(self.matrix.shape[0])

    @property
    def n_queries(self) -> int:
        return int(self.matrix.shape[1])

    @property
    def n_groups(self) -> int:
        return len(self.group_names)

    @property
    def n_query_groups(self) -> int:
        return len(self.query_group_names)

    def with_prior(self, prior) -> Problem:
        """The same problem under another prior (validated), for every target alike."""
        return replace(self, prior=_prior(prior, self.n_objects), object_prior=None)

    def ranking_prior(self, target: str) -> np.ndarray:
        """The prior the evidence mode ranks ``target`` under: :attr:`object_prior` for the
        object target when given, else :attr:`prior`. Simulated victims are drawn from it."""
        if target == "object" and self.object_prior is not None:
            return self.object_prior
        return self.prior

    def subset(self, objects=None, queries=None) -> Problem:
        """The problem restricted to some objects and/or queries; the prior is renormalised.

        Group codes are kept (a group may become empty) so labels stay comparable.
        """
        rows = np.arange(self.n_objects) if objects is None else np.asarray(objects)
        cols = np.arange(self.n_queries) if queries is None else np.asarray(queries)
        return Problem(
            self.matrix[np.ix_(rows, cols)],
            _prior(self.prior[rows], rows.size),
            None if self.object_groups is None else self.object_groups[rows],
            None if self.query_groups is None else self.query_groups[cols],
            self.pick_weights[cols],
            tuple(self.object_names[i] for i in rows),
            tuple(self.query_names[j] for j in cols),
            self.group_names,
            self.query_group_names,
            None if self.grades is None else self.grades[np.ix_(rows, cols)],
            None if self.alternatives is None else self.alternatives[cols],
            None if self.split_chance is None else self.split_chance[cols],
            None if self.object_prior is None else _prior(self.object_prior[rows], rows.size),
            *self._route_views_of(cols),
        )

    def _route_views_of(self, cols: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
        """The route views restricted to queries ``cols`` (None unless every route query
        is kept: a route view needs the whole category)."""
        if self.route_queries is None:
            return None, None
        position = np.full(self.n_queries, -1)
        position[cols] = np.arange(cols.size)
        kept = position[self.route_queries]
        if (kept < 0).any():
            return None, None
        return kept, self.off_route[:, cols]

    def settled_by_yes(self, queries) -> np.ndarray:
        """Queries a yes to any of ``queries`` settles, shape (N,) bool: the whole category
        of alternatives each belongs to (none for a query outside every such category)."""
        out = np.zeros(self.n_queries, dtype=bool)
        if self.alternatives is None:
            return out
        q = np.asarray(list(queries), dtype=np.int64)
        q = q[self.alternatives[q]] if q.size else q
        if q.size:
            out = self.alternatives & np.isin(self.query_groups, self.query_groups[q])
        return out

    def alternative_categories(self, split: bool = False) -> tuple[np.ndarray, ...]:
        """The queries of each category of alternatives (with ``split``, only those whose
        chance is split), in category order."""
        marked = self.split_chance if split else self.alternatives
        if marked is None:
            return ()
        codes = np.unique(self.query_groups[marked])
        return tuple(np.flatnonzero(self.query_groups == c) for c in codes)


#: Codes of graded cells (Problem.grades), weakest first; ``NOT_LISTED`` is the leak.
UNRECORDED, NOT_LISTED, OCCASIONAL, COMMON, HALLMARK = -1, 0, 1, 2, 3
GRADE_CODES = {
    "unrecorded": UNRECORDED,
    "not listed": NOT_LISTED,
    "occasional": OCCASIONAL,
    "common": COMMON,
    "hallmark": HALLMARK,
}


def _route_views(route_queries, off_route, query_groups, split, n: int):
    """Validated route queries (R,) and off-route signs (R, N); (None, None) when not given."""
    if route_queries is None and off_route is None:
        return None, None
    if route_queries is None or off_route is None:
        raise ProblemError("route_queries and off_route go together: give both or neither")
    rq = np.asarray(route_queries)
    if rq.ndim != 1 or rq.size == 0 or not np.issubdtype(rq.dtype, np.integer):
        raise ProblemError("route_queries must be a flat list of query indices")
    rq = rq.astype(np.int64)
    if (rq < 0).any() or (rq >= n).any() or np.unique(rq).size != rq.size:
        raise ProblemError(f"route_queries must be distinct query indices from 0 to {n - 1}")
    if split is None or not split[rq].all():
        raise ProblemError("route_queries must be a category whose chance is split")
    category = np.flatnonzero(query_groups == query_groups[rq[0]])
    if not np.array_equal(np.sort(rq), category):
        raise ProblemError("route_queries must be every query of one category, and only those")
    off = np.asarray(off_route)
    if off.shape != (rq.size, n) or off.dtype != bool:
        raise ProblemError(f"off_route must be {rq.size} x {n} booleans, one row per route")
    if off[:, rq].any():
        raise ProblemError("a route query cannot be off-route: off_route marks signs only")
    return rq, off


def _alternatives(marks, query_groups, n: int, name: str = "alternatives") -> np.ndarray | None:
    """Whole categories marked, one boolean per query; None when none is."""
    if marks is None:
        return None
    alt = np.asarray(marks)
    if alt.shape != (n,) or alt.dtype != bool:
        raise ProblemError(f"{name} must be {n} booleans, one per query")
    if not alt.any():
        return None
    if query_groups is None:
        raise ProblemError(f"{name} need query groups: they mark whole categories")
    codes = np.unique(query_groups[alt])
    mixed = codes[[bool((~alt[query_groups == c]).any()) for c in codes]]
    if mixed.size:
        raise ProblemError(
            f"query group {int(mixed[0])} is partly marked in {name}: mark a whole "
            "category or none of it"
        )
    return alt


def _grades(grades, B: np.ndarray) -> np.ndarray | None:
    if grades is None:
        return None
    G = np.asarray(grades)
    if G.shape != B.shape:
        raise ProblemError(
            f"the grades have shape {G.shape} but the matrix {B.shape}; give one grade per cell"
        )
    if not np.issubdtype(G.dtype, np.integer) or G.min() < UNRECORDED or G.max() > HALLMARK:
        raise ProblemError(
            f"grades must be whole numbers from {UNRECORDED} (unrecorded) to {HALLMARK} (hallmark)"
        )
    G = G.astype(np.int8)
    if not np.array_equal(G > NOT_LISTED, B):
        i, j = np.argwhere((G > NOT_LISTED) != B)[0]
        raise ProblemError(
            f"cell [{i}][{j}] is {int(B[i, j])} in the matrix but graded {int(G[i, j])}: the "
            "matrix must be the graded cells' binary view (grades > 0)"
        )
    return G


def _binary_matrix(matrix) -> np.ndarray:
    if isinstance(matrix, np.ndarray):
        arr = matrix
    else:
        rows = list(matrix)
        if not rows:
            raise ProblemError("the matrix is empty: give at least one object (row)")
        lengths = {len(r) for r in rows}
        if len(lengths) != 1:
            bad = next(i for i, r in enumerate(rows) if len(r) != len(rows[0]))
            raise ProblemError(
                f"the matrix rows are ragged: row 0 has {len(rows[0])} cells but row {bad} has "
                f"{len(rows[bad])}; every row needs one 0/1 cell per query"
            )
        arr = np.asarray(rows, dtype=object)
    if arr.ndim != 2 or arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ProblemError(
            f"the matrix must be 2-D with at least one row and one column, got shape {arr.shape}"
        )
    if arr.dtype == bool:  # nothing to check (and no int64 copy of a large matrix)
        return arr.copy() if arr.flags.writeable else arr
    flat = arr.ravel()
    ok = (
        np.fromiter(
            (
                # Only the integers 0 and 1: JSON true/false or 1.0 are not 0/1 cells.
                (isinstance(v, (int, np.integer)) and not isinstance(v, bool) and v in (0, 1))
                or isinstance(v, np.bool_)
                for v in flat
            ),
            dtype=bool,
            count=flat.size,
        )
        if arr.dtype == object
        else np.isin(arr, (0, 1)).ravel()
    )
    if not ok.all():
        k = int(np.flatnonzero(~ok)[0])
        i, j = divmod(k, arr.shape[1])
        raise ProblemError(
            f"matrix cell [{i}][{j}] is {_shown(flat[k])}; every cell must be 0 or 1"
        )
    return arr.astype(bool)


def _shown(value) -> str:
    """A cell as the user wrote it (JSON spelling for JSON values)."""
    if isinstance(value, (bool, int, float, str)) or value is None:
        return json.dumps(value)
    return repr(value)


def _prior(prior, M: int) -> np.ndarray:
    if prior is None:
        return np.full(M, 1.0 / M)
    try:
        p = np.asarray(prior, dtype=float)
    except (TypeError, ValueError):
        raise ProblemError("the prior must be a list of numbers, one per object") from None
    if p.ndim != 1:
        raise ProblemError("the prior must be a flat list of numbers, one per object")
    if p.shape != (M,):
        raise ProblemError(
            f"the prior has {p.size} entries but there are {M} objects; give one weight per object"
        )
    if not np.all(np.isfinite(p)):
        raise ProblemError("the prior has a non-finite entry; use positive finite weights")
    if np.any(p < 0):
        i = int(np.flatnonzero(p < 0)[0])
        raise ProblemError(f"prior entry {i} is negative ({p[i]}); weights must be positive")
    if np.any(p == 0):
        i = int(np.flatnonzero(p == 0)[0])
        raise ProblemError(
            f"prior entry {i} is zero; every object needs a positive weight (drop the object "
            "instead)"
        )
    total = p.sum()
    if not np.isfinite(total):
        raise ProblemError("the prior weights are too large to add up; rescale them")
    return p / total


def _codes(labels, size: int, what: str, per: str, names) -> tuple[np.ndarray | None, tuple]:
    if labels is None:
        return None, tuple(names) if names is not None else ()
    labels = list(labels)
    if len(labels) != size:
        raise ProblemError(
            f"there are {len(labels)} {what} labels but {size} {per}; give one label per item"
        )
    if names is None:
        order: dict = {}
        for lab in labels:
            try:
                order.setdefault(lab, len(order))
            except TypeError:
                raise ProblemError(
                    f"{what} label {lab!r} is not a name or a number; give one string or "
                    "number per item"
                ) from None
        names_t = tuple(str(k) for k in order)
        codes = np.fromiter((order[lab] for lab in labels), dtype=np.int64, count=size)
    else:
        names_t = tuple(str(n) for n in names)
        index = {n: k for k, n in enumerate(names_t)}
        try:
            codes = np.fromiter((index[str(lab)] for lab in labels), dtype=np.int64, count=size)
        except KeyError as exc:
            raise ProblemError(
                f"{what} label {exc.args[0]!r} is not one of the declared names {list(names_t)}"
            ) from None
    return codes, names_t


def _pick_weights(weights, N: int) -> np.ndarray:
    if weights is None:
        return np.ones(N)
    try:
        w = np.asarray(weights, dtype=float)
    except (TypeError, ValueError):
        raise ProblemError("the pick weights must be a list of numbers, one per query") from None
    if w.shape != (N,):
        raise ProblemError(
            f"there are {w.size} pick weights but {N} queries; give one weight per query"
        )
    if not np.all(np.isfinite(w)) or np.any(w <= 0):
        raise ProblemError("pick weights must be positive finite numbers")
    return w


def _names(names, size: int, what: str, per: str, default: str) -> tuple[str, ...]:
    if names is None:
        return tuple(default.format(k) for k in range(size))
    names = tuple(str(n) for n in names)
    if len(names) != size:
        raise ProblemError(
            f"there are {len(names)} {what}s but {size} {per}; give one name per item"
        )
    return names
