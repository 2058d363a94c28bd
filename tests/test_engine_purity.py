"""The engine is pure numpy: nothing under responder/engine imports textual."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import responder.engine

ENGINE_DIR = Path(responder.engine.__file__).resolve().parent
FORBIDDEN = ("textual", "rich")


def engine_modules() -> list[Path]:
    files = sorted(ENGINE_DIR.rglob("*.py"))
    assert files, f"no modules found under {ENGINE_DIR}"
    return files


def imported_names(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, (ast.Name, ast.Attribute))
            and getattr(node.func, "id", getattr(node.func, "attr", "")) in ("import_module", "__import__")
            and node.args
            and isinstance(node.args[0], ast.Constant)
        ):
            names.add(str(node.args[0].value))
    return names


def test_no_engine_module_imports_textual():
    offenders = {}
    for path in engine_modules():
        bad = {n for n in imported_names(path) if n.split(".")[0] in FORBIDDEN}
        if bad:
            offenders[str(path.relative_to(ENGINE_DIR))] = sorted(bad)
    assert not offenders, f"engine modules import UI packages: {offenders}"


def test_engine_only_imports_numpy_stdlib_and_itself():
    allowed_third_party = {"numpy"}
    for path in engine_modules():
        for name in imported_names(path):
            top = name.split(".")[0]
            if top == "responder":
                # The engine stands alone: no app, knowledge-base or command modules.
                assert name.startswith("responder.engine"), f"{path.name} imports {name}"
                continue
            if top == "__future__" or top in sys.stdlib_module_names:
                continue
            assert top in allowed_third_party, f"{path.name} imports {name}"


def test_importing_every_engine_module_leaves_textual_unloaded():
    modules = [
        "responder.engine." + p.relative_to(ENGINE_DIR).with_suffix("").as_posix().replace("/", ".")
        for p in engine_modules()
        if p.name != "__init__.py"
    ]
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich'))\n"
        "print(','.join(bad))\n"
        "sys.exit(1 if bad else 0)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, f"loaded: {proc.stdout.strip()} {proc.stderr.strip()}"
