"""A much larger knowledge base: the bundled one scaled up, as a site might load.

    python benchmarks/bench_large_kb.py [--chemicals 2000] [--observations 500] [--keep DIR]

Writes a copy of the bundled knowledge base with made-up signs (``sign_<k>``, spread over
the bundled categories) until it has ``--observations`` observations, and made-up chemicals
(one more file per bundled class, ``synthetic_<class>.toml``, by turn, each with a valid CAS
number, 6-16 signs of the whole list, some graded hallmark) until it has ``--chemicals``.
Nothing of the bundled files changes, so ``kb check`` reads them as it reads the bundled ones.

Then times, on it and on the bundled one (the reference, in the same process where it can
be): ``kb check`` (a new process), loading it (checking every file, then from the cache),
one selection in evidence mode (the posterior, the stopping test and the best question,
as ``benchmarks/bench_evidence.py`` times it, at the root and after 5 answers), and the app
to its first question (a new process, headless, 80x24). ``uptime`` before each set.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from startup import CHILD  # noqa: E402 (the start-up benchmark's child: app to first question)

CATEGORIES = ("eyes", "ent", "breathing", "heart", "stomach", "nervous", "skin")


def uptime() -> str:
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    except OSError:
        return "uptime not available"


def cas_number(k: int) -> str:
    """A made-up CAS number with a correct check digit (900000-00-x and up)."""
    body = f"{9000000 + k}"
    digits = [int(c) for c in reversed(body)]
    check = sum((i + 1) * d for i, d in enumerate(digits)) % 10
    return f"{body[:-2]}-{body[-2:]}-{check}"


def write_scaled_kb(dest: Path, chemicals: int, observations: int, seed: int = 7) -> Path:
    from responder.kb.resolve import load_knowledge

    bundled = load_knowledge(None)
    shutil.copytree(Path(bundled.describe()["origin"]), dest)
    shutil.rmtree(dest / "cases", ignore_errors=True)  # vignettes: not what is measured
    rnd = random.Random(seed)
    n_new = max(0, observations - len(bundled.symptoms))
    signs = [s.id for s in bundled.symptoms if s.kind != "scene"]
    lines = []
    for k in range(n_new):
        sid = f"sign_{k}"
        signs.append(sid)
        lines += [
            "",
            "[[symptom]]",
            f'id = "{sid}"',
            f'label = "Made-up sign {k}"',
            f'category = "{CATEGORIES[k % len(CATEGORIES)]}"',
            f'check = "Look for made-up sign {k}."',
            'observation = "observed"',
        ]
    with open(dest / "symptoms.toml", "a", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    classes = sorted({c.class_id for c in bundled.chemicals})
    n_chem = max(0, chemicals - len(bundled.chemicals))
    files: dict[str, list[str]] = {c: [f'class = "{c}"'] for c in classes}
    for k in range(n_chem):
        chosen = rnd.sample(signs, rnd.randint(6, 16))
        hallmark = chosen[: rnd.randint(0, 3)]
        body = files[classes[k % len(classes)]]
        body += [
            "",
            "[[chemical]]",
            f'name = "Made-up agent {k}"',
            f'cas = "{cas_number(k)}"',
            "symptoms = [" + ", ".join(f'"{s}"' for s in chosen) + "]",
            'sources = ["Made up for the scale benchmark"]',
        ]
        if hallmark:
            body += [
                "[[chemical.evidence]]",
                'title = "Made up for the scale benchmark"',
                "hallmark = [" + ", ".join(f'"{s}"' for s in hallmark) + "]",
                "symptoms = [" + ", ".join(f'"{s}"' for s in chosen) + "]",
            ]
    for c, body in files.items():
        path = dest / "chemicals" / f"synthetic_{c}.toml"
        path.write_text("\n".join(body) + "\n", encoding="utf-8")
    return dest


def timed_process(cmd: list[str], env: dict, runs: int) -> float:
    walls = []
    for _ in range(runs):
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=ROOT)
        walls.append(time.perf_counter() - t0)
        if proc.returncode != 0:
            raise SystemExit(f"{' '.join(cmd)} failed:\n{proc.stdout[-1500:]}{proc.stderr[-1500:]}")
    return statistics.median(walls)


def selection_ms(kb) -> tuple[float, float]:
    """Median ms of one evidence-mode selection at the root and after 5 answers."""
    from responder.config import InterviewConfig
    from responder.core.modes import state_for

    root, later = [], []
    for _ in range(7):
        state = state_for(kb, InterviewConfig())
        t0 = time.perf_counter()
        state.suggestion()
        root.append(time.perf_counter() - t0)
        for _ in range(5):
            choice = state.suggestion()
            if choice is None:
                break
            state.answer(int(choice.queries[0]), "no")
        t0 = time.perf_counter()
        state.suggestion()
        later.append(time.perf_counter() - t0)
    return statistics.median(root) * 1000, statistics.median(later) * 1000


def measure(kb_spec: str | None, home: Path, runs: int) -> dict[str, float]:
    from responder.kb import cache
    from responder.kb.resolve import load_knowledge

    env = {**os.environ, "RESPONDER_HOME": str(home)}
    spec = [] if kb_spec is None else ["--kb", kb_spec]
    out = {
        "kb check (new process)": timed_process(
            [sys.executable, "-m", "responder.cli", *spec, "kb", "check"], env, runs
        )
    }
    os.environ["RESPONDER_HOME"] = str(home)
    shutil.rmtree(home / "cache", ignore_errors=True)
    cache._recent.clear()  # as in a new process
    t0 = time.perf_counter()
    kb = load_knowledge(kb_spec)
    out["load, checking every file"] = time.perf_counter() - t0
    cache._recent.clear()
    t0 = time.perf_counter()
    kb = load_knowledge(kb_spec)
    out["load from the cache (new process: pickled file)"] = time.perf_counter() - t0
    root, later = selection_ms(kb)
    out["one selection, evidence mode, root"] = root / 1000
    out["one selection, after 5 answers"] = later / 1000
    starts = []
    for _ in range(runs):
        proc = subprocess.run(
            [sys.executable, "-c", CHILD, kb_spec or ""],
            env=env,
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=300,
        )
        ready = [line for line in proc.stdout.splitlines() if line.startswith("READY")]
        if not ready:
            raise SystemExit(f"the app did not start:\n{proc.stderr[-2000:]}")
        starts.append(float(ready[0].split()[1]))
    out["app to the first question (in its process)"] = statistics.median(starts)
    out["size"] = len(kb.chemicals) * 1e-3, len(kb.symptoms) * 1e-3
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chemicals", type=int, default=2000)
    parser.add_argument("--observations", type=int, default=500)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--keep", default=None, help="write the knowledge base here and keep it")
    args = parser.parse_args(argv)
    base = Path(args.keep or tempfile.mkdtemp(prefix="scale-kb-"))
    base.mkdir(parents=True, exist_ok=True)
    try:
        kb_dir = base / "large"
        if not kb_dir.exists():
            write_scaled_kb(kb_dir, args.chemicals, args.observations)
        results = {}
        for name, spec in (("bundled", None), ("large", str(kb_dir))):
            print(f"{name}: {uptime()}")
            results[name] = measure(spec, base / f"home-{name}", args.runs)
            chems, obs = results[name].pop("size")
            print(f"  {chems * 1000:.0f} chemicals x {obs * 1000:.0f} observations")
        print(f"\n{'':50}{'bundled':>12}{'large':>12}{'ratio':>8}")
        for key, ref in results["bundled"].items():
            big = results["large"][key]
            print(f"{key:50}{ref * 1000:10.1f}ms{big * 1000:10.1f}ms{big / ref:8.1f}")
    finally:
        if args.keep is None:
            shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
