"""Where a user turn stands in its dialogue (its moment), and whether a template fits there.

The moments: its first turn (``open``), a turn bringing up a domain not talked about yet
(``intro``), an answer to what the system asked (``answer``), a turn after the system found
nothing or failed to book (``retry``), any other turn (``continue``), the closing thanks and
goodbye (``close``), and the closing after a question of the system (:data:`DECLINE`). The user
templates are filed by the moment their turn stood at; the agenda user asks for one by the moment
its turn stands at.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from mwz_metrics.interactive.acts import Act
from mwz_metrics.interactive.language.lexicon import (
    ASKING,
    BACK_REFERENCES,
    INTENT_WORDS,
    MARKER,
    REPLY_OPENERS,
    RETRY_WORDS,
    YES_NO,
    first_word,
    names_its_domain,
)

# Where a user turn stands in its dialogue: its first turn, a turn bringing up a domain not talked
# about yet, an answer to what the system asked, a turn after the system found nothing or failed to
# book, any other turn, the closing thanks and goodbye.
# The closing after a question of the system ("Anything else?", "Shall I book it?") is a "decline":
# "No, that's all, thanks."
DECLINE = "decline"
MOMENTS = ("open", "intro", "answer", "retry", "continue", "close", DECLINE)
_QUESTIONS = ("request", "reqmore", "offerbook", "select")


def fits_moment(template: str, moment: str, domains: Iterable[str] = ()) -> bool:
    """Whether a user template about ``domains`` can stand at ``moment``: a greeting only opens a session;
    an opening turn neither opens as a reply nor points back at something said before; a turn that
    brings up a domain names it; an answer does not start with "yes"; a closing asks nothing."""
    lowered = MARKER.sub(" ", template).lower()
    domains = [d for d in domains if d not in ("general", "booking")]
    if moment in ("open", "intro") and domains and not names_its_domain(template, domains):
        return False
    greets = re.search(INTENT_WORDS["greet"], lowered.strip()) is not None
    if moment == "open":
        return first_word(template) not in REPLY_OPENERS and not BACK_REFERENCES.search(lowered)
    if moment not in ("retry", "close", DECLINE) and RETRY_WORDS.search(lowered):
        return False  # "how about ... instead" answers a failure
    if moment in ("close", DECLINE) and ("?" in template or ASKING.search(lowered)):
        return False  # a closing asks nothing
    if moment == "answer" and first_word(template) in YES_NO:
        return False  # "yes, cambridge" answers no "where to?"
    return not greets and "nice to meet" not in lowered


def asks(acts: Sequence[Act]) -> bool:
    """Whether system acts ask the user something ("anything else?" too, and an offer to book)."""
    return any(a.intent in _QUESTIONS or (a.domain == "booking" and a.intent == "inform") for a in acts)


def user_moment(index: int, acts: Sequence[Act], system_before: Sequence[Act], seen_domains: set[str]) -> str:
    """Where a user turn of a dialogue stands (:data:`MOMENTS`)."""
    if index == 0:
        return "open"
    domains = {a.domain for a in acts if a.domain not in ("general", "booking")}
    if acts and not domains and all(a.intent in ("thank", "bye") for a in acts):
        return DECLINE if asks(system_before) else "close"
    if any(a.intent in ("nooffer", "nobook") for a in system_before):
        return "retry"
    if domains - seen_domains:
        return "intro"
    asked = {a.slot for a in system_before if a.intent == "request"}
    if any(a.intent == "inform" and a.slot in asked for a in acts):
        return "answer"
    return "continue"
