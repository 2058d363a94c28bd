"""The evidence mode on a large knowledge base: the candidates' row groups are found once,
when the model is built (a search over every chemical for each group made listing the
candidates quadratic in the chemicals: 2,000 chemicals, 4 million comparisons a screen)."""

from __future__ import annotations

import numpy as np

from responder.engine.evidence import AnswerModel, EvidenceModel
from responder.engine.problem import Problem


def test_each_row_groups_members_come_from_the_model_built_once():
    rng = np.random.default_rng(4)
    rows = rng.integers(0, 2, size=(12, 6)).astype(bool)
    matrix = np.vstack([rows, rows[[0, 3, 3, 7]]])  # identical rows share a group
    problem = Problem.build(matrix, object_groups=[str(k % 3) for k in range(16)])
    model = EvidenceModel(problem, AnswerModel(0.85, 0.05), target="object")
    belief = model.belief({0: True, 2: False})
    groups = model.row_groups
    for g in range(int(groups.max()) + 1):
        members = belief.members(g)
        assert members is model.row_group_members[g]  # looked up, not searched for
        np.testing.assert_array_equal(members, np.flatnonzero(groups == g))
    listed = np.concatenate(model.row_group_members)
    np.testing.assert_array_equal(np.sort(listed), np.arange(16))
    assert len(belief.members(int(groups[3]))) >= 3  # row 3 and its two copies


def test_identical_rows_share_a_code_and_no_other_rows_do():
    from responder.engine.evidence import _identical_rows

    rng = np.random.default_rng(9)
    rows = rng.choice([0.0, 0.05, 0.85], size=(30, 5))
    rows[[4, 11, 20]] = rows[2]
    rows[7] = 0.0
    rows[8] = -0.0  # the same row as 7
    codes = _identical_rows(rows)
    _, reference = np.unique(rows, axis=0, return_inverse=True)
    reference = reference.reshape(-1)
    for i in range(30):
        np.testing.assert_array_equal(codes == codes[i], reference == reference[i])
    assert codes[7] == codes[8] and len(set(codes[[2, 4, 11, 20]].tolist())) == 1
