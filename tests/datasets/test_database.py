"""VenueDatabase: mwzeval's query semantics, fuzzy parity, pinned vs mwzeval's db copy."""

from __future__ import annotations

import json
import random

import pytest
from conftest import FIXTURES, shared_path
from rapidfuzz.distance import Indel, Levenshtein

from mwz_datasets.database import DOMAINS, FUZZY_COLUMNS, VenueDatabase, column_name, time_to_minutes
from mwz_datasets.fuzzy import partial_ratio, partial_ratio_reaches

try:
    from fuzzywuzzy import fuzz as fuzzywuzzy
except ImportError:  # a dev-only check: not a dependency
    fuzzywuzzy = None


def identity(domain, slot, value):
    return value


TINY = {
    "restaurant": [
        {
            "id": "1",
            "name": "pizza hut city centre",
            "food": "italian",
            "area": "centre",
            "location": [0, 0],
            "introduction": "x",
            "price range": "cheap",
        },
        {
            "id": "2",
            "name": "the golden curry",
            "food": "indian",
            "area": "?",
            "location": [0, 0],
            "signature": "y",
            "price range": "expensive",
        },
        {
            "id": "3",
            "name": "curry garden",
            "food": "indian",
            "area": "north",
            "location": [0, 0],
            "price range": "cheap",
        },
    ],
    "train": [
        {
            "trainID": "TR1",
            "departure": "cambridge",
            "destination": "ely",
            "day": "monday",
            "leaveAt": "05:00",
            "arriveBy": "05:30",
        },
        {
            "trainID": "TR2",
            "departure": "cambridge",
            "destination": "ely",
            "day": "monday",
            "leaveAt": "09:00",
            "arriveBy": "09:30",
        },
        {
            "trainID": "TR3",
            "departure": "ely",
            "destination": "cambridge",
            "day": "monday",
            "leaveAt": "11:00",
            "arriveBy": "?",
        },
    ],
    "attraction": [
        {
            "id": "7",
            "name": "cherry hinton village centre",
            "type": "mutliple sports",
            "openhours": "?",
            "location": [0, 0],
            "entrance fee": "?",
        },
    ],
}


@pytest.fixture()
def tiny():
    return VenueDatabase(TINY, normalize=identity)


# -- query semantics on a hand-written table ------------------------------------


def test_columns_renamed_and_ignored(tiny):
    assert tiny.columns("restaurant") == {"id", "name", "food", "area", "pricerange"}
    assert tiny.columns("train") == {"trainid", "departure", "destination", "day", "leave", "arrive"}
    assert tiny.columns("attraction") == {"id", "name", "type", "entrancefee"}
    assert column_name("arriveBy") == "arrive" and column_name("leave At") == "leave" and column_name("id") == "id"


def test_exact_fuzzy_wildcard_and_order(tiny):
    assert tiny.query("restaurant", {}) == ["1", "2", "3"]
    assert tiny.query("restaurant", {"food": "indian"}) == ["2", "3"]
    assert tiny.query("restaurant", {"pricerange": "cheap"}) == ["1", "3"]
    # '?' in the database matches anything
    assert tiny.query("restaurant", {"area": "north"}) == ["2", "3"]
    # fuzzy name: partial ratio >= 90
    assert tiny.query("restaurant", {"name": "golden curry"}) == ["2"]
    assert tiny.query("restaurant", {"name": "curry"}) == ["2", "3"]
    assert tiny.query("restaurant", {"pricerange": "chea"}) == []  # exact elsewhere


def test_dontcare_and_unknown_slots_skipped(tiny):
    for dontcare in ("dontcare", "not mentioned", "don't care", "dont care", "do n't care", "do not care"):
        assert tiny.query("restaurant", {"food": dontcare, "area": "centre"}) == ["1", "2"]
    assert tiny.query("restaurant", {"people": "4", "time": "nonsense"}) == ["1", "2", "3"]
    assert tiny.query("taxi", {"departure": "x"}) == []
    assert tiny.query("police", {}) == []


def test_times(tiny):
    assert tiny.query("train", {"leave": "09:00"}) == ["TR2", "TR3"]
    assert tiny.query("train", {"leave": "09:01"}) == ["TR3"]
    assert tiny.query("train", {"arrive": "09:30"}) == ["TR1", "TR2", "TR3"]  # TR3 arrives '?'
    assert tiny.query("train", {"arrive": "09:29"}) == ["TR1", "TR3"]
    # not HH:MM: 0 minutes (mwzeval's time_str_to_minutes)
    assert tiny.query("train", {"arrive": "soon"}) == ["TR3"]
    assert tiny.query("train", {"leave": "soon", "departure": "cambridge", "destination": "ely"}) == ["TR1", "TR2"]
    assert time_to_minutes("12:30") == 750 and time_to_minutes("7:30") == 0 and time_to_minutes("12:30:15") == 750


