"""What an export wrote and skipped (``mwz_export.json``), and the names every export part shares."""

from __future__ import annotations

import dataclasses
import json
import logging
from pathlib import Path
from typing import Any

from mwz_plugins.errors import InputError
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
    models: dict[str, dict[str, Any]] = dataclasses.field(default_factory=dict)
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
            raise InputError(f"{path} not found: run `mwz hub export {out}` first")
        return cls(**json.loads(path.read_text(encoding="utf-8")))


# ---------------------------------------------------------------- datasets
