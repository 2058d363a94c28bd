"""``responder experiments``: bad input exits 2; --quick writes tables and JSON; seeds."""

import json

import numpy as np
import pytest

from responder.cli import main
from responder.experiments import report
from responder.experiments.runner import Task, run_tasks, task_seed


@pytest.fixture
def small_kb(tmp_path):
    rng = np.random.default_rng(0)
    B = (rng.random((24, 12)) < 0.35).astype(int)
    data = {
        "matrix": B.tolist(),
        "groups": [f"class{i % 4}" for i in range(24)],
        "query_groups": [f"cat{j % 3}" for j in range(12)],
    }
    path = tmp_path / "kb.json"
    path.write_text(json.dumps(data))
    return str(path)


@pytest.mark.parametrize(
    "argv, needle",
    [
        (["experiments", "nonsense"], "unknown experiment"),
        (["experiments", "group-id", "--datasets", "0"], "--datasets"),
        (["experiments", "group-id", "--jobs", "0"], "--jobs"),
        # an OverflowError traceback, and 500 would have started 500 processes at once
        (["experiments", "group-id", "--jobs", "99999999999999999"], "--jobs must be from 1"),
        (["experiments", "group-id", "--jobs", "500"], "--jobs must be from 1 to 256"),
        # an OverflowError traceback, and a run that would not end
        (["experiments", "group-id", "--trials", "99999999999999999999"], "--trials must be"),
        (["experiments", "group-id", "--datasets", "99999999999999999999"], "--datasets must"),
    ],
)
def test_bad_input_exits_2(argv, needle, capsys, tmp_path):
    assert main(argv + ["--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and needle in err[0]


def test_unwritable_out_exits_2(capsys, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert main(["experiments", "diagnostic", "--out", str(blocker / "sub")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--out" in err[0]


@pytest.mark.parametrize("out", ["", "  "])
def test_an_empty_out_is_refused_not_taken_as_the_current_folder(
    capsys, tmp_path, monkeypatch, out
):
    """--out "$DIR" with DIR unset wrote every table and plot into the current folder."""
    monkeypatch.chdir(tmp_path)
    assert main(["experiments", "diagnostic", "--quick", "--no-progress", "--out", out]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        "responder: error: --out is empty; give the folder for the tables and plots "
        "(default experiments-out)"
    ]
    assert list(tmp_path.iterdir()) == []


def test_bad_kb_exits_2(capsys, tmp_path):
    assert (
        main(
            [
                "experiments",
                "diagnostic",
                "--kb",
                str(tmp_path / "missing.json"),
                "--out",
                str(tmp_path / "o"),
            ]
        )
        == 2
    )
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_quick_all_writes_tables_and_json(small_kb, tmp_path, capsys):
    out = tmp_path / "out"
    code = main(
        [
            "experiments",
            "all",
            "--quick",
            "--datasets",
            "1",
            "--kb",
            small_kb,
            "--out",
            str(out),
            "--no-progress",
        ]
    )
    assert code == 0
    for name in ("group-id", "query-groups", "noise", "diagnostic"):
        assert (out / f"{name}.md").read_text().startswith("# ")
        data = json.loads((out / f"{name}.json").read_text())
        assert data["experiment"] == name
    gid = json.loads((out / "group-id.json").read_text())
    assert gid["kb"]["policies"]["gisa"]["mean"] > 0
    assert all(r["gisa"]["mean"] >= r["entropy"]["mean"] - 1e-9 for r in gid["sweep"])
    assert (out / "index.md").exists() and (out / "run.json").exists()
    if report.pyplot() is not None:
        assert (out / "group-id.png").exists()


def test_without_matplotlib_tables_only(small_kb, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(report, "pyplot", lambda: None)
    out = tmp_path / "out"
    assert (
        main(
            [
                "experiments",
                "diagnostic",
                "--quick",
                "--kb",
                small_kb,
                "--out",
                str(out),
                "--no-progress",
            ]
        )
        == 0
    )
    assert "matplotlib is not installed" in capsys.readouterr().err
    assert (out / "diagnostic.md").exists() and not (out / "diagnostic.png").exists()


def _draw(seed, key):
    return float(np.random.default_rng(task_seed(seed, *key)).random())


def test_no_more_processes_start_than_there_are_tasks(monkeypatch):
    """--jobs 64 on two tasks started 64 worker processes."""
    from responder.experiments import runner  # noqa: PLC0415

    started = []

    class Pool(runner.ProcessPoolExecutor):
        def __init__(self, max_workers):
            started.append(max_workers)
            super().__init__(max_workers=max_workers)

    monkeypatch.setattr(runner, "ProcessPoolExecutor", Pool)
    tasks = [Task(_draw, dict(seed=7, key=(1, i))) for i in range(2)]
    assert len(run_tasks(tasks, jobs=64, progress=False)) == 2 and started == [2]


def test_task_seeds_do_not_depend_on_jobs():
    tasks = [Task(_draw, dict(seed=7, key=(1, i))) for i in range(6)]
    assert run_tasks(tasks, jobs=1, progress=False) == run_tasks(tasks, jobs=2, progress=False)
    assert len(set(run_tasks(tasks, jobs=1, progress=False))) == 6


def test_results_reproducible_regardless_of_jobs(small_kb, tmp_path):
    outs = []
    for jobs in (1, 2):
        out = tmp_path / f"j{jobs}"
        assert (
            main(
                [
                    "experiments",
                    "group-id",
                    "--quick",
                    "--datasets",
                    "2",
                    "--kb",
                    small_kb,
                    "--seed",
                    "11",
                    "--jobs",
                    str(jobs),
                    "--out",
                    str(out),
                    "--no-progress",
                ]
            )
            == 0
        )
        outs.append(json.loads((out / "group-id.json").read_text()))
    assert outs[0] == outs[1]
    other = tmp_path / "s12"
    main(
        [
            "experiments",
            "group-id",
            "--quick",
            "--datasets",
            "2",
            "--kb",
            small_kb,
            "--seed",
            "12",
            "--out",
            str(other),
            "--no-progress",
        ]
    )
    assert json.loads((other / "group-id.json").read_text())["sweep"] != outs[0]["sweep"]


@pytest.mark.parametrize("flag, expected", [([], "uniform"), (["--prior", "kb"], "not uniform")])
def test_knowledge_base_tables_use_the_papers_uniform_prior_unless_asked(tmp_path, flag, expected):
    """The paper's WISER tables assume every chemical equally likely; the bundled knowledge
    base defaults to every class equally likely. The tables use the paper's prior unless
    --prior kb asks for the knowledge base's own."""
    rng = np.random.default_rng(1)
    data = {
        "matrix": (rng.random((12, 8)) < 0.4).astype(int).tolist(),
        "groups": ["a"] * 9 + ["b"] * 3,
        "prior": [1.0] * 9 + [3.0] * 3,
    }  # not uniform
    path = tmp_path / "kb.json"
    path.write_text(json.dumps(data))
    out = tmp_path / "out"
    assert (
        main(
            [
                "experiments",
                "group-id",
                "--quick",
                "--datasets",
                "1",
                "--kb",
                str(path),
                "--out",
                str(out),
                "--no-progress",
                *flag,
            ]
        )
        == 0
    )
    summary = json.loads((out / "group-id.json").read_text())["kb"]["summary"]
    assert expected in summary["prior"]
    assert ("not uniform" in summary["prior"]) == bool(flag)


def test_out_naming_a_file_says_it_is_a_file(tmp_path, capsys):
    """--out results.md (a file already there) said 'cannot create the folder (File
    exists)', as if the folder were there already."""
    existing = tmp_path / "results.md"
    existing.write_text("notes\n")
    assert main(["experiments", "diagnostic", "--quick", "--out", str(existing)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"--out {existing}: this is a file, not a folder" in err[0]
    assert existing.read_text() == "notes\n"
