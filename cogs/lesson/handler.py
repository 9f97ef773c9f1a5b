"""Answers ``/nlk learn`` and its buttons: the guided first hand (``rules/lesson.py``), drawn
into the learner's own private message. Each tap's answer edits that message: a right move
moves the lesson on, a wrong one is explained and nothing is played. The learner's step is
stored, so ``/nlk learn`` resumes after a restart or after the message has expired.

Every message goes out through ``send``, one small function, so that it can later move onto
the live tables' owner as a kind of message of its own.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from functools import lru_cache

import discord

from bot import errors
from bot.db.lesson_queries import LessonQueries, Progress
from cogs.answers import rulebook
from cogs.answers.interaction import display_name, place_of
from cogs.answers.replies import describe, say
from cogs.client import Interaction
from cogs.i18n.mentions import linked
from cogs.i18n.translator import lang_of
from cogs.lesson.ids import Way, act_of, action_of, lesson_id, way_of
from cogs.pictures import (
    FOUR,
    OFF,
    Picture,
    Pictures,
    answer_left,
    edit_files,
    send_files,
)
from cogs.pictures.replay import REPLAY_FILE, Layout, ReplayScene, replay_scene, steady
from cogs.render.text import card_text, label_name
from cogs.widgets.buttons import Buttons, NLKButton
from rules import lesson
from rules.actions import Act, Action
from rules.engine import Game
from rules.i18n import DEFAULT, N_, Lang, translator

log = logging.getLogger(__name__)

COLOUR = discord.Colour.from_rgb(88, 160, 110)
LEARNED = N_("""\
**You have played your first hand of NLK.** What you learned:
• The pack: the Aces down to one rank lower for each player more (R1.2); the dealer's \
next player starts (R3.1).
• Collect (R3): give the top card of your stack, as many as fit, then draw; give a drawn card \
where it is one rank higher, whatever the suit, and draw again, or keep it; the last talon \
card is kept and makes trump.
• Shed (R4): beat in suit or with a trump, or take the trick's bottom card; a trick holds as \
many cards as players were in when it was led; play your last card to be out.
• The last player holding cards loses.
Ready for a real table? Start one with `/nlk new`, or tap below to play the lesson again.""")
# Under a player's first refusal at a real table, once ever.
FIRST_REFUSAL = N_("New to NLK? `/nlk learn` plays a guided first hand with you, privately, in "
                   "about 3 minutes.")
# The same in a group DM or a DM, where not everyone can run `/nlk`: with the lobby's button.
FIRST_REFUSAL_BUTTON = N_("New to NLK? The button below plays a guided first hand with you, "
                          "privately, in about 3 minutes.")
# Refusals about the bot or a button rather than the game: no lesson would have helped.
NOT_THE_GAME = (errors.InputError, errors.Stale, errors.WrongChannel, errors.StorageUnavailable,
                errors.BotLacksPermissions)


async def send(interaction: Interaction, embed: discord.Embed, view: discord.ui.View,
               picture: Picture | None, *, edit: bool) -> None:
    """The one way a lesson message goes out: a new private message, or the tapped one
    edited by the tap's own answer; once the answer was deferred (practice's AI seats took
    long to think), the deferred answer edited into it."""
    if interaction.response.is_done():
        await interaction.edit_original_response(content=None, embed=embed, view=view,
                                                 **edit_files(embed, picture))
    elif edit:
        await interaction.response.edit_message(content=None, embed=embed, view=view,
                                                **edit_files(embed, picture))
    else:
        await interaction.response.send_message(embed=embed, view=view, ephemeral=True,
                                                **send_files(embed, picture))


async def in_time(interaction: Interaction, drawing: Awaitable[Picture | None]
                  ) -> Picture | None:
    """A picture the reader waits for (a lesson's step, a practice hand's): if it is not
    drawn by the time the answer must go (``ANSWER_BY`` after the interaction was made: a
    busy machine, the drawing processes still starting), the answer is deferred, so that
    Discord's 3 seconds never pass unanswered, and ``send`` edits it in once drawn."""
    picture = asyncio.ensure_future(drawing)
    await asyncio.wait((picture,), timeout=answer_left(interaction))
    if not picture.done():
        await defer_answer(interaction)
    return await picture


async def defer_answer(interaction: Interaction) -> None:
    """Answer ``interaction`` for now, if it is not yet answered, so that Discord's 3 seconds
    never pass while the step is still being worked out (``send`` edits it in): a command's
    answer shows "thinking…" meanwhile, a tap's leaves the message as it is."""
    if not interaction.response.is_done():
        await interaction.response.defer(
            ephemeral=True,
            thinking=interaction.type is discord.InteractionType.application_command)


