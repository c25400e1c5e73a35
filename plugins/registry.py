"""Registry types: what plugins register, and the registry that holds it."""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from mwz_plugins.errors import InputError
from mwz_plugins.ontology import ONTOLOGY_SLOTS

# Plugins never loaded, by entry-point or distribution name (read by mwz_plugins.manager).
DISABLE_ENV = "MWZ_DISABLE_PLUGINS"


class PluginError(InputError):
    """A plugin registered something invalid or conflicting."""


class NotRegistered(InputError, KeyError):
    """A name no loaded plugin registered; the message names the plugins that failed to load.

    A :class:`KeyError` too, for callers that looked a name up in a registry's table.
    """

    def __str__(self) -> str:  # the message as raised (a KeyError's would be quoted)
        return str(self.args[0]) if len(self.args) == 1 else super().__str__()


def _without(plugin: str) -> str:
    """How to run without a plugin, appended to an error that names it."""
    return f"; to run without plugin {plugin!r}: {DISABLE_ENV}={plugin}"


@dataclasses.dataclass(frozen=True)
class ValueNormalizer:
    """A named, versioned slot-value normalizer.

    ``function(domain, slot, value)`` returns the canonical value; it must be a pure function
    of its arguments (a chain runs each distinct triple once). ``slot`` is the
    normalized slot name (lowercase, no spaces, ``arrive``/``leave`` for arrive-by
    and leave-at); ``domain`` may be ``None`` when unknown.
    """

    name: str
    version: str
    function: Callable[[str | None, str, str], str]
    description: str = ""

    def __call__(self, domain: str | None, slot: str, value: str) -> str:
        """Normalize ``value`` of ``slot`` in ``domain``."""
        return self.function(domain, slot, value)


@dataclasses.dataclass(frozen=True)
class NormalizerChain:
    """A named composition of registered normalizers, applied in order."""

    name: str
    version: str
    steps: tuple[str, ...]
    description: str = ""


@dataclasses.dataclass(frozen=True)
class DelexStyle:
    """A delexicalization style, and where its BLEU references come from.

    ``placeholders`` maps each placeholder name of the style (lowercase, as it
    appears between brackets, e.g. ``restaurant_name``) onto a slot of the unified
    ontology (e.g. ``NAME``). A style gets its references in one of two ways,
    named by ``reference_source``:

    - from span annotations: ``delexicalize(utterance, spans)`` turns a dataset's
      system utterance with its spans (mappings with ``slot``, ``value``, ``start``,
      ``end``) into a reference, and ``reference_source`` is the dataset config read
      (``"2.2"``);
    - from a reference file: no ``delexicalize``; ``reference_source`` is a file
      pinned in ``mwz_datasets.catalog``, written ``"owner/repo/path"``, in mwzeval's
      format (dialogue id -> list of references, one per system turn).
    """

    name: str
    version: str
    placeholders: Mapping[str, str]
    delexicalize: Callable[[str, Sequence[Mapping[str, Any]]], str] | None = None
    reference_source: str | None = None
    description: str = ""

    @property
    def builds_references(self) -> bool:
        """Whether references are built from span annotations by ``delexicalize``."""
        return self.delexicalize is not None

    @property
    def reads_reference_file(self) -> bool:
        """Whether references are read from the pinned file ``reference_source``."""
        return self.delexicalize is None and bool(self.reference_source)

    @property
    def has_references(self) -> bool:
        """Whether the style can give BLEU references at all."""
        return self.builds_references or self.reads_reference_file


@dataclasses.dataclass(frozen=True)
class DatasetEntry:
    """A ``datasets`` builder, by import path ``"package.module:ClassName"``."""

    name: str
    builder: str
    description: str = ""


