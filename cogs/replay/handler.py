"""Answers ``/nlk replay`` and its step buttons: each answer opens the replay its custom id
names, runs it to the step asked for, and redraws the reader's private message; **Show in
channel** posts that step publicly, paced like every channel post.

Nothing here changes a table or a hand. Every failure is a polite line: a replay that is not
there (any more), a hand still in play, a bad file, or a step that is not there.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Mapping

import discord
from discord import app_commands

from bot.errors import NoTable, Refusal
from bot.guilds.replays import MAX_FILE, Opened, ReplayReason, ReplayRefused, ReplaySource
from bot.guilds.service import GuildService
from cogs.answers.interaction import display_name, place_of
from cogs.answers.replies import describe, say
from cogs.client import Interaction
from cogs.i18n.translator import Languages, lang_of
from cogs.pictures import (
    FOUR,
    OFF,
    SERVER_CHOICES,
    SERVER_DEFAULT,
    Picture,
    Pictures,
    edit_files,
    send_files,
)
from cogs.pictures.replay import REPLAY_FILE
from cogs.render.text import message_url
from cogs.replay.ids import Act
from cogs.replay.step import step_embed, step_scene, step_view
from cogs.transport.posts import ChannelPosts
from rules.i18n import N_, Lang, shown_name, translator
from rules.steps import Landmarks, Step, landmarks, step_of

log = logging.getLogger(__name__)



SHOWN_KEPT = 1000  # steps shown in channels remembered, newest kept


class Replays:
    """Opens replays for one reader at a time; keeps nothing between answers, so a button
    answered after a restart is answered as before it. It remembers only which steps it has
    shown in which channel, so a second tap on **Show in channel** (a double tap, or
    someone else's) points to the post instead of posting it again."""

    def __init__(self, source: ReplaySource, pictures: Pictures, posts: ChannelPosts,
                 languages: Languages) -> None:
        self.source = source
        self.pictures = pictures
        self.posts = posts
        self.languages = languages
        # (channel, replay ref, step) → the post's message id; None while it is on its way.
        self._shown: OrderedDict[tuple[int, str, int], int | None] = OrderedDict()

    # --- the command -----------------------------------------------------------------------

    async def open(self, interaction: Interaction, hand: str | None,
                   file: discord.Attachment | None) -> None:
        """``/nlk replay``: the file if one is attached, else the channel's hand."""
        place_of(interaction)
        assert interaction.channel_id is not None
        try:
            if file is not None:
                if file.size > MAX_FILE:
                    raise ReplayRefused(ReplayReason.TOO_BIG, limit=MAX_FILE // 1000)
                try:
                    data = await file.read()
                except discord.HTTPException:
                    raise ReplayRefused(ReplayReason.UNREADABLE) from None
                opened = await self.source.from_file(data)
            else:
                try:
                    opened = await self.source.from_channel(interaction.channel_id, hand)
                except NoTable:
                    raise ReplayRefused(ReplayReason.NONE_YET) from None
        except ReplayRefused as refused:
            await say(interaction, refusal_text(refused, lang_of(interaction)))
            return
        await self._answer(interaction, opened, 0, edit=False)

    # --- the buttons -----------------------------------------------------------------------

    async def click(self, interaction: Interaction, ref: str, at: int, act: Act,
                    values: list[str]) -> None:
        """A step button or the jump menu of a replay message."""
        try:
            opened = await self.source.by_ref(ref, place_of(interaction))
            if act is Act.SHOW:
                await self.show(interaction, opened, at)
                return
            if act is Act.OPEN:  # a Replay button on a message that is not a replay
                await self._answer(interaction, opened, 0, edit=False)
                return
            marks = await asyncio.to_thread(landmarks, opened.replay)
            target = {Act.FIRST: 0, Act.PREV: at - 1, Act.NEXT: at + 1,
                      Act.LAST: marks.last}.get(act)
            if act is Act.JUMP:
                target = int(values[0]) if values and values[0].isdigit() else None
            if target is None or not 0 <= target <= marks.last:
                raise ReplayRefused(ReplayReason.NO_STEP)
            await self._answer(interaction, opened, target, edit=True, marks=marks)
        except ReplayRefused as refused:
            await say(interaction, refusal_text(refused, lang_of(interaction)))
        except Refusal as refusal:
            await say(interaction, describe(refusal, lang_of(interaction))[0])
        except Exception as error:  # never a traceback for the reader: a code, logged
            await say(interaction, describe(error, lang_of(interaction))[0])

    async def unknown(self, interaction: Interaction) -> None:
        """A replay-shaped custom id that no version of the buttons made."""
        await say(interaction, refusal_text(ReplayRefused(ReplayReason.NO_STEP),
                                            lang_of(interaction)))

    async def show(self, interaction: Interaction, opened: Opened, at: int
                   ) -> None:
        """Post step ``at`` in the channel, in the server's language and picture style, as
        one paced message; tell the reader where it went."""
        assert interaction.channel_id is not None
        await interaction.response.defer()  # the post may wait its turn in the channel
        _ = translator(lang_of(interaction)).gettext
        marks = await asyncio.to_thread(landmarks, opened.replay)
        at = min(max(at, 0), marks.last)
        key = (interaction.channel_id, opened.ref, at)
        if key in self._shown:  # once per step and channel
            shown = self._shown[key]
            await say(interaction, _("That step is being shown in the channel already.")
                      if shown is None else
                      _("That step is already shown in the channel: {link}").format(
                          link=message_url(interaction.guild_id, interaction.channel_id,
                                           shown)))
            return
        self._shown[key] = None
        message_id: int | None = None
        try:
            message_id = await self._post(interaction, opened, marks, at)
        finally:
            if message_id is None:
                self._shown.pop(key, None)  # not posted (refused, failed): try again later
            else:
                self._shown[key] = message_id
                while len(self._shown) > SHOWN_KEPT:
                    self._shown.popitem(last=False)
        if message_id is None:
            await say(interaction, _("I couldn't post in this channel, so nothing was shown. "
                                     "Ask a moderator to let me send messages and files "
                                     "here."))
            return
        await say(interaction, _("Shown in the channel: {link}").format(
            link=message_url(interaction.guild_id, interaction.channel_id, message_id)))

    async def _post(self, interaction: Interaction, opened: Opened, marks: Landmarks,
                    at: int) -> int | None:
        """Post step ``at`` with who shared it; the message's id, or None if refused."""
        assert interaction.channel_id is not None
        public = await self.languages.public(place_of(interaction), interaction)
        step = await asyncio.to_thread(step_of, opened.replay, at)
        style = SERVER_CHOICES[SERVER_DEFAULT]
        try:
            style = await self.pictures.styles.public(place_of(interaction))
        except Exception:
            log.warning("could not read a server's picture style", exc_info=True)
        embed, picture = await self._drawn(opened, marks, step, public, public, style)
        embed.set_author(name=translator(public).gettext("Shown by {name}").format(
            name=display_name(interaction.user)))
        files = [picture.file()] if picture is not None else None
        if interaction.guild_id is None:
            # A group DM or a DM: the bot is not in it, so the tap's own token posts it.
            try:
                sent = await interaction.followup.send(
                    embed=embed, files=files or discord.utils.MISSING, wait=True)
            except discord.HTTPException:
                log.info("could not show a replay step through a tap's token", exc_info=True)
                return None
            return sent.id
        message = await self.posts.post(
            interaction.channel_id, interaction.guild_id, "", embed=embed, files=files)
        return message.id if message is not None else None

    # --- drawing ---------------------------------------------------------------------------

    async def _answer(self, interaction: Interaction, opened: Opened, at: int,
                      *, edit: bool, marks: Landmarks | None = None) -> None:
        lang = lang_of(interaction)  # a private step: the reader's words and card letters
        if marks is None:
            marks = await asyncio.to_thread(landmarks, opened.replay)
        step = await asyncio.to_thread(step_of, opened.replay, at)
        style = await self._private_style(interaction)
        embed, picture = await self._drawn(opened, marks, step, lang, lang, style)
        view = step_view(opened, marks, step.number, lang)
        if edit:
            await interaction.response.edit_message(embed=embed, view=view,
                                                    **edit_files(embed, picture))
        else:
            await interaction.response.send_message(embed=embed, view=view, ephemeral=True,
                                                    **send_files(embed, picture))

    async def _private_style(self, interaction: Interaction) -> str:
        return await self.pictures.styles.private_or_known(interaction.user.id,
                                                           place_of(interaction))

    async def _drawn(self, opened: Opened, marks: Landmarks, step: Step, lang: Lang,
                     letters: Lang, style: str) -> tuple[discord.Embed, Picture | None]:
        """The step's words and, unless the reader chose text, its picture (its alt text
        in ``lang``, its cards in ``letters``)."""
        embed = step_embed(opened, marks, step, lang, letters=letters)
        try:
            scene, alt = step_scene(step, lang, style == FOUR, letters=letters)
        except Exception:
            log.warning("could not build a replay picture; sending text", exc_info=True)
            return embed, None
        picture = None if style == OFF else await self.pictures.replay(scene, alt,
                                                                       REPLAY_FILE)
        if picture is None:  # text only: the table in the words of the picture's alt text
            embed.add_field(name=translator(lang).gettext("The table at this step"),
                            value=alt, inline=False)
        return embed, picture


def refusal_text(refused: ReplayRefused, lang: Lang) -> str:
    """The one line a reader gets for a replay that can't be opened."""
    _ = translator(lang).gettext
    details = refused.details
    if refused.reason is ReplayReason.IN_PLAY:
        return _("Hand {number} of table {table} is still being played: its replay would "
                 "reveal the players' hidden hands. Replay it once it is over.").format(
                     number=details["number"], table=details["table"])
    if refused.reason is ReplayReason.NONE_YET:
        return _("No hand has finished in this channel yet: a hand can be replayed once it "
                 "is over.")
    if refused.reason is ReplayReason.TOO_BIG:
        return _("That file is too big for a replay (at most {limit} KB).").format(
            limit=details["limit"])
    if refused.reason is ReplayReason.BAD_FILE:
        return _("That file is not a replay NLK can open: {problem}.").format(
            problem=file_problem(details, lang))
    if refused.reason is ReplayReason.UNREADABLE:
        return _("Discord didn't let me read that file; please attach it again.")
    if refused.reason is ReplayReason.GONE:
        return _("That replay is no longer here, so nothing changed. Open it again with "
                 "`/nlk replay`.")
    return _("That replay button doesn't make sense any more; nothing changed.")


# Why a file is not a replay, in the reader's words (``Record.why``): whole sentences from
# the catalogue, never the reader's English (issue 37).
FILE_PROBLEMS = {
    "utf8": N_("it is not UTF-8 text"),
    "empty": N_("it holds no replay"),
    "json": N_("it is not valid JSON (line {line}, column {column})"),
    "not_object": N_("a replay must be a JSON object"),
    "format": N_("it is in another format than nlk-replay/1"),
    "players": N_("its players must be a list of 2 to 9 names"),
    "variant": N_("its variant holds rules NLK doesn't know"),
    "position": N_("its position must be a collect or shed position, with a list of cards "
                   "for each player"),
    "start": N_("it needs a dealer and a deck, or a position"),
    "deck": N_("its deck must be a list of cards, top first"),
    "deal": N_("its cards don't make a deal NLK can play"),
    "actions": N_("its actions must be a list"),
    "action": N_("its action number {index} is not one NLK knows"),
    "seat": N_("the seat of its action number {index} is not a seat number"),
    "invalid": N_("it is not written as nlk-replay/1 describes"),
}


def file_problem(details: Mapping[str, object], lang: Lang) -> str:
    """Why the file is not a replay, in ``lang``, with its numbers (line, column, action)."""
    template = FILE_PROBLEMS.get(str(details.get("why")), FILE_PROBLEMS["invalid"])
    numbers = {key: str(value + 1 if key == "index" else value)  # actions counted from 1
               for key, value in details.items()
               if isinstance(value, int) and not isinstance(value, bool)}
    try:
        return translator(lang).gettext(template).format(**numbers)
    except (KeyError, IndexError):  # a number missing: say it without
        return translator(lang).gettext(FILE_PROBLEMS["invalid"])


async def hand_choices(servers: GuildService, interaction: Interaction,
                       current: str) -> list[app_commands.Choice[str]]:
    """The channel's latest finished hands, newest first, those matching what is typed (as
    ``/nlk export`` offers them)."""
    if interaction.channel_id is None:
        return []
    _ = translator(lang_of(interaction)).gettext
    choices = []
    for record in await servers.finished_hands(interaction.channel_id):
        value = f"{record.table_id}.{record.number}"
        name = _("Table {table} · hand {number} · {players}").format(
            table=record.table_id, number=record.number,
            players=", ".join(shown_name(n, lang_of(interaction)) for n in record.names))
        if current.strip() in value or current.strip().lower() in name.lower():
            choices.append(app_commands.Choice(name=name[:100], value=value))
    return choices[:25]
