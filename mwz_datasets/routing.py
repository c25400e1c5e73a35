"""Route registered dataset names to their builder classes in ``datasets``.

``datasets.load_dataset(name)`` resolves ``name`` through the private
``datasets.load.dataset_module_factory``; we wrap it so that names registered
through the ``mwz_register_datasets`` hook never reach the Hub (which can hang
for minutes offline). The wrapper is tested against the pinned datasets range.
"""

from __future__ import annotations

import hashlib
import importlib
import inspect
import os
from pathlib import Path
from typing import TYPE_CHECKING

from mwz_plugins.routing import route

if TYPE_CHECKING:
    import datasets

TESTED_DATASETS = ((4, 0), (6, 0))  # [min, max) of datasets versions this wrapper is tested with


def builder_class(name: str) -> type[datasets.DatasetBuilder]:
    """The builder class registered under ``name``."""
    from mwz_plugins.manager import get_registry  # the plugin manager, only when a name is resolved

    entry = get_registry().datasets[name]
    module_name, _, class_name = entry.builder.partition(":")
    return getattr(importlib.import_module(module_name), class_name)


def builder_hash(cls: type) -> str:
    """Cache key part (a builder's ``hash=``): the code of the builder's package and where sources come from.

    Any change to the builder or the readers it uses, or pointing ``MWZ_MIRROR``
    elsewhere, gives a new key (a mirror changed in place needs
    ``download_mode="force_redownload"``).
    """
    digest = hashlib.sha256()
    package = Path(inspect.getfile(cls)).parent
    for path in sorted(package.glob("*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    digest.update(f"mirror={os.environ.get('MWZ_MIRROR', '')}".encode())
    return digest.hexdigest()[:16]


def _make_factory(original):
    import datasets.load

    def factory(path, *args, **kwargs):
        from mwz_plugins.manager import get_registry

        if isinstance(path, str) and path in get_registry().datasets:
            cls = builder_class(path)
            return datasets.load.DatasetModule(
                module_path=cls.__module__,
                hash=builder_hash(cls),
                builder_kwargs={"dataset_name": path},
            )
        return original(path, *args, **kwargs)

    return factory


def install() -> None:
    """Wrap ``datasets.load.dataset_module_factory`` when datasets is imported (idempotent)."""
    route("datasets.load", "dataset_module_factory", _make_factory, library="datasets", tested=TESTED_DATASETS)
