"""The lesson buttons that receive clicks, before or after a restart: each custom id
(``cogs/lesson/ids.py``) names its lesson, step and move, parsed once here and handed to the
lesson's answers (``cogs/lesson/handler.py``) that ``lesson_families`` is given."""

from __future__ import annotations

import re
from typing import Any, Protocol

import discord

from cogs.answers.interaction import let_go
from cogs.client import Interaction
from cogs.lesson import ids
from cogs.routes.families import refusing


class LessonRouter(Protocol):
    """Where the lesson buttons hand their clicks."""

    async def click(self, interaction: Interaction, lesson: str, step: int, act: str
                    ) -> None: ...

    async def unknown(self, interaction: Interaction) -> None: ...


def lesson_families(lessons: LessonRouter) -> tuple[type[discord.ui.DynamicItem[Any]], ...]:
    """The lesson button families, each handing its clicks to ``lessons``."""

    class LessonStep(discord.ui.DynamicItem[discord.ui.Item[Any]], template=ids.TEMPLATE):
        """A move, or a way around the lesson, on a lesson message."""

        def __init__(self, item: discord.ui.Item[Any], lesson: str, step: int, act: str
                     ) -> None:
            super().__init__(item)
            self.lesson, self.step, self.act = lesson, step, act

        @classmethod
        async def from_custom_id(cls, interaction: discord.Interaction[Any],
                                 item: discord.ui.Item[Any], match: re.Match[str]
                                 ) -> LessonStep:
            return cls(item, *ids.parse(match))

        async def callback(self, interaction: discord.Interaction[Any]) -> None:
            try:
                await lessons.click(interaction, self.lesson, self.step, self.act)
            finally:
                let_go(interaction)

    return (LessonStep, refusing("UnknownLesson", ids.UNKNOWN, lambda ix: lessons.unknown(ix)))
