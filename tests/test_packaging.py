"""The package list in pyproject.toml covers every package folder, and kb/ ships with it."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _declared() -> set[str]:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return set(data["tool"]["setuptools"]["packages"])


def test_every_package_folder_is_declared():
    found = {
        ".".join(p.parent.relative_to(ROOT).parts)
        for p in (ROOT / "responder").rglob("__init__.py")
    }
    missing = found - _declared()
    assert not missing, f"add these to [tool.setuptools] packages in pyproject.toml: {missing}"


def test_bundled_kb_is_importable_as_a_resource():
    import importlib.resources as resources

    files = resources.files("responder.bundled_kb")
    assert (files / "symptoms.toml").is_file()
    assert (files / "classes.toml").is_file()
    assert "responder.bundled_kb" in _declared()


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    command = 'python -m pip install -e ".[test]" && python -m pytest -n auto'
    assert command in readme
    assert command in ci
