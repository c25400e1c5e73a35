"""How much the simulated user talks like a MultiWOZ user, reported as Cheng et al. (2022) report it.

- **Oracle histories** (their Table 1): each MultiWOZ 2.1 test dialogue up to a system turn is
  given to the simulator (its goal, the real user's acts so far as if the simulator had said them,
  the wizard's annotated acts); the user turn it says next is scored against the real one: BLEU
  (sacrebleu's corpus BLEU, default settings, against the real turn as typed: 2.1's tokenization
  undone) and the F1 of its acts against the annotated ones (with values, and on intent, domain and
  slot alone).
- **Whole sessions**: distribution figures of simulated sessions beside the real test dialogues'
  (system turns per session, words per user turn, distinct uni- and bigrams of the user turns,
  domains per user turn, turns that bring up two domains).
- **Behaviour rates** (:mod:`.behaviour`, with :func:`measure_users`): what the user profiles change,
  beside the real users' rates on the test and validation dialogues (the validation ones with their
  95% intervals, and each simulated user's distance to them); and what users do after a no-offer that
  asks something (:mod:`.no_offer`).
- **Foreign values**: user turns naming a value (a venue, an area, a food, a day, a time, a
  number...) that neither their acts nor their goal hold: each should be none.
"""

from __future__ import annotations

import dataclasses
import random
import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

from mwz_metrics.interactive.acts import Act, parse_acts
from mwz_metrics.interactive.goals import UserGoal
from mwz_metrics.interactive.language.extract import detokenize
from mwz_metrics.interactive.language.moments import user_moment
from mwz_metrics.interactive.protocol import SystemTurn
from mwz_metrics.interactive.vocabulary import precision_recall_f1
from mwz_metrics.records.session import turns as turns_of
from mwz_metrics.records.session import user_turns
from mwz_metrics.records.turns import speaker_of

_GENERAL = ("general", "booking")


@dataclasses.dataclass(frozen=True)
class NextTurn:
    """The user turn the simulator said after an oracle history, beside the real one."""

    dialogue_id: str
    index: int  # the user turn's index in the dialogue (1 = the second user turn)
    text: str
    acts: tuple[Act, ...]
    real_text: str
    real_acts: tuple[Act, ...]
    moment: str = "continue"  # where the real turn stood (:data:`~.moments.MOMENTS`)


def oracle_histories(
    goals: Mapping[str, UserGoal],
    dialogues: Mapping[str, Sequence[Mapping[str, Any]]],
    make_user,
    *,
    seed: int = 0,
) -> list[NextTurn]:
    """The simulator's next user turn after every system turn of every dialogue (raw 2.1 turns).

    ``make_user(goal, rng)`` makes a simulated user with ``assume(acts, text)`` (an agenda user).
    """
    out = []
    for key, goal in goals.items():
        turns = dialogues[key]
        users, systems = turns[0::2], turns[1::2]
        seen = {a.domain for a in parse_acts(users[0].get("dialog_act") or {})}
        for index in range(1, len(users)):
            user = make_user(goal, random.Random(f"{seed}:{key}:{index}"))
            for real_user, real_system in zip(users[:index], systems[:index]):
                user.assume(parse_acts(real_user.get("dialog_act") or {}), detokenize(real_user["text"]))
                acts = tuple(parse_acts(real_system.get("dialog_act") or {}))
                user.observe(SystemTurn(detokenize(real_system["text"]), acts=acts))
            said = user.next_turn()
            real = users[index]
            real_acts = tuple(parse_acts(real.get("dialog_act") or {}))
            moment = user_moment(index, real_acts, parse_acts(systems[index - 1].get("dialog_act") or {}), seen)
            seen |= {a.domain for a in real_acts if a.domain not in _GENERAL}
            out.append(
                NextTurn(key, index, said.text, tuple(said.acts or ()), detokenize(real["text"]), real_acts, moment)
            )
    return out


def _act_keys(acts: Iterable[Act], *, values: bool) -> set[tuple[str, str, str, str]]:
    keys = set()
    for act in acts:
        value = " ".join(act.value.lower().split()) if values and act.intent == "inform" else ""
        keys.add((act.intent, act.domain, act.slot, value))
    return keys


