"""Route registered metric names to their module scripts in ``evaluate``.

``evaluate.load(name)`` resolves ``name`` through
``evaluate.loading.evaluation_module_factory``: a local ``./name/name.py``, then
the Hub, then its cache. We wrap it so that names registered through the
``mwz_register_metrics`` hook load the script shipped as package data, offline
and at once.
"""

from __future__ import annotations

import logging
from importlib import resources
from pathlib import Path

import evaluate
import evaluate.loading

from mwz_plugins import get_registry

logger = logging.getLogger(__name__)

TESTED_EVALUATE = ((0, 4), (0, 5))

_original_factory = None


def script_path(name: str) -> Path:
    """The module script registered under ``name``."""
    entry = get_registry().metrics[name]
    path = Path(str(resources.files(entry.package).joinpath(entry.script)))
    if not path.is_file():
        raise FileNotFoundError(f"metric {name!r}: module script {entry.package}/{entry.script} is missing")
    return path


def _factory(path, *args, **kwargs):
    registry = get_registry()
    if isinstance(path, str) and path in registry.metrics:
        script = script_path(path)
        module_type = kwargs.get("module_type") or (args[0] if args else None) or "metrics"
        factory = evaluate.loading.LocalEvaluationModuleFactory(
            str(script),
            module_type=module_type,
            download_config=kwargs.get("download_config"),
            download_mode=kwargs.get("download_mode"),
            dynamic_modules_path=kwargs.get("dynamic_modules_path"),
        )
        return factory.get_module()
    return _original_factory(path, *args, **kwargs)


def install() -> None:
    """Wrap ``evaluate.loading.evaluation_module_factory`` (idempotent)."""
    global _original_factory
    current = evaluate.loading.evaluation_module_factory
    if getattr(current, "_mwz_routed", False):
        return
    version = tuple(int(p) for p in evaluate.__version__.split(".")[:2])
    low, high = TESTED_EVALUATE
    if not (low <= version < high):
        logger.warning("evaluate %s is outside the tested range %s..%s", evaluate.__version__, low, high)
    _original_factory = current
    _factory._mwz_routed = True
    evaluate.loading.evaluation_module_factory = _factory
