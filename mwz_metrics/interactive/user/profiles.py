"""User profiles: kinds of user the ``agenda`` simulator plays, each changing one behaviour.

A profile is registered like a simulator (:class:`mwz_plugins.UserProfileEntry`, built-ins in
``mwz_plugins.builtin_interactive``) and named with a version, which the run's signature carries
(``simulator=agenda@2.1.0+terse@1.0.0``). It changes the agenda user through its hooks, called by
:class:`~.agenda.AgendaUser`:

- :meth:`Profile.options`: the agenda's options it overrides (``patience``...);
- :meth:`Profile.begin`: once per session, before the first turn (per-session state lives on the user);
- :meth:`Profile.shape`: the acts of each user turn (not the closing one), before they are said;
- :meth:`Profile.observed`: after the user has read a system turn;
- :meth:`Profile.words`: the words of each turn, after the acts are said (never the acts: the scores
  and the act figures read the acts, which stay what the user meant);
- :meth:`Profile.details`: what the session record keeps of the session's user.

Each built-in profile pushes one behaviour that real MultiWOZ users show to one side;
``mwz simulator realism --profile NAME`` measures it beside the real users' rate (``docs/trials.md``,
"User profiles", gives the rates on the MultiWOZ 2.1 validation and test dialogues). The
``population`` profile (:class:`Population`) is a different user each session, drawn from the
others (and from :class:`Repeating`, a user who asks again for an answer it missed) in shares
that put its rates inside the validation users' 95% intervals.
"""

from __future__ import annotations

import dataclasses
import hashlib
import random
import re
from collections.abc import Mapping
from typing import Any

from mwz_metrics.interactive.acts import Act

# The user the hooks change: an agenda user (mwz_metrics.interactive.user.agenda, which imports this module).
AgendaUser = Any


@dataclasses.dataclass(frozen=True)
class Profile:
    """The default user: no hook changes anything (subclasses override what they change). What a
    profile is, in a line, is said once, in its registry entry's ``description`` (which is read without
    importing this module)."""

    name: str = "default"
    version: str = "1.0.0"

    def options(self) -> Mapping[str, Any]:
        """Agenda options this profile sets (they win over the run's ``--simulator-option``)."""
        return {}

    def begin(self, user: AgendaUser) -> None:
        """Before the first turn of a session."""

    def shape(self, user: AgendaUser, acts: list[Act]) -> list[Act]:
        """The acts of a user turn (not the closing one)."""
        return acts

    def observed(self, user: AgendaUser, acts: list[Act]) -> None:
        """After the user read a system turn (``acts``: what it understood)."""

    def words(self, user: AgendaUser, text: str) -> str:
        """The words of a user turn."""
        return text

    def details(self, user: AgendaUser) -> dict[str, Any]:
        """What the session record keeps of this session's user (nothing by default)."""
        return {}

    def identity(self) -> dict[str, Any]:
        """What the signature names."""
        return {
            "name": self.name,
            "version": self.version,
            **({"options": dict(self.options())} if self.options() else {}),
        }


def _informs(acts: list[Act]) -> list[Act]:
    return [a for a in acts if a.intent == "inform" and a.slot not in ("", "none")]


@dataclasses.dataclass(frozen=True)
class Terse(Profile):
    """One constraint or booking detail a turn: the others wait for the next turns."""

    name: str = "terse"

    def shape(self, user: AgendaUser, acts: list[Act]) -> list[Act]:
        """Keep the first constraint or booking detail; the others stay to be said."""
        first = next(iter(_informs(acts)), None)
        return [a for a in acts if a.intent != "inform" or a.slot in ("", "none") or a is first]


