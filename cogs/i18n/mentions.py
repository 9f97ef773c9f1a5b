"""Command mentions: a sentence's `` `/nlk new` `` becomes ``</nlk new:ID>``, which Discord
shows under the reader's own localised command name (``/nlk új``, ``/nlk nouvelle``) and
makes clickable; a public message follows the server's language, so typed English names
would be wrong for some readers.

Catalogue entries keep the English `` `/nlk name` `` (a test checks each translation keeps
them as its msgid has them); the ids are those of the commands as published, which the bot
reads at start-up (``NLKBot.command_ids``). Where no id is known (the commands were never
published there), the name is written as the reader types it, in their language.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from cogs.client import Interaction
from cogs.i18n.translator import NAME_CONTEXT
from rules.i18n import DEFAULT, Lang, translator

TYPED = re.compile(r"`/nlk( [a-z_]+)?`")
GROUP = "nlk"


def link_commands(text: str, ids: Mapping[int | None, int], guild_id: int | None,
                  lang: Lang = DEFAULT) -> str:
    """``text`` with every `` `/nlk name` `` as a mention of the command published for
    ``guild_id`` (a server's own commands first, then the global ones).

    >>> link_commands("Start one with `/nlk new`.", {None: 42}, 7)
    'Start one with </nlk new:42>.'
    >>> link_commands("Start one with `/nlk new`.", {}, 7, Lang.FR)
    'Start one with `/nlk nouvelle`.'
    """
    ident = ids.get(guild_id) if guild_id is not None else None
    ident = ident if ident is not None else ids.get(None)

    def mention(match: re.Match[str]) -> str:
        sub = (match[1] or "").strip()
        if ident is not None:
            return f"</{GROUP}{' ' + sub if sub else ''}:{ident}>"
        pgettext = translator(lang).pgettext
        words = [pgettext(NAME_CONTEXT, GROUP), *([pgettext(NAME_CONTEXT, sub)] if sub else [])]
        return "`/" + " ".join(words) + "`"

    return TYPED.sub(mention, text)


def linked(interaction: Interaction, text: str, lang: Lang = DEFAULT) -> str:
    """``text`` with its commands as mentions, for a reply to ``interaction``."""
    ids: Mapping[int | None, int] = getattr(interaction.client, "command_ids", {})
    return link_commands(text, ids, interaction.guild_id, lang)