def test_normalizer_called_with_domain_slot_value():
    calls = []

    def normalize(domain, slot, value):
        calls.append((domain, slot, value))
        return value.replace("guest house", "guesthouse")

    db = VenueDatabase({"hotel": [{"id": "0", "type": "guesthouse", "name": "a"}]}, normalize=normalize)
    assert db.query("hotel", {"type": "guest house"}) == ["0"]
    assert db.query("hotel", {"type": "dontcare"}) == ["0"]  # skipped before normalization
    assert calls == [("hotel", "type", "guest house")]


def test_results_are_fresh_lists_and_inputs_untouched(tiny):
    constraints = {"food": "indian"}
    first = tiny.query("restaurant", constraints)
    first.append("junk")
    assert tiny.query("restaurant", constraints) == ["2", "3"]
    assert constraints == {"food": "indian"}
    assert TINY["train"][0]["leaveAt"] == "05:00"


def test_errata(tiny):
    assert tiny.query("attraction", {"type": "multiple sports"}) == ["7"]
    assert tiny.signature["errata"]["cells_patched"] == 1
    raw = VenueDatabase(TINY, normalize=identity, errata=False)
    assert raw.query("attraction", {"type": "multiple sports"}) == []


def test_default_normalizer_is_mwzeval_chain():
    db = VenueDatabase(TINY)
    assert db.signature["normalizer"]["chain"] == "mwzeval"
    assert db.query("restaurant", {"food": "Indian "}) == ["2", "3"]
    assert db.query("train", {"leave": "9am", "departure": "cambridge"}) == ["TR2"]


# -- fuzzywuzzy-compatible partial_ratio ----------------------------------------


def rule_partial_ratio(s1: str, s2: str) -> int:
    """The rule fuzzywuzzy 0.18 + python-Levenshtein follows, written independently."""
    if s1 == s2:
        return 100
    if not s1 or not s2:
        return 0
    shorter, longer = (s1, s2) if len(s1) <= len(s2) else (s2, s1)
    scores = []
    for src, dst, _ in Levenshtein.editops(shorter, longer).as_matching_blocks():
        start = max(0, dst - src)
        window = longer[start : start + len(shorter)]
        total = len(shorter) + len(window)
        scores.append((total - Indel.distance(shorter, window)) / total)
    best = max(scores)
    return 100 if best > 0.995 else int(round(100 * best))


def reference_partial_ratio(s1: str, s2: str) -> int:
    return fuzzywuzzy.partial_ratio(s1, s2) if fuzzywuzzy else rule_partial_ratio(s1, s2)


def test_partial_ratio_random_strings():
    rng = random.Random(7)
    for _ in range(3000):
        a = "".join(rng.choice("ab c") for _ in range(rng.randint(0, 9)))
        b = "".join(rng.choice("ab c") for _ in range(rng.randint(0, 12)))
        expected = reference_partial_ratio(a, b)
        assert partial_ratio(a, b) == expected, (a, b)
        for threshold in (50, 67, 90):
            assert partial_ratio_reaches(a, b, threshold) == (expected >= threshold), (a, b, threshold)


def test_partial_ratio_edge_pairs():
    """Real pairs where rapidfuzz (or an old python-Levenshtein) decides differently."""
    pairs = json.loads((FIXTURES / "fuzzy_edge_pairs.json").read_text())["pairs"]
    assert pairs
    for pair in pairs:
        assert partial_ratio(pair["db"], pair["query"]) == pair["fuzzywuzzy"], pair
        assert rule_partial_ratio(pair["db"], pair["query"]) == pair["fuzzywuzzy"], pair
        if fuzzywuzzy:
            assert fuzzywuzzy.partial_ratio(pair["db"], pair["query"]) == pair["fuzzywuzzy"], pair


# -- shared data ------------------------------------------------------------------


def mwzeval_state(state: dict) -> dict:
    """mwzeval's normalize_data on one turn's state (slot names and values)."""
    from mwz_plugins import get_registry

    normalize = get_registry().chain("mwzeval")
    return {
        domain: {column_name(slot): normalize(None, column_name(slot), value) for slot, value in slots.items()}
        for domain, slots in state.items()
    }


