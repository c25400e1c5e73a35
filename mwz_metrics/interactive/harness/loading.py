"""Finding the system and the simulator a run names (``--system``, ``--simulator``).

A system is named in one of four ways: a registered name (``oracle``, ``oracle-text``,
``oracle-lex``, ``echo``, ``silent``, ``llm`` and whatever plugins register), an ``http://`` or
``https://`` URL, a predictions file (``ubar.json``), or ``package.module:factory``: the module is
imported from the current folder first (then the installed packages), and the factory is called
with the run's ``--system-option KEY=VALUE`` as keyword arguments (strings), returning an object with
``respond(request)`` or a plain function. A registered system's ``make(context, **options)`` gets the
options too. Simulators are registered names only (``agenda``, ``llm``, ``replay``, plugins').
"""

from __future__ import annotations

import dataclasses
import importlib
import os
import sys
from collections.abc import Mapping
from typing import Any

from mwz_metrics.inputs import InputError
from mwz_metrics.interactive.chat import DEFAULT_MAX_BYTES
from mwz_metrics.interactive.harness import capture
from mwz_metrics.interactive.protocol import System, as_system, describe_failure, own_failure
from mwz_metrics.interactive.secrets import redact_options, redact_url
from mwz_metrics.interactive.user.base import SimulatorFactory
from mwz_plugins.errors import MwzError, SimulatorError, SystemUnderTestError


@dataclasses.dataclass
class LoadedSystem:
    """A system and how the run's signature names it."""

    system: System
    kind: str  # registered, http, file, python
    name: str
    identity: dict[str, Any]
    dialogues: list[str] | None = None  # a predictions file's dialogues (the default goals)
    reads_user_acts: bool = False  # a reference system: the user's acts reach it whatever the run says


def _import(spec: str, what: str, *, here: bool = False) -> Any:
    """``module:attribute``; ``here``: the current folder searched first, as ``python -m`` would."""
    module_name, _, attribute = spec.partition(":")
    added = here and os.getcwd() not in sys.path and "" not in sys.path
    if added:
        sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        hint = " (from the current folder or the installed packages)" if here else ""
        raise InputError(f"{what} {spec!r}: cannot import {module_name}{hint} ({error})") from None
    except BaseException as error:  # the module's own code failed as it was imported (sys.exit() included)
        if not own_failure(error):
            raise
        raise InputError(f"{what} {spec!r}: importing {module_name} failed ({describe_failure(error)})") from None
    finally:
        if added:
            sys.path.remove(os.getcwd())
    try:
        return getattr(module, attribute)
    except AttributeError:
        raise InputError(f"{what} {spec!r}: {module_name} has no attribute {attribute!r}") from None


def load_system(
    spec: str,
    context: Any,
    *,
    timeout: float = 30.0,
    retries: int = 2,
    options: Mapping[str, str] | None = None,
    max_bytes: int | None = None,
) -> LoadedSystem:
    """The system ``spec`` names (see the module docstring), made with ``options``; an HTTP system's
    answers are limited to ``max_bytes`` (default :data:`~mwz_metrics.interactive.chat.DEFAULT_MAX_BYTES`).
    What the system's code prints while it is imported and made is captured (:mod:`.capture`)."""
    with capture.routed_output(), capture.printed_by(f"system {redact_url(spec)}"):
        return _load_system(spec, context, timeout=timeout, retries=retries, options=options, max_bytes=max_bytes)


def _load_system(
    spec: str,
    context: Any,
    *,
    timeout: float,
    retries: int,
    options: Mapping[str, str] | None,
    max_bytes: int | None,
) -> LoadedSystem:
    from mwz_plugins import get_registry

    registry = get_registry()
    options = dict(options or {})
    if spec in registry.systems:
        return _registered(spec, context, options, timeout=timeout, retries=retries)
    if spec.startswith(("http://", "https://")):
        from mwz_metrics.interactive.systems.http import HttpSystem

        _no_options(spec, options, "an HTTP system")
        system = HttpSystem(spec, timeout=timeout, retries=retries, max_bytes=max_bytes or DEFAULT_MAX_BYTES)
        shown = redact_url(spec)  # what the run records and prints: no password, no key
        return LoadedSystem(system, "http", shown, {"url": shown, "timeout": timeout, "retries": retries})
    if spec.endswith(".json") or os.path.isfile(spec):
        from mwz_metrics.interactive.systems.files import PredictionsSystem

        if not os.path.isfile(spec):
            raise InputError(f"--system {spec}: no such predictions file")
        _no_options(spec, options, "a predictions file")
        files = PredictionsSystem(spec)
        identity = {"file": os.path.basename(spec), "sha256": files.sha256}
        return LoadedSystem(files, "file", os.path.splitext(os.path.basename(spec))[0], identity, files.dialogues())
    module, sep, attribute = spec.partition(":")
    if sep and module and attribute:
        return _python(spec, options)
    known = ", ".join(sorted(registry.systems))
    raise InputError(
        f"--system {redact_url(spec)!r}: not a registered system ({known}), an http(s):// URL, a predictions file "
        f"or package.module:factory{registry.failure_note()}"
    )


def _made(make: Any, flag: str, refused: type[MwzError], *args: Any, **options: Any) -> Any:
    """A registered factory's product: unknown options are bad input naming ``flag``; a ``ValueError``
    (the factory refuses its options' values) is the system's or simulator's own kind of error."""
    try:
        return make(*args, **options)
    except TypeError as error:
        raise InputError(f"{flag}: {error}") from None
    except MwzError:
        raise
    except ValueError as error:
        raise refused(str(error)) from None
    except BaseException as error:  # a plugin's factory: whatever it raises, it could not be made
        if not own_failure(error):
            raise
        raise refused(f"{flag}: could not be made ({describe_failure(error)})") from None


