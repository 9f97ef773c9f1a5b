"""The catalogues as the native review asked (issue 21) and a newcomer noticed (issue 22):
French typography, elision before names, numbers per locale, command mentions, the glossary
of docs/translating.md, and words players share rather than jargon."""

from __future__ import annotations

import io
import re

import pytest
from babel.messages.pofile import read_po

from cogs.i18n.mentions import link_commands
from rules.i18n import Lang, catalogue_path, elide, number, percent, translator
from rules.play import play_hand
from rules.variant import Variant

NAME_KEYS = ("name", "to", "dealer", "by", "turn_of")


def translations(lang: Lang) -> list[tuple[str, str]]:
    """Every (msgid, msgstr) of a catalogue, plural forms each on their own."""
    with catalogue_path(lang).open("rb") as f:
        catalogue = read_po(f)
    pairs = []
    for message in catalogue:
        if not message.id:
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        pairs += [(ids[min(i, len(ids) - 1)], text) for i, text in enumerate(strings)]
    return pairs


def test_no_french_string_has_a_breakable_space_before_high_punctuation() -> None:
    broken = [text for _, text in translations(Lang.FR)
              if re.search(r"[ \t\n][:;!?»]|«[ \t\n]", text)]
    assert not broken, broken[:5]
    spaced = [text for _, text in translations(Lang.FR) if re.search(r"\u202f[:;!?]", text)]
    assert len(spaced) > 50  # the check would be empty if the catalogue lost them all


def test_a_french_sentence_with_a_breakable_space_is_caught() -> None:
    assert re.search(r"[ \t\n][:;!?»]|«[ \t\n]", "Ordre de sortie : {order}")


def test_french_numbers_have_their_thousands_separator() -> None:
    unseparated = [text for _, text in translations(Lang.FR) if re.search(r"\d{4}", text)
                   and "`" not in text]
    assert not unseparated, unseparated
    assert number(3600, Lang.FR) == "3\u202f600"


@pytest.mark.parametrize(("lang", "shown"), [
    (Lang.EN, "12.5%"), (Lang.HU, "12,5%"), (Lang.FR, "12,5\u00a0%")])
def test_percentages_follow_the_readers_locale(lang: Lang, shown: str) -> None:
    assert percent(0.125, lang) == shown
    assert percent(0, lang) == shown.replace("12,5", "0,0").replace("12.5", "0.0")


@pytest.mark.parametrize("lang", [Lang.FR])
def test_every_french_sentence_elides_before_a_name_starting_with_a_vowel(lang: Lang) -> None:
    _ = translator(lang)
    checked = 0
    for _msgid, text in translations(lang):
        keys = [k for k in NAME_KEYS if "{" + k + "}" in text]
        for key in keys:
            if not re.search(r"\b(de|que|le|la) (\*\*)?\{" + key + r"\}", text, re.I):
                continue
            values = dict.fromkeys(re.findall(r"\{(\w+)\}", text), "x")
            values.update({key: "alice"})
            said = elide(text, values).format(**values)
            assert re.search(r"\b(d|qu|l)’(\*\*)?alice", said, re.I), said
            assert not re.search(r"\b(de|que|le|la) (\*\*)?alice", said, re.I), said
            values[key] = "bob"
            assert "alice" not in elide(text, values).format(**values)
            checked += 1
    assert checked >= 4  # "C’est au tour de {name}", "La place de {name}", …
    assert _.gettext("It's {name}'s turn.").format(name="Hélène") == "C’est au tour d’Hélène."
    assert _.gettext("It's {name}'s turn.").format(name="bob") == "C’est au tour de bob."


