r"""Persistent-noise settings and the binomial sums of Appendix II.

Under persistent noise (Section 6) up to eps' = min(eps, N nu) of the N nu error-prone
answers may be wrong, and asking again repeats the wrong answer. Identifying the object is
group identification on the dilated matrix B~, whose group i holds every bit string within
eps' flips of row i on the error-prone queries. This module holds the settings and the
closed-form masses of B~'s groups, so B~ is never built.

Errata in Appendix II (sec:reduction factor calculation), as printed in the paper; the engine
and ``tests/engine/test_noise.py`` (which codes the formulas literally) use the corrected forms:

1. Reduction factor of a query *not* prone to error: the denominator sums over
   ``I_0^a \cap I_1^a``, which is empty (an object answers q with 0 or 1, not both). It must
   be the union ``I_0^a \cup I_1^a = I^a``, every object group still present at node a.
2. Reduction factor of a query prone to error: the bracket in the denominator is written
   with ``p^{e + delta_i^{r(a)}} (1-p)^{N nu - e - delta_i^{r(a)}}``, the right child's
   distance. The mass at node a uses the node's own distance ``delta_i^a`` (as the
   denominator of the group reduction factor just above it does).

With these corrections the formulas equal the masses of the explicit dilated matrix of
Section 6 (``responder.engine.dilated``) at every node, which the tests check.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

NOISE_MODELS = (1, 2)


class NoiseSettingsError(ValueError):
    """Impossible noise settings. The message says which and how to fix it."""


@dataclass(frozen=True, eq=False)
class NoiseModel:
    """Noise settings for a problem with N queries.

    Parameters
    ----------
    eps : int
        The most wrong answers tolerated (eps in Section 6). Must be >= 0.
    prone : ndarray of shape (N,), bool
        Which queries are prone to error (the N nu set).
    model : {1, 2}
        Probability model 1 (uniform over bit strings, i.e. p = 0.5) or 2 (truncated
        binomial with parameter ``p``), Section 6.
    p : float
        Chance that an error-prone answer is wrong, in [0, 0.5]; model 2 only.
    """

    eps: int
    prone: np.ndarray
    model: int = 1
    p: float = 0.5

    def __post_init__(self) -> None:
        if isinstance(self.eps, bool) or not isinstance(self.eps, (int, np.integer)):
            raise NoiseSettingsError(f"eps must be a whole number, got {self.eps!r}")
        if self.eps < 0:
            raise NoiseSettingsError(
                f"eps is {self.eps}; the number of wrong answers tolerated must be 0 or more"
            )
        if self.model not in NOISE_MODELS:
            raise NoiseSettingsError(
                f"noise model {self.model!r} is unknown; choose 1 (uniform) or 2 (binomial)"
            )
        if not (0.0 <= float(self.p) <= 0.5):
            raise NoiseSettingsError(
                f"p is {self.p}; the chance an answer is wrong must lie in [0, 0.5]"
            )
        prone = np.asarray(self.prone, dtype=bool)
        prone.setflags(write=False)
        object.__setattr__(self, "prone", prone)
        object.__setattr__(self, "eps", int(self.eps))

    @property
    def n_prone(self) -> int:
        """N nu: how many queries are prone to error."""
        return int(self.prone.sum())

    @property
    def eps_eff(self) -> int:
        """eps' = min(eps, N nu) (Section 6)."""
        return min(self.eps, self.n_prone)

    @property
    def p_effective(self) -> float:
        """The binomial parameter: 0.5 under model 1, ``p`` under model 2."""
        return 0.5 if self.model == 1 else float(self.p)

    def describe(self) -> dict:
        """The settings as plain JSON-ready values."""
        return {
            "eps": self.eps,
            "eps_effective": self.eps_eff,
            "prone_count": self.n_prone,
            "model": self.model,
            "p": self.p_effective,
        }


def prone_mask(
    n_queries: int,
    spec: str | float | None = "all",
    query_names: tuple[str, ...] = (),
    seed: int | None = None,
) -> np.ndarray:
    """Parse an error-prone query specification into a mask of shape (N,).

    ``spec`` is ``"all"``, a fraction nu in [0, 1] (that share of queries, chosen with
    ``seed``; rounded to the nearest whole number of queries), or comma-separated query names.
    """
    if spec is None or (isinstance(spec, str) and spec.strip().lower() == "all"):
        return np.ones(n_queries, dtype=bool)
    fraction: float | None = None
    if isinstance(spec, (int, float)):
        fraction = float(spec)
    else:
        try:
            fraction = float(spec)
        except ValueError:
            fraction = None
    if fraction is not None:
        if not (0.0 <= fraction <= 1.0):
            raise NoiseSettingsError(
                f"the error-prone fraction nu is {fraction}; it must lie in [0, 1]"
            )
        k = int(round(fraction * n_queries))
        mask = np.zeros(n_queries, dtype=bool)
        mask[np.random.default_rng(seed).choice(n_queries, size=k, replace=False)] = True
        return mask
    names = [s.strip() for s in str(spec).split(",") if s.strip()]
    index = {name: j for j, name in enumerate(query_names)}
    unknown = [n for n in names if n not in index]
    if unknown:
        raise NoiseSettingsError(
            f"unknown query name(s) {', '.join(map(repr, unknown))} in the error-prone list; "
            f"use names such as {', '.join(query_names[:5])}"
        )
    if not names:
        raise NoiseSettingsError("the error-prone list is empty; give 'all', a fraction or names")
    mask = np.zeros(n_queries, dtype=bool)
    mask[[index[n] for n in names]] = True
    return mask


