"""Running many independent tasks: per-task seeds, process parallelism and a progress bar.

Every task gets its own seed, derived from the run's ``--seed`` and the task's *key* (a tuple
of small integers naming the experiment, the point and the dataset) with numpy's
``SeedSequence``. The seed depends on nothing else, so results are the same whatever
``--jobs`` is and in whatever order the processes finish.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from typing import Any

import numpy as np

#: Codes of the experiments in seed keys (stable: changing them changes every result).
EXPERIMENT_CODES = {
    "group-id": 1,
    "query-groups": 2,
    "noise": 3,
    "diagnostic": 4,
    "wiser-standin": 5,
    "sensitivity": 6,
}


def task_seed(seed: int, *key: int) -> np.random.SeedSequence:
    """The seed sequence of the task named by ``key`` under the run seed ``seed``."""
    return np.random.SeedSequence(entropy=int(seed), spawn_key=tuple(int(k) for k in key))


def int_seed(ss: np.random.SeedSequence, index: int = 0) -> int:
    """A 32-bit integer seed from ``ss`` for engine functions that take ``int`` seeds."""
    return int(ss.generate_state(index + 1, dtype=np.uint32)[index])


@dataclass
class Task:
    """One unit of work: ``fn(**kwargs)``, run in a worker process when ``--jobs`` > 1.

    ``fn`` must be a module-level function (picklable) and its result JSON-ready.
    """

    fn: Callable[..., Any]
    kwargs: dict = field(default_factory=dict)


class Progress:
    """Progress of one batch of tasks on stderr, drawn by rich (``label ━━━━ 12/40 0:00:03``).

    Disabled (``--no-progress``), it draws nothing and only times the batch.
    """

    def __init__(self, label: str, total: int, enabled: bool = True, stream=None):
        from rich.console import Console  # noqa: PLC0415 (only the experiments draw bars)
        from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn  # noqa: PLC0415
        from rich.progress import Progress as RichProgress  # noqa: PLC0415

        self.start = time.perf_counter()
        self._bar = None
        if enabled:
            console = Console(file=stream if stream is not None else sys.stderr)
            self._bar = RichProgress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                console=console,
                transient=False,
            )
            self._task = self._bar.add_task(label, total=max(total, 1))
            self._bar.start()

    def advance(self, n: int = 1) -> None:
        if self._bar is not None:
            self._bar.advance(self._task, n)

    def close(self) -> float:
        if self._bar is not None:
            self._bar.stop()
        return time.perf_counter() - self.start


def _call(task: Task):
    return task.fn(**task.kwargs)


def run_tasks(tasks: list[Task], jobs: int = 1, label: str = "", progress: bool = True) -> list:
    """Run ``tasks``, in ``jobs`` processes; results in task order."""
    bar = Progress(label, len(tasks), enabled=progress)
    results: list = [None] * len(tasks)
    if jobs <= 1 or len(tasks) <= 1:
        for i, task in enumerate(tasks):
            results[i] = _call(task)
            bar.advance()
    else:
        with ProcessPoolExecutor(max_workers=min(jobs, len(tasks))) as pool:
            futures = {pool.submit(_call, task): i for i, task in enumerate(tasks)}
            for fut in as_completed(futures):
                results[futures[fut]] = fut.result()
                bar.advance()
    bar.close()
    return results


def run_sweep(
    fn,
    points: list,
    datasets: int,
    seed: int,
    code: int,
    jobs: int,
    label: str,
    progress: bool,
    point_args,
    **common,
) -> list[list]:
    """Run ``fn`` on ``datasets`` random datasets at each point of a sweep, in ``jobs``
    processes; the results grouped per point, in dataset order.

    Dataset k of point i is drawn from the key (``code``, i, k), so the results do not depend
    on ``jobs``. ``point_args(point)`` gives the task's arguments that vary with the point;
    ``common`` the ones that do not.
    """
    tasks = [
        Task(fn, dict(seed=seed, key=(code, i, k), **common, **point_args(p)))
        for i, p in enumerate(points)
        for k in range(datasets)
    ]
    results = run_tasks(tasks, jobs, label, progress)
    return [results[i * datasets : (i + 1) * datasets] for i in range(len(points))]


def mean_ci(values, level: float = 0.95) -> dict:
    """Mean, ``level`` interval of the mean and 2.5-97.5% range over ``values``.

    The half-width is t_{(1+level)/2, n-1} s / sqrt(n) (Student's t with n - 1 degrees of
    freedom, not the normal 1.96: with n = 5 repeats the t quantile is 2.776, so the normal
    interval would be 29% too narrow). A single value has half-width 0.
    """
    v = np.asarray([x for x in values if x is not None], dtype=float)
    if v.size == 0:
        return {
            "mean": None,
            "half": None,
            "n": 0,
            "lo": None,
            "hi": None,
            "p2_5": None,
            "p97_5": None,
        }
    mean = float(v.mean())
    half = (
        float(t_quantile((1 + level) / 2, v.size - 1) * v.std(ddof=1) / np.sqrt(v.size))
        if v.size > 1
        else 0.0
    )
    return {
        "mean": mean,
        "half": half,
        "n": int(v.size),
        "lo": mean - half,
        "hi": mean + half,
        "p2_5": float(np.percentile(v, 2.5)),
        "p97_5": float(np.percentile(v, 97.5)),
    }


def t_quantile(p: float, df: float) -> float:
    """The p-quantile of Student's t distribution with ``df`` degrees of freedom (p > 0.5).

    Inverts the CDF F(t) = 1 - I_x(df/2, 1/2) / 2, x = df / (df + t^2), by bisection; the
    regularised incomplete beta I_x comes from its continued fraction. Accurate to about
    1e-10, checked against scipy in the tests (scipy is not a dependency).
    """
    if not 0.5 < p < 1.0:
        raise ValueError(f"p must lie in (0.5, 1), got {p}")
    if df <= 0:
        raise ValueError(f"degrees of freedom must be positive, got {df}")
    lo, hi = 0.0, 1.0
    while _t_cdf(hi, df) < p:
        hi *= 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if _t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12 * max(1.0, hi):
            break
    return 0.5 * (lo + hi)


def _t_cdf(t: float, df: float) -> float:
    """P(T <= t) for t >= 0."""
    x = df / (df + t * t)
    return 1.0 - 0.5 * _betainc(df / 2.0, 0.5, x)


def _betainc(a: float, b: float, x: float) -> float:
    """Regularised incomplete beta I_x(a, b), by the continued fraction (modified Lentz)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = (
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    if x > (a + 1.0) / (a + b + 2.0):  # the fraction converges fast only below this
        return 1.0 - _betainc(b, a, 1.0 - x)
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    f = d
    for m in range(1, 500):
        for num in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1.0 + num * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + num / c
            c = c if abs(c) > tiny else tiny
            f *= c * d
        if abs(c * d - 1.0) < 1e-15:
            break
    return math.exp(log_front) * f / a
