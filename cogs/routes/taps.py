"""A tap on one of the bot's buttons or selects, handed straight to its family.

discord.py's view store answers a ``DynamicItem`` by first building a whole ``View`` from the
tapped message: every button and select on it made an object, in a view that holds them and
that they hold back, before the family's item is swapped in. The bot never reads that view
(each family is answered by its custom id alone), and with up to 25 components a message it
was about 3 % of the event loop's time and most of the bot's cyclic garbage (a view and its
items keep each other alive): at 50 tables, Python's collector ran every few seconds, each
time with the event loop stopped for 15–28 ms, which every tap arriving meanwhile waited out.

``Taps`` does what the view store does for a dynamic item, with the one component tapped:
each family whose template matches the custom id makes its item from a plain button or
select carrying that id (and, for a select, the values chosen, read as discord.py reads them),
and runs its check and callback. It listens to every interaction; the families are no longer
given to discord.py's view store, so no tap is answered twice.
"""

from __future__ import annotations

import logging
from typing import Any

import discord

from cogs.routes.families import Families

log = logging.getLogger(__name__)


class Taps:
    """Component interactions, each handed to the families whose template matches it."""

    def __init__(self, families: Families) -> None:
        self.families = families

    async def on_interaction(self, interaction: discord.Interaction[Any]) -> None:
        """discord.py's ``on_interaction`` event: a tap on a component, answered by its
        families (anything else is someone else's)."""
        if interaction.type is not discord.InteractionType.component or \
                interaction.message is None:
            return  # as the view store: a tap always comes with its message
        data: Any = interaction.data or {}
        custom_id, kind = data.get("custom_id"), data.get("component_type")
        if not isinstance(custom_id, str):
            return
        for family in self.families:
            match = family.__discord_ui_compiled_template__.fullmatch(custom_id)
            if match is not None:
                await self._run(family, interaction, tapped(kind, custom_id), match)

    @staticmethod
    async def _run(family: type[discord.ui.DynamicItem[Any]],
                   interaction: discord.Interaction[Any], base: discord.ui.Item[Any] | None,
                   match: Any) -> None:
        """As discord.py's ``ViewStore.schedule_dynamic_item_call``: make the family's item,
        refresh its state from the tap, check it and run its callback; a failure is
        logged (each family answers its own refusals)."""
        if base is None:
            return  # a kind of component the bot never sends
        try:
            item = await family.from_custom_id(interaction, base, match)
        except Exception:
            log.exception("ignoring a failure making %r's item", family)
            return
        item._refresh_state(interaction, interaction.data)  # type: ignore[arg-type]
        try:
            allow = await item.interaction_check(interaction)
        except Exception:
            allow = False
        if not allow:
            return
        try:
            await item.callback(interaction)
        except Exception:
            log.exception("ignoring a failure in %r's callback", family)


def tapped(kind: Any, custom_id: str) -> discord.ui.Item[Any] | None:
    """The component tapped, as discord.py would have made it from the message, with only
    what a family reads of it: its custom id (a select's values come with the tap)."""
    if kind == discord.ComponentType.button.value:
        return discord.ui.Button(custom_id=custom_id)
    if kind == discord.ComponentType.string_select.value:
        return discord.ui.Select(custom_id=custom_id)
    return None
