"""The registry of ``mwz`` subcommands; it imports no command module.

Command modules (built-in ones in this package, others through the ``mwz.cli``
entry-point group) register themselves with :func:`command`; the parser in
:mod:`mwz_metrics.cli` is built from :data:`COMMANDS`.
"""

from __future__ import annotations

import argparse
import contextlib
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
        COMMANDS[name] = (help, add_arguments, run)
        if example:
            EXAMPLES[name] = example
        if exit_codes:
            EXIT_TEXTS[name] = exit_codes
        return run

    return decorate


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
