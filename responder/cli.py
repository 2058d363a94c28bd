"""The ``responder`` command. With no subcommand it starts the interview app.

Subcommands register themselves with ``register(subparsers)`` and set ``handler`` (a
function of the parsed args returning the exit code). Bad input of any kind ends in one
line on stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys

from responder import __version__

EXIT_OK = 0
EXIT_BAD_INPUT = 2

# Modules that provide ``register(subparsers)``; a module not yet present is skipped.
COMMAND_MODULES = (
    "responder.commands.eval",
    "responder.commands.simulate",
    "responder.kb.commands",
    "responder.experiments.commands",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="responder",
        description=(
            "Decision support for identifying an unknown toxic chemical, or its class, from "
            "victims' symptoms. With no command, starts the interview app."
        ),
    )
    parser.add_argument("--version", action="version", version=f"responder {__version__}")
    parser.add_argument("--kb", metavar="NAME|PATH", default=None,
                        help="knowledge base for the app (default: settings, else bundled)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name and name.startswith(exc.name):
                continue
            raise
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        return run_app(args)
    from responder.inputs import InputError  # noqa: PLC0415

    try:
        return int(handler(args) or 0)
    except InputError as exc:
        print(f"responder: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("responder: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # Output piped into e.g. `head`, which closed early: not an error of ours.
        _silence_stdout()
        return EXIT_OK


def _silence_stdout() -> None:
    """Point stdout at devnull so Python's exit flush does not raise again."""
    import os  # noqa: PLC0415

    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


def run_app(args) -> int:
    """Start the full-screen interview app."""
    try:
        from responder.app.main import run  # noqa: PLC0415
    except ModuleNotFoundError:
        print("responder: the interview app is not installed in this build", file=sys.stderr)
        return 1
    return run(kb=args.kb)


def print_json(data) -> None:
    """Print ``data`` as indented JSON on stdout."""
    json.dump(data, sys.stdout, indent=2, allow_nan=False)
    sys.stdout.write("\n")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