@pytest.mark.parametrize("lang", [Lang.HU, Lang.FR])
def test_translations_keep_the_commands_they_name_so_they_become_mentions(lang: Lang) -> None:
    named = 0
    for msgid, text in translations(lang):
        commands = sorted(re.findall(r"`/nlk [a-z_]+`", msgid))
        assert sorted(re.findall(r"`/nlk [a-z_]+`", text)) == commands, text
        named += bool(commands)
        if commands:
            linked = link_commands(text, {None: 99}, 1, lang)
            assert "`/nlk" not in linked and "</nlk " in linked
    assert named >= 4


def test_a_command_mention_prefers_the_servers_own_commands() -> None:
    ids = {None: 1, 7: 2}
    assert link_commands("`/nlk end`", ids, 7) == "</nlk end:2>"
    assert link_commands("`/nlk end`", ids, 8) == "</nlk end:1>"
    assert link_commands("`/nlk end`", {}, 8, Lang.HU) == "`/nlk lezárás`"


def test_hungarian_keeps_its_glossary() -> None:
    pairs = translations(Lang.HU)
    # kupac is a player's stack; pakli only ever the deck.
    stacks = [t for m, t in pairs if re.search(r"\bpakli(j|d|m|k\b|ra|ról|t\b)", t)]
    assert not stacks, stacks[:3]
    # végzett for going out; kiszáll only for leaving the table.
    out = [t for m, t in pairs if "kiszáll" in t.lower() and re.search(r"\bout\b", m)]
    assert not out, out
    assert dict(pairs)["Finishing order"] == "Helyezések"
    assert dict(pairs)["out ({place})"] == "végzett ({place})"
    # The address is te: no formal imperatives in prompts.
    formal = [t for m, t in pairs if re.search(r"\b(üsse|vegyen|tegye|tartsa|húzzon)\b", t)]
    assert not formal, formal
    # A line that starts with a number and a dot would be a numbered list on Discord.
    listed = [t for m, t in pairs if re.match(r"\{number\}\. ", t) and "is over" in m]
    assert not listed, listed
    assert not [t for m, t in pairs if re.search(r"\bjog\b|\bjogot\b", t)]


def test_french_keeps_its_glossary() -> None:
    pairs = dict(translations(Lang.FR))
    # The penalty pick-up is "ramasser" ("prendre" is winning a trick); "take a seat" and
    # the typed command 'take' are not it.
    taking = [t for m, t in pairs.items() if re.search(r"\b(take|takes|took)\b(?! a seat)", m)
              and "“take”" not in m and "ramass" not in t]
    assert not taking, taking
    assert not [t for t in pairs.values() if re.search(r"\bpren(d|ez|ons|nent)\b", t)
                and "place" not in t]
    assert pairs["Finishing order"] == "Ordre de sortie"
    assert pairs["(no choice)"] == "(coup forcé)"
    assert "De bas en haut" in pairs["Bottom → top: {cards}"]
    assert not [t for t in pairs.values() if "La table a commencé" in t]


def test_the_terminal_game_says_you_dealt_in_french() -> None:
    for seed in map(str, range(12)):
        out = io.StringIO()
        play_hand(3, 0, "random", seed, None, Variant(), lambda _: "q", out, "fr")
        if "distribué" in out.getvalue() and "Vous" in out.getvalue().split("distribué")[0]:
            assert "Vous a distribué" not in out.getvalue()
            assert "Vous avez distribué." in out.getvalue()
            return
    raise AssertionError("no seed made the player deal")


@pytest.mark.parametrize("lang", list(Lang))
def test_no_jargon_reaches_players(lang: Lang) -> None:
    words = translations(lang) if lang != Lang.EN else [
        (m, m) for m, _ in translations(Lang.HU)]
    jargon = [t for _, t in words if re.search(r"±|μ|σ|Plackett|McLeod|by chance|"
                                               r"trumping always", t)]
    assert not jargon, jargon


def test_a_long_turn_timer_has_its_thousands_separator() -> None:
    from cogs.render import timer_line

    assert timer_line(3600, Lang.FR) == "3\u202f600 s par tour"
    assert timer_line(3600, Lang.EN) == "3,600 s per turn"
