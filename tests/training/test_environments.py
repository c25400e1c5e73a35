"""The training environments refuse an action their action space does not hold, as Gymnasium's do
(``action_space.contains``): an ``ActionError`` (an ``InputError``, a ``ValueError``) naming the
environment, the action and the space, raised before the episode moves; what the space holds (numpy
indices included) is taken. One environment of each kind for the module, a few steps each."""

from __future__ import annotations

import re

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")

from mwz_metrics.inputs import InputError  # noqa: E402
from mwz_metrics.training import envs  # noqa: E402, F401  (registers the environments)
from mwz_metrics.training.system_envs import ActionError, SystemActsEnv, SystemTextEnv  # noqa: E402
from mwz_metrics.training.user_env import UserEnv  # noqa: E402

SEED = 1
TEXT = "[value_name] is in the [value_area] . their phone number is [value_phone] ."
TEXT_SPACE = r"Text\(0, 4096, charset=printable ASCII and U\+00C0-U\+00FF\)"


@pytest.fixture(scope="module")
def acts_env(synth22_context):
    env = SystemActsEnv(context=synth22_context, goals=3, max_turns=6)
    yield env
    env.close()


@pytest.fixture(scope="module")
def text_env(synth22_context):
    env = SystemTextEnv(context=synth22_context, goals=3, max_turns=6)
    yield env
    env.close()


@pytest.fixture(scope="module")
def user_env(synth22_context):
    env = UserEnv(context=synth22_context, system="oracle", goals=3, max_turns=6)
    yield env
    env.close()


def _goal(env) -> str:
    return env.run.goals[0].dialogue_id


def _after(env, action) -> tuple:
    """The episode of the module's goal and seed after one ``action``: what the step returns, comparable."""
    env.reset(seed=SEED, options={"goal": _goal(env)})
    return _comparable(env.step(action))


def _comparable(result) -> tuple:
    obs, reward, terminated, truncated, info = result
    return (obs.tolist() if isinstance(obs, np.ndarray) else obs), reward, terminated, truncated, info


def _refused_then_same(env, action, message: str, valid) -> None:
    """``action`` is refused with ``message``; the episode is where it was: ``valid`` then plays as it
    does without the refusal."""
    expected = _after(env, valid)
    env.reset(seed=SEED, options={"goal": _goal(env)})
    with pytest.raises(ActionError, match=message) as refused:
        env.step(action)
    assert isinstance(refused.value, InputError) and isinstance(refused.value, ValueError)
    assert _comparable(env.step(valid)) == expected


# -- the act environment: Discrete(300) --------------------------------------------------------------


@pytest.mark.parametrize(
    ("action", "why"),
    [
        (-1, r"not an index 0 to 299"),  # played act set 299
        (300, r"not an index 0 to 299"),  # IndexError
        (True, r"a bool, not an index"),  # Discrete.contains(True) is true
        (False, r"a bool, not an index"),
        (np.bool_(True), r"a bool, not an index"),
        ("12", r"type str, not an integer index"),
        (3.7, r"type float, not an integer index"),
        (np.float64(5.0), r"type float64, not an integer index"),
        (np.array(5.0), r"an array of float64"),
        (np.array([5]), r"an array of shape \(1,\)"),
        (None, r"type NoneType"),
    ],
    ids=repr,
)
def test_act_environment_refuses_what_is_not_an_index(synth22_env, acts_env, action, why):
    space = r"Discrete\(300\)"
    message = rf"^SystemActsEnv\.step: action {re.escape(repr(action))} is not in {space} \({why}"
    _refused_then_same(acts_env, action, message, 5)


