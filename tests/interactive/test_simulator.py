"""The simulated user measures the system, not itself: its goal tracker against the 1000 test wizards,
its words against the real users', the act figures worked out by hand, every end reason, and the agenda's
answers to systems that refuse, contradict, stay silent or ask what the goal does not say."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from mwz_metrics.interactive.acts import Act
from mwz_metrics.interactive.goals import DomainGoal, UserGoal
from mwz_metrics.interactive.harness import api
from mwz_metrics.interactive.harness.runner import run_session
from mwz_metrics.interactive.scoring import export
from mwz_metrics.interactive.scoring import figures as scoring
from mwz_metrics.interactive.systems.reference import OracleSystem
from mwz_metrics.interactive.user.agenda import AgendaFactory


@pytest.fixture(scope="module")
def context(synth22_context):
    return synth22_context


@pytest.fixture()
def env(synth22_env):
    """The synth22 mirror for the test."""


# -- the goal tracker against the test wizards ---------------------------------------------------


def test_the_tracker_understands_the_test_wizards(env, context):
    """Item 1 and 2 of the issue, on all 1000 test dialogues: what mwzeval's Success checks is found
    satisfied in >= 95% of its successes (acts: 99.8, text: 98.6 measured), the text within 5 points of
    the acts, and hardly any disagreement is the tracker's own misreading."""
    from mwz_metrics.interactive.diagnostics import agreement

    report = agreement.run(context)
    acts, text = report["acts"], report["text"]
    assert report["dialogues"] == 1000 and acts["successful"] == 877  # mwzeval's oracle on these dialogues
    assert acts["agreement_checked"] >= 99.0 and text["agreement_checked"] >= 97.0
    assert abs(acts["agreement_checked"] - text["agreement_checked"]) <= 5.0
    assert abs(acts["agreement"] - text["agreement"]) <= 5.0
    assert acts["not_satisfied_by_kind"].get("misread", 0) <= 3  # 2 measured
    # the rest is the real dialogues' own: wizards who never gave, users who never asked
    assert acts["not_satisfied_by_kind"]["never_given"] + acts["not_satisfied_by_kind"]["never_asked"] >= 60
    assert sum(d["dialogues"] for d in acts["disagreements"]) >= 877 - round(877 * acts["agreement"] / 100)


def _goal(*parts: DomainGoal, key: str = "test0001") -> UserGoal:
    return UserGoal(key, tuple(parts), ("a goal made for the test",))


def test_the_tracker_reads_offers_without_a_name_bookings_in_any_act_and_a_venue_the_user_named():
    from mwz_metrics.interactive.user.tracker import GoalTracker

    train = DomainGoal("train", {"departure": "cambridge", "destination": "ely", "day": "monday"}, book={"people": "2"})
    hotel = DomainGoal("hotel", {"name": "acorn guest house"}, reqt=("phone",))
    tracker = GoalTracker(_goal(train, hotel))
    tracker.observe_user([Act("inform", "train", "dest", "ely"), Act("inform", "train", "day", "monday")])
    # Train-OfferBook with the day and the times but no id is an offer (324 sessions of a real system failed on it)
    tracker.observe([Act("offerbook", "train", "leave", "09:40"), Act("offerbook", "train", "day", "monday")])
    assert tracker.state("train").offered and not tracker.state("train").booked
    tracker.observe_user([Act("inform", "train", "people", "2")])
    tracker.observe(
        [Act("book", "booking", "ref", "X1Y2Z3")]
    )  # a "booking" act books the train where nothing else waits
    assert tracker.state("train").booked
    tracker.observe_user([Act("inform", "hotel", "name", "acorn guest house")])
    tracker.observe([Act("inform", "hotel", "phone", "01223353888")])  # no name repeated: the venue the user named
    assert tracker.state("hotel").offered and tracker.complete()


