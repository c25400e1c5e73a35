"""``mwz hub export``: Hub-ready folders for every registered dataset and metric.

Layout of ``OUT``::

    datasets/<name>/README.md                      card + ``configs:`` + ``dataset_info:``
    datasets/<name>/data/<config>/<split>-00000-of-00001.parquet
    spaces/<name>/{<name>.py, app.py, requirements.txt, README.md}
    models/mwz-session-coherence/                  the coherence cross-encoder, adapters merged
    mwz_export.json                                what was exported, and what was not and why

The dataset folders load with plain ``datasets.load_dataset(folder, config)`` and
the Space folders with ``evaluate.load(folder)``: no code of ours runs on the
reader's side except the metric script, which imports the pinned ``mwz-eval``.
Nothing is skipped silently: a config whose sources cannot be resolved, an empty
split, a dataset or metric without a card are logged and listed in the manifest.
"""

from __future__ import annotations

from pathlib import Path

from mwz_hub import cards
from mwz_hub.export_datasets import export_dataset, quiet_datasets
from mwz_hub.export_models import export_models
from mwz_hub.export_spaces import export_space, requirements
from mwz_hub.manifest import DISTRIBUTION, EXPORT_MARKER, MANIFEST, MAX_SHARD_BYTES, Manifest
from mwz_plugins.errors import InputError

__all__ = [
    "DISTRIBUTION",
    "EXPORT_MARKER",
    "MANIFEST",
    "MAX_SHARD_BYTES",
    "Manifest",
    "export",
    "export_dataset",
    "export_models",
    "export_space",
    "requirements",
]


def export(
    out: str | Path,
    *,
    datasets_only: list[str] | None = None,
    metrics_only: list[str] | None = None,
    configs: dict[str, list[str]] | None = None,
    models: bool = True,
    cache_dir: str | Path | None = None,
) -> Manifest:
    """Export every registered dataset and metric (or the selected ones) into ``out``.

    ``datasets_only``/``metrics_only``: names to export (``[]`` for none, None for all);
    ``configs``: ``{dataset: [config, ...]}`` restricts those datasets' configs (the others are
    listed as skipped); ``models``: also the coherence model with its adapters merged; ``cache_dir``:
    where the dataset builders prepare, kept (default: a temporary folder, so each export builds
    from the sources).
    """
    quiet_datasets()
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    manifest = Manifest()
    for kind, selected in (("datasets", datasets_only), ("metrics", metrics_only)):
        names = cards.registered_names(kind)
        unknown = sorted(set(selected or []) - set(names))
        if unknown:
            raise InputError(f"unknown {kind} {unknown}; registered: {names}")
        for name in names:
            if selected is not None and name not in selected:
                manifest.skip(f"{kind[:-1]} {name}", "not selected")
                continue
            if kind == "datasets":
                export_dataset(name, out, manifest, (configs or {}).get(name), cache_dir)
            else:
                export_space(name, out, manifest)
    if models:
        export_models(out, manifest)
    manifest.write(out)
    return manifest