@dataclasses.dataclass(frozen=True)
class MetricEntry:
    """A metric, under its one name (``mwz_success``): what ``evaluate.load(name)``, ``--metric NAME``,
    the library and ``mwz plugins`` all call it.

    A metric is an ``evaluate`` module script shipped as package data, a metric of dialogues that
    ``mwz evaluate``, ``mwz compare`` and ``mwz interact`` compute, or both:

    - ``package`` and ``script``: an importable package and the path of the module script inside it
      (``"mwz_success/mwz_success.py"``), resolved lazily so that registering imports no metric code;
    - ``loader``: ``"package.module:attribute"``, a callable ``make(**options)`` returning an object that
      speaks the metric protocol of :mod:`mwz_metrics.metric` (``score(inputs) -> MetricResult``),
      imported only when the metric is asked for; ``version`` is then required. ``inputs``: what it
      scores, ``"predictions"`` (a static system's responses between the gold user turns) and/or
      ``"sessions"`` (an interactive run's). ``higher_is_better``: which way tables rank it. ``extra``
      and ``modules``: the optional extra it needs and the modules that extra installs (checked before
      the loader is imported). ``group``: metrics computed together in one pass (mwzeval's four read
      and normalize the responses once and share one signature). ``default``: scored when a command is
      asked for no metric of its group. ``needs_references``: it reads the test set's references, so it
      scores predictions and replayed test dialogues only (BLEU, DST), never free sessions.

    ``aliases``: older names, accepted everywhere a metric is named until the next release, each use
    saying so (a :class:`DeprecationWarning`, a warning line on the command line). ``section``: the key
    its figures go under in JSON, table rows and CSV columns (default: its name; the built-ins keep the
    short keys they always had, ``success``).
    """

    name: str
    package: str = ""
    script: str = ""
    description: str = ""
    version: str = ""
    loader: str = ""
    higher_is_better: bool = True
    inputs: tuple[str, ...] = ("predictions", "sessions")
    extra: str = ""
    modules: tuple[str, ...] = ()
    group: str = ""
    default: bool = False
    needs_references: bool = False
    aliases: tuple[str, ...] = ()
    section: str = ""

    @property
    def key(self) -> str:
        """The key its figures go under in every output (``section``, else its name)."""
        return self.section or self.name

    @property
    def has_script(self) -> bool:
        """Whether ``evaluate.load`` can load it (a module script is registered)."""
        return bool(self.package and self.script)

    @property
    def scores_dialogues(self) -> bool:
        """Whether ``--metric`` can compute it (a loader is registered)."""
        return bool(self.loader)


@dataclasses.dataclass(frozen=True)
class UserSimulatorEntry:
    """A user simulator for interactive evaluation, by import path ``"package.module:attribute"``.

    The attribute is a callable ``make(context, **options)`` returning a simulator factory
    (see :mod:`mwz_metrics.interactive.user.base`); it is imported only when the
    simulator is used, so registering costs nothing.
    """

    name: str
    version: str
    loader: str
    description: str = ""


@dataclasses.dataclass(frozen=True)
class UserProfileEntry:
    """A kind of user the ``agenda`` simulator can play (``mwz interact --profile NAME``), by import path.

    ``loader`` is ``"package.module:attribute"``: a :class:`~mwz_metrics.interactive.user.profiles.Profile`
    (or a callable returning one) whose hooks change one behaviour of the agenda user; imported only
    when used. ``simulators``: the simulators that can play it.
    """

    name: str
    version: str
    loader: str
    description: str = ""
    simulators: tuple[str, ...] = ("agenda",)


@dataclasses.dataclass(frozen=True)
class SystemEntry:
    """A dialogue system that interactive evaluation can talk to by name (``--system oracle``).

    ``loader`` is ``"package.module:attribute"``, a callable ``make(context, **options)``
    returning an object that speaks the system protocol
    (:mod:`mwz_metrics.interactive.protocol`); imported only when used. ``reads_user_acts``: a
    reference system that reads the user's acts whatever the run's ``--user-acts`` says (the oracle).
    """

    name: str
    version: str
    loader: str
    description: str = ""
    reads_user_acts: bool = False