def test_a_confirmed_constraint_keeps_the_offer_and_a_contradicted_one_asks_for_the_name():
    from mwz_metrics.interactive.user.tracker import GoalTracker

    restaurant = DomainGoal("restaurant", {"food": "indian", "area": "south"}, reqt=("phone",))
    tracker = GoalTracker(_goal(restaurant))
    tracker.observe_user([Act("inform", "restaurant", "food", "indian")])
    tracker.observe(
        [Act("recommend", "restaurant", "name", "pipasha restaurant"), Act("inform", "restaurant", "area", "east")]
    )
    state = tracker.state("restaurant")
    assert state.offered and "name" in state.answered
    tracker.observe_user([Act("inform", "restaurant", "area", "south")])  # the offered one is in the east
    assert not state.offered and "name" not in state.answered
    tracker.observe([Act("inform", "restaurant", "area", "south")])  # confirmed, but which venue?
    assert state.offered and "name" not in state.missing() and "answer:name" in state.missing()
    # a constraint the offer is known to meet keeps the offer as it is
    tracker.observe([Act("inform", "restaurant", "name", "taj tandoori"), Act("inform", "restaurant", "phone", "0122")])
    tracker.observe_user([Act("inform", "restaurant", "area", "south")])
    assert state.offered and tracker.complete()


# -- the act figures, worked out by hand ----------------------------------------------------------


def _session(goal: UserGoal, system_turns: list[dict], *, booked=None, key=None) -> dict:
    turns = []
    for index, turn in enumerate(system_turns):
        turns.append({"speaker": "user", "text": f"user turn {index}", "acts": []})
        turns.append({"speaker": "system", **turn})
    return {
        "id": key or goal.dialogue_id,
        "goal": goal.as_json(),
        "turns": turns,
        "booked": booked or [[] for _ in system_turns],
        "end": {"reason": "user_done"},
        "complete": None,
        "details": {},
    }


def test_inform_precision_counts_a_given_constraint_as_no_false_positive():
    goal = _goal(DomainGoal("restaurant", {"food": "chinese", "area": "centre"}, reqt=("phone", "postcode")))
    acts = [
        ["inform", "restaurant", "phone", "01223"],  # asked for: a true positive
        ["inform", "restaurant", "area", "centre"],  # a constraint of the goal, given unasked: not counted
        ["inform", "restaurant", "addr", "regent street"],  # neither asked for nor constrained: a false positive
    ]  # the postcode never comes: a miss
    session = _session(goal, [{"text": "...", "acts": acts}])
    assert scoring.act_figures(session, {"restaurant": True}) == {"tp": 1, "fp": 1, "fn": 1, "book_rate": None}


def test_book_rate_by_act_and_by_a_reference_placeholder_at_a_venue_that_fails_inform(env, context):
    goal = _goal(
        DomainGoal(
            "restaurant",
            {"food": "chinese", "area": "centre", "pricerange": "cheap"},
            book={"people": "2", "day": "monday", "time": "12:00"},
        ),
        key="test0001",
    )
    meets = {"restaurant": {"food": "chinese", "area": "centre", "pricerange": "cheap"}}
    misses = {"restaurant": {"food": "italian", "area": "north", "pricerange": "expensive"}}
    booked = [["restaurant"]]
    by_act = _session(
        goal,
        [
            {
                "text": "[value_name] is booked , reference [value_reference] .",
                "state": meets,
                "acts": [["book", "booking", "ref", "AB12CD34"]],
            }
        ],
        booked=booked,
        key="test0001",
    )
    by_placeholder = _session(
        goal,
        [
            {
                "text": "[value_name] is booked , reference [value_reference] .",
                "state": misses,
                "read_acts": [["inform", "restaurant", "ref", "[REFERENCE]"]],
            }
        ],
        booked=booked,
        key="test0002",
    )
    config = {"simulator": {"name": "agenda"}, "system": {"name": "hand-made"}}
    result = api.score([by_act, by_placeholder], config, context=context, resamples=0)
    rates = {s["id"]: s["book_rate"] for s in result["per_session"]}
    assert rates == {"test0001": 1.0, "test0002": 0.0}  # booked in both; the second venue fails Inform
    assert result["book_rate"] == 50.0
    domains = {s["id"]: s["domains"]["restaurant"] for s in result["per_session"]}
    assert domains["test0001"]["inform"] is True and domains["test0002"]["inform"] is False