@dataclasses.dataclass(frozen=True)
class Eager(Profile):
    """All of a domain's constraints and requests in the first turn about it."""

    name: str = "eager"

    def shape(self, user: AgendaUser, acts: list[Act]) -> list[Act]:
        """In a domain's first turn: every constraint not said yet, and every request."""
        new = [a.domain for a in acts if a.domain not in user.talk.talked and user.tracker.state(a.domain) is not None]
        if not new:
            return acts
        state = user.tracker.state(new[0])
        assert state is not None
        said = {(a.intent, a.slot) for a in acts if a.domain == state.domain}
        extra = [Act("inform", state.domain, s, state.constraints[s]) for s in user.untold(state)]
        extra += [Act("request", state.domain, s, "?") for s in state.requests if s not in state.answered]
        added = [a for a in extra if (a.intent, a.slot) not in said]
        for act in added:
            if act.intent == "request":
                user.plan.asked[(state.domain, act.slot)] += 1
        kept = [a for a in acts if not (a.domain == state.domain and a.intent == "inform" and a.slot in ("", "none"))]
        return kept + added


# Values a fickle user first asks for instead of the goal's (a slot the database can answer either way).
_ALTERNATIVES = {
    "area": ("centre", "north", "south", "east", "west"),
    "price": ("cheap", "moderate", "expensive"),
    "day": ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"),
    "stars": ("2", "3", "4"),
}


@dataclasses.dataclass(frozen=True)
class Fickle(Profile):
    """First asks for another value of one constraint; once something is offered (or nothing is), changes
    it to the goal's, unprompted, as the goals' ``fail_info`` does when prompted by a no-offer."""

    name: str = "fickle"

    def begin(self, user: AgendaUser) -> None:
        """Ask first for another value of the first constraint that has alternatives."""
        for state in user.tracker.domains:
            for slot, choices in _ALTERNATIVES.items():
                wanted = state.constraints.get(slot, "").lower()
                if wanted and wanted in choices and not state.goal.fail_info:
                    decoy = user.rng.choice([c for c in choices if c != wanted])
                    user.profile_state["fickle"] = (state.domain, slot, state.constraints[slot])
                    user.tracker.change_constraint(state.domain, slot, decoy)
                    return

    def observed(self, user: AgendaUser, acts: list[Act]) -> None:
        """After an offer (or a no-offer) for the other value: change to the goal's."""
        change = user.profile_state.get("fickle")
        if not change:
            return
        domain, slot, wanted = change
        state = user.tracker.state(domain)
        if state is None or slot not in (state.told or ()):
            return
        if state.offered or any(a.intent == "nooffer" for a in acts):
            user.tracker.change_constraint(domain, slot, wanted)  # said again, with the goal's value
            user.profile_state["fickle"] = None


@dataclasses.dataclass(frozen=True)
class Impatient(Profile):
    """Gives a domain up after one unanswered request, one no-offer or one failed booking."""

    name: str = "impatient"

    def options(self) -> Mapping[str, Any]:
        """Patience 1."""
        return {"patience": 1}


# Neighbouring keys of a QWERTY keyboard (a slip hits one).
_ROWS = ("qwertyuiop", "asdfghjkl", "zxcvbnm")
_NEIGHBOURS = {
    key: "".join(
        _ROWS[r2][c2]
        for r2 in range(max(0, r - 1), min(3, r + 2))
        for c2 in range(max(0, c - 1), c + 2)
        if c2 < len(_ROWS[r2]) and (r2, c2) != (r, c)
    )
    for r, row in enumerate(_ROWS)
    for c, key in enumerate(row)
}
# Words a speech recognizer (or a hurried typist) takes for another of the same sound.
_HOMOPHONES = {
    "to": "two",
    "for": "four",
    "there": "their",
    "by": "buy",
    "right": "write",
    "eight": "ate",
    "one": "won",
    "hear": "here",
    "know": "no",
    "see": "sea",
    "would": "wood",
    "wait": "weight",
}
_WORD = re.compile(r"[A-Za-z]+")