@dataclasses.dataclass(frozen=True)
class DialogueMetricEntry:
    """A metric of dialogues that ``mwz evaluate``, ``mwz compare`` and ``mwz interact`` compute by
    name (``--metric NAME``): mwzeval's BLEU, Inform/Success, richness and DST, session coherence,
    sentence fluency and any contributor's, all registered alike.

    ``loader`` is ``"package.module:attribute"``, a callable ``make(**options)`` returning an object
    that speaks the metric protocol of :mod:`mwz_metrics.metric` (``score(inputs) -> MetricResult``);
    it is imported only when the metric is asked for. ``inputs``: what it scores, ``"predictions"``
    (a static system's responses between the gold user turns) and/or ``"sessions"`` (an interactive
    run's). ``higher_is_better``: which way tables rank it. ``extra`` and ``modules``: the optional
    extra it needs and the modules that extra installs (checked before the loader is imported).
    ``group``: metrics computed together in one pass (mwzeval's four read and normalize the
    responses once and share one signature). ``default``: scored when a command is asked for no
    metric of its group (mwzeval's BLEU, Inform/Success and richness, as mwzeval's own default).
    ``needs_references``: it reads the test set's references, so it scores predictions and replayed
    test dialogues only (BLEU, DST), never free sessions.

    Deprecated: register a :class:`MetricEntry` with a ``loader`` through ``mwz_register_metrics``.
    One registered still works until the next release (with a :class:`DeprecationWarning`): the
    registry holds it as that :class:`MetricEntry` (:meth:`as_metric`).
    """

    name: str
    version: str
    loader: str
    higher_is_better: bool = True
    inputs: tuple[str, ...] = ("predictions", "sessions")
    extra: str = ""
    modules: tuple[str, ...] = ()
    description: str = ""
    group: str = ""
    default: bool = False
    needs_references: bool = False

    def as_metric(self) -> MetricEntry:
        """The same metric as the one entry type (its name kept)."""
        fields = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        return MetricEntry(**fields)


# What each table of the registry holds, in words (for "not registered" errors).
_KIND_WORDS = {
    "normalizers": "value normalizer",
    "chains": "normalizer chain",
    "styles": "delex style",
    "datasets": "dataset",
    "metrics": "metric",
    "simulators": "user simulator",
    "profiles": "user profile",
    "systems": "system",
}

# An old name of a metric, in the one wording of every old spelling (as the CLI's renamed options).
RENAMED_METRIC = "metric %r is now %r (the old name works until the next release)"


class _Table(dict[str, Any]):
    """One kind of the registry: a dict whose missing name is a :class:`NotRegistered` error (an
    :class:`InputError` and a :class:`KeyError`) naming the plugins that failed to load; ``aliases``
    (old name -> name) are found too, each saying it is old (a :class:`DeprecationWarning`)."""

    def __init__(
        self, kind: str, failures: Mapping[str, str], *args: Any, aliases: Mapping[str, str] | None = None
    ) -> None:
        super().__init__(*args)
        self.kind = kind
        self.failures = failures
        self.aliases = aliases if aliases is not None else {}

    def __missing__(self, name: str) -> Any:
        if name in self.aliases:
            warnings.warn(RENAMED_METRIC % (name, self.aliases[name]), DeprecationWarning, stacklevel=2)
            return self[self.aliases[name]]
        known = ", ".join(sorted(self)) or "none"
        raise NotRegistered(
            f"no {_KIND_WORDS[self.kind]} {name!r} is registered (registered: {known})" + _failure_note(self.failures)
        )


def _failure_note(failures: Mapping[str, str]) -> str:
    if not failures:
        return ""
    return (
        "; "
        + "; ".join(failures.values())
        + (" and may have provided it" if len(failures) == 1 else ": one may have provided it")
    )


_KINDS = {
    ValueNormalizer: "normalizers",
    NormalizerChain: "chains",
    DelexStyle: "styles",
    DatasetEntry: "datasets",
    MetricEntry: "metrics",
    UserSimulatorEntry: "simulators",
    UserProfileEntry: "profiles",
    SystemEntry: "systems",
    DialogueMetricEntry: "metrics",  # held as the MetricEntry it stands for
}


