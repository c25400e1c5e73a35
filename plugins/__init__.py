"""Plugin layer of mwz-eval, installed as ``mwz_plugins``.

Plugins implement the hooks in :mod:`mwz_plugins.hookspecs` with :data:`hookimpl`
and are found through the ``mwz`` entry-point group; the built-ins are registered
exactly the same way. :func:`get_registry` returns what all loaded plugins
registered.
"""

from mwz_plugins.hookspecs import PROJECT_NAME, hookimpl, hookspec
from mwz_plugins.manager import get_plugin_manager, get_registry, reset
from mwz_plugins.ontology import ONTOLOGY_SLOTS
from mwz_plugins.registry import (
    DatasetEntry,
    DelexStyle,
    MetricEntry,
    NormalizerChain,
    PluginError,
    Registry,
    SystemEntry,
    UserSimulatorEntry,
    ValueNormalizer,
)

__all__ = [
    "PROJECT_NAME",
    "ONTOLOGY_SLOTS",
    "DatasetEntry",
    "DelexStyle",
    "MetricEntry",
    "NormalizerChain",
    "PluginError",
    "Registry",
    "SystemEntry",
    "UserSimulatorEntry",
    "ValueNormalizer",
    "get_plugin_manager",
    "get_registry",
    "hookimpl",
    "hookspec",
    "reset",
]
