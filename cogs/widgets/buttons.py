"""The buttons and selects the bot sends: each carries a custom id from ``cogs.widgets.ids``
and is answered by its family in ``cogs.routes.families``, so none needs to be kept once sent."""

from __future__ import annotations

from typing import Any

import discord


class Buttons(discord.ui.View):
    """The buttons of one message, to send and forget.

    Every NLK button is answered by a ``DynamicItem`` found by its custom id, so discord.py
    need not keep the view once it is sent. The view is stopped at once so that discord.py
    doesn't: it would otherwise hold each ephemeral hand's view for 15 minutes.
    """

    def __init__(self) -> None:
        super().__init__(timeout=None)
        self.stop()

    def add_item(self, item: discord.ui.Item[Any]) -> Buttons:
        """Add ``item`` without its link back to this view: nothing asks one of these items
        for its view (each is answered by its custom id), and a view and its items keeping
        each other left every message's buttons, drawn on every change, to Python's cyclic
        collector."""
        super().add_item(item)
        item._view = None
        return self


class NLKButton(discord.ui.Button[Any]):
    """Any button on an NLK message (its custom id from ``ids.button_id``)."""

    def __init__(self, custom_id: str, label: str,
                 style: discord.ButtonStyle = discord.ButtonStyle.secondary,
                 row: int | None = None, *, disabled: bool = False) -> None:
        super().__init__(custom_id=custom_id, label=label[:80], style=style, row=row,
                         disabled=disabled)


class NLKSelect(discord.ui.Select[Any]):
    """A select menu of cards (used when a hand has too many legal plays for buttons)."""

    def __init__(self, custom_id: str, placeholder: str,
                 options: list[discord.SelectOption], row: int | None = None) -> None:
        super().__init__(custom_id=custom_id, placeholder=placeholder[:150], options=options,
                         min_values=1, max_values=1, row=row)