@dataclasses.dataclass
class Registry:
    """Everything the loaded plugins registered, with the plugin that did."""

    normalizers: dict[str, ValueNormalizer] = dataclasses.field(default_factory=dict)
    chains: dict[str, NormalizerChain] = dataclasses.field(default_factory=dict)
    styles: dict[str, DelexStyle] = dataclasses.field(default_factory=dict)
    datasets: dict[str, DatasetEntry] = dataclasses.field(default_factory=dict)
    metrics: dict[str, MetricEntry] = dataclasses.field(default_factory=dict)
    simulators: dict[str, UserSimulatorEntry] = dataclasses.field(default_factory=dict)
    profiles: dict[str, UserProfileEntry] = dataclasses.field(default_factory=dict)
    systems: dict[str, SystemEntry] = dataclasses.field(default_factory=dict)
    # (kind, name) -> plugin name that registered it
    owners: dict[tuple[str, str], str] = dataclasses.field(default_factory=dict)
    # plugin name -> one line naming a plugin left out (it failed to load or its hook raised)
    failures: dict[str, str] = dataclasses.field(default_factory=dict)
    # a metric's old name -> its name (kept for one release)
    metric_aliases: dict[str, str] = dataclasses.field(default_factory=dict)

    def __post_init__(self) -> None:
        # each table: a missing name is an error naming the plugins that failed to load
        for kind in _KIND_WORDS:
            setattr(self, kind, _Table(kind, self.failures, getattr(self, kind)))
        self.metrics = _Table("metrics", self.failures, self.metrics, aliases=self.metric_aliases)

    @property
    def dialogue_metrics(self) -> dict[str, MetricEntry]:
        """The metrics that ``--metric`` computes (those with a loader), by name, in registration order."""
        return _Table("metrics", self.failures, {n: e for n, e in self.metrics.items() if e.scores_dialogues})

    def metric_name(self, name: str) -> str | None:
        """The name of the metric called ``name`` or, until the next release, by an old name (said by
        nothing: the caller says it, as it speaks to its user); ``None`` when no metric is."""
        if name in self.metrics:
            return name
        return self.metric_aliases.get(name)

    def failure_note(self) -> str:
        """``""``, or ``"; plugin 'X' (...) failed to load (...) and may have provided it"``: to append
        to an error saying a name is not registered."""
        return _failure_note(self.failures)

    def add(self, item: Any, plugin: str, expected: tuple[type, ...]) -> None:
        """Add a registered item, rejecting wrong types, invalid items and duplicate names."""
        if not isinstance(item, expected):
            names = " or ".join(t.__name__ for t in expected)
            raise PluginError(f"plugin {plugin!r} registered {item!r}; expected a {names}" + _without(plugin))
        kind = _KINDS[type(item)]
        try:
            _validate(item, plugin)
        except PluginError as error:
            raise PluginError(f"{error}{_without(plugin)}") from None
        if isinstance(item, DialogueMetricEntry):
            warnings.warn(
                f"plugin {plugin!r} registered DialogueMetricEntry {item.name!r}: register a MetricEntry with "
                "a loader through mwz_register_metrics (the old entry works until the next release)",
                DeprecationWarning,
                stacklevel=2,
            )
            item = item.as_metric()
        table = getattr(self, kind)
        name: str = getattr(item, "name")  # noqa: B009  (every registry type has a name)
        if kind == "metrics":
            item = self._merged_metric(item, plugin)
            self._add_aliases(item, plugin)
        if name in table and not (kind == "metrics" and table[name] is item):
            other = self.owners[(kind, name)]
            raise PluginError(
                f"duplicate {kind[:-1]} name {name!r}: registered by plugin {other!r} and again by plugin {plugin!r}"
                + _without(plugin)
            )
        table[name] = item
        self.owners[(kind, name)] = plugin

    def _merged_metric(self, item: MetricEntry, plugin: str) -> MetricEntry:
        """``item``, or, where the same plugin registered the same name's other half (its module script,
        its loader: two entries before there was one), the two as one entry, which replaces the first."""
        known = self.metrics.get(item.name)
        if known is None or self.owners.get(("metrics", item.name)) != plugin:
            return item
        if known.has_script == item.has_script or known.scores_dialogues == item.scores_dialogues:
            return item  # a true duplicate: add() says so
        script, loaded = (known, item) if known.has_script else (item, known)
        merged = dataclasses.replace(
            loaded,
            package=script.package,
            script=script.script,
            description=loaded.description or script.description,
            aliases=tuple(dict.fromkeys(known.aliases + item.aliases)),
        )
        self.metrics[item.name] = merged
        return merged

    def _add_aliases(self, item: MetricEntry, plugin: str) -> None:
        """Record a metric's old names; one that names another metric (or another's old name) is an error."""
        for alias in item.aliases:
            other = self.metric_aliases.get(alias, alias if alias in self.metrics else None)
            if other is not None and other != item.name:
                raise PluginError(
                    f"metric {item.name!r} of plugin {plugin!r}: its old name {alias!r} names metric {other!r}"
                    + _without(plugin)
                )
            self.metric_aliases[alias] = item.name
        if item.name in self.metric_aliases and self.metric_aliases[item.name] != item.name:
            raise PluginError(
                f"duplicate metric name {item.name!r}: it is an old name of metric "
                f"{self.metric_aliases[item.name]!r}; registered again by plugin {plugin!r}" + _without(plugin)
            )

    def check_chains(self) -> None:
        """Every chain's steps name registered normalizers."""
        for chain in self.chains.values():
            missing = [s for s in chain.steps if s not in self.normalizers]
            if missing:
                owner = self.owners[("chains", chain.name)]
                raise PluginError(
                    f"normalizer chain {chain.name!r} (plugin {owner!r}) names unknown "
                    f"normalizers {missing}; known: {sorted(self.normalizers)}{self.failure_note()}{_without(owner)}"
                )

    def check_placeholder_conflicts(self) -> None:
        """No placeholder maps to two ontology slots across styles."""
        self.placeholder_map()

    def placeholder_map(self) -> dict[str, str]:
        """Union of every style's placeholder vocabulary; conflicts are errors."""
        merged: dict[str, str] = {}
        origin: dict[str, str] = {}
        for style in self.styles.values():
            for placeholder, slot in style.placeholders.items():
                if merged.get(placeholder, slot) != slot:
                    owner = self.owners.get(("styles", style.name))
                    raise PluginError(
                        f"placeholder [{placeholder}] maps to {merged[placeholder]} in style "
                        f"{origin[placeholder]!r} but to {slot} in style {style.name!r}"
                        + (f" (plugin {owner!r}){_without(owner)}" if owner else "")
                    )
                merged[placeholder] = slot
                origin.setdefault(placeholder, style.name)
        return merged

    def chain(self, name: str) -> Callable[[str | None, str, str], str]:
        """The composed function of a registered chain."""
        if name not in self.chains:
            raise NotRegistered(
                f"unknown normalizer chain {name!r}; registered: {sorted(self.chains)}{self.failure_note()}"
            )
        steps = [self.normalizers[s] for s in self.chains[name].steps]
        # Normalizers are pure functions of (domain, slot, value), and a corpus repeats few values
        # in many turns: each distinct triple runs through the chain once (bounded memory).
        memo: dict[tuple[str | None, str, str], str] = {}

        def run(domain: str | None, slot: str, value: str) -> str:
            for step in steps:
                value = step(domain, slot, value)
            return value

        def apply(domain: str | None, slot: str, value: str) -> str:
            key = (domain, slot, value)
            try:
                return memo[key]
            except KeyError:
                if len(memo) >= _CHAIN_MEMO_SIZE:
                    memo.clear()
                result = memo[key] = run(domain, slot, value)
                return result
            except TypeError:  # an unhashable value (bad input): the steps decide what to do with it
                return run(domain, slot, value)

        return apply

    def describe(self, kind: str, name: str) -> str:
        """``name@version`` of a registered item, and a metric's old names: ``mwz_success@1.0.0 (was success)``."""
        item = getattr(self, kind)[name]
        version = getattr(item, "version", None)
        described = f"{name}@{version}" if version else name
        old = ", ".join(getattr(item, "aliases", ()))
        return f"{described} (was {old})" if old else described


