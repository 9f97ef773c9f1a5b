"""Every NLK button and select, one handler per family: parse → service → publish.

The ``DynamicItem`` families (``cogs/routes/families.py``) parse the custom id once and call
here with typed values. A change goes to the publisher, which answers the tap and does
everything that follows; a refusal is worded by ``cogs/answers/replies.py``.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import discord

from bot.errors import InputError, NotPlaying, NotSeated, PlayedElsewhere, Refusal, Stale
from bot.guilds.service import GuildService
from bot.ops.workers import off_loop
from bot.tables.service import Change, Table, TableService, check_end
from bot.tables.table import Moment
from cogs import render
from cogs.answers import rulebook
from cogs.answers.interaction import (
    display_name,
    is_ephemeral,
    is_moderator,
    let_go,
    place_of,
    tell_refusal,
)
from cogs.answers.replies import ANSWERED_ALREADY, describe, say
from cogs.client import Interaction
from cogs.i18n.mentions import linked
from cogs.i18n.translator import Languages, lang_of, t
from cogs.lesson.handler import FIRST_REFUSAL, FIRST_REFUSAL_BUTTON, Lessons
from cogs.live.open_hands import OpenHands
from cogs.live.publisher import Publisher
from cogs.live.table_message import TableMessages
from cogs.render import stats
from cogs.render.history import own_forced
from cogs.render.text import player_names
from cogs.transport.posts import ChannelPosts
from cogs.widgets.buttons import Buttons
from cogs.widgets.ids import Look, Move, Seating, Target
from rules import Action, Card, CardError
from rules.hint import suggest
from rules.i18n import translator

log = logging.getLogger(__name__)

# How long a refusal waits when another process played the tap (a hand-over): that one's
# answer shows the move and goes first; Discord allows 3 s for the first answer.
ELSEWHERE_SECONDS = 1.0


class Clicks:
    """The handlers of every NLK button and select."""

    def __init__(self, service: TableService, servers: GuildService, publisher: Publisher,
                 hands: OpenHands, messages: TableMessages, languages: Languages,
                 posts: ChannelPosts, lessons: Lessons) -> None:
        self.service = service
        self.servers = servers
        self.publisher = publisher  # every change goes out through ``publish``
        self.hands = hands
        self.messages = messages
        self.languages = languages
        self.posts = posts
        self.lessons = lessons  # the lobby's way to the lesson; the first refusal's link

    async def move(self, interaction: Interaction, target: Target, move: Move,
                   values: list[str]) -> None:
        """A move in the game, at the version the button was drawn at."""
        async def work() -> None:
            place_of(interaction)
            if target.version is None:
                raise Stale()
            change = await self.service.act(
                target.table_id, interaction.user.id, target.version,
                move_action(move, target.arg, values), channel_id=interaction.channel_id,
                foresee=self.publisher.foresee(interaction))
            await self.publisher.publish(change, interaction)
            await tell_forced(interaction, change.table)
        await self._handle(interaction, target, work, on_table=True)

    async def seat(self, interaction: Interaction, target: Target,
                   act: Seating) -> None:
        """The lobby, the seats, the table (**End table** asks first, privately)."""
        async def work() -> None:
            place_of(interaction)
            if act is Seating.END:
                await self._ask_end(interaction, target.table_id)
            elif act is Seating.END_YES:
                await self.end_table(interaction, target.table_id, asked=asked_at(target))
            elif act is Seating.END_NO:
                await interaction.response.edit_message(
                    content=t(interaction).gettext("The table goes on."), view=None)
            else:
                change = await self._seating(interaction, target, act)
                await self.publisher.publish(change, interaction)
                if act in (Seating.JOIN, Seating.ADD_AI):
                    # Answered: a lobby this seat filled has its first hand dealt ahead,
                    # and that deal's picture drawn before the host taps Start (the table
                    # gone meanwhile: nothing to deal).
                    with contextlib.suppress(Refusal):
                        await self.service.deal_ahead(
                            target.table_id, self.publisher.foresee(interaction, urgent=False))
        # A refusal on a private hand redraws the hand; the End table question is no hand.
        await self._handle(interaction, target, work,
                           on_hand=act not in (Seating.END_YES, Seating.END_NO),
                           on_table=True)

    async def end_table(self, interaction: Interaction, table_id: int, *,
                        asked: Moment | None = None) -> None:
        """End the table and announce it in the channel: as ``/nlk end``'s answer, or, from
        the confirmation of **End table**, as a public follow-up (``asked``: where the table
        was when the question was asked; a table that moved on since is not ended)."""
        change = await self.service.end(table_id, interaction.user.id,
                                        moderator=is_moderator(interaction),
                                        channel_id=interaction.channel_id, asked=asked)
        lang = await self.languages.public(place_of(interaction), interaction)
        _ = translator(lang).gettext
        text = _("NLK table {table} was ended by {name}.").format(
            table=table_id, name=render.safe_name(display_name(interaction.user)))
        ended = change.table
        hand = ended.public_view()
        fair = discord.utils.MISSING
        if ended.seed is not None and hand is not None and not hand.is_over:
            # The unfinished hand's seed is public now, so its deal can still be checked: the
            # line says what the seed proves, and **Fair deal** beside it (the closed table
            # message has no buttons) shows the command that checks it, privately.
            unfinished = _("Hand {number} was not finished.").format(number=ended.hand_number)
            text += f" {unfinished} {render.seed_proof(ended.seed, lang)}"
            fair = render.fair_button(table_id, lang)
        none = discord.AllowedMentions.none()
        if interaction.type is discord.InteractionType.application_command:
            await interaction.response.send_message(text, allowed_mentions=none, view=fair)
        else:
            mine = t(interaction).gettext("You ended the table.")
            await interaction.response.edit_message(content=mine, embed=None, view=None)
            await interaction.followup.send(text, allowed_mentions=none, view=fair)
        await self.publisher.publish(change, interaction)

    async def _ask_end(self, interaction: Interaction, table_id: int) -> None:
        """**End table** asks first, privately: it sits beside **Next hand**."""
        table = await self.service.get(table_id, channel_id=interaction.channel_id)
        check_end(table, interaction.user.id, moderator=is_moderator(interaction))
        _ = t(interaction).gettext
        await interaction.response.send_message(
            _("End NLK table {table} for everyone? Its seats go, and it can't be undone.")
            .format(table=table_id),
            view=render.end_confirmation(table_id, lang_of(interaction), table.moment()),
            ephemeral=True)

    async def look(self, interaction: Interaction, target: Target,
                   look: Look) -> None:
        """Something seen privately: nothing changes."""
        async def work() -> None:
            if look is Look.LEARN:
                await self.lessons.open(interaction)
            elif look is Look.HINT:
                await self._hint(interaction, target.table_id)
            elif look is Look.HAND:
                await self._show_hand(interaction, target.table_id)
            elif look is Look.MOVES:
                await self._show_moves(interaction, target.table_id, target.arg)
            elif look is Look.TABLE:
                table = await self.service.get(target.table_id,
                                               channel_id=interaction.channel_id)
                await self.publisher.refresh(table, interaction)
            else:
                await self._show_fair(interaction, target.table_id)
        await self._handle(interaction, target, work)

    async def page(self, interaction: Interaction, target: Target) -> None:
        """Turn a page of the leaderboard."""
        async def work() -> None:
            guild_id = place_of(interaction)
            asked = stats.parse_stats_arg(target.arg)
            if asked is None:
                raise InputError("page")
            size, page = asked
            embed, view = stats.leaderboard(
                await self.servers.leaderboard(guild_id, page, size), lang_of(interaction))
            await interaction.response.edit_message(embed=embed, view=view)
        await self._handle(interaction, target, work)

    async def rule(self, interaction: Interaction, target: Target) -> None:
        """A "📖 R3.3" button under something said at the table: the rule's text, privately,
        in the reader's language, to whoever taps it; nothing changes."""
        async def work() -> None:
            await rulebook.open_rule(interaction, target.arg, tapped=True)
        await self._handle(interaction, target, work)

    async def unknown(self, interaction: Interaction, target: Target) -> None:
        async def work() -> None:
            raise InputError("action")
        await self._handle(interaction, target, work)

    async def _handle(self, interaction: Interaction, target: Target,
                      work: Callable[[], Awaitable[None]], *, on_hand: bool = True,
                      on_table: bool = False) -> None:
        """Run a click's work; refuse politely whatever goes wrong (``on_table``: a button
        of the table message's families)."""
        table_id = target.table_id if target.valid else None
        elsewhere: PlayedElsewhere | None = None
        try:
            # The owners' loops let this tap's answer (or refusal) go first.
            with self.publisher.tables.answers.answering():
                try:
                    if table_id is None:
                        raise InputError("id")
                    await work()
                except PlayedElsewhere as error:
                    elsewhere = error  # refused below, after the other process's answer
                except Exception as error:
                    await self._refuse(interaction, table_id, error, on_hand=on_hand,
                                       on_table=on_table)
            if elsewhere is not None:
                await self._refuse_after_the_other(interaction, table_id, elsewhere,
                                                   on_hand=on_hand, on_table=on_table)
            if table_id is not None and interaction.guild_id is None:
                await self._touched(interaction, table_id)
            if table_id is not None:
                await tell_refusal(interaction, self.posts)
        finally:
            let_go(interaction)

    async def _refuse_after_the_other(self, interaction: Interaction, table_id: int | None,
                                      error: PlayedElsewhere, *, on_hand: bool,
                                      on_table: bool) -> None:
        """Another process played this tap (a hand-over: both processes got it), and its
        answer shows the move. This one's refusal ("out of date", which the person would
        read as their move refused) waits ``ELSEWHERE_SECONDS`` so that answer goes first,
        and is dropped once Discord says the tap was answered; it answers only a tap the
        other process did not."""
        await asyncio.sleep(ELSEWHERE_SECONDS)
        try:
            await self._refuse(interaction, table_id, error, on_hand=on_hand,
                               on_table=on_table)
        except discord.HTTPException as refused:
            if refused.code != ANSWERED_ALREADY:
                raise
            log.info("table %s: the tap was answered by the process that played it",
                     table_id)

    async def _touched(self, interaction: Interaction, table_id: int) -> None:
        """A tap at a group DM's table, answered or refused: its token brings the table's
        messages up to date (``Publisher.touched``)."""
        try:
            table = await self.service.get(table_id, channel_id=interaction.channel_id)
        except Refusal:
            return
        self.publisher.touched(table, interaction)

    async def _seating(self, interaction: Interaction, target: Target,
                       act: Seating) -> Change:
        """The change a lobby or seat button asks for, made by the table service."""
        service, table_id, user = self.service, target.table_id, interaction.user
        where = interaction.channel_id
        match act:
            case Seating.JOIN:
                return await service.join(table_id, user.id, display_name(user),
                                          channel_id=where)
            case Seating.LEAVE:
                return await service.leave(table_id, user.id, channel_id=where)
            case Seating.START:
                return await service.start(table_id, user.id, channel_id=where,
                                           foresee=self.publisher.foresee(interaction))
            case Seating.CANCEL:
                return await service.cancel(table_id, user.id, channel_id=where)
            case Seating.NEXT:
                return await service.next_hand(table_id, user.id, channel_id=where,
                                               foresee=self.publisher.foresee(interaction))
            case Seating.ADD_AI:
                allowed = (await self.servers.settings(place_of(interaction))).allow_ai
                return await service.add_ai(table_id, user.id, target.arg.lower(),
                                            allowed=allowed, channel_id=where)
            case Seating.REMOVE_AI:
                return await service.remove_ai(table_id, user.id, channel_id=where)
            case Seating.BACK:
                return await service.back(table_id, user.id, channel_id=where)
            case Seating.REMOVE:
                if not target.arg.isdigit():
                    raise InputError("action")
                return await service.remove(table_id, user.id, int(target.arg),
                                            moderator=is_moderator(interaction),
                                            channel_id=where)
            case Seating.END | Seating.END_YES | Seating.END_NO:
                raise InputError("action")  # answered by ``seat`` itself

    async def _show_hand(self, interaction: Interaction, table_id: int) -> None:
        table = await self.service.get(table_id, channel_id=interaction.channel_id)
        seated(table, interaction.user.id)
        letters = lang_of(interaction)  # a private message: the reader's own card letters
        if is_ephemeral(interaction):  # Refresh on the hand itself
            await self.hands.answer(interaction, table, letters=letters)
        else:
            await self.hands.show(interaction, table, letters=letters)
        if interaction.message is None or interaction.message.id != table.message_id:
            # Opened from a ping or a hand: is the table message still there?
            self.messages.check(table)

    async def _show_moves(self, interaction: Interaction, table_id: int,
                          arg: str) -> None:
        """The hand's public log, to anyone in the channel, privately; page buttons on the
        log turn its pages in place."""
        place_of(interaction)
        if arg and not arg.isdigit():
            raise InputError("page")
        table = await self.service.get(table_id, channel_id=interaction.channel_id)
        if table.public_view() is None:
            raise NotPlaying("lobby")
        embed, view = render.moves_message(table, int(arg) if arg else None,
                                           lang_of(interaction))
        if is_ephemeral(interaction):
            await interaction.response.edit_message(embed=embed, view=view)
        else:
            await interaction.response.send_message(embed=embed, view=view, ephemeral=True)

    async def _hint(self, interaction: Interaction, table_id: int) -> None:
        """The strongest move now and why, privately; the hand is marked assisted."""
        change = await self.service.assist(table_id, interaction.user.id,
                                           channel_id=interaction.channel_id)
        game = change.table.game
        assert game is not None
        hint = await off_loop(self.publisher.clocks.pool,
                              functools.partial(suggest, game, seed=game.version))
        lang = lang_of(interaction)
        _ = translator(lang).gettext
        why = hint.reason.words(player_names(game.names, lang), lang)
        await interaction.response.send_message(
            "💡 " + why + "\n" +
            _("This hand is now marked assisted in its moves log and its export; it is rated "
              "like any other."), ephemeral=True,
            view=rule_buttons(table_id, why))

    async def _show_fair(self, interaction: Interaction, table_id: int) -> None:
        """The hand's full commitment (and its seed once that is public), privately."""
        place_of(interaction)
        table = await self.service.get(table_id, channel_id=interaction.channel_id)
        if table.seed is None or table.game is None:
            raise NotPlaying("lobby")
        await interaction.response.send_message(
            embed=render.fair_message(table, lang_of(interaction)), ephemeral=True)

    async def _refuse(self, interaction: Interaction, table_id: int | None,
                      error: Exception, *, on_hand: bool = True,
                      on_table: bool = False) -> None:
        """Refuse politely; on a player's own hand message, redraw it as it is now; on the
        table message, if it showed a move already made (``Stale``), bring it up to date."""
        lang = lang_of(interaction)
        text, expected = describe(error, lang)
        # Its buttons: the lesson's, where not everyone can run /nlk, and a "📖 R3.3" for
        # each rule the refusal cites, which opens that rule's text (issue 45).
        buttons: discord.ui.View | None = None
        if isinstance(error, Refusal) and await self.lessons.link_once(interaction.user.id,
                                                                        error):
            if interaction.guild_id is None and table_id is not None:
                text += "\n" + translator(lang).gettext(FIRST_REFUSAL_BUTTON)
                buttons = Buttons()
                buttons.add_item(render.learn_button(table_id, lang))
            else:
                text += "\n" + translator(lang).gettext(FIRST_REFUSAL)
        if table_id is not None and (cited := rulebook.cited_in(text)):
            buttons = rulebook.add_rule_buttons(buttons or Buttons(), table_id, cited, row=1)
        text = linked(interaction, text, lang)
        # A refusal with buttons is a message of its own: a hand's note has no room for them
        # (and a refusal by the rules came from a hand drawn at the table's version: it shows
        # the table as it is).
        if on_hand and expected and table_id is not None and is_ephemeral(interaction) and \
                not interaction.response.is_done() and buttons is None:
            try:
                table = await self.service.get(table_id, channel_id=interaction.channel_id)
                await self.hands.answer(interaction, table, letters=lang, note=text)
                return
            except Refusal:
                pass
        if on_table and expected and table_id is not None and not is_ephemeral(interaction) \
                and interaction.message is not None and interaction.message.embeds and \
                not interaction.response.is_done():
            # A group DM's copy of the table message, out of date (its token lapsed before
            # it could be edited), or a server's table message tapped while it showed a move
            # already made (its paced edit still to come): the tap brings that message up to
            # date in place, for everyone, and the refusal is said privately below it.
            try:
                table = await self.service.get(table_id, channel_id=interaction.channel_id)
                # (Not a move another process played: its own answer shows the move.)
                if interaction.guild_id is None or (
                        interaction.message.id == table.message_id and
                        isinstance(error, Stale) and not isinstance(error, PlayedElsewhere)):
                    await self.publisher.refresh(table, interaction)
                    await interaction.followup.send(text, ephemeral=True,
                                                    view=buttons or discord.utils.MISSING)
                    return
            except Refusal:
                pass
        await say(interaction, text, buttons)


