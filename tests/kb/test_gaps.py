"""What a knowledge base leaves unsaid (``responder.kb.gaps``): unrecorded scene categories and
unverified cells, read the way the engine grades them."""

from __future__ import annotations

import numpy as np
from test_scene_and_grades import CHEMICALS, write_kb

from responder.engine.problem import UNRECORDED
from responder.kb import load_kb
from responder.kb.gaps import find_gaps
from responder.kb.loader import load_bundled


def by_id(gaps):
    return {c.id: c for c in gaps.chemicals}


def test_unrecorded_categories_and_unverified_cells_per_chemical(tmp_path):
    gaps = find_gaps(load_kb(write_kb(tmp_path)))
    assert gaps.graded
    chems = by_id(gaps)
    # chlorine's case definition supports cough, its smell and the pool; wheezing rests on
    # nothing read
    assert chems["chlorine"].unrecorded == ()
    assert chems["chlorine"].no_document == ("wheezing",)
    # ammonia records no document at all, and nothing of the scene
    assert chems["ammonia"].unrecorded == ("odour", "setting")
    assert chems["ammonia"].no_document == ("cough",)
    assert not chems["ammonia"].source_checked
    # sarin's facts page supports pinpoint pupils and the garlic smell only
    assert chems["sarin"].unrecorded == ("setting",)
    assert chems["sarin"].no_document == ("wheezing", "dilated_pupils")
    assert [(c.id, c.missing) for c in gaps.categories] == [
        ("odour", ("ammonia",)),
        ("setting", ("ammonia", "sarin")),
    ]
    assert gaps.unverified_cells == 4 and gaps.unchecked == 3
    assert [c.id for c in gaps.most_missing()] == ["ammonia", "sarin", "chlorine"]
    assert [c.id for c in gaps.most_missing(limit=1)] == ["ammonia"]


def test_a_cell_only_a_supplementary_document_supports_is_told_apart(tmp_path):
    reviewed = CHEMICALS + (
        "\n[[chemical.evidence]]\n"
        'title = "Peer-reviewed: Ammonia inhalation injury (J Burn Care Res 2010)"\n'
        'url = "https://example.org/ammonia"\n'
        'symptoms = ["cough"]\n'
    )
    kb = load_kb(write_kb(tmp_path, chemicals__gases_toml=reviewed))
    ammonia = by_id(find_gaps(kb))["ammonia"]
    assert kb.chemical("Ammonia").grade("cough") == "unverified"
    assert ammonia.no_document == () and ammonia.supplementary_only == ("cough",)
    assert ammonia.unverified == ("cough",)


def test_a_knowledge_base_without_documents_calls_no_cell_unverified(tmp_path):
    bare = 'class = "gases"\n\n[[chemical]]\nname = "Ammonia"\ncas = "7664-41-7"\n'
    bare += 'symptoms = ["cough"]\nsources = ["ATSDR MMG: Ammonia"]\n'
    kb = load_kb(write_kb(tmp_path, chemicals__gases_toml=bare, chemicals__nerve_toml=None))
    gaps = find_gaps(kb)
    assert not kb.graded and not gaps.graded
    assert gaps.unverified_cells == 0
    assert by_id(gaps)["ammonia"].unrecorded == ("odour", "setting")


def test_the_bundled_gaps_are_the_engines_unrecorded_and_unverified_cells():
    kb = load_bundled()
    gaps = find_gaps(kb)
    G = kb.grades
    for cat in gaps.categories:
        cols = list(next(c for c in kb.categories if c.id == cat.id).symptoms)
        unrecorded = np.flatnonzero((G[:, cols] == UNRECORDED).all(axis=1))
        assert cat.missing == tuple(kb.chemicals[i].id for i in unrecorded), cat.id
    unverified = sum(
        chem.grade(cell) == "unverified" for chem in kb.chemicals for cell in chem.symptoms
    )
    assert gaps.unverified_cells == unverified > 0
    assert gaps.to_dict()["chemical_gaps"][0]["id"] in {c.id for c in gaps.chemicals}