def typo(word: str, rng: random.Random) -> str:
    """One slip in a word: two letters swapped, one dropped, doubled, or a neighbouring key hit."""
    if len(word) < 3:
        return word
    i = rng.randrange(1, len(word) - 1)  # the first letter is rarely wrong
    kind = rng.choice(("swap", "drop", "double", "neighbour"))
    if kind == "swap":
        return word[:i] + word[i + 1] + word[i] + word[i + 2 :]
    if kind == "drop":
        return word[:i] + word[i + 1 :]
    if kind == "double":
        return word[: i + 1] + word[i] + word[i + 1 :]
    near = _NEIGHBOURS.get(word[i].lower(), word[i])
    return word[:i] + rng.choice(near) + word[i + 1 :]


# The share of words a noisy user mistypes or mishears: ten times what MultiWOZ 2.1 validation users
# misspell (0.56% of their words are one edit from a corpus word without being one:
# mwz_metrics.interactive.diagnostics.behaviour, ``misspelled_words``; test users: 0.59%).
REAL_MISSPELLED = 0.0056
TYPO_RATE = 10 * REAL_MISSPELLED


@dataclasses.dataclass(frozen=True)
class Noisy(Profile):
    """Typing slips and words taken for others of the same sound, in the words only."""

    name: str = "noisy"
    rate: float = TYPO_RATE

    def identity(self) -> dict[str, Any]:
        """Name, version and the rate of slips per word."""
        return {**super().identity(), "rate": self.rate}

    def begin(self, user: AgendaUser) -> None:
        """The slips' own generator, seeded from the user's (whose draws it leaves alone: the user's acts
        are those of the same session without noise)."""
        state = hashlib.sha256(repr(user.rng.getstate()).encode()).hexdigest()
        user.profile_state["noise"] = random.Random(state)

    def words(self, user: AgendaUser, text: str) -> str:
        """Each word slips with probability ``rate``: a homophone where there is one, else a typo."""
        rng = user.profile_state["noise"]

        def slip(match: re.Match[str]) -> str:
            word = match.group(0)
            if rng.random() >= self.rate:
                return word
            swapped = _HOMOPHONES.get(word.lower())
            return swapped if swapped is not None else typo(word, rng)

        return _WORD.sub(slip, text)


@dataclasses.dataclass(frozen=True)
class Multidomain(Profile):
    """Brings up the next domain in the turn that finishes the current one."""

    name: str = "multidomain"

    def shape(self, user: AgendaUser, acts: list[Act]) -> list[Act]:
        """At the current domain's last steps: the next domain's first constraints too."""
        current = user.tracker.current
        if current is None or not acts or any(a.domain not in (current.domain, "general") for a in acts):
            return acts
        if user.untold(current) or (current.needs_offer and not current.offered):
            return acts  # the current domain is not at its last steps yet
        following = [d for d in user.tracker.domains[user.tracker.index + 1 :] if not d.done]
        if not following or following[0].domain in user.talk.talked:
            return acts
        state = following[0]
        untold = user.untold(state)
        return acts + [Act("inform", state.domain, s, state.constraints[s]) for s in untold[:2]]


DEFAULT = Profile()
TERSE = Terse()
EAGER = Eager()
FICKLE = Fickle()
IMPATIENT = Impatient()
NOISY = Noisy()
MULTIDOMAIN = Multidomain()


@dataclasses.dataclass(frozen=True)
class Repeating(Profile):
    """Asks again, once per domain, for an attribute the system has just given, as if it missed the answer
    ("sorry, what was the phone number?"): in its very next turn, or not at all (after an oracle history,
    a real user who did not ask again). Not registered on its own: a trait of :class:`Population`."""

    name: str = "repeating"

    def observed(self, user: AgendaUser, acts: list[Act]) -> None:
        """An attribute the user asked for once, answered in this system turn: missed (asked again next)."""
        known = user.profile_state.setdefault("repeating", {"answered": {}, "repeated": set(), "missed": None})
        missed = known["missed"]
        if missed is not None and user.plan.asked[missed] < 2:
            user.tracker.recall(*missed)  # the turn after the answer did not ask again: the moment passed
        known["missed"] = None
        for state in user.tracker.domains:
            before = known["answered"].get(state.domain, frozenset())
            known["answered"][state.domain] = frozenset(state.answered)
            if state.domain in known["repeated"] or known["missed"] is not None:
                continue
            fresh = [s for s in state.requests if s not in before and s in state.answered]
            fresh = [s for s in fresh if user.plan.asked[(state.domain, s)] == 1]  # asked once, answered now
            if fresh and user.tracker.forget(state.domain, fresh[0]):
                known["repeated"].add(state.domain)
                known["missed"] = (state.domain, fresh[0])


