"""Why a file is not a replay, said whole and in the reader's language (issue 37: the reason
was the reader's English, cut to 32 characters: "bad JSON: Expecting value: line…")."""

from __future__ import annotations

import json

import pytest

from bot.guilds.replays import ReplayReason, ReplayRefused, _first_replay
from cogs.replay.handler import FILE_PROBLEMS, refusal_text
from rules import Game, shuffled_deck
from rules.i18n import Lang, translator
from rules.replay import replay_of


def bad_files() -> dict[str, str]:
    """A hand-made file for every check the reader makes, keyed by the check's name."""
    good = replay_of(Game.from_deck(shuffled_deck(3, "7"), 0, names=("ann", "bob", "cy")
                                    )).to_json()
    position = {k: v for k, v in good.items() if k not in ("deck", "dealer")}
    return {
        "empty": "  \n",
        "json": '{"format": "nlk-replay/1", "players": [\n  "ann" "bob"]}',
        "not_object": "[1, 2]",
        "format": json.dumps({**good, "format": "pgn/1"}),
        "players": json.dumps({**good, "players": ["ann"]}),
        "variant": json.dumps({**good, "variant": {"trumps": "never"}}),
        "position": json.dumps({**position, "position": {"phase": "lunch"}}),
        "start": json.dumps(position),
        "deck": json.dumps({**good, "deck": "AS KS"}),
        "deal": json.dumps({**good, "deck": ["ZZ"]}),
        "actions": json.dumps({**good, "actions": "draw"}),
        "action": json.dumps({**good, "actions": [{"act": "draw"}, {"act": "fly"}]}),
        "seat": json.dumps({**good, "actions": [{"act": "draw", "seat": "first"}]}),
    }


def refused(text: str) -> ReplayRefused:
    with pytest.raises(ReplayRefused) as caught:
        _first_replay(text)
    return caught.value


@pytest.mark.parametrize("why", sorted(bad_files()))
def test_each_broken_file_is_refused_for_its_own_reason(why):
    assert refused(bad_files()[why]).details["why"] == why


def test_numbers_say_where_counted_as_people_count():
    said = refusal_text(refused(bad_files()["json"]), Lang.EN)
    assert said == ("That file is not a replay NLK can open: it is not valid JSON (line 2, "
                    "column 9).")
    said = refusal_text(refused(bad_files()["action"]), Lang.EN)
    assert said.endswith("its action number 2 is not one NLK knows.")  # the second one


@pytest.mark.parametrize("lang", [Lang.HU, Lang.FR])
@pytest.mark.parametrize("why", sorted(bad_files()))
def test_no_english_reason_inside_a_translated_sentence(lang, why):
    reason = refused(bad_files()[why])
    said = refusal_text(reason, lang)
    english = refusal_text(reason, Lang.EN).removeprefix(
        "That file is not a replay NLK can open: ").rstrip(".")
    assert english not in said and "…" not in said, said
    assert translator(lang).gettext(FILE_PROBLEMS[why]) != FILE_PROBLEMS[why]
    # The whole of the reader's own sentence, nothing of the reader's English left in it.
    for words in ("JSON object", "must be", "bad JSON", "unknown format", "Expecting"):
        assert words not in said, said


def test_a_reason_is_never_cut():
    for why, text in bad_files().items():
        for lang in Lang:
            said = refusal_text(refused(text), lang)
            assert said.endswith(".") and "…" not in said, (why, said)


def test_each_refusal_reason_has_its_own_sentence():
    """The reasons are a typed ``ReplayReason``, each with its sentence (issue 45: they were
    strings compared one by one, where a misspelt one fell through to the catch-all)."""
    details = {"number": 3, "table": 7, "limit": 1000, "why": "empty"}
    said = {reason: refusal_text(ReplayRefused(reason, **details), Lang.EN)
            for reason in ReplayReason}
    catch_all = refusal_text(ReplayRefused(ReplayReason.NO_STEP), Lang.EN)
    others = [text for reason, text in said.items() if reason is not ReplayReason.NO_STEP]
    assert len(set(others)) == len(others) and catch_all not in others
    assert "Hand 3 of table 7" in said[ReplayReason.IN_PLAY]
