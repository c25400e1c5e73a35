"""The registry of ``mwz`` subcommands; it imports no command module.

Command modules (built-in ones in this package, others through the ``mwz.cli``
entry-point group) register themselves with :func:`command`; the parser in
:mod:`mwz_metrics.cli` is built from :data:`COMMANDS`.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import logging
import os
import sys
from collections.abc import Callable, Iterator
from typing import IO, Any

from mwz_metrics import outputs
from mwz_metrics.extras import MissingExtra, require_extra  # noqa: F401 (commands and plugins import them here)

logger = logging.getLogger("mwz")

AddArguments = Callable[[argparse.ArgumentParser], None]
Run = Callable[[argparse.Namespace], int]

# name ("evaluate", or two words such as "dstc9 score") -> (help, add_arguments, run)
COMMANDS: dict[str, tuple[str, AddArguments, Run]] = {}
# name -> example command lines shown at the end of its --help
EXAMPLES: dict[str, str] = {}
# name -> its exit codes, where they say more than the common ones
EXIT_TEXTS: dict[str, str] = {}


def command(
    name: str, help: str, add_arguments: AddArguments, *, example: str = "", exit_codes: str = ""
) -> Callable[[Run], Run]:
    """Register the decorated function as the subcommand ``name`` (``example`` and, where they say
    more than the common ones, ``exit_codes`` go into its --help)."""

    def decorate(run: Run) -> Run:
        COMMANDS[name] = (help, add_arguments, _saying_renamed(run))
        if example:
            EXAMPLES[name] = example
        if exit_codes:
            EXIT_TEXTS[name] = exit_codes
        return run

    return decorate


RENAMED = "%s is now %s (the old name works until the next release)"
_SAID = "_renamed"  # the namespace's list of (old, new) spellings given, said when the command runs


def renamed(old: str, new: str) -> None:
    """Say that the option ``old`` is now spelt ``new``: one warning line on stderr (none under ``-q``).
    The one wording of every old spelling, given through :class:`OldSpelling` or a command's own check."""
    logger.warning(RENAMED, old, new)


class OldSpelling(argparse.Action):
    """An option's old name, kept for one release: hidden from ``--help``, it does what ``new`` does with
    the same value, and the command says it was renamed (:func:`renamed`) as it starts, once logging is
    set up (so ``-q`` silences it and the line looks like every other warning). Added with
    :func:`old_spelling`."""

    def __init__(self, option_strings: list[str], dest: str, *, new: argparse.Action, **options: Any) -> None:
        super().__init__(option_strings, dest, **options)
        self.new = new

    def __call__(
        self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any, option_string: Any = None
    ) -> None:
        """Do what the new option does with ``values``; remember that the old name was given."""
        spelt = self.new.option_strings[-1]
        self.new(parser, namespace, values, spelt)
        said = getattr(namespace, _SAID, None) or []
        setattr(namespace, _SAID, [*said, (option_string or self.option_strings[0], spelt)])


def old_spelling(parser: argparse.ArgumentParser, old: str, new: str) -> None:
    """Let ``old`` stand for the option ``new`` of ``parser`` (already added) until the next release."""
    target = parser._option_string_actions[new]
    read: dict[str, Any] = {"nargs": target.nargs, "type": target.type, "choices": target.choices}
    hidden: dict[str, Any] = {"default": argparse.SUPPRESS, "help": argparse.SUPPRESS, "metavar": target.metavar}
    parser.add_argument(old, action=OldSpelling, new=target, dest=target.dest, **read, **hidden)


def _saying_renamed(run: Run) -> Run:
    """``run``, saying first which old spellings of options were given (:class:`OldSpelling`)."""

    @functools.wraps(run)
    def said(args: argparse.Namespace) -> int:
        for old, new in dict.fromkeys(getattr(args, _SAID, None) or ()):
            renamed(old, new)
        return run(args)

    return said


class OneOf(argparse.Action):
    """A value among ``among``; another is refused in one line (``mwz: error: ...``, exit 2), never the
    usage block, with what ``hints`` says of that value (``{"plot": "the plot is --plot FILE"}``)."""

    def __init__(
        self,
        option_strings: list[str],
        dest: str,
        *,
        among: tuple[str, ...],
        hints: dict[str, str] | None = None,
        **options: Any,
    ) -> None:
        options.setdefault("metavar", "{" + ",".join(among) + "}")
        super().__init__(option_strings, dest, **options)
        self.among = tuple(among)
        self.hints = dict(hints or {})

    def __call__(
        self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any, option_string: Any = None
    ) -> None:
        """Store ``values``, or refuse it in one line."""
        if values not in self.among:
            hint = self.hints.get(values)
            choices = ", ".join(self.among[:-1]) + f" or {self.among[-1]}"
            parser.exit(2, f"mwz: error: {option_string} {values}: give {choices}{f' ({hint})' if hint else ''}\n")
        setattr(namespace, self.dest, values)


# What an output's encoding cannot spell (a lone surrogate: a hostile system's bytes in its JSON, a file
# name's undecodable bytes) is written as its backslash escape, on stdout and in every file a user names,
# never a UnicodeEncodeError; inside a JSON string that escape is JSON's own, so the file reads back the same.
UNSPELLABLE = "backslashreplace"


@contextlib.contextmanager
def output_file(
    path: str | os.PathLike, mode: str = "w", *, log: logging.Logger = logger, **options: Any
) -> Iterator[IO[Any]]:
    """A file object for an output the user named, written as :mod:`mwz_metrics.outputs` writes (its real
    file replaced whole when the block ends; a folder that does not exist or a file that cannot be
    written is their input: an :class:`InputError`, one line, exit 2, not a bug). Text is written with
    :data:`UNSPELLABLE`. ``log``: the command's logger, which says it was written."""
    if "b" not in mode:
        options.setdefault("errors", UNSPELLABLE)
    with outputs.atomic_file(path, mode, **options) as f:
        yield f
    log.info("wrote %s", path)


@contextlib.contextmanager
def escaping_stdout() -> Iterator[None]:
    """Standard output written with :data:`UNSPELLABLE` for the duration, as the files are (a stream
    that cannot be reconfigured, such as a ``StringIO``, spells any text already)."""
    stream = sys.stdout
    errors = getattr(stream, "errors", None)
    if errors is None or not hasattr(stream, "reconfigure"):
        yield
        return
    stream.reconfigure(errors=UNSPELLABLE)
    try:
        yield
    finally:
        with contextlib.suppress(OSError, ValueError):  # a reader gone away, a stream closed
            stream.reconfigure(errors=errors)


def write_json(data: object, path: str | None) -> None:
    """Write ``data`` as indented UTF-8 JSON to ``path`` (nothing when ``path`` is empty)."""
    if path:
        with output_file(path, encoding="utf-8") as f:
            json.dump(data, f, indent=2, ensure_ascii=False)
            f.write("\n")
