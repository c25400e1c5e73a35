"""Plugin layer of mwz-eval, installed as ``mwz_plugins``.

Plugins implement the hooks in :mod:`mwz_plugins.hookspecs` with :data:`hookimpl`
and are found through the ``mwz`` entry-point group; the built-ins are registered
exactly the same way. :func:`get_registry` returns what all loaded plugins
registered.

The names below are re-exported on first use (PEP 562): a command that needs no plugin
(``mwz dstc9 score``) imports neither pluggy nor the entry-point machinery.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

# name -> the submodule that defines it
_EXPORTS = {
    "PROJECT_NAME": "hookspecs",
    "hookimpl": "hookspecs",
    "hookspec": "hookspecs",
    "get_plugin_manager": "manager",
    "get_registry": "manager",
    "reset": "manager",
    "InputError": "errors",
    "MissingExtra": "errors",
    "MwzError": "errors",
    "SimulatorError": "errors",
    "SystemUnderTestError": "errors",
    "ONTOLOGY_SLOTS": "ontology",
    "DatasetEntry": "registry",
    "DelexStyle": "registry",
    "DialogueMetricEntry": "registry",
    "MetricEntry": "registry",
    "NormalizerChain": "registry",
    "NotRegistered": "registry",
    "PluginError": "registry",
    "Registry": "registry",
    "SystemEntry": "registry",
    "UserProfileEntry": "registry",
    "UserSimulatorEntry": "registry",
    "ValueNormalizer": "registry",
}

__all__ = [
    "DatasetEntry",
    "DelexStyle",
    "DialogueMetricEntry",
    "InputError",
    "MetricEntry",
    "MissingExtra",
    "MwzError",
    "NormalizerChain",
    "NotRegistered",
    "ONTOLOGY_SLOTS",
    "PROJECT_NAME",
    "PluginError",
    "Registry",
    "SimulatorError",
    "SystemEntry",
    "SystemUnderTestError",
    "UserProfileEntry",
    "UserSimulatorEntry",
    "ValueNormalizer",
    "get_plugin_manager",
    "get_registry",
    "hookimpl",
    "hookspec",
    "reset",
]

if TYPE_CHECKING:
    from mwz_plugins.errors import InputError, MissingExtra, MwzError, SimulatorError, SystemUnderTestError
    from mwz_plugins.hookspecs import PROJECT_NAME, hookimpl, hookspec
    from mwz_plugins.manager import get_plugin_manager, get_registry, reset
    from mwz_plugins.ontology import ONTOLOGY_SLOTS
    from mwz_plugins.registry import (
        DatasetEntry,
        DelexStyle,
        DialogueMetricEntry,
        MetricEntry,
        NormalizerChain,
        NotRegistered,
        PluginError,
        Registry,
        SystemEntry,
        UserProfileEntry,
        UserSimulatorEntry,
        ValueNormalizer,
    )


def __getattr__(name: str) -> object:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value  # found once, then an ordinary attribute
    return value
