"""Shared pieces of the whole-process benchmarks: where the shared data is, how a run is timed."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path


def shared_root() -> Path:
    """The shared data folder: ``MWZ_SHARED``, else ``../shared`` beside the project."""
    root = Path(__file__).resolve().parent.parent
    return Path(os.environ.get("MWZ_SHARED", root.parent / "shared")).resolve()


def mwz_command(*args: str) -> list[str]:
    """The ``mwz`` command of the running interpreter's environment, quiet."""
    return [str(Path(sys.executable).parent / "mwz"), "-q", *args]


def timed(command: list[str], env: dict[str, str]) -> float:
    """Wall seconds of one whole process (output discarded, failure raised)."""
    started = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    return time.perf_counter() - started


def timed_cpu(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system, the process and its children) of one whole process."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = timed(command, env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
