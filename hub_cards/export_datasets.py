"""Datasets for the Hub: each registered builder's configs as parquet, with its card."""

from __future__ import annotations

import contextlib
import logging
import math
import shutil
import tempfile
from pathlib import Path
from typing import Any

import datasets
from huggingface_hub import DatasetCardData

from mwz_hub import cards
from mwz_hub.manifest import EXPORT_MARKER, MAX_SHARD_BYTES, Manifest
from mwz_plugins.errors import InputError
from mwz_plugins.version import __version__

logger = logging.getLogger(__name__)


def quiet_datasets() -> None:
    """No datasets progress bars or info logging during an export."""
    datasets.disable_progress_bars()


def _write_parquet(ds: datasets.Dataset, folder: Path, split: str) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    shards = max(1, math.ceil(ds.data.nbytes / MAX_SHARD_BYTES))
    paths = []
    for index in range(shards):
        path = folder / f"{split}-{index:05d}-of-{shards:05d}.parquet"
        ds.shard(shards, index, contiguous=True).to_parquet(str(path))
        paths.append(path)
    return paths


def _sources(builder: datasets.DatasetBuilder) -> list[dict[str, Any]] | None:
    # Builders keep the files they resolved (mwz_datasets.sources.ResolvedFile) in `_resolved`.
    resolved = getattr(builder, "_resolved", None)
    if not resolved:
        return None
    rows = []
    for item in resolved.values():
        source = item.source
        rows.append(
            {
                "file": source.name,
                "commit": source.commit,
                "url": source.url,
                "pinned_sha256": source.sha256,
                "pinned_git_blob": source.git_blob,
                "sha256": item.sha256,
                "pinned": item.pinned_match(),
            }
        )
    return rows


def _export_config(name, cls, config, folder: Path, cache: str, manifest: Manifest) -> dict[str, Any] | None:
    from mwz_datasets.routing import builder_hash
    from mwz_datasets.sources import SourceError

    item = f"dataset {name} config {config}"
    try:
        # keyed as load_dataset keys it: a kept cache_dir never serves data built from another copy or code
        builder = cls(config_name=config, cache_dir=cache, hash=builder_hash(cls))
        builder.download_and_prepare()
    except SourceError as error:
        manifest.skip(item, f"its sources could not be resolved: {error}")
        return None
    splits: dict[str, Any] = {}
    for split in builder.info.splits:
        ds = builder.as_dataset(split)
        if ds.num_rows == 0:
            manifest.skip(f"{item} split {split}", "no rows in the sources used (the Hub cannot load an empty split)")
            continue
        paths = _write_parquet(ds, folder / "data" / config, split)
        splits[split] = {
            "rows": ds.num_rows,
            "num_bytes": ds.data.nbytes,
            "files": [p.relative_to(folder).as_posix() for p in paths],
            "parquet_bytes": sum(p.stat().st_size for p in paths),
        }
    if not splits:
        manifest.skip(item, "every split is empty in the sources used")
        return None
    sources = _sources(builder)
    pinned = None if sources is None else all(s["pinned"] is True for s in sources)
    if pinned is False:
        logger.warning("%s was built from sources that differ from the pinned upstream files", item)
    return {"splits": splits, "sources": sources, "pinned": pinned, "features": builder.info.features}


def _dataset_metadata(card: cards.Card, configs: dict[str, dict], default: str | None) -> dict[str, Any]:
    from datasets.info import DatasetInfo, DatasetInfosDict
    from datasets.splits import SplitDict, SplitInfo
    from datasets.utils.metadata import MetadataConfigs

    data = DatasetCardData(**card.public_metadata)
    metadata_configs = MetadataConfigs()
    infos = DatasetInfosDict()
    for config, result in configs.items():
        entry: dict[str, Any] = {"data_files": [{"split": s, "path": f"data/{config}/{s}-*"} for s in result["splits"]]}
        if config == default:
            entry["default"] = True
        metadata_configs[config] = entry
        split_dict = SplitDict()
        for split, info in result["splits"].items():
            split_dict.add(SplitInfo(name=split, num_bytes=info["num_bytes"], num_examples=info["rows"]))
        infos[config] = DatasetInfo(
            features=result["features"],
            splits=split_dict,
            download_size=sum(i["parquet_bytes"] for i in result["splits"].values()),
            dataset_size=sum(i["num_bytes"] for i in result["splits"].values()),
            config_name=config,
        )
    metadata_configs.to_dataset_card_data(data)
    infos.to_dataset_card_data(data)
    return data.to_dict()


def _summary(reason: str) -> str:
    # One line for the card: the reason's first line and the files it lists.
    lines = [line.strip() for line in reason.splitlines()]
    items = [line[2:] for line in lines[1:] if line.startswith("- ")]
    return lines[0] + (" " + "; ".join(items) if items else "")


