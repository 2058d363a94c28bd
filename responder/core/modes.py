"""The engine state of an interview: a knowledge base under an interview configuration.

Used by the app's interview, the headless protocol and validation alike, so that all of them
ask the same questions of the same knowledge: which queries only a conscious victim can
report, which are answered once per incident (the scene), what one answer implies about
others, how an exclusive group is asked as one question, and each query's leak.
"""

from __future__ import annotations

import numpy as np

from responder.config import InterviewConfig, symptom_leaks
from responder.engine.state import Answer, ExclusiveGroups, Implications, InterviewState

UNCONSCIOUS_ID = "unconsciousness"

# Evidence mode: an observable sign is asked before a reported one (a symptom only a conscious
# victim can tell) whose expected gain is less than 10% larger: at a scene, looking is
# quicker and works on every victim.
OBSERVED_MARGIN = 0.1


def reported_mask(kb) -> tuple[np.ndarray, int | None]:
    """Queries only a conscious victim can report, and the "unconscious" query's index."""
    reported = np.array([getattr(s, "observation", "observed") == "reported" for s in kb.symptoms])
    ids = [s.id for s in kb.symptoms]
    return reported, (ids.index(UNCONSCIOUS_ID) if UNCONSCIOUS_ID in ids else None)


def shared_mask(kb) -> np.ndarray:
    """Queries answered once for the whole incident (scene categories marked per incident)."""
    return np.array([getattr(s, "per", "victim") == "incident" for s in kb.symptoms], dtype=bool)


def implications(kb) -> Implications:
    """The knowledge base's implications and exclusive groups as engine rules: a yes to one
    member of an exclusive group implies no to the others."""
    rules: dict[tuple[int, bool], list[tuple[int, Answer]]] = {}
    index = kb.symptom_index
    for group in getattr(kb, "exclusive_groups", ()):
        members = [index(m) for m in group.members]
        for q in members:
            rules.setdefault((q, True), []).extend(
                (other, Answer.NO) for other in members if other != q
            )
    for rule in getattr(kb, "implications", ()):
        then = [(index(sid), Answer(answer)) for sid, answer in rule.then]
        rules.setdefault((index(rule.when), rule.answer == "yes"), []).extend(then)
    return Implications({key: _followed(key, rules) for key in rules})


def _followed(
    start: tuple[int, bool], rules: dict[tuple[int, bool], list[tuple[int, Answer]]]
) -> tuple[tuple[int, Answer], ...]:
    """Everything ``start`` implies through chains of rules (A implies B, B implies C), the
    nearest first, so the interview fills in what the matrix's implied cells already hold;
    ``kb check`` refuses rules whose chains clash."""
    found: dict[int, Answer] = {start[0]: Answer.YES if start[1] else Answer.NO}
    queue = list(rules.get(start, ()))
    while queue:
        query, answer = queue.pop(0)
        if query in found:
            continue
        found[query] = answer
        queue.extend(rules.get((query, answer is Answer.YES), ()))
    del found[start[0]]
    return tuple(found.items())


def exclusive_groups(kb) -> ExclusiveGroups:
    """The knowledge base's exclusive groups as one question asks them (members as query
    indices, and whether "none of these" is an answer)."""
    groups = tuple(getattr(kb, "exclusive_groups", ()))
    return ExclusiveGroups(
        tuple(tuple(kb.symptom_index(m) for m in g.members) for g in groups),
        tuple(bool(g.none_label) for g in groups),
    )


def state_for(kb, config: InterviewConfig, problem=None) -> InterviewState:
    """The engine state for ``config`` on ``kb`` (its problem, or ``problem`` built from it
    under another prior). Raises :class:`responder.config.ConfigError` for settings the
    knowledge base cannot take (eps above its number of queries, unknown error-prone ids)."""
    reported, unconscious = reported_mask(kb)
    return config.build_state(
        kb.problem if problem is None else problem,
        symptom_leaks=symptom_leaks(kb),
        evidence_defaults=getattr(kb, "answer_model", None),
        reported=reported,
        unconscious=unconscious,
        observed_margin=OBSERVED_MARGIN,
        shared=shared_mask(kb),
        implications=implications(kb),
    )
