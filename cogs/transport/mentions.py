"""Who a message may notify: the bot mentions people one at a time, and nobody else."""

from __future__ import annotations

import discord


def only_user(user_id: int | None) -> discord.AllowedMentions:
    """Notify ``user_id`` alone (None: nobody), however the text reads.

    >>> only_user(7).to_dict()["users"], only_user(None).to_dict()["parse"]
    ([7], [])
    """
    return discord.AllowedMentions(everyone=False, roles=False,
                                   users=[discord.Object(user_id)] if user_id else False)
