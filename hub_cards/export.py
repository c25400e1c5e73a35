"""``mwz hub export``: Hub-ready folders for every registered dataset and metric.

Layout of ``OUT``::

    datasets/<name>/README.md                      card + ``configs:`` + ``dataset_info:``
    datasets/<name>/data/<config>/<split>-00000-of-00001.parquet
    spaces/<name>/{<name>.py, app.py, requirements.txt, README.md}
    mwz_export.json                                what was exported, and what was not and why

The dataset folders load with plain ``datasets.load_dataset(folder, config)`` and
the Space folders with ``evaluate.load(folder)``: no code of ours runs on the
reader's side except the metric script, which imports the pinned ``mwz-eval``.
Nothing is skipped silently: a config whose sources cannot be resolved, an empty
split, a dataset or metric without a card are logged and listed in the manifest.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import math
import shutil
import tempfile
from pathlib import Path
from typing import Any

import datasets
from huggingface_hub import DatasetCardData

from mwz_hub import cards
from mwz_plugins.version import __version__

logger = logging.getLogger(__name__)

MANIFEST = "mwz_export.json"
EXPORT_MARKER = "<!-- mwz:export -->"
MAX_SHARD_BYTES = 500 << 20  # the Hub's usual parquet shard size
DISTRIBUTION = "mwz-eval"


@dataclasses.dataclass
class Manifest:
    """What an export wrote and what it skipped, saved beside it."""

    version: str = __version__
    datasets: dict[str, dict[str, Any]] = dataclasses.field(default_factory=dict)
    spaces: dict[str, dict[str, Any]] = dataclasses.field(default_factory=dict)
    skipped: list[dict[str, str]] = dataclasses.field(default_factory=list)

    def skip(self, item: str, reason: str) -> None:
        """Record a skipped item and why."""
        logger.warning("not exported: %s: %s", item, reason)
        self.skipped.append({"item": item, "reason": reason})

    def write(self, out: Path) -> Path:
        """Save the manifest in ``out``."""
        path = out / MANIFEST
        path.write_text(json.dumps(dataclasses.asdict(self), indent=2) + "\n", encoding="utf-8")
        return path

    @classmethod
    def read(cls, out: Path) -> Manifest:
        """The manifest saved in ``out``."""
        path = Path(out) / MANIFEST
        if not path.is_file():
            raise FileNotFoundError(f"{path} not found: run `mwz hub export {out}` first")
        return cls(**json.loads(path.read_text(encoding="utf-8")))


# ---------------------------------------------------------------- datasets


def _quiet_datasets():
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
    from mwz_datasets.sources import SourceError

    item = f"dataset {name} config {config}"
    try:
        builder = cls(config_name=config, cache_dir=cache)
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


def export_dataset(name: str, out: Path, manifest: Manifest, configs: list[str] | None = None) -> Path | None:
    """Export a dataset's configs as parquet with its card; returns the folder (None if skipped)."""
    from mwz_datasets.routing import builder_class

    try:
        card = cards.load_card("datasets", name)
    except cards.CardError as error:
        manifest.skip(f"dataset {name}", str(error))
        return None
    cls = builder_class(name)
    known = [c.name for c in cls.BUILDER_CONFIGS]
    unknown = sorted(set(configs or []) - set(known))
    if unknown:
        raise ValueError(f"dataset {name}: unknown configs {unknown}; known: {known}")
    folder = out / "datasets" / name
    if folder.exists():
        shutil.rmtree(folder)  # stale shards would be picked up by the data_files globs
    folder.mkdir(parents=True)
    before = len(manifest.skipped)
    results: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="mwz-hub-") as cache:
        for config in known:
            if configs is not None and config not in configs:
                manifest.skip(f"dataset {name} config {config}", "not selected (--config)")
                continue
            result = _export_config(name, cls, config, folder, cache, manifest)
            if result is not None:
                results[config] = result
    if not results:
        shutil.rmtree(folder)
        manifest.skip(f"dataset {name}", "no config could be exported")
        return None
    default = cls.DEFAULT_CONFIG_NAME if cls.DEFAULT_CONFIG_NAME in results else None
    if default is None:
        logger.warning(
            "dataset %s: its default config %s is not exported; none is marked default", name, cls.DEFAULT_CONFIG_NAME
        )
    metadata = _dataset_metadata(card, results, default)
    section = _export_section(name, results, manifest.skipped[before:])
    body = card.body.replace(EXPORT_MARKER, section) if EXPORT_MARKER in card.body else card.body + "\n" + section
    (folder / "README.md").write_text(cards.render(metadata, body), encoding="utf-8")
    manifest.datasets[name] = {
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
    return folder


# ---------------------------------------------------------------- metric Spaces

APP_TEMPLATE = '''\
"""Gradio app of the {name} metric Space (written by `mwz hub export`)."""

import json
from pathlib import Path

import evaluate
import gradio as gr

module = evaluate.load(str(Path(__file__).resolve().parent / "{name}.py"))


def score(predictions_json, options_json):
    predictions = json.loads(predictions_json)
    options = json.loads(options_json) if options_json.strip() else {{}}
    return module.compute(predictions=predictions, **options)


demo = gr.Interface(
    fn=score,
    inputs=[
        gr.Textbox(lines=14, label="predictions (JSON, as in the card's How to Use)"),
        gr.Textbox(lines=3, label="other compute() arguments (JSON object, optional)", value="{{}}"),
    ],
    outputs=gr.JSON(label="result"),
    title={title!r},
    description=module.info.description,
    article=module.info.inputs_description.replace("\\n", "<br>"),
)

if __name__ == "__main__":
    demo.launch()
'''


def requirements(name: str, extras: list[str] | None = None) -> list[str]:
    """The pip requirements of a metric's Space: this package, pinned, and the plugin that ships it."""
    from mwz_plugins import get_registry
    from mwz_plugins.manager import plugin_infos

    if "unknown" in __version__:
        raise RuntimeError(f"cannot pin {DISTRIBUTION}: it is not installed (version {__version__})")
    extra = f"[{','.join(sorted(extras))}]" if extras else ""
    lines = [f"{DISTRIBUTION}{extra}=={__version__}"]
    owner = get_registry().owners.get(("metrics", name))
    info = plugin_infos().get(owner) if owner else None
    if info and info.distribution and info.distribution != DISTRIBUTION and info.version:
        lines.append(f"{info.distribution}=={info.version}")
    return lines


def export_space(name: str, out: Path, manifest: Manifest) -> Path | None:
    """Export a metric as an evaluate Space; returns the folder (None if skipped)."""
    from mwz_metrics.routing import script_path

    try:
        card = cards.load_card("metrics", name)
    except cards.CardError as error:
        manifest.skip(f"metric {name}", str(error))
        return None
    script = script_path(name)
    folder = out / "spaces" / name
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    # the script and anything it ships beside it (evaluate copies relative imports too)
    for path in sorted(script.parent.iterdir()):
        if path.is_file() and path.name != "README.md" and path.suffix != ".pyc":
            shutil.copy2(path, folder / path.name)
    title = card.metadata.get("title") or name
    (folder / "app.py").write_text(APP_TEMPLATE.format(name=name, title=title), encoding="utf-8")
    reqs = requirements(name, card.private("mwz_extras"))
    (folder / "requirements.txt").write_text("\n".join(reqs) + "\n", encoding="utf-8")
    (folder / "README.md").write_text(cards.render(card.public_metadata, card.body), encoding="utf-8")
    manifest.spaces[name] = {"path": folder.relative_to(out).as_posix(), "requirements": reqs}
    return folder


# ---------------------------------------------------------------- everything


def export(
    out: str | Path,
    *,
    datasets_only: list[str] | None = None,
    metrics_only: list[str] | None = None,
    configs: dict[str, list[str]] | None = None,
) -> Manifest:
    """Export every registered dataset and metric (or the selected ones) into ``out``.

    ``datasets_only``/``metrics_only``: names to export (``[]`` for none, None for all);
    ``configs``: ``{dataset: [config, ...]}`` restricts those datasets' configs (the others are
    listed as skipped).
    """
    _quiet_datasets()
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    manifest = Manifest()
    for kind, selected in (("datasets", datasets_only), ("metrics", metrics_only)):
        names = cards.registered_names(kind)
        unknown = sorted(set(selected or []) - set(names))
        if unknown:
            raise ValueError(f"unknown {kind} {unknown}; registered: {names}")
        for name in names:
            if selected is not None and name not in selected:
                manifest.skip(f"{kind[:-1]} {name}", "not selected")
                continue
            if kind == "datasets":
                export_dataset(name, out, manifest, (configs or {}).get(name))
            else:
                export_space(name, out, manifest)
    manifest.write(out)
    return manifest
