"""Knowledge-base loading is linear in the number of chemicals (finding the k-th
[[chemical]] table must not scan every header before it: that made 32,000 chemicals take
42 s).

Time is never asserted: the test counts the lines of the knowledge-base modules executed (a
deterministic measure of work) for n and 4n chemicals. Linear work gives a ratio near 4,
quadratic near 16.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import responder.kb
from responder.kb import load_kb


def write_kb(root: Path, n: int) -> Path:
    rnd = random.Random(n)
    symptoms = [f"s{j}" for j in range(30)]
    (root / "chemicals").mkdir(parents=True)
    (root / "symptoms.toml").write_text(
        '[[category]]\nid = "c"\nlabel = "C"\n'
        + "".join(
            f'\n[[symptom]]\nid = "{s}"\nlabel = "Symptom {s}"\ncategory = "c"\n' for s in symptoms
        )
    )
    (root / "classes.toml").write_text('[[class]]\nid = "k"\nlabel = "K"\n')
    body = ['class = "k"\n']
    for i in range(n):
        chosen = ", ".join(f'"{s}"' for s in rnd.sample(symptoms, 6))
        body.append(
            f'\n[[chemical]]\nname = "Chem {i}"\nsymptoms = [{chosen}]\nsources = ["Test source"]\n'
        )
    (root / "chemicals" / "k.toml").write_text("".join(body))
    return root


def loader_lines_executed(root: Path) -> int:
    count = 0
    # the loader and the modules checking each file (lines, fields, chemical files...)
    kb_dir = str(Path(responder.kb.__file__).parent)

    def tracer(frame, event, arg):
        nonlocal count
        if not frame.f_code.co_filename.startswith(kb_dir):
            return None
        if event == "line":
            count += 1
        return tracer

    sys.settrace(tracer)
    try:
        kb = load_kb(root, strict=False)
    finally:
        sys.settrace(None)
    assert len(kb.chemicals) > 0
    return count


def test_loading_work_grows_linearly_with_chemicals(tmp_path):
    small = loader_lines_executed(write_kb(tmp_path / "small", 150))
    large = loader_lines_executed(write_kb(tmp_path / "large", 600))
    ratio = large / small
    assert ratio < 5.0, f"4x the chemicals cost {ratio:.1f}x the work (quadratic would be ~16)"
