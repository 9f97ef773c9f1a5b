"""A numbered rule opened privately, in the reader's language (issue 45: every coach line,
hint and refusal cites "(R3.3)", and nothing showed what R3.3 says): ``/nlk rules
rule:R3.3`` with autocomplete, and "📖 R3.3" buttons beside the lesson's coach, the
practice's hint and refusals, and what a real table says privately (refusals, hints, moves
that played themselves). The paragraphs are ``rules/book.py``'s."""

from __future__ import annotations

import re

import discord
from discord import app_commands

from cogs.answers.replies import say
from cogs.client import Interaction
from cogs.i18n.translator import lang_of
from cogs.widgets.buttons import NLKButton
from cogs.widgets.ids import rule_id
from rules import book
from rules.i18n import Lang, quote, translator

COLOUR = discord.Colour.from_rgb(88, 101, 242)
PREFIX = "rule."
BUTTONS = 5  # one row of them at most
CITED = re.compile(r"\((R[1-6]\.[0-9])\)")  # "(R3.3)", as every sentence cites a rule


def act_of(rule: str) -> str:
    """A rule button's act: ``rule.R3.3``."""
    return PREFIX + rule


def rule_of(act: str) -> str | None:
    """The rule a button's act opens, or None for any other act."""
    return book.number(act.removeprefix(PREFIX)) if act.startswith(PREFIX) else None


def label(rule: str) -> str:
    return f"📖 {rule}"


def cited(*groups: tuple[str, ...] | list[str]) -> list[str]:
    """The rule numbers cited, each once, in order, at most a row of buttons; numbers the
    book lacks are left out."""
    found: list[str] = []
    for group in groups:
        for rule in group:
            if book.number(rule) is not None and rule not in found:
                found.append(rule)
    return found[:BUTTONS]


def cited_in(text: str) -> list[str]:
    """The rules ``text`` cites as "(R3.3)", each once, in order, at most a row of buttons.

    >>> cited_in("You can't give 9♥ to Ann: it doesn't fit (R3.2). (R3.2) (R9.9) (R4.5)")
    ['R3.2', 'R4.5']
    """
    return cited(CITED.findall(text))


def add_rule_buttons(view: discord.ui.View, table_id: int, rules: list[str],
                     row: int | None = None) -> discord.ui.View:
    """``view`` with a "📖 R3.3" button for each of ``rules`` at the table ``table_id``
    (answered by ``Clicks.rule``, whoever taps it, before or after a restart)."""
    for rule in rules:
        view.add_item(NLKButton(rule_id(table_id, rule), label(rule), row=row))
    return view


def rule_embed(rule: str, lang: Lang) -> discord.Embed:
    _ = translator(lang).gettext
    embed = discord.Embed(title=_("Rule {rule}").format(rule=rule), colour=COLOUR,
                          description=book.text(rule, lang))
    embed.set_footer(text=_("Every rule, briefly: /nlk rules · only you can see this"))
    return embed


async def open_rule(interaction: Interaction, typed: str, *, tapped: bool = False) -> None:
    """The rule ``typed`` names, to the reader alone; a polite line if there is none
    (``tapped``: a button named it, damaged or forged, so nothing was typed)."""
    lang = lang_of(interaction)
    rule = book.number(typed)
    if rule is None and tapped:
        await say(interaction, translator(lang).gettext(
            "That button names no rule of NLK (they are numbered R1.1 to R6.3), so there is "
            "nothing to open: `/nlk rules` opens any of them by its number."))
        return
    if rule is None:
        await say(interaction, translator(lang).gettext(
            "NLK's rules are numbered R1.1 to R6.3, and there is no rule {typed}: type a "
            "number or a word (like trump) and pick a rule from the list.").format(
                typed=quote(typed[:20], lang)))
        return
    embed = rule_embed(rule, lang)
    if interaction.response.is_done():
        await interaction.followup.send(embed=embed, ephemeral=True)
    else:
        await interaction.response.send_message(embed=embed, ephemeral=True)


def choices(typed: str, lang: Lang) -> list[app_commands.Choice[str]]:
    """Autocomplete for a rule: its number and the start of its paragraph, in ``lang``."""
    out = []
    for rule, paragraph in book.matching(typed, lang):
        name = f"{rule} · {paragraph}"
        out.append(app_commands.Choice(name=name if len(name) <= 100 else name[:99] + "…",
                                       value=rule))
    return out
