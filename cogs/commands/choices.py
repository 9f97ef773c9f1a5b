"""The choices the slash commands offer (Discord shows them as pickers)."""

from __future__ import annotations

from discord import app_commands

from cogs.i18n.translator import L_
from rules.i18n import N_, Lang

LAST_CARD_CHOICES = [
    app_commands.Choice(name=L_("keep — whoever draws it keeps it"), value="keep"),
    app_commands.Choice(name=L_("free — it may be given away"), value="free"),
]
# Discord's picker offers only these, so no value is refused after it is sent (an integer
# option's own limits can't say "0, or 15 to 3600").
TIMER_CHOICES = [
    app_commands.Choice(name=L_("no timer"), value=0),
    app_commands.Choice(name=L_("15 seconds"), value=15),
    app_commands.Choice(name=L_("30 seconds"), value=30),
    app_commands.Choice(name=L_("45 seconds"), value=45),
    app_commands.Choice(name=L_("1 minute"), value=60),
    app_commands.Choice(name=L_("90 seconds"), value=90),
    app_commands.Choice(name=L_("2 minutes"), value=120),
    app_commands.Choice(name=L_("3 minutes"), value=180),
    app_commands.Choice(name=L_("5 minutes"), value=300),
    app_commands.Choice(name=L_("10 minutes"), value=600),
    app_commands.Choice(name=L_("30 minutes"), value=1800),
    app_commands.Choice(name=L_("1 hour"), value=3600),
]
LANGUAGE_NAMES = {Lang.EN: N_("English"), Lang.HU: N_("Hungarian"), Lang.FR: N_("French")}
LANGUAGE_CHOICES = [
    app_commands.Choice(name=L_("The server's own language"), value="auto"),
    *(app_commands.Choice(name=L_(name), value=lang.value)
      for lang, name in LANGUAGE_NAMES.items()),
]
