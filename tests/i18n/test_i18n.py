"""The catalogues: complete, faithful to the English placeholders, compiled as committed, and
the commands' localised names within Discord's rules."""

from __future__ import annotations

import ast
import gettext
import io
import re
import string
import subprocess
import sys
from pathlib import Path

import pytest
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po
from discord import Locale
from discord.app_commands import TranslationContextLocation as Where

from cogs.i18n.translator import NLKTranslator, lang_of, server_language, translate_command_text
from rules import Card
from rules.i18n import (
    LOCALES,
    Lang,
    card_text,
    catalogue_path,
    from_environment,
    normalise,
    translator,
)
from rules.play import play_hand
from rules.variant import Variant

ROOT = Path(__file__).resolve().parents[2]
POT = LOCALES / "nlk.pot"
TRANSLATED = (Lang.HU, Lang.FR)
NAME = re.compile(r"^[-_\w]{1,32}$")  # \w: letters and digits of any script, and "_"


def catalogue(path: Path):
    with path.open("rb") as f:
        return read_po(f)


def fields(text: str) -> list[str]:
    return sorted(name for _, name, _, _ in string.Formatter().parse(text) if name is not None)


def _key(message) -> tuple[str | None, tuple[str, ...]]:
    context = message.context
    if isinstance(context, bytes):  # read_mo leaves contexts undecoded
        context = context.decode("utf-8")
    return context, tuple(ids(message))


def _text(value: object) -> tuple[str, ...]:
    return tuple(value) if isinstance(value, list | tuple) else (str(value),)


def ids(message) -> tuple[str, ...]:
    return tuple(message.id) if isinstance(message.id, list | tuple) else (message.id,)


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_english_message_is_translated_with_the_same_placeholders(lang: Lang) -> None:
    template = {(m.context, m.id): m for m in catalogue(POT) if m.id}
    po = {(m.context, m.id): m for m in catalogue(catalogue_path(lang)) if m.id}
    assert template, "the template is empty"
    missing = sorted(str(k) for k in template if k not in po or not all(
        isinstance(s, str) and s for s in (po[k].string if isinstance(po[k].string, tuple)
                                           else (po[k].string,))))
    assert not missing, f"{lang}: untranslated {missing[:5]} ({len(missing)})"
    for key, message in po.items():
        assert "fuzzy" not in message.flags, key
        english = fields(ids(message)[-1])
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        for text in strings:
            assert fields(text) == english, f"{lang}: {key}: {text!r}"


@pytest.mark.parametrize("lang", TRANSLATED)
def test_compiled_catalogues_match_their_sources(lang: Lang) -> None:
    with catalogue_path(lang, ".mo").open("rb") as f:
        compiled = {_key(m): _text(m.string) for m in read_mo(f) if m.id}
    source = {_key(m): _text(m.string) for m in catalogue(catalogue_path(lang)) if m.id}
    assert compiled == source, "run: pybabel compile -d rules/locales -D nlk"


def test_the_template_holds_every_message_of_the_source(tmp_path: Path) -> None:
    """The committed .pot is what extraction gives now (docs/translating.md)."""
    out = subprocess.run(
        [sys.executable, "-c", "import sys; from babel.messages.frontend import main; "
         "sys.argv[0] = 'pybabel'; main()", "extract", "-F", "babel.cfg",
         "-k", "N_", "-k", "NP_:1,2", "-k", "NC_:1c,2", "-k", "n_:1,2", "-k", "L_",
         "--no-location",
         "--sort-output", "-o", str(tmp_path / "nlk.pot"), "."],
        cwd=ROOT, capture_output=True, check=True)
    assert out.returncode == 0
    fresh = {(m.context, m.id) for m in catalogue(tmp_path / "nlk.pot") if m.id}
    committed = {(m.context, m.id) for m in catalogue(POT) if m.id}
    assert fresh == committed, f"extract again: new {fresh - committed}, gone {committed - fresh}"


def test_hungarian_uses_the_singular_noun_after_a_number() -> None:
    n_ = translator("hu").ngettext
    assert n_("{count} card", "{count} cards", 1) == n_("{count} card", "{count} cards", 5) \
        == "{count} lap"
    fr = translator("fr").ngettext
    assert fr("{count} card", "{count} cards", 1) == "{count} carte"
    assert fr("{count} card", "{count} cards", 3) == "{count} cartes"