REPEATING = Repeating()

# The population's traits by name: what each session may draw.
_TRAITS: dict[str, Profile] = {
    "terse": TERSE,
    "eager": EAGER,
    "fickle": FICKLE,
    "multidomain": MULTIDOMAIN,
    "noisy": NOISY,
    "repeating": REPEATING,
}


@dataclasses.dataclass(frozen=True)
class Population(Profile):
    """A different user each session: its behaviours drawn per session (from the session's own generator),
    in shares calibrated so that over many sessions the rates of ``mwz simulator realism`` are the
    MultiWOZ 2.1 validation users' (``mwz simulator realism --profile population`` prints them beside the
    real ones, with the real ones' 95% intervals).

    ``styles``: at most one of them a session (a user is terse or eager, not both), by its share;
    ``traits``: each drawn on its own, by its share. A session plays the profiles it drew, in the order
    listed (a style shapes a turn's acts before multidomain adds the next domain's)."""

    name: str = "population"
    # calibrated on the 1000 test goals with oracle-text (seeds 0-5): each rate's mean over the seeds is within
    # the validation users' 95% interval, near its middle
    styles: tuple[tuple[str, float], ...] = (("terse", 0.3), ("eager", 0.095))
    traits: tuple[tuple[str, float], ...] = (
        ("fickle", 0.145),
        ("multidomain", 0.25),
        ("noisy", 0.5),
        ("repeating", 0.18),
    )

    noise: float = REAL_MISSPELLED  # the slips per word of a noisy session (the noisy profile's: ten times it)

    def identity(self) -> dict[str, Any]:
        """Name, version, the shares it draws by and a noisy session's rate of slips."""
        return {**super().identity(), "styles": dict(self.styles), "traits": dict(self.traits), "noise": self.noise}

    def draw(self, rng: random.Random) -> tuple[str, ...]:
        """One session's behaviours (every share is drawn, so that one does not shift the others)."""
        pick, style = rng.random(), None
        for name, share in self.styles:
            if style is None and pick < share:
                style = name
            pick -= share
        traits = [name for name, share in self.traits if rng.random() < share]
        return tuple([style] if style else []) + tuple(traits)

    def _drawn(self, user: AgendaUser) -> list[Profile]:
        return [Noisy(rate=self.noise) if n == "noisy" else _TRAITS[n] for n in user.profile_state["population"]]

    def begin(self, user: AgendaUser) -> None:
        """Draw this session's behaviours, from a generator of its own seeded from the user's (the session's
        seed), and begin each."""
        state = hashlib.sha256(f"population:{user.rng.getstate()!r}".encode()).hexdigest()
        user.profile_state["population"] = self.draw(random.Random(state))
        for profile in self._drawn(user):
            profile.begin(user)

    def shape(self, user: AgendaUser, acts: list[Act]) -> list[Act]:
        """Each drawn behaviour shapes the turn's acts in turn."""
        for profile in self._drawn(user):
            acts = profile.shape(user, acts)
        return acts

    def observed(self, user: AgendaUser, acts: list[Act]) -> None:
        """Each drawn behaviour reads the system turn."""
        for profile in self._drawn(user):
            profile.observed(user, acts)

    def words(self, user: AgendaUser, text: str) -> str:
        """Each drawn behaviour's words (a noisy user's slips)."""
        for profile in self._drawn(user):
            text = profile.words(user, text)
        return text

    def details(self, user: AgendaUser) -> dict[str, Any]:
        """The behaviours this session drew."""
        return {"population": list(user.profile_state["population"])}


POPULATION = Population()
