"""The plugin manager: lazy entry-point loading, allowlist, disabling, and the registry.

Nothing is imported until the registry is first asked for. Entry points of the
``mwz`` group are loaded then (the built-ins are entry points of this
distribution, like any third-party plugin). ``MWZ_PLUGINS`` restricts loading to
a comma-separated allowlist of entry-point names (shell patterns allowed, e.g.
``MWZ_PLUGINS='mwz-*'`` loads only the built-ins); set but empty loads none.
``MWZ_DISABLE_PLUGINS=NAME[,NAME]`` never loads the plugins named, by entry-point
or distribution name (shell patterns allowed); it wins over the allowlist.

A broken plugin does not break the commands that do not need it. A plugin that fails
to load (its import raises, pluggy rejects it) or whose hook raises is left out: what
it registered in its other hooks too, so that a plugin is in whole or not at all. One
warning names it (entry point, distribution and version), says what was raised, and
gives the ``MWZ_DISABLE_PLUGINS`` setting that runs without it and without the warning;
``mwz plugins`` lists it as failed, and a name only it would have registered is "not
registered" (an :class:`~mwz_plugins.errors.InputError`, exit code 2) naming the plugin
that failed (:meth:`Registry.failure_note`). A plugin that registers something invalid
or conflicting is no such accident but a configuration to fix: :class:`PluginError`
(exit code 2), naming the plugin and the same setting.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import logging
import os
import re
import threading
from importlib import metadata
from typing import Any

import pluggy

from mwz_plugins import hookspecs
from mwz_plugins.registry import (
    DISABLE_ENV,
    DatasetEntry,
    DelexStyle,
    DialogueMetricEntry,
    MetricEntry,
    NormalizerChain,
    Registry,
    SystemEntry,
    UserProfileEntry,
    UserSimulatorEntry,
    ValueNormalizer,
)

logger = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "mwz"
ALLOWLIST_ENV = "MWZ_PLUGINS"

# The register-callback hooks, in the order the registry is built, with what each may register.
HOOKS: tuple[tuple[str, tuple[type, ...]], ...] = (
    ("mwz_register_value_normalizers", (ValueNormalizer, NormalizerChain)),
    ("mwz_register_delex_styles", (DelexStyle,)),
    ("mwz_register_datasets", (DatasetEntry,)),
    ("mwz_register_metrics", (MetricEntry, DialogueMetricEntry)),
    ("mwz_register_user_simulators", (UserSimulatorEntry,)),
    ("mwz_register_user_profiles", (UserProfileEntry,)),
    ("mwz_register_systems", (SystemEntry,)),
    ("mwz_register_dialogue_metrics", (DialogueMetricEntry, MetricEntry)),
)


@dataclasses.dataclass(frozen=True)
class PluginInfo:
    """Where a loaded plugin came from."""

    name: str
    module: str
    distribution: str | None
    version: str | None

    def origin(self) -> str:
        """``plugin 'NAME' (DISTRIBUTION VERSION, entry point NAME = MODULE)``: enough to find it."""
        if self.distribution:
            where = f"{self.distribution} {self.version}, entry point {self.name} = {self.module}"
        else:
            where = f"registered in this process, {self.module}"
        return f"plugin {self.name!r} ({where})"


@dataclasses.dataclass(frozen=True)
class FailedPlugin:
    """A plugin left out: it failed to load, or one of its hooks raised.

    ``stage``: ``"load"`` (importing or registering it with pluggy) or the name of the hook that
    raised; ``error``: the exception's type and the first line of its message.
    """

    info: PluginInfo
    stage: str
    error: str

    @property
    def name(self) -> str:
        """The plugin's (entry point's) name."""
        return self.info.name

    @property
    def disable(self) -> str:
        """The setting that runs without the plugin: ``MWZ_DISABLE_PLUGINS=NAME``."""
        return f"{DISABLE_ENV}={self.info.name}"

    def problem(self) -> str:
        """What went wrong: the exception, and the hook that raised it if one did."""
        return self.error if self.stage == "load" else f"its hook {self.stage} raised {self.error}"

    def describe(self) -> str:
        """One line naming the plugin and what went wrong (for a "not registered" error)."""
        return f"{self.info.origin()} failed to load ({self.problem()})"

    def warning(self) -> str:
        """The one warning logged: the plugin, what went wrong, and how to run without it."""
        return (
            f"{self.info.origin()} failed to load and is left out: {self.problem()}. "
            f"Run without it (and without this warning): {self.disable}"
        )


_lock = threading.RLock()
_manager: pluggy.PluginManager | None = None
_registry: Registry | None = None
_infos: dict[str, PluginInfo] = {}
_failures: dict[str, FailedPlugin] = {}
_extra: list[tuple[Any, str]] = []


def _patterns(variable: str) -> list[str] | None:
    raw = os.environ.get(variable)
    if raw is None:
        return None
    return [p.strip() for p in raw.split(",") if p.strip()]


def _allowed(name: str) -> bool:
    patterns = _patterns(ALLOWLIST_ENV)
    return patterns is None or any(fnmatch.fnmatchcase(name, p) for p in patterns)


def _canonical(name: str) -> str:
    """A distribution name as pip compares them (PEP 503): ``Mwz_Foo.bar`` is ``mwz-foo-bar``."""
    return re.sub(r"[-_.]+", "-", name).lower()


def disabled(name: str, distribution: str | None = None) -> bool:
    """Whether ``MWZ_DISABLE_PLUGINS`` names the plugin, by entry-point or distribution name."""
    for pattern in _patterns(DISABLE_ENV) or ():
        if fnmatch.fnmatchcase(name, pattern):
            return True
        if distribution and fnmatch.fnmatchcase(_canonical(distribution), _canonical(pattern)):
            return True
    return False


def _error_text(error: BaseException) -> str:
    lines = str(error).strip().splitlines()
    return f"{type(error).__name__}: {lines[0]}" if lines else type(error).__name__


def _fail(info: PluginInfo, stage: str, error: BaseException) -> FailedPlugin:
    failure = FailedPlugin(info, stage, _error_text(error))
    _failures[info.name] = failure
    _infos.pop(info.name, None)
    logger.warning("%s", failure.warning())
    logger.debug("plugin %s failed", info.name, exc_info=error)
    return failure


def _register(pm: pluggy.PluginManager, plugin: Any, info: PluginInfo) -> None:
    """Register with pluggy, or leave out (a plugin pluggy rejects is taken back whole)."""
    try:
        pm.register(plugin, name=info.name)
    except Exception as error:
        if pm.get_plugin(info.name) is not None:
            pm.unregister(name=info.name)
        _fail(info, "load", error)
        return
    _infos[info.name] = info


def get_plugin_manager() -> pluggy.PluginManager:
    """The process-wide manager, with the allowed entry points loaded (those that failed left out)."""
    global _manager
    with _lock:
        if _manager is not None:
            return _manager
        pm = pluggy.PluginManager(hookspecs.PROJECT_NAME)
        pm.add_hookspecs(hookspecs)
        _infos.clear()
        _failures.clear()
        for ep in sorted(metadata.entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
            if not _allowed(ep.name):
                logger.debug("plugin %s skipped by %s", ep.name, ALLOWLIST_ENV)
                continue
            if ep.name in _infos or ep.name in _failures:
                continue  # the same distribution seen twice on sys.path
            dist = ep.dist
            info = PluginInfo(
                ep.name, ep.value, dist.metadata["Name"] if dist else None, dist.version if dist else None
            )
            if disabled(ep.name, info.distribution):
                logger.debug("plugin %s disabled by %s", ep.name, DISABLE_ENV)
                continue
            try:
                plugin = ep.load()
            except Exception as error:  # a broken plugin must not break the commands that do not need it
                _fail(info, "load", error)
                continue
            _register(pm, plugin, info)
        for plugin, name in _extra:
            if disabled(name):
                continue
            _register(pm, plugin, PluginInfo(name, getattr(plugin, "__name__", repr(plugin)), None, None))
        _manager = pm
        return pm


def register_plugin(plugin: Any, name: str) -> None:
    """Register a plugin object in this process (tests, notebooks)."""
    with _lock:
        _extra.append((plugin, name))
        reset()


def unregister_plugin(name: str) -> None:
    """Remove a plugin added with :func:`register_plugin` (the registry is rebuilt)."""
    with _lock:
        _extra[:] = [(p, n) for p, n in _extra if n != name]
        reset()


def reset() -> None:
    """Forget the loaded plugins; the next access loads them again."""
    global _manager, _registry
    with _lock:
        _manager = None
        _registry = None
        _infos.clear()
        _failures.clear()


def plugin_infos() -> dict[str, PluginInfo]:
    """Every loaded plugin by name, with its module and distribution (those that failed are not)."""
    get_registry()  # a hook that raises leaves its plugin out
    return dict(_infos)


def plugin_failures() -> dict[str, FailedPlugin]:
    """Every plugin left out because it failed to load or one of its hooks raised, by name."""
    get_registry()
    return dict(_failures)


def _collect(pm: pluggy.PluginManager) -> list[tuple[str, list[Any], tuple[type, ...]]]:
    """Every hook of every plugin, called once; what each registered, in order. A plugin whose hook
    raises is unregistered and left out, whatever its other hooks registered."""
    staged: list[tuple[str, list[Any], tuple[type, ...]]] = []
    for hook_name, types in HOOKS:
        for impl in getattr(pm.hook, hook_name).get_hookimpls():
            plugin_name = pm.get_name(impl.plugin) or repr(impl.plugin)
            if plugin_name in _failures:
                continue
            items: list[Any] = []

            def register(item: Any, _items: list[Any] = items) -> None:
                _items.append(item)  # checked once every hook has run (a PluginError is not the hook's)

            try:
                impl.function(register=register)
            except Exception as error:  # a broken plugin must not break the commands that do not need it
                info = _infos.get(plugin_name) or PluginInfo(plugin_name, repr(impl.plugin), None, None)
                pm.unregister(name=plugin_name)
                _fail(info, hook_name, error)
                continue
            staged.append((plugin_name, items, types))
    return [(plugin, items, types) for plugin, items, types in staged if plugin not in _failures]


def get_registry() -> Registry:
    """Everything registered by the loaded plugins (built once, then cached)."""
    global _registry
    with _lock:
        if _registry is not None:
            return _registry
        pm = get_plugin_manager()
        registry = Registry()
        for plugin_name, items, types in _collect(pm):
            for item in items:
                registry.add(item, plugin_name, types)
        registry.failures.update((name, failure.describe()) for name, failure in sorted(_failures.items()))
        registry.check_chains()
        registry.check_placeholder_conflicts()
        _registry = registry
        return registry


def registered_by(plugin_name: str) -> dict[str, list[str]]:
    """What one plugin registered, by kind."""
    registry = get_registry()
    out: dict[str, list[str]] = {}
    for (kind, name), owner in registry.owners.items():
        if owner == plugin_name:
            out.setdefault(kind, []).append(registry.describe(kind, name))
    return out
