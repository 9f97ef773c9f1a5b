"""NLK in its own languages: English, Hungarian and French, through gettext catalogues.

Every sentence a player reads is an English ``msgid`` with named ``{placeholders}``, looked
up in the ``nlk`` domain under ``rules/locales/<lang>/LC_MESSAGES/nlk.mo``; English needs no
catalogue (the msgids are the English text). Cards keep the rule book's two-letter notation
(``TD``) wherever they are input; only the form shown to a person changes with the language.

>>> from rules.cards import Card
>>> [card_text(Card.parse(c), "hu") for c in ("QS", "JH", "TD")]
['D♠', 'B♥', '10♦']
>>> normalise("fr-FR"), normalise("hu_HU.UTF-8"), normalise("en-GB"), normalise("de")
(<Lang.FR: 'fr'>, <Lang.HU: 'hu'>, <Lang.EN: 'en'>, <Lang.EN: 'en'>)
>>> translator("hu").gettext("You are out: safe!")
'Végeztél: megmenekültél!'
"""

from __future__ import annotations

import gettext
import os
import re
from collections.abc import Iterable, Mapping
from enum import StrEnum
from functools import cache, lru_cache
from pathlib import Path
from typing import Protocol

from babel import Locale
from babel.numbers import format_decimal, format_percent

from rules.cards import SUIT_SYMBOLS, Card

DOMAIN = "nlk"
LOCALES = Path(__file__).with_name("locales")


class Lang(StrEnum):
    """The languages NLK speaks; anything else falls back to English."""

    EN = "en"
    HU = "hu"
    FR = "fr"


DEFAULT = Lang.EN


def N_(message: str) -> str:
    """Marks a msgid for extraction where it is defined; it is translated where it is used
    (``translator(lang).gettext(message)``)."""
    return message


def normalise(locale: object) -> Lang:
    """The language of a locale in any usual spelling: ``hu``, Discord's ``en-US`` or
    ``fr``, POSIX ``hu_HU.UTF-8`` or ``fr_FR@euro``; English for anything else (``C``,
    ``de``, ``None``). Accepts ``discord.Locale`` too, through its string value."""
    if isinstance(locale, Lang):  # the common case: every card drawn asks
        return locale
    return _language_of(str(getattr(locale, "value", locale) or ""))


@lru_cache(maxsize=512)
def _language_of(text: str) -> Lang:
    head = text.strip().lower().replace("-", "_").split(".")[0].split("@")[0].split("_")[0]
    try:
        return Lang(head)
    except ValueError:
        return DEFAULT


def from_environment(environ: Mapping[str, str] | None = None) -> Lang:
    """The language the environment asks for, in gettext's order: ``LANGUAGE`` (a
    colon-separated list: its first language NLK speaks wins), ``LC_ALL``,
    ``LC_MESSAGES``, ``LANG``."""
    env = os.environ if environ is None else environ
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(name, "")
        if not value:
            continue
        if name == "LANGUAGE":
            spoken = [part for part in value.split(":") if _speaks(part)]
            if spoken:
                return normalise(spoken[0])
            continue
        return normalise(value)
    return DEFAULT


def _speaks(locale: str) -> bool:
    """Whether NLK has ``locale``'s language (not just falls back to English for it)."""
    return locale.strip().lower().replace("-", "_").split("_")[0].split(".")[0] in set(Lang)


class Translator(Protocol):
    """What a translation offers: ``gettext``'s own ``GNUTranslations`` satisfies it."""

    def gettext(self, message: str, /) -> str: ...
    def ngettext(self, singular: str, plural: str, n: int, /) -> str: ...
    def pgettext(self, context: str, message: str, /) -> str: ...


@cache
def translator(lang: object) -> Translator:
    """The catalogue of ``lang`` (any spelling ``normalise`` reads). English is the
    msgids themselves; a missing catalogue is an installation fault, so it raises. French
    sentences elide before a name (``FrenchSentence``)."""
    code = normalise(lang)
    if code == Lang.EN:
        return gettext.NullTranslations()
    if code == Lang.FR:
        return gettext.translation(DOMAIN, LOCALES, languages=[code.value],
                                   class_=FrenchTranslations)
    return gettext.translation(DOMAIN, LOCALES, languages=[code.value])


# --- French elision before names -------------------------------------------------------------

# Placeholders that hold a player's name: "de {name}" becomes "d’{name}" when the name
# starts with a vowel, a y or an h (a name's h is mute: d’Hélène, d’Hugo; d’Yves). Names
# from Hungarian servers start with Á, Í, Ó, Ú, Ő or Ű too: "C’est au tour d’Ádám".
NAME_PLACEHOLDERS = ("name", "to", "dealer", "by", "turn_of", "host", "player")
_BEFORE_NAME = re.compile(r"\b([Dd]e|[Qq]ue|[Ll]e|[Ll]a|[Jj]e) ((?:\*\*|\*|_)?)\{(" +
                          "|".join(NAME_PLACEHOLDERS) + r")\}")