class Lessons:
    """Lessons for any number of learners; nothing is kept between answers but the stored
    step, so a button answered after a restart is answered as before it."""

    def __init__(self, progress: LessonQueries, pictures: Pictures) -> None:
        self.progress = progress
        self.pictures = pictures
        self._linked: set[int] = set()  # shown the lesson's link (the database keeps it too)

    # --- the command -----------------------------------------------------------------------

    async def open(self, interaction: Interaction) -> None:
        """``/nlk learn``: the lesson where the learner left it, or its end if finished."""
        try:
            stored = await self._stored(interaction.user.id)
            step = lesson.STEPS if stored.finished else stored.step
            await self._answer(interaction, step, edit=False)
        except Exception as error:  # never a traceback for the learner: a code, logged
            await say(interaction, describe(error, lang_of(interaction))[0])

    # --- the buttons -----------------------------------------------------------------------

    async def click(self, interaction: Interaction, name: str, step: int, act: str) -> None:
        """A move or a way around the lesson, tapped on a lesson message."""
        _ = translator(lang_of(interaction)).gettext
        try:
            rule = rulebook.rule_of(act)
            if rule is not None:  # a "📖 R3.3" button: the rule, privately; the lesson stays
                await rulebook.open_rule(interaction, rule)
                return
            if name != lesson.LESSON:
                await self.unknown(interaction)
                return
            stored = await self._stored(interaction.user.id)
            at = lesson.STEPS if stored.finished else stored.step
            way = way_of(act)
            if way is not None:
                at = lesson.SHED if way is Way.SKIP else 0
                await self._save(interaction.user.id, at)
                await self._answer(interaction, at, edit=True)
                return
            action = action_of(act)
            if step != at or action is None:  # an older message of this lesson
                await self._answer(interaction, at, edit=True, note=_(
                    "Your lesson had moved on from that message: here is where you are."))
                return
            verdict = lesson.judge(at, action)
            if not verdict.right:
                names = (display_name(interaction.user), *lesson.AI_NAMES)
                await self._answer(interaction, at, edit=True, note="❌ " + lesson.wrong_words(
                    verdict, lang_of(interaction), names), cites=(verdict.rule or "",))
                return
            await self._save(interaction.user.id, at + 1)
            await self._answer(interaction, at + 1, edit=True)
        except Exception as error:  # never a traceback for the learner: a code, logged
            await say(interaction, describe(error, lang_of(interaction))[0])

    async def unknown(self, interaction: Interaction) -> None:
        """A lesson-shaped custom id that no version of the buttons made."""
        await say(interaction, translator(lang_of(interaction)).gettext(
            "That lesson button doesn't make sense any more; nothing changed. Open the lesson "
            "again with `/nlk learn`."))

    async def link_once(self, user_id: int, refusal: errors.Refusal) -> bool:
        """Whether this refusal at a real table is to link the lesson: a player's first one
        about the game, once ever (a database that can't say so shows no link)."""
        if isinstance(refusal, NOT_THE_GAME) or user_id in self._linked:
            return False
        try:
            first = await self.progress.link_once(user_id)
        except Exception:
            log.warning("could not read who was shown the lesson's link", exc_info=True)
            return False
        self._linked.add(user_id)
        return first

    # --- progress --------------------------------------------------------------------------

    async def _stored(self, user_id: int) -> Progress:
        found = await self.progress.progress(user_id)
        if found is None or found.lesson != lesson.LESSON:
            return Progress(lesson.LESSON, 0, False)
        return found

    async def _save(self, user_id: int, step: int) -> None:
        await self.progress.save_progress(
            user_id, Progress(lesson.LESSON, min(step, lesson.STEPS), step >= lesson.STEPS))

    # --- drawing ---------------------------------------------------------------------------

    def _coach(self, here: lesson.Situation, lang: Lang) -> str:
        label = button_label(here.wanted, here, lang) if here.wanted is not None else ""
        return lesson.coach_words(here.coach, lang, label)

    async def _answer(self, interaction: Interaction, step: int, *, edit: bool,
                      note: str | None = None, cites: tuple[str, ...] = ()) -> None:
        lang = lang_of(interaction)
        _ = translator(lang).gettext
        names = (display_name(interaction.user), *lesson.AI_NAMES)
        here = situation(step, names)
        chapter = _(lesson.CHAPTERS[here.chapter])
        embed = discord.Embed(colour=COLOUR, title=_("Learn NLK · {chapter} ({number}/2)").format(
            chapter=chapter, number=here.chapter + 1))
        lines = [line for told in here.told for line in lesson.told_words(told, names, lang)]
        if here.finished:
            lines += ["", "💬 " + lesson.coach_words(here.coach, lang), "",
                      linked(interaction, _(LEARNED), lang)]
        else:
            lines += ["", "💬 " + self._coach(here, lang)]
        if note:
            lines = [note, "", *lines]
        embed.description = "\n".join(lines)[:4000]
        style = await self._style(interaction)
        picture: Picture | None = None
        try:
            scene, alt = lesson_scene(here, lang, style == FOUR)
            if style != OFF:
                picture = await in_time(interaction,
                                        self.pictures.replay(scene, alt, REPLAY_FILE))
            if picture is None:  # text only: the table in the words of the picture's alt text
                embed.add_field(name=_("The table at this step"), value=alt[:1024],
                                inline=False)
        except Exception:
            log.warning("could not draw a lesson picture; sending text", exc_info=True)
        await send(interaction, embed, lesson_view(here, lang, cites), picture, edit=edit)

    async def _style(self, interaction: Interaction) -> str:
        return await self.pictures.styles.private_or_known(interaction.user.id,
                                                           place_of(interaction))


