"""The templates' English heuristics and moments, table by table (no corpus needed): what kind of value an
act has, what a sentence says, which domains a template names, and where a user turn stands and fits."""

from __future__ import annotations

import pytest

from mwz_metrics.interactive.acts import Act
from mwz_metrics.interactive.language import lexicon, moments

A = Act


@pytest.mark.parametrize(
    ("act", "kind"),
    [
        (A("inform", "hotel", "area", "south"), "value"),
        (A("inform", "hotel", "area", "dontcare"), "dontcare"),
        (A("inform", "hotel", "area", "do n't care"), "dontcare"),
        (A("inform", "hotel", "area", "any"), "dontcare"),
        (A("request", "hotel", "phone", "?"), "none"),
        (A("inform", "hotel", "none", "none"), "none"),
        (A("inform", "hotel", "parking", "yes"), "none"),  # 2.1's "free parking": the word says it
        (A("inform", "hotel", "parking", "free"), "none"),
        (A("inform", "hotel", "internet", "no"), "value"),
    ],
)
def test_value_kind(act, kind):
    assert lexicon.value_kind(act) == kind


@pytest.mark.parametrize(
    ("sentence", "acts", "says"),
    [
        ("Thanks so much.", [A("thank", "general")], True),
        ("That's all I need.", [A("thank", "general")], True),
        ("Great.", [A("inform", "hotel", "area", "north")], lexicon.ACK),
        ("Can you help me?", [A("inform", "hotel", "area", "north")], lexicon.ACK),
        ("What is their phone number?", [A("request", "restaurant", "phone", "?")], True),
        ("What is their phone number?", [A("request", "restaurant", "post", "?")], False),
        ("I don't care about the area.", [A("inform", "hotel", "area", "dontcare")], True),
        ("It should have free wifi.", [A("inform", "hotel", "internet", "yes")], True),
        ("I am looking for a hotel.", [A("inform", "hotel", "stars", "4")], True),
        ("It will be just me.", [A("inform", "restaurant", "people", "1")], True),
        ("It's just for me.", [A("inform", "restaurant", "people", "1")], False),  # the lexicon's limit
        ("The weather is lovely today.", [A("request", "restaurant", "phone", "?")], False),
    ],
)
def test_what_a_user_sentence_says(sentence, acts, says):
    assert lexicon.sentence_says(sentence, acts) == says


@pytest.mark.parametrize(
    ("sentence", "acts", "says"),
    [
        ("Sorry, there is nothing like that.", [A("nooffer", "hotel")], True),
        ("Is there anything else I can help with?", [A("reqmore", "general")], True),
        ("Certainly.", [A("book", "booking", "ref", "X")], lexicon.ACK),
        ("Your taxi is booked.", [A("inform", "taxi", "car", "red bmw")], True),
        ("Their phone number is on the website.", [A("inform", "hotel", "phone", "0122")], True),
        ("The weather is lovely.", [A("book", "booking", "ref", "X")], False),
    ],
)
def test_what_a_system_sentence_says(sentence, acts, says):
    assert lexicon.system_sentence_says(sentence, acts) == says


@pytest.mark.parametrize(
    ("template", "domains"),
    [
        ("I need a [hotel-area] hotel and a train.", {"hotel", "train"}),
        ("A table for [restaurant-people] please.", {"restaurant"}),
        ("Somewhere in the [attraction-area].", set()),
        ("The [hotel-name] guest house.", {"hotel"}),
    ],
)
def test_named_domains(template, domains):
    assert lexicon.named_domains(template) == domains


@pytest.mark.parametrize(
    ("template", "acts", "unasked"),
    [
        ("Can I get the contact number and car type?", [A("request", "taxi", "car", "?")], True),
        ("Can I get the contact number and car type?", [A("request", "taxi", s, "?") for s in ("car", "phone")], False),
        ("What is the address?", [A("request", "hotel", "addr", "?")], False),
    ],
)
def test_a_template_asking_what_its_acts_do_not(template, acts, unasked):
    assert lexicon.asks_unasked(template, acts) is unasked


@pytest.mark.parametrize(
    ("template", "acts", "system", "only"),
    [
        ("Thanks, can I have their number?", [A("thank", "general")], False, False),
        ("Thank you, goodbye.", [A("thank", "general"), A("bye", "general")], False, True),
        ("Sure, I can!", [A("bye", "general")], False, False),  # an acknowledgement alone says nothing
        ("I need a hotel in the [hotel-area].", [A("inform", "hotel", "area", "north")], False, True),
        ("[value_name] is nice. Anything else?", [A("recommend", "hotel", "name", "x")], True, True),
    ],
)
def test_a_template_says_only_its_acts(template, acts, system, only):
    assert lexicon.says_only_its_acts(template, acts, system=system) is only


