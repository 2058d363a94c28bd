"""Key latency of the interview app: from a key sent to the terminal to the screen showing
its effect, in a real terminal (tmux) at the design size, 80x24.

    python benchmarks/keys.py [--kb NAME|PATH] [--chemical Chlorine] [--load] [--json FILE]

The app runs as ``python -m responder.cli`` (this checkout, the interpreter running the
benchmark: no launcher script in between) on a fresh private RESPONDER_HOME, in the evidence
mode with the scene step first, as a new responder would meet it. A scripted interview sends
one key at a time, ``--pace`` seconds (0.15: a fast typist) after the last one showed, and polls
the pane (``tmux capture-pane``) until what the key changes is on screen: the answer count after y / n / u / z, the policy after m, the dialog or screen after
/ h b ? r x s and its closing after Esc. The answers follow one chemical's profile; a shadow
interview in this process, with the same knowledge base and settings, knows the question the
app asks (the engine is deterministic).

``--load`` runs everything twice: quiet, then with a second CPU-bound process
(``python -c "while True: pass"``) started before and ended (by its pid) after. The target is
every key within 100 ms. The figure includes one poll of the pane (a few ms): an upper bound.
"In the app" is each key's time from the key event (made by Textual's input thread from the
terminal's bytes) to the first frame written after it, logged inside the app: what the key
costs without the terminal and the polling around it.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET_S = 0.100
SIZE = (80, 24)


#: Run in the pane: the app as ``python -m responder.cli`` runs it, and a log of each key's
#: time inside the app, from the key event the terminal's bytes became (in Textual's input
#: thread) to the end of the first frame written after the app handled it.
TRACED = r"""
import sys, time
import responder.app  # first, as `responder` does: its settings come before Textual's
import textual.app
from textual import events
log = open(sys.argv[1], "w", buffering=1)
pending = []
real_on_event = textual.app.App.on_event
async def on_event(self, event):
    if isinstance(event, events.Key):
        pending.append((event.key, event.time))
    return await real_on_event(self, event)
textual.app.App.on_event = on_event
real_display = textual.app.App._display
def display(self, screen, renderable):
    out = real_display(self, screen, renderable)
    now = time.monotonic()
    while pending:
        key, at = pending.pop(0)
        log.write(f"{key} {now - at:.4f}\n")
    return out
