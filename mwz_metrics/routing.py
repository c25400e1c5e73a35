"""Route registered metric names to their module scripts in ``evaluate``.

``evaluate.load(name)`` resolves ``name`` through
``evaluate.loading.evaluation_module_factory``: a local ``./name/name.py``, then
the Hub, then its cache. We wrap it so that names registered through the
``mwz_register_metrics`` hook load the script shipped as package data, offline
and at once; a metric's old name (``evaluate.load("success")``) loads it too until
the next release, with a :class:`DeprecationWarning`.
"""

from __future__ import annotations

import warnings
from importlib import resources
from pathlib import Path

from mwz_plugins.errors import InputError
from mwz_plugins.routing import route

TESTED_EVALUATE = ((0, 4), (0, 5))


def script_path(name: str) -> Path:
    """The module script registered under ``name`` (or an old name of its metric, with a
    :class:`DeprecationWarning`); a metric with no module script is not registered here (a
    :class:`~mwz_plugins.registry.NotRegistered`)."""
    from mwz_plugins.manager import get_registry  # the plugin manager, only when a name is resolved
    from mwz_plugins.registry import NotRegistered

    registry = get_registry()
    found = registry.metric_name(name)
    if found is not None and found != name:
        _say_old(name, found)
    entry = registry.metrics[found or name]
    if not entry.has_script:
        raise NotRegistered(f"metric {name!r} has no evaluate module script (it is computed by --metric {found})")
    path = Path(str(resources.files(entry.package).joinpath(entry.script)))
    if not path.is_file():
        raise InputError(f"metric {name!r}: module script {entry.package}/{entry.script} is missing")
    return path


def _make_factory(original):
    import evaluate.loading

    def factory(path, *args, **kwargs):
        from mwz_plugins.manager import get_registry

        registry = get_registry()
        found = registry.metric_name(path) if isinstance(path, str) else None
        if found is not None and registry.metrics[found].has_script:
            if found != path:
                _say_old(path, found)
                path = found
            module_type = kwargs.get("module_type") or (args[0] if args else None) or "metrics"
            local = evaluate.loading.LocalEvaluationModuleFactory(
                str(script_path(path)),
                module_type=module_type,
                download_config=kwargs.get("download_config"),
                download_mode=kwargs.get("download_mode"),
                dynamic_modules_path=kwargs.get("dynamic_modules_path"),
            )
            return local.get_module()
        return original(path, *args, **kwargs)

    return factory


def _say_old(old: str, new: str) -> None:
    """A metric's old name was given: a :class:`DeprecationWarning` pointing at the ``evaluate.load`` call."""
    from mwz_plugins.registry import RENAMED_METRIC

    warnings.warn(RENAMED_METRIC % (old, new), DeprecationWarning, stacklevel=4)


def install() -> None:
    """Wrap ``evaluate.loading.evaluation_module_factory`` when evaluate is imported (idempotent)."""
    route("evaluate.loading", "evaluation_module_factory", _make_factory, library="evaluate", tested=TESTED_EVALUATE)
