"""The user's domain state is a state machine: every transition of its tables, the illegal ones refused,
and each transition driven by the acts that cause it (through the tracker, its only writer)."""

from __future__ import annotations

import pytest

from mwz_metrics.interactive.acts import Act
from mwz_metrics.interactive.goals import DomainGoal, UserGoal
from mwz_metrics.interactive.user.tracker import (
    BOOKING_FAILED,
    NO_VENUE,
    OFFER_MOVES,
    REQUEST_MOVES,
    DomainState,
    GoalTracker,
    Offer,
    Request,
)

RESTAURANT = DomainGoal(
    "restaurant",
    {"food": "indian", "area": "south"},
    fail_info={"food": "catalan", "area": "south"},
    book={"time": "18:00", "day": "monday", "people": "2"},
    fail_book={"time": "17:00"},
    reqt=("phone",),
)
PLAIN = DomainGoal("restaurant", {"food": "indian"}, book={"time": "18:00", "day": "monday", "people": "2"})
NAMED = DomainGoal("hotel", {"name": "acorn guest house"}, reqt=("phone",))
ATTRACTION = DomainGoal("attraction", {"type": "museum"}, reqt=("phone",))


def _tracker(*parts: DomainGoal, **options) -> GoalTracker:
    return GoalTracker(UserGoal("test0001", parts, ("a goal made for the test",)), **options)


# -- the tables: every transition, and every missing one refused -----------------------------------


@pytest.mark.parametrize(
    ("event", "start", "end"), [(e, s, t) for e, moves in OFFER_MOVES.items() for s, t in moves.items()]
)
def test_every_offer_transition_of_the_table(event, start, end):
    state = DomainState(RESTAURANT)
    state._offer = start
    state._move_offer(event)
    assert state.offer is end


@pytest.mark.parametrize(
    ("event", "start", "end"), [(e, s, t) for e, moves in REQUEST_MOVES.items() for s, t in moves.items()]
)
def test_every_request_transition_of_the_table(event, start, end):
    state = DomainState(RESTAURANT)
    state._request = start
    state._move_request(event)
    assert state.request is end


@pytest.mark.parametrize(
    ("table", "event", "start"),
    [("offer", e, s) for e, m in OFFER_MOVES.items() for s in Offer if s not in m]
    + [("request", e, s) for e, m in REQUEST_MOVES.items() for s in Request if s not in m],
)
def test_a_transition_missing_from_the_table_is_a_bug(table, event, start):
    state = DomainState(RESTAURANT)
    setattr(state, f"_{table}", start)
    with pytest.raises(AssertionError, match="bug"):
        getattr(state, f"_move_{table}")(event)
    assert getattr(state, table) is start


def test_a_domain_starts_asked_not_requested_not_booked_not_given_up():
    state = DomainState(RESTAURANT)
    assert (state.offer, state.request, state.booked, state.given_up) == (Offer.ASKED, Request.NOT_REQUESTED, False, "")
    assert dict(state.constraints) == {"food": "catalan", "area": "south"}  # fail_info first
    assert state.missing() == ["offer", "booking", "answer:phone", "answer:name"]


def test_the_simulators_cannot_write_the_state():
    state = DomainState(RESTAURANT)
    for name in ("offered", "booked", "booking_requested", "given_up", "named", "offer", "request"):
        with pytest.raises(AttributeError):
            setattr(state, name, True)


# -- each transition, driven by the acts that cause it ----------------------------------------------

OFFER = [Act("recommend", "restaurant", "name", "pipasha"), Act("inform", "restaurant", "area", "east")]


def _offered(tracker: GoalTracker) -> DomainState:
    tracker.observe_user([Act("inform", "restaurant", "food", "catalan")])
    tracker.observe(OFFER)
    return tracker.state("restaurant")


@pytest.mark.parametrize(
    ("name", "user", "system", "offer"),
    [
        ("offer: the system names a venue", [], OFFER, Offer.OFFERED),
        ("no offer: an attribute alone", [], [Act("inform", "restaurant", "area", "south")], Offer.ASKED),
        ("reconsider: a new constraint", [Act("inform", "restaurant", "area", "south")], [], Offer.RECONFIRMING),
        ("a constraint said again", [Act("inform", "restaurant", "food", "catalan")], [], Offer.OFFERED),
        ("one the offer is known to meet", [Act("inform", "restaurant", "area", "east")], [], Offer.OFFERED),
    ],
)
def test_offer_transitions_from_the_acts(name, user, system, offer):
    tracker = _tracker(RESTAURANT)
    state = _offered(tracker) if name != "no offer: an attribute alone" else tracker.state("restaurant")
    tracker.observe_user(user)
    tracker.observe(system)
    assert state.offer is offer, name


def test_reconfirming_then_confirmed_is_offered_and_the_contradicted_name_is_asked_again():
    tracker = _tracker(RESTAURANT)
    state = _offered(tracker)
    tracker.observe_user([Act("inform", "restaurant", "area", "south")])  # the offer is in the east
    assert state.offer is Offer.RECONFIRMING and "name" not in state.answered
    tracker.observe([Act("inform", "restaurant", "area", "south")])
    assert state.offer is Offer.OFFERED