@pytest.mark.parametrize(
    ("template", "domains", "names"),
    [
        ("I need a place to stay.", ["hotel"], True),
        ("Some [attraction-type] in the centre.", ["attraction"], True),
        ("Somewhere in the [hotel-area].", ["hotel"], False),
        ("I also need a cab.", ["taxi"], True),
    ],
)
def test_names_its_domain(template, domains, names):
    assert lexicon.names_its_domain(template, domains) is names


@pytest.mark.parametrize(
    ("template", "moment", "domains", "fits"),
    [
        ("Hi, I need a [hotel-area] hotel.", "open", ["hotel"], True),
        ("Hi, I need a [hotel-area] hotel.", "continue", ["hotel"], False),  # a greeting only opens
        ("Yes, I also need a hotel.", "open", ["hotel"], False),  # an opening is no reply
        ("I need one in the [hotel-area].", "intro", ["hotel"], False),  # bringing up a domain names it
        ("I need a hotel in the [hotel-area].", "intro", ["hotel"], True),
        ("How about [restaurant-food] food instead?", "continue", ["restaurant"], False),
        ("How about [restaurant-food] food instead?", "retry", ["restaurant"], True),
        ("Can I have the address? Thanks.", "close", [], False),  # a closing asks nothing
        ("No, that's all, thanks.", moments.DECLINE, [], True),
        ("Yes, [train-dest].", "answer", ["train"], False),
        ("[train-dest], please.", "answer", ["train"], True),
        ("Nice to meet you.", "continue", [], False),
    ],
)
def test_fits_moment(template, moment, domains, fits):
    assert moments.fits_moment(template, moment, domains) is fits


@pytest.mark.parametrize(
    ("acts", "asks"),
    [
        ([A("request", "hotel", "area", "?")], True),
        ([A("reqmore", "general")], True),
        ([A("inform", "booking", "none", "none")], True),  # "shall I book it?"
        ([A("offerbook", "train")], True),
        ([A("inform", "hotel", "name", "acorn")], False),
        ([], False),
    ],
)
def test_asks(acts, asks):
    assert moments.asks(acts) is asks


BYE = [A("thank", "general"), A("bye", "general")]


@pytest.mark.parametrize(
    ("index", "acts", "before", "seen", "moment"),
    [
        (0, [A("inform", "hotel", "area", "north")], [], set(), "open"),
        (3, BYE, [A("reqmore", "general")], {"hotel"}, moments.DECLINE),
        (3, BYE, [A("inform", "hotel", "phone", "0122")], {"hotel"}, "close"),
        (2, [A("inform", "hotel", "area", "south")], [A("nooffer", "hotel")], {"hotel"}, "retry"),
        (2, [A("inform", "train", "dest", "ely")], [A("reqmore", "general")], {"hotel"}, "intro"),
        (2, [A("inform", "hotel", "area", "south")], [A("request", "hotel", "area", "?")], {"hotel"}, "answer"),
        (2, [A("request", "hotel", "phone", "?")], [A("inform", "hotel", "name", "x")], {"hotel"}, "continue"),
    ],
)
def test_user_moment(index, acts, before, seen, moment):
    assert moments.user_moment(index, acts, before, seen) == moment
    assert moment in moments.MOMENTS


# -- the banks shared by -j worker threads ----------------------------------------------------------


def test_eight_workers_on_cold_banks_write_the_same_session_files_twice(synth22_env, tmp_path):
    """The banks' memos (and the context's lazily built banks and reader) are filled by the worker threads
    of the run: two runs of -j 8, each on a fresh context, write the same sessions (in completion order,
    hence compared sorted; the -j 1 run too)."""
    from mwz_metrics.interactive.harness import api
    from mwz_metrics.interactive.harness.context import InteractiveContext

    files = []
    for attempt, jobs in enumerate((8, 8, 1)):
        run = api.prepare("oracle-text", goals=40, context=InteractiveContext())
        out = tmp_path / f"sessions{attempt}.jsonl"
        api.run_sessions(run, output=out, jobs=jobs)
        header, *sessions = out.read_text().splitlines()
        files.append((header, sorted(sessions)))
    assert len(files[0][1]) == 40
    assert files[0] == files[1] == files[2]
