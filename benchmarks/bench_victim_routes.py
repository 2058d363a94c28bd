"""What a route per victim costs one selection in an incident of several victims. A script,
not a timed test.

    python benchmarks/bench_victim_routes.py            # about a minute
    python benchmarks/bench_victim_routes.py --quick
    python benchmarks/bench_victim_routes.py --victims 10

One *selection* is what the app does after each answer: the posterior from every victim's
answers and the question suggested to the victim being asked
(``EvidenceModel.pooled`` then ``suggest_symptom``). It is timed on the bundled knowledge base
under its own answer model (grades.toml), over the answer sets of simulated incidents
(each victim answering from their chemical's row, each by a route the row lists), once with a
route per victim (``owners`` given) and once with one view for the whole incident, alternating
in one process, and reported as the ratio of the two medians per round.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_route_views import alternating_rounds, selection_line  # noqa: E402  (this folder)

from responder.config import InterviewConfig, symptom_leaks  # noqa: E402
from responder.kb.loader import load_bundled  # noqa: E402


def incident_answers(problem, n_incidents: int, victims: int, length: int, seed: int = 0):
    """(queries, values, owners, current) of growing incidents: every victim answers
    ``length`` of their agent's cells, the first their own route."""
    rng = np.random.default_rng(seed)
    routes = problem.route_queries
    out = []
    for _ in range(n_incidents):
        i = int(rng.choice(problem.n_objects, p=problem.prior))
        listed = routes[problem.matrix[i, routes]]
        queries, values, owners = [], [], []
        for v in range(victims):
            own = [int(rng.choice(listed))] if listed.size else []
            own += [int(q) for q in rng.permutation(problem.n_queries)[:length] if q not in own]
            for q in own:
                queries.append(q)
                values.append(bool(problem.matrix[i, q]))
                owners.append(v)
                out.append((np.array(queries), np.array(values, bool), np.array(owners), v))
    return out


def selection_seconds(model, sets, per_victim: bool) -> float:
    """Median seconds of one selection over ``sets``."""
    N = model.problem.n_queries
    times = []
    for queries, values, owners, current in sets:
        asked = np.zeros(N, bool)
        asked[queries[owners == current]] = True
        start = time.perf_counter()
        if per_victim:
            model.pooled(queries, values, asked, owners, current).suggest_symptom()
        else:
            model.pooled(queries, values, asked).suggest_symptom()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--rounds", type=int, default=None)
    ap.add_argument("--victims", type=int, default=3)
    args = ap.parse_args(argv)
    kb = load_bundled()
    problem = kb.to_problem()
    model = InterviewConfig().resolved_evidence(kb.answer_model, symptom_leaks(kb)).model(problem)
    sets = incident_answers(problem, 5 if args.quick else 20, args.victims, 12)
    rounds = args.rounds or (3 if args.quick else 7)
    on, off, ratios = alternating_rounds(
        rounds,
        lambda: selection_seconds(model, sets, per_victim=True),
        lambda: selection_seconds(model, sets, per_victim=False),
    )
    print(
        f"bundled knowledge base {problem.n_objects} x {problem.n_queries}, incidents of "
        f"{args.victims} victims, {len(sets)} answer sets, {len(model.components)} components"
    )
    print(selection_line(on, off, ratios, "with a route per victim", "with one view"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
