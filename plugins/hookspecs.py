"""Hook specifications of the ``mwz`` pluggy project.

Every hook is a *register-callback* hook: it receives a ``register`` callable and
calls it once per thing it contributes, so a plugin can contribute any number of
things and the manager can reject duplicates with a clear error naming both
plugins.
"""

from __future__ import annotations

from collections.abc import Callable

import pluggy

from mwz_plugins.registry import (
    DatasetEntry,
    DelexStyle,
    DialogueMetricEntry,
    MetricEntry,
    NormalizerChain,
    SystemEntry,
    UserProfileEntry,
    UserSimulatorEntry,
    ValueNormalizer,
)

PROJECT_NAME = "mwz"

hookspec = pluggy.HookspecMarker(PROJECT_NAME)
hookimpl = pluggy.HookimplMarker(PROJECT_NAME)


@hookspec
def mwz_register_value_normalizers(
    register: Callable[[ValueNormalizer | NormalizerChain], None],
) -> None:
    """Register value normalizers and named chains of them.

    A :class:`ValueNormalizer` maps ``(domain, slot, value) -> value`` for the slot
    values of dialogue states, goals and database queries (canonical venue names,
    times, food types...). It must never raise on a string and must be idempotent.
    A :class:`NormalizerChain` composes registered normalizers by name, in order;
    metrics select a chain by name (``mwzeval`` is the default).
    """


@hookspec
def mwz_register_delex_styles(register: Callable[[DelexStyle], None]) -> None:
    """Register delexicalization styles.

    A :class:`DelexStyle` declares its placeholder vocabulary (placeholder name ->
    unified ontology slot, see :data:`mwz_plugins.ONTOLOGY_SLOTS`) and, optionally,
    how a dataset's system turn is delexicalized into a reference in that style.
    Styles able to build references get their own BLEU score.
    """


@hookspec
def mwz_register_datasets(register: Callable[[DatasetEntry], None]) -> None:
    """Register ``datasets`` builders by name.

    After ``import mwz_datasets``, ``datasets.load_dataset(name, ...)`` routes each
    registered name to its builder class instead of the Hub.
    """


@hookspec
def mwz_register_metrics(register: Callable[[MetricEntry], None]) -> None:
    """Register metrics, each under its one name (``mwz_success``).

    A :class:`MetricEntry` names an ``evaluate`` module script (after ``import mwz_metrics``,
    ``evaluate.load(name)`` routes the name to it instead of the Hub), a loader
    ``"package.module:attribute"`` of a metric of dialogues (``mwz evaluate|compare|interact --metric
    NAME``; a callable ``make(**options)`` returning an object with ``score(inputs) -> MetricResult``,
    see :mod:`mwz_metrics.metric`), or both, with the metric's old names (``aliases``). A
    :class:`DialogueMetricEntry` is still accepted until the next release, with a
    :class:`DeprecationWarning`.
    """


@hookspec
def mwz_register_user_simulators(register: Callable[[UserSimulatorEntry], None]) -> None:
    """Register user simulators for interactive evaluation (``mwz interact --simulator NAME``).

    A :class:`UserSimulatorEntry` names a loader ``"package.module:attribute"``: a callable
    ``make(context, **options)`` returning a factory whose ``session(goal, rng)`` gives one
    simulated user per goal (see :mod:`mwz_metrics.interactive.user.base`).
    """


@hookspec
def mwz_register_user_profiles(register: Callable[[UserProfileEntry], None]) -> None:
    """Register user profiles: kinds of user a simulator plays (``mwz interact --profile NAME``).

    A :class:`UserProfileEntry` names a loader ``"package.module:attribute"``: a profile object whose
    hooks change one behaviour of the ``agenda`` user (see :mod:`mwz_metrics.interactive.user.profiles`),
    with a name and a version that go into the run's signature.
    """


@hookspec
def mwz_register_systems(register: Callable[[SystemEntry], None]) -> None:
    """Register dialogue systems by name for interactive evaluation (``mwz interact --system NAME``).

    A :class:`SystemEntry` names a loader ``"package.module:attribute"``: a callable
    ``make(context, **options)`` returning an object with ``respond(request) -> turn``
    (see :mod:`mwz_metrics.interactive.protocol`).
    """


@hookspec
def mwz_register_dialogue_metrics(register: Callable[[DialogueMetricEntry | MetricEntry], None]) -> None:
    """Deprecated: register metrics through :func:`mwz_register_metrics` (one :class:`MetricEntry` with a
    ``loader``). Kept until the next release: what a plugin registers here joins the one registry of
    metrics, a :class:`DialogueMetricEntry` with a :class:`DeprecationWarning`.
    """
