"""The result of ``mwz compare``: a tidy table of rows, rendered in every format."""

from __future__ import annotations

import dataclasses
from typing import Any


@dataclasses.dataclass
class Comparison:
    """A tidy table: one row per system, metric and domain, with intervals and p-values."""

    systems: list[str]
    rows: list[dict[str, Any]]
    signature: dict[str, Any]
    baseline: str | None = None
    per_dialogue: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    results: dict[str, dict[str, Any]] = dataclasses.field(default_factory=dict, repr=False)
    settings: dict[str, Any] = dataclasses.field(default_factory=dict)

    def __post_init__(self) -> None:
        """``settings["trials_of"]``: each interactive run of several trials per goal, its goals and
        trials (what every format labels it with, ``[G goals x T trials]``)."""
        trials = {}
        for name in self.settings.get("interactive") or {}:
            found = (self.results.get(name) or {}).get("trials")
            if isinstance(found, dict) and found.get("goals") and found.get("trials"):
                trials[name] = {"goals": int(found["goals"]), "trials": int(found["trials"])}
        if trials:
            self.settings.setdefault("trials_of", trials)

    def value(self, system: str, metric: str, domain: str = "total") -> Any:
        """The value of one cell (KeyError when absent)."""
        for row in self.rows:
            if (row["system"], row["metric"], row["domain"]) == (system, metric, domain):
                return row["value"]
        raise KeyError((system, metric, domain))

    def columns(self) -> list[str]:
        """The metrics of the wide table (totals), in display order."""
        seen: list[str] = []
        for row in self.rows:
            if row["domain"] == "total" and row["metric"] not in seen:
                seen.append(row["metric"])
        return seen

    def render(self, fmt: str = "table") -> str:
        """The comparison as text: ``table``, ``markdown``, ``latex``, ``csv``, ``json`` or ``html``."""
        from mwz_metrics.comparison import formats

        return formats.render(self, fmt)

    def as_json(self) -> dict[str, Any]:
        """JSON form: systems, rows, baseline, bootstrap settings and the signature."""
        return {
            "systems": self.systems,
            "baseline": self.baseline,
            "bootstrap": self.settings,
            "rows": self.rows,
            "signature": self.signature,
        }
