"""What a metric of dialogues is given and gives (the protocol of :mod:`mwz_metrics.metric`): its
inputs, its result (figures only) and how tables show it. Between a request and a printed figure there
are three types: :class:`~mwz_metrics.metric.MetricRequest` (a metric by name, with its options),
:class:`MetricResult` (its figures) and :class:`Presentation` (how it is shown); the system's
dialogues travel beside them in :class:`MetricInputs`.

A metric's module imports these and nothing of :mod:`mwz_metrics.metric`, which loads and calls it:
the metric sits below the commands that score it, and the calls go down only.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from mwz_metrics.settings import EvaluationSettings

if TYPE_CHECKING:  # numpy's import is a tenth of mwz evaluate -s -r: only a result with scores needs it
    from mwz_metrics.bootstrap import DialogueScores


@dataclasses.dataclass(frozen=True)
class MetricInputs:
    """What a metric is given: a static system's predictions or an interactive run's sessions.

    ``source``: the predictions file, when they come from one (a joined metric reads it itself, so
    that errors name it; any other gets ``predictions`` read); ``settings``: the command's
    evaluation options a metric may read (``chain``, ``styles``, ``gold_states``, the Inform/Success
    variant, ``per_dialogue``, ``dialogue_scores`` when a comparison resamples every figure); for
    sessions, ``predictions`` holds their system turns in mwzeval's format, ``truth`` builds their goals
    and bookings from the test set a metric reads, and ``aligned`` says whether they replay the test
    dialogues. Nothing is written into it: metrics that share work join into one (:class:`Metric`).
    """

    predictions: Mapping[str, Sequence[Mapping[str, Any]]] | None = None
    sessions: Sequence[Mapping[str, Any]] | None = None
    data_dir: str | None = None
    resamples: int = 1000
    seed: int = 0
    label: str = ""  # the system's name, for progress messages
    source: str | None = None
    settings: EvaluationSettings = EvaluationSettings()
    truth: Any = None
    aligned: bool = False

    @property
    def kind(self) -> str:
        """``"sessions"`` or ``"predictions"``."""
        return "sessions" if self.sessions is not None else "predictions"

    @property
    def has_references(self) -> bool:
        """Whether the test set's references belong to these dialogues (predictions, replayed sessions)."""
        return self.sessions is None or self.aligned


@dataclasses.dataclass(frozen=True)
class MetricResult:
    """One metric's figures for one system, and nothing else: no presentation and no registry data
    (its :class:`Presentation` holds both).

    A metric with several figures (Inform and Success, BLEU per style, richness's seven) gives each
    as a result of its own in ``figures``; tables and the bootstrap read those in its place.
    ``report``: the JSON section it writes (default: value, ci95, per_domain); ``columns``: its
    per-dialogue columns, where they are not one ``per_dialogue`` under its name; ``model``: what the
    result's signature line names (a model), ``signature``: its own signature details; ``responses``:
    the responses as it read them, where it rewrote them (mwzeval's delexicalized ones; by dialogue key):
    the metrics scored after it read these; ``shared``: for the result of a metric scored through the
    one its group joined into, what that pass writes once beside the members' sections (mwzeval's keys,
    coverage, warnings, signature; set by :func:`mwz_metrics.metric.score`).
    """

    name: str
    value: float | None
    scores: DialogueScores | None = None  # what each dialogue contributes
    ci95: list[float] | None = None  # the metric's own interval around ``value``
    per_domain: Mapping[str, float] = dataclasses.field(default_factory=dict)
    per_dialogue: Mapping[str, float] = dataclasses.field(default_factory=dict)
    figures: Sequence[MetricResult] = ()
    columns: Mapping[str, Mapping[str, Any]] = dataclasses.field(default_factory=dict)
    report: Any = None
    model: str = ""
    signature: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    responses: Mapping[str, list[str]] | None = None
    shared: Mapping[str, Any] = dataclasses.field(default_factory=dict)

    def section(self) -> Any:
        """The JSON a result holds under the metric's name."""
        if self.report is not None:
            return self.report
        return {"value": self.value, "ci95": self.ci95, "per_domain": self.per_domain}

    def each_figure(self) -> list[MetricResult]:
        """Its figures, or itself when it has one."""
        return list(self.figures) or [self]

    def domain_values(self) -> dict[str, Any]:
        """Its value per domain and ``total``, in the order tables show them (its own where it has a total)."""
        if "total" in self.per_domain:
            return dict(self.per_domain)
        return {"total": self.value, **self.per_domain}

    def dialogue_columns(self) -> dict[str, Mapping[str, Any]]:
        """Per-dialogue columns of a comparison's CSV: ``columns``, else its per-dialogue values under its name."""
        if self.columns:
            return dict(self.columns)
        return {self.name: self.per_dialogue} if self.per_dialogue else {}


@dataclasses.dataclass(frozen=True)
class Presentation:
    """How tables show a metric. A metric may give its own (its optional ``presentation`` attribute:
    its label, default its name; the decimals of a summary, one more in its own section of ``mwz
    evaluate``; for a metric that writes its own section of that table, the function writing it);
    :func:`mwz_metrics.metric.presentations` adds its direction and version, which are its registry
    entry's."""

    label: str = ""
    digits: int = 2
    lines: Callable[[MetricResult], list[str]] | None = None
    higher_is_better: bool = True
    version: str = ""

    def describe(self, result: MetricResult) -> dict[str, Any]:
        """What a summary says of how tables show ``result``: its label, direction, decimals and version."""
        return {
            "label": self.label or result.name,
            "higher_is_better": self.higher_is_better,
            "digits": self.digits,
            "version": self.version,
        }


@runtime_checkable
class Metric(Protocol):
    """Anything with a ``name`` that scores a system's dialogues: ``score(inputs)``.

    Metrics whose registry entries declare the same ``group`` share their work: the commands ask the
    first of those asked for ``join(metrics)``, one metric that scores them all in one pass (its
    ``members``: the metrics joined, each named by its entry's key), and score that instead. Its
    result holds each member's result in ``figures`` (named by the member's name), in ``report`` what
    it writes once beside their sections (mwzeval's keys, coverage, warnings, signature), and in
    ``responses`` what it rewrote."""

    name: str

    def score(self, inputs: MetricInputs) -> MetricResult:
        """The metric's figures for one system."""
        ...
