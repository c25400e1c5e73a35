"""Does the simulator's goal tracker understand real wizards? The agreement check on the test dialogues.

Each MultiWOZ 2.1 test dialogue is fed, turn by turn, to the goal tracker (:mod:`.tracker`) with
that dialogue's goal: the user's annotated acts (what the real user said), then the system's
annotated acts (``acts``), or what the system-act reader reads in the system's delexicalized
text (``text``). The tracker's verdict (every goal domain offered or identified, booked and
answered) is compared with mwzeval's Success on the same gold dialogue (the MultiWOZ references
with the gold states, as ``mwz evaluate --oracle`` scores them): the agreement is the share of
the dialogues mwzeval counts successful that the tracker finds satisfied. Every disagreement
(either way) gets a category: the domain and what the tracker found missing there, and whether
the real user ever asked for a missing attribute (a wizard who was never asked is the user's
deviation from its goal, not a misreading).
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from mwz_metrics.interactive.acts import Act, parse_acts
from mwz_metrics.interactive.goals import UserGoal
from mwz_metrics.interactive.user.reader import ReaderContext, SystemActReader
from mwz_metrics.interactive.user.tracker import GoalTracker

SOURCES = ("acts", "text")  # the system acts as annotated, or read from the delexicalized text


# Why a gold dialogue's goal is not satisfied, the tracker's own failure first.
KINDS = {
    "misread": "the wizard's acts give it: the tracker misread them",
    "never_talked": "the real user never talked about this domain",
    "never_given": "the wizard never gave it",
    "never_asked": "the real user never asked for it",
}
# What mwzeval's Success checks, in act slots: the venue (or train, when its id is asked for), the booking,
# and these attributes; a goal's other requests (a train's duration, a fee, a type...) it does not check.
MWZEVAL_ATTRIBUTES = frozenset({"phone", "addr", "post", "ref", "id"})


@dataclasses.dataclass(frozen=True)
class Verdict:
    """The tracker's reading of one gold dialogue.

    ``complete``: every goal domain offered or identified, booked and answered, as the goal asks;
    ``complete_checked``: the same on what mwzeval's Success checks (:data:`MWZEVAL_ATTRIBUTES`);
    ``categories``: what was missing, one line per unfulfilled domain (``train: answer:time``).
    """

    dialogue_id: str
    complete: bool
    complete_checked: bool
    categories: tuple[str, ...]
    kind: str | None = None  # the first of :data:`KINDS` that any of its domains falls under


def _checked(domain: str, missing: str, requests: Sequence[str]) -> bool:
    """Whether mwzeval's Success checks what the tracker found missing."""
    if missing.startswith("answer:"):
        return missing[7:] in MWZEVAL_ATTRIBUTES
    if missing == "offer" and domain == "train":
        return "id" in requests  # mwzeval needs no train offered unless its id is asked for
    return missing != "untold"


def _system_reader(
    reader: SystemActReader | None, source: str
) -> Callable[[Mapping[str, Any], ReaderContext], list[Act]]:
    if source == "acts":
        return lambda turn, _context: parse_acts(turn.get("dialog_act") or {})
    if reader is None:
        raise ValueError("reading the system's text needs the system-act reader")
    from mwz_metrics.placeholders import delexicalize_21

    return lambda turn, context: reader.read(delexicalize_21(turn["text"], turn.get("span_info") or []), context)


def track_dialogue(
    goal: UserGoal,
    turns: Sequence[Mapping[str, Any]],
    *,
    source: str = "acts",
    reader: SystemActReader | None = None,
) -> Verdict:
    """Feed one gold dialogue (raw 2.1 turns: ``text``, ``dialog_act``, ``span_info``) to a tracker."""
    read_system = _system_reader(reader, source)
    tracker = GoalTracker(goal)
    asked: set[tuple[str, str]] = set()
    talked: set[str] = set()
    known: set[str] = set()
    last: set[str] = set()
    domain = "none"
    for index, turn in enumerate(turns):
        if index % 2 == 0:
            acts = parse_acts(turn.get("dialog_act") or {})
            tracker.observe_user(acts)
            asked |= {(a.domain, a.slot) for a in acts if a.intent == "request"}
            talked |= {a.domain for a in acts}
            last = {a.slot for a in acts if a.intent == "inform" and a.slot != "none"}
            known |= last
            domains = [a.domain for a in acts if a.domain not in ("general", "booking")]
            domain = domains[0] if domains else domain
            continue
        tracker.observe(read_system(turn, ReaderContext(domain, frozenset(known), frozenset(last))))
    categories = []
    kinds = []
    checked = True
    for state in tracker.domains:
        missing = state.missing()
        if not missing:
            continue
        if any(_checked(state.domain, m, state.requests) for m in missing):
            checked = False
        kind = _kind(state.domain, missing, turns, asked, talked, {d.domain for d in goal.domains})
        kinds.append(kind)
        categories.append(f"{state.domain}: {', '.join(missing)} ({KINDS[kind]})")
    worst = min(kinds, key=list(KINDS).index) if kinds else None
    return Verdict(goal.dialogue_id, tracker.complete(), checked, tuple(categories), worst)


def _given(turns: Sequence[Mapping[str, Any]], domain: str, missing: str, goal_domains: set[str]) -> bool:
    """Whether an annotated system act of the dialogue gives what the tracker found missing: an offer of
    the domain's kind (a train's id, a venue's name), a booking, an answer of the slot (in any domain:
    annotators mix them up)."""
    key = "id" if domain == "train" else "name"
    for turn in turns[1::2]:
        for act in parse_acts(turn.get("dialog_act") or {}):
            if missing == "offer" and act.slot == key and act.intent != "request" and act.domain in (domain, "booking"):
                return True
            if missing == "booking" and (act.intent in ("book", "offerbooked") or act.slot == "ref"):
                return True
            mislabelled = act.domain not in goal_domains and act.domain not in ("booking", "general")
            if missing.startswith("answer:") and act.slot == missing[7:] and act.intent != "request":
                if act.domain == domain or mislabelled:
                    return True
    return False