def test_act_environment_takes_the_indices_stable_baselines_gives(synth22_env, acts_env):
    """An int, numpy integer scalars and 0-d integer arrays (``model.predict``'s) are the same action;
    the same value as a float or a bool, scalar or array, is not an index."""
    expected = _after(acts_env, 5)
    for action in (np.int64(5), np.int32(5), np.uint8(5), np.array(5), np.array(5, dtype=np.int32)):
        assert _after(acts_env, action) == expected, repr(action)
    for action in (np.float32(5), np.array(5, dtype=np.float32), np.array(1, dtype=bool)):
        with pytest.raises(ActionError, match="not an integer index|an array of float32|an array of bool"):
            _after(acts_env, action)
    assert _after(acts_env, 299) != expected and _after(acts_env, 0) != expected  # the ends of the space


def test_made_environment_refuses_through_gymnasiums_wrappers(synth22_env, synth22_context):
    env = gymnasium.make(envs.ACTS_ID, context=synth22_context, goals=3, max_turns=6)
    env.reset(seed=SEED)
    with pytest.raises(ValueError, match=r"^SystemActsEnv\.step: action -1 is not in Discrete\(300\)"):
        env.step(-1)
    env.step(env.action_space.sample())
    env.close()


# -- the text environments: Text(0, 4096, charset) and the protocol's dict ----------------------------


REFUSED_TEXT = [
    ("x" * 4097, r"4097 characters, over 4096"),
    ("caf\u20ac", r"character '\u20ac' \(U\+20AC\) is not in the charset"),
    ("it\u2019s here", r"character '\u2019' \(U\+2019\)"),
    ("a\x00b", r"character '\\x00' \(U\+0000\)"),
    (5, r"type int, neither text nor the protocol's dict"),
    (None, r"type NoneType"),
    (b"bytes", r"type bytes"),
    (["a list"], r"type list"),
]


@pytest.mark.parametrize(("action", "why"), REFUSED_TEXT, ids=lambda a: repr(a)[:20])
def test_system_text_environment_refuses_text_outside_its_space(synth22_env, text_env, action, why):
    message = rf"^SystemTextEnv\.step: action .* is not in {TEXT_SPACE} \({why}"
    _refused_then_same(text_env, action, message, TEXT)


def test_system_text_environment_takes_its_space_and_the_protocols_dict(synth22_env, text_env):
    """Text of the space (4096 characters, Latin-1 letters, numpy's str) is taken; the dict is the
    protocol's turn, outside the space, checked by the session as ``mwz interact`` checks it: text the
    space refuses goes there."""
    expected = _after(text_env, TEXT)
    assert _after(text_env, np.str_(TEXT)) == expected
    assert _after(text_env, {"response": TEXT}) == expected
    for text in ("x" * 4096, "caf\u00e9 cr\u00e8me", "it\u2019s \u20ac5", "x" * 4097):
        refused = not text_env.action_space.contains(text)
        if refused:
            with pytest.raises(ActionError, match="go(es)? in the protocol's dict"):
                _after(text_env, text)
        _obs, _reward, _terminated, _truncated, info = _after(text_env, {"response": text} if refused else text)
        assert info["history"][-2] == {"speaker": "system", "text": text}, info["history"][-2]


@pytest.mark.parametrize(("action", "why"), REFUSED_TEXT, ids=lambda a: repr(a)[:20])
def test_user_environment_refuses_text_outside_its_space(synth22_env, user_env, action, why):
    """The refused action never reaches the session's thread: the next one is the user's turn."""
    message = rf"^UserEnv\.step: action .* is not in {TEXT_SPACE} \({why}"
    _refused_then_same(user_env, action, message, "i need a cheap hotel in the north")


def test_user_environment_takes_its_space_and_the_dict(synth22_env, user_env):
    """Text of the space is taken, numpy's str too; text outside it is refused as text, taken in the dict."""
    expected = _after(user_env, "i need a cheap hotel in the north")
    assert _after(user_env, {"text": "i need a cheap hotel in the north"}) == expected
    with pytest.raises(ActionError, match="U\\+2019"):
        _after(user_env, "i\u2019d like a cheap hotel")
    _obs, _reward, _terminated, _truncated, info = _after(user_env, {"text": "i\u2019d like a cheap hotel"})
    assert info["system_turn"]["text"]
    assert _after(user_env, np.str_("i need a cheap hotel in the north")) == expected
