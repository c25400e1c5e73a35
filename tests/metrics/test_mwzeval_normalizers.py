"""The built-in ``mwzeval`` chain against mwzeval's normalize_state_slot_value semantics."""

import pytest

from mwz_plugins import get_registry
from mwz_plugins.mwzeval_normalizers import canonical_time

CHAIN = get_registry().chain("mwzeval")


@pytest.mark.parametrize(
    "slot,value,expected",
    [
        ("name", " Nando's ", "nandos"),
        ("name", "Christs", "christ's college"),
        ("destination", "the junction", "junction theatre"),  # aliases apply whatever the slot's domain
        ("name", "A & B", "a and b"),
        ("type", "guest house", "guesthouse"),
        ("type", "Guest House", "Guest House"),  # mwzeval does not lowercase types
        ("food", " Intalian", "italian"),
        ("arrive", "after 5pm", "17:00"),
        ("leave", "by 0845", "08:45"),
        ("leave", "9:15", "09:15"),
        ("leave", "noon", "12:00"),
        ("leave", "5 p.m.", "17:00"),
        ("time", "", "00:00"),
        ("parking", "free", "yes"),
        ("internet", "no", "no"),
        ("area", "Centre", "Centre"),  # slots without a normalizer pass through
    ],
)
def test_chain(slot, value, expected):
    assert CHAIN("hotel", slot, value) == expected


def test_malformed_pm_time_is_returned_unchanged_not_raised():
    with pytest.raises(ValueError):
        canonical_time("12a:3pm")  # the raw mwzeval logic raises here
    assert CHAIN("train", "leave", "12a:3pm") == "12a:3pm"


def test_dontcare_spellings():
    f = get_registry().normalizers["mwzeval-dontcare"]
    assert [f(None, "area", v) for v in ["don't care", "do n't care", "not mentioned", " dontcare"]] == [
        "dontcare",
        "dontcare",
        "dontcare",
        " dontcare",
    ]
