"""The plugin manager: lazy entry-point loading, allowlist, and the registry.

Nothing is imported until the registry is first asked for. Entry points of the
``mwz`` group are loaded then (the built-ins are entry points of this
distribution, like any third-party plugin). ``MWZ_PLUGINS`` restricts loading to
a comma-separated allowlist of entry-point names (shell patterns allowed, e.g.
``MWZ_PLUGINS='mwz-*'`` loads only the built-ins); set but empty loads none.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import logging
import os
import threading
from importlib import metadata
from typing import Any

import pluggy

from mwz_plugins import hookspecs
from mwz_plugins.registry import (
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


@dataclasses.dataclass(frozen=True)
class PluginInfo:
    """Where a loaded plugin came from."""

    name: str
    module: str
    distribution: str | None
    version: str | None


_lock = threading.RLock()
_manager: pluggy.PluginManager | None = None
_registry: Registry | None = None
_infos: dict[str, PluginInfo] = {}
_extra: list[tuple[Any, str]] = []


def _allowed(name: str) -> bool:
    raw = os.environ.get(ALLOWLIST_ENV)
    if raw is None:
        return True
    patterns = [p.strip() for p in raw.split(",") if p.strip()]
    return any(fnmatch.fnmatchcase(name, p) for p in patterns)


def get_plugin_manager() -> pluggy.PluginManager:
    """The process-wide manager, with the allowed entry points loaded."""
    global _manager
    with _lock:
        if _manager is not None:
            return _manager
        pm = pluggy.PluginManager(hookspecs.PROJECT_NAME)
        pm.add_hookspecs(hookspecs)
        for ep in sorted(metadata.entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
            if not _allowed(ep.name):
                logger.debug("plugin %s skipped by %s", ep.name, ALLOWLIST_ENV)
                continue
            if pm.get_plugin(ep.name) is not None:
                continue  # the same distribution seen twice on sys.path
            plugin = ep.load()
            pm.register(plugin, name=ep.name)
            dist = ep.dist
            _infos[ep.name] = PluginInfo(
                ep.name, ep.value, dist.metadata["Name"] if dist else None, dist.version if dist else None
            )
        for plugin, name in _extra:
            pm.register(plugin, name=name)
            _infos[name] = PluginInfo(name, getattr(plugin, "__name__", repr(plugin)), None, None)
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


def plugin_infos() -> dict[str, PluginInfo]:
    """Every loaded plugin by name, with its module and distribution."""
    get_plugin_manager()
    return dict(_infos)


def _collect(pm: pluggy.PluginManager, registry: Registry, hook_name: str, types: tuple[type, ...]) -> None:
    hook = getattr(pm.hook, hook_name)
    for impl in hook.get_hookimpls():
        plugin_name = pm.get_name(impl.plugin) or repr(impl.plugin)

        def register(item: Any, _plugin: str = plugin_name) -> None:
            registry.add(item, _plugin, types)

        impl.function(register=register)


def get_registry() -> Registry:
    """Everything registered by the loaded plugins (built once, then cached)."""
    global _registry
    with _lock:
        if _registry is not None:
            return _registry
        pm = get_plugin_manager()
        registry = Registry()
        _collect(pm, registry, "mwz_register_value_normalizers", (ValueNormalizer, NormalizerChain))
        _collect(pm, registry, "mwz_register_delex_styles", (DelexStyle,))
        _collect(pm, registry, "mwz_register_datasets", (DatasetEntry,))
        _collect(pm, registry, "mwz_register_metrics", (MetricEntry,))
        _collect(pm, registry, "mwz_register_user_simulators", (UserSimulatorEntry,))
        _collect(pm, registry, "mwz_register_user_profiles", (UserProfileEntry,))
        _collect(pm, registry, "mwz_register_systems", (SystemEntry,))
        _collect(pm, registry, "mwz_register_dialogue_metrics", (DialogueMetricEntry,))
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