def test_complete_is_none_under_replay(env, context):
    run = api.prepare("oracle", simulator="replay", goals=12, context=context)
    sessions = api.run_sessions(run, output=None)
    result = api.score(sessions, run.config, context=context, resamples=100)
    assert all(s["complete"] is None for s in sessions)
    assert result["complete"] is None and result["ci95"]["complete"] is None


# -- every end reason ---------------------------------------------------------------------------


def raising_system():
    def respond(request):
        if request["turn"] == 1:
            raise RuntimeError("the system broke")
        return {"response": "how can i help?"}

    return respond


def chatty_system():
    return lambda request: {"response": "tell me more about what you need ."}


def make_crashing(context, **options):
    """A simulator plugin that fails reading the system's second turn."""
    from mwz_metrics.interactive.user.base import SimulatorFactory, UserSimulator, UserTurn

    class Crashing(UserSimulator):
        def __init__(self, goal):
            self.goal, self.seen = goal, 0

        def start(self):
            return UserTurn("Hello.")

        def observe(self, turn):
            self.seen += 1
            if self.seen == 2:
                raise ValueError("the simulator broke")
            return []

        def next_turn(self):
            return UserTurn("Go on.")

    class Factory(SimulatorFactory):
        name, version = "crashing", "0"

        def session(self, goal, rng):
            return Crashing(goal)

    return Factory()


def test_every_end_reason_is_reached_and_counted(env, context, tmp_path):
    from mwz_plugins import UserSimulatorEntry, hookimpl
    from mwz_plugins.manager import register_plugin, unregister_plugin

    def reasons(system, simulator="agenda", **options):
        run = api.prepare(system, simulator=simulator, goals=3, context=context, **options)
        return api.score(api.run_sessions(run, output=None), run.config, context=context, resamples=0)["end_reasons"]

    assert reasons("test_simulator:chatty_system", max_turns=2) == {"max_turns": 3}
    assert reasons("test_simulator:raising_system") == {"system_error": 3}
    short = tmp_path / "short.json"  # one system turn per dialogue: the agenda wants more
    short.write_text(json.dumps({g.dialogue_id: [{"response": "hello ."}] for g in list(context.goals.values())[:3]}))
    assert reasons(str(short)) == {"system_out_of_turns": 3}

    class Plugin:
        @staticmethod
        @hookimpl
        def mwz_register_user_simulators(register):
            register(UserSimulatorEntry("crashing", "0", "test_simulator:make_crashing"))

    register_plugin(Plugin, "crashing-plugin")
    try:
        assert reasons("oracle", simulator="crashing") == {"simulator_error": 3}
    finally:
        unregister_plugin("crashing-plugin")


# -- the agenda against systems that refuse, contradict, stay silent, ask -------------------------


class Scripted:
    """The oracle with one behaviour changed by ``change(request, turn) -> turn``."""

    def __init__(self, context, change):
        self.oracle, self.change = OracleSystem(context), change
        self.state: dict[str, dict] = {}

    def respond(self, request):
        turn = self.oracle.respond(request)
        return self.change(self.state.setdefault(request["dialogue_id"], {}), request, turn)


def _user_acts(session) -> list[list[list[str]]]:
    return [t.get("acts") or [] for t in session["turns"] if t["speaker"] == "user"]


def _goals_with(context, test, count=5):
    return [g for g in context.goals.values() if test(g)][:count]


