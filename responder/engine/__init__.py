"""The decision engine: pure numpy, no user-interface imports.

Implements Bellala, Bhavnani and Scott, "Group-based query learning for rapid diagnosis in
time-critical situations" (shared/paper/group_diagnosis_v7.tex).
"""

from responder.engine.problem import Problem, ProblemError

__all__ = ["Problem", "ProblemError"]