@lru_cache(maxsize=1024)
def situation(step: int, names: tuple[str, ...]) -> lesson.Situation:
    """``lesson.situation``, worked out once for each step and learner's name: it is the same
    every time (a step's answer only reads it), and the latest learners' steps are answered
    without replaying the lesson's script or waiting for a thread to do it."""
    return lesson.situation(step, names)


def lesson_scene(here: lesson.Situation, lang: Lang, four: bool) -> tuple[ReplayScene, str]:
    """The step's picture and its alt text, its seats where every step of the lesson puts
    them."""
    return replay_scene(here.game, lang, four, lang, layout=lesson_layout())


@lru_cache(maxsize=1)
def lesson_layout() -> Layout:
    """One layout for the lesson's picture, with room for the cards of every step: its
    seats keep their places from step to step (issue 45: fitted to each step alone, they
    moved from one column to two and back as the stacks grew). Names and language take no
    room of their own, so any will do."""
    names = ("", *lesson.AI_NAMES)
    return steady([replay_scene(situation(step, names).game, DEFAULT, False)[0]
                   for step in range(lesson.STEPS + 1)])


def button_label(action: Action, here: lesson.Situation, lang: Lang) -> str:
    """A move's button, worded as at a real table."""
    return move_label(action, here.game, lang)


def move_label(action: Action, game: Game, lang: Lang) -> str:
    """A move's button in ``game``, worded as at a real table (the practice's too)."""
    _ = translator(lang).gettext
    if action.act == Act.GIVE and action.card is not None and action.to is not None:
        return _("Give {card} to {name}").format(card=card_text(action.card, lang),
                                                 name=label_name(game.names[action.to], lang))
    if action.act == Act.KEEP and game.drawn is not None:
        return _("Keep {card}").format(card=card_text(game.drawn, lang))
    if action.act == Act.PLAY and action.card is not None:
        return card_text(action.card, lang)
    if action.act == Act.TAKE and game.trick:
        return _("Take {card}").format(card=card_text(game.trick[0], lang))
    return _("Draw")


def lesson_view(here: lesson.Situation, lang: Lang, cites: tuple[str, ...] = ()
                ) -> discord.ui.View:
    """The step's moves (at most a hand's cards and **Take**: three rows), a "📖 R3.3"
    button for each rule the step's words cite (``cites``: a wrong tap's too), and the way
    to the other chapter or back to the start."""
    _ = translator(lang).gettext
    view = Buttons()
    for i, action in enumerate(here.options[:15]):
        view.add_item(NLKButton(lesson_id(lesson.LESSON, here.step, act_of(action)),
                                button_label(action, here, lang),
                                discord.ButtonStyle.primary, row=i // 5))
    for rule in rulebook.cited(cites, here.rules):
        view.add_item(NLKButton(lesson_id(lesson.LESSON, here.step, rulebook.act_of(rule)),
                                rulebook.label(rule), row=3))
    if here.finished:
        view.add_item(NLKButton(lesson_id(lesson.LESSON, here.step, Way.AGAIN),
                                _("Play the lesson again"), row=4))
    elif here.chapter == 0:
        view.add_item(NLKButton(lesson_id(lesson.LESSON, here.step, Way.SKIP),
                                _("Skip to phase 2: shed"), row=4))
    else:
        view.add_item(NLKButton(lesson_id(lesson.LESSON, here.step, Way.BACK),
                                _("Back to phase 1: collect"), row=4))
    return view
