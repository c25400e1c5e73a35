"""``mwz hub export`` and ``mwz hub push``.

Registered through the ``mwz.cli`` entry-point group (see ``mwz_metrics.cli``), so
the lower layers never import this package.
"""

from __future__ import annotations

import argparse
import sys
import tempfile

from mwz_metrics.cli.registry import command
from mwz_metrics.settings import parse_pair


def _selection_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dataset", action="append", metavar="NAME", help="export only this dataset (repeatable)")
    parser.add_argument("--metric", action="append", metavar="NAME", help="export only this metric (repeatable)")
    parser.add_argument("--no-datasets", action="store_true", help="export no dataset")
    parser.add_argument("--no-metrics", action="store_true", help="export no metric")
    parser.add_argument("--no-models", action="store_true", help="export no model (the coherence cross-encoder)")
    parser.add_argument(
        "--config", action="append", metavar="DATASET=CONFIG", help="export only this config of DATASET (repeatable)"
    )


PARTIAL_EXIT = 3  # not 1: exit 1 is always a bug of mwz-eval (mwz_metrics.cli)
EXPORT_EXIT_CODES = """exit codes:
  0  everything exported (or something skipped, under --allow-partial)
  2  bad input or configuration, missing data or a missing extra: one line on stderr
  3  something was skipped: each item listed with its reason (SKIPPED ...)"""
PUSH_EXIT_CODES = """exit codes:
  0  everything uploaded (or, with --dry-run, listed)
  2  bad input or configuration, missing data or a missing extra: one line on stderr
  3  a repository was refused (REFUSED ...: e.g. built from non-pinned sources)"""


def _export_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("out", help="folder to write the Hub-ready dataset and Space folders into")
    _selection_args(parser)
    parser.add_argument(
        "--allow-partial", action="store_true", help="exit 0 even when something was skipped (default: exit 3)"
    )
    parser.add_argument(
        "--cache-dir",
        metavar="DIR",
        help="prepare the datasets in DIR and keep them for a later export with the same code and MWZ_MIRROR "
        "(default: a temporary folder, so that every export is built from the sources)",
    )
    parser.add_argument("--strict", action="store_true", help=argparse.SUPPRESS)  # the default now; kept for scripts


def _configs(values: list[str] | None) -> dict[str, list[str]] | None:
    if not values:
        return None
    configs: dict[str, list[str]] = {}
    for value in values:
        dataset, config = parse_pair(value, "--config", "DATASET=CONFIG")
        configs.setdefault(dataset, []).append(config)
    return configs


def _run_export(args: argparse.Namespace, out: str):
    from mwz_hub.export import export

    return export(
        out,
        datasets_only=[] if args.no_datasets else args.dataset,
        metrics_only=[] if args.no_metrics else args.metric,
        configs=_configs(args.config),
        models=not args.no_models,
        cache_dir=getattr(args, "cache_dir", None),
    )


def _report(manifest, out: str) -> None:
    for name, entry in manifest.datasets.items():
        configs = ", ".join(
            f"{c} ({', '.join(f'{s} {n}' for s, n in info['splits'].items())}"
            f"{'' if info['pinned'] else '; NOT the pinned sources' if info['pinned'] is False else ''})"
            for c, info in entry["configs"].items()
        )
        print(f"dataset {name}: {out}/{entry['path']}: {configs}")
    for name, entry in manifest.spaces.items():
        print(f"space   {name}: {out}/{entry['path']} (requires {', '.join(entry['requirements'])})")
    for name, entry in manifest.models.items():
        print(f"model   {name}: {out}/{entry['path']} (adapter sha256 {entry['signature']['adapter_sha256'][:12]})")
    for skipped in manifest.skipped:
        print(f"SKIPPED {skipped['item']}: {skipped['reason']}")


@command(
    "hub export",
    "write Hub-ready dataset folders (parquet + card), metric Spaces and the coherence model",
    _export_args,
    example="mwz hub export out/",
    exit_codes=EXPORT_EXIT_CODES,
)
def _export(args: argparse.Namespace) -> int:
    manifest = _run_export(args, args.out)
    _report(manifest, args.out)
    if manifest.skipped and not args.allow_partial:
        print(
            f"mwz: {len(manifest.skipped)} item(s) skipped (listed above); --allow-partial accepts that",
            file=sys.stderr,
        )
        return PARTIAL_EXIT
    return 0


def _push_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("folder", nargs="?", help="an export folder (default: export everything to a temporary one)")
    parser.add_argument("--namespace", required=True, help="Hub user or organization to upload to")
    parser.add_argument("--dry-run", action="store_true", help="list what would be uploaded; upload nothing")
    parser.add_argument("--private", action="store_true", default=None, help="create new repos as private")
    parser.add_argument(
        "--allow-unpinned", action="store_true", help="also upload datasets built from non-pinned source copies"
    )
    _selection_args(parser)


def _push_from(args: argparse.Namespace, folder: str) -> int:
    from mwz_hub import push

    if args.dry_run:
        the_plan = push.plan(folder, args.namespace, allow_unpinned=args.allow_unpinned)
    else:
        the_plan = push.push(folder, args.namespace, private=args.private, allow_unpinned=args.allow_unpinned)
    verb = "would upload" if args.dry_run else "uploaded"
    for upload in the_plan.uploads:
        print(f"{verb} {upload.repo_type} {upload.repo_id}: {len(upload.files)} files, {upload.total_bytes} bytes")
        if args.dry_run:
            for path, size in upload.files:
                print(f"    {path}  {size}")
    for repo_id, reason in the_plan.refused:
        print(f"REFUSED {repo_id}: {reason}")
    return PARTIAL_EXIT if the_plan.refused else 0


@command(
    "hub push",
    "upload the exported datasets and metric Spaces to the Hugging Face Hub",
    _push_args,
    example="mwz hub push out/ --namespace ORG --dry-run",
    exit_codes=PUSH_EXIT_CODES,
)
def _push(args: argparse.Namespace) -> int:
    if args.folder:
        return _push_from(args, args.folder)
    with tempfile.TemporaryDirectory(prefix="mwz-hub-export-") as folder:
        manifest = _run_export(args, folder)
        for skipped in manifest.skipped:
            print(f"SKIPPED {skipped['item']}: {skipped['reason']}")
        return _push_from(args, folder)
