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

    # A no-break space before the unit too (issue 46): "s" never starts a line.
    assert timer_line(3600, Lang.FR) == "3\u202f600\u00a0s par tour"
    assert timer_line(3600, Lang.EN) == "3,600 s per turn"


# --- issue 30: a native re-read ------------------------------------------------------------

@pytest.mark.parametrize("name", ["Ádám", "Ödön", "Őrs", "Íris", "Úna", "Ügyes", "Űrhajós",
                                  "Yves", "ádám", "Olga"])
def test_french_elides_before_accented_capitals_and_y(name: str) -> None:
    """Names from a Hungarian server start with Á, Í, Ó, Ő, Ú, Ű too."""
    said = translator(Lang.FR).gettext("It's {name}'s turn.").format(name=name)
    assert said == f"C’est au tour d’{name}.", said
    bold = elide("En attente de **{name}**.", {"name": name}).format(name=name)
    assert bold == f"En attente d’**{name}**."


@pytest.mark.parametrize("name", ["Béla", "Zsófia", "Ħ", "1er", ""])
def test_french_keeps_de_before_a_consonant(name: str) -> None:
    said = translator(Lang.FR).gettext("It's {name}'s turn.").format(name=name)
    assert said == f"C’est au tour de {name}."


def test_every_french_name_sentence_elides_before_an_ai_seat() -> None:
    """An AI seat is named "IA 1": "C’est au tour d’IA 1", never "de AI 1"."""
    from rules.i18n import shown_name

    name = shown_name("AI 1 (heuristic)", Lang.FR)
    assert name == "IA 1"
    assert translator(Lang.FR).gettext("It's {name}'s turn.").format(name=name) == \
        "C’est au tour d’IA 1."


@pytest.mark.parametrize("lang", [Lang.HU, Lang.FR])
def test_no_straight_quote_in_hungarian_or_french(lang: Lang) -> None:
    """Quotation marks are „…” in Hungarian and « … » in French; an apostrophe is ’."""
    straight = [t for _, t in translations(lang) if "'" in t or '"' in t]
    assert not straight, straight[:3]
    foreign = "“«»" if lang == Lang.HU else "“”„"  # English or the other language's marks
    assert not [t for _, t in translations(lang) if any(mark in t for mark in foreign)]


def test_quotes_of_each_language() -> None:
    from rules.i18n import quote

    assert quote("QQ", Lang.HU) == "„QQ”"
    assert quote("QQ", Lang.FR) == "«\u202fQQ\u202f»"
    assert quote("QQ", Lang.EN) == "“QQ”"


@pytest.mark.parametrize(("lang", "names"), [
    (Lang.EN, ("AI 1", "AI 2 (strong)", "AI 3 (random)")),
    (Lang.HU, ("Gép 1", "Gép 2 (erős)", "Gép 3 (véletlen)")),
    (Lang.FR, ("IA 1", "IA 2 (forte)", "IA 3 (aléatoire)")),
])
def test_ai_seats_are_named_in_the_readers_language(lang: Lang, names: tuple[str, ...]) -> None:
    from rules.i18n import shown_name, stored_ai_name

    stored = [stored_ai_name(1, "heuristic"), stored_ai_name(2, "strong"),
              stored_ai_name(3, "random")]
    assert tuple(shown_name(s, lang) for s in stored) == names
    # A person's name is never touched, even one that looks a little like an AI's.
    for person in ("AI 1", "AI 1 (heuristic) fan", "Éva"):
        assert shown_name(person, lang) == person


def test_hungarian_never_starts_a_line_with_a_place() -> None:
    """ "{place} lettél" would start "1. lettél", a numbered list on Discord."""
    pairs = translations(Lang.HU)
    assert not [t for _, t in pairs if t.startswith("{place}")]
    assert dict(pairs)["You finished {place}."] == "Helyezésed: {place}"


def test_the_review_wording_holds() -> None:
    """A few sentences of issue 30, so that a later edit can't undo them unnoticed."""
    hu, fr = dict(translations(Lang.HU)), dict(translations(Lang.FR))
    assert "Kérj meg egy moderátort" in hu[
        "I can't run a table in this channel: I'm missing {missing}. Ask a moderator to give "
        "me these permissions here."]
    assert (hu["My hand"], hu["My stack"]) == ("Lapjaim", "Kupacom")
    assert hu["{seconds} s per turn"] == "{seconds} mp körönként"
    assert hu["no turn timer"] == "nincs időkorlát"
    assert hu["You can play: {cards}."].startswith("Kijátszható")
    assert not [t for t in hu.values() if re.search(r"lemond|lépésid|bárki, aki|vehetsz el|"
                                                   r"te lépsz", t)]
    assert hu["Card pictures"] == "Lapok megjelenése"  # its value may be "csak szöveg"
    assert (fr["End the table"], fr["Don't end it"]) == ("Fermer la table", "Annuler")
    assert fr["last card may be given away"] == "dernière carte libre"
    assert fr["Fair deal"] == "Mélange vérifiable"
    assert fr["Leave"] == "Quitter"
    assert not [t for t in fr.values() if re.search(r"Vous avez fini|donnable|dont afficher|"
                                                   r"Si les hôtes|Si celui|\(par \{by\}\)", t)]
    timers = [fr[f"{n} minutes"] for n in (2, 3, 5, 10, 30)] + [fr["15 seconds"]]
    assert all(" min" not in t or "minute" in t for t in timers), timers


@pytest.mark.parametrize(("lang", "opening"), [("hu", "„"), ("fr", "«\u202f")])
def test_the_terminal_game_quotes_what_was_typed_in_its_languages_marks(
        lang: str, opening: str) -> None:
    out = io.StringIO()
    answers = iter(["nonsense", "q"])
    play_hand(3, 0, "random", "2", None, Variant(), lambda _: next(answers), out, lang)
    refused = [line for line in out.getvalue().splitlines() if "nonsense" in line]
    assert refused and opening + "nonsense" in refused[0], refused
    assert "'" not in "".join(refused)
    # A seat line: "Vous : 1 carte", with the no-break space before the colon.
    if lang == "fr":
        assert re.search(r"^  \S.*\u202f: ", out.getvalue(), re.M)
        assert "Niveau des IA\u202f: aléatoire" in out.getvalue()
    else:
        assert "A gépi játékosok szintje: véletlen" in out.getvalue()


@pytest.mark.parametrize(("lang", "words"), [
    ("hu_HU.UTF-8", ("használat: ", "kapcsolók:", "ez a súgó", "2–9 játékos", "erős")),
    ("fr_FR.UTF-8", ("utilisation\u202f: ", "options\u202f:", "affiche cette aide",
                     "de 2 à 9 joueurs", "forte"))])
def test_the_terminal_games_help_is_in_the_environments_language(lang, words) -> None:
    import subprocess
    import sys
    from pathlib import Path

    env = {"PATH": "", "LANG": lang, "PYTHONIOENCODING": "utf-8"}
    shown = subprocess.run([sys.executable, "-m", "rules", "play", "--help"],
                           cwd=Path(__file__).resolve().parents[2], env=env,
                           capture_output=True, text=True, check=True).stdout
    assert all(word in shown for word in words), shown
    assert "usage:" not in shown and "show this help" not in shown
