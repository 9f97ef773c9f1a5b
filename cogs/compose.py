"""The composition root: from the bot and its services, build everything the NLK cog is
made of (the languages, the live tables' owners and their kinds of message, the click
handlers, the replays and the boards) and the button families, each handed its handler.

Start-up calls ``compose`` once, in order, and gives the parts to the cog: nothing is looked
up by name, and nothing waits for an attribute to be set later.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from discord.ext import commands

from bot.guilds.replays import ReplaySource
from bot.guilds.service import GuildService
from bot.tables.clocks import Clocks, Notifier
from bot.tables.service import TableService
from cogs.commands.seasons import SeasonBoards
from cogs.i18n.translator import Languages
from cogs.lesson.handler import Lessons
from cogs.lesson.routes import lesson_families
from cogs.live.publisher import Publisher
from cogs.live.records import Notes
from cogs.practice.handler import Practices
from cogs.practice.routes import practice_families
from cogs.replay.handler import Replays
from cogs.routes.clicks import Clicks
from cogs.routes.families import Families, families
from cogs.routes.replay import replay_families
from cogs.routes.seasons import season_families


@dataclass(frozen=True)
class Parts:
    """What the NLK cog is made of."""

    service: TableService
    servers: GuildService
    languages: Languages
    publisher: Publisher  # the one way out, and every live table's owner
    clicks: Clicks  # the tables' buttons
    replays: Replays  # replays and exports
    boards: SeasonBoards  # the season boards' buttons
    families: Families  # every family of buttons, each with its handler
    lessons: Lessons  # /nlk learn, the guided first hand
    practices: Practices  # /nlk practice, unrated hands against AI seats


def compose(bot: commands.Bot, service: TableService, servers: GuildService,
            clocks: Callable[[Notifier], Clocks], *, channel_edits: int, rest_share: float,
            picture_processes: int = 0) -> Parts:
    """Build the NLK cog's parts (``clocks`` makes the tables' clocks, given what they tell;
    ``channel_edits``: channel posts and edits per 5 s;
    ``rest_share``: this process's share of the bot's global request budget;
    ``picture_processes``: the card pictures' own processes, none: a thread)."""
    languages = Languages(servers, bot)
    publisher = Publisher(bot, service, clocks, languages, Notes(servers.repo.settings),
                          edits_per_window=channel_edits, rest_share=rest_share,
                          picture_processes=picture_processes)
    lessons = Lessons(servers.repo.lessons, publisher.pictures)
    clicks = Clicks(service, servers, publisher, publisher.hands, publisher.messages,
                    languages, publisher.posts, lessons)
    replays = Replays(ReplaySource(servers.repo, servers), publisher.pictures,
                      publisher.posts, languages)
    boards = SeasonBoards(servers)
    practices = Practices(servers.repo.practice, publisher.pictures, publisher.clocks.pool)
    return Parts(service, servers, languages, publisher, clicks, replays, boards,
                 (*families(clicks), *replay_families(replays), *season_families(boards),
                  *lesson_families(lessons), *practice_families(practices)), lessons,
                 practices)
