"""Line numbers of keys and values in a TOML text: the per-table key index finds the same
line as scanning for ``key =`` would."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from responder.kb.toml_lines import TomlLines

KEYS = ["name", "cas", "symptoms", "a-b", "x_1", "sym", "symptoms2"]
LINE = st.one_of(
    st.sampled_from(KEYS).map(lambda k: f"{k} = 1"),
    st.sampled_from(KEYS).map(lambda k: f'  {k}= ["a",'),
    st.sampled_from(['"a", "b"]', "# note", "", "[[chemical]]", "[[chemical.evidence]]"]),
    st.text(alphabet="ab =#[]\"'\t", max_size=12),
)


def scanned(lines: TomlLines, span, key: str):
    pat = re.compile(rf"^\s*{re.escape(key)}\s*=")
    return next((n for n in range(*span) if pat.match(lines.lines[n - 1])), None)


@given(st.lists(LINE, max_size=30), st.sampled_from([*KEYS, "a b", "x=y"]))
def test_a_key_is_found_on_the_line_a_scan_finds(rows, key):
    lines = TomlLines("\n".join(rows))
    spans = [lines.top()] + [
        lines.table(name, k)
        for name in ("chemical", "chemical.evidence")
        for k in range(len(lines._array_tables.get(name, [])))
    ]
    for span in spans:
        assert lines.key(span, key) == scanned(lines, span, key)
        assert lines.key(span, key) == scanned(lines, span, key)  # again, from the index


def test_values_and_keys_in_a_table():
    text = '[[chemical]]\nname = "Chlorine"\nsymptoms = ["cough",\n  "wheezing"]\n[[chemical]]\nname = "X"\n'
    lines = TomlLines(text)
    first = lines.table("chemical", 0)
    assert lines.key(first, "name") == 2 and lines.key(first, "cas") is None
    assert lines.value(first, "symptoms", "wheezing") == 4
    assert lines.key(lines.table("chemical", 1), "name") == 6