def test_a_refused_booking_is_asked_again_with_the_goals_final_details_else_given_up(env, context):
    def refuse_first(memory, request, turn):
        if not memory.get("refused") and any(a[0] in ("book", "offerbooked") for a in turn.get("acts", [])):
            memory["refused"] = True
            return {
                **turn,
                "response": "I am sorry, the booking was unsuccessful.",
                "acts": [["nobook", "booking", "none", "none"]],
            }
        return turn

    system = Scripted(context, refuse_first)
    factory = AgendaFactory(context)
    switching = _goals_with(context, lambda g: any(d.fail_book for d in g.domains))
    plain = _goals_with(context, lambda g: any(d.book for d in g.domains) and not any(d.fail_book for d in g.domains))
    for goal in switching + plain:
        session = run_session(goal, factory, system, user_acts=True)
        part = next(d for d in goal.domains if d.book)
        refused = next(i for i, t in enumerate(session["turns"]) if any(a[0] == "nobook" for a in t.get("acts") or []))
        later = [a for t in session["turns"][refused + 1 :] if t["speaker"] == "user" for a in t.get("acts") or []]
        if part.fail_book:  # the goal's final details, said again
            slot, value = next(iter(part.fail_book.items()))
            assert ["inform", part.domain, slot if slot != "time" else "time", part.book[slot]] in later, (
                goal.dialogue_id
            )
            assert session["complete"], goal.dialogue_id  # the oracle books the new details
        else:  # the same details, asked again twice (the oracle never books them again): then given up
            repeats = [
                t
                for t in session["turns"][refused + 1 :]
                if t["speaker"] == "user"
                and any(
                    a[0] == "inform" and a[1] == part.domain and a[2] in ("people", "day", "time", "stay")
                    for a in t.get("acts") or []
                )
            ]
            assert len(repeats) == 2, goal.dialogue_id
            assert session["details"]["given_up"][part.domain] == "no booking"


def test_a_contradicted_constraint_is_corrected_once(env, context):
    def wrong_area(memory, request, turn):
        acts = turn.get("acts") or []
        told = [a for t in request["history"] if t["speaker"] == "user" for a in t.get("acts") or [] if a[2] == "area"]
        said = {a[1] for a in told}
        contradicting = [a for a in acts if a[2] == "area" and a[0] in ("inform", "recommend") and a[1] in said]
        if contradicting and not memory.get("turn"):
            memory["turn"], memory["domain"] = request["turn"], contradicting[0][1]  # contradicts the user's area
            acts = [[a[0], a[1], a[2], "north" if a[3] != "north" else "south"] if a[2] == "area" else a for a in acts]
        return {**turn, "acts": acts}

    system = Scripted(context, wrong_area)
    goals = _goals_with(context, lambda g: g.domains[0].domain == "restaurant" and "area" in g.domains[0].info, 8)
    corrected = 0
    for goal in goals:
        session = run_session(goal, AgendaFactory(context), system, user_acts=True)
        turn = system.state[goal.dialogue_id].get("turn")
        if turn is None:
            continue
        domain = system.state[goal.dialogue_id]["domain"]
        wanted = goal.domain(domain).info["area"]
        answer = _user_acts(session)[turn + 1]  # the user's next turn says its area again
        assert ["inform", domain, "area", wanted] in answer, (goal.dialogue_id, answer)
        later = [a for acts in _user_acts(session)[turn + 2 :] for a in acts if a[1] == domain and a[2] == "area"]
        assert all(a[3] == wanted for a in later)
        corrected += 1
    assert corrected >= 3


def test_an_unanswered_request_is_asked_twice_then_given_up(env, context):
    def never_the_phone(memory, request, turn):
        asked = [a for a in request["history"][-1].get("acts") or [] if a[0] == "request" and a[2] == "phone"]
        if asked:
            return {
                "response": "Is there anything else I can help you with?",
                "acts": [["reqmore", "general", "none", "none"]],
                "state": turn["state"],
            }
        return turn

    system = Scripted(context, never_the_phone)
    goals = _goals_with(
        context, lambda g: len(g.domains) == 1 and "phone" in g.domains[0].reqt and g.domains[0].domain != "taxi"
    )
    for goal in goals:
        session = run_session(goal, AgendaFactory(context), system, user_acts=True)
        domain = goal.domains[0].domain
        asks = [a for acts in _user_acts(session) for a in acts if a[0] == "request" and a[2] == "phone"]
        assert len(asks) == 2, goal.dialogue_id  # patience 2
        assert (
            session["details"]["given_up"][domain].startswith("not given")
            and "phone" in session["details"]["given_up"][domain]
        )
        assert not session["complete"]