@pytest.fixture(scope="module")
def real_queries():
    """Every (domain, constraints) mwzeval's Inform/Success can query on the shared data."""
    goals = json.loads(shared_path("parity", "mwzeval", "goals_test.json").read_text())
    queries = {(d, json.dumps(g["informable"], sort_keys=True)) for goal in goals.values() for d, g in goal.items()}
    goal_queries = len(queries)
    for path in sorted(shared_path("data", "mwzeval", "predictions").glob("*.json")):
        for dialogue in json.loads(path.read_text()).values():
            for turn in dialogue:
                for domain, slots in mwzeval_state(turn.get("state", {})).items():
                    if domain in DOMAINS:
                        queries.add((domain, json.dumps(slots, sort_keys=True)))
    assert len(queries) > goal_queries > 1000
    return [(d, json.loads(c)) for d, c in sorted(queries)]


@pytest.fixture(scope="module")
def pinned(mirror):
    import os

    old = os.environ.get("MWZ_MIRROR")
    os.environ["MWZ_MIRROR"] = str(mirror)
    try:
        return VenueDatabase.from_pinned()
    finally:
        if old is None:
            del os.environ["MWZ_MIRROR"]
        else:
            os.environ["MWZ_MIRROR"] = old


def test_pinned_signature(pinned):
    assert set(pinned.signature["sources"]) == set(DOMAINS)
    assert all(s["pinned"] for s in pinned.signature["sources"].values())
    assert pinned.signature["errata"] == {"applied": True, "cells_patched": 1}


def test_pinned_with_errata_equals_mwzeval_copy(pinned, real_queries):
    folder = shared_path("data", "mwzeval", "database")
    mwzeval_copy = VenueDatabase.from_paths({d: folder / f"{d}_db.json" for d in DOMAINS}, errata=False)
    assert mwzeval_copy.signature["errata"]["cells_patched"] == 0
    for domain in DOMAINS:
        assert pinned.tables[domain].columns == mwzeval_copy.tables[domain].columns, domain
    for domain, constraints in real_queries:
        assert pinned.query(domain, constraints) == mwzeval_copy.query(domain, constraints)


def test_errata_changes_real_queries(pinned, real_queries, mirror):
    raw = VenueDatabase.from_paths(
        {d: mirror / "budzianowski" / "multiwoz" / "db" / f"{d}_db.json" for d in DOMAINS}, errata=False
    )
    changed = [(d, c) for d, c in real_queries if raw.query(d, c) != pinned.query(d, c)]
    assert changed and all(d == "attraction" and c.get("type") == "multiple sports" for d, c in changed)


def naive_query(db: VenueDatabase, rows: list[dict], domain: str, constraints: dict) -> list[str]:
    """mwzeval's row-by-row loop, written independently, on the mwzeval copy's rows."""
    from mwz_datasets.database import DONTCARE_VALUES, IGNORED_COLUMNS

    table = [{column_name(k): v for k, v in row.items() if k not in IGNORED_COLUMNS.get(domain, ())} for row in rows]
    wanted = {}
    for slot in table[0]:
        if slot in constraints and constraints[slot] not in DONTCARE_VALUES:
            wanted[slot] = db.normalize(domain, slot, constraints[slot])
    found = []
    for row in table:
        ok = True
        for slot, value in wanted.items():
            cell = row[slot]
            if cell == "?":
                continue
            if slot == "arrive":
                ok = time_to_minutes(cell) <= time_to_minutes(value)
            elif slot == "leave":
                ok = time_to_minutes(cell) >= time_to_minutes(value)
            elif slot in FUZZY_COLUMNS[domain]:
                ok = reference_partial_ratio(cell, value) >= 90
            else:
                ok = cell == value
            if not ok:
                break
        if ok:
            found.append(row["trainid" if domain == "train" else "id"])
    return found


def test_queries_match_naive_reference(pinned, real_queries):
    folder = shared_path("data", "mwzeval", "database")
    rows = {d: json.loads((folder / f"{d}_db.json").read_text()) for d in DOMAINS}
    rng = random.Random(0)
    sample = rng.sample(real_queries, 300)
    sample += [q for q in real_queries if q[0] == "attraction" and q[1].get("type") == "multiple sports"]
    for domain, constraints in sample:
        expected = naive_query(pinned, rows[domain], domain, constraints) if domain in rows else []
        assert pinned.query(domain, constraints) == expected, (domain, constraints)


def test_fuzzy_decisions_on_all_real_pairs(pinned, real_queries):
    """Every (db value, query value) pair real evaluation scores: same >= 90 decisions."""
    pairs = set()
    for domain, constraints in real_queries:
        if domain not in pinned.tables:
            continue
        table = pinned.tables[domain]
        for slot in table.fuzzy & constraints.keys():
            value = pinned.normalize(domain, slot, constraints[slot])
            pairs.update((cell, value) for cell in table.index[slot] if cell != "?")
    assert len(pairs) > 40000
    disagreements = [p for p in pairs if partial_ratio_reaches(*p, 90) != (reference_partial_ratio(*p) >= 90)]
    assert disagreements == []
