"""Experiment results are written whole: an interrupted run leaves the previous file as it was."""

from __future__ import annotations

import json

import pytest

from responder import durable
from responder.experiments.report import save_figure, write_json, write_text


def interrupt_before_the_file_is_complete(monkeypatch):
    def interrupted(fd):
        raise KeyboardInterrupt

    monkeypatch.setattr(durable.os, "fsync", interrupted)


def test_an_interrupted_json_write_leaves_the_previous_result_whole(tmp_path, monkeypatch):
    target = tmp_path / "group_id.json"
    write_json(target, {"gisa": 7.792})
    interrupt_before_the_file_is_complete(monkeypatch)
    with pytest.raises(KeyboardInterrupt):
        write_json(target, {"gisa": 7.8, "gbs": 7.948})
    assert json.loads(target.read_text(encoding="utf-8")) == {"gisa": 7.792}
    assert [p.name for p in tmp_path.iterdir()] == ["group_id.json"]


def test_an_interrupted_markdown_write_leaves_the_previous_result_whole(tmp_path, monkeypatch):
    target = tmp_path / "group_id.md"
    write_text(target, "| GISA | 7.792 |\n")
    interrupt_before_the_file_is_complete(monkeypatch)
    with pytest.raises(KeyboardInterrupt):
        write_text(target, "| GISA | 7.8")
    assert target.read_text(encoding="utf-8") == "| GISA | 7.792 |\n"


def test_a_figure_is_written_as_png_and_svg(tmp_path):
    plt = pytest.importorskip("matplotlib.pyplot")
    fig, ax = plt.subplots()
    ax.plot([1, 2], [3, 4])
    names = save_figure(fig, tmp_path / "curve")
    assert names == ["curve.png", "curve.svg"]
    assert (tmp_path / "curve.png").read_bytes().startswith(b"\x89PNG")
    assert b"<svg" in (tmp_path / "curve.svg").read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == names
