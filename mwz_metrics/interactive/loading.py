"""Finding the system and the simulator a run names (``--system``, ``--simulator``).

A system is named in one of four ways: a registered name (``oracle``, ``oracle-text``, ``echo``,
``silent`` and whatever plugins register), an ``http://`` or ``https://`` URL, a predictions
file (``ubar.json``), or ``package.module:factory`` (the factory is called with no arguments
and returns an object with ``respond(request)`` or a plain function). Simulators are
registered names only (``agenda``, ``llm``, ``replay``, plugins').
"""

from __future__ import annotations

import dataclasses
import importlib
import os
from collections.abc import Mapping
from typing import Any

from mwz_metrics.inputs import InputError
from mwz_metrics.interactive.protocol import System, as_system
from mwz_metrics.interactive.simulators.base import SimulatorFactory


@dataclasses.dataclass
class LoadedSystem:
    """A system and how the run's signature names it."""

    system: System
    kind: str  # registered, http, file, python
    name: str
    identity: dict[str, Any]
    dialogues: list[str] | None = None  # a predictions file's dialogues (the default goals)


def _import(spec: str, what: str) -> Any:
    module_name, _, attribute = spec.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise InputError(f"{what} {spec!r}: cannot import {module_name} ({error})") from None
    try:
        return getattr(module, attribute)
    except AttributeError:
        raise InputError(f"{what} {spec!r}: {module_name} has no attribute {attribute!r}") from None


def load_system(spec: str, context: Any, *, timeout: float = 30.0, retries: int = 2) -> LoadedSystem:
    """The system ``spec`` names (see the module docstring)."""
    from mwz_plugins import get_registry

    registry = get_registry()
    if spec in registry.systems:
        entry = registry.systems[spec]
        system = as_system(_import(entry.loader, "system")(context), spec)
        owner = registry.owners[("systems", spec)]
        return LoadedSystem(system, "registered", spec, {"name": spec, "version": entry.version, "plugin": owner})
    if spec.startswith(("http://", "https://")):
        from mwz_metrics.interactive.systems.http import HttpSystem

        system = HttpSystem(spec, timeout=timeout, retries=retries)
        return LoadedSystem(system, "http", spec, {"url": spec, "timeout": timeout, "retries": retries})
    if spec.endswith(".json") or os.path.isfile(spec):
        from mwz_metrics.interactive.systems.files import PredictionsSystem

        if not os.path.isfile(spec):
            raise InputError(f"--system {spec}: no such predictions file")
        files = PredictionsSystem(spec)
        identity = {"file": os.path.basename(spec), "sha256": files.sha256}
        return LoadedSystem(files, "file", os.path.splitext(os.path.basename(spec))[0], identity, files.dialogues())
    module, sep, attribute = spec.partition(":")
    if sep and module and attribute:
        factory = _import(spec, "--system")
        try:
            made = factory()
        except Exception as error:
            raise InputError(f"--system {spec}: the factory failed ({type(error).__name__}: {error})") from None
        try:
            system = as_system(made, spec)
        except TypeError as error:
            raise InputError(f"--system {spec}: {error}") from None
        return LoadedSystem(system, "python", spec, {"factory": spec})
    known = ", ".join(sorted(registry.systems))
    raise InputError(
        f"--system {spec!r}: not a registered system ({known}), an http(s):// URL, a predictions file "
        "or package.module:factory"
    )


def load_simulator(
    name: str, context: Any, options: Mapping[str, Any] | None = None
) -> tuple[SimulatorFactory, dict[str, Any]]:
    """The registered simulator ``name`` with ``options``, and how the signature names it."""
    from mwz_plugins import get_registry

    registry = get_registry()
    if name not in registry.simulators:
        raise InputError(f"--simulator {name!r}: not registered (known: {', '.join(sorted(registry.simulators))})")
    entry = registry.simulators[name]
    try:
        factory = _import(entry.loader, "simulator")(context, **dict(options or {}))
    except TypeError as error:
        raise InputError(f"--simulator {name}: {error}") from None
    identity = {
        "name": name,
        "version": entry.version,
        "plugin": registry.owners[("simulators", name)],
        "options": dict(factory.options()),
    }
    return factory, identity