def _kind(
    domain: str,
    missing: Sequence[str],
    turns: Sequence[Mapping[str, Any]],
    asked: set[tuple[str, str]],
    talked: set[str],
    goal_domains: set[str],
) -> str:
    """Why a domain of a gold dialogue is not satisfied (a key of :data:`KINDS`)."""
    if domain not in talked:
        return "never_talked"
    if any(m != "untold" and _given(turns, domain, m, goal_domains) for m in missing):
        return "misread"
    if all(m.startswith("answer:") and (domain, m[7:]) not in asked for m in missing):
        return "never_asked"
    return "never_given"


def agreement(
    verdicts: Iterable[Verdict], successful: Mapping[str, bool], reasons: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """The agreement figures and the disagreements by category.

    ``successful``: mwzeval's Success per gold dialogue (``reasons``: why it fails the others).
    ``agreement`` is the share of mwzeval's successes the tracker finds satisfied
    (``agreement_checked``: satisfied in what mwzeval checks); ``satisfied_not_successful`` counts
    the other way, by mwzeval's reason.
    """
    verdicts = [v for v in verdicts if v.dialogue_id in successful]
    wins = [v for v in verdicts if successful[v.dialogue_id]]
    misses: Counter[str] = Counter()
    examples: dict[str, list[str]] = {}
    for verdict in wins:
        if not verdict.complete:
            for category in verdict.categories:
                misses[category] += 1
                examples.setdefault(category, []).append(verdict.dialogue_id)
    by_kind = Counter(v.kind for v in wins if not v.complete)
    extra = [v.dialogue_id for v in verdicts if v.complete and not successful[v.dialogue_id]]
    why: Counter[str] = Counter((reasons or {}).get(key, "mwzeval fails it") for key in extra)

    def share(count: int, total: int) -> float | None:
        return 100.0 * count / total if total else None

    return {
        "dialogues": len(verdicts),
        "successful": len(wins),
        "agreement": share(sum(v.complete for v in wins), len(wins)),
        "agreement_checked": share(sum(v.complete_checked for v in wins), len(wins)),
        "not_satisfied_by_kind": {kind: by_kind[kind] for kind in KINDS if by_kind[kind]},
        "satisfied_not_successful": len(extra),
        "disagreements": [
            {"category": category, "dialogues": count, "examples": examples[category][:5]}
            for category, count in misses.most_common()
        ],
        "satisfied_not_successful_by_reason": dict(why.most_common()),
        "satisfied_not_successful_examples": extra[:10],
    }


def _failure(outcome: Mapping[str, Any]) -> str:
    """Why mwzeval fails a dialogue: "Inform fails in hotel", "Success fails in taxi"."""
    for figure in ("inform", "success"):
        failed = [d for d, ok in outcome[figure].items() if d != "total" and not ok]
        if failed:
            return f"mwzeval's {figure.capitalize()} fails in {', '.join(sorted(failed))}"
    return "mwzeval fails it"


def mwzeval_successes(data_dir: str | None = None) -> tuple[dict[str, bool], dict[str, str], dict[str, Any]]:
    """mwzeval's Success of every gold test dialogue (``mwz evaluate --oracle``: the MultiWOZ 2.2
    references and gold states), why it fails those it fails, and the signature of that evaluation."""
    from mwz_metrics.multiwoz.evaluator import Evaluator

    evaluator = Evaluator(
        bleu=False, success=True, richness=False, per_dialogue=True, gold_states=True, data_dir=data_dir
    )
    result = evaluator.evaluate(evaluator.testset.oracle_predictions())
    per_dialogue = result["success"]["per_dialogue"]
    successful = {key: bool(outcome["success"].get("total", False)) for key, outcome in per_dialogue.items()}
    reasons = {key: _failure(outcome) for key, outcome in per_dialogue.items() if not successful[key]}
    return successful, reasons, result["signature"]


def run(
    context: Any,
    *,
    sources: Sequence[str] = SOURCES,
    dialogues: int | None = None,
) -> dict[str, Any]:
    """The agreement report of the test dialogues (the first ``dialogues`` of them, or all) for each source."""
    from mwz_datasets.corpus import load_corpus
    from mwz_metrics.inputs import InputError

    unknown = [s for s in sources if s not in SOURCES]
    if unknown:
        raise InputError(f"unknown source(s) {unknown}; choose among {list(SOURCES)}")
    successful, reasons, signature = mwzeval_successes(context.data_dir)
    goals = context.goals
    missing = [key for key in goals if key not in successful]
    if missing:
        raise InputError(
            f"the MultiWOZ 2.2 test set at hand has {len(goals) - len(missing)} of the {len(goals)} test dialogues "
            f"(e.g. {missing[0]} is missing): the agreement needs mwzeval's Success of each, from the full set"
        )
    corpus = load_corpus("test", context.data_dir)
    keys = list(goals)[:dialogues] if dialogues else list(goals)
    report: dict[str, Any] = {"dialogues": len(keys)}
    for source in sources:
        verdicts = [
            track_dialogue(goals[key], corpus.dialogues[key], source=source, reader=context.reader) for key in keys
        ]
        report[source] = agreement(verdicts, successful, reasons)
    report["mwzeval_signature"] = signature["line"]
    return report
