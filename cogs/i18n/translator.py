"""The bot in English, Hungarian and French: slash commands through discord.py's
``Translator``, every other sentence through the ``nlk`` gettext catalogue (``rules.i18n``).

How strings are wrapped in the cogs (a test scans every cogs module for sentences that
bypass the catalogue):

* **Which language.** A reply only one person sees (their hand, a refusal, ``/nlk rules``,
  ``/nlk stats``, Moves, Fair deal, help) follows that person: ``lang_of(interaction)``
  (``interaction.locale``). A message everyone in the channel sees (the table message, turn
  pings, the end of a hand, ``/nlk end``, a quarantine notice) follows the server:
  ``await languages.public(guild_id, interaction)``, where ``GuildSettings.language`` is the
  ``/nlk settings language`` choice and ``None`` means "the server's own locale"
  (``interaction.guild_locale``, remembered for redraws outside interactions, else
  ``guild.preferred_locale``). Anything but ``hu`` and ``fr`` reads English.
* **Sentences.** ``_ = translator(lang).gettext`` then ``_("It's {name}'s turn.").format(
  name=...)``: English text with *named* brace placeholders, formatted after translating,
  never f-strings or ``+`` pieces (word order differs: Hungarian puts the verb elsewhere).
  Names are escaped (``render.safe_name``) before they are put in.
* **Counts.** ``ngettext("{count} card", "{count} cards", n).format(count=n)``. The
  Hungarian catalogue gives the same singular noun for both forms ("{count} lap"), as
  Hungarian does after a number; French has its own two forms.
* **Cards.** ``render.card_text(card, lang)``: the language's letters with the bot's suit
  colour marks (K♠︎ / K♠︎ / R♠︎); custom ids and replays keep ``str(card)`` (``KS``). Card
  letters follow the reader as the words do: a private message shows the reader's letters
  (an English player at a Hungarian table reads "Take Q♣️" in her hand), a public one the
  place's ("D♣️" on the table message).
* **Refusals.** ``REPLIES`` values are ``N_("...")`` (marked, translated at use by
  ``sentence(refusal, lang)``). The engine's refusals are translated by rule number
  (``rules.explain``, shared with the terminal game), the rule number kept; the engine's
  English is the fallback.
* **Slash commands.** Names are ``NC_("command", "new")`` and descriptions and choice names
  ``L_("...")`` (``locale_str``); ``NLKTranslator`` looks names up with the context
  ``"command"`` (``pgettext``), so the catalogue holds ``msgctxt "command" msgid "new"`` →
  ``új`` and ``nouvelle``. A name that means something else in one place has a context of its
  own: ``/nlk export``'s option ``hand`` is a deal (``NC_("deal", "hand")``: "leosztás",
  "donne"), where the command ``/nlk hand`` is your cards ("lapjaim", "main"). Discord's
  naming rules are checked for every name in the catalogue and again by the fake Discord
  when the tree is synced.
* **The catalogue.** After changing a sentence: extract, update, translate and compile as
  docs/translating.md says.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

import discord
from babel.lists import format_list
from discord import app_commands

from cogs.client import Interaction
from rules.i18n import DEFAULT, Lang, Translator, normalise, translator

if TYPE_CHECKING:

    from bot.guilds.service import GuildService

NAME_CONTEXT = "command"  # msgctxt of command, group and option names
NAMES = (app_commands.TranslationContextLocation.command_name,
         app_commands.TranslationContextLocation.group_name,
         app_commands.TranslationContextLocation.parameter_name)
LOCALES = {discord.Locale.hungarian: Lang.HU, discord.Locale.french: Lang.FR}


def NC_(context: str, message: str) -> app_commands.locale_str:
    """A command, group or option name (``context`` "command"), marked for extraction and
    translated by ``NLKTranslator`` when the tree is synced."""
    return app_commands.locale_str(message, context=context)


def L_(message: str) -> app_commands.locale_str:
    """A command's description or choice name, marked for extraction (``-k L_``)."""
    return app_commands.locale_str(message)


class NLKTranslator(app_commands.Translator):
    """Slash commands' names, descriptions and choices in Hungarian and French."""

    async def translate(self, string: app_commands.locale_str, locale: discord.Locale,
                        context: app_commands.TranslationContextTypes) -> str | None:
        lang = LOCALES.get(locale)
        if lang is None:
            return None  # Discord shows the English default
        return translate_command_text(string.message, lang, context.location,
                                      string.extras.get("context", NAME_CONTEXT))


def translate_command_text(message: str, lang: Lang,
                           location: app_commands.TranslationContextLocation,
                           name_context: str = NAME_CONTEXT) -> str | None:
    """The catalogue's translation of a command's text, or None when it has none; a name is
    looked up in its ``name_context`` (``NC_``'s first argument)."""
    catalogue = translator(lang)
    if location in NAMES:
        found = catalogue.pgettext(name_context, message)
    else:
        found = local_commands(catalogue.gettext(message), lang)
    return found if found != message or lang == Lang.EN else None


GROUP = "nlk"  # the command group's name (its translations are in the catalogue already)
TYPED_COMMAND = re.compile(r"(?<![\w`/])/nlk(?: ([a-z_]+))?\b")