_ELIDED = {"de": "d’", "que": "qu’", "le": "l’", "la": "l’", "je": "j’"}
_VOWELS = frozenset("aeiouyhàáâäæéèêëíîïóôöőœúùûüűÿ"
                    "AEIOUYHÀÁÂÄÆÉÈÊËÍÎÏÓÔÖŐŒÚÙÛÜŰŸ")


def _starts_with_vowel(value: object) -> bool:
    text = str(value).lstrip("\\*_~|` ")  # a name escaped or in bold still starts here
    return bool(text) and text[0] in _VOWELS


def elide(template: str, values: Mapping[str, object]) -> str:
    """The French ``template`` with "de", "que", "le", "la" and "je" elided before the names
    in ``values`` that start with a vowel or an h.

    >>> elide("C’est au tour de {name}.", {"name": "alice"}).format(name="alice")
    'C’est au tour d’alice.'
    >>> elide("En attente de **{name}**.", {"name": "bob"})
    'En attente de **{name}**.'
    >>> elide("C’est au tour de {name}.", {"name": "Ádám"}).format(name="Ádám")
    'C’est au tour d’Ádám.'
    """
    def shorten(match: re.Match[str]) -> str:
        word, mark, key = match[1], match[2], match[3]
        if not _starts_with_vowel(values.get(key, "")):
            return match[0]
        short = _ELIDED[word.lower()]
        return (short.capitalize() if word[0].isupper() else short) + mark + "{" + key + "}"

    return _BEFORE_NAME.sub(shorten, template)


class FrenchSentence(str):
    """A French sentence from the catalogue: ``format`` elides before names (``elide``)."""

    __slots__ = ()

    def format(self, *args: object, **values: object) -> str:
        return elide(self, values).format(*args, **values)


class FrenchTranslations(gettext.GNUTranslations):
    """The French catalogue, whose sentences elide before names when formatted."""

    def gettext(self, message: str) -> str:
        return FrenchSentence(super().gettext(message))

    def ngettext(self, msgid1: str, msgid2: str, n: int) -> str:
        return FrenchSentence(super().ngettext(msgid1, msgid2, n))

    def pgettext(self, context: str, message: str) -> str:
        return FrenchSentence(super().pgettext(context, message))


def catalogue_path(lang: Lang, suffix: str = ".po") -> Path:
    """Where a language's catalogue lives (``.po`` source, ``.mo`` compiled)."""
    return LOCALES / lang.value / "LC_MESSAGES" / f"{DOMAIN}{suffix}"


# --- quotes and AI players' names ----------------------------------------------------------

_QUOTES = {Lang.EN: ("“", "”"), Lang.HU: ("„", "”"), Lang.FR: ("«\u202f", "\u202f»")}


def quote(text: object, lang: object = DEFAULT) -> str:
    """``text`` in the quotation marks of ``lang``: “x”, „x”, « x » (French with the narrow
    no-break space inside, so the marks never wrap away from their word).

    >>> quote("give QQ 1", "hu"), quote("x", "fr")
    ('„give QQ 1”', '«\u202fx\u202f»')
    """
    opening, closing = _QUOTES[normalise(lang)]
    return f"{opening}{text}{closing}"


# How an AI seat is named when it is drawn, by its level: the seat stores "AI 2 (strong)"
# (the name given when it was seated), and each reader sees it in their own language.
_AI_NAMES = {"heuristic": N_("AI {number}"), "strong": N_("AI {number} (strong)"),
             "random": N_("AI {number} (random)")}
_STORED_AI = re.compile(r"AI (\d{1,2}) \((heuristic|strong|random)\)")


def stored_ai_name(number: int, level: str) -> str:
    """The name an AI seat is stored under (in every language the same; see ``shown_name``)."""
    return f"AI {number} ({level})"


def ai_name(number: int, level: str, lang: object = DEFAULT) -> str:
    """An AI player's name in ``lang``.

    >>> ai_name(1, "heuristic", "hu"), ai_name(2, "strong", "fr"), ai_name(3, "strong")
    ('Gép 1', 'IA 2 (forte)', 'AI 3 (strong)')
    """
    message = _AI_NAMES.get(level, _AI_NAMES["heuristic"])
    return translator(lang).gettext(message).format(number=number)


def shown_name(name: str, lang: object = DEFAULT) -> str:
    """A player's name as ``lang`` shows it: an AI seat's stored name ("AI 2 (strong)") in
    the reader's words, any other name as it is.

    >>> shown_name("AI 2 (strong)", "hu"), shown_name("AI 1 (heuristic)"), shown_name("Éva")
    ('Gép 2 (erős)', 'AI 1', 'Éva')
    """
    found = _STORED_AI.fullmatch(name)
    return ai_name(int(found[1]), found[2], lang) if found else name