async def tell_forced(interaction: Interaction, table: Table) -> None:
    """The player's own answer says why the moves that then played themselves for them had
    no choice ("You had to draw: …"), privately, below the table it moved."""
    reasons = own_forced(table, interaction.user.id, lang_of(interaction))
    if not reasons or not interaction.response.is_done():
        return
    text = "\n".join(f"✱ {why}" for why in reasons)
    try:
        await interaction.followup.send(text, ephemeral=True,
                                        view=rule_buttons(table.id, text))
    except discord.HTTPException:
        log.info("could not say why a move played itself", exc_info=True)


def rule_buttons(table_id: int, text: str) -> Any:
    """A "📖 R3.3" button for each rule ``text`` cites, at the table ``table_id`` (none
    cited: MISSING, so the message goes as it did without them)."""
    cited = rulebook.cited_in(text)
    return rulebook.add_rule_buttons(Buttons(), table_id, cited) if cited else \
        discord.utils.MISSING


def asked_at(target: Target) -> Moment:
    """Where the table was when End table's question was asked (an old question, sent
    before questions said so, matches no table: it is refused, and asked again)."""
    hand = int(target.arg) if target.arg.isdigit() else -1
    return Moment(hand, target.version)


def move_action(move: Move, arg: str, values: list[str]) -> Action:
    """The engine action a move button or select stands for."""
    try:
        if move is Move.GIVE:
            card, _, to = arg.partition(".")
            return Action.give(Card.parse(card), int(to))
        if move is Move.PLAY:
            return Action.play(Card.parse(values[0] if values else arg))
        return Action.parse(move.value)
    except (CardError, ValueError, IndexError):
        raise InputError("action") from None


def seated(table: Table, user_id: int) -> None:
    """Refuse someone with no seat at ``table``: a closed table says so; an open one says
    whose turn it is, if anyone's."""
    if table.seat_of(user_id) is not None:
        return
    if not table.is_open:
        raise NotPlaying("ended")
    raise NotSeated(turn_of=table.name_to_act())
