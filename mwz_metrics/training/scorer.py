"""An episode's reward: its session scored by the code that scores ``mwz interact`` (nothing re-implemented).

The session record an environment builds is the record the runner writes
(:class:`~mwz_metrics.interactive.harness.runner.SteppedSession`), scored by
:func:`mwz_metrics.interactive.harness.api.score` with the run configuration ``mwz interact``
would record; the metrics stay loaded between episodes (``warm``), so one session scores in a few
milliseconds.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from mwz_metrics.interactive.harness import api
from mwz_metrics.training.records import RewardSpec


class EpisodeScorer:
    """Scores one session at a time under a run configuration, into a :class:`RewardSpec`'s figures."""

    def __init__(
        self, config: Mapping[str, Any], context: Any, spec: RewardSpec, *, warm: dict[Any, Any] | None = None
    ) -> None:
        self.config, self.context, self.spec = dict(config), context, spec
        self.warm: dict[Any, Any] = {} if warm is None else warm  # shared by scorers of the same metrics

    def score(self, session: Mapping[str, Any]) -> dict[str, Any]:
        """``mwz interact``'s result for this one session (figures, per-session outcome, signature)."""
        return api.score(
            [session],
            self.config,
            context=self.context,
            richness=False,
            resamples=0,
            metrics=self.spec.metrics,
            warm=self.warm,
        )

    def figures(self, result: Mapping[str, Any]) -> dict[str, float]:
        """The reward terms of one session's result (see :data:`~.records.TERMS`)."""
        one = result["per_session"][0]
        figures = {
            "success": float(one["success"] or 0.0),
            "inform": float(one["inform"] or 0.0),
            "book": 1.0 if one["book_rate"] is None else float(one["book_rate"]),
            "complete": float(one["complete"] or 0.0),
            "turns": float(one["turns"]),
        }
        if "fluency" in result and result["fluency"]:
            figures["inv_sent"] = 1.0 / float(result["fluency"])
        if "coherence" in result and result["coherence"] is not None:
            figures["sess"] = float(result["coherence"])
        return figures

    def reward(self, session: Mapping[str, Any]) -> tuple[float, dict[str, Any]]:
        """The episode's reward and what ``info`` reports of its scoring."""
        result = self.score(session)
        figures = self.figures(result)
        figures["reasked"] = float(reasked(session))
        return self.spec.value(figures), {
            "figures": figures,
            "score": {k: result[k] for k in ("success", "inform", "book_rate", "complete", "turns")},
            "signature": result["signature"]["line"] if isinstance(result.get("signature"), Mapping) else None,
        }


def _acts(turn: Mapping[str, Any]) -> Iterable[tuple[str, str, str]]:
    """A turn's acts as (intent, domain, slot): as sent, else as the simulator read them."""
    acts = turn.get("acts") if turn.get("acts") is not None else turn.get("read_acts")
    for act in acts or ():
        if isinstance(act, (list, tuple)) and len(act) >= 3:
            yield str(act[0]).lower(), str(act[1]).lower(), str(act[2]).lower()


def reasked(session: Mapping[str, Any]) -> int:
    """How many of the system's requests ask for a slot the user had already given (a value or "don't
    care"): what a user who answers one thing at a time, or only what is new, does not follow. A request
    of the ``booking`` domain is about the domain the user last spoke of."""
    given: set[tuple[str, str]] = set()
    current = ""
    count = 0
    for turn in session.get("turns") or ():
        user = turn.get("speaker") == "user"
        for intent, domain, slot in _acts(turn):
            if user and domain not in ("general", "booking"):
                current = domain
            if slot in ("", "none"):
                continue
            if user:
                if intent == "inform":
                    given.add((domain, slot))
            elif intent == "request" and ((current if domain == "booking" else domain), slot) in given:
                count += 1
    return count
