"""The metric protocol: what ``mwz evaluate``, ``mwz compare`` and ``mwz interact`` ask of a metric.

A metric of dialogues registers a :class:`~mwz_plugins.registry.DialogueMetricEntry` through the
hook ``mwz_register_dialogue_metrics`` (session coherence and sentence fluency do, like any
contributor's); its loader ``make(**options)`` returns an object with a ``name`` and
``score(inputs) -> MetricResult``. The three commands take every such metric from the registry by
name (``--metric NAME`` or ``--metric NAME:KEY=VALUE,...``) and name none themselves:

- what it **needs**: :class:`MetricInputs`, a static system's predictions (mwzeval's format, keyed
  by test dialogue) or an interactive run's sessions (session-file records), and the data folder;
  its entry says which of the two it scores and which optional extra it needs;
- what it **gives**: :class:`MetricResult`, the aggregate with its own 95% interval, what each
  dialogue contributes (a :class:`~mwz_metrics.bootstrap.DialogueScores`: ``mwz compare`` resamples
  it for its intervals and pairs it against a baseline), per-domain and per-dialogue values, and
  its signature fields (what the result's signature line names, and its own details).

Modelled on sacrebleu's metric base class (one score, per-item statistics, a signature) and on
lm-evaluation-harness's registry (a metric named with its direction, loaded lazily).
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from mwz_metrics.bootstrap import DialogueScores
from mwz_metrics.inputs import InputError


@dataclasses.dataclass(frozen=True)
class MetricInputs:
    """What a metric is given: a static system's predictions or an interactive run's sessions."""

    predictions: Mapping[str, Sequence[Mapping[str, Any]]] | None = None
    sessions: Sequence[Mapping[str, Any]] | None = None
    data_dir: str | None = None
    resamples: int = 1000
    seed: int = 0
    label: str = ""  # the system's name, for progress messages

    @property
    def kind(self) -> str:
        """``"sessions"`` or ``"predictions"``."""
        return "sessions" if self.sessions is not None else "predictions"


@dataclasses.dataclass
class MetricResult:
    """One metric's figures for one system (see the module docstring)."""

    name: str
    value: float | None
    scores: DialogueScores | None = None  # what each dialogue contributes
    ci95: list[float] | None = None  # the metric's own interval around ``value``
    per_domain: dict[str, float] = dataclasses.field(default_factory=dict)
    per_dialogue: dict[str, float] = dataclasses.field(default_factory=dict)
    higher_is_better: bool = True  # set from its registry entry
    version: str = ""  # likewise
    label: str = ""  # its name in a table (default: the metric's name)
    digits: int = 2  # decimals a summary shows (its own section in ``mwz evaluate``: one more)
    model: str = ""  # what the result's signature line names (a model, a version)
    signature: dict[str, Any] = dataclasses.field(default_factory=dict)  # its own signature details
    report: dict[str, Any] = dataclasses.field(default_factory=dict)  # the JSON section ``mwz evaluate`` writes

    def section(self) -> dict[str, Any]:
        """The JSON a result holds under the metric's name."""
        return self.report or {"value": self.value, "ci95": self.ci95, "per_domain": self.per_domain}

    def section_lines(self) -> list[str]:
        """Its section of ``mwz evaluate``'s table: ``label value [low, high]``, and which way is better."""
        digits = self.digits + 1
        shown = "n/a" if self.value is None else f"{self.value:.{digits}f}"
        if self.ci95:
            shown += f" [{self.ci95[0]:.{digits}f}, {self.ci95[1]:.{digits}f}]"
        better = "" if self.higher_is_better else " (lower is better)"
        return [f"====== {self.name.upper()} ======", f"{self.label or self.name:15}{shown}{better}", ""]

    def summary_label(self) -> str:
        """Its row label in a summary (``mwz interact``): its name, and "(lower)" where lower is better."""
        return self.name + ("" if self.higher_is_better else " (lower)")


@runtime_checkable
class Metric(Protocol):
    """Anything with a ``name`` that scores a system's dialogues."""

    name: str

    def score(self, inputs: MetricInputs) -> MetricResult:
        """The metric's figures for one system."""
        ...


