"""The engine's E[K] is bit-for-bit what it was when the baseline was recorded
(benchmarks/ek_baseline.py; the whole 1,000 instances are checked with its ``check``)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "ek_baseline.py"


def load_script():
    spec = importlib.util.spec_from_file_location("ek_baseline", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_first_instances_match_the_recorded_baseline_exactly():
    baseline = load_script()
    expected = json.loads(baseline.BASELINE.read_text(encoding="utf-8"))
    assert len(expected) == baseline.INSTANCES
    assert baseline.differences(expected, n=8) == []


def test_a_changed_value_is_reported():
    baseline = load_script()
    expected = json.loads(baseline.BASELINE.read_text(encoding="utf-8"))[:1]
    expected[0]["object/gbs"] = (float.fromhex(expected[0]["object/gbs"]) + 2**-40).hex()
    assert [line.split(":")[0] for line in baseline.differences(expected)] == [
        "instance 0 object/gbs"
    ]
