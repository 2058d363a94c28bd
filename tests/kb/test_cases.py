"""A case vignette's own report must not also be a source of the rows it validates."""

from __future__ import annotations

import pytest

from responder.kb import load_bundled, load_kb
from responder.kb.cases import document_key, load_cases, same_document

SYMPTOMS = """\
[[category]]
id = "x"
label = "Category X"

[[symptom]]
id = "a"
label = "Symptom A"
category = "x"

[[symptom]]
id = "b"
label = "Symptom B"
category = "x"
"""

CLASSES = '[[class]]\nid = "g1"\nlabel = "Group one"\n'

REPORT = "https://www.cdc.gov/mmwr/preview/mmwrhtml/mm0000a1.htm?s_cid=mm0000a1_w"


def chemical(name: str, url: str) -> str:
    return (
        f'[[chemical]]\nname = "{name}"\nsymptoms = ["a", "b"]\nsources = ["doc"]\n'
        f'[[chemical.evidence]]\ntitle = "CDC: a document"\nurl = "{url}"\nsymptoms = ["a", "b"]\n\n'
    )


@pytest.fixture
def kb(tmp_path):
    root = tmp_path / "kb"
    (root / "chemicals").mkdir(parents=True)
    (root / "symptoms.toml").write_text(SYMPTOMS)
    (root / "classes.toml").write_text(CLASSES)
    mirror = "http://mirror.example.org/modules/en-cdc/www.cdc.gov/mmwr/preview/mmwrhtml/mm0000a1.htm_s_cid=x"
    (root / "chemicals" / "g1.toml").write_text(
        'class = "g1"\n\n'
        + chemical("Reported", mirror)
        + chemical("Other", "https://www.cdc.gov/mmwr/preview/mmwrhtml/mm0000b2.htm")
    )
    return load_kb(root)


def write_case(folder, url: str):
    folder.mkdir()
    (folder / "c1.toml").write_text(
        f'agent = "Reported"\nclass = "g1"\ncitation = "CDC. A report. MMWR 2000;1:1"\nurl = "{url}"\n'
        '\n[[sign]]\nsymptom = "a"\npresent = true\nquote = "q"\n'
    )
    return folder


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("http://www.cdc.gov/mmwr/x/mm1.htm", "https://cdc.gov/mmwr/x/mm1.htm/", True),
        (
            "https://cdc.gov/mmwr/x/mm1.htm?s_cid=e",
            "http://m.org/en/www.cdc.gov/mmwr/x/mm1.htm_s_cid=e",
            True,
        ),
        ("https://cdc.gov/mmwr/x/mm1.htm", "https://cdc.gov/mmwr/x/mm2.htm", False),
        ("https://chemm.hhs.gov/", "https://chemm.hhs.gov/nerveagents.htm", False),
        ("https://a.org/p/report.htm", "https://b.org/p/report.htm", False),
    ],
)
def test_same_document_sees_through_copies_and_nothing_else(a, b, same):
    assert same_document(a, b) is same
    assert same_document(b, a) is same


def test_document_key_drops_scheme_query_and_www():
    assert document_key("HTTPS://www.CDC.gov/p/page.html#top") == "cdc.gov/p/page.html"


def test_a_case_whose_report_is_a_rows_source_is_warned_of(kb, tmp_path):
    _, warnings = load_cases(write_case(tmp_path / "cases", REPORT), kb)
    own = [w for w in warnings if "own report" in w.problem]
    assert len(own) == 1
    assert "Reported" in own[0].problem and "Other" not in own[0].problem
    assert own[0].severity == "warning"


def test_a_case_from_another_document_is_not_warned_of(kb, tmp_path):
    url = "https://www.cdc.gov/mmwr/preview/mmwrhtml/mm0000c3.htm"
    _, warnings = load_cases(write_case(tmp_path / "cases", url), kb)
    assert not [w for w in warnings if "own report" in w.problem]


def test_no_bundled_case_is_the_source_of_a_bundled_row():
    kb = load_bundled()
    _, warnings = load_cases(None, kb)
    assert [w.file for w in warnings if "own report" in w.problem] == []