def _no_options(spec: str, options: Mapping[str, str], what: str) -> None:
    if options:
        shown = redact_url(spec)  # no password, no key in the line
        raise InputError(f"--system {shown}: {what} takes no --system-option (got {', '.join(sorted(options))})")


def _registered(spec: str, context: Any, options: dict[str, str], *, timeout: float, retries: int) -> LoadedSystem:
    """A registered system, made with the context and the options (an HTTP one's timeout and retries)."""
    from mwz_plugins import get_registry

    registry = get_registry()
    entry = registry.systems[spec]
    make = _import(entry.loader, "system")
    extra = {"timeout": timeout, "retries": retries} if getattr(make, "takes_http_settings", False) else {}
    made = _made(make, f"--system {spec}", SystemUnderTestError, context, **options, **extra)
    identity: dict[str, Any] = {"name": spec, "version": entry.version, "plugin": registry.owners[("systems", spec)]}
    if options:
        identity["options"] = redact_options(options)
    _described(identity, made, f"--system {spec}")
    return LoadedSystem(as_system(made, spec), "registered", spec, identity, reads_user_acts=entry.reads_user_acts)


def _described(identity: dict[str, Any], made: Any, where: str) -> None:
    """What the system's numbers depend on besides its name (a model, a prompt, a policy file), from
    its ``identity()``, into the run's record of the system."""
    describe = getattr(made, "identity", None)
    if not callable(describe):
        return
    try:
        described = describe()
    except BaseException as error:  # the system's own code
        if not own_failure(error):
            raise
        raise SystemUnderTestError(f"{where}: identity() failed ({describe_failure(error)})") from None
    if not isinstance(described, Mapping):
        raise SystemUnderTestError(f"{where}: identity() returned {type(described).__name__}, not a dict")
    identity.update(described)


def _python(spec: str, options: dict[str, str]) -> LoadedSystem:
    """``package.module:factory`` from the current folder first, called with the options."""
    factory = _import(spec, "--system", here=True)
    try:
        made = factory(**options)
    except TypeError as error:
        raise InputError(f"--system {spec}: the factory does not take these options ({error})") from None
    except MwzError:
        raise
    except BaseException as error:  # the user's own code (sys.exit() included): the system's failure, not mwz-eval's
        if not own_failure(error):
            raise
        raise SystemUnderTestError(f"--system {spec}: the factory failed ({describe_failure(error)})") from None
    try:
        system = as_system(made, spec)
    except TypeError as error:
        raise InputError(f"--system {spec}: {error}") from None
    identity: dict[str, Any] = {"factory": spec}
    if options:
        identity["options"] = redact_options(options)
    _described(identity, made, f"--system {spec}")
    return LoadedSystem(system, "python", spec, identity)


def load_profile(name: str, simulator: str = "agenda") -> Any:
    """The registered user profile ``name`` (a :class:`~..user.profiles.Profile`), for ``simulator``."""
    from mwz_plugins import get_registry

    registry = get_registry()
    if name not in registry.profiles:
        known = ", ".join(sorted(registry.profiles))
        raise InputError(f"--profile {name!r}: not registered (known: {known}){registry.failure_note()}")
    entry = registry.profiles[name]
    if simulator not in entry.simulators:
        raise InputError(
            f"--profile {name}: the {simulator} simulator cannot play it (only {', '.join(entry.simulators)})"
        )
    profile = _import(entry.loader, "profile")
    profile = profile() if callable(profile) and not hasattr(profile, "shape") else profile
    if getattr(profile, "version", entry.version) != entry.version or getattr(profile, "name", name) != name:
        raise InputError(f"--profile {name}: the plugin registers {name}@{entry.version}, its loader gives {profile!r}")
    return profile


def load_simulator(
    name: str,
    context: Any,
    options: Mapping[str, Any] | None = None,
    profile: str | None = None,
    *,
    timeout: float = 30.0,
    retries: int = 2,
) -> tuple[SimulatorFactory, dict[str, Any]]:
    """The registered simulator ``name`` with ``options`` (playing the registered ``profile``, if any), and
    how the signature names it; one that talks to an endpoint (its loader's ``takes_http_settings``) gets
    the run's ``timeout`` and ``retries`` unless the options give them."""
    from mwz_plugins import get_registry

    registry = get_registry()
    if name not in registry.simulators:
        known = ", ".join(sorted(registry.simulators))
        raise InputError(f"--simulator {name!r}: not registered (known: {known}){registry.failure_note()}")
    entry = registry.simulators[name]
    make = _import(entry.loader, "simulator")
    extra = {"timeout": timeout, "retries": retries} if getattr(make, "takes_http_settings", False) else {}
    played = {"profile": load_profile(profile, name)} if profile else {}
    factory = _made(make, f"--simulator {name}", SimulatorError, context, **{**extra, **dict(options or {})}, **played)
    identity = {
        "name": name,
        "version": entry.version,
        "plugin": registry.owners[("simulators", name)],
        "options": redact_options(factory.options()),
    }
    if profile:
        identity["profile"] = {**played["profile"].identity(), "plugin": registry.owners[("profiles", profile)]}
    return factory, identity