def act_scores(turns: Sequence[NextTurn]) -> dict[str, float]:
    """Micro precision, recall and F1 of the predicted acts against the annotated ones (percent):
    with the informed values (``f1``) and on intent, domain and slot alone (``f1_slots``)."""
    out: dict[str, float] = {}
    for name, values in (("", True), ("_slots", False)):
        tp = fp = fn = 0
        for turn in turns:
            predicted, real = _act_keys(turn.acts, values=values), _act_keys(turn.real_acts, values=values)
            tp += len(predicted & real)
            fp += len(predicted - real)
            fn += len(real - predicted)
        precision, recall, f1 = precision_recall_f1(tp, fp, fn)
        out[f"precision{name}"] = 100 * precision
        out[f"recall{name}"] = 100 * recall
        out[f"f1{name}"] = 100 * f1
    return out


def bleu(turns: Sequence[NextTurn]) -> tuple[float, str]:
    """sacrebleu's corpus BLEU of the predicted user turns against the real ones, and its signature."""
    from sacrebleu.metrics import BLEU

    metric = BLEU()
    score = metric.corpus_score([t.text for t in turns], [[t.real_text for t in turns]])
    return float(score.score), str(metric.get_signature())


@dataclasses.dataclass(frozen=True)
class Turn:
    """A turn of a session as the distribution figures read it."""

    speaker: str  # "user" or "system"
    text: str
    acts: tuple[Act, ...] = ()


def session_turns(sessions: Iterable[Mapping[str, Any]]) -> list[list[Turn]]:
    """Simulated sessions (session-file records) as turns (a user turn's acts are the simulator's)."""
    return [
        [Turn(speaker_of(t), t["text"], tuple(parse_acts(t.get("acts") or []))) for t in turns_of(session)]
        for session in sessions
    ]


def corpus_turns(dialogues: Mapping[str, Sequence[Mapping[str, Any]]]) -> list[list[Turn]]:
    """Real dialogues (raw 2.1 turns) as turns, their text as typed."""
    return [
        [
            Turn(
                "user" if i % 2 == 0 else "system", detokenize(t["text"]), tuple(parse_acts(t.get("dialog_act") or {}))
            )
            for i, t in enumerate(turns)
        ]
        for turns in dialogues.values()
    ]


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9']+|[^\sa-z0-9']", text.lower())


def distribution(sessions: Sequence[Sequence[Turn]]) -> dict[str, float]:
    """Figures of whole sessions: system turns per session, words per user turn, distinct n-grams and
    domains per user turn."""
    users = [t for s in sessions for t in s if t.speaker == "user"]
    words = [_words(t.text) for t in users]
    unigrams = [w for ws in words for w in ws]
    bigrams = [pair for ws in words for pair in zip(ws, ws[1:])]
    domains = [len({a.domain for a in t.acts} - set(_GENERAL)) for t in users]
    return {
        "sessions": len(sessions),
        "system_turns_per_session": sum(1 for s in sessions for t in s if t.speaker == "system")
        / max(len(sessions), 1),
        "words_per_user_turn": len(unigrams) / max(len(users), 1),
        "distinct_1": 100 * len(set(unigrams)) / max(len(unigrams), 1),
        "distinct_2": 100 * len(set(bigrams)) / max(len(bigrams), 1),
        "unique_user_turns": 100 * len({t.text.lower() for t in users}) / max(len(users), 1),
        "domains_per_user_turn": sum(domains) / max(len(domains), 1),
        "user_turns_with_two_domains": 100 * sum(1 for d in domains if d > 1) / max(len(domains), 1),
    }


class ValueLexicon:
    """Every value a user could name: the database's venue names, areas, foods, types, stations, days;
    times and numbers are found by their form."""

    _NUMBERS = re.compile(r"\b\d{1,2}:\d{2}\b|\b\d+\b")
    _DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
    _AREAS = ("north", "south", "east", "west", "centre")
    _PRICES = ("cheap", "moderate", "expensive")

    def __init__(self, database: Any) -> None:
        values: set[str] = {*self._DAYS, *self._AREAS, *self._PRICES}
        for domain, columns in (
            ("restaurant", ("name", "food")),
            ("hotel", ("name",)),
            ("attraction", ("name", "type")),
            ("train", ("departure", "destination")),
        ):
            for row in database.all_rows(domain):
                for column in columns:
                    value = str(row.get(column, "")).strip().lower()
                    if len(value) >= 4:
                        values.add(value)
        ordered = sorted(values, key=len, reverse=True)
        self._values = re.compile(r"\b(?:" + "|".join(re.escape(v) for v in ordered) + r")\b")

    def named(self, text: str) -> set[str]:
        """The values a text names (longest first; numbers and times as written)."""
        lowered = text.lower()
        found = set(self._values.findall(lowered))
        found |= set(self._NUMBERS.findall(lowered))
        return found