def test_a_question_the_goal_does_not_answer_gets_dont_care(env, context):
    def ask_price_first(memory, request, turn):
        if not memory.get("asked"):
            memory["asked"] = True
            return {
                "response": "What price range would you like?",
                "acts": [["request", "hotel", "price", "?"]],
                "state": {},
            }
        return turn

    goals = _goals_with(context, lambda g: g.domains[0].domain == "hotel" and "pricerange" not in g.domains[0].info)
    for goal in goals:
        session = run_session(goal, AgendaFactory(context), Scripted(context, ask_price_first), user_acts=True)
        assert ["inform", "hotel", "price", "dontcare"] in _user_acts(session)[1], goal.dialogue_id


def test_a_system_that_never_finds_anything_is_given_up_after_two_tries(env, context):
    def nothing(memory, request, turn):
        return {
            "response": "I am sorry, there is nothing matching that.",
            "acts": [["nooffer", "restaurant", "none", "none"]],
        }

    goals = _goals_with(
        context, lambda g: len(g.domains) == 1 and g.domains[0].domain == "restaurant" and not g.domains[0].fail_info
    )
    for goal in goals:
        session = run_session(goal, AgendaFactory(context), Scripted(context, nothing), user_acts=True)
        assert session["details"]["given_up"] == {"restaurant": "no venue matches the goal's constraints"}
        nooffers = sum(1 for t in session["turns"] if t["speaker"] == "system")
        assert nooffers == 3  # two no-offers, then the user says goodbye (answered too)


# -- words that fit the turn ------------------------------------------------------------------------


def test_user_turns_fit_where_they_stand_and_name_only_their_values(env, context):
    from mwz_metrics.interactive.diagnostics import realism
    from mwz_metrics.interactive.language.lexicon import BACK_REFERENCES, REPLY_OPENERS

    run = api.prepare("oracle-text", goals=200, context=context)
    sessions = api.run_sessions(run, output=None)
    for session in sessions:
        users = [t for t in session["turns"] if t["speaker"] == "user"]
        first = users[0]["text"].lower()
        assert first.split()[0].strip(",.!") not in REPLY_OPENERS and not BACK_REFERENCES.search(first), first
        for turn in users[1:]:
            assert not turn["text"].lower().startswith(("hi ", "hi,", "hello", "hey")), turn["text"]
        closing = [t for t in users if t.get("acts") and {a[0] for a in t["acts"]} <= {"thank", "bye"}]
        assert len(closing) == 1 and closing[0] is users[-1]  # thanks and goodbye once, at the end
        assert all(len({a[1] for a in t.get("acts") or []} - {"general", "booking"}) <= 1 for t in users)
    foreign = realism.foreign_values(sessions, realism.ValueLexicon(context.database))
    assert foreign["user_turns"] > 1000 and foreign["with_foreign_values"] == 0, foreign["examples"]
    # the check finds a value its turn and goal do not hold
    planted = json.loads(json.dumps(sessions[0]))
    first_user = next(t for t in planted["turns"] if t["speaker"] == "user")
    first_user["text"] += " Also somewhere in the north, on saturday, near pizza hut city centre."
    found = realism.foreign_values([planted], realism.ValueLexicon(context.database))
    assert found["with_foreign_values"] == 1 and "pizza hut city centre" in found["examples"][0]["values"]


