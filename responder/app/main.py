"""Entry point: ``responder [--kb NAME|PATH]`` starts the interview app.

Everything that can go wrong before the screen appears (a bad settings file, a knowledge
base that fails validation) ends in one clear message, never a traceback.
"""

from __future__ import annotations

import sys
import time

EXIT_OK = 0
EXIT_BAD_INPUT = 2


def prepare(kb: str | None = None, started_at: float | None = None, journal: bool = True):
    """Load settings and knowledge base, read the incident database, and build the app (not
    yet running). ``journal`` False stores nothing (a few unit tests).

    Returns
    -------
    ResponderApp

    Raises
    ------
    KnowledgeError
        The knowledge base named by ``kb`` (or, failing the bundled fallback, any) cannot be
        used.
    """
    from responder.app.app import ResponderApp  # noqa: PLC0415
    from responder.core.store import claim_data_folder, scan_incidents  # noqa: PLC0415
    from responder.kb.resolve import KnowledgeError, load_knowledge  # noqa: PLC0415
    from responder.settings import Settings, SettingsError, load_settings  # noqa: PLC0415

    started_at = time.perf_counter() if started_at is None else started_at
    notices: list[tuple[str, str]] = []
    try:
        settings = load_settings()
    except SettingsError as exc:
        settings = Settings()
        notices.append((f"Settings not used, defaults instead: {exc}", "error"))
    if kb is not None:
        knowledge = load_knowledge(kb)  # the user asked for this one: its errors are final
    else:
        try:
            knowledge = load_knowledge(settings.kb)
        except KnowledgeError as exc:
            if settings.kb is None:
                raise
            notices.append(
                (
                    f"The knowledge base {settings.kb!r} from the settings cannot be "
                    f"used, so the bundled one is open instead. {exc}",
                    "error",
                )
            )
            knowledge = load_knowledge(None)
    pending = []
    if journal:
        other = claim_data_folder()
        scan = scan_incidents()  # also imports old journals and sets a damaged file aside
        pending = scan.unfinished
        notices += [(n, "warning") for n in scan.notices]
        if other or scan.live_elsewhere:
            notices.append(
                (
                    f"{other or 'Another responder window is open on this data folder.'}"
                    " Its live incident is not offered here and is left to it; this "
                    "window keeps a separate incident.",
                    "warning",
                )
            )
    return ResponderApp(
        knowledge,
        settings,
        unfinished=pending,
        notices=notices,
        journal=journal,
        started_at=started_at,
    )


def run(kb: str | None = None) -> int:
    """Run the app until the responder quits; returns the exit code."""
    started_at = time.perf_counter()
    from responder.kb.resolve import KnowledgeError  # noqa: PLC0415

    try:
        app = prepare(kb, started_at)
    except KnowledgeError as exc:
        print(f"responder: the knowledge base cannot be used:\n{exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if sys.platform != "win32":
        from responder.app.driver import hang_up_at_end_of_input, quicker_escape  # noqa: PLC0415

        quicker_escape()
        hang_up_at_end_of_input()
        app.call_after_refresh(_hang_up_on_signals, app)
    app.run()
    return int(app.return_code or 0)


def _hang_up_on_signals(app) -> None:
    """SIGHUP (the terminal closed) and SIGTERM (a shutdown, ``kill``) end the app as
    :meth:`ResponderApp.hang_up` says, on the app's own loop, instead of killing it where it
    stands."""
    import asyncio  # noqa: PLC0415
    import signal  # noqa: PLC0415

    loop = asyncio.get_running_loop()
    for signum in (signal.SIGHUP, signal.SIGTERM):
        loop.add_signal_handler(signum, app.hang_up, signum)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(run(sys.argv[1] if len(sys.argv) > 1 else None))
