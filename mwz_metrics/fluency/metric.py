"""Sentence fluency as a registered metric (``--metric fluency[:model=NAME]``): the protocol of :mod:`mwz_metrics.metric`."""

from __future__ import annotations

import dataclasses
from typing import Any

from mwz_metrics import bootstrap
from mwz_metrics.metric import MetricInputs, MetricResult, Presentation
from mwz_metrics.settings import typed


class SentenceFluency:
    """Sent-Score, the mean cross-entropy of the responses under a language model of MultiWOZ system
    turns (lower is more fluent): the default n-gram model, or any Hugging Face causal LM (``model``)."""

    name = "fluency"
    presentation = Presentation(label="sent-score", digits=3)

    def __init__(self, model: str | None = None) -> None:
        self.model_name = model or None

    def score(self, inputs: MetricInputs) -> MetricResult:
        """``mwz fluency``'s numbers for one system (one model for every system of a process)."""
        from mwz_metrics.fluency import api

        model = api.shared_model(self.model_name, data_dir=inputs.data_dir)
        options = {"model": model, "resamples": inputs.resamples, "seed": inputs.seed}
        if inputs.sessions is not None:
            scored = api.score_sessions(inputs.sessions, **options)
        else:
            scored = api.score_predictions(inputs.predictions, data_dir=inputs.data_dir, **options)  # type: ignore[arg-type]
        return MetricResult(
            "fluency",
            scored["fluency"],
            scores=bootstrap.means(scored["per_response"]),
            ci95=scored["ci95"],
            per_domain={d: v["fluency"] for d, v in (scored.get("per_domain") or {}).items()},
            model=model.short(),
            signature=scored["signature"],
            report={k: scored[k] for k in ("fluency", "ci95", "responses", "per_domain")},
        )


@dataclasses.dataclass(frozen=True)
class FluencyOptions:
    """``--metric fluency:model=NAME``: a Hugging Face causal LM's name or path (default: the n-gram model)."""

    model: str | None = None


def make(**options: Any) -> SentenceFluency:
    """The ``fluency`` metric (its plugin entry's loader), made with :class:`FluencyOptions`."""
    return SentenceFluency(typed(FluencyOptions, options, "fluency").model)
