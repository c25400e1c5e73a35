"""A session file's header: its first line, naming the format and the run's configuration.

The configuration (:class:`RunConfig`) says what was measured: the simulator, the system, the seed, the
goals (by count and checksum), the data. ``--resume`` continues a file only under the same one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, NotRequired, TypedDict

from mwz_metrics.inputs import SESSIONS_FORMAT
from mwz_plugins.errors import InputError

FORMAT = SESSIONS_FORMAT
FORMAT_VERSION = 1


class Component(TypedDict, total=False):
    """The simulator or the system of a run: its registered name and version (and plugin), its options;
    a system may be a file (with its sha256), a URL or a ``package.module:factory``."""

    name: str
    version: str
    plugin: str
    options: dict[str, Any]
    profile: dict[str, Any]  # a simulator playing a user profile: its name and version
    file: str
    sha256: str
    url: str
    factory: str


class GoalSet(TypedDict):
    """The run's goals, by count and checksum."""

    count: int
    sha256: str


class RunConfig(TypedDict, total=False):
    """A run's configuration, as its session file's header records it (and ``--result`` repeats it)."""

    package: str
    simulator: Component
    system: Component
    seed: int
    max_turns: int
    user_acts: bool
    trials: int
    goals: GoalSet
    data: dict[str, Any]  # the data files read, with their origin and checksums
    derived_code: str


class SessionFileHeader(TypedDict):
    """The first line of a session file."""

    format: Literal["mwz-interact-sessions"]  # FORMAT (a test holds them equal)
    version: Literal[1]  # FORMAT_VERSION
    run: RunConfig
    goal_ids: NotRequired[list[str]]  # what the file may hold (a file of an older version names none)


class ResumedLine(TypedDict):
    """A line that records a resumption (not a session): its changed settings, the sessions run again."""

    resumed: dict[str, Any]


def system_name(config: Mapping[str, Any]) -> Any:
    """How a run names its system: its registered name, else its file, URL or factory (None: none)."""
    system = config.get("system") or {}
    return system.get("name") or system.get("file") or system.get("url") or system.get("factory")


def header(run: Mapping[str, Any], goal_ids: Sequence[str] | None = None) -> SessionFileHeader:
    """The first line of a session file: the run's configuration and, where known, its goals' ids (what
    the file may hold; the configuration names them by count and checksum only)."""
    line: SessionFileHeader = {"format": FORMAT, "version": FORMAT_VERSION, "run": dict(run)}  # type: ignore[typeddict-item]
    if goal_ids is not None:
        line["goal_ids"] = list(goal_ids)
    return line


def from_json(first: Any, path: object) -> SessionFileHeader:
    """A file's first line (its JSON) as a header, validated; :class:`InputError` naming ``path`` if it
    is none."""
    if not isinstance(first, dict) or first.get("format") != FORMAT:
        raise InputError(f"{path}: line 1 is not the header of an mwz interact session file")
    if first.get("version") != FORMAT_VERSION:
        raise InputError(f"{path}: session file version {first.get('version')}, this mwz-eval reads {FORMAT_VERSION}")
    if not isinstance(first.get("run"), dict):
        raise InputError(f"{path}: line 1: field 'run': missing or not an object")
    found: SessionFileHeader = first  # type: ignore[assignment]
    return found