def _export_section(name: str, configs: dict[str, dict], skipped: list[dict[str, str]]) -> str:
    lines = [
        "## This export",
        "",
        f"Written by `mwz hub export` (mwz-eval {__version__}) from the `{name}` builder of `mwz_datasets`: "
        "parquet shards per config and split, loadable with plain `datasets.load_dataset`.",
        "",
        "| config | split | rows |",
        "|---|---|---|",
    ]
    for config, result in configs.items():
        for split, info in result["splits"].items():
            lines.append(f"| `{config}` | {split} | {info['rows']} |")
    lines += ["", "### Source files of this export", ""]
    lines += [
        "Each file is pinned to an upstream commit; `sha256` is that of the copy this export was built "
        "from, `pinned` says whether it equals the pinned upstream file (checked by sha256, or by git blob id "
        "where upstream gives no sha256).",
        "",
        "| config | file | commit | pinned checksum | sha256 of the copy used | pinned |",
        "|---|---|---|---|---|---|",
    ]
    for config, result in configs.items():
        for s in result["sources"] or []:
            pin = f"sha256 `{s['pinned_sha256']}`" if s["pinned_sha256"] else f"git blob `{s['pinned_git_blob']}`"
            lines.append(
                f"| `{config}` | [{s['file']}]({s['url']}) | `{s['commit'][:12]}` | {pin} | `{s['sha256']}` | "
                f"{'yes' if s['pinned'] else 'NO' if s['pinned'] is False else 'unknown'} |"
            )
        if result["sources"] is None:
            lines.append(f"| `{config}` | (not reported by the builder) | | | | unknown |")
    if skipped:
        lines += ["", "### Not in this export", ""]
        lines += [f"- {s['item']}: {_summary(s['reason'])}" for s in skipped]
    return "\n".join(lines) + "\n"


def _known_configs(name: str, cls: Any, configs: list[str] | None) -> list[str]:
    """The builder's config names; a selected config it does not have is an error."""
    known = [c.name for c in cls.BUILDER_CONFIGS]
    unknown = sorted(set(configs or []) - set(known))
    if unknown:
        raise InputError(f"dataset {name}: unknown configs {unknown}; known: {known}")
    return known


def _builder_cache(cache_dir: str | Path | None) -> contextlib.AbstractContextManager[str]:
    """Where the builders prepare: ``cache_dir`` where given (kept), else a temporary folder."""
    if cache_dir is not None:
        return contextlib.nullcontext(str(cache_dir))
    return tempfile.TemporaryDirectory(prefix="mwz-hub-")


def _export_configs(
    name: str,
    cls: Any,
    known: list[str],
    configs: list[str] | None,
    folder: Path,
    cache_dir: str | Path | None,
    manifest: Manifest,
) -> dict[str, dict]:
    """Export each selected config into ``folder``; returns the results of those exported."""
    results: dict[str, dict] = {}
    with _builder_cache(cache_dir) as cache:
        for config in known:
            if configs is not None and config not in configs:
                manifest.skip(f"dataset {name} config {config}", "not selected (--config)")
                continue
            result = _export_config(name, cls, config, folder, cache, manifest)
            if result is not None:
                results[config] = result
    return results


def _default_config(name: str, cls: Any, results: dict[str, dict]) -> str | None:
    """The builder's default config where it was exported (else None, with a warning)."""
    default = cls.DEFAULT_CONFIG_NAME if cls.DEFAULT_CONFIG_NAME in results else None
    if default is None:
        logger.warning(
            "dataset %s: its default config %s is not exported; none is marked default", name, cls.DEFAULT_CONFIG_NAME
        )
    return default


def _manifest_entry(folder: Path, out: Path, default: str | None, results: dict[str, dict]) -> dict[str, Any]:
    """The manifest's record of an exported dataset: its path, default config, and each config's splits and sources."""
    return {
        "path": folder.relative_to(out).as_posix(),
        "default": default,
        "configs": {
            c: {
                "splits": {s: i["rows"] for s, i in r["splits"].items()},
                "pinned": r["pinned"],
                "sources": r["sources"],
            }
            for c, r in results.items()
        },
    }


def export_dataset(
    name: str, out: Path, manifest: Manifest, configs: list[str] | None = None, cache_dir: str | Path | None = None
) -> Path | None:
    """Export a dataset's configs as parquet with its card; returns the folder (None if skipped).

    The builders prepare in ``cache_dir``, kept for a later export or ``load_dataset(..., cache_dir=)``
    to reuse, keyed as ``load_dataset`` keys them (the builder code and ``$MWZ_MIRROR``; a copy
    changed in place is not noticed); by default in a temporary folder, so that an export is always
    built from the sources."""
    from mwz_datasets.routing import builder_class

    try:
        card = cards.load_card("datasets", name)
    except cards.CardError as error:
        manifest.skip(f"dataset {name}", str(error))
        return None
    cls = builder_class(name)
    known = _known_configs(name, cls, configs)
    folder = out / "datasets" / name
    if folder.exists():
        shutil.rmtree(folder)  # stale shards would be picked up by the data_files globs
    folder.mkdir(parents=True)
    before = len(manifest.skipped)
    results = _export_configs(name, cls, known, configs, folder, cache_dir, manifest)
    if not results:
        shutil.rmtree(folder)
        manifest.skip(f"dataset {name}", "no config could be exported")
        return None
    default = _default_config(name, cls, results)
    metadata = _dataset_metadata(card, results, default)
    section = _export_section(name, results, manifest.skipped[before:])
    body = card.body.replace(EXPORT_MARKER, section) if EXPORT_MARKER in card.body else card.body + "\n" + section
    (folder / "README.md").write_text(cards.render(metadata, body), encoding="utf-8")
    manifest.datasets[name] = _manifest_entry(folder, out, default, results)
    return folder


# ---------------------------------------------------------------- metric Spaces
