"""Subcommands of ``mwz`` that need the datasets or metrics (imported lazily)."""

from __future__ import annotations

from mwz_metrics import cli_coherence  # noqa: F401
from mwz_metrics import cli_dstc9  # noqa: F401
from mwz_metrics import cli_evaluate  # noqa: F401
