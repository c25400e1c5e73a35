"""Session coherence as a registered metric (``--metric coherence``): the protocol of :mod:`mwz_metrics.metric`."""

from __future__ import annotations

import dataclasses
from typing import Any

from mwz_metrics import bootstrap
from mwz_metrics.metric import MetricInputs, MetricResult, Presentation
from mwz_metrics.settings import typed


class SessionCoherence:
    """Mean P(coherent) over adjacent turn pairs, 0-100: a static system's responses between the gold
    user turns (dialogues whose turn count differs from the gold one are skipped), or whole sessions."""

    name = "coherence"
    presentation = Presentation(digits=1)

    def score(self, inputs: MetricInputs) -> MetricResult:
        """``mwz coherence``'s numbers for one system (one model and pair memo for every system of a process)."""
        from mwz_metrics.coherence import api
        from mwz_metrics.signature import Signature

        if inputs.sessions is not None:
            from mwz_metrics.records.session import speakers_and_texts

            turns = {s["id"]: speakers_and_texts(s) for s in inputs.sessions}
            scored = api.score_sessions(turns, scorer=api.shared_scorer())
        else:
            scored = api.score_predictions(
                inputs.predictions,  # type: ignore[arg-type]
                scorer=api.shared_scorer(),
                on_mismatch="skip",
                data_dir=inputs.data_dir,
                description=f"coherence ({inputs.label})" if inputs.label else "coherence",
            )
        interval = scored.get("ci95") or {}
        return MetricResult(
            "coherence",
            scored["coherence"],
            scores=bootstrap.means(scored["pair_probabilities"], scale=100.0),  # dialogues without pairs left out
            ci95=[interval["low"], interval["high"]] if "low" in interval else None,
            per_domain={d: block["coherence"] for d, block in (scored.get("per_domain") or {}).items()},
            per_dialogue=dict(scored["sessions"]),
            model=Signature.parse(scored["signature"]["line"]).model or "",
            signature=scored["signature"],
        )


def make(**options: Any) -> SessionCoherence:
    """The ``coherence`` metric (its plugin entry's loader); it takes no options."""
    typed(CoherenceOptions, options, "coherence")
    return SessionCoherence()


@dataclasses.dataclass(frozen=True)
class CoherenceOptions:
    """The coherence metric takes no options (its model is the shipped one)."""
