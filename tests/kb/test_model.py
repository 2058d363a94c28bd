"""The one view of a knowledge base: engine positions, labels, lookups and search."""

from __future__ import annotations

from pathlib import Path

import pytest

from responder.kb.model import match_score
from responder.kb.resolve import KnowledgeError, load_knowledge

FIXTURE_KB = Path(__file__).resolve().parents[1] / "app" / "fixtures" / "kb"


@pytest.fixture(scope="module")
def knowledge():
    return load_knowledge(str(FIXTURE_KB))


# -- engine positions and labels ------------------------------------------------------------------------


def test_adapter_indexes_match_the_engine(knowledge):
    p = knowledge.problem
    assert p.query_names == knowledge.symptom_ids
    assert [c.name for c in knowledge.chemicals] == list(p.object_names)
    for c in knowledge.chemicals:
        assert knowledge.classes[p.object_groups[c.index]].id == c.class_id
        row = {knowledge.symptoms[j].id for j in range(p.n_queries) if p.matrix[c.index, j]}
        assert row == c.symptoms
    for s in knowledge.symptoms:
        assert knowledge.categories[p.query_groups[s.index]].id == s.category_id
    chlorine = knowledge.chemicals[knowledge.chemical_index("chlorine")]
    assert chlorine.cas == "7782-50-5" and chlorine.un == "1017"


@pytest.mark.parametrize(
    "typed, expected",
    [
        ("cough", "cough"),
        ("COUGH", "cough"),
        ("pupil", "pinpoint_pupils"),
        ("shrt brth", "shortness_of_breath"),
        ("convuls", "seizures"),
        ("watery", "tearing"),
        ("sweat", "sweating"),
        ("breath", "shortness_of_breath"),
    ],
)
def test_symptom_search_is_forgiving(knowledge, typed, expected):
    assert knowledge.search_symptoms(typed)[0].id == expected


def test_search_ranks_prefixes_first_and_finds_nothing_for_nonsense(knowledge):
    assert match_score("cou", "Cough") > match_score("cou", "Sudden cough")
    assert knowledge.search_symptoms("xqzw") == []
    assert len(knowledge.search_symptoms("")) == len(knowledge.symptoms)
    assert knowledge.search_chemicals("1017")[0].name == "Chlorine"


def test_search_keeps_letters_of_every_script():
    """Chinese or Cyrillic text is a query, not an empty one: it matches its own name only."""
    assert match_score("头痛", "头痛") > 0 and match_score("头痛", "咳嗽") == 0
    assert match_score("одыш", "Одышка") > match_score("одыш", "Кашель") == 0


def test_a_bad_knowledge_base_is_one_message(tmp_path):
    (tmp_path / "symptoms.toml").write_text("[[symptom]]\nid = 'Bad Id'\n")
    with pytest.raises(KnowledgeError) as err:
        load_knowledge(str(tmp_path))
    assert "symptoms.toml" in str(err.value)
    with pytest.raises(KnowledgeError) as err:
        load_knowledge("no-such-kb")
    assert "no knowledge base has this name" in str(err.value)


def test_naming_chemicals_without_cas_numbers_compares_no_two_rows(tmp_path, monkeypatch):
    """Every chemical of a CSV imported without a CAS column has an empty CAS number, and
    the index of the names that resolve a chemical (kb steps, kb gaps --chemical, the browse
    screen's filter) compared each such chemical with every one before it, whole rows: 2.8 s
    for 2,000 chemicals, at the browse screen's first keystroke. The index takes each
    chemical once, by row, and no name is empty."""
    from responder import paths
    from responder.kb.csv_import import import_csv
    from responder.kb.model import Chemical

    monkeypatch.setenv(paths.HOME_ENV, str(tmp_path / "home"))
    csv = tmp_path / "many.csv"
    rows = "".join(f"Agent {i},Class {i % 3},{i % 2},{1 - i % 2}\n" for i in range(60))
    csv.write_text("name,class,cough,headache\n" + rows, encoding="utf-8")
    kb, _ = import_csv(csv)
    assert all(not c.cas for c in kb.chemicals)
    compared = []

    def counted_eq(self, other):
        compared.append(1)
        return self is other

    monkeypatch.setattr(Chemical, "__eq__", counted_eq)
    assert kb.resolve_chemical("agent 41").name == "Agent 41"
    assert kb.resolve_chemical("Agent-7").name == "Agent 7"
    assert compared == []
    assert "" not in kb._chemicals_by_name
