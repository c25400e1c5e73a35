"""The one root of every error a user can meet: :class:`MwzError`, in four kinds.

It lives in the lowest layer so that plugins, datasets, metrics and the CLI all raise it. The CLI
turns an :class:`MwzError` into one line, ``mwz: error: ...``, and exit code 2; any other exception
is a bug of mwz-eval (or of a plugin) and is reported as one (exit code 1).

Each kind is a class (``except InputError``) and a name (``error.kind``, for logs and tests):

- ``input``: bad input, options or configuration, data that is missing or not what was pinned;
- ``missing-extra``: a feature needs an optional extra that is not installed;
- ``system``: the system under test cannot be reached, made or understood;
- ``simulator``: the user simulator cannot be made or run.

The concrete classes keep the built-in base they had (``ValueError``, ``RuntimeError``, ``ImportError``)
so that library callers catching those keep working.
"""

from __future__ import annotations

from typing import ClassVar, Literal

Kind = Literal["input", "missing-extra", "system", "simulator"]
KINDS: tuple[Kind, ...] = ("input", "missing-extra", "system", "simulator")


class MwzError(Exception):
    """An error the user can act on (as opposed to a bug); ``kind`` says which of :data:`KINDS`."""

    kind: ClassVar[Kind] = "input"


class InputError(MwzError, ValueError):
    """Bad input, options or configuration; the message names file, dialogue and turn where there is one."""

    kind: ClassVar[Kind] = "input"


class MissingExtra(MwzError, ImportError):
    """A feature needs an optional extra that is not installed (see ``mwz_metrics.extras.require_extra``)."""

    kind: ClassVar[Kind] = "missing-extra"


class SystemUnderTestError(MwzError, RuntimeError):
    """The system under test cannot be made, reached or understood."""

    kind: ClassVar[Kind] = "system"


class SimulatorError(MwzError, RuntimeError):
    """The user simulator cannot be made or run."""

    kind: ClassVar[Kind] = "simulator"