_CHAIN_MEMO_SIZE = 200_000


def _validate(item: Any, plugin: str) -> None:
    if not isinstance(item.name, str) or not item.name:
        raise PluginError(f"plugin {plugin!r} registered a {type(item).__name__} without a name")
    version = getattr(item, "version", "n/a")
    if isinstance(item, MetricEntry) and not item.loader:
        version = version or "n/a"  # a module script alone carries its own version
    if not isinstance(version, str) or not version:
        raise PluginError(f"{type(item).__name__} {item.name!r} of plugin {plugin!r} has no version")
    if isinstance(item, MetricEntry):
        _validate_metric(item, plugin)
    if isinstance(item, DialogueMetricEntry):
        unknown = set(item.inputs) - {"predictions", "sessions"}
        if not item.inputs or unknown:
            raise PluginError(
                f"dialogue metric {item.name!r} of plugin {plugin!r}: inputs must be 'predictions' and/or "
                f"'sessions', got {list(item.inputs)}"
            )
    if isinstance(item, (UserSimulatorEntry, UserProfileEntry, SystemEntry, DialogueMetricEntry)):
        module, sep, attribute = item.loader.partition(":")
        if not sep or not module or not attribute:
            raise PluginError(
                f"{type(item).__name__} {item.name!r} of plugin {plugin!r}: loader {item.loader!r} "
                "must be 'package.module:attribute'"
            )
    if isinstance(item, DelexStyle):
        bad = {p: s for p, s in item.placeholders.items() if s not in ONTOLOGY_SLOTS}
        if bad:
            raise PluginError(
                f"delex style {item.name!r} of plugin {plugin!r} maps placeholders outside the ontology: {bad}"
            )
        upper = [p for p in item.placeholders if p != p.lower()]
        if upper:
            raise PluginError(f"delex style {item.name!r}: placeholder names must be lowercase: {upper}")
        if item.builds_references and not item.reference_source:
            raise PluginError(
                f"delex style {item.name!r} of plugin {plugin!r} has delexicalize but no reference_source "
                "(the dataset config whose spans it reads, e.g. '2.2')"
            )
        if item.reads_reference_file and item.reference_source.count("/") < 2:  # type: ignore[union-attr]
            raise PluginError(
                f"delex style {item.name!r} of plugin {plugin!r}: reference_source {item.reference_source!r} "
                "must name a pinned file as 'owner/repo/path'"
            )


def _validate_metric(item: MetricEntry, plugin: str) -> None:
    """A metric is a module script, a loader or both; its inputs and old names are sound."""
    if not item.has_script and not item.loader:
        raise PluginError(
            f"metric {item.name!r} of plugin {plugin!r} names neither a module script (package and script) nor a loader"
        )
    if bool(item.package) != bool(item.script):
        raise PluginError(f"metric {item.name!r} of plugin {plugin!r}: give both package and script, or neither")
    if item.loader:
        module, sep, attribute = item.loader.partition(":")
        if not sep or not module or not attribute:
            raise PluginError(
                f"MetricEntry {item.name!r} of plugin {plugin!r}: loader {item.loader!r} "
                "must be 'package.module:attribute'"
            )
        unknown = set(item.inputs) - {"predictions", "sessions"}
        if not item.inputs or unknown:
            raise PluginError(
                f"metric {item.name!r} of plugin {plugin!r}: inputs must be 'predictions' and/or "
                f"'sessions', got {list(item.inputs)}"
            )
    if isinstance(item.aliases, str) or not all(isinstance(a, str) and a for a in item.aliases):
        raise PluginError(f"metric {item.name!r} of plugin {plugin!r}: aliases must be a tuple of names")
