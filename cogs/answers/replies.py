"""The one place that turns errors into replies: polite refusals, and a code for the rest.

``REPLIES`` maps each refusal (its class, and its ``reason`` where one class has several
wordings) to a sentence; the refusal's details fill it in, names escaped.
"""

from __future__ import annotations

import logging
import secrets

import discord

from bot import errors
from bot.tables.service import MIN_TURN_SECONDS
from cogs.client import Interaction
from cogs.i18n.mentions import linked
from cogs.i18n.translator import lang_of, list_of
from cogs.render import safe_name
from rules.explain import refusal_text
from rules.i18n import DEFAULT, N_, Lang, quote, shown_name, translator

log = logging.getLogger(__name__)

ANSWERED_ALREADY = 40060  # Discord: "Interaction has already been acknowledged"

Key = type[errors.Refusal] | tuple[type[errors.Refusal], str]

REPLIES: dict[Key, str] = {
    errors.InputError: N_("That button or option doesn't make sense any more; nothing changed."),
    (errors.InputError, "dm"): N_("NLK is played in server channels: use this command in a "
                                  "server's channel, not in a direct message."),
    (errors.InputError, "not_in_server"): N_("The bot is not a member of this server, so it "
                                             "can't keep a table here: ask someone who can "
                                             "manage the server to add it, or play in a "
                                             "group DM."),
    (errors.InputError, "server_only"): N_("That is a server's setting: a group DM or a DM has "
                                           "no server settings, and its tables play by the "
                                           "defaults."),
    (errors.NoTable, "here"): N_("There is no NLK table in this channel. Start one with `/nlk "
                                 "new`."),
    (errors.NoTable, "gone"): N_("That table no longer exists."),
    (errors.NoTable, "export"): N_("No hand has finished in this channel yet: a hand is exported "
                                   "only once it is over."),
    errors.TableExists: N_("This channel already has an NLK table: join its next hand, or ask "
                           "its host to end it with `/nlk end`."),
    (errors.TableExists, "lobby"): N_("This channel already has an NLK table waiting for "
                                      "players: join that one, or its host can cancel it."),
    (errors.TableExists, "_own"): N_("You host this channel's NLK table: deal its next hand "
                                     "there, or end it with `/nlk end` to open a new one."),
    (errors.TableExists, "lobby_own"): N_("You already opened an NLK table here, waiting for "
                                          "players: start it when everyone is in, or cancel "
                                          "it with its **Cancel the table (host)** button."),
    errors.NotSeated: N_("You're not playing at this table."),
    (errors.NotSeated, "next"): N_("Only the players at this table can deal the next hand: tap "
                                   "**Join next hand** first to play it."),
    (errors.NotSeated, "next_full"): N_("Only the players at this table can deal the next hand, "
                                        "and every seat of it is taken: watch this one, or "
                                        "wait for a seat to come free."),
    (errors.NotSeated, "leaving"): N_("You're already leaving: your seat goes when this hand "
                                      "ends."),
    (errors.NotSeated, "remove"): N_("That player isn't staying at this table (or is already "
                                     "leaving), so there is no seat to remove."),
    (errors.NotAllowed, "add_ai"): N_("Only the host can add AI players."),
    (errors.NotAllowed, "remove_ai"): N_("Only the host can remove AI players."),
    (errors.NotAllowed, "start"): N_("Only the host can start the table."),
    (errors.NotAllowed, "cancel"): N_("Only the host can cancel the table."),
    (errors.NotAllowed, "remove"): N_("Only the host, or someone who can manage this channel, "
                                      "can remove a player's seat."),
    (errors.NotAllowed, "end"): N_("Only the host, or someone who can manage this channel, can "
                                   "end the table."),
    (errors.NotAllowed, "settings"): N_("Changing the server's NLK settings needs the Manage "
                                        "Server permission."),
    (errors.NotAllowed, "ai_off"): N_("AI players are switched off on this server (`/nlk "
                                      "settings`)."),
    (errors.NotAllowed, "hints"): N_("Hints are off at this table: the server's `/nlk "
                                     "settings` decide (a change acts from the next hand)."),
    (errors.NotAllowed, "away"): N_("An AI is playing your seat while you're away: tap **I'm "
                                    "back** on the table message first."),
    errors.TableFull: N_("This table is full ({seats} seats)."),
    errors.AlreadySeated: N_("You're already seated at this table."),
    errors.AlreadyStarted: N_("This table's hand has already started: watch it, and join the "
                              "next hand when this one ends."),
    (errors.AlreadyStarted, "join"): N_("A hand is under way: tap **Join** when it ends to play "
                                        "the next one."),
    (errors.AlreadyStarted, "start"): N_("This table has already started."),
    (errors.AlreadyStarted, "cancel"): N_("The table has started: use `/nlk end` to stop it."),
    (errors.AlreadyStarted, "ai"): N_("A hand is under way: add or remove AI players when it "
                                      "ends."),
    errors.TooFewPlayers: N_("NLK needs at least two players: wait for someone to join, or add "
                             "an AI player."),
    (errors.TooFewPlayers, "next"): N_("The next hand needs at least two players: wait for "
                                       "someone to tap **Join**, or end the table."),
    errors.NoAIToRemove: N_("There is no AI player to remove."),
    errors.SeatStays: N_("The hand is under way and nobody else stays for the next one, so this "
                         "seat stays until the hand ends. The host (or a moderator) can stop the "
                         "table with `/nlk end`."),
    errors.HandNotOver: N_("The current hand isn't over yet."),
    errors.HandInPlay: N_("Hand {number} of table {table} is still being played: exporting it "
                          "now would reveal the players' hidden hands. Export it once it is "
                          "over."),
    errors.NoSuchHand: N_("No hand “{hand}” was played in this channel: choose one of the "
                          "finished hands the list offers."),
    (errors.NotPlaying, "lobby"): N_("The hand hasn't started yet."),
    (errors.NotPlaying, "over"): N_("This hand is over."),
    (errors.NotPlaying, "ended"): N_("This table has ended."),
    errors.NotAway: N_("You're not away: your seat is yours."),
    (errors.NotAway, "remove"): N_("{name} isn't away: only a seat the AI is playing for a "
                                   "player who missed their turns can be removed."),
    (errors.BadSetting, "seats"): N_("A table has 2 to 9 seats, not {value}."),
    (errors.BadSetting, "timer"): N_("A turn timer needs at least {minimum} seconds, and at most "
                                     "3600 (or 0 for none)."),
    (errors.BadSetting, "ai"): N_("There is no AI level called {value}."),
    (errors.BadSetting, "language"): N_("There is no language called {value}: choose one the "
                                        "list offers ({choices})."),
    (errors.BadSetting, "pictures"): N_("There is no picture setting called {value}: choose one "
                                        "the list offers ({choices})."),
    (errors.BadSetting, "cards"): N_("There is no card style called {value}: choose one the "
                                     "list offers ({choices})."),
    errors.WaitYourTurn: N_("It's {name}'s turn."),
    errors.Stale: N_("That button is out of date: the table has moved on, so nothing changed. "
                     "Use the buttons as they are now."),
    (errors.NotEnded, "new_hand"): N_("NLK table {table} was not ended: hand {number} started "
                                       "after you were asked, and it goes on. To end the "
                                       "table anyway, use `/nlk end`."),
    errors.NotEnded: N_("NLK table {table} was not ended: it changed after you were "
                              "asked (someone joined or left), so nothing changed. Tap **End "
                              "table** again if you still want to end it."),
    errors.WrongChannel: N_("That button belongs to a table in another channel, so nothing "
                            "changed."),
    errors.AgainstTheRules: N_("{message} ({rule})"),
    errors.BotLacksPermissions: N_("I can't run a table in this channel: I'm missing {missing}. "
                                   "Ask a moderator to give me these permissions here."),
    errors.StorageUnavailable: N_("The bot can't save moves right now (its disk refuses writes), "
                                  "so nothing changed. Please try again in a while."),
}

