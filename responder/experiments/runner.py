"""Running many independent tasks: per-task seeds, process parallelism and a progress bar.

Every task gets its own seed, derived from the run's ``--seed`` and the task's *key* (a tuple
of small integers naming the experiment, the point and the dataset) with numpy's
``SeedSequence``. The seed depends on nothing else, so results are the same whatever
``--jobs`` is and in whatever order the processes finish.
"""

from __future__ import annotations

import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

#: Codes of the experiments in seed keys (stable: changing them changes every result).
EXPERIMENT_CODES = {"group-id": 1, "query-groups": 2, "noise": 3, "diagnostic": 4}


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
    """A one-line text progress bar on stderr: ``label [#####.....] 12/40  3.1s``."""

    def __init__(self, label: str, total: int, enabled: bool = True, width: int = 30,
                 stream=None):
        self.label = label
        self.total = max(total, 1)
        self.done = 0
        self.enabled = enabled
        self.width = width
        self.stream = stream if stream is not None else sys.stderr
        self.start = time.perf_counter()
        self._last = -1.0
        self._draw(force=True)

    def advance(self, n: int = 1) -> None:
        self.done += n
        self._draw(force=self.done >= self.total)

    def _draw(self, force: bool = False) -> None:
        if not self.enabled:
            return
        now = time.perf_counter()
        if not force and now - self._last < 0.2:
            return
        self._last = now
        filled = int(self.width * self.done / self.total)
        bar = "#" * filled + "." * (self.width - filled)
        self.stream.write(
            f"\r{self.label:<34} [{bar}] {self.done}/{self.total} {now - self.start:6.1f}s"
        )
        self.stream.flush()

    def close(self) -> float:
        elapsed = time.perf_counter() - self.start
        if self.enabled:
            if self.done < self.total:
                self._draw(force=True)
            self.stream.write("\n")
            self.stream.flush()
        return elapsed


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
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            futures = {pool.submit(_call, task): i for i, task in enumerate(tasks)}
            for fut in as_completed(futures):
                results[futures[fut]] = fut.result()
                bar.advance()
    bar.close()
    return results


def mean_ci(values) -> dict:
    """Mean, 95% interval of the mean (normal approximation) and 2.5-97.5% range."""
    v = np.asarray([x for x in values if x is not None], dtype=float)
    if v.size == 0:
        return {"mean": None, "half": None, "n": 0, "lo": None, "hi": None,
                "p2_5": None, "p97_5": None}
    mean = float(v.mean())
    half = float(1.96 * v.std(ddof=1) / np.sqrt(v.size)) if v.size > 1 else 0.0
    return {
        "mean": mean, "half": half, "n": int(v.size), "lo": mean - half, "hi": mean + half,
        "p2_5": float(np.percentile(v, 2.5)), "p97_5": float(np.percentile(v, 97.5)),
    }