textual.app.App._display = display
sys.argv = ["responder", *sys.argv[2:]]
from responder.cli import main
sys.exit(main())
"""


class Pane:
    """The app in a detached tmux session."""

    def __init__(self, home: str, kb: str | None, trace: str):
        self.session = f"keys-{uuid.uuid4().hex[:8]}"
        env = f"RESPONDER_HOME={home} PYTHONPATH={ROOT}"
        script = Path(home) / "traced.py"
        script.write_text(TRACED, encoding="utf-8")
        cmd = f"cd {ROOT} && {env} {sys.executable} {script} {trace}"
        if kb:
            cmd += f" --kb '{kb}'"
        subprocess.run(
            [
                "tmux",
                "new-session",
                "-d",
                "-s",
                self.session,
                "-x",
                str(SIZE[0]),
                "-y",
                str(SIZE[1]),
                cmd + "; sleep 5",
            ],
            check=True,
        )

    def text(self) -> str:
        return subprocess.run(
            ["tmux", "capture-pane", "-p", "-t", self.session], capture_output=True, text=True
        ).stdout

    def wait(self, shown, timeout: float = 30.0) -> str:
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < timeout:
            pane = self.text()
            if shown(pane):
                return pane
            time.sleep(0.002)
        raise SystemExit(f"timed out waiting; the pane shows:\n{self.text()}")

    pace = 0.0  # seconds between one key's effect on screen and the next key

    def key(self, key: str, shown, timeout: float = 30.0) -> float:
        """Send ``key``; seconds until ``shown(pane)`` holds."""
        time.sleep(self.pace)
        t0 = time.perf_counter()
        subprocess.run(["tmux", "send-keys", "-t", self.session, key], check=True)
        self.wait(shown, timeout)
        return time.perf_counter() - t0

    def close(self) -> None:
        subprocess.run(["tmux", "send-keys", "-t", self.session, "C-q"], check=False)
        time.sleep(0.3)
        subprocess.run(["tmux", "kill-session", "-t", self.session], capture_output=True)


def status(pane: str) -> str:
    """The status line: the one with the answer count."""
    return next((line for line in pane.splitlines() if "Asked " in line), "")


def asked(pane: str) -> int | None:
    line = status(pane)
    try:
        return int(line.split("Asked ")[1].split()[0])
    except (IndexError, ValueError):
        return None


def run_once(kb: str | None, chemical: str, pace: float) -> dict[str, list[float]]:
    """One scripted interview; seconds per key, by what the key does."""
    from responder.config import InterviewConfig
    from responder.core import views
    from responder.core.session import Interview
    from responder.engine.state import Answer, Status
    from responder.kb.resolve import load_knowledge

    kn = load_knowledge(kb)
    row = kn.chemicals[kn.chemical_index(chemical)].symptoms
    shadow = Interview(kn, InterviewConfig())  # the app's defaults: evidence mode
    times: dict[str, list[float]] = {}

    def note(kind: str, seconds: float) -> None:
        times.setdefault(kind, []).append(seconds)
        order.append((seconds, kind, len(order) + 1))

    order: list[tuple[float, str, int]] = []

    with tempfile.TemporaryDirectory() as home:
        trace = Path(home) / "keys.log"
        pane = Pane(home, kb, str(trace))
        pane.pace = pace
        try:
            pane.wait(lambda p: "Scene 1/" in p)
            # the scene step: one key per observation (on, then off again), Esc skips it
            note("scene key", pane.key("1", lambda p: "✓" in p))
            note("scene key", pane.key("1", lambda p: "✓" not in p))
            note("close (Esc)", pane.key("Escape", lambda p: "Scene 1/" not in p))
            n = 0
            for _ in range(40):
                if shadow.status is not Status.ASKING:
                    break
                q = views.question(shadow).items[0].symptom
                answer = Answer.YES if q.id in row else Answer.NO
                shadow.answer(q.index, answer)
                n += 1
                target = n

                def counted(p: str, target: int = target) -> bool:
                    return asked(p) == target or "Most likely:" in p

                note("answer (y/n)", pane.key("y" if answer is Answer.YES else "n", counted))
                if n == 3:
                    # undo and redo, the modes, the dialogs and screens, mid-interview
                    note("undo (z)", pane.key("z", lambda p: asked(p) == 2))
                    note(
                        "answer (y/n)",
                        pane.key("y" if answer is Answer.YES else "n", lambda p: asked(p) == 3),
                    )
                    note("mode (m)", pane.key("m", lambda p: "GQSA" in status(p)))
                    note("mode (m)", pane.key("m", lambda p: "GBS" in status(p)))
                    note("mode (t)", pane.key("t", lambda p: "class" in status(p)))
                    note("mode (t)", pane.key("t", lambda p: "chemical" in status(p)))
                    note("open (/)", pane.key("/", lambda p: "type part of its name" in p))
                    note("type in /", pane.key("c", lambda p: "match" in p))
                    note("close (Esc)", pane.key("Escape", lambda p: "Asked 3" in p))
                    for key, shown in (
                        ("h", "Answer history:"),
                        ("b", "Knowledge base"),
                        ("?", "Help · Esc"),
                        ("x", "Export the interview"),
                    ):
                        note(f"open ({key})", pane.key(key, lambda p, s=shown: s in p))
                        note(
                            "close (Esc)",
                            pane.key("Escape", lambda p, s=shown: s not in p and "Asked" in p),
                        )
            pane.wait(lambda p: "Most likely:" in p)
        finally:
            pane.close()
        inside = [float(line.split()[-1]) for line in trace.read_text().splitlines() if line]
        if inside:
            times["in the app"] = inside
    slowest = sorted(order, reverse=True)[:3]
    print("  slowest: " + "; ".join(f"key {n} {kind} {s * 1000:.0f} ms" for s, kind, n in slowest))
    return times


def burner() -> subprocess.Popen:
    """A second CPU-bound process, as another job on a shared field laptop."""
    return subprocess.Popen([sys.executable, "-c", "while True: pass"])


def uptime() -> str:
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    except OSError:
        return "uptime not available"


def summary(times: dict[str, list[float]]) -> dict:
    every = [t for kind, ts in times.items() if kind != "in the app" for t in ts]
    out = {
        kind: {
            "n": len(ts),
            "median_ms": statistics.median(ts) * 1000,
            "max_ms": max(ts) * 1000,
        }
        for kind, ts in times.items()
    }
    out["all keys"] = {
        "n": len(every),
        "median_ms": statistics.median(every) * 1000,
        "p90_ms": statistics.quantiles(every, n=10)[-1] * 1000 if len(every) > 1 else 0.0,
        "max_ms": max(every) * 1000,
        "within_target": all(t <= TARGET_S for t in every),
    }
    return out


def print_summary(title: str, table: dict) -> None:
    print(title)
    for kind, s in table.items():
        line = f"  {kind:<16} n {s['n']:>3}   median {s['median_ms']:6.1f} ms   max {s['max_ms']:6.1f} ms"
        if "p90_ms" in s:
            verdict = "ok" if s["within_target"] else "OVER TARGET"
            line += f"   p90 {s['p90_ms']:6.1f} ms   ({verdict}: every key <= 100 ms)"
        print(line)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kb", default=None, help="knowledge base (default: bundled)")
    parser.add_argument("--chemical", default="Chlorine", help="whose profile answers")
    parser.add_argument("--load", action="store_true", help="also under a CPU-bound process")
    parser.add_argument(
        "--pace",
        type=float,
        default=0.15,
        help="seconds from one key's effect to the next key: 0.15 is a fast typist, and "
        "quicker than anyone reads a new screen; 0 sends each key the moment the last shows",
    )
    parser.add_argument("--json", default=None, help="write every figure to this file")
    args = parser.parse_args(argv)
    if shutil.which("tmux") is None:
        print("tmux is not installed: the key latency needs a real terminal")
        return 1
    sys.path.insert(0, str(ROOT))
    results = {}
    print(f"quiet: {uptime()}")
    results["quiet"] = summary(run_once(args.kb, args.chemical, args.pace))
    print_summary(
        f"key latency, quiet (80x24, key sent to effect on screen, keys {args.pace} s apart)",
        results["quiet"],
    )
    if args.load:
        proc = burner()
        try:
            time.sleep(1.0)
            print(f"under load: {uptime()}")
            results["load"] = summary(run_once(args.kb, args.chemical, args.pace))
        finally:
            proc.kill()
            proc.wait()
        print_summary("key latency, with a second CPU-bound process", results["load"])
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    ok = all(r["all keys"]["within_target"] for r in results.values())
    return 0 if ok else 1


if __name__ == "__main__":
    os.environ.setdefault("RESPONDER_NO_KB_CACHE", "0")
    sys.exit(main())