NAMES = ("name", "turn_of", "hand")  # details players named or typed: escaped before use
# A refused setting names what may be chosen as the reader's list shows it, never the
# values Discord sends ("four-colour", "fr").
CHOICES = {
    "language": (N_("The server's own language"), N_("English"), N_("Hungarian"), N_("French")),
    "pictures": (N_("pictures"), N_("four-colour pictures"), N_("text only")),
    "cards": (N_("as the server shows them"), N_("pictures"), N_("four-colour pictures"),
              N_("text only")),
}
FALLBACK = N_("That can't be done now; nothing changed.")


def sentence(refusal: errors.Refusal, lang: Lang = DEFAULT) -> str:
    """The refusal as the sentence a player reads, in their language ``lang``."""
    _ = translator(lang).gettext
    if isinstance(refusal, errors.AgainstTheRules):
        # Shared with the terminal game: English keeps the engine's own, more particular
        # sentence; the other languages say the rule in their words.
        return refusal_text(refusal.rule, refusal.message, lang)
    template = REPLIES.get((type(refusal), refusal.reason)) or REPLIES.get(type(refusal))
    if template is None:  # a subclass: look up its parents
        template = next((REPLIES[k] for k in type(refusal).__mro__ if k in REPLIES), FALLBACK)
    details = {k: safe_name(shown_name(str(v), lang)) if k in NAMES else v
               for k, v in refusal.details.items()}
    if isinstance(refusal, errors.BadSetting) and refusal.reason in (*CHOICES, "ai"):
        details["value"] = quote(safe_name(str(details.get("value", ""))), lang)
        details["choices"] = list_of([_(word) for word in CHOICES.get(refusal.reason or "", ())],
                                     lang, choice=True)
    try:
        text = _(template).format(**{"minimum": MIN_TURN_SECONDS, **details})
    except (KeyError, IndexError, ValueError):
        # A refusal built without a fact its sentence needs: still answer, never crash
        # (the refusal classes' constructors make this a programming error).
        log.error("refusal %s lacks a detail its sentence needs", refusal)
        text = _(FALLBACK)
    turn_of = details.get("turn_of")
    if isinstance(refusal, errors.NotSeated) and turn_of:
        text += " " + _(REPLIES[errors.WaitYourTurn]).format(name=turn_of)
    return text