@pytest.mark.parametrize(("locale", "lang"), [
    ("hu", Lang.HU), ("fr", Lang.FR), ("en-US", Lang.EN), ("en-GB", Lang.EN),
    ("hu_HU.UTF-8", Lang.HU), ("fr_CA.UTF-8@euro", Lang.FR), ("de", Lang.EN), ("C", Lang.EN),
    ("", Lang.EN), (None, Lang.EN), (Locale.hungarian, Lang.HU), (Locale.french, Lang.FR),
    (Locale.german, Lang.EN), (Locale.british_english, Lang.EN),
])
def test_locales_read_as_one_of_three_languages(locale: object, lang: Lang) -> None:
    assert normalise(locale) is lang


def test_the_environment_picks_the_language_as_gettext_does() -> None:
    assert from_environment({"LANG": "hu_HU.UTF-8"}) is Lang.HU
    assert from_environment({"LC_ALL": "fr_FR.UTF-8", "LANG": "hu_HU.UTF-8"}) is Lang.FR
    assert from_environment({"LANGUAGE": "de:fr", "LANG": "hu_HU.UTF-8"}) is Lang.FR
    assert from_environment({"LANGUAGE": "de", "LANG": "hu_HU.UTF-8"}) is Lang.HU
    assert from_environment({}) is Lang.EN


def test_cards_in_each_languages_letters() -> None:
    cards = [Card.parse(c) for c in ("AS", "KH", "QD", "JC", "TD", "7S")]
    assert [card_text(c, "en") for c in cards] == ["A♠", "K♥", "Q♦", "J♣", "10♦", "7♠"]
    assert [card_text(c, "hu") for c in cards] == ["A♠", "K♥", "D♦", "B♣", "10♦", "7♠"]
    assert [card_text(c, "fr") for c in cards] == ["A♠", "R♥", "D♦", "V♣", "10♦", "7♠"]


def test_the_catalogues_are_where_an_install_finds_them() -> None:
    for lang in TRANSLATED:
        found = gettext.find("nlk", LOCALES, languages=[lang.value])
        assert found is not None and Path(found) == catalogue_path(lang, ".mo")
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert "locales/*/LC_MESSAGES/*.mo" in pyproject


def _hand(lang: str) -> str:
    out = io.StringIO()
    answers = iter(["1"] * 400)
    play_hand(3, 0, "random", "7", None, Variant(), lambda _: next(answers), out, lang)
    return out.getvalue()


def test_the_terminal_game_speaks_hungarian_and_french() -> None:
    hu, fr, en = _hand("hu"), _hand("fr"), _hand("en")
    assert "Játékszabály" in hu and "Gyűjtési szakasz — talon" in hu and "Lépésed" not in en
    assert "Vége a leosztásnak" in hu and "Collect phase" not in hu and "You " not in hu
    assert "Comment jouer" in fr and "La donne est finie" in fr and "Phase de collecte" in fr
    assert "The hand is over" in en
    # The same seed deals the same hand: only the words and the court letters differ.
    def play(text: str) -> int:  # the lines after the how-to-play paragraph
        return text.split("\n\n", 1)[1].count("\n")

    assert play(en) == play(hu) == play(fr)


def test_python_m_rules_play_takes_lang_and_defaults_to_the_locale() -> None:
    env = {"PATH": "", "LANG": "fr_FR.UTF-8", "PYTHONIOENCODING": "utf-8"}
    run = [sys.executable, "-m", "rules", "play", "--players", "2", "--seed", "1",
           "--level", "random"]
    fr = subprocess.run(run, cwd=ROOT, env=env, input="", capture_output=True, text=True)
    hu = subprocess.run([*run, "--lang", "hu"], cwd=ROOT, env=env, input="",
                        capture_output=True, text=True)
    assert "Comment jouer" in fr.stdout and "Plus d’entrée" in fr.stdout
    assert "Játékszabály" in hu.stdout and "Nincs több bemenet" in hu.stdout
    assert fr.returncode == hu.returncode == 1


# --- Discord -------------------------------------------------------------------------------

NAME_CONTEXTS = ("command", "deal")  # msgctxt of names: commands and options; a deal


def _command_names(context: str = "command") -> list[str]:
    return [m.id for m in catalogue(POT) if m.context == context]


@pytest.mark.parametrize("lang", TRANSLATED)
def test_localised_command_names_pass_discords_rules(lang: Lang) -> None:
    names = _command_names()
    assert {"nlk", "new", "settings", "must_beat_in_suit", "language"} <= set(names)
    for context in NAME_CONTEXTS:
        for name in _command_names(context):
            local = translator(lang).pgettext(context, name)
            assert NAME.match(local) and local == local.lower(), (lang, name, local)
    # Two commands never share a localised name (Discord refuses the whole tree).
    commands = [translator(lang).pgettext("command", n) for n in ("new", "hand", "table",
                "leave", "end", "remove", "rules", "stats", "export", "settings", "cards",
                "learn")]
    assert len(set(commands)) == len(commands), commands


