"""Expected questions still to ask, computed in a separate process.

E[K] from the current answers takes milliseconds for single-symptom policies but seconds to
tens of seconds for category policies under noise on a full knowledge base (a Monte Carlo
estimate). Computed in a thread it would hold Python's interpreter lock and make the keys
feel sticky, so it runs in one helper process instead (``python -m
responder.core.remaining``, exchanging pickled messages over its stdin and stdout with
:class:`multiprocessing.connection.Connection`; its stderr goes nowhere, so nothing it
prints can reach the screen). When the answers change while it is
busy, the helper is killed and a fresh one started with the next computation: the responder
never waits.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import threading
from dataclasses import dataclass
from multiprocessing.connection import Connection

TRIALS = 1000  # Monte Carlo interviews: a 95% interval of about +-0.5 question
MAX_STATES = 5_000  # exact evaluation while the tree stays this small
EVIDENCE_TRIALS = 200  # evidence mode: every simulated step recomputes the posterior
HELPER_NICENESS = 10  # added to the helper process's niceness (POSIX)


@dataclass
class Remaining:
    """Expected questions still to ask, once known."""

    value: float
    method: str  # "exact" or "monte-carlo"

    @property
    def text(self) -> str:
        if self.method == "exact":
            return f"{self.value:.1f}"
        return f"≈{self.value:.1f}"


class Cancelled(Exception):
    """The computation was stopped because the answers changed."""


@dataclass(frozen=True)
class Spec:
    """Everything the helper needs, as plain picklable data."""

    problem: object  # responder.engine.problem.Problem
    target: str  # "object" or "group"
    policy: str
    noise: object  # NoiseModel or None
    known: dict  # query -> bool
    skipped: tuple
    #: evidence mode: the interview itself (an InterviewState fork) and its exclusive groups,
    #: run on as the app runs it; None in the strict and noise modes
    interview: object = None
    groups: object = None  # ExclusiveGroups


def evaluate_spec(spec: Spec) -> tuple[float, str]:
    """E[K] from the node the answers lead to: (value, "exact" or "monte-carlo")."""
    from responder.engine.belief import Model  # noqa: PLC0415
    from responder.engine.evaluate import evaluate  # noqa: PLC0415
    from responder.engine.policies import Policy  # noqa: PLC0415

    if spec.interview is not None:
        return _evidence_remaining(spec)
    model = Model(spec.problem, spec.target, spec.noise)
    node = model.node_from_answers(spec.known, list(spec.skipped))
    if node.idx.size == 0:
        return 0.0, "exact"
    ev = evaluate(
        model, Policy(spec.policy), start=node, max_states=MAX_STATES, trials=TRIALS, seed=0
    )
    return float(ev.expected_queries), ("exact" if ev.method == "exact" else "monte-carlo")


def _evidence_remaining(spec: Spec) -> tuple[float, str]:
    """Evidence mode: Monte Carlo over victims drawn from the current posterior, each
    interviewed on by a fork of the app's own interview state."""
    from responder.engine.incidents import expected_questions_left  # noqa: PLC0415

    mean, _ = expected_questions_left(spec.interview, spec.groups, EVIDENCE_TRIALS, seed=0)
    return float(mean), "monte-carlo"


def _connection(stream, readable: bool) -> Connection:
    """A message connection over a copy of ``stream``'s file descriptor (closing it leaves
    ``stream`` open)."""
    return Connection(os.dup(stream.fileno()), readable=readable, writable=not readable)


def serve(stdin=None, stdout=None) -> None:  # pragma: no cover (runs in the helper process)
    """The helper's loop: read a Spec, answer ("ok", (value, method)) or ("error", text).
    It runs at a lower priority: an estimate shown seconds later costs nothing, a key that
    waits for a CPU does."""
    if hasattr(os, "nice"):
        try:
            os.nice(HELPER_NICENESS)
        except OSError:
            pass
    inbox = _connection(stdin or sys.stdin, readable=True)
    outbox = _connection(stdout or sys.stdout, readable=False)
    while True:
        try:
            spec = inbox.recv()
        except (EOFError, OSError, KeyboardInterrupt, pickle.UnpicklingError):
            return
        try:
            reply = ("ok", evaluate_spec(spec))
        except Exception as exc:  # noqa: BLE001 (reported to the app, never printed)
            reply = ("error", f"{type(exc).__name__}: {exc}")
        try:
            outbox.send(reply)
        except (OSError, ValueError):
            return


class RemainingService:
    """One helper process, restarted when a computation is abandoned.

    ``compute`` blocks (call it from a worker thread); ``cancel`` may be called from any
    thread and makes a blocked ``compute`` raise :class:`Cancelled`.
    """

    def __init__(self):
        self._proc: subprocess.Popen | None = None
        self._busy = False
        self._lock = threading.Lock()  # one computation at a time
        self._state = threading.Lock()  # guards _proc and _busy

    def _start(self) -> subprocess.Popen:
        return subprocess.Popen(
            [sys.executable, "-m", "responder.core.remaining"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            close_fds=True,
            start_new_session=True,
        )

    def _discard(self) -> None:
        """Close the pipes and reap a stopped helper (compute's thread, or close())."""
        with self._state:
            proc, self._proc = self._proc, None
        if proc is None:
            return
        if proc.poll() is None:
            proc.kill()
        for stream in (proc.stdin, proc.stdout):
            try:
                stream.close()
            except (OSError, ValueError):
                pass
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass

    def compute(self, spec: Spec) -> tuple[float, str]:
        with self._lock:
            if self._proc is None or self._proc.poll() is not None:
                self._discard()
                proc = self._start()
                with self._state:
                    self._proc = proc
            with self._state:
                proc = self._proc
                self._busy = True
            outbox = _connection(proc.stdin, readable=False)
            inbox = _connection(proc.stdout, readable=True)
            try:
                outbox.send(spec)
                status, value = inbox.recv()
            except (EOFError, OSError, ValueError, pickle.UnpicklingError):
                self._discard()
                raise Cancelled() from None
            finally:
                outbox.close()
                inbox.close()
                with self._state:
                    self._busy = False
            if status != "ok":
                raise RuntimeError(value)
            return value

    @property
    def busy(self) -> bool:
        return self._busy

    def cancel(self) -> None:
        """Stop a computation in progress; the helper restarts with the next one."""
        with self._state:
            if self._busy and self._proc is not None and self._proc.poll() is None:
                self._proc.kill()  # the blocked read then ends with EOF

    def close(self) -> None:
        """Stop the helper (at exit)."""
        with self._state:
            proc = self._proc
        if proc is not None and proc.poll() is None:
            proc.kill()
        if self._lock.acquire(timeout=5):
            try:
                self._discard()
            finally:
                self._lock.release()


if __name__ == "__main__":  # pragma: no cover
    serve()