async def say(interaction: Interaction, text: str,
              view: discord.ui.View | None = None) -> None:
    """An ephemeral sentence (with ``view``'s buttons), as the first answer or as a
    follow-up; the commands it names become mentions."""
    text = linked(interaction, text, lang_of(interaction))
    buttons = view or discord.utils.MISSING
    try:
        if interaction.response.is_done():
            await interaction.followup.send(text, ephemeral=True, view=buttons)
        else:
            await interaction.response.send_message(text, ephemeral=True, view=buttons)
    except discord.HTTPException as error:
        if error.code == ANSWERED_ALREADY:  # another process answered the tap (a hand-over)
            log.info("user %s's tap was answered already: %s", interaction.user.id, text)
            return
        log.warning("could not tell user %s: %s", interaction.user.id, text, exc_info=True)


def describe(error: BaseException, lang: Lang = DEFAULT) -> tuple[str, bool]:
    """``(sentence, expected)`` in ``lang``: refusals speak for themselves; anything else
    gets a code."""
    _ = translator(lang).gettext
    if isinstance(error, errors.Refusal):
        return sentence(error, lang), True
    if isinstance(error, discord.app_commands.NoPrivateMessage):
        return _(REPLIES[(errors.InputError, "dm")]), True
    if isinstance(error, discord.app_commands.CheckFailure):
        return _("You can't use that command here."), True
    code = secrets.token_hex(3).upper()
    log.error("unexpected error, code %s", code, exc_info=error)
    return (_("Sorry — something went wrong on our side (code {code}). Please try again; if "
              "it keeps happening, give that code to the bot's admin.").format(code=code),
            False)