def test_command_names_read_as_the_review_asked() -> None:
    """Accents kept, and the cards command no neighbour of /nlk lapjaim (issue 30)."""
    hu = translator(Lang.HU).pgettext
    assert [hu("command", n) for n in ("pictures", "style", "cards", "hand")] == \
        ["képek", "stílus", "megjelenés", "lapjaim"]
    assert hu("command", "turn_timer") == "időkorlát"
    # /nlk export's option is a deal, not the /nlk hand command's "your cards".
    assert hu("deal", "hand") == "leosztás"
    assert translator(Lang.FR).pgettext("deal", "hand") == "donne"
    assert translator(Lang.FR).pgettext("command", "hand") == "main"


async def test_the_translator_names_the_real_commands_in_hungarian_and_french() -> None:
    """Every name, option and choice of the cog has a translation within the rules, so
    phase 2 only wraps them in ``locale_str``."""
    from cogs.commands.nlk import NLK

    translate = NLKTranslator()
    group = NLK.nlk
    assert await translate.translate(_str(group.name), Locale.german, _ctx(Where.group_name)) \
        is None
    for command in group.commands:
        for lang in TRANSLATED:
            # None: the same word as in English ("stats"), so Discord shows the default.
            name = translate_command_text(command.name, lang, Where.command_name) \
                or command.name
            assert name and NAME.match(name) and name == name.lower(), command.name
            description = translate_command_text(command.description, lang,
                                                 Where.command_description)
            assert description and len(description) <= 100, command.description
            for parameter in command.parameters:
                context = parameter.locale_name.extras.get("context", "command") \
                    if parameter.locale_name is not None else "command"
                local = translate_command_text(parameter.name, lang, Where.parameter_name,
                                               context) or parameter.name
                if command.name == "export" and parameter.name == "hand":
                    assert local == {Lang.HU: "leosztás", Lang.FR: "donne"}[lang]
                assert local and NAME.match(local) and local == local.lower(), parameter.name
                if parameter.description != "…":
                    described = translate_command_text(parameter.description, lang,
                                                       Where.parameter_description)
                    assert described and len(described) <= 100, parameter.description
                for choice in parameter.choices:
                    # None: the same words ("1 minute" in French), so Discord shows them.
                    assert translate_command_text(choice.name, lang, Where.choice_name) \
                        or _same_words(choice.name, lang), choice.name
    new = await translate.translate(_str("new"), Locale.hungarian, _ctx(Where.command_name))
    assert new == "új"
    assert await translate.translate(_str("new"), Locale.french,
                                     _ctx(Where.command_name)) == "nouvelle"


def _same_words(message: str, lang: Lang) -> bool:
    """Whether the catalogue translates ``message`` as the very same words."""
    return any(m.id == message and m.string == message
               for m in catalogue(catalogue_path(lang)))


def _str(text: str):
    from discord.app_commands import locale_str

    return locale_str(text)


def _ctx(where: Where):
    from discord.app_commands import TranslationContext

    return TranslationContext(where, None)


def test_private_and_public_languages() -> None:
    assert lang_of("fr") is Lang.FR and lang_of(Locale.hungarian) is Lang.HU
    assert lang_of(None) is Lang.EN
    assert server_language("hu", None) is Lang.HU
    assert server_language(None, None) is Lang.EN


# --- strings that bypass the catalogue -----------------------------------------------------

# Every module of the cogs (issue 30 found lines built with f-strings outside cogs/render: the
# alt text), but for the picture benchmark a developer runs and a font check's own error.
NOT_FOR_PLAYERS = {"cogs/pictures/__main__.py", "cogs/pictures/draw.py"}
CONVERTED = ["rules/play.py", "rules/i18n.py", *sorted(
    str(path.relative_to(ROOT)) for path in (ROOT / "cogs").glob("**/*.py")
    if str(path.relative_to(ROOT)) not in NOT_FOR_PLAYERS)]
# Literals that are not for people: notation, argparse flags, formats without words.
_WORDLESS = re.compile(r"^[\W\d_]*$|^\{?[a-z_]+\}?$")
_ALLOWED_CALLS = {"_", "n_", "N_", "gettext", "ngettext", "pgettext", "NC_", "NP_", "L_"}