def test_sessions_are_as_coherent_as_the_gold_dialogues(env, context):
    """Item 3 on a slice (all 1000 goals: 74.10 against gold's 74.29): within 4 points of gold."""
    pytest.importorskip("torch")
    from mwz_datasets.corpus import load_corpus
    from mwz_metrics.coherence import api as coherence_api
    from mwz_metrics.coherence.data import gold_sessions

    run = api.prepare("oracle-text", goals=60, context=context)
    sessions = api.run_sessions(run, output=None)
    simulated = coherence_api.score_sessions(export.dialogue_sessions(sessions))["coherence"]
    gold = gold_sessions(load_corpus("test"), delexicalized=True, ids=[s["id"] for s in sessions])
    real = coherence_api.score_sessions(gold)["coherence"]
    assert simulated >= real - 4.0, (simulated, real)


def test_realism_after_oracle_histories(env, context):
    from mwz_metrics.interactive.diagnostics import realism

    run = api.prepare("oracle-text", goals=100, context=context)
    sessions = api.run_sessions(run, output=None)
    report = realism.run(context, sessions, dialogues=100)
    histories = report["oracle_histories"]
    assert histories["user_turns"] > 500
    assert 3.0 <= histories["bleu"] < histories["bleu_real_acts"]  # 7.1 and 11.8 on all dialogues
    assert histories["acts"]["f1"] >= 35.0 and histories["acts"]["f1_slots"] >= histories["acts"]["f1"]
    simulated, real = report["distribution"]["simulated"], report["distribution"]["real"]
    assert simulated["sessions"] == real["sessions"] == 100
    assert abs(simulated["system_turns_per_session"] - real["system_turns_per_session"]) <= 1.5
    assert report["foreign_values"]["with_foreign_values"] == 0


def test_act_f1_by_hand():
    from mwz_metrics.interactive.diagnostics.realism import NextTurn, act_scores

    turn = NextTurn(
        "x",
        1,
        "",
        (Act("inform", "hotel", "area", "north"), Act("inform", "hotel", "stars", "4")),
        "",
        (
            Act("inform", "hotel", "area", "North"),
            Act("inform", "hotel", "stars", "3"),
            Act("request", "hotel", "phone", "?"),
        ),
    )
    scores = act_scores([turn])
    assert scores["precision"] == 50.0 and round(scores["recall"], 4) == round(100 / 3, 4)
    assert scores["precision_slots"] == 100.0 and round(scores["recall_slots"], 4) == round(200 / 3, 4)


# -- failures explained, honest intervals ------------------------------------------------------------


def test_give_ups_summed_explained_and_written_to_the_session_file(env, context, tmp_path, synth22):
    out = tmp_path / "echo.jsonl"
    environment = {**os.environ, "MWZ_MIRROR": str(synth22)}
    command = [sys.executable, "-m", "mwz_metrics.cli", "-q", "interact", "--system", "echo", "--goals", "12"]
    ran = subprocess.run(
        [*command, "-o", str(out), "--explain", "2", "--result", str(tmp_path / "r.json")],
        env=environment,
        capture_output=True,
        text=True,
    )
    assert ran.returncode == 0, ran.stderr
    result = json.loads((tmp_path / "r.json").read_text())
    assert sum(result["give_ups"].values()) >= 12 and all(": " in k for k in result["give_ups"])
    assert "simulator gave up: " in ran.stdout and "2 of 12 failed sessions:" in ran.stdout
    assert ran.stdout.count("system's side") >= 2 and "user   " in ran.stdout
    _, stored = __import__("mwz_metrics.interactive.harness.sessions", fromlist=["read"]).read(out)
    for session in stored:
        outcome = session["outcome"]
        assert outcome["success"] == 0.0 and set(outcome["domains"]) == {
            d["domain"] for d in session["goal"]["domains"]
        }
    again = subprocess.run([*command, "-i", str(out), "--score-only"], env=environment, capture_output=True, text=True)
    assert again.returncode == 0 and out.read_bytes() == out.read_bytes()