@pytest.mark.parametrize(("user_named", "offer"), [(True, Offer.OFFERED), (False, Offer.ASKED)])
def test_identify_needs_the_venue_named_by_the_user(user_named, offer):
    tracker = _tracker(NAMED)
    if user_named:
        tracker.observe_user([Act("inform", "hotel", "name", "acorn guest house")])
    tracker.observe([Act("inform", "hotel", "phone", "01223353888")])
    state = tracker.state("hotel")
    assert (state.named, state.offer) == (user_named, offer)


def test_identify_from_asked_without_a_name_is_a_bug():
    state = DomainState(RESTAURANT)
    with pytest.raises(AssertionError, match="no venue named"):
        state._identify()


def test_search_again_on_a_no_offer_switches_to_the_final_constraints():
    tracker = _tracker(RESTAURANT, track_told=True)
    state = _offered(tracker)
    switched = tracker.observe([Act("nooffer", "restaurant", "food", "catalan")])
    assert switched == {"info:restaurant": ["food"]}
    assert state.offer is Offer.ASKED and dict(state.constraints) == {"food": "indian", "area": "south"}
    assert state.told == set()  # the changed constraint is to be said again


@pytest.mark.parametrize(("patience", "given_up"), [(None, ""), (1, ""), (2, NO_VENUE)])
def test_no_offers_with_no_alternative_are_counted_and_give_up_past_patience(patience, given_up):
    tracker = _tracker(PLAIN, patience=patience)
    for _ in range(2):
        tracker.observe([Act("nooffer", "restaurant")])
    state = tracker.state("restaurant")
    assert state.given_up == (given_up or (NO_VENUE if patience == 1 else ""))
    tracker.observe(OFFER)  # an offer: the count starts again
    assert state.offer is Offer.OFFERED and state._no_offers == 0


@pytest.mark.parametrize(
    ("acts", "wanted"),
    [
        ([Act("request", "restaurant", "ref", "?")], Request.REQUESTED),
        ([Act("inform", "restaurant", s, v) for s, v in PLAIN.book.items()], Request.REQUESTED),
        ([Act("inform", "restaurant", "time", "18:00")], Request.NOT_REQUESTED),
    ],
)
def test_request_from_the_users_acts(acts, wanted):
    tracker = _tracker(PLAIN)
    tracker.observe_user(acts)
    assert tracker.state("restaurant").request is wanted
    assert tracker.booked_domains() == (("restaurant",) if wanted is Request.REQUESTED else ())


def test_a_goal_that_books_nothing_requests_no_booking():
    tracker = _tracker(ATTRACTION)
    tracker.observe_user([Act("request", "attraction", "ref", "?")])
    assert tracker.state("attraction").request is Request.NOT_REQUESTED


def test_booking_requested_from_the_start_for_a_user_without_acts():
    tracker = _tracker(PLAIN, ATTRACTION, booking_requested=True)
    assert [d.request for d in tracker.domains] == [Request.REQUESTED, Request.NOT_REQUESTED]


def _requested(goal: DomainGoal, **options) -> GoalTracker:
    tracker = _tracker(goal, **options)
    tracker.observe_user([Act("inform", "restaurant", "food", goal.first_info["food"])])
    tracker.observe(OFFER)
    tracker.observe_user([Act("inform", "restaurant", s, v) for s, v in goal.first_book.items()])
    return tracker


def test_booked_by_a_booking_act():
    tracker = _requested(PLAIN, require_details=True)
    tracker.observe([Act("book", "booking", "ref", "X1Y2Z3")])
    state = tracker.state("restaurant")
    assert state.booked and state.offered and "ref" in state.answered


def test_a_booking_with_other_details_than_requested_is_not_the_goals():
    tracker = _requested(PLAIN, require_details=True)
    tracker.observe([Act("book", "booking", "ref", "X1Y2Z3"), Act("book", "booking", "time", "20:00")])
    assert not tracker.state("restaurant").booked


def test_new_details_on_a_failed_booking_switch_to_the_final_ones():
    tracker = _requested(RESTAURANT)
    switched = tracker.observe([Act("nobook", "booking")])
    state = tracker.state("restaurant")
    assert switched == {"book:restaurant": ["time"]} and dict(state.book)["time"] == "18:00"
    assert state.request is Request.NOT_REQUESTED and state.book_told == {"day", "people"}


@pytest.mark.parametrize(("patience", "given_up"), [(None, ""), (2, ""), (1, BOOKING_FAILED)])
def test_a_failed_booking_with_no_alternative_is_counted_asked_again_and_given_up_past_patience(patience, given_up):
    tracker = _requested(PLAIN, patience=patience)
    tracker.observe([Act("nobook", "booking")])
    state = tracker.state("restaurant")
    assert state.request is Request.NOT_REQUESTED and state._no_bookings == 1 and state.given_up == given_up
    tracker.observe([Act("nobook", "booking")])  # not asked again: not counted again
    assert state._no_bookings == 1


def test_give_up_and_fill_constraint_go_through_the_tracker():
    taxi = DomainGoal("taxi", {"leaveAt": "10:00"})
    tracker = _tracker(PLAIN, taxi, track_told=True)
    tracker.fill_constraint("taxi", "dest", "the restaurant")
    tracker.fill_constraint("taxi", "leave", "11:00")  # the goal's own value stays
    assert dict(tracker.state("taxi").constraints) == {"leave": "10:00", "dest": "the restaurant"}
    tracker.give_up("restaurant", "not given: phone")
    assert tracker.state("restaurant").given_up == "not given: phone" and tracker.current.domain == "taxi"
    assert tracker.outcomes()["restaurant"]["given_up"] == "not given: phone"