def _bypassing(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef
                                | ast.AsyncFunctionDef)
                  and node.body and isinstance(node.body[0], ast.Expr)
                  and isinstance(node.body[0].value, ast.Constant)}
    wrapped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in _ALLOWED_CALLS:
                wrapped.update(id(a) for a in ast.walk(node))
            # Arguments nobody playing reads: argparse's own, paths, log lines (for the
            # bot's admin) and errors raised for programmers.
            if name in ("add_argument", "add_parser", "get", "startswith", "split",
                        "translation", "find", "replace", "with_name", "join", "print",
                        "debug", "info", "warning", "error", "exception", "RuntimeError"):
                wrapped.update(id(a) for a in node.args if isinstance(a, ast.Constant))
        if isinstance(node, ast.JoinedStr):  # its pieces are judged as one, below
            wrapped.update(id(v) for v in node.values)
        if isinstance(node, ast.Compare | ast.Subscript | ast.Dict | ast.Tuple):
            wrapped.update(id(a) for a in ast.walk(node) if isinstance(a, ast.Constant))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and id(node) not in docstrings and id(node) not in wrapped:
            text = node.value.strip()
            # A sentence, or one capitalised word such as a button's label ("Refresh").
            if (re.search(r"[A-Za-z]{2,}\s+[A-Za-z]{2,}", text)
                    or re.fullmatch(r"[A-Z][a-z]+[.!…]?", text)) and not _WORDLESS.match(text):
                found.append(f"{path.name}:{node.lineno}: {text!r}")
        if isinstance(node, ast.JoinedStr):  # an f-string with words in it
            words = "".join(v.value for v in node.values if isinstance(v, ast.Constant)
                            and isinstance(v.value, str))
            # Words with a space between them: a URL or a file name is not a sentence.
            if re.search(r"[A-Za-z]{2,}\s+[A-Za-z]{2,}", words) and id(node) not in wrapped:
                found.append(f"{path.name}:{node.lineno}: f-string {words!r}")
    return found


def test_converted_files_send_every_sentence_through_the_catalogue() -> None:
    bypassing = [line for f in CONVERTED for line in _bypassing(ROOT / f)]
    assert not bypassing, "\n".join(bypassing)


def test_the_bypass_scan_can_fail(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text('def f(name):\n    return f"It is {name}\'s turn now"\n'
                      'X = "Only the host can start."\nY = _("Wrapped text here.")\n'
                      'Z = NLKButton("7:join", "Refresh")\nW = _("Refresh")\n',
                      encoding="utf-8")
    found = _bypassing(sample)
    assert len(found) == 3 and "Wrapped" not in " ".join(found), found
    assert sum("'Refresh'" in f for f in found) == 1


# --- the server's language setting ---------------------------------------------------------

async def test_a_server_keeps_its_language_and_none_means_its_own_locale(database) -> None:
    from bot.db.repository import Repository
    from bot.errors import BadSetting, NotAllowed
    from bot.guilds.service import GuildService

    servers = GuildService(Repository(database))
    assert (await servers.settings(1)).language is None
    with pytest.raises(NotAllowed):
        await servers.change_settings(1, {"language": "hu"}, can_manage=False)
    with pytest.raises(BadSetting):
        await servers.change_settings(1, {"language": "de"}, can_manage=True)
    await servers.change_settings(1, {"language": "hu", "seats": 4}, can_manage=True)
    saved = await servers.settings(1)
    assert (saved.language, saved.seats) == ("hu", 4)
    assert (await servers.settings(2)).language is None  # another server: untouched
    await servers.change_settings(1, {"language": "auto"}, can_manage=True)
    assert (await servers.settings(1)).language is None
    assert server_language((await servers.settings(1)).language, None) is Lang.EN


@pytest.mark.parametrize("lang", TRANSLATED)
def test_option_descriptions_name_commands_in_the_readers_language(lang: Lang) -> None:
    """Issue 37: /nlk replay's file option said "/nlk export" in every language, where a
    French reader knows /nlk exporter and a Hungarian one /nlk exportálás (a description
    can't hold a mention)."""
    from cogs.commands.nlk import NLK

    pgettext = translator(lang).pgettext
    english_names = {c.name for c in NLK.nlk.commands}
    seen = 0
    for command in NLK.nlk.commands:
        texts = [(command.description, Where.command_description)] + [
            (p.description, Where.parameter_description) for p in command.parameters]
        for text, where in texts:
            if "/nlk " not in text:
                continue
            seen += 1
            local = translate_command_text(text, lang, where)
            assert local is not None
            for name in re.findall(r"/nlk ([a-z_]+)", text):
                assert f"/nlk {pgettext('command', name)}" in local, (text, local)
                if pgettext("command", name) != name:
                    assert f"/nlk {name} " not in local and name in english_names
    assert seen  # the file option of /nlk replay, at least
    file = next(p for p in NLK.nlk.get_command("replay").parameters if p.name == "file")
    assert {Lang.HU: "/nlk exportálás", Lang.FR: "/nlk exporter"}[lang] in \
        translate_command_text(file.description, lang, Where.parameter_description)
