"""The entry point: one message for a bad knowledge base, --kb, settings fallback."""

from __future__ import annotations

from conftest import FIXTURE_KB

# -- entry point ------------------------------------------------------------------------------


def test_run_with_a_bad_kb_prints_one_message_and_exits_2(capsys):
    from responder.app.main import run

    assert run("no-such-kb") == 2
    err = capsys.readouterr().err
    assert "no knowledge base has this name" in err and "Traceback" not in err


def test_cli_passes_kb_to_the_app(monkeypatch):
    import responder.app.main as main
    from responder.cli import main as cli_main

    seen = {}
    monkeypatch.setattr(main, "run", lambda kb=None: seen.setdefault("kb", kb) and 0)
    cli_main(["--kb", str(FIXTURE_KB)])
    assert seen["kb"] == str(FIXTURE_KB)


def test_a_bad_kb_in_settings_falls_back_to_bundled_with_a_message(home):
    from responder.app.main import prepare
    from responder.settings import Settings, save_settings

    save_settings(Settings(kb="no-such-kb"))
    app = prepare(None)
    assert app.knowledge.name == "bundled"
    assert any("no-such-kb" in m for m, _ in app.notices)


def test_starting_the_app_imports_no_other_command():
    """The responder's own command (no subcommand) goes straight to the app: the modules of
    eval, simulate, kb... are not imported on the way to the first question."""
    import subprocess
    import sys

    code = (
        "import sys, responder.app.main as m; m.run = lambda kb=None: 0; "
        "from responder.cli import main; main(['--kb', 'x']); "
        "print(sorted(n for n in sys.modules if n.startswith('responder.cli.')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout


def test_a_lone_escape_is_told_apart_within_ten_milliseconds():
    """Textual's input thread woke every 100 ms, so Esc (close a dialog) took 100-150 ms:
    in the real terminal the app waits 10 ms (ESCDELAY, unless the user set one) and the
    thread wakes that often."""
    import subprocess
    import sys

    code = (
        "import os, time; os.environ.pop('ESCDELAY', None)\n"
        "import responder.app\n"
        "from textual import constants\n"
        "from textual.drivers import linux_driver\n"
        "from responder.app.driver import quicker_escape\n"
        "assert quicker_escape()\n"
        "selector = linux_driver.selectors.SelectSelector()\n"
        "t = time.perf_counter(); selector.select(5.0); waited = time.perf_counter() - t\n"
        "print(constants.ESCAPE_DELAY, waited < 1.0)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["0.01", "True"], out
