"""A checked knowledge base is kept in the cache folder: the next load with the same files
reads it back instead of checking every file; any change, damage or error means a check."""

from __future__ import annotations

import pytest
from kb_helpers import write_files
from test_loader import CLASSES, CORROSIVES, IRRITANTS, SYMPTOMS

import responder.kb.loader as loader
from responder.kb import KBError, cache, load_kb


@pytest.fixture(autouse=True)
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("RESPONDER_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("RESPONDER_NO_KB_CACHE", raising=False)
    monkeypatch.setattr(cache, "_recent", {})  # as in a new process
    (tmp_path / "home").mkdir()  # a cache never creates the home
    return tmp_path / "home"


@pytest.fixture
def checks(monkeypatch) -> list[str]:
    """The names of the knowledge bases checked from their files."""
    seen: list[str] = []
    real = loader.check_files

    def counted(files, **kwargs):
        seen.append(kwargs["name"])
        return real(files, **kwargs)

    monkeypatch.setattr(loader, "check_files", counted)
    return seen


def folder(root, **edits):
    return write_files(
        root,
        {
            "symptoms.toml": SYMPTOMS,
            "classes.toml": edits.get("classes", CLASSES),
            "chemicals/irritant_gases.toml": IRRITANTS,
            "chemicals/corrosives.toml": CORROSIVES,
        },
    )


def test_the_second_load_reads_the_checked_knowledge_base_back(tmp_path, checks, home):
    root = folder(tmp_path / "kb")
    first = load_kb(root)
    second = load_kb(root)
    assert checks == ["kb"]  # checked once
    assert [c.name for c in second.chemicals] == [c.name for c in first.chemicals]
    assert (second.problem.matrix == first.problem.matrix).all()
    assert second.digest == first.digest
    assert list((home / "cache" / "kb").glob("*.pickle"))


def test_a_changed_file_is_checked_again(tmp_path, checks):
    root = folder(tmp_path / "kb")
    load_kb(root)
    (root / "classes.toml").write_text(CLASSES.replace("Corrosives", "Acids"), "utf-8")
    assert [c.label for c in load_kb(root).classes] == ["Irritant gases", "Acids"]
    assert checks == ["kb", "kb"]


def test_a_damaged_cache_file_is_a_miss_not_an_error(tmp_path, checks, home):
    root = folder(tmp_path / "kb")
    load_kb(root)
    cache._recent.clear()  # the next start
    for path in (home / "cache" / "kb").glob("*.pickle"):
        path.write_bytes(b"not a pickle")
    assert len(load_kb(root).chemicals) == 3
    assert checks == ["kb", "kb"]


def test_a_knowledge_base_with_errors_is_never_kept(tmp_path, checks, home):
    root = folder(tmp_path / "kb", classes=CLASSES.replace('id = "corrosives"', 'id = "Bad Id"'))
    for _ in range(2):
        with pytest.raises(KBError, match="not a valid id"):
            load_kb(root)
    assert checks == ["kb", "kb"]
    assert not list((home / "cache" / "kb").glob("*.pickle"))


def test_the_cache_can_be_turned_off(tmp_path, checks, monkeypatch):
    monkeypatch.setenv("RESPONDER_NO_KB_CACHE", "1")
    root = folder(tmp_path / "kb")
    load_kb(root)
    load_kb(root)
    assert checks == ["kb", "kb"]


def test_a_second_load_in_one_process_is_a_fresh_copy_without_the_folder(tmp_path, checks, home):
    import shutil

    root = folder(tmp_path / "kb")
    first = load_kb(root)
    shutil.rmtree(home / "cache")  # RESPONDER_HOME moved: the process still has it
    second = load_kb(root)
    assert checks == ["kb"]
    assert second is not first and second.chemicals is not first.chemicals
    assert [c.name for c in second.chemicals] == [c.name for c in first.chemicals]
    cache._recent.clear()
    load_kb(root)
    assert checks == ["kb", "kb"]  # nothing left anywhere: checked again


@pytest.mark.parametrize("argv", [["kb", "info"], ["kb", "check"], ["kb", "steps", "chlorine"]])
def test_a_command_that_only_reads_creates_no_home_for_the_cache(
    argv, tmp_path, monkeypatch, capsys
):
    """`responder kb info` and `kb check` with a RESPONDER_HOME that does not exist (a
    typo, a fresh machine) wrote the checked knowledge base's cache there, creating the
    home and its cache folder, as `incidents list` once created the database. A cache goes
    only into a home that exists; the command's answer is the same."""
    from responder.cli import main  # noqa: PLC0415

    home = tmp_path / "typo"
    monkeypatch.setenv("RESPONDER_HOME", str(home))
    assert main(argv) == 0
    said = capsys.readouterr().out
    assert not home.exists()
    home.mkdir()  # a home that exists keeps the cache, as before
    cache._recent.clear()
    assert main(argv) == 0
    assert capsys.readouterr().out == said
    assert list((home / "cache" / "kb").glob("*.pickle"))