@dataclasses.dataclass(frozen=True)
class MetricRequest:
    """A metric asked for by name, with its options (``fluency:model=gpt2``)."""

    name: str
    options: tuple[tuple[str, str], ...] = ()

    @classmethod
    def parse(cls, text: str) -> MetricRequest:
        """``NAME`` or ``NAME:KEY=VALUE,KEY=VALUE``; :class:`InputError` when malformed."""
        name, _, rest = text.partition(":")
        options = []
        for item in filter(None, rest.split(",")):
            key, sep, value = item.partition("=")
            if not sep or not key:
                raise InputError(f"--metric {text!r}: expected NAME or NAME:KEY=VALUE,...")
            options.append((key.strip().replace("-", "_"), value.strip()))
        if not name.strip():
            raise InputError(f"--metric {text!r}: no metric name")
        return cls(name.strip(), tuple(options))


def entry(name: str) -> Any:
    """The registered entry of a metric (:class:`InputError` naming the registered ones otherwise)."""
    from mwz_plugins import get_registry

    registry = get_registry()
    if name not in registry.dialogue_metrics:
        known = ", ".join(sorted(registry.dialogue_metrics)) or "none"
        raise InputError(f"--metric {name}: no such metric is registered (registered: {known})")
    return registry.dialogue_metrics[name]


def load(request: MetricRequest) -> tuple[Metric, Any]:
    """The metric a request names, made with its options, and its registry entry."""
    from mwz_metrics.extras import require_extra

    found = entry(request.name)
    if found.extra:
        require_extra(found.extra, *found.modules)
    module_name, _, attribute = found.loader.partition(":")
    try:
        make = getattr(importlib.import_module(module_name), attribute)
    except (ImportError, AttributeError) as error:
        raise InputError(f"--metric {request.name}: cannot load {found.loader} ({error})") from None
    try:
        metric = make(**dict(request.options))
    except TypeError as error:
        raise InputError(f"--metric {request.name}: {error}") from None
    return metric, found


def load_all(requests: Sequence[MetricRequest]) -> list[tuple[Metric, Any]]:
    """Every requested metric, made once (a metric asked twice, once), with its entry."""
    loaded: dict[str, tuple[Metric, Any]] = {}
    for request in requests:
        if request.name not in loaded:
            loaded[request.name] = load(request)
    return list(loaded.values())


def score(loaded: Sequence[tuple[Metric, Any]], inputs: MetricInputs) -> dict[str, MetricResult]:
    """Each loaded metric's result on ``inputs`` (:class:`InputError` for a metric that does not score them)."""
    out: dict[str, MetricResult] = {}
    for metric, found in loaded:
        if inputs.kind not in found.inputs:
            raise InputError(f"--metric {found.name}: it scores {' and '.join(found.inputs)}, not {inputs.kind}")
        result = metric.score(inputs)
        result.higher_is_better, result.version = found.higher_is_better, found.version
        out[found.name] = result
    return out


def add_to_summary(summary: dict[str, Any], results: Mapping[str, MetricResult]) -> None:
    """Each metric into a summary (``mwz interact``'s result): its value under its name, its interval in
    ``ci95``, its per-domain values and own signature line beside, its model in the signature."""
    for name, result in results.items():
        summary[name] = result.value
        summary.setdefault("ci95", {})[name] = result.ci95
        by_domain = result.section().get("per_domain")
        if by_domain:
            summary[f"{name}_by_domain"] = by_domain
        if result.signature.get("line"):
            summary[f"{name}_signature"] = result.signature["line"]
        summary["signature"] = signed(summary["signature"], result)
        summary.setdefault("metrics", {})[name] = describe(result)


def describe(result: MetricResult) -> dict[str, Any]:
    """How tables show a metric: its label, direction and decimals."""
    return {
        "label": result.label or result.name,
        "higher_is_better": result.higher_is_better,
        "digits": result.digits,
        "version": result.version,
    }


def signed(signature: dict[str, Any], result: MetricResult) -> dict[str, Any]:
    """A result's signature with a metric added: what it names in the line (its model, else
    ``name@version``), ``NAME=true`` among the options, its own details under its name."""
    from mwz_metrics.signature import with_model

    return with_model(signature, result.model or f"{result.name}@{result.version}", result.name, result.signature)
