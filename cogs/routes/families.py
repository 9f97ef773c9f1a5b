"""Buttons and selects that survive restarts: their custom ids carry the table and version.

What we send is in ``cogs/widgets``. Receiving: one ``DynamicItem`` class per family of
actions (``cogs/widgets/ids.py``), made by ``families`` for the handler it is given (the
cog's ``Clicks``, from the composition root) and registered when the NLK cog loads, so any NLK
button ever sent (before or after a restart) is parsed once by its family's template and
handed to that handler with typed values.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any

import discord

from cogs.answers.interaction import let_go
from cogs.client import Interaction, Router
from cogs.widgets import ids
from cogs.widgets.ids import Look, Move, Page, Read, Seating, Target

Families = tuple[type[discord.ui.DynamicItem[Any]], ...]


def refusing(name: str, template: str, refuse: Callable[[Interaction], Awaitable[None]]
             ) -> type[discord.ui.DynamicItem[Any]]:
    """The family ``name`` of ids shaped like one of ours (``template``) that no version of
    the buttons made (forged or damaged): every click on one is answered by ``refuse``."""

    class Refused(discord.ui.DynamicItem[discord.ui.Item[Any]], template=template):
        @classmethod
        async def from_custom_id(cls, interaction: discord.Interaction[Any],
                                 item: discord.ui.Item[Any], match: re.Match[str]
                                 ) -> Refused:
            return cls(item)

        async def callback(self, interaction: discord.Interaction[Any]) -> None:
            try:
                await refuse(interaction)
            finally:
                let_go(interaction)

    Refused.__name__ = Refused.__qualname__ = name
    return Refused


def targeted(name: str, template: str,
             answer: Callable[[Interaction, Target], Awaitable[None]]
             ) -> type[discord.ui.DynamicItem[Any]]:
    """The button family ``name`` whose ids carry only a target (a table, and an argument):
    a click is handed to ``answer`` with it."""

    class Targeted(discord.ui.DynamicItem[discord.ui.Button[Any]], template=template):
        def __init__(self, item: discord.ui.Button[Any], target: Target) -> None:
            super().__init__(item)
            self.target = target

        @classmethod
        async def from_custom_id(cls, interaction: discord.Interaction[Any],
                                 item: discord.ui.Item[Any], match: re.Match[str]
                                 ) -> Targeted:
            assert isinstance(item, discord.ui.Button)
            return cls(item, Target.of(match))

        async def callback(self, interaction: discord.Interaction[Any]) -> None:
            await answer(interaction, self.target)

    Targeted.__name__ = Targeted.__qualname__ = name
    return Targeted


def families(router: Router) -> Families:
    """The button and select families of the tables, each handing its clicks to
    ``router``."""

    class MoveButton(discord.ui.DynamicItem[discord.ui.Button[Any]],
                     template=ids.template(Move)):
        """A move: draw, keep, give, play a card, take."""

        def __init__(self, item: discord.ui.Button[Any], target: Target, move: Move) -> None:
            super().__init__(item)
            self.target, self.move = target, move

        @classmethod
        async def from_custom_id(cls, interaction: discord.Interaction[Any],
                                 item: discord.ui.Item[Any], match: re.Match[str]
                                 ) -> MoveButton:
            assert isinstance(item, discord.ui.Button)
            return cls(item, Target.of(match), Move(match["action"]))

        async def callback(self, interaction: discord.Interaction[Any]) -> None:
            await router.move(interaction, self.target, self.move, [])

    class CardSelect(discord.ui.DynamicItem[discord.ui.Select[Any]],
                     template=ids.template([Move.PLAY], ids.SELECT)):
        """A card chosen from a menu of one suit's plays."""

        def __init__(self, item: discord.ui.Select[Any], target: Target) -> None:
            super().__init__(item)
            self.target = target

        @classmethod
        async def from_custom_id(cls, interaction: discord.Interaction[Any],
                                 item: discord.ui.Item[Any], match: re.Match[str]
                                 ) -> CardSelect:
            assert isinstance(item, discord.ui.Select)
            return cls(item, Target.of(match))

        async def callback(self, interaction: discord.Interaction[Any]) -> None:
            await router.move(interaction, self.target, Move.PLAY,
                                              list(self.item.values))

    class SeatButton(discord.ui.DynamicItem[discord.ui.Button[Any]],
                     template=ids.template(Seating)):
        """The lobby, the seats and the table: join, leave, start, AI seats, end …"""

        def __init__(self, item: discord.ui.Button[Any], target: Target, act: Seating) -> None:
            super().__init__(item)
            self.target, self.act = target, act

        @classmethod
        async def from_custom_id(cls, interaction: discord.Interaction[Any],
                                 item: discord.ui.Item[Any], match: re.Match[str]
                                 ) -> SeatButton:
            assert isinstance(item, discord.ui.Button)
            return cls(item, Target.of(match), Seating(match["action"]))

        async def callback(self, interaction: discord.Interaction[Any]) -> None:
            await router.seat(interaction, self.target, self.act)

    class LookButton(discord.ui.DynamicItem[discord.ui.Button[Any]],
                     template=ids.template(Look)):
        """Something to see privately: my hand, the moves, the fair deal."""

        def __init__(self, item: discord.ui.Button[Any], target: Target, look: Look) -> None:
            super().__init__(item)
            self.target, self.look = target, look

        @classmethod
        async def from_custom_id(cls, interaction: discord.Interaction[Any],
                                 item: discord.ui.Item[Any], match: re.Match[str]
                                 ) -> LookButton:
            assert isinstance(item, discord.ui.Button)
            return cls(item, Target.of(match), Look(match["action"]))

        async def callback(self, interaction: discord.Interaction[Any]) -> None:
            await router.look(interaction, self.target, self.look)

    # A page of the leaderboard; a "📖 R3.3" button under something said at a table (the
    # rule, privately). (The router is looked up at the click, as in the classes above:
    # the families are also made without one, to read ids.)
    PageButton = targeted("PageButton", ids.template(Page),
                          lambda interaction, target: router.page(interaction, target))
    RuleButton = targeted("RuleButton", ids.rule_template(),
                          lambda interaction, target: router.rule(interaction, target))

    class UnknownItem(discord.ui.DynamicItem[discord.ui.Item[Any]],
                      template=ids.unknown_template({ids.BUTTON: [*Move, *Seating, *Look, *Page,
                                                                  *Read],
                                                     ids.SELECT: [Move.PLAY]})):
        """An NLK-shaped id no family knows (from a future or a forged message): refused."""

        def __init__(self, item: discord.ui.Item[Any], target: Target) -> None:
            super().__init__(item)
            self.target = target

        @classmethod
        async def from_custom_id(cls, interaction: discord.Interaction[Any],
                                 item: discord.ui.Item[Any], match: re.Match[str]
                                 ) -> UnknownItem:
            return cls(item, Target.of(match))

        async def callback(self, interaction: discord.Interaction[Any]) -> None:
            await router.unknown(interaction, self.target)

    return (MoveButton, CardSelect, SeatButton, LookButton, PageButton, RuleButton,
            UnknownItem)
