"""Route registered metric names to their module scripts in ``evaluate``.

``evaluate.load(name)`` resolves ``name`` through
``evaluate.loading.evaluation_module_factory``: a local ``./name/name.py``, then
the Hub, then its cache. We wrap it so that names registered through the
``mwz_register_metrics`` hook load the script shipped as package data, offline
and at once.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from mwz_plugins.errors import InputError
from mwz_plugins.routing import route

TESTED_EVALUATE = ((0, 4), (0, 5))


def script_path(name: str) -> Path:
    """The module script registered under ``name``."""
    from mwz_plugins.manager import get_registry  # the plugin manager, only when a name is resolved

    entry = get_registry().metrics[name]
    path = Path(str(resources.files(entry.package).joinpath(entry.script)))
    if not path.is_file():
        raise InputError(f"metric {name!r}: module script {entry.package}/{entry.script} is missing")
    return path


def _make_factory(original):
    import evaluate.loading

    def factory(path, *args, **kwargs):
        from mwz_plugins.manager import get_registry

        if isinstance(path, str) and path in get_registry().metrics:
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


def install() -> None:
    """Wrap ``evaluate.loading.evaluation_module_factory`` when evaluate is imported (idempotent)."""
    route("evaluate.loading", "evaluation_module_factory", _make_factory, library="evaluate", tested=TESTED_EVALUATE)