def _goal_values(goal: Mapping[str, Any]) -> set[str]:
    out = set()
    for part in goal["domains"]:
        for key in ("info", "fail_info", "book", "fail_book"):
            out |= {str(v).strip().lower() for v in (part.get(key) or {}).values()}
    return out


def _holds(value: str, named: str) -> bool:
    """Whether an act's or goal's value is (or holds, as whole words) a value a text names."""
    return value == named or re.search(rf"(?<![\w:]){re.escape(named)}(?![\w:])", value) is not None


def foreign_values(sessions: Sequence[Mapping[str, Any]], lexicon: ValueLexicon) -> dict[str, Any]:
    """User turns naming a value that neither their acts nor their session's goal hold."""
    turns = 0
    foreign: list[dict[str, Any]] = []
    for session in sessions:
        allowed_goal = _goal_values(session["goal"])
        for turn in user_turns(session):
            turns += 1
            acts = {str(a[3]).strip().lower() for a in turn.get("acts") or []}
            allowed = allowed_goal | acts
            if not any(a[1] in ("train", "taxi") for a in turn.get("acts") or []):
                allowed.add("cambridge")  # the city the venues are in, a station only for a train
            stray = {v for v in lexicon.named(turn["text"]) if not any(_holds(a, v) for a in allowed)}
            if stray:
                foreign.append({"id": session["id"], "text": turn["text"], "values": sorted(stray)})
    return {"user_turns": turns, "with_foreign_values": len(foreign), "examples": foreign[:10]}


def said_with_templates(turns: Sequence[NextTurn], templates: Any, seed: int = 0) -> list[NextTurn]:
    """The real user turns' own acts said by the simulator's templates, where the real turn stood: BLEU
    then measures the words alone, the acts given."""
    out = []
    for turn in turns:
        rng = random.Random(f"{seed}:{turn.dialogue_id}:{turn.index}:words")
        text = templates.realize(list(turn.real_acts), rng, turn.moment) if turn.real_acts else ""
        out.append(dataclasses.replace(turn, text=text, acts=turn.real_acts))
    return out


def run(
    context: Any,
    sessions: Sequence[Mapping[str, Any]],
    *,
    seed: int = 0,
    dialogues: int | None = None,
) -> dict[str, Any]:
    """Every figure of the module docstring: oracle histories of the test dialogues (the first
    ``dialogues`` of them, or all), and ``sessions`` (simulated, session-file records) beside the real ones."""
    from mwz_datasets.corpus import load_corpus
    from mwz_metrics.interactive.harness.loading import load_simulator

    corpus = load_corpus("test", context.data_dir)
    goals = dict(list(context.goals.items())[:dialogues]) if dialogues else dict(context.goals)
    factory, identity = load_simulator("agenda", context, None)
    turns = oracle_histories(goals, corpus.dialogues, factory.session, seed=seed)
    score, signature = bleu(turns)
    words_only, _ = bleu(said_with_templates(turns, context.user_templates, seed))
    real = {key: corpus.dialogues[key] for key in goals}
    return {
        "oracle_histories": {
            "user_turns": len(turns),
            "bleu": score,
            "bleu_real_acts": words_only,
            "bleu_signature": signature,
            "acts": act_scores(turns),
            "examples": [
                {"id": t.dialogue_id, "turn": t.index, "simulated": t.text, "real": t.real_text} for t in turns[:5]
            ],
        },
        "distribution": {
            "simulated": distribution(session_turns(sessions)),
            "real": distribution(corpus_turns(real)),
        },
        "foreign_values": foreign_values(sessions, ValueLexicon(context.database)),
        "simulator": identity,
    }


@dataclasses.dataclass
class SimulatedUser:
    """One simulated user to measure: its label, its factory (``session(goal, rng)``) and sessions it had."""

    label: str
    factory: Any
    sessions: Sequence[Mapping[str, Any]]


def _vocabulary(context: Any, validation: Mapping[str, Sequence[Mapping[str, Any]]]) -> Any:
    """The words of MultiWOZ 2.1 validation (users' and wizards') and of the venue database."""
    from mwz_metrics.interactive.diagnostics.behaviour import Vocabulary

    texts = [t["text"] for turns in validation.values() for t in turns]
    values = [
        str(v)
        for domain in ("restaurant", "hotel", "attraction", "train")
        for row in context.database.all_rows(domain)
        for v in row.values()
        if isinstance(v, str)
    ]
    return Vocabulary(texts, values)