def local_commands(text: str, lang: Lang) -> str:
    """``text`` with each ``/nlk name`` under the name ``lang``'s readers know it by.

    Descriptions can't hold command mentions, and the catalogue keeps the English names (as
    it does in sentences), so a French reader would read ``/nlk export`` where their Discord
    lists ``/nlk exporter``.

    >>> local_commands("An nlk-replay/1 file, as /nlk export gives it", Lang.HU)
    'An nlk-replay/1 file, as /nlk exportálás gives it'
    """
    pgettext = translator(lang).pgettext

    def local(match: re.Match[str]) -> str:
        words = [pgettext(NAME_CONTEXT, GROUP), *([pgettext(NAME_CONTEXT, match[1])]
                                                   if match[1] else [])]
        return "/" + " ".join(words)

    return TYPED_COMMAND.sub(local, text)


def lang_of(where: Interaction | discord.Locale | str | None) -> Lang:
    """The language of a private reply: an interaction's user locale, or a locale."""
    if isinstance(where, discord.Interaction):
        return normalise(where.locale)
    return normalise(where) if where is not None else DEFAULT


def server_language(setting: str | None,
                    where: Interaction | discord.Guild | None) -> Lang:
    """The language of public messages: the server's ``/nlk settings language``, else its
    own locale, else English."""
    if setting:
        return normalise(setting)
    if isinstance(where, discord.Interaction):
        return normalise(where.guild_locale)
    if isinstance(where, discord.Guild):
        return normalise(where.preferred_locale)
    return DEFAULT


class Languages:
    """The language of each server's public messages, known without an interaction.

    The table message is also redrawn by the publisher after AI moves and restarts, where no
    interaction says the server's locale: so the ``/nlk settings language`` choice is kept
    here once read, and each server's locale is remembered whenever an interaction shows it
    (``guild.preferred_locale`` from the gateway otherwise).
    """

    def __init__(self, servers: GuildService | None,
                 client: discord.Client | None = None) -> None:
        self.servers = servers
        self.client = client
        self._settings: dict[int, str | None] = {}
        self._locales: dict[int, Lang] = {}
        # Whether each server lets hosts add AI players, read with its language: the table
        # message offers no AI button that could only refuse.
        self._ai: dict[int, bool] = {}

    def seen(self, interaction: Interaction) -> None:
        """Remember the server's locale that an interaction carries."""
        if interaction.guild_id is not None and interaction.guild_locale is not None:
            self._locales[interaction.guild_id] = normalise(interaction.guild_locale)

    def changed(self, guild_id: int, setting: str | None,
                allow_ai: bool | None = None) -> None:
        """``/nlk settings`` saved a new language (None: the server's own locale) and, if
        given, whether hosts may add AI players."""
        self._settings[guild_id] = setting
        if allow_ai is not None:
            self._ai[guild_id] = allow_ai

    def ai_allowed(self, guild_id: int | None) -> bool:
        """Whether the server lets hosts add AI players, as last read (``public`` reads it);
        True until known, as the setting's default is."""
        return self._ai.get(guild_id, True) if guild_id is not None else True

    async def public(self, guild_id: int | None,
                     interaction: Interaction | None = None) -> Lang:
        """The language everyone in the server's channels reads."""
        if guild_id is not None and guild_id not in self._settings and \
                self.servers is not None:
            settings = await self.servers.settings(guild_id)
            self._settings[guild_id] = settings.language
            self._ai[guild_id] = settings.allow_ai
        lang = self.public_now(guild_id, interaction)
        assert lang is not None
        return lang

    def public_now(self, guild_id: int | None,
                   interaction: Interaction | None = None) -> Lang | None:
        """As ``public``, if known without reading the server's settings (None: ``public``
        reads them)."""
        if interaction is not None:
            self.seen(interaction)
        if guild_id is None:
            return DEFAULT
        if guild_id not in self._settings and self.servers is not None:
            return None
        setting = self._settings.get(guild_id)
        if setting:
            return normalise(setting)
        if interaction is not None and interaction.guild_id is None:
            return lang_of(interaction)  # a group DM or a DM: no server locale
        if guild_id in self._locales:
            return self._locales[guild_id]
        guild = self.client.get_guild(guild_id) if self.client is not None else None
        return server_language(None, guild)


def list_of(items: Sequence[str], lang: Lang = DEFAULT, *, choice: bool = False) -> str:
    """``items`` joined as ``lang`` joins a list (Babel's locale data), never with a comma
    put in by code: "a, b, and c", "a, b és c", "a, b et c"; with ``choice``, "or".

    >>> list_of(["Embed Links", "Attach Files"], Lang.HU)
    'Embed Links és Attach Files'
    >>> list_of(["a", "b", "c"], Lang.FR, choice=True)
    'a, b ou c'
    """
    if not items:
        return ""
    if choice:
        return format_list(list(items), style="or", locale=lang.value)
    return format_list(list(items), locale=lang.value)


def t(where: Interaction | discord.Locale | str | None) -> Translator:
    """The catalogue for a private reply: ``_ = t(interaction).gettext``."""
    return translator(lang_of(where))
