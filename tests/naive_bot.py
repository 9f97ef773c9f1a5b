"""A naive NLK bot: the yardstick the load benchmark measures the real bot against (issue 44).

Not a product, and not to be deployed: the bot an engineer would write in an afternoon with
discord.py, to compare ours with (``python -m tests.load --naive``, ``--against-naive``).
One ``discord.Client`` with an app-command tree (``/nlk new``, ``/nlk hand``, ``/nlk
settings``), the tables in a dict in memory, the game played by the engine in ``rules/``.
Every tap applies the move and answers with ``interaction.response.edit_message`` (an embed
and buttons: the table message in phase one, the player's own hand in phase two); a move
made from a hand then edits the table message through the token of the newest tap that
answered it (``edit_original_response``). Nothing else: no database (a restart forgets every
table), no pictures, no pacing, no turn pings, no turn timer, no AI seats, no open hands kept
up to date, no rate-limit budget, no translations. Its buttons carry the real bot's custom
ids (``nlk:<table>:<version>:<action>[.<arg>]``) and its messages the words the load
driver reads (``tests/nlk_driver.py``), so the same driver plays both.

    python -m tests.naive_bot

reads the environment ``python -m bot`` reads: ``DISCORD_TOKEN``, ``DISCORD_API_BASE`` and
``DISCORD_GATEWAY_URL`` (where Discord is: the load benchmark's fake), ``NLK_DEV_GUILD``
(the server its commands are synced to; none: globally) and ``LOG_LEVEL``.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import os
import random
import re
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import discord
import discord.gateway
import discord.http
import yarl
from discord import app_commands

from rules import DRAW, KEEP, TAKE, Action, Card, Game, NLKError, Phase, Variant
from rules.cards import SUIT_SYMBOLS, SUITS

TOKEN_SECONDS = 14 * 60  # a tap's token edits its message for 15 minutes
MAX_PLAY_BUTTONS = 20  # four rows of five; the fifth holds Take and Refresh


@dataclass(eq=False)
class Table:
    id: int
    channel_id: int
    host: int
    seats: int
    variant: Variant
    players: list[tuple[int, str]]  # (user id, name), in seat order
    game: Game | None = None
    number: int = 0  # the hand's
    editor: discord.Interaction | None = None  # the newest tap answered with this message
    edited_at: float = 0.0
    message_id: int | None = None
    changes: int = 0  # bumped on every change; ``shown`` is what the message shows
    shown: int = 0
    editing: asyncio.Lock = field(default_factory=asyncio.Lock)  # one edit at a time

    def seat_of(self, user_id: int) -> int | None:
        return next((i for i, (uid, _) in enumerate(self.players) if uid == user_id), None)

    def name(self, seat: int) -> str:
        return self.players[seat][1]


def cid(table: Table, action: str, arg: str = "", version: int | None = None,
        prefix: str = "nlk") -> str:
    text = f"{prefix}:{table.id}:{'-' if version is None else version}:{action}"
    return f"{text}.{arg}" if arg else text


class Tap(discord.ui.DynamicItem[discord.ui.Item[Any]],
          template=r"nlks?:(?P<table>\d+):(?P<version>\d+|-):(?P<action>[a-z]+)"
                   r"(?:\.(?P<arg>[0-9A-Z.]+))?"):
    """Every button and select of the bot: a tap goes to ``NaiveBot.tap`` with its id."""

    def __init__(self, item: discord.ui.Item[Any], match: re.Match[str] | None = None) -> None:
        super().__init__(item)
        self.match = match or self.template.match(self.custom_id)

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str]) -> Tap:
        return cls(item, match)

    async def callback(self, interaction: discord.Interaction) -> None:
        bot = interaction.client
        assert isinstance(bot, NaiveBot)
        await bot.tap(interaction, self.match, interaction.data.get("values") or [])


def button(custom_id: str, label: str, style: discord.ButtonStyle = discord.ButtonStyle.secondary,
           row: int | None = None) -> Tap:
    return Tap(discord.ui.Button(custom_id=custom_id, label=label[:80], style=style, row=row))


def view_of(*items: Tap) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    for item in items:
        view.add_item(item)
    return view


def card(c: Card) -> str:
    return c.display


# --- what people see ------------------------------------------------------------------------


def table_message(table: Table) -> tuple[discord.Embed, discord.ui.View]:
    game = table.game
    footer = f"Table {table.id}"
    if game is None:  # the lobby
        seated = "\n".join(name for _, name in table.players) or "—"
        embed = discord.Embed(title="NLK table — waiting for players", description=(
            "Tap **Join** to take a seat. The host taps **Start** when everyone is in."))
        embed.add_field(name=f"Seats · {len(table.players)}/{table.seats}", value=seated)
        embed.set_footer(text=footer)
        return embed, view_of(button(cid(table, "join"), "Join", discord.ButtonStyle.success),
                              button(cid(table, "start"), "Start (host)",
                                     discord.ButtonStyle.primary))
    head = f"NLK · hand {table.number}"
    who = f"**{table.name(game.to_act)}**" if game.to_act is not None else ""
    items = []
    if game.phase is Phase.COLLECT:
        title = f"{head} · collect"
        if game.drawn is not None:
            line = f"▶ {who} drew **{card(game.drawn)}**: give it where it fits, or keep it."
        else:
            line = f"▶ {who}'s turn: give the top card where it fits, then draw."
        status = f"{line}\nTalon: **{len(game.talon)}** cards"
        for action in game.legal_actions():
            if action.act == "give":
                items.append(button(cid(table, "give", f"{action.card}.{action.to}",
                                        game.version),
                                    f"Give {card(action.card)} to {table.name(action.to)}"))
            else:
                items.append(button(cid(table, action.act, "", game.version),
                                    action.act.capitalize(), discord.ButtonStyle.primary))
        items.append(button(cid(table, "hand"), "My stack"))
    elif game.phase is Phase.SHED:
        title = f"{head} · shed · trump {SUIT_SYMBOLS[game.trump]}"
        status = f"▶ {who} to beat **{card(game.trick[-1])}** or take." if game.trick \
            else f"▶ {who} leads."
        items.append(button(cid(table, "hand"), "My hand", discord.ButtonStyle.primary))
    else:
        title = f"{head} · over"
        status = f"**{table.name(game.loser)}** loses this hand and deals the next. " \
                 "Tap **Next hand** to play again."
        items.append(button(cid(table, "next"), "Next hand", discord.ButtonStyle.success))
    embed = discord.Embed(title=title, description=status)
    lines = []
    for seat, (_, name) in enumerate(table.players):
        mark = "▶ " if seat == game.to_act else ""
        count = len(game.stacks[seat])
        if game.phase is Phase.COLLECT:
            top = f"**{card(game.stacks[seat][-1])}**" if count else "*empty*"
            lines.append(f"{mark}{name} — {top} ({count})")
        elif seat in game.out:
            lines.append(f"{name} — out ({game.out.index(seat) + 1})")
        else:
            lines.append(f"{mark}{name} — {count} cards")
    embed.add_field(name="Players", value="\n".join(lines), inline=False)
    if game.trick:
        embed.add_field(name="Trick", value=" → ".join(map(card, game.trick)), inline=False)
    embed.set_footer(text=f"{footer} · move {game.version}")
    return embed, view_of(*items)


def hand_message(table: Table, user_id: int) -> tuple[discord.Embed, discord.ui.View]:
    game, seat = table.game, table.seat_of(user_id)
    if game is None or seat is None:
        return discord.Embed(title="Your cards", description="You're not playing here."), \
            view_of()
    own = game.stacks[seat]
    items = []
    if game.phase is Phase.COLLECT:
        embed = discord.Embed(title=f"Your stack — {len(own)} cards", description=(
            "Bottom → top: " + (" ".join(map(card, own)) or "*empty*")))
    else:
        by_suit = [[c for c in own if c.suit == s] for s in range(4)]
        embed = discord.Embed(title=f"Your hand — {len(own)} cards", description="\n".join(
            f"{SUIT_SYMBOLS[s]} " + " ".join(card(c)[:-1] for c in cards)
            + (" (trump)" if s == game.trump else "")
            for s, cards in enumerate(by_suit) if cards))
        mine = game.to_act == seat
        if game.is_over:
            now = "You lost this hand." if game.loser == seat \
                else f"You finished {game.out.index(seat) + 1}."
        elif seat in game.out:
            now = f"You're out ({game.out.index(seat) + 1}). Well played!"
        elif not mine:
            now = "Not your turn yet."
        elif not game.trick:
            now = "**Your lead**: play any card."
        else:
            now = f"**Your turn**: beat {card(game.trick[-1])}, or take {card(game.trick[0])}."
        embed.add_field(name="Now", value=now, inline=False)
        if mine and not game.is_over:
            legal = game.legal_actions()
            plays = [a.card for a in legal if a.act == "play"]
            v = game.version
            if len(plays) <= MAX_PLAY_BUTTONS:
                items += [button(cid(table, "play", str(c), v), card(c), row=i // 5)
                          for i, c in enumerate(plays)]
            else:
                for row, suit in enumerate(sorted({c.suit for c in plays})):
                    options = [discord.SelectOption(label=card(c), value=str(c))
                               for c in plays if c.suit == suit]
                    items.append(Tap(discord.ui.Select(
                        custom_id=cid(table, "play", SUITS[suit], v, prefix="nlks"),
                        placeholder=f"Play {SUIT_SYMBOLS[suit]}", options=options, row=row)))
            if TAKE in legal:
                items.append(button(cid(table, "take", "", v), f"Take {card(game.trick[0])}",
                                    discord.ButtonStyle.danger, row=4))
    items.append(button(cid(table, "hand"), "Refresh", row=4))
    embed.set_footer(text=f"Table {table.id} · hand {table.number} · move {game.version} · "
                          "only you can see this")
    return embed, view_of(*items)


# --- the bot --------------------------------------------------------------------------------


class NaiveBot(discord.Client):
    def __init__(self, dev_guild: int | None) -> None:
        super().__init__(intents=discord.Intents.default())
        self.tree = app_commands.CommandTree(self)
        self.dev_guild = discord.Object(dev_guild) if dev_guild else None
        self.tables: dict[int, Table] = {}  # by id
        self.by_channel: dict[int, Table] = {}
        self.ids = itertools.count(1)
        self.tree.add_command(nlk_commands(self), guild=self.dev_guild)

    async def setup_hook(self) -> None:
        self.add_dynamic_items(Tap)
        await self.tree.sync(guild=self.dev_guild)

    async def tap(self, interaction: discord.Interaction, match: re.Match[str],
                  values: list[str]) -> None:
        table = self.tables.get(int(match["table"]))
        action, arg = match["action"], match["arg"] or ""
        if table is None:
            await say(interaction, "This table is gone.")
            return
        user = interaction.user.id
        on_table = not (interaction.message and interaction.message.flags.ephemeral)
        if on_table and interaction.message is not None:
            table.message_id = interaction.message.id
        if action == "hand":
            embed, view = hand_message(table, user)
            if on_table:  # My hand (My stack): a message of their own
                await interaction.response.send_message(embed=embed, view=view, ephemeral=True)
            else:  # Refresh, on it
                await interaction.response.edit_message(embed=embed, view=view)
            return
        if action == "join":
            if table.game is not None or table.seat_of(user) is not None \
                    or len(table.players) >= table.seats:
                await say(interaction, "You can't join this table now.")
                return
            table.players.append((user, interaction.user.display_name))
        elif action in ("start", "next"):
            game = table.game
            if action == "start" and (game is not None or user != table.host):
                await say(interaction, "Only the host starts the table, once.")
                return
            if action == "next" and (game is None or not game.is_over
                                     or table.seat_of(user) is None):
                await say(interaction, "The hand isn't over.")
                return
            if len(table.players) < 2:
                await say(interaction, "A table needs two players.")
                return
            dealer = random.randrange(len(table.players)) if game is None else game.loser
            table.game = Game.deal(len(table.players), random.Random(), dealer=dealer,
                                   variant=table.variant, names=[n for _, n in table.players])
            table.number += 1
        else:
            game, seat = table.game, table.seat_of(user)
            if game is None or match["version"] != str(game.version):
                await say(interaction, "That button is out of date.")
                return
            if seat is None or seat != game.to_act:
                await say(interaction, "It's not your turn.")
                return
            try:
                game.apply(move(action, arg, values), seat)
            except (NLKError, ValueError, IndexError) as error:
                await say(interaction, f"Not allowed: {error}")
                return
        table.changes += 1
        if on_table:  # the table message itself: answered with its new version
            embed, view = table_message(table)
            table.shown = table.changes
            await interaction.response.edit_message(embed=embed, view=view)
            table.editor, table.edited_at = interaction, time.monotonic()
        else:  # a move from the player's hand: the hand, then the table message
            embed, view = hand_message(table, user)
            await interaction.response.edit_message(embed=embed, view=view)
            await self.edit_table(table)

    async def edit_table(self, table: Table) -> None:
        """The table message shows the table as it is now (if it does not already), one
        edit at a time, so that an older edit never lands after a newer one."""
        async with table.editing:
            if table.shown >= table.changes:
                return
            table.shown = table.changes
            embed, view = table_message(table)
            if table.editor is not None and time.monotonic() - table.edited_at < TOKEN_SECONDS:
                await table.editor.edit_original_response(embed=embed, view=view)
            elif table.message_id is not None:
                channel = self.get_partial_messageable(table.channel_id)
                await channel.get_partial_message(table.message_id).edit(embed=embed, view=view)


def move(action: str, arg: str, values: list[str]) -> Action:
    if action == "draw":
        return DRAW
    if action == "keep":
        return KEEP
    if action == "take":
        return TAKE
    if action == "give":
        text, to = arg.split(".")
        return Action.give(Card.parse(text), int(to))
    if action == "play":
        return Action.play(Card.parse(values[0] if values else arg))
    raise ValueError(f"no such move: {action}")


async def say(interaction: discord.Interaction, text: str) -> None:
    await interaction.response.send_message(text, ephemeral=True)


def nlk_commands(bot: NaiveBot) -> app_commands.Group:
    nlk = app_commands.Group(name="nlk", description="Play NLK.")

    @nlk.command(name="new", description="Open an NLK table in this channel.")
    async def new(interaction: discord.Interaction,
                  seats: app_commands.Range[int, 2, 9] | None = None,
                  last_card: str | None = None, must_beat_in_suit: bool | None = None,
                  turn_timer: int | None = None) -> None:
        old = bot.by_channel.get(interaction.channel_id)
        if old is not None and (old.game is None or not old.game.is_over):
            await say(interaction, "This channel already has an open table.")
            return
        try:
            variant = Variant(last_card or "keep", bool(must_beat_in_suit))
        except NLKError as error:
            await say(interaction, str(error))
            return
        table = Table(next(bot.ids), interaction.channel_id, interaction.user.id, seats or 4,
                      variant, [(interaction.user.id, interaction.user.display_name)])
        if old is not None:
            del bot.tables[old.id]
        bot.tables[table.id] = bot.by_channel[table.channel_id] = table
        embed, view = table_message(table)
        await interaction.response.send_message(embed=embed, view=view)
        table.editor, table.edited_at = interaction, time.monotonic()

    @nlk.command(name="hand", description="Show your cards (only you see them).")
    async def hand(interaction: discord.Interaction) -> None:
        table = bot.by_channel.get(interaction.channel_id)
        if table is None:
            await say(interaction, "There is no table in this channel.")
            return
        embed, view = hand_message(table, interaction.user.id)
        await interaction.response.send_message(embed=embed, view=view, ephemeral=True)

    @nlk.command(name="settings", description="This server's defaults (none here).")
    async def settings(interaction: discord.Interaction, pictures: str | None = None,
                       hints: bool | None = None) -> None:
        await say(interaction, "This bot draws no pictures and gives no hints.")

    return nlk


def main() -> None:
    env = os.environ
    token = env.get("DISCORD_TOKEN", "")
    if not token:
        sys.exit("error: DISCORD_TOKEN is not set")
    if env.get("DISCORD_API_BASE"):
        discord.http.Route.BASE = env["DISCORD_API_BASE"].rstrip("/")
    if env.get("DISCORD_GATEWAY_URL"):
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(env["DISCORD_GATEWAY_URL"])
    guild = env.get("NLK_DEV_GUILD", "").strip()
    level = logging.getLevelName(env.get("LOG_LEVEL", "WARNING").upper())
    NaiveBot(int(guild) if guild.isdigit() else None).run(
        token, log_level=level if isinstance(level, int) else logging.WARNING)


if __name__ == "__main__":
    main()