def _histories(goals: Mapping[str, UserGoal], corpus: Any, user: SimulatedUser, seed: int) -> dict[str, Any] | None:
    """BLEU and act F1 after oracle histories, or None for a simulator that cannot take a history (no ``assume``)."""
    if not _takes_histories(user, goals, seed):
        return None
    turns = oracle_histories(goals, corpus.dialogues, user.factory.session, seed=seed)
    score, _signature = bleu(turns)
    return {
        "user_turns": len(turns),
        "bleu": score,
        "acts": act_scores(turns),
        "requests_repeated": repeated_requests(turns, corpus.dialogues, real=False),
        "real_requests_repeated": repeated_requests(turns, corpus.dialogues, real=True),
    }


def repeated_requests(turns: Sequence[NextTurn], dialogues: Mapping[str, Any], *, real: bool) -> float:
    """Of the requests said after oracle histories (the simulator's, or with ``real`` the real user's),
    the share (%) asking again for an attribute the real user asked for earlier in the history: a user
    who gives up after an unanswered request (``impatient``) asks again less than a patient one."""
    asked = repeated = 0
    for turn in turns:
        history = dialogues[turn.dialogue_id][0::2][: turn.index]
        earlier = {
            (a.domain, a.slot) for t in history for a in parse_acts(t.get("dialog_act") or {}) if a.intent == "request"
        }
        for act in turn.real_acts if real else turn.acts:
            if act.intent == "request":
                asked += 1
                repeated += (act.domain, act.slot) in earlier
    return 100 * repeated / max(asked, 1)


def measure_users(
    context: Any,
    users: Sequence[SimulatedUser],
    *,
    seed: int = 0,
    dialogues: int | None = None,
    histories: Collection[str] | None = None,
    validation_goals: Mapping[str, UserGoal] | None = None,
) -> dict[str, Any]:
    """Each simulated user beside the real ones: oracle histories (BLEU, act F1; Cheng et al. 2022 report
    17.92 BLEU for their best user), the whole-session distribution and the behaviour rates
    (:mod:`.behaviour`) of its sessions; the real users' of the same test dialogues and of validation,
    the validation users' with their 95% intervals, and each simulated user's distance to them (0 within).
    ``histories``: the users whose oracle histories are measured (all by default). With
    ``validation_goals``: what the users do after a no-offer with a request (:mod:`.no_offer`), the
    validation users' next turns beside the simulated users' after the same oracle histories."""
    from mwz_datasets.corpus import load_corpus
    from mwz_metrics.interactive.diagnostics import no_offer
    from mwz_metrics.interactive.diagnostics.behaviour import behaviour, behaviour_intervals, distance

    corpus = load_corpus("test", context.data_dir)
    validation = load_corpus("validation", context.data_dir).dialogues
    goals = dict(list(context.goals.items())[:dialogues]) if dialogues else dict(context.goals)
    vocabulary = _vocabulary(context, validation)
    columns: dict[str, Any] = {}
    for user in users:
        turns = session_turns(user.sessions)
        columns[user.label] = {
            "oracle_histories": _histories(goals, corpus, user, seed)
            if histories is None or user.label in histories
            else None,
            "distribution": distribution(turns),
            "behaviour": behaviour(turns, vocabulary),
        }
    real = corpus_turns({key: corpus.dialogues[key] for key in goals})
    columns["real (test)"] = {"distribution": distribution(real), "behaviour": behaviour(real, vocabulary)}
    validation_turns = corpus_turns(validation)
    intervals = behaviour_intervals(validation_turns, vocabulary, seed=seed)
    for user in users:
        measured = columns[user.label]["behaviour"]
        columns[user.label]["from_validation"] = {k: distance(v, intervals[k]) for k, v in measured.items()}
    columns["real (validation)"] = {
        "distribution": distribution(validation_turns),
        "behaviour": behaviour(validation_turns, vocabulary),
        "ci95": {k: list(v) for k, v in intervals.items()},
    }
    report: dict[str, Any] = {"dialogues": len(goals), "columns": columns, "cheng_et_al_bleu": CHENG_BLEU}
    if validation_goals is not None:
        hearing = {u.label: u.factory.session for u in users if _takes_histories(u, validation_goals, seed)}
        report["no_offer"] = no_offer.measure(validation_goals, validation, hearing, seed=seed)
    return report


def _takes_histories(user: SimulatedUser, goals: Mapping[str, UserGoal], seed: int) -> bool:
    """Whether the user's simulator can take an oracle history (an ``assume`` method: the agenda user)."""
    first = next(iter(goals.values()), None)
    return first is not None and callable(getattr(user.factory.session(first, random.Random(seed)), "assume", None))


CHENG_BLEU = 17.92  # Cheng et al. (2022), Table 1: their best user simulator's BLEU after oracle histories
