"""``mwz hub push``: upload exported folders with ``huggingface_hub``.

Each dataset folder becomes the dataset repo ``<namespace>/<name>`` and each Space
folder the gradio Space ``<namespace>/<name>``, with the user's usual Hugging Face
login. We upload the exported folders as they are (``HfApi.upload_folder``) rather
than through ``Dataset.push_to_hub``: the README, configs and parquet layout are
ours, and in datasets 5.2 ``push_to_hub(..., set_default=True)`` raises
``KeyError: 'default'`` when exactly one other non-default config exists.

Datasets built from copies that differ from the pinned upstream files (a local
mirror, a truncated sample) are refused unless ``allow_unpinned``.
"""

from __future__ import annotations

import dataclasses
import logging
from pathlib import Path
from typing import Any

from mwz_hub.export import MANIFEST, Manifest
from mwz_plugins.errors import InputError

logger = logging.getLogger(__name__)

# Remote files replaced by each upload: stale shards would otherwise match the configs' globs.
DELETE_PATTERNS = {"dataset": ["data/**"], "space": ["*.py", "requirements.txt"], "model": ["*.safetensors"]}


@dataclasses.dataclass(frozen=True)
class Upload:
    """One folder to upload to one Hub repository."""

    repo_id: str
    repo_type: str  # "dataset", "space" or "model"
    folder: Path
    files: tuple[tuple[str, int], ...]  # (path in repo, bytes)

    @property
    def total_bytes(self) -> int:
        """Bytes to upload."""
        return sum(size for _, size in self.files)


@dataclasses.dataclass
class Plan:
    """Everything a push would upload, and what it refuses."""

    uploads: list[Upload]
    refused: list[tuple[str, str]]  # (repo id, reason)


def _files(folder: Path) -> tuple[tuple[str, int], ...]:
    return tuple((p.relative_to(folder).as_posix(), p.stat().st_size) for p in sorted(folder.rglob("*")) if p.is_file())


def plan(out: str | Path, namespace: str, *, allow_unpinned: bool = False) -> Plan:
    """What :func:`push` would upload from the export in ``out``."""
    if not namespace or "/" in namespace:
        raise InputError(f"--namespace must be a user or organization name, got {namespace!r}")
    out = Path(out)
    manifest = Manifest.read(out)
    result = Plan([], [])
    for name, entry in manifest.datasets.items():
        repo_id = f"{namespace}/{name}"
        unpinned = [c for c, info in entry["configs"].items() if info["pinned"] is False]
        unknown = [c for c, info in entry["configs"].items() if info["pinned"] is None]
        if unknown:
            logger.warning("dataset %s configs %s: the builder did not report its sources", name, unknown)
        if unpinned and not allow_unpinned:
            result.refused.append(
                (
                    repo_id,
                    f"configs {unpinned} were built from files that differ from the pinned upstream "
                    "files (docs/datasets.md, Where the data comes from); re-export from the pinned sources or pass "
                    "--allow-unpinned",
                )
            )
            continue
        folder = out / entry["path"]
        result.uploads.append(Upload(repo_id, "dataset", folder, _files(folder)))
    for name, entry in manifest.spaces.items():
        folder = out / entry["path"]
        result.uploads.append(Upload(f"{namespace}/{name}", "space", folder, _files(folder)))
    for name, entry in manifest.models.items():
        folder = out / entry["path"]
        result.uploads.append(Upload(f"{namespace}/{name}", "model", folder, _files(folder)))
    return result


def push(
    out: str | Path,
    namespace: str,
    *,
    api: Any = None,
    private: bool | None = None,
    allow_unpinned: bool = False,
    version: str | None = None,
) -> Plan:
    """Create the repos (if needed) and upload every planned folder; returns the plan."""
    the_plan = plan(out, namespace, allow_unpinned=allow_unpinned)
    if api is None:
        from huggingface_hub import HfApi

        api = HfApi()
    version = version or Manifest.read(Path(out)).version
    for upload in the_plan.uploads:
        extra = {"space_sdk": "gradio"} if upload.repo_type == "space" else {}
        api.create_repo(upload.repo_id, repo_type=upload.repo_type, private=private, exist_ok=True, **extra)
        api.upload_folder(
            repo_id=upload.repo_id,
            repo_type=upload.repo_type,
            folder_path=str(upload.folder),
            commit_message=f"Upload from mwz-eval {version} (mwz hub push)",
            delete_patterns=DELETE_PATTERNS[upload.repo_type],
            ignore_patterns=[MANIFEST],
        )
        logger.info("uploaded %s (%s, %d files)", upload.repo_id, upload.repo_type, len(upload.files))
    return the_plan