def test_domain_verdicts_say_whose_side():
    from mwz_metrics.interactive.scoring.explain import domain_verdicts

    record = {
        "end": "user_done",
        "domains": {
            "attraction": {"inform": True, "success": True, "given_up": "not given: fee"},
            "hotel": {"inform": False, "success": None},
            "taxi": {"inform": True, "success": True},
        },
    }
    lines = domain_verdicts(record)
    assert lines == [
        "attraction: simulator's side: mwzeval counts it, the simulator: not given: fee",
        "hotel: system's side: mwzeval's Inform fails; the simulator was satisfied",
    ]


def test_intervals_resample_their_own_sessions_and_are_na_when_too_few(env, context):
    run = api.prepare("oracle", goals=40, context=context)
    sessions = api.run_sessions(run, output=None)
    result = api.score(sessions, run.config, context=context, resamples=200)
    with_booking = [s for s in result["per_session"] if s["book_rate"] is not None]
    assert 10 <= len(with_booking) < 40
    assert result["ci95"]["book_rate"] == [100.0, 100.0]  # every one booked: no resample holds a session without
    few = api.score(sessions[:6], run.config, context=context, resamples=200)
    assert all(few["ci95"][k] is None for k in ("success", "book_rate", "complete", "turns", "inform_f1"))
    table = __import__("mwz_metrics.interactive.scoring.report", fromlist=["table"]).table(few, run.config)
    assert "n/a (too few sessions)" in table and "[0.0, 100.0]" not in table


def test_the_llm_user_hears_the_system_and_its_key_goes_in_a_header_only(env, context, tmp_path, monkeypatch):
    import http.server
    import threading

    received: list[tuple[dict, dict]] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            received.append((dict(self.headers), body))
            turns = sum(m["role"] == "assistant" for m in body["messages"])
            reply = "I need a cheap restaurant." if turns == 0 else "Thanks, goodbye! [END]"
            data = json.dumps({"choices": [{"message": {"role": "assistant", "content": reply}}]}).encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    secret = "sk-test-5e3c7a91d2"
    monkeypatch.setenv("MWZ_LLM_API_KEY", secret)
    out = tmp_path / "llm.jsonl"
    try:
        endpoint = f"http://127.0.0.1:{server.server_address[1]}/v1"
        run = api.prepare(
            "oracle-text",
            simulator="llm",
            simulator_options={"endpoint": endpoint, "model": "stub"},
            system_options={"hear": "words"},  # the llm user sends words only: the oracle reads them
            goals=2,
            context=context,
        )
        sessions = api.run_sessions(run, output=out)
        result = api.score(sessions, run.config, context=context, resamples=0)
    finally:
        server.shutdown()
        server.server_close()
    assert all(headers.get("Authorization") == f"Bearer {secret}" for headers, _ in received)
    for session in sessions:  # the system's words reach the model, in the message after its first reply
        system_text = export.system_turns(session)[0]["text"]
        assert any(
            system_text in m["content"] for _, body in received for m in body["messages"] if m["role"] == "user"
        ), system_text
    written = out.read_text() + json.dumps(result) + json.dumps(run.config)
    assert secret not in written and "Bearer" not in written


def test_a_version_is_written_once_in_the_registry():
    from mwz_metrics.interactive.systems import llm as llm_system
    from mwz_metrics.interactive.systems import reference
    from mwz_metrics.interactive.user import agenda, base, llm, replay
    from mwz_plugins import get_registry

    registry = get_registry()
    # agenda 2.1.0: a no-offer is heard before a request of the same turn (issue 49, item 4), its sessions changed
    assert registry.simulators["agenda"].version == "2.1.0" and registry.systems["oracle"].version == "2.0.0"
    for module in (agenda, llm, replay, reference, llm_system):  # no second copy to drift
        assert not hasattr(module, "VERSION"), module.__name__
    assert not hasattr(base.SimulatorFactory, "version")
