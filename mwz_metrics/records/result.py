"""The interactive result: what ``mwz interact`` scores from sessions, prints, and writes with ``--result``
(:func:`mwz_metrics.interactive.harness.api.score`). Rates are percentages (None where no session counts);
``ci95`` holds each figure's 95% interval over resampled goals."""

from __future__ import annotations

from typing import Any, TypedDict

from mwz_metrics.records.session import Outcome


class SessionFigures(Outcome):
    """One session's figures (an entry of ``per_session``): a session file's ``outcome`` and the session's id."""

    id: str


class InteractiveResult(TypedDict, total=False):
    """The figures of one run's sessions (every key present unless marked optional in its comment)."""

    sessions: int
    inform: float | None
    success: float | None
    complete: float | None
    book_rate: float | None
    inform_precision: float
    inform_recall: float
    inform_f1: float
    turns: float
    turns_successful: float | None
    end_reasons: dict[str, int]
    give_ups: dict[str, Any]
    ci95: dict[str, Any]
    trials: dict[str, Any]  # optional: a run of several trials per goal (pass^k)
    bleu: dict[str, Any]  # optional: replay sessions (the only ones with references)
    richness: dict[str, Any]
    inform_by_domain: dict[str, Any]
    success_by_domain: dict[str, Any]
    exact: dict[str, Any]
    system_failures: dict[str, Any]
    system_warnings: dict[str, Any]
    tokens: dict[str, Any]  # optional: an LLM system or simulator
    infrastructure: dict[str, Any]  # optional: sessions that ended for an infrastructure reason
    per_session: list[SessionFigures]
    static_signature: dict[str, Any]  # the static metrics' signature (its line, fields, options, sources)
    signature: dict[str, Any]
    warnings: list[dict[str, Any]]  # the static metrics' warnings, each an object with its "kind"
    not_scored: dict[str, str]  # optional: metrics left out, and why
    session_file: str  # with --result: the session file scored