def is_ai_name(name: str, lang: object = DEFAULT) -> bool:
    """Whether ``name`` is an AI seat's, stored ("AI 2 (strong)") or as ``lang`` shows it
    ("IA 2 (forte)").

    >>> is_ai_name("AI 2 (strong)"), is_ai_name("IA 2 (forte)", "fr"), is_ai_name("Éva", "fr")
    (True, True, False)
    """
    if _STORED_AI.fullmatch(name):
        return True
    found = re.search(r"\d{1,2}", name)
    return found is not None and any(ai_name(int(found[0]), level, lang) == name
                                     for level in _AI_NAMES)


def level_name(level: str, lang: object = DEFAULT) -> str:
    """An AI level in words: "random", "standard", "strong" (``rules.ai``'s levels)."""
    t = translator(lang)
    words = {"random": t.pgettext("AI level", "random"),
             "heuristic": t.pgettext("AI level", "standard"),
             "strong": t.pgettext("AI level", "strong")}
    return words.get(level, level)


# --- numbers -------------------------------------------------------------------------------

def number(value: float, lang: object = DEFAULT, digits: int = 0) -> str:
    """A number as ``lang`` writes it, with ``digits`` decimals (Babel's locale data).

    >>> number(3600, "en"), number(3600, "hu"), number(3600, "fr"), number(27.84, "fr", 1)
    ('3,600', '3\xa0600', '3\u202f600', '27,8')
    """
    pattern = "#,##0" + ("." + "0" * digits if digits else "")
    return format_decimal(value, format=pattern, locale=normalise(lang).value)


def percent(fraction: float, lang: object = DEFAULT, digits: int = 1) -> str:
    """A fraction as a percentage in ``lang``'s own form, ``digits`` decimals kept.

    >>> percent(0.125, "en"), percent(0.125, "hu"), percent(0.125, "fr"), percent(0, "fr")
    ('12.5%', '12,5%', '12,5\xa0%', '0,0\xa0%')
    """
    code = normalise(lang).value
    pattern = Locale.parse(code).percent_formats[None].pattern  # "#,##0%", "#,##0 %"
    if digits:
        whole = pattern.rindex("0") + 1
        pattern = pattern[:whole] + "." + "0" * digits + pattern[whole:]
    return format_percent(fraction, format=pattern, locale=code)


def ordinal(n: int, lang: object = DEFAULT, *, ai: bool = False) -> str:
    """A place in the finishing order: 1st, 1., 1er (a table has at most nine); beside an
    AI seat, the form that agrees with it (French "1re": *une* IA)."""
    t = translator(lang)
    _ = t.gettext
    if 10 <= n % 100 <= 20 or n % 10 not in (1, 2, 3):
        return _("{n}th").format(n=n)
    if n % 10 == 1 and ai:
        return t.pgettext("AI seat", "{n}st").format(n=n)
    return {1: _("{n}st"), 2: _("{n}nd"), 3: _("{n}rd")}[n % 10].format(n=n)


# --- cards ---------------------------------------------------------------------------------

# The letters each language's players call the court cards and the ace by: Hungarian ász,
# király, dáma, bubi; French as, roi, dame, valet. Number cards are digits everywhere.
RANK_LETTERS: dict[Lang, dict[int, str]] = {
    Lang.EN: {14: "A", 13: "K", 12: "Q", 11: "J"},
    Lang.HU: {14: "A", 13: "K", 12: "D", 11: "B"},
    Lang.FR: {14: "A", 13: "R", 12: "D", 11: "V"},
}


def rank_text(rank: int, lang: object = DEFAULT) -> str:
    """A rank as shown in ``lang``: ``10``, ``D`` (Hungarian dáma), ``V`` (French valet)."""
    return RANK_LETTERS[normalise(lang)].get(rank, str(rank))


def card_text(card: Card, lang: object = DEFAULT) -> str:
    """A card as shown in ``lang``, suit symbol kept: ``K♠``, ``R♠``; input stays ``KS``."""
    return rank_text(card.rank, lang) + SUIT_SYMBOLS[card.suit]


def cards_text(cards: Iterable[Card], lang: object = DEFAULT) -> str:
    """Cards as shown in ``lang``, separated by spaces: ``10♦ V♠``."""
    return " ".join(card_text(Card(c), lang) for c in cards)


def suit_name(suit: int | str | None, lang: object = DEFAULT) -> str:
    """A suit with its symbol, like ``♠ spades`` (``pikk``, ``pique``); a word for none."""
    _ = translator(lang).gettext
    names = (_("♠ spades"), _("♥ hearts"), _("♦ diamonds"), _("♣ clubs"))
    if isinstance(suit, str):
        suit = "SHDC".find(suit.upper()) if len(suit) == 1 else -1
    if suit is None or not 0 <= suit < 4:
        return _("none")
    return names[suit]


def variant_text(last_card: str, must_beat_in_suit: bool, lang: object = DEFAULT) -> str:
    """A table's rules in one short line (``Variant.describe`` in ``lang``)."""
    _ = translator(lang).gettext
    last = _("last card kept") if last_card == "keep" else _("last card may be given away")
    beat = _("beat in suit when you can") if must_beat_in_suit else _("trump any time")
    return _("{last_card}; {must_beat}").format(last_card=last, must_beat=beat)
