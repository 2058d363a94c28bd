"""What the route views cost one selection on the bundled knowledge base. A script, not a
timed test.

    python benchmarks/bench_route_views.py            # about a minute
    python benchmarks/bench_route_views.py --quick
    python benchmarks/bench_route_views.py --share 0.5   # another share than grades.toml's

One *selection* is what the app does after each answer: the posterior from every answer so
far and the suggested question (``EvidenceModel.belief`` then ``suggest_symptom``). It is
timed on the bundled knowledge base under its own answer model (grades.toml: the textbook
presentation, and ``several_routes_share``), over the answer sets of simulated interviews
(victims answering from their chemical's row, a route among those it lists), once with the
route views and once without (``several_routes_share = 1``), alternating in one process, and
reported as the ratio of the two medians per round.
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from responder.config import InterviewConfig, symptom_leaks  # noqa: E402
from responder.kb.loader import load_bundled  # noqa: E402


def answer_sets(problem, n_interviews: int, length: int, seed: int = 0) -> list[dict]:
    """Growing answer sets of simulated interviews: each victim answers its row's cells,
    the first answer its route (one the row lists)."""
    rng = np.random.default_rng(seed)
    sets = []
    routes = problem.route_queries
    for _ in range(n_interviews):
        i = int(rng.choice(problem.n_objects, p=problem.prior))
        listed = routes[problem.matrix[i, routes]]
        known = {int(rng.choice(listed)): True} if listed.size else {}
        for q in rng.permutation(problem.n_queries)[:length]:
            known.setdefault(int(q), bool(problem.matrix[i, q]))
            sets.append(dict(known))
    return sets


def selection_seconds(model, sets) -> float:
    """Median seconds of one selection over ``sets``."""
    times = []
    for known in sets:
        start = time.perf_counter()
        model.belief(known).suggest_symptom()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def alternating_rounds(rounds: int, time_a, time_b) -> tuple[list, list, list]:
    """``rounds`` of ``time_a()`` then ``time_b()`` in one process: the two lists of
    seconds and each round's ratio a / b."""
    on, off, ratios = [], [], []
    for _ in range(rounds):
        a, b = time_a(), time_b()
        on.append(a)
        off.append(b)
        ratios.append(a / b)
    return on, off, ratios


def selection_line(on: list, off: list, ratios: list, with_what: str, without_what: str) -> str:
    """The medians of :func:`alternating_rounds` and each round's ratio, on one line."""
    return (
        f"one selection: {statistics.median(on) * 1e3:.2f} ms {with_what}, "
        f"{statistics.median(off) * 1e3:.2f} ms {without_what}; ratio per round "
        + ", ".join(f"{r:.2f}" for r in ratios)
        + f" (median {statistics.median(ratios):.2f})"
    )


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--rounds", type=int, default=None)
    ap.add_argument(
        "--share", type=float, default=None, help="several_routes_share (default: grades.toml's)"
    )
    args = ap.parse_args(argv)
    kb = load_bundled()
    problem = kb.to_problem()
    settings = InterviewConfig().resolved_evidence(kb.answer_model, symptom_leaks(kb))
    if args.share is not None:
        settings = dataclasses.replace(settings, several_routes_share=args.share)
    with_views = settings.model(problem)
    without = dataclasses.replace(settings, several_routes_share=1.0).model(problem)
    sets = answer_sets(problem, 10 if args.quick else 40, 20)
    rounds = args.rounds or (3 if args.quick else 7)
    on, off, ratios = alternating_rounds(
        rounds,
        lambda: selection_seconds(with_views, sets),
        lambda: selection_seconds(without, sets),
    )
    print(
        f"bundled knowledge base {problem.n_objects} x {problem.n_queries}, "
        f"several_routes_share {settings.several_routes_share:g}: "
        f"{len(with_views.components)} likelihood components against {len(without.components)}"
    )
    print(selection_line(on, off, ratios, "with route views", "without"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
