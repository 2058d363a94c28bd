"""Run settings of the experiments: the paper's full grid, or ``--quick`` for CI."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np


@dataclass
class Settings:
    """Every knob of the four experiments. ``full()`` and ``quick()`` give the presets."""

    seed: int = 0
    jobs: int = 1
    quick: bool = False
    progress: bool = True
    #: random datasets per point of the synthetic sweeps (paper: 100)
    datasets: int = 100
    # -- group identification (Section 7.1) --
    d1_values: tuple = (0.1, 0.25, 0.5)
    d2_values: tuple = (0.1, 0.2, 0.3, 0.4, 0.5)
    #: simulated interviews per random dataset for the random policy (Monte Carlo)
    random_trials: int = 1000
    #: knowledge-base tables: trees built with random tie-breaking, per policy
    kb_repeats: int = 20
    #: knowledge-base tables: simulated interviews for Monte Carlo policies (over all repeats)
    kb_trials: int = 10_000
    #: exact-tree state budget for branching policies on the knowledge base
    kb_max_states: int = 20_000
    # -- query groups (Section 7.2) --
    gamma_max_values: tuple = (0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
    #: simulated interviews per random dataset for category and random policies
    qg_trials: int = 1000
    # -- noise (Section 7.3) --
    noise_size: int = 131
    noise_min_distance: int = 5
    noise_eps: int = 2
    nu_values: tuple = tuple(float(x) for x in np.round(np.arange(0.0, 1.0001, 0.1), 2))
    #: random error-prone sets per nu (0 < nu < 1)
    noise_masks: int = 5
    #: nu used for the probability-model-2 sweeps
    model2_nu: float = 0.5
    p_values: tuple = (0.05, 0.1, 0.2, 0.3, 0.4, 0.5)
    p_true_values: tuple = (0.05, 0.1, 0.2, 0.3, 0.4, 0.5)
    p_alg_values: tuple = (0.1, 0.25, 0.5)
    mismatch_interviews: int = 2000
    #: run the synthetic 131-object noise matrix next to the knowledge-base subset
    noise_synthetic: bool = True
    # -- WISER-shaped stand-in --
    #: target row densities (share of 1s) of the stand-in problems
    standin_densities: tuple = (0.2, 0.3, 0.4, 0.5)
    #: stand-in problems per density
    standin_datasets: int = 20
    #: simulated interviews per stand-in problem for Monte Carlo policies
    standin_trials: int = 300
    # -- sensitivity to the paper's unknowns --
    #: random datasets per cell of the sensitivity tables
    sens_datasets: int = 30
    sens_d1: float = 0.25
    sens_d2_values: tuple = (0.1, 0.3, 0.5)
    #: simulated interviews per dataset for random search in the class-size table
    sens_trials: int = 200
    #: simulated interviews per cell of the random-search table
    sens_random_trials: int = 4000
    sens_nu_values: tuple = (0.25, 0.5, 0.75)
    sens_p_values: tuple = (0.1, 0.5)
    sens_noise_masks: int = 3
    notes: list = field(default_factory=list)

    @classmethod
    def full(cls, **kw) -> Settings:
        return cls(**kw)

    @classmethod
    def quick_preset(cls, **kw) -> Settings:
        base = dict(
            quick=True,
            datasets=3,
            d1_values=(0.5,),
            d2_values=(0.1, 0.3, 0.5),
            random_trials=100,
            kb_repeats=3,
            kb_trials=300,
            kb_max_states=2000,
            gamma_max_values=(0.5, 0.75, 1.0),
            qg_trials=100,
            nu_values=(0.0, 0.5, 1.0),
            noise_masks=1,
            p_values=(0.1, 0.5),
            p_true_values=(0.1, 0.4),
            p_alg_values=(0.1, 0.4),
            mismatch_interviews=200,
            noise_synthetic=False,
            standin_densities=(0.3,),
            standin_datasets=2,
            standin_trials=50,
            sens_datasets=2,
            sens_d2_values=(0.1, 0.5),
            sens_trials=30,
            sens_random_trials=200,
            sens_nu_values=(0.5,),
            sens_p_values=(0.1,),
            sens_noise_masks=1,
        )
        base.update(kw)
        return cls(**base)

    def to_dict(self) -> dict:
        d = asdict(self)
        d.pop("notes")
        d.pop("progress")
        d.pop("jobs")  # results do not depend on it
        return d