def log_binomial_coefficients(n: int, t: int) -> np.ndarray:
    """log C(n, e) for e = 0..min(n, t), shape (min(n, t) + 1,).

    Built as a cumulative sum of log((n - e + 1) / e), so it stays finite for any n (C(2000,
    500) alone is about 1e486, past the largest float).
    """
    top = min(int(n), int(t))
    e = np.arange(1, top + 1, dtype=float)
    return np.concatenate(([0.0], np.cumsum(np.log((n - e + 1.0) / e))))


class BinomialTable:
    """Tail sums S[n, t] = sum_{e=0}^{t} C(n, e) r^e with r = p / (1 - p), kept as logs.

    Appendix II's mass of group i at a node, normalised by the model's constant, is

        pi_i * r^{delta_i} * S[n_a, min(n_a, eps' - delta_i)] / S[N nu, eps']

    because p^{e+delta}(1-p)^{N nu - e - delta} = (1-p)^{N nu} r^{e+delta}, and the common
    factor (1-p)^{N nu} cancels against the normalising sum of model 2 (model 1 is p = 0.5,
    r = 1). Objects with delta_i > eps' have zero mass.

    The sums are held in log space (log-sum-exp over e) and only the ratio is exponentiated,
    so no N overflows; rows are computed on first use, as an interview visits only a few n.
    """

    def __init__(self, noise: NoiseModel):
        self._setup(noise.n_prone, noise.eps_eff, noise.p_effective)

    @classmethod
    def for_counts(cls, n_prone: int, eps_eff: int, p: float) -> BinomialTable:
        """The table for N nu = ``n_prone``, eps' = ``eps_eff`` and binomial parameter ``p``."""
        table = cls.__new__(cls)
        table._setup(int(n_prone), int(eps_eff), float(p))
        return table

    def _setup(self, n_prone: int, eps_eff: int, p: float) -> None:
        self.eps = eps_eff
        self.n_prone = n_prone
        self.r = 1.0 if p >= 0.5 else p / (1.0 - p)
        with np.errstate(divide="ignore"):
            self.log_r = float(np.log(self.r))  # -inf when p = 0
        self._rows: dict[int, np.ndarray] = {}
        self.log_Z = float(self.log_sums(self.n_prone)[self.eps])

    def log_sums(self, n: int) -> np.ndarray:
        """log S[n, t] for t = 0..min(n, eps'), shape (min(n, eps') + 1,)."""
        row = self._rows.get(n)
        if row is None:
            row = np.logaddexp.accumulate(self.log_terms(n))
            self._rows[n] = row
        return row

    def log_terms(self, n: int) -> np.ndarray:
        """log C(n, e) r^e for e = 0..min(n, eps'), shape (min(n, eps') + 1,)."""
        log_c = log_binomial_coefficients(n, self.eps)
        e = np.arange(log_c.size, dtype=float)
        with np.errstate(invalid="ignore"):
            return log_c + np.where(e == 0, 0.0, e * self.log_r)

    def error_counts(self) -> np.ndarray:
        """Pr(e wrong answers) for e = 0..eps', shape (eps' + 1,): the model's truncated
        binomial, C(N nu, e) r^e / S[N nu, eps'] (the (1-p)^{N nu} factor cancels)."""
        w = np.exp(self.log_terms(self.n_prone) - self.log_Z)
        return w / w.sum()

    @property
    def Z(self) -> float:  # noqa: N802 (the paper's name)
        """S[N nu, eps'] (may be inf for huge N nu: use :attr:`log_Z`)."""
        with np.errstate(over="ignore"):
            return float(np.exp(self.log_Z))

    def mass_rows(self, n_unanswered: np.ndarray, delta: np.ndarray) -> np.ndarray:
        """:meth:`mass` for D nodes at once: row d with n_a = ``n_unanswered[d]``, shape like
        ``delta`` (D, M). The same formula, elementwise, so the same floats."""
        n = np.asarray(n_unanswered, dtype=np.int64)
        delta = np.asarray(delta)
        width = self.eps + 1
        sums = np.full((int(n.max(initial=0)) + 1, width), np.nan)
        for v in np.unique(n).tolist():
            row = self.log_sums(v)
            sums[v, : row.size] = row
        ok, tau, log_r_pow = self._mass_terms(n[:, None], delta)
        log_out = log_r_pow + sums[n[:, None], tau] - self.log_Z
        return np.where(ok, np.exp(log_out), 0.0)

    def mass(self, n_unanswered: int, delta: np.ndarray) -> np.ndarray:
        """Relative mass r^delta S[n, min(n, eps'-delta)] / Z of each group, shape like delta.

        Zero where delta > eps'.
        """
        ok, tau, log_r_pow = self._mass_terms(n_unanswered, np.asarray(delta))
        log_out = log_r_pow + self.log_sums(n_unanswered)[tau] - self.log_Z
        return np.where(ok, np.exp(log_out), 0.0)

    def _mass_terms(self, n_unanswered, delta: np.ndarray):
        """The parts of :meth:`mass` that depend on delta: where it is within eps' (``ok``),
        the index min(n, eps' - delta) into the row of S, and log r^delta (0 at delta 0)."""
        ok = delta <= self.eps
        d = np.where(ok, delta, 0)
        tau = np.minimum(n_unanswered, self.eps - d)
        with np.errstate(invalid="ignore"):
            log_r_pow = np.where(d == 0, 0.0, d * self.log_r)
        return ok, tau, log_r_pow
