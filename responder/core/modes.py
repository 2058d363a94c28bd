"""The answer modes as users choose them, and what the engine needs for each from a
knowledge base.

- ``evidence`` (default): nothing is eliminated; answers weigh for or against each chemical
  (:mod:`responder.engine.evidence`);
- ``strict``: the paper's algorithms with elimination;
- ``noise``: the paper's persistent-noise mode (up to eps wrong answers).

Used by the app's interview and the headless protocol alike.
"""

from __future__ import annotations

import numpy as np

from responder.engine.diagnostics import default_eps, min_hamming_distance
from responder.engine.evidence import EvidenceSettings
from responder.engine.noise import NoiseModel, NoiseSettingsError
from responder.engine.state import MODES, InterviewState

DEFAULT_MODE = "evidence"
TARGETS = {"chemical": "object", "class": "group"}
POLICY = {
    ("chemical", "symptom"): "gbs",
    ("class", "symptom"): "gisa",
    ("chemical", "category"): "gqsa",
    ("class", "category"): "gigqsa",
}
UNCONSCIOUS_ID = "unconsciousness"
__all__ = [
    "DEFAULT_MODE",
    "MODES",
    "POLICY",
    "TARGETS",
    "ModeError",
    "build_state",
    "reported_mask",
    "symptom_leaks",
]


class ModeError(ValueError):
    """Impossible mode settings; the message names the option and its valid values."""


def symptom_leaks(kb) -> tuple[float, ...] | None:
    """Per-symptom leaks from the knowledge base (NaN where none), or None if none given."""
    leaks = [getattr(s, "leak", None) for s in kb.symptoms]
    if all(v is None for v in leaks):
        return None
    return tuple(float("nan") if v is None else float(v) for v in leaks)


# Evidence mode: an observable sign is asked before a reported one (a symptom only a conscious
# victim can tell) whose expected gain is less than 10% larger: at a scene, looking is
# quicker and works on every victim (issue 12, "prefer quickly observed signs").
OBSERVED_MARGIN = 0.1


def reported_mask(kb) -> tuple[np.ndarray, int | None]:
    """Symptoms only a conscious victim can report, and the "unconscious" symptom's index."""
    reported = np.array([getattr(s, "observation", "observed") == "reported" for s in kb.symptoms])
    ids = [s.id for s in kb.symptoms]
    return reported, (ids.index(UNCONSCIOUS_ID) if UNCONSCIOUS_ID in ids else None)


def build_state(
    kb, mode: str, target: str, suggest: str, eps: int | None, evidence: EvidenceSettings | None
) -> InterviewState:
    """An interview state for the user-facing choices (target chemical|class, ...)."""
    problem = kb.to_problem()
    noise = None
    if mode == "noise":
        allowed = max(1, default_eps(min_hamming_distance(problem.matrix)))
        try:
            noise = NoiseModel(
                allowed if eps is None else eps, np.ones(problem.n_queries, dtype=bool)
            )
        except NoiseSettingsError as exc:
            raise ModeError(f"{exc} (--eps)") from None
    elif eps is not None:
        raise ModeError("--eps applies only to --mode noise")
    reported, unconscious = reported_mask(kb)
    return InterviewState(
        problem,
        target=TARGETS[target],
        policy=POLICY[target, suggest],
        noise=noise,
        evidence=evidence if mode == "evidence" else None,
        reported=reported,
        unconscious=unconscious,
        observed_margin=OBSERVED_MARGIN,
    )
