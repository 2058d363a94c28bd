"""The ``responder`` command line. With no subcommand it starts the interview app.

Each command is one module of this package (:mod:`~responder.cli.eval`,
:mod:`~responder.cli.simulate`, :mod:`~responder.cli.kb`, :mod:`~responder.cli.experiments`,
:mod:`~responder.cli.interview`, :mod:`~responder.cli.incidents`)
with ``register(subparsers)``, which sets ``handler`` (a function of the parsed args
returning the exit code). One error policy for all of them: a bad option or argument
(:class:`Parser`) and bad input found later (:class:`~responder.cli.inputs.InputError`) both
end in one line on stderr and exit code 2, never a usage dump or a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys

from responder import __version__

EXIT_OK = 0
EXIT_BAD_INPUT = 2

# Modules that provide ``register(subparsers)``, in the order ``--help`` lists them.
COMMAND_MODULES = (
    "responder.cli.eval",
    "responder.cli.simulate",
    "responder.cli.kb",
    "responder.cli.experiments",
    "responder.cli.interview",
    "responder.cli.incidents",
)


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line on stderr and exit code 2.

    argparse would print the whole usage first; the message alone, with where to find the
    usage, is easier to read. Subparsers inherit the class (``add_subparsers`` uses it).
    """

    def error(self, message: str):  # noqa: D102 (argparse's hook)
        self.exit(EXIT_BAD_INPUT, f"responder: error: {message} (see `{self.prog} --help`)\n")

    def parse_args(self, args=None, namespace=None):  # noqa: D102 (argparse's)
        # arguments no parser took are reported by the command they were given to, whose
        # --help lists what it takes ("responder interview --help", not "responder --help")
        namespace, extras = self.parse_known_args(args, namespace)
        if extras:
            self._chosen(namespace).error(f"unrecognized arguments: {' '.join(extras)}")
        return namespace

    def _chosen(self, namespace) -> argparse.ArgumentParser:
        """The (sub)command parser whose handler the namespace holds (each command's parser
        sets its own), found among the subcommands; this parser when none matches."""
        handler = getattr(namespace, "handler", None)
        pending = [self]
        while pending:
            parser = pending.pop()
            if handler is not None and parser.get_default("handler") is handler:
                return parser
            for action in parser._actions:
                if isinstance(action, argparse._SubParsersAction):
                    pending.extend(action.choices.values())
        return self


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="responder",
        description=(
            "Decision support for identifying an unknown toxic chemical, or its class, from "
            "victims' symptoms. With no command, starts the interview app."
        ),
    )
    parser.add_argument("--version", action="version", version=f"responder {__version__}")
    parser.add_argument(
        "--kb",
        metavar="NAME|PATH",
        default=None,
        help="knowledge base for the app (default: settings, else bundled)",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def app_only_kb(argv: list[str]) -> tuple[bool, str | None]:
    """Whether ``argv`` only starts the app (nothing, or ``--kb NAME``), and the knowledge
    base named: the app then starts without importing every command's module."""
    kb = None
    k = 0
    while k < len(argv):
        arg = argv[k]
        if arg == "--kb" and k + 1 < len(argv) and not argv[k + 1].startswith("-"):
            kb, k = argv[k + 1], k + 2
        elif arg.startswith("--kb=") and len(arg) > len("--kb="):
            kb, k = arg[len("--kb=") :], k + 1
        else:
            return False, None
    return True, kb


def main(argv: list[str] | None = None) -> int:
    only_app, kb = app_only_kb(sys.argv[1:] if argv is None else list(argv))
    if only_app:  # the responder's own command: first question on screen as soon as can be
        import gc  # noqa: PLC0415

        # Start-up makes many objects and no garbage: the collector would only slow it (by
        # about 30 ms). The app turns it back on once the first question is shown.
        gc.disable()
        try:
            return run_app(argparse.Namespace(kb=kb))
        finally:
            gc.enable()
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, or a parser error already printed
        return int(exc.code or 0)
    handler = getattr(args, "handler", None)
    if handler is None:
        return run_app(args)
    from responder.cli.inputs import InputError  # noqa: PLC0415

    if sys.stdout is None:  # started with its standard output closed (`>&-`)
        if sys.stderr is not None:
            print(
                "responder: error: standard output is closed, so the command's output has "
                "nowhere to go; redirect it to a file, or to /dev/null to discard it",
                file=sys.stderr,
            )
        return EXIT_BAD_INPUT
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
    # one write: json.dump wrote each token on its own, 11 million writes for a long list
    sys.stdout.write(json.dumps(data, indent=2, allow_nan=False) + "\n")
